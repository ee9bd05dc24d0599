"""An HTTP engine with an API of its own, mapped in engine.yaml (``api:``).

RSP services (Balduini and Della Valle's REST API of C-SPARQL and its
kin) register a stream, register a query, attach an observer that the
engine POSTs results to, and feed a stream one payload at a time. Such an
engine needs no adapter code: ``adapter.http.api`` names the request of
each step, with placeholders the harness fills::

    register_stream   once per stream     {stream}, {stream_name}
    register_query    once                {query}, {query_name}, {start}
    attach_observer   once                {query_name}, {callback}
    push_event        once per event      {stream}, {stream_name}, {ntriples}, {time}
    end               optional, once      {time}
    unregister_query / unregister_stream  optional, after the run

The observer's POSTs are read as SPARQL 1.1 query results in JSON (``head``,
``results.bindings``; ``time`` and ``window`` beside them are read when
present, as in a protocol ``result``), or as protocol-1 messages. Such an
API has no ``done``: ``quiet`` seconds without a result after the end count
as one (docs/engine-protocol.md, "A mapped API").
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.transports.config import ApiRequest
from pytest_rspbench.engine.transports.http import Callback, HttpEngine
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event
from pytest_rspbench.stream.ntriples import quote


class MappedEngine(HttpEngine):
    """An HTTP engine driven through the requests of ``adapter.http.api``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert self.adapter.api is not None
        self.api: Mapping[str, ApiRequest] = self.adapter.api
        self._names: dict[str, str] = {}
        self._query_name = f"rspbench-{self.places.get('run', 'run')}"
        self._ended: float | None = None
        self._observer: Callback | None = None

    def connect(self) -> None:
        def attempt() -> None:
            with socket.create_connection((self._host, self._port), self.adapter.handshake_timeout):
                pass

        self.until_reachable(attempt, "a connection")

    def register(self, registration: Registration) -> None:
        self._observer = Callback(self.inbox, "/observer", self._observed)
        for stream in registration.streams:
            self._names[stream] = stream_name(stream)
            self.call("register_stream", self._stream_places(stream))
        places = {"query": registration.query, "query_name": self._query_name}
        self.call("register_query", {**places, "start": str(registration.start)})
        self.call("attach_observer", {**places, "callback": self._observer.url})
        self.inbox.take('{"type": "registered"}', "the mapped API")

    def send_events(self, batch: list[tuple[str, Event]]) -> None:
        for stream, event in batch:
            ntriples = "".join(f"{s} {p} {o} .\n" for s, p, o in event.triples)
            places = {**self._stream_places(stream), "ntriples": ntriples}
            self.call("push_event", {**places, "time": str(int(event.time))})

    def send_end(self, end_time: int) -> None:
        if "end" in self.api:
            self.call("end", {"time": str(end_time), "query_name": self._query_name})
        self._ended = time.monotonic()

    def end(self, end_time: int) -> None:
        """Send the rest and the end; done once the engine has been quiet long enough."""
        super().flush()
        self._step = "end"
        self.send_end(end_time)
        while not self._stopped():
            left = max(self.inbox.last, self._ended or 0.0) + self.adapter.quiet - time.monotonic()
            if left <= 0:
                return
            self.inbox.wait_for(self._stopped, left)
        raise self.gone("its last results")

    def finished(self) -> bool:
        return self._ended is not None

    def disconnect(self) -> None:
        try:
            if not self.aborted and self.inbox.closed is None and self.inbox.registered:
                with contextlib.suppress(EngineError):
                    if "unregister_query" in self.api:
                        self.call("unregister_query", {"query_name": self._query_name})
                    for stream in self._names:
                        if "unregister_stream" in self.api:
                            self.call("unregister_stream", self._stream_places(stream))
        finally:
            self.interrupt()
            if self._observer is not None:
                self._observer.stop()

    def call(self, step: str, places: Mapping[str, str]) -> str:
        """The request of ``step`` with ``places`` filled in, as a form."""
        request = self.api[step]
        path = _fill(request.path, places, urllib.parse.quote)
        form = {k: _fill(v, places, str) for k, v in request.form.items()}
        body = urllib.parse.urlencode(form)
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return self.request(request.method, path, body, headers)

    def _stopped(self) -> bool:
        inbox = self.inbox
        return inbox.fatal is not None or inbox.closed is not None or self.aborted

    def _stream_places(self, stream: str) -> dict[str, str]:
        return {"stream": stream, "stream_name": self._names.get(stream, stream_name(stream))}

    def _observed(self, body: str, content_type: str, where: str) -> None:
        """One POST of the observer: SPARQL JSON results, or protocol lines."""
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict) and "results" in data:
            self.inbox.take(json.dumps(sparql_result(data)), where)
            return
        for line in body.splitlines():
            self.inbox.take(line, where)


def stream_name(iri: str) -> str:
    """A name for a stream in a URL path: its IRI's last segment, made safe.

    >>> stream_name("http://example.org/csrbench/sensors")
    'sensors'
    """
    last = re.split(r"[/#]", iri.rstrip("/#"))[-1]
    return re.sub(r"[^A-Za-z0-9_.-]", "_", last) or "stream"


def sparql_result(data: Mapping[str, Any]) -> dict[str, Any]:
    """A protocol ``result`` from SPARQL 1.1 JSON results (terms as N-Triples).

    >>> sparql_result({"results": {"bindings": [{"s": {"type": "uri", "value": "http://a"}}]}})
    {'type': 'result', 'bindings': [{'s': '<http://a>'}], 'time': None, 'window': None}
    """
    results = data.get("results")
    rows = results.get("bindings") if isinstance(results, dict) else None
    bindings = [
        {name: _term(term) for name, term in row.items()}
        for row in (rows if isinstance(rows, list) else [])
        if isinstance(row, dict)
    ]
    return {
        "type": "result",
        "bindings": bindings,
        "time": data.get("time"),
        "window": data.get("window"),
    }


def _term(term: Any) -> Any:
    """A SPARQL JSON term as N-Triples; what is not one is passed on, to be a fault."""
    if not isinstance(term, dict) or not isinstance(term.get("value"), str):
        return term
    kind, value = term.get("type"), term["value"]
    if kind == "uri":
        return f"<{value}>"
    if kind == "bnode":
        return f"_:{value}"
    if "xml:lang" in term:
        return f"{quote(value)}@{term['xml:lang']}"
    if "datatype" in term:
        return f"{quote(value)}^^<{term['datatype']}>"
    return quote(value)


def _fill(template: str, places: Mapping[str, str], escape: Any) -> str:
    for key, value in places.items():
        template = template.replace("{" + key + "}", escape(value))
    return template
