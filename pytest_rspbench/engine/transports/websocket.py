"""The WebSocket transport: the engine subscribes to a stream the harness serves.

As TripleWave serves a stream, the harness serves the run's events on a
``ws://127.0.0.1:<port>/`` of its own (docs/engine-protocol.md, "WebSocket")::

    harness -> service's url (control socket)   connects; the engine says hello
    harness -> control   register, with "source": the stream's ws:// URL
    engine  -> source    subscribes (one connection)
    engine  -> control   registered
    harness -> source    one event message per WebSocket message, then end
    engine  -> control   results, errors, then done after the last result
    harness -> control   shutdown

Every message is one protocol-1 JSON object, as one line on stdin/stdout.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from typing import Any

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.transports.service import ServiceEngine, free_port
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event

_OPTIONS: dict[str, Any] = {
    "compression": None,
    "max_size": None,
    "ping_interval": None,
    "close_timeout": 1.0,
}


class WebSocketEngine(ServiceEngine):
    """An engine controlled over a WebSocket, fed over another (``adapter.websocket``)."""

    transport = "websocket"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._control: Any = None
        self._reader: threading.Thread | None = None
        self._server: Any = None
        self._subscriber: Any = None
        self._subscribed = threading.Event()
        self._finished = threading.Event()
        self.source = ""

    def connect(self) -> None:
        from websockets.exceptions import InvalidHandshake, InvalidURI

        timeout = self.adapter.handshake_timeout

        def attempt() -> None:
            try:
                self._control = client(self.url, open_timeout=timeout)
            except (InvalidHandshake, InvalidURI) as exc:
                raise self.error(
                    f"the WebSocket handshake failed: {exc}",
                    "the url must be the service's WebSocket, answering the upgrade.",
                ) from None

        self.until_reachable(attempt, "the WebSocket handshake")
        self.hello = self._first_hello(timeout)
        self._reader = _start(self._read_control, "rspbench-ws-control")

    def register(self, registration: Registration) -> None:
        from websockets.sync.server import serve

        port = free_port()
        self._server = serve(self._serve_stream, "127.0.0.1", port, **_OPTIONS)
        _start(self._server.serve_forever, "rspbench-ws-stream")
        self.source = f"ws://127.0.0.1:{port}/"
        message = json.loads(protocol.register_line(registration))
        self._send_control({**message, "source": self.source}, "register")

    def ready(self) -> None:
        if not self._subscribed.wait(self.adapter.handshake_timeout):
            raise self.error(
                f"it said 'registered' but never subscribed to the stream at {self.source} "
                f"within {self.adapter.handshake_timeout:g} s",
                "subscribe to the register message's 'source' before answering 'registered'.",
            )

    def send_events(self, batch: list[tuple[str, Event]]) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            for stream, event in batch:
                self._subscriber.send(protocol.event_line(stream, event))
        except (ConnectionClosed, OSError) as exc:
            raise self._dropped(f"the stream subscription at {self.source} ended ({exc})") from None

    def send_end(self, end_time: int) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            self._subscriber.send(protocol.end_line(end_time))
        except (ConnectionClosed, OSError) as exc:
            raise self._dropped(f"the stream subscription at {self.source} ended ({exc})") from None

    def disconnect(self) -> None:
        if self._control is not None and not self.aborted and self.inbox.closed is None:
            with contextlib.suppress(Exception):
                self.said_shutdown = True
                self._control.send(protocol.shutdown_line())
        self._finished.set()
        if self._control is not None:
            with contextlib.suppress(Exception):
                self._control.close()
        if self._server is not None:
            self._server.shutdown()
        if self._reader is not None:
            self._reader.join(2.0)
        self.interrupt()

    def interrupt(self) -> None:
        self._finished.set()
        for conn in (self._control, self._subscriber):
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.socket.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(Exception):
                    conn.socket.close()

    # -- internals -----------------------------------------------------------

    def _first_hello(self, timeout: float) -> protocol.Hello:
        from websockets.exceptions import ConnectionClosed

        try:
            text = self._control.recv(timeout=timeout)
        except TimeoutError:
            raise self.error(
                f"it accepted the WebSocket but said no hello within {timeout:g} s",
                'send {"type": "hello", "protocol": 1, ...} as the first message.',
            ) from None
        except ConnectionClosed as exc:
            raise self.error(f"it closed the WebSocket before its hello ({exc})") from None
        text = text if isinstance(text, str) else text.decode("utf-8", errors="replace")
        try:
            message = protocol.parse_line(text)
        except protocol.ProtocolViolation as exc:
            message = None
            problem = str(exc)
        if not isinstance(message, protocol.Hello):
            problem = "not a hello" if message is not None else problem
            raise self.error(f"its first message {text[:120]!r} is {problem}")
        return message

    def _read_control(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            for message in self._control:
                text = message if isinstance(message, str) else message.decode("utf-8", "replace")
                self.inbox.take(text, "the control WebSocket")
            self.inbox.close("the service closed the control WebSocket")
        except (ConnectionClosed, OSError) as exc:
            self.inbox.close(f"the control WebSocket broke ({exc or type(exc).__name__})")

    def _serve_stream(self, conn: Any) -> None:
        """The handler of the stream server: the first subscriber is the engine."""
        if self._subscribed.is_set():
            conn.close(1008, "this stream has a subscriber already")
            return
        self._subscriber = conn
        self._subscribed.set()
        self.inbox.poke()
        self._finished.wait()

    def _send_control(self, message: dict[str, Any], what: str) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            self._control.send(json.dumps(message, ensure_ascii=False))
        except (ConnectionClosed, OSError) as exc:
            raise self._dropped(f"the control WebSocket ended before {what} ({exc})") from None

    def _dropped(self, what: str) -> EngineError:
        return self.gone() if self.aborted else self.error(what)


def client(url: str, **options: Any) -> Any:
    """A WebSocket client connection to ``url``, without proxies, kept open by the caller.

    websockets wants ``connect`` used as a context manager; the connection
    outlives the call here and is closed by :meth:`WebSocketEngine.disconnect`.
    """
    from websockets.sync.client import connect

    return contextlib.ExitStack().enter_context(connect(url, proxy=None, **_OPTIONS, **options))


def _start(target: Any, name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread
