"""The reference engine behind WebSocket (docs/engine-protocol.md, "WebSocket").

``python -m rspbench_engines.services.websocket --port 8765 [--engine module:Class] [--once]``

The harness connects to ``ws://HOST:PORT`` (the control socket) and gets a
hello; its ``register`` names the stream's ``source``, a ws:// URL the
harness serves, which this service subscribes to before answering
``registered``. Events and the end come over the subscription; results,
errors and ``done`` go back over the control socket.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

from rspbench_engines.services.host import Host, arguments

_OPTIONS: dict[str, Any] = {"compression": None, "max_size": None, "ping_interval": None}


def serve(port: int, target: str, host: str = "127.0.0.1", once: bool = False) -> Any:
    """A server for ``target``; the caller runs ``serve_forever``."""
    from websockets.sync.server import serve as ws_serve

    from pytest_rspbench.engine.transports.websocket import client

    def handler(control: Any) -> None:
        engine = Host(target, lambda message: control.send(json.dumps(message)))
        control.send(json.dumps(engine.hello()))
        subscription = None
        for raw in control:
            message = json.loads(raw)
            if message.get("type") == "register":
                subscription = client(message["source"])
                engine.handle(message)
                threading.Thread(target=_feed, args=(subscription, engine), daemon=True).start()
            elif message.get("type") == "shutdown":
                break
        engine.close()
        if subscription is not None:
            subscription.close()
        if once:
            threading.Thread(target=server.shutdown, daemon=True).start()

    server = ws_serve(handler, host, port, **_OPTIONS)
    return server


def _feed(subscription: Any, engine: Host) -> None:
    """The stream's events and its end, into the engine, in order."""
    from websockets.exceptions import ConnectionClosed

    try:
        for raw in subscription:
            engine.handle(json.loads(raw))
    except ConnectionClosed:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = arguments("The reference engine behind WebSocket.")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    server = serve(args.port, args.engine, args.host, args.once)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
