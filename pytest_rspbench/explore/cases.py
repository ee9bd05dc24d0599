"""A generated case: its query plan, streams, static data and semantics.

:func:`generate` draws case ``number`` of a run from its own generator
(seeded with the run's seed and the number), at a size that grows with the
number: the first cases are a few events and a plain pattern, later ones
longer streams and more constructs. The same seed and number give the same
case, whatever ran before it.

:func:`materialize` writes it the way a spec reads it (timestamped
N-Triples beside a folder's spec path) and returns the
:class:`~pytest_rspbench.spec.model.Case` the runner runs, so the runner,
the shrinker and the written spec all read one input.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.explore import data
from pytest_rspbench.explore.queries import GRID, Plan, Query, draw_plan, render
from pytest_rspbench.explore.scope import (
    Scope,
    draw_semantics,
    kinds_for,
    late,
    pinned,
    streams_for,
)
from pytest_rspbench.explore.streams import Drawn, draw_stream
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.spec.model import Case, Comparison, StreamDecl
from pytest_rspbench.stream.model import Event, Triple
from pytest_rspbench.stream.workloads import Disorder

SPEC_NAME = "explore"
TIMEOUT = 60.0  # seconds per case: a few dozen events at most
GROWTH = 12  # cases per size step
MAX_SIZE = 8


def size_of(number: int) -> int:
    """The size of case ``number``: 1 for the first cases, growing to :data:`MAX_SIZE`.

    >>> [size_of(n) for n in (0, 11, 12, 200)]
    [1, 1, 2, 8]
    """
    return min(MAX_SIZE, 1 + number // GROWTH)


@dataclass(frozen=True)
class Generated:
    """One explored case, before it is written anywhere."""

    seed: int
    number: int
    plan: Plan
    streams: tuple[Drawn, ...]
    static: tuple[Triple, ...]
    semantics: Semantics

    @property
    def query(self) -> Query:
        return render(self.plan)

    @property
    def case_id(self) -> str:
        return f"seed={self.seed},case={self.number}"

    def without(self, construct: str) -> Generated:
        """The case less ``construct``: the same parts otherwise, the streams
        its windows no longer read and static data it no longer joins left out."""
        plan = self.plan.without(construct)
        read = set(render(plan).streams)
        streams = tuple(s for s in self.streams if s.iri in read)
        static = self.static if "static-data" in plan.constructs else ()
        return replace(self, plan=plan, streams=streams, static=static)


def generate(seed: int, number: int, scope: Scope) -> Generated:
    """Case ``number`` of the run seeded ``seed``, within ``scope``."""
    rng = random.Random(f"{seed}:{number}")
    size = size_of(number)
    semantics = draw_semantics(rng, scope)
    r2s = tuple(semantics.r2s) if "r2s" not in scope.varied else scope.r2s
    streams = streams_for(semantics, scope)
    kinds = kinds_for(semantics, scope)
    plan = draw_plan(rng, size, scope.constructs, r2s or scope.r2s, streams, kinds)
    query = render(plan)
    start = rng.choice((0, 0, 0, GRID, 4 * GRID))
    drawn: list[Drawn] = []
    for iri in query.streams:
        shared = [e.time for s in drawn for e in s.events]
        drawn.append(draw_stream(rng, iri, size, start, query.predicates, shared, scope.lateness))
    delays = [s.disorder.max_delay for s in drawn if s.disorder]
    static = data.static_triples(rng) if "static-data" in plan.constructs else ()
    return Generated(seed, number, plan, tuple(drawn), static, late(semantics, scope, delays))


def materialize(
    generated: Generated, folder: Path, engine: str, comparison: Comparison | None = None
) -> Case:
    """Write the case's streams (and static data) into ``folder``; the Case
    reading them, judged strictly with ``comparison`` (default: terms equal)."""
    from pytest_rspbench.stream.lines import write_lines

    folder.mkdir(parents=True, exist_ok=True)
    decls = []
    for k, stream in enumerate(generated.streams):
        name = f"stream{k + 1}.nt"
        with (folder / name).open("w", encoding="utf-8") as out:
            write_lines(stream.events, out, "ntriples-ts")
        source = {"kind": "lines", "path": name, "format": "ntriples-ts"}
        decls.append(StreamDecl(stream.iri, source, stream.start, stream.end, stream.disorder))
    static: tuple[Path, ...] = ()
    if generated.static:
        path = folder / "static.nt"
        path.write_text("".join(f"{s} {p} {o} .\n" for s, p, o in generated.static), "utf-8")
        static = (path,)
    return Case(
        spec_name=SPEC_NAME,
        spec_path=folder / f"{SPEC_NAME}.rspbench.yaml",
        case_id=generated.case_id,
        params=(),
        engine=engine,
        query=parse(generated.query.text),
        streams=tuple(decls),
        static=static,
        semantics=pinned(generated.semantics),
        speed=0.0,
        timeout=TIMEOUT,
        comparison=comparison or Comparison(),
        thresholds=(),
        mostly=1.0,
        warmup_windows=0,
        marks=(),
        line=1,
    )


# -- JSON, for the failure database ---------------------------------------


def to_json(generated: Generated) -> dict[str, Any]:
    """The case as JSON: enough to materialize it again without the generator."""
    plan = asdict(generated.plan)
    plan["constructs"] = sorted(generated.plan.constructs)
    plan["kinds"] = list(generated.plan.kinds)
    return {
        "seed": generated.seed,
        "number": generated.number,
        "plan": plan,
        "streams": [_stream_json(s) for s in generated.streams],
        "static": [list(t) for t in generated.static],
        "semantics": _semantics_json(generated.semantics),
    }


def from_json(raw: dict[str, Any]) -> Generated:
    """The case :func:`to_json` wrote."""
    plan = Plan(
        **{
            **raw["plan"],
            "constructs": frozenset(raw["plan"]["constructs"]),
            "kinds": tuple(raw["plan"]["kinds"]),
        }
    )
    known = {f.name for f in fields(Semantics)}
    semantics: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in raw["semantics"].items() if k in known
    }
    streams = tuple(
        Drawn(
            s["iri"],
            tuple(Event(t, tuple(tuple(x) for x in triples)) for t, triples in s["events"]),
            s["start"],
            s["end"],
            Disorder(**s["disorder"]) if s["disorder"] else None,
        )
        for s in raw["streams"]
    )
    static = tuple((s, p, o) for s, p, o in raw["static"])
    return Generated(raw["seed"], raw["number"], plan, streams, static, Semantics(**semantics))


def _semantics_json(semantics: Semantics) -> dict[str, Any]:
    out = {f.name: getattr(semantics, f.name) for f in fields(semantics)}
    out["bounds"] = semantics.bounds.value
    return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items() if v is not None}


def _stream_json(stream: Drawn) -> dict[str, Any]:
    return {
        "iri": stream.iri,
        "start": stream.start,
        "end": stream.end,
        "disorder": asdict(stream.disorder) if stream.disorder else None,
        "events": [[e.time, [list(t) for t in e.triples]] for e in stream.events],
    }
