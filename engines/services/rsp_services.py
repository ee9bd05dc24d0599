"""The reference engine behind an RSP-services style REST API.

``python -m rspbench_engines.services.rsp_services --port 8175 --profile engine.yaml [--once]``

The API of RSP services (C-SPARQL's REST front): ``PUT /streams/{name}``
(form ``streamIri``) registers a stream, ``PUT /queries/{name}`` (form
``queryBody``, and ``start``: the registration time, which this service
takes) registers a query, ``POST /queries/{name}/observers`` (form ``host``)
attaches an observer that results are POSTed to as SPARQL 1.1 JSON results
(with the ``time`` and ``window`` of each relation beside them),
``POST /streams/{name}`` (form ``payload``: N-Triples, ``time``) feeds an
event, ``POST /queries/{name}/end`` (form ``time``) ends the input,
``DELETE`` unregisters. The engine's semantics are the profile's
(``--profile``): this API carries none.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rspbench_engines.services.host import arguments

from pytest_rspbench.engine.api import Engine, Registration, Result
from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.engine.server import load_engine
from pytest_rspbench.stream.model import Event


class Service:
    """The state of the API: streams, one query, its engine and its observer."""

    def __init__(self, target: str, profile: Path) -> None:
        self.target = target
        self.semantics = load_profile(profile.resolve()).semantics
        self.streams: dict[str, str] = {}
        self.engine: Engine | None = None
        self.observer: str | None = None
        self._conn: http.client.HTTPConnection | None = None
        self._query = ""
        self._start = 0
        self._lock = threading.Lock()

    def act(self, method: str, parts: list[str], form: dict[str, str]) -> int:
        """One request; the HTTP status of its answer."""
        kind, name, rest = [*parts, "", "", ""][:3]
        if kind == "streams" and method == "PUT":
            self.streams[name] = form["streamIri"]
        elif kind == "streams" and method == "POST" and self.engine is not None:
            triples = _triples(form["payload"])
            self.engine.push(self.streams[name], Event(int(form["time"]), triples))
        elif kind == "queries" and method == "PUT":
            self._query, self._start = form["queryBody"], int(form.get("start", "0"))
        elif kind == "queries" and rest == "observers":
            self.observer = form["host"]
            self._open()
        elif kind == "queries" and rest == "end" and self.engine is not None:
            self.engine.end(int(form["time"]))
        elif method == "DELETE":
            self.close()
        else:
            return 404
        return 200

    def _open(self) -> None:
        self.close()
        self.engine = load_engine(self.target)
        streams = tuple(self.streams.values())
        self.engine.open(Registration(self._query, streams, self._start, self.semantics), self.post)

    def post(self, result: Result) -> None:
        """Results to the observer, as SPARQL 1.1 JSON results."""
        names = sorted({n for b in result.bindings for n in b})
        body = {
            "head": {"vars": names},
            "results": {
                "bindings": [{n: _json_term(t) for n, t in b.items()} for b in result.bindings]
            },
            "time": result.time,
            "window": list(result.window) if result.window else None,
        }
        parts = urllib.parse.urlsplit(self.observer or "")
        with self._lock:
            if self._conn is None:
                self._conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80)
            self._conn.request(
                "POST",
                parts.path,
                json.dumps(body),
                {"Content-Type": "application/sparql-results+json"},
            )
            self._conn.getresponse().read()

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.close()


def _triples(text: str) -> tuple[tuple[str, str, str], ...]:
    import pyoxigraph

    parsed = pyoxigraph.parse(text.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return tuple((str(t.subject), str(t.predicate), str(t.object)) for t in parsed)


def _json_term(term: str) -> dict[str, str]:
    """An N-Triples term as a SPARQL JSON term."""
    import pyoxigraph

    if term.startswith("<"):
        return {"type": "uri", "value": term[1:-1]}
    if term.startswith("_:"):
        return {"type": "bnode", "value": term[2:]}
    literal = next(
        iter(
            pyoxigraph.parse(
                f"<x:s> <x:p> {term} .".encode(), format=pyoxigraph.RdfFormat.N_TRIPLES
            )
        )
    ).object
    out = {"type": "literal", "value": literal.value}
    if literal.language:
        out["xml:lang"] = literal.language
    elif literal.datatype.value != "http://www.w3.org/2001/XMLSchema#string":
        out["datatype"] = literal.datatype.value
    return out


def serve(port: int, service: Service, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server for ``service``; the caller runs ``serve_forever``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _act(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8")
            form = dict(urllib.parse.parse_qsl(body, keep_blank_values=True))
            parts = [urllib.parse.unquote(p) for p in self.path.strip("/").split("/")]
            status = service.act(self.command, parts, form)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_PUT = do_POST = do_DELETE = _act

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = arguments("The reference engine behind an RSP-services style API.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--profile", type=Path, required=True, help="the engine.yaml")
    args = parser.parse_args(argv)
    server = serve(args.port, Service(args.engine, args.profile), args.host)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
