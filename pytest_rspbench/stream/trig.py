"""TriG streams: one named graph per event, its time given by a predicate.

The usual RSP serialisation (TripleWave, RSP-JS) writes each event as a named
graph and states its time in the default graph::

    :g1 { :s :p :o . }
    :g1 prov:generatedAtTime "2024-05-01T10:00:00Z"^^xsd:dateTime .

The time predicate is configurable (default ``prov:generatedAtTime``); its
value is an ``xsd:dateTime`` or an integer number of ms (see
:mod:`~pytest_rspbench.stream.timestamps`). The time triple may also sit
inside the graph it dates; it is never part of the event. Rules:

- each named graph is written as one contiguous block (a graph seen again
  after another graph's triples is an error), and it is emitted once its
  block has ended and its time is known, so memory holds only graphs still
  waiting for their time;
- a graph without a time, a graph with two different times, and any other
  triple in the default graph are errors: nothing is dropped silently;
- time must not decrease from one graph to the next unless
  ``allow_disorder=True``.

pyoxigraph reports no positions for triples, so errors about a graph point
at the first line mentioning it (or at the end of the file when the problem
is found there); syntax errors carry pyoxigraph's own line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.blanknodes import BlankNodes
from pytest_rspbench.stream.files import syntax_position
from pytest_rspbench.stream.model import Event, Triple
from pytest_rspbench.stream.timestamps import millis

PROV_GENERATED_AT_TIME = "http://www.w3.org/ns/prov#generatedAtTime"


class _Graph:
    __slots__ = ("closed", "name", "time", "triples")

    def __init__(self, name: str, time: int | None) -> None:
        self.name = name
        self.triples: list[Triple] = []
        self.time = time
        self.closed = False


class _Reader:
    """The state of one pass over a TriG file (graphs waiting to be emitted)."""

    def __init__(self, path: Path, predicate: str) -> None:
        self.path = path
        self.predicate = predicate
        self.open: dict[str, _Graph] = {}  # entered, not yet emitted; document order
        self.times: dict[str, int] = {}  # times of graphs whose block comes later
        self.done: set[str] = set()
        self.current: _Graph | None = None

    def add(self, subject: object, pred: object, obj: object, graph: str | None) -> None:
        name = str(subject)
        if pred.value == self.predicate and graph in (None, name):  # type: ignore[attr-defined]
            self.set_time(name, obj)
        elif graph is None:
            raise _located(
                self.path,
                name,
                f"triple {subject} {pred} {obj} is in the "
                "default graph and is not a time; every other triple must "
                "be inside a named graph.",
            )
        else:
            if self.current is None or self.current.name != graph:
                self.enter(graph)
            self.current.triples.append((name, str(pred), str(obj)))  # type: ignore[union-attr]

    def enter(self, name: str) -> None:
        if self.current is not None:
            self.current.closed = True
        if name in self.open or name in self.done:
            raise _located(
                self.path,
                name,
                "expected each named graph in one block, "
                f"but graph {name} appears again after other graphs.",
            )
        self.current = self.open[name] = _Graph(name, self.times.pop(name, None))

    def set_time(self, name: str, value: object) -> None:
        import pyoxigraph

        if not isinstance(value, pyoxigraph.Literal):
            raise _located(
                self.path,
                name,
                f"expected a literal time for graph {name}, found {value}",
            )
        try:
            time = millis(value.value, value.datatype.value)
        except ValueError as exc:
            raise _located(self.path, f'"{value.value}"', f"graph {name}: {exc}") from None
        graph = self.open.get(name)
        known = graph.time if graph is not None else self.times.get(name)
        if name in self.done or (known is not None and known != time):
            raise _located(
                self.path,
                name,
                f"expected one time for graph {name}, found a second one ({time} ms).",
            )
        if graph is None:
            self.times[name] = time
        else:
            graph.time = time

    def ready(self) -> Iterator[tuple[str, Event]]:
        # Emit in document order: stop at the first graph still open or untimed.
        while self.open:
            name, graph = next(iter(self.open.items()))
            if not graph.closed or graph.time is None:
                return
            del self.open[name]
            self.done.add(name)
            yield name, Event(graph.time, tuple(graph.triples))

    def finish(self) -> Iterator[tuple[str, Event]]:
        if self.current is not None:
            self.current.closed = True
        yield from self.ready()
        for name in self.open:
            raise StreamError(
                f"{self.path}:{_end(self.path)}: expected a time for graph "
                f"{name} (a triple {name} <{self.predicate}> ...) before "
                "the end of the file"
            )


def read_trig_events(
    path: Path,
    *,
    time_predicate: str = PROV_GENERATED_AT_TIME,
    allow_disorder: bool = False,
) -> Iterator[Event]:
    """Events of a TriG file, one per named graph, in document order."""
    path = Path(path)
    reader = _Reader(path, time_predicate.strip("<>"))
    last: int | None = None
    for quad in _quads(path):
        reader.add(*quad)
        for name, event in reader.ready():
            last = _check_order(path, name, event, last, allow_disorder)
            yield event
    for name, event in reader.finish():
        last = _check_order(path, name, event, last, allow_disorder)
        yield event


def _quads(path: Path) -> Iterator[tuple[object, object, object, str | None]]:
    import pyoxigraph

    stable = BlankNodes(path)  # the same labels for [] on every read
    try:
        for quad in pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TRIG):
            graph = quad.graph_name
            name = None if isinstance(graph, pyoxigraph.DefaultGraph) else str(graph)
            obj = quad.object
            if isinstance(obj, pyoxigraph.BlankNode):
                obj = stable(str(obj))
            label = name if name is None else stable(name)
            yield stable(str(quad.subject)), quad.predicate, obj, label
    except SyntaxError as exc:
        raise StreamError(f"{path}:{syntax_position(exc)}: TriG syntax error: {exc}") from None
    except OSError as exc:
        raise StreamError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _check_order(path: Path, name: str, event: Event, last: int | None, allow: bool) -> int:
    if last is not None and event.time < last and not allow:
        raise _located(
            path,
            name,
            f"expected graph times >= {last} ms, found "
            f"{event.time} ms for {name}; stream time must not decrease.\n"
            "HINT: order the graphs by time, or set allow_disorder: true.",
        )
    return event.time


def _located(path: Path, needle: str, message: str) -> StreamError:
    return StreamError(f"{path}:{_find(path, needle)}: {message}")


def _find(path: Path, needle: str) -> str:
    # Error path only: the term in full, else as a prefixed name (:g1, ex:g1).
    patterns = [re.escape(needle)]
    if needle.startswith("<"):
        local = re.split(r"[/#:]", needle[1:-1].rstrip("/#"))[-1]
        patterns.append(rf"(?<![\w.\-])(?:[A-Za-z][\w.\-]*)?:{re.escape(local)}(?![\w\-])")
    for pattern in patterns:
        with open(path, encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                found = re.search(pattern, line)
                if found:
                    return f"{number}:{found.start() + 1}"
    return _end(path)


def _end(path: Path) -> str:
    number, last = 0, ""
    with open(path, encoding="utf-8", errors="replace") as text:
        for number, last in enumerate(text, 1):  # noqa: B007
            pass
    if last.endswith("\n"):
        return f"{number + 1}:1"
    return f"{max(number, 1)}:{len(last) + 1}"
