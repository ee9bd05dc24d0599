"""Recorded answers: an engine whose output is read from a file.

For checking answers produced elsewhere (another machine, an engine that
cannot be driven, a published benchmark run) offline. The harness still
replays the stream (so the run looks like any other), but the "engine" only
emits what the file holds, all at ``end``: arrival times and delays mean
nothing for recorded answers, only the relations and their timestamps do.

Formats:

* ``jsonl``: one JSON object per line, either a protocol ``result`` message
  or a line of an item's ``results.jsonl``; other protocol messages
  (``hello``, ``done``, ...) are skipped, so a captured ``stdout.jsonl``
  works too; an ``unsupported`` message makes the recorded engine decline
  the query, as the engine did (the case is skipped).
* ``csrbench``: the CSRBench answer document (CSRBench §5.2)::

      {"relations": [{"head": {"vars": ["obs"]}, "timestamp": 4000,
                      "results": {"bindings": [{"timestamp": 4000,
                          "binding": {"obs": {"type": "uri", "value": "..."}}}]}}]}

  Terms are SPARQL-JSON terms. Some engines wrote one binding per relation:
  ``regroup`` merges the relations that share a timestamp into one. Empty
  relations (C-SPARQL writes them) are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Emit, Engine, Registration, Result, Unsupported
from pytest_rspbench.engine.protocol import ProtocolViolation, loads, parse_result
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event

FORMATS = ("jsonl", "csrbench")
_SKIPPED = ("hello", "registered", "unsupported", "done", "error")


class RecordedEngine(Engine):
    """Emits the relations recorded in ``path`` when the input ends."""

    def __init__(self, name: str, path: Path, format: str = "jsonl", regroup: bool = False) -> None:
        if format not in FORMATS:
            raise ValueError(f"recorded format must be one of {FORMATS}, got {format!r}")
        self.name = name
        self.version = "recorded"
        self.path = path
        self.format = format
        self.regroup = regroup
        self._emit: Emit | None = None
        self._faults: list[str] = []

    def open(self, registration: Registration, emit: Emit) -> None:
        if not self.path.is_file():
            raise EngineError(
                f"engine {self.name!r}: no recorded answers at {self.path}."
                "\nHINT: adapter.recorded.path is relative to the engine.yaml and may "
                "use {spec} and {case}."
            )
        self._emit = emit
        if self.format == "jsonl":
            reason = self._declined()
            if reason is not None:
                raise Unsupported(reason)

    def push(self, stream: str, event: Event) -> None:
        """Recorded answers do not depend on the replay."""

    def end(self, end_time: int) -> None:
        assert self._emit is not None, "open() first"
        results = list(self._read())
        if self.regroup:
            results = regroup(results)
        for result in results:
            self._emit(result)

    def faults(self) -> tuple[str, ...]:
        return tuple(self._faults)

    def diagnostics(self) -> str:
        return f"recorded answers: {self.path} ({self.format})"

    def _read(self) -> Iterator[Result]:
        if self.format == "csrbench":
            try:
                document = json.loads(self.path.read_text(encoding="utf-8"))
                yield from csrbench_results(document)
            except (
                ValueError,
                KeyError,
                TypeError,
                AttributeError,
                OverflowError,  # int(inf)
                RecursionError,  # JSON nested too deeply
            ) as exc:
                raise EngineError(
                    f"engine {self.name!r}: {self.path} is not a CSRBench answer "
                    f"document: {type(exc).__name__}: {exc}"
                ) from None
            return
        yield from self._jsonl()

    def _declined(self) -> str | None:
        """The reason of a recorded ``unsupported`` answer (the engine declined
        the query when it was recorded), if the file has one."""
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                if '"unsupported"' not in line:
                    continue
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and data.get("type") == "unsupported":
                    return str(data.get("reason") or "(no reason given)")
        return None

    def _jsonl(self) -> Iterator[Result]:
        with self.path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    data = loads(line)
                    if not isinstance(data, dict):
                        raise ProtocolViolation("not a JSON object")
                    if data.get("type") in _SKIPPED:
                        continue
                    yield parse_result(data)
                except ProtocolViolation as exc:
                    self._faults.append(f"{self.path.name} line {number}: {exc}")


def csrbench_results(document: Mapping[str, Any]) -> Iterator[Result]:
    """One Result per relation of a CSRBench answer document."""
    for relation in document["relations"]:
        bindings = relation.get("results", {}).get("bindings", [])
        time = relation.get("timestamp")
        if time is None and bindings:
            time = bindings[0].get("timestamp")
        yield Result(
            tuple(
                {var: sparql_json_term(term) for var, term in b["binding"].items()}
                for b in bindings
            ),
            None if time is None else int(time),
        )


def regroup(results: Iterable[Result]) -> list[Result]:
    """Merge relations with the same timestamp, in order of first appearance.

    >>> [len(r.bindings) for r in regroup([Result(({"a": "<x>"},), 5),
    ...                                    Result(({"a": "<y>"},), 5)])]
    [2]
    """
    merged: dict[int | None, Result] = {}
    for result in results:
        seen = merged.get(result.time)
        if seen is None:
            merged[result.time] = result
        else:
            merged[result.time] = Result(seen.bindings + result.bindings, seen.time, seen.window)
    return list(merged.values())


def sparql_json_term(term: Mapping[str, Any]) -> str:
    """A SPARQL 1.1 JSON results term as an N-Triples term.

    >>> sparql_json_term({"type": "literal", "value": "5",
    ...                   "datatype": "http://www.w3.org/2001/XMLSchema#integer"})
    '"5"^^<http://www.w3.org/2001/XMLSchema#integer>'
    """
    kind, value = term["type"], str(term["value"])
    if kind == "uri":
        return f"<{value}>"
    if kind == "bnode":
        return f"_:{value}"
    lexical = '"' + _escape(value) + '"'
    if term.get("xml:lang"):
        return f"{lexical}@{term['xml:lang']}"
    if term.get("datatype"):
        return f"{lexical}^^<{term['datatype']}>"
    return lexical


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
