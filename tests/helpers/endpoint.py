"""A SPARQL endpoint on loopback that counts the requests it gets.

For the tests that show no network request leaves a run: the
oracle and the reference engine refuse ``SERVICE``, and the endpoint says so
by staying unasked. It answers every request with an empty result, so a
control test can show that pyoxigraph does reach it when nothing guards it.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

EMPTY = b'{"head":{"vars":["z"]},"results":{"bindings":[]}}'


class Endpoint:
    """The server; ``requests`` lists the paths asked for, ``url`` is its address."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(EMPTY)))
                self.end_headers()
                self.wfile.write(EMPTY)

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"


@contextmanager
def serving() -> Iterator[Endpoint]:
    """An endpoint that serves until the block ends."""
    found = Endpoint()
    thread = threading.Thread(target=found.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        found.server.shutdown()
        found.server.server_close()
        thread.join()
