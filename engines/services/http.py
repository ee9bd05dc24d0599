"""The reference engine behind HTTP (docs/engine-protocol.md, "HTTP").

``python -m rspbench_engines.services.http --port 8080 [--engine module:Class] [--once]``

``GET /hello`` says hello; ``POST /register`` registers (results then go to
the ``callback`` of the register message, or, without one, out as
server-sent events on ``GET /results``); ``POST /events`` takes event
messages as JSON lines, or one event as N-Triples with its stream and time
in the ``Rspbench-Stream`` and ``Rspbench-Time`` headers; ``POST /end`` ends
the stream; ``POST /shutdown`` closes the engine (and the server, with
``--once``).
"""

from __future__ import annotations

import http.client
import json
import queue
import sys
import threading
import urllib.parse
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rspbench_engines.services.host import Host, arguments


class Outlet:
    """Where the engine's messages go: a callback URL, or the SSE queue."""

    def __init__(self) -> None:
        self.callback: str | None = None
        self._conn: http.client.HTTPConnection | None = None
        self.events: queue.Queue[str | None] = queue.Queue()

    def send(self, message: Mapping[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False)
        if self.callback is None:
            self.events.put(line)
            return
        parts = urllib.parse.urlsplit(self.callback)
        if self._conn is None:
            self._conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80)
        self._conn.request(
            "POST", parts.path, line + "\n", {"Content-Type": "application/x-ndjson"}
        )
        self._conn.getresponse().read()


def _triples(body: str) -> list[tuple[str, str, str]]:
    """N-Triples text as ``(s, p, o)`` terms in N-Triples form."""
    import pyoxigraph

    parsed = pyoxigraph.parse(body.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return [(str(t.subject), str(t.predicate), str(t.object)) for t in parsed]


def serve(
    port: int, target: str, host: str = "127.0.0.1", once: bool = False
) -> ThreadingHTTPServer:
    """A server for ``target``; the caller runs ``serve_forever``."""
    outlet = Outlet()
    engine = Host(target, outlet.send)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path.endswith("/hello"):
                self._answer(json.dumps(engine.hello()) + "\n")
            elif self.path.endswith("/results"):
                self._stream()
            else:
                self._answer("not found\n", 404)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8")
            step = self.path.rsplit("/", 1)[-1]
            if step == "register":
                message = json.loads(body)
                outlet.callback = message.get("callback")
                engine.handle(message)
                # With a callback, 'registered' went there; the answer is empty.
            elif step == "events" and self.headers.get("Rspbench-Stream"):
                triples = _triples(body)
                engine.handle(
                    {
                        "type": "event",
                        "stream": self.headers["Rspbench-Stream"],
                        "time": int(self.headers["Rspbench-Time"]),
                        "triples": [list(t) for t in triples],
                    }
                )
            elif step in ("events", "end", "shutdown"):
                for line in body.splitlines():
                    if line.strip():
                        engine.handle(json.loads(line))
            else:
                self._answer("not found\n", 404)
                return
            self._answer("")
            if step == "shutdown":
                outlet.events.put(None)
                if once:
                    threading.Thread(target=server.shutdown, daemon=True).start()

        def _stream(self) -> None:
            # This run's stream, before the answer: 'registered' may follow at once.
            outlet.callback, outlet.events = None, queue.Queue()
            events = outlet.events
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            while (line := events.get()) is not None:
                self.wfile.write(f"data: {line}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

        def _answer(self, text: str, status: int = 200) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = arguments("The reference engine behind HTTP.")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    server = serve(args.port, args.engine, args.host, args.once)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
