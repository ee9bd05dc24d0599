"""The HTTP transport: the engine is a server, results come back to the harness.

The harness speaks to the service at ``url`` (docs/engine-protocol.md, "HTTP")::

    GET  /hello       -> the engine's hello (also how the harness knows it listens)
    POST /register    the register message, plus "callback" when results are pushed
    POST /events      a batch of event messages as JSON lines (or one event as
                      N-Triples, with the Rspbench-Stream and Rspbench-Time headers)
    POST /end         the end message
    POST /shutdown    the run is over

Every response body is read as engine messages, one per line (the answer to
``/register`` holds ``registered``; results may come back there too, a
streamed answer). Results are pushed either by the engine to a callback the
harness serves on loopback (``results: callback``, POSTed as JSON lines), or
read by the harness as server-sent events from ``GET /results``
(``results: sse``), opened before registering. ``done`` comes on the same
channel as the results, after the last one.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import urllib.parse
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.transports.inbox import Inbox
from pytest_rspbench.engine.transports.service import ServiceEngine
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event

BODY_SHOWN = 200  # characters of an error answer's body quoted


class HttpEngine(ServiceEngine):
    """An engine behind an HTTP server (``adapter.http``)."""

    transport = "http"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        parts = urllib.parse.urlsplit(self.url)
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 80
        self._base = parts.path.rstrip("/")
        self._conns: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._callback: Callback | None = None
        self._sse: threading.Thread | None = None
        self._streaming = threading.Event()

    # -- the steps -----------------------------------------------------------

    def connect(self) -> None:
        def attempt() -> None:
            body = self.request("GET", "/hello", timeout=self.adapter.handshake_timeout)
            try:
                message = protocol.parse_line(body)
            except protocol.ProtocolViolation as exc:
                raise self.error(
                    f"GET /hello answered {body[:BODY_SHOWN]!r}, not a hello ({exc})",
                    'answer GET /hello with {"type": "hello", "protocol": 1, ...}.',
                ) from None
            if not isinstance(message, protocol.Hello):
                raise self.error(f"GET /hello answered {body[:BODY_SHOWN]!r}, not a hello")
            self.hello = message

        self.until_reachable(attempt, "GET /hello")

    def register(self, registration: Registration) -> None:
        message = json.loads(protocol.register_line(registration))
        if self.adapter.results == "sse":
            self._sse = _start(self._read_events, "rspbench-sse")
            # 'registered' comes on the stream: it must be open before /register.
            self.wait(
                self._streaming.is_set, "an answer to GET /results", self.adapter.handshake_timeout
            )
        else:
            self._callback = Callback(self.inbox)
            message["callback"] = self._callback.url
        self.post("/register", json.dumps(message), timeout=self.adapter.handshake_timeout)

    def send_events(self, batch: list[tuple[str, Event]]) -> None:
        if self.adapter.events == "ntriples":
            for stream, event in batch:
                self.post(
                    "/events", _ntriples(event), "application/n-triples", _headers(stream, event)
                )
            return
        body = "".join(protocol.event_line(stream, event) for stream, event in batch)
        self.post("/events", body)

    def send_end(self, end_time: int) -> None:
        self.post("/end", protocol.end_line(end_time))

    def disconnect(self) -> None:
        try:
            if not self.aborted and self.inbox.closed is None:
                with contextlib.suppress(EngineError):
                    self.said_shutdown = True
                    self.post("/shutdown", protocol.shutdown_line(), timeout=2.0)
        finally:
            self.interrupt()
            if self._callback is not None:
                self._callback.stop()
            if self._sse is not None:
                self._sse.join(2.0)

    def interrupt(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                if conn.sock is not None:
                    conn.sock.shutdown(socket.SHUT_RDWR)
            conn.close()

    # -- requests ------------------------------------------------------------

    def post(
        self,
        path: str,
        body: str,
        content_type: str = "application/x-ndjson",
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> str:
        """POST ``body``; the answer's lines go to the inbox; errors name the request."""
        answer = self.request(
            "POST", path, body, {"Content-Type": content_type, **(headers or {})}, timeout
        )
        for line in answer.splitlines():
            self.inbox.take(line, f"the answer to POST {path}")
        return answer

    def request(
        self,
        method: str,
        path: str,
        body: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        form: bool = False,
    ) -> str:
        """One request on a kept-alive connection; the body of a 2xx answer.

        A refused connection is raised as is (the caller may retry while a
        started service comes up); every other failure is an EngineError.
        """
        what = f"{method} {path}"
        conn = self._connection(timeout or self.adapter.request_timeout)
        try:
            conn.request(
                method, self._base + path, body=(body or "").encode(), headers=dict(headers or {})
            )
            response = conn.getresponse()
            data = response.read().decode("utf-8", errors="replace")
        except ConnectionRefusedError:
            self._drop(conn)
            if path == "/hello":
                raise
            raise self._dropped(what, "nothing listens any more (connection refused)") from None
        except TimeoutError:
            self._drop(conn)
            if self.aborted:
                raise self.gone() from None
            if path == "/hello":
                raise
            raise self.error(f"no answer to {what} within {conn.timeout:g} s") from None
        except http.client.RemoteDisconnected:
            self._drop(conn)
            raise self._dropped(what, "closed the connection without answering") from None
        except http.client.HTTPException as exc:
            self._drop(conn)
            raise self.error(f"answered {what} with something that is not HTTP ({exc!r})") from None
        except OSError as exc:
            self._drop(conn)
            raise self._dropped(
                what, f"the connection broke ({type(exc).__name__}: {exc})"
            ) from None
        if response.status >= 300:
            self._drop(conn)
            raise self.error(
                f"answered {what} with HTTP {response.status} {response.reason}: "
                f"{data[:BODY_SHOWN]!r}",
                "a service answers every request of docs/engine-protocol.md with 2xx; "
                "put the reason of a failure in an error message.",
            )
        return data

    def _dropped(self, what: str, how: str) -> EngineError:
        if self.aborted:
            return self.gone()
        return self.error(f"{how} during {what}")

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        with self._lock:
            if self._conns:
                conn = self._conns[0]
                conn.timeout = timeout
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                return conn
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
            self._conns.append(conn)
            return conn

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if conn in self._conns:
                self._conns.remove(conn)
        conn.close()

    # -- server-sent events --------------------------------------------------

    def _read_events(self) -> None:
        """Read ``GET /results`` as server-sent events until it ends."""
        conn = http.client.HTTPConnection(self._host, self._port, timeout=None)
        with self._lock:
            self._conns.append(conn)
        try:
            conn.request("GET", self._base + "/results", headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            if response.status >= 300:
                self.inbox.close(f"GET /results answered HTTP {response.status} {response.reason}")
                return
            self._streaming.set()
            self.inbox.poke()
            data: list[str] = []
            for raw in response:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif not line and data:
                    for message in data:
                        self.inbox.take(message, "the server-sent events of GET /results")
                    data = []
            self.inbox.close("the service ended the server-sent events of GET /results")
        except (OSError, http.client.HTTPException) as exc:
            self.inbox.close(
                f"the server-sent events of GET /results broke ({type(exc).__name__}: {exc})"
            )
        finally:
            conn.close()


class Callback:
    """The harness's loopback server the engine POSTs its messages to."""

    def __init__(self, inbox: Inbox, path: str = "/results", parse: Any = None) -> None:
        self.inbox = inbox
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", errors="replace")
                where = f"the callback POST {self.path}"
                if parse is not None:
                    parse(body, self.headers.get("Content-Type", ""), where)
                else:
                    for line in body.splitlines():
                        owner.inbox.take(line, where)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the harness keeps its output for the report

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}{path}"
        self._thread = _start(self._server.serve_forever, "rspbench-callback")

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(2.0)


def _ntriples(event: Event) -> str:
    return "".join(f"{s} {p} {o} .\n" for s, p, o in event.triples)


def _headers(stream: str, event: Event) -> dict[str, str]:
    return {"Rspbench-Stream": stream, "Rspbench-Time": str(int(event.time))}


def _start(target: Any, name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread
