"""Misbehaving services for the fault tests: each listens on loopback in a thread.

Run as a program (``python fake_services.py KIND PORT``) a fake is a service
the harness starts and must stop.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HELLO = {"type": "hello", "protocol": 1, "name": "fake", "version": "0"}
RESULT = {"type": "result", "bindings": [{"s": "<http://example.org/e0>"}], "time": 2000}


class Silent:
    """Accepts connections and never answers a byte."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


class Garbage(Silent):
    """Answers every connection with bytes that are not HTTP, then closes it."""

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.sendall(b"\x00\x01 this is not HTTP \xff\r\n\r\n")
            conn.close()


def http_fake(kind: str, port: int = 0) -> ThreadingHTTPServer:
    """A protocol service that goes wrong the way ``kind`` says.

    * ``drops``: after two POST /events it closes the connection unanswered;
    * ``error``: answers POST /events with HTTP 500;
    * ``hangs``: never answers POST /end;
    * ``garbage-results``: pushes a line that is not a message, then a good one.
    """
    state: dict[str, Any] = {"events": 0, "callback": None}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._answer(json.dumps(HELLO) + "\n")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            if self.path == "/register":
                state["callback"] = json.loads(body).get("callback")
                self._answer('{"type": "registered"}\n')
                return
            if self.path == "/events":
                state["events"] += 1
                if state["events"] == 1:
                    self._push(json.dumps(RESULT))
                    if kind == "garbage-results":
                        self._push("this is no message")
                if kind == "drops" and state["events"] > 2:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if kind == "error":
                    self._answer("engine exploded\n", 500)
                    return
            if self.path == "/end":
                if kind == "hangs":
                    threading.Event().wait()
                self._push('{"type": "done"}')
            self._answer("")

        def _push(self, line: str) -> None:
            request = urllib.request.Request(
                state["callback"], (line + "\n").encode(), method="POST"
            )
            urllib.request.urlopen(request, timeout=5).read()

        def _answer(self, text: str, status: int = 200) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def ws_dropping(port: int = 0) -> Any:
    """A WebSocket service that subscribes, reads two events, then drops the subscription."""
    from websockets.sync.server import serve

    from pytest_rspbench.engine.transports.websocket import client

    def handler(control: Any) -> None:
        control.send(json.dumps(HELLO))
        message = json.loads(control.recv())
        stream = client(message["source"])
        control.send('{"type": "registered"}')
        stream.recv()
        control.send(json.dumps(RESULT))
        stream.recv()
        stream.socket.shutdown(socket.SHUT_RDWR)
        stream.socket.close()
        control.recv()  # until the harness hangs up

    server = serve(handler, "127.0.0.1", port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    http_fake(sys.argv[1], int(sys.argv[2]))
    threading.Event().wait()
