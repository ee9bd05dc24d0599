"""What an engine's profile lets ``rspbench explore`` generate.

Generation stays inside what the engine declares (``engine.yaml``), so a
failure is always a bug and never a case the engine said it cannot run:

- the query's R2S operator is one of the profile's ``r2s``;
- its constructs are the generator's repertoire (:data:`GENERATED`) minus
  the profile's ``unsupported:`` (:mod:`pytest_rspbench.rsp.constructs`);
- its window kinds are those the profile's ``windows:`` lists *and* the
  oracle computes (:func:`oracle_computes`);
- streams arrive out of order only within the profile's ``lateness``;
- the semantics fields the profile declares ``configurable`` are varied
  (:data:`VARIED`); every other field stays the declared one;
- combinations the oracle refuses are never drawn (content-change with a
  tuple-driven tick; with a graph-driven tick, one stream only).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any

from pytest_rspbench.engine.profiles import EngineProfile
from pytest_rspbench.rsp.semantics import BEHAVIOUR_FIELDS, BOUNDS, WINDOW_KINDS, Semantics

GENERATED = (
    "filter",
    "optional",
    "union",
    "minus",
    "bind",
    "aggregates",
    "distinct",
    "order-by",
    "limit",
    "two-windows",
    "static-data",
)
"""The constructs the generator can emit (exists, values, subquery: not yet)."""
VARIED = ("bounds", "t0", "report", "empty_relations", "lateness")
"""Semantics fields drawn anew for a case when the engine declares them configurable."""
LATENESS = 2000
"""The most lateness (ms) explore pins on an engine whose lateness is configurable."""
PINNED = BEHAVIOUR_FIELDS
"""The fields a written spec pins: the whole profile the case ran under
(but ``windows``, a capability), so ``--rspbench-engine reference`` runs it
with the same semantics. Count and session fields are pinned when declared."""


def oracle_computes(kind: str) -> bool:
    """Whether the oracle computes windows of ``kind`` (time, rows, triples, session).

    It computes every kind (count and session windows on axes of their own,
    docs/count-and-session-windows.md); set a kind to False here to keep
    explore from generating it, e.g. while the oracle cannot compute it.

    >>> oracle_computes("time"), oracle_computes("session")
    (True, True)
    """
    return kind in WINDOW_KINDS


def kinds_for(semantics: Semantics, scope: Scope) -> tuple[str, ...]:
    """The window kinds a case with these semantics may use: count and
    session windows only under window-close reports, the only ones the
    oracle computes them for ("Report policies and R2S" in
    docs/count-and-session-windows.md).

    >>> s = Scope("x", Semantics(), frozenset(), ("RStream",), ("time", "rows"), 0, ())
    >>> kinds_for(Semantics(), s), kinds_for(Semantics(report=("content-change",)), s)
    (('time', 'rows'), ('time',))
    """
    if "window-close" in semantics.report:
        return scope.kinds
    return tuple(k for k in scope.kinds if k == "time") or ("time",)


@dataclass(frozen=True)
class Scope:
    """The bounds of generation for one engine.

    Attributes:
        engine: the profile's name.
        semantics: the declared semantics.
        constructs: the constructs a query may use.
        r2s: the R2S operators a query may register.
        kinds: the window kinds a query may use.
        lateness: the most lateness (ms) a stream's disorder may need; 0: in order.
        varied: the configurable fields of :data:`VARIED`.
        streams: at most this many streams in a case.
        tick: the tick is configurable (a report on content change can pin
            a time-driven one).
    """

    engine: str
    semantics: Semantics
    constructs: frozenset[str]
    r2s: tuple[str, ...]
    kinds: tuple[str, ...]
    lateness: int
    varied: tuple[str, ...]
    streams: int = 2
    tick: bool = False


def scope_of(profile: EngineProfile) -> Scope:
    """What explore may generate for ``profile``.

    >>> from pathlib import Path
    >>> p = EngineProfile("x", "", "", Semantics(), Path("x"), unsupported=frozenset({"minus"}))
    >>> s = scope_of(p)
    >>> "minus" in s.constructs, s.r2s, s.kinds, s.lateness, s.varied
    (False, ('RStream',), ('time',), 0, ())
    """
    semantics = profile.semantics
    configurable = profile.configurable
    lateness = LATENESS if "lateness" in configurable else semantics.lateness
    streams = 2
    if "content-change" in semantics.report and semantics.tick == "graph-driven":
        streams = 1  # the oracle refuses several streams there
    return Scope(
        engine=profile.name,
        semantics=semantics,
        constructs=frozenset(GENERATED) - profile.unsupported,
        r2s=tuple(semantics.r2s)
        if "r2s" not in configurable
        else ("RStream", "IStream", "DStream"),
        kinds=tuple(k for k in semantics.windows if oracle_computes(k)),
        lateness=lateness,
        varied=tuple(f for f in VARIED if f in configurable),
        streams=streams,
        tick="tick" in configurable,
    )


T0S = ("registration", "first-event", "aligned", "any", 0, 750)
REPORTS = (
    ("window-close", "non-empty-content"),
    ("window-close",),
    ("content-change", "non-empty-content"),
    ("content-change",),
)


def draw_semantics(rng: random.Random, scope: Scope) -> Semantics:
    """The declared semantics, each configurable field of :data:`VARIED` redrawn
    half of the time (lateness goes with the streams' disorder: :func:`late`)."""
    changes: dict[str, Any] = {}
    for name in scope.varied:
        if name == "lateness" or rng.random() < 0.5:
            continue
        if name == "bounds":
            changes["bounds"] = rng.choice(BOUNDS)
        elif name == "t0":
            changes["t0"] = rng.choice(T0S)
        elif name == "empty_relations":
            changes["empty_relations"] = rng.random() < 0.5
        else:
            changes.update(_report(rng, scope))
    return replace(scope.semantics, **changes)


def _report(rng: random.Random, scope: Scope) -> dict[str, Any]:
    """A report policy the oracle computes with the engine's tick."""
    report = rng.choice(REPORTS)
    if "content-change" in report and scope.semantics.tick == "tuple-driven":
        return {"report": report, "tick": "time-driven"} if scope.tick else {}
    return {"report": report}


def streams_for(semantics: Semantics, scope: Scope) -> int:
    """How many streams a case may have: one where the oracle refuses more."""
    if "content-change" in semantics.report and semantics.tick == "graph-driven":
        return 1
    return scope.streams


def late(semantics: Semantics, scope: Scope, delays: list[int]) -> Semantics:
    """The semantics with the lateness the streams' late events need, when
    the engine's lateness is configurable (else it is the declared one,
    which the streams stay within)."""
    if "lateness" not in scope.varied or not delays:
        return semantics
    return replace(semantics, lateness=max(max(delays), semantics.lateness))


def refused(semantics: Semantics) -> str | None:
    """Why the oracle computes nothing for an engine with these semantics; None: it does."""
    if "content-change" in semantics.report and semantics.tick == "tuple-driven":
        return (
            "its profile reports on content change with a tuple-driven tick (one "
            "evaluation per triple), which the oracle does not compute (docs/oracle.md)"
        )
    return None


def pinned(semantics: Semantics) -> dict[str, Any]:
    """The fields of :data:`PINNED` as a spec's ``semantics:`` writes them.

    >>> pinned(Semantics(bounds="[o,c)"))["bounds"], pinned(Semantics())["r2s"]
    ('[o,c)', ['RStream'])
    """
    values = {f.name: getattr(semantics, f.name) for f in fields(semantics)}
    out: dict[str, Any] = {}
    for name in PINNED:
        value = values[name]
        if value is None:
            continue
        out[name] = list(value) if isinstance(value, tuple) else value
    out["bounds"] = semantics.bounds.value
    return out
