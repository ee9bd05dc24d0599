"""Builders for the metamorphic tests (tests/metamorphic/): a generated case
and an engine's answer, judged end to end, before and after a change that
must not move the verdict.

A :class:`World` is what one judgement reads: the RSP-QL query, the input
streams, the engine profile's semantics and the relations the engine sent.
:func:`judge` writes it the way a user would (stream files in one of the
formats spec sources read, an ``engine.yaml`` of recorded answers) and runs
it through :func:`pytest_rspbench.runner.run_case`: the stream sources, the
replay, the oracle on Spark and the strict verdict, as a pytest item does::

    World --write--> stream files + engine.yaml (recorded) + answers.jsonl
          --run_case--> Verdict(passed, departures)

The engine's answer comes from the reference engine run in-process, under
the declared profile or another one (other bounds, another t0), and is
sometimes damaged on top (a relation dropped, repeated or moved, a solution
changed), so the judged outputs pass and fail.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pytest_rspbench.engine.api import Registration, Result
from pytest_rspbench.explore.cases import Generated
from pytest_rspbench.explore.streams import Drawn
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.spec.model import Case, Comparison, StreamDecl
from pytest_rspbench.stream.lines import write_lines
from pytest_rspbench.stream.model import Event, Stream, Triple

XSD = "http://www.w3.org/2001/XMLSchema#"
PROV = "http://www.w3.org/ns/prov#generatedAtTime"
LAYOUTS = (
    "ntriples-ts",
    "ntriples-ts.gz",
    "jsonl",
    "nquads-ts",
    "nquads-graph-time",
    "trig",
    "files-ntriples",
    "files-turtle",
    "files-rdfxml",
)
"""How a stream can be written: the line formats of ``kind: lines`` and the
RDF syntaxes of ``kind: files`` (one file per event; docs/spec-format.md)."""


@dataclass(frozen=True)
class World:
    """One judgement's input: query, streams, static data, semantics, answer."""

    query: str
    streams: tuple[Drawn, ...]
    static: tuple[Triple, ...]
    semantics: Semantics
    results: tuple[Result, ...] = ()

    @property
    def end(self) -> int:
        """When the input is over (the latest stream end, as the runner has it)."""
        ends = [s.end if s.end is not None else s.events[-1].time for s in self.streams]
        return max(ends, default=0)

    def slide(self) -> int:
        """The least shift that keeps every time window's grid: the least
        common multiple of their slides (count and session windows have no
        grid in time)."""
        from pytest_rspbench.rsp.rspql import parse

        lcm = 1
        for window in parse(self.query).declared:
            if window.kind == "time":
                lcm = _lcm(lcm, window.slide)  # type: ignore[union-attr]
        return lcm


@dataclass(frozen=True)
class Verdict:
    """What must not move: pass or fail, and the departure classes named."""

    passed: bool
    departures: tuple[str, ...]
    headline: str = ""
    stable_from: int = 0  # t_s: the relations before it are transient, not compared

    @property
    def key(self) -> tuple[bool, tuple[str, ...]]:
        return self.passed, self.departures


def world_of(generated: Generated) -> World:
    """The generated case as a world with no answer yet (in time order, no disorder)."""
    streams = tuple(replace(s, disorder=None) for s in generated.streams)
    return World(
        generated.query.text,
        streams,
        generated.static,
        replace(generated.semantics, lateness=0),
    )


# -- the engine's answer ------------------------------------------------------


def answer(world: World, semantics: Semantics, folder: Path) -> tuple[Result, ...]:
    """What the reference engine sends for ``world`` run under ``semantics``."""
    from rspbench_engines.reference.engine import ReferenceEngine

    from pytest_rspbench.engine import harness

    static = _static_file(world, folder)
    registration = Registration(
        world.query,
        tuple(s.iri for s in world.streams),
        min((s.start for s in world.streams), default=0),
        semantics,
        static,
    )
    streams = [_memory(s) for s in world.streams]
    actual = harness.run(ReferenceEngine(), registration, streams, world.end, sample_interval=None)
    assert actual.error is None, actual.error
    return tuple(r.result for r in actual.received)


def damaged(results: Sequence[Result], rng: random.Random) -> tuple[Result, ...]:
    """``results`` with one relation dropped, repeated or moved, or one solution
    changed; unchanged when there is nothing to damage."""
    out = list(results)
    if not out:
        return ()
    k = rng.randrange(len(out))
    how = rng.choice(("drop", "repeat", "move", "solution"))
    if how == "drop":
        del out[k]
    elif how == "repeat":
        out.insert(k, out[k])
    elif how == "move":
        out.insert(rng.randrange(len(out)), out.pop(k))
    elif out[k].bindings:
        bindings = list(out[k].bindings)
        del bindings[rng.randrange(len(bindings))]
        out[k] = replace(out[k], bindings=tuple(bindings))
    return tuple(out)


# -- judging --------------------------------------------------------------------


def judge(world: World, folder: Path, spark: Any, layout: str = "ntriples-ts") -> Verdict:
    """The strict verdict on ``world``, its streams written in ``layout``."""
    from pytest_rspbench.rsp.rspql import parse
    from pytest_rspbench.runner import run_case

    folder.mkdir(parents=True, exist_ok=True)
    decls = tuple(
        StreamDecl(s.iri, write_stream(s, folder / f"stream{k}", layout), s.start, s.end, None)
        for k, s in enumerate(world.streams)
    )
    engine = _recorded(world, folder)
    case = Case(
        spec_name="metamorphic",
        spec_path=folder / "metamorphic.rspbench.yaml",
        case_id=layout,
        params=(),
        engine=str(engine),
        query=parse(world.query),
        streams=decls,
        static=_static_file(world, folder),
        semantics={},
        speed=0.0,
        timeout=60.0,
        comparison=Comparison(mode="strict"),
        thresholds=(),
        mostly=1.0,
        warmup_windows=0,
        marks=(),
        line=1,
    )
    run = run_case(case, spark)
    a = run.assessment
    names = tuple(sorted(d.name for d in a.departures))
    return Verdict(a.passed, names, a.headline(run.profile.semantics.bounds), a.stable_from)


def _recorded(world: World, folder: Path) -> Path:
    """An ``engine.yaml`` of recorded answers (``answers.jsonl``) with the world's semantics."""
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as out:
        for r in world.results:
            line = {"type": "result", "bindings": [dict(b) for b in r.bindings]}
            if r.time is not None:
                line["time"] = r.time
            if r.window is not None:
                line["window"] = list(r.window)
            out.write(json.dumps(line) + "\n")
    s = world.semantics
    semantics = {
        "bounds": s.bounds.value,
        "t0": s.t0,
        "report": list(s.report),
        "tick": s.tick,
        "r2s": list(s.r2s),
        "empty_relations": s.empty_relations,
        "time_unit": s.time_unit,
        "reports_window": s.reports_window,
        "active_window": s.active_window,
        "windows": list(s.windows),
    }
    for name in (
        "count_order",
        "count_ties",
        "count_rampup",
        "count_tick",
        "count_bounds",
        "session_gap",
        "session_bounds",
    ):
        if getattr(s, name) is not None:
            semantics[name] = getattr(s, name)
    profile = {
        "name": "recorded",
        "adapter": {"recorded": {"path": "answers.jsonl", "format": "jsonl"}},
        "semantics": semantics,
    }
    path = folder / "engine.yaml"
    path.write_text(json.dumps(profile, indent=1), encoding="utf-8")  # JSON is YAML
    return path


def _static_file(world: World, folder: Path) -> tuple[Path, ...]:
    if not world.static:
        return ()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "static.nt"
    path.write_text("".join(f"{s} {p} {o} .\n" for s, p, o in world.static), "utf-8")
    return (path,)


def _memory(drawn: Drawn) -> Stream:
    events = drawn.events
    return Stream(drawn.iri, lambda: iter(events), "metamorphic", end=drawn.end)


# -- writing a stream -------------------------------------------------------------


def write_stream(drawn: Drawn, stem: Path, layout: str) -> dict[str, Any]:
    """Write ``drawn`` in ``layout`` next to ``stem``; the spec source reading it."""
    if layout.startswith("files-"):
        return _files(drawn.events, stem, layout.removeprefix("files-"))
    writers: dict[str, Callable[[Iterable[Event]], str]] = {
        "ntriples-ts": _lines("ntriples-ts"),
        "ntriples-ts.gz": _lines("ntriples-ts"),
        "jsonl": _lines("jsonl"),
        "nquads-ts": _quads,
        "nquads-graph-time": _graph_time,
        "trig": _trig,
    }
    text = writers[layout](drawn.events)
    fmt = {"ntriples-ts.gz": "ntriples-ts", "nquads-graph-time": "nquads-ts"}.get(layout, layout)
    path = stem.with_suffix("." + layout.replace("-", "_"))
    if layout.endswith(".gz"):
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    source: dict[str, Any] = {"kind": "lines", "path": str(path), "format": fmt}
    if layout == "nquads-graph-time":
        source["graph_time"] = True
    return source


def _lines(fmt: str) -> Callable[[Iterable[Event]], str]:
    def write(events: Iterable[Event]) -> str:
        import io

        out = io.StringIO()
        write_lines(events, out, fmt)
        return out.getvalue()

    return write


def _quads(events: Iterable[Event]) -> str:
    return "".join(
        f'{s} {p} {o} <urn:graph:{k % 3}> "{e.time}" .\n'
        for k, e in enumerate(events)
        for s, p, o in e.triples
    )


def _graph_time(events: Iterable[Event]) -> str:
    return "".join(
        f"{s} {p} {o} <urn:event:at:{e.time}> .\n" for e in events for s, p, o in e.triples
    )


def _trig(events: Iterable[Event]) -> str:
    out = []
    for k, e in enumerate(events):
        body = "".join(f"  {s} {p} {o} .\n" for s, p, o in e.triples)
        out.append(f"<urn:graph:{k}> {{\n{body}}}\n")
        out.append(f'<urn:graph:{k}> <{PROV}> "{e.time}"^^<{XSD}long> .\n')
    return "".join(out)


FILE_SUFFIX = {"ntriples": ".nt", "turtle": ".ttl", "rdfxml": ".rdf"}


def _files(events: Sequence[Event], stem: Path, syntax: str) -> dict[str, Any]:
    """One file per event, its time in its name (``kind: files``)."""
    from pytest_rspbench.explore.queries import GRID

    stem.mkdir(parents=True, exist_ok=True)
    for e in events:
        assert e.time % GRID == 0 and e.time >= 0, "file names hold non-negative grid times"
        text = _rdfxml(e.triples) if syntax == "rdfxml" else _ntriples(e.triples)
        (stem / f"event_{e.time // GRID:06d}{FILE_SUFFIX[syntax]}").write_text(text, "utf-8")
    return {
        "kind": "files",
        "path": str(stem / f"event_*{FILE_SUFFIX[syntax]}"),
        "interval": GRID,
        "format": syntax,
    }


def _ntriples(triples: Iterable[Triple]) -> str:
    return "".join(f"{s} {p} {o} .\n" for s, p, o in triples)


def _rdfxml(triples: Iterable[Triple]) -> str:
    """RDF/XML, one ``rdf:Description`` per triple; blank nodes as ``rdf:nodeID``."""
    from pytest_rspbench.stream.ntriples import literal_split

    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
    ]
    for s, p, o in triples:
        about = f"rdf:nodeID={quoteattr(s[2:])}" if s.startswith("_:") else _about(s)
        space, local = _split(p[1:-1])
        if o.startswith("_:"):
            value = f"<p:{local} xmlns:p={quoteattr(space)} rdf:nodeID={quoteattr(o[2:])}/>"
        elif o.startswith("<"):
            value = f"<p:{local} xmlns:p={quoteattr(space)} rdf:resource={quoteattr(o[1:-1])}/>"
        else:
            lexical, datatype = literal_split(o)
            tag = o[o.rindex('"') + 2 :] if o[o.rindex('"') + 1 :].startswith("@") else ""
            extra = f" xml:lang={quoteattr(tag)}" if tag else ""
            extra += f" rdf:datatype={quoteattr(datatype)}" if datatype else ""
            value = f"<p:{local} xmlns:p={quoteattr(space)}{extra}>{escape(lexical)}</p:{local}>"
        out.append(f"<rdf:Description {about}>{value}</rdf:Description>\n")
    out.append("</rdf:RDF>\n")
    return "".join(out)


def _about(iri: str) -> str:
    return f"rdf:about={quoteattr(iri[1:-1])}"


def _split(iri: str) -> tuple[str, str]:
    cut = max(iri.rfind("/"), iri.rfind("#")) + 1
    return iri[:cut], iri[cut:]


def _lcm(a: int, b: int) -> int:
    from math import gcd

    return a * b // gcd(a, b)
