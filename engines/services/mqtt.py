"""The reference engine behind MQTT (docs/engine-protocol.md, "MQTT").

``python -m rspbench_engines.services.mqtt --broker HOST:PORT --topic T``
(with ``--engine module:Class`` and ``--once`` as the other wrappers)

Subscribes to ``T/control`` (register, shutdown) and ``T/stream`` (events,
end), says hello on ``T/results`` once subscribed, and publishes there what
the engine says. With ``--once`` it exits after one run's shutdown.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rspbench_engines.services.host import Host, arguments


def main(argv: list[str] | None = None) -> int:
    import paho.mqtt.client as mqtt

    parser = arguments("The reference engine behind MQTT.")
    parser.add_argument("--broker", required=True, help="host:port of the broker")
    parser.add_argument("--topic", required=True, help="the run's topic prefix")
    parser.add_argument("--qos", type=int, default=1, choices=(0, 1, 2))
    args = parser.parse_args(argv)
    host, _, port = args.broker.rpartition(":")
    topic, qos = args.topic, args.qos
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.max_inflight_messages_set(1000)
    engine = Host(args.engine, lambda m: client.publish(f"{topic}/results", json.dumps(m), qos))

    def connected(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe([(f"{topic}/control", qos), (f"{topic}/stream", qos)])

    def subscribed(*ignored: Any) -> None:
        engine.send(engine.hello())

    def received(client: Any, userdata: Any, message: Any) -> None:
        data = json.loads(message.payload)
        if data.get("type") == "shutdown":
            engine.close()
            if args.once:
                client.disconnect()
            return
        engine.handle(data)

    client.on_connect, client.on_subscribe, client.on_message = connected, subscribed, received
    client.connect(host, int(port))
    client.loop_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
