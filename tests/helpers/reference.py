"""Helpers shared by the reference engine's tests: build queries, run the engine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.stream.model import Event

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
STREAM = EX + "s"


Triple = tuple[str, str, str]
# (time, triples) on the default stream, or (time, triples, stream IRI)
Timed = tuple[int, Sequence[Triple]] | tuple[int, Sequence[Triple], str]


def iri(name: str) -> str:
    return f"<{EX}{name}>"


def triple(s: str, p: str, o: str) -> tuple[str, str, str]:
    return iri(s), iri(p), o if o.startswith(('"', "<")) else iri(o)


def query(r2s: str, window: str, where: str, select: str = "*") -> str:
    return f"PREFIX : <{EX}>\nREGISTER {r2s} :out AS SELECT {select}\n{window}\nWHERE {{ {where} }}"


def run(
    text: str,
    events: Iterable[Timed],
    end: int,
    *,
    start: int = 0,
    static: tuple[Path, ...] = (),
    **semantics: Any,
) -> list[Result]:
    """Open, push every ``(time, triples[, stream])``, end; return what was emitted."""
    profile: dict[str, Any] = {
        "bounds": "[o,c)",
        "t0": "registration",
        "report": ("window-close",),
        "r2s": ("RStream", "IStream", "DStream"),
        "reports_window": True,
    }
    profile.update(semantics)
    out: list[Result] = []
    engine = ReferenceEngine()
    engine.open(Registration(text, (STREAM,), start, Semantics(**profile), static), out.append)
    try:
        for time, triples, *stream in events:
            engine.push(stream[0] if stream else STREAM, Event(time, tuple(triples)))
        engine.end(end)
    finally:
        engine.close()
    return out


def bag(bindings: Iterable[Mapping[str, str]]) -> Counter[frozenset[tuple[str, str]]]:
    return Counter(frozenset(b.items()) for b in bindings)


def who(result: Result, var: str = "s") -> list[str]:
    return sorted(b[var].removeprefix(f"<{EX}").removesuffix(">") for b in result.bindings)
