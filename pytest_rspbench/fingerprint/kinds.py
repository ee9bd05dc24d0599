"""The count and session window dimensions of a fingerprint.

docs/count-and-session-windows.md defines the profile fields; each has its
probe (:data:`~.probes.COUNT_AND_SESSION_PROBES`), and its value is chosen as
every other dimension's (:meth:`.inference.Inference.decide`): the oracle's
expected output for each value, judged by the strict verdict against the one
recorded output. In order::

    windows          the kinds the engine ran (a kind it does not list, or
                     whose probes it refuses, is "not supported")
    count_bounds     [first,last] | none    (read from the output, then judged)
    count unit ROWS  events | triples      (the oracle computes [TRIPLES n])
    count unit TRIPLES  triples | events   (the oracle computes [ROWS n])
    count_rampup     report | skip
    count_ties       arrival | any
    count_tick       tuple-driven | graph-driven   (TRIPLES only: for ROWS alike)
    count_order      time | arrival
    session_bounds   [first,last] | [first,last+gap)
    session_gap      split | merge

A count unit other than the kind's own is no profile value: the engine
counts the wrong thing (the ``count-unit`` departure, faulty-count-triples),
and the probes after it are computed with the unit found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from pytest_rspbench.fingerprint.conclusions import NOT_SUPPORTED, Candidate, Conclusion
from pytest_rspbench.fingerprint.probes import BY_NAME, Probe, probes_of
from pytest_rspbench.fingerprint.runs import Recorded
from pytest_rspbench.rsp.counting import (
    COUNT_BOUNDS,
    COUNT_FIELDS,
    COUNT_KINDS,
    COUNT_ORDERS,
    COUNT_RAMPUPS,
    COUNT_TICKS,
    COUNT_TIES,
)
from pytest_rspbench.rsp.semantics import WINDOW_KINDS, Semantics
from pytest_rspbench.rsp.sessions import SESSION_BOUNDS, SESSION_FIELDS, SESSION_GAPS


class Inference(Protocol):
    """What these dimensions use of :class:`.inference.Inference`."""

    recorded: Mapping[str, Recorded]
    declared: Semantics
    log: Callable[[str], None] | None
    counted_as: dict[str, str]

    def decide(
        self,
        dimension: str,
        probes: Sequence[Probe],
        candidates: Sequence[Candidate],
        declared: str,
        keep: str | None = None,
    ) -> Conclusion: ...

    def adopt(self, found: Conclusion) -> Conclusion: ...


# The departure class a value other than the declared one shows as
# (rsp/departures.py has no class per field: the nearest one).
CLASS_OF = {
    "count_bounds": "window-bounds",
    "count_rampup": "report-policy",
    "count_ties": "wrong-solutions",
    "count_tick": "report-policy",
    "count_order": "late-events",
    "session_bounds": "window-bounds",
    "session_gap": "session-gap",
}
VALUES = {
    "count_bounds": COUNT_BOUNDS,
    "count_rampup": COUNT_RAMPUPS,
    "count_ties": COUNT_TIES,
    "count_tick": COUNT_TICKS,
    "count_order": COUNT_ORDERS,
    "session_bounds": SESSION_BOUNDS,
    "session_gap": SESSION_GAPS,
}
KEEP = {"count_rampup": "report"}
"""The value kept when several explain: ``skip`` explains a ramp-up reported
too (the comparison starts at the first full slide, RSP-QL Def. 26), so
``report`` is what an output with ramp-up slides shows (and no departure
when the declared ``skip`` explains it as well)."""
UNIT = {"rows": "events", "triples": "triples"}
"""What each count window kind counts."""
NOT_DECLARED = "not in profile"


def conclusions(inference: Inference) -> list[Conclusion]:
    """The window kinds, then every count and session dimension, in order."""
    out = [_windows(inference), _count_bounds(inference), *_units(inference)]
    out += [_field(inference, name) for name in ("count_rampup", "count_ties")]
    out += [_tick(inference), _field(inference, "count_order")]
    out += [_field(inference, name) for name in ("session_bounds", "session_gap")]
    return out


def ran_kinds(inference: Inference) -> tuple[str, ...]:
    """The window kinds of the probes the engine ran, time first."""
    ran = {"time"} | {r.kind for r in inference.recorded.values() if r.ran and r.kind}
    return tuple(k for k in WINDOW_KINDS if k in ran)


def _windows(inference: Inference) -> Conclusion:
    """The kinds the engine ran; the fields of the others are dropped from
    the inferred profile (they have no defaults: docs/count-and-session-windows.md)."""
    kinds = ran_kinds(inference)
    changes: dict[str, object] = {"windows": kinds}
    if not set(kinds) & set(COUNT_KINDS):
        changes.update(dict.fromkeys(COUNT_FIELDS))
    if "session" not in kinds:
        changes.update(dict.fromkeys(SESSION_FIELDS))
    declared = ", ".join(inference.declared.windows)
    return inference.adopt(Conclusion("windows", ", ".join(kinds), declared, True, changes))


def _field(inference: Inference, name: str) -> Conclusion:
    """A profile field chosen among its values on its probes."""
    probes = probes_of(name)
    declared = getattr(inference.declared, name)
    shown = declared if declared is not None else NOT_DECLARED
    ran = [p for p in probes if inference.recorded[p.name].ran]
    if not ran:
        return _unsupported(inference, name, shown, probes)
    candidates = [Candidate(value, {name: value}) for value in VALUES[name]]
    keep = KEEP.get(name)
    return inference.adopt(inference.decide(name, ran, candidates, shown, keep=keep))


def _count_bounds(inference: Inference) -> Conclusion:
    """``none`` when no result of a count probe names a window, else
    ``[first,last]``, judged: the oracle's relations carry ``[first,last]``
    either way, and the verdict checks a reported window against it."""
    probes = [p for p in probes_of("count_bounds") if inference.recorded[p.name].ran]
    if not probes:
        return _field(inference, "count_bounds")  # not supported
    results = [r.result for p in probes for r in inference.recorded[p.name].actual.received]
    said = "none" if results and all(r.window is None for r in results) else "[first,last]"
    declared = inference.declared.count_bounds or NOT_DECLARED
    candidate = Candidate(said, {"count_bounds": said})
    return inference.adopt(inference.decide("count_bounds", probes, [candidate], declared))


def _units(inference: Inference) -> list[Conclusion]:
    """Per count kind, whether its window counts what it says (events for
    ROWS, triples for TRIPLES) or the other unit."""
    out = []
    for kind, other in (("rows", "triples"), ("triples", "rows")):
        name = f"count unit {kind.upper()}"
        probe = BY_NAME[f"count-unit-{kind}"]
        declared = UNIT[kind] if kind in inference.declared.windows else NOT_DECLARED
        if not inference.recorded[probe.name].ran:
            out.append(_unsupported(inference, name, declared, (probe,)))
            continue
        own, swapped = Candidate(UNIT[kind]), Candidate(UNIT[other], kind=other)
        found = inference.decide(name, (probe,), [own, swapped], declared, keep=UNIT[kind])
        if found.explained and found.value != UNIT[kind]:
            inference.counted_as[kind] = other
            found = replace(found, departure="count-unit")
        out.append(inference.adopt(found))
    return out


def _tick(inference: Inference) -> Conclusion:
    """Per element or per event: only a window sliding inside an event shows
    it, so only TRIPLES; an engine with ROWS windows only keeps its declared tick."""
    (probe,) = probes_of("count_tick")
    declared = inference.declared.count_tick
    if not inference.recorded[probe.name].ran and _counts(inference):
        return Conclusion(
            "count_tick", declared or NOT_DECLARED, declared or NOT_DECLARED, None,
            skipped=(probe.name,),
        )  # fmt: skip
    return _field(inference, "count_tick")


def _counts(inference: Inference) -> bool:
    """Did the engine run some count window probe?"""
    return bool(set(ran_kinds(inference)) & set(COUNT_KINDS))


def _unsupported(
    inference: Inference, name: str, declared: str, probes: Sequence[Probe]
) -> Conclusion:
    found = Conclusion(name, NOT_SUPPORTED, declared, None, skipped=tuple(p.name for p in probes))
    if inference.log is not None:
        inference.log(f"{name}: {NOT_SUPPORTED}")
    return found
