"""The MQTT transport: the stream on one topic, results on another, through a broker.

With ``topic: T`` (docs/engine-protocol.md, "MQTT")::

    harness -> T/control   register; at the end, shutdown
    harness -> T/stream    one event message per MQTT message, then end
    engine  -> T/results   hello (when the harness started it), registered,
                           results, errors, done after the last result

Every message is one protocol-1 JSON object, at the adapter's QoS (1 by
default: MQTT keeps the order of one client's messages on one topic at one
QoS, so events arrive in order and ``end`` after them). The broker is the
session's own mosquitto (``broker: local``,
:mod:`~pytest_rspbench.engine.transports.broker`) or the user's
(``mqtt://host:port``).
"""

from __future__ import annotations

import contextlib
import threading
import urllib.parse
from typing import Any

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.placeholders import expand
from pytest_rspbench.engine.transports.service import ServiceEngine
from pytest_rspbench.errors import EngineConfigError
from pytest_rspbench.stream.model import Event

INFLIGHT = 1000  # QoS 1/2 messages on their way at once


class MqttEngine(ServiceEngine):
    """An engine reached through an MQTT broker (``adapter.mqtt``)."""

    transport = "mqtt"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client: Any = None
        self._subscribed = threading.Event()
        self._leaving = False
        self.topic = ""
        self._host, self._port = "127.0.0.1", 1883

    @property
    def where(self) -> str:
        return f"mqtt at {self.url} (topic {self.topic}/...)"

    def prepare(self) -> None:
        """Find the broker, subscribe to the results: then a started engine's hello is heard."""
        self._broker()
        self.places["broker"] = f"{self._host}:{self._port}"
        self.topic = expand(self.adapter.topic, self.places)
        self.places["topic"] = self.topic
        self._listen()

    def connect(self) -> None:
        if self.started:
            self.wait(lambda: self.inbox.hello is not None, "hello", self.adapter.handshake_timeout)
            self.hello = self.inbox.hello

    def register(self, registration: Registration) -> None:
        self._publish("control", protocol.register_line(registration))

    def send_events(self, batch: list[tuple[str, Event]]) -> None:
        for stream, event in batch:
            self._publish("stream", protocol.event_line(stream, event))

    def send_end(self, end_time: int) -> None:
        self._publish("stream", protocol.end_line(end_time))

    def disconnect(self) -> None:
        client = self._client
        if client is None:
            return
        if not self.aborted and self.inbox.closed is None:
            with contextlib.suppress(Exception):
                self.said_shutdown = True
                client.publish(
                    f"{self.topic}/control", protocol.shutdown_line(), self.adapter.qos
                ).wait_for_publish(2.0)
        self.interrupt()

    def interrupt(self) -> None:
        client = self._client
        if client is not None:
            self._leaving = True
            with contextlib.suppress(Exception):
                client.disconnect()
            client.loop_stop()

    # -- internals -----------------------------------------------------------

    def _broker(self) -> None:
        if self.url == "local":
            from pytest_rspbench.engine.transports.broker import local

            broker = local()
            self.url, self._port = broker.url, broker.port
            return
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme != "mqtt" or not parts.hostname:
            raise EngineConfigError(
                f"engine {self.name!r}: adapter.mqtt.broker {self.url!r} is neither 'local' "
                "nor mqtt://host:port.\nHINT: write broker: local, or broker: mqtt://host:1883."
            )
        self._host, self._port = parts.hostname, parts.port or 1883

    def _listen(self) -> None:
        import paho.mqtt.client as mqtt

        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"rspbench-{self.topic}")
        client.max_inflight_messages_set(INFLIGHT)
        client.on_message = self._received
        client.on_disconnect = self._disconnected
        client.on_subscribe = self._acknowledged
        self._client = client
        timeout = self.adapter.handshake_timeout

        def attempt() -> None:
            client.connect(self._host, self._port, keepalive=30)

        self.until_reachable(attempt, "a connection to the broker")
        client.subscribe(f"{self.topic}/results", self.adapter.qos)
        client.loop_start()
        self.wait(self._subscribed.is_set, "the broker's answer to the subscription", timeout)

    def _acknowledged(self, *args: Any) -> None:
        self._subscribed.set()
        self.inbox.poke()

    def _received(self, client: Any, userdata: Any, message: Any) -> None:
        text = message.payload.decode("utf-8", errors="replace")
        self.inbox.take(text, f"topic {message.topic}")

    def _disconnected(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any = None
    ) -> None:
        if not self._leaving:
            self.inbox.close(f"the broker went away (the connection to it ended: {reason})")

    def _publish(self, kind: str, payload: str) -> None:
        info = self._client.publish(f"{self.topic}/{kind}", payload, self.adapter.qos)
        if info.rc != 0:
            if self.aborted:
                raise self.gone()
            import paho.mqtt.client as mqtt

            self.inbox.close(f"the broker went away ({mqtt.error_string(info.rc)})")
            raise self.gone()
