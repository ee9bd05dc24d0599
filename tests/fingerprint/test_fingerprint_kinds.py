"""The count and session dimensions of a fingerprint, without Spark or an engine.

A small model of docs/count-and-session-windows.md (over the probes' one
window, from ``rsp.counting`` and ``rsp.sessions``) stands in for the oracle
and fabricates each "engine's" output; the inference and the strict verdict
are the real ones. ``[ROWS 2 STEP 3]`` over three events at each instant
(``count-ties``), ties by arrival and by any choice::

    events     t1-0 t1-1 t1-2 | t2-0 t2-1 t2-2 | t3-0 ...
    arrival          {t1-1, t1-2}     {t2-1, t2-2}
    any        any 2 of t1-*  any 2 of t2-*  any 2 of t3-*   (27 outputs)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml

from pytest_rspbench.engine.profiles import _semantics_kwargs
from pytest_rspbench.fingerprint import kinds, report
from pytest_rspbench.fingerprint.conclusions import NOT_SUPPORTED
from pytest_rspbench.fingerprint.inference import Fingerprint, Inference
from pytest_rspbench.fingerprint.probes import COUNT_AND_SESSION_PROBES, EX, Probe
from pytest_rspbench.fingerprint.runs import Recorded
from pytest_rspbench.rsp.counting import CountWindow, slides
from pytest_rspbench.rsp.outputs import (
    ActualOutput,
    ExpectedOutput,
    ExpectedRelation,
    Received,
    Result,
    T0Class,
)
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.sessions import SessionWindow, sessions
from pytest_rspbench.stream.model import Event
from pytest_rspbench.stream.workloads import arrivals

DECLARED = Semantics(
    bounds="[o,c)",
    t0="registration",
    reports_window=True,
    windows=("time", "rows", "triples", "session"),
    count_order="time",
    count_ties="arrival",
    count_rampup="report",
    count_tick="tuple-driven",
    count_bounds="[first,last]",
    session_gap="split",
    session_bounds="[first,last]",
)
Evaluation = tuple[int, tuple[int, int], tuple[str, ...]]
"""A relation of the model: time, window, subjects."""


@dataclass(frozen=True)
class Element:
    time: int
    event: int  # the delivery it came in: the tie key under count_order arrival
    subjects: tuple[str, ...]


def _events(probe: Probe, semantics: Semantics) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(time, delivery, subjects)`` in the counting order (repeats dropped)."""
    events = [Event(t, tuple((s, "", "") for s, _ in pairs)) for t, pairs in probe.events]
    if semantics.count_order == "arrival" and probe.disorder is not None:
        seen, out = set(), []
        for _, e in arrivals(events, probe.disorder):
            if (e.time, e.triples) not in seen:
                seen.add((e.time, e.triples))
                out.append(e)
        events = out
    return [(e.time, n, tuple(t[0] for t in e.triples)) for n, e in enumerate(events)]


def count_outputs(probe: Probe, semantics: Semantics, kind: str) -> list[list[Evaluation]]:
    """Every correct output of a count probe (several under count_ties any)."""
    decl = probe.query(kind=kind).declared[0]
    assert isinstance(decl.window, CountWindow)
    events = _events(probe, semantics)
    if kind == "rows":
        elements = [Element(t, n, subjects) for t, n, subjects in events]
    else:
        elements = [Element(t, n, (s,)) for t, n, subjects in events for s in subjects]
    sizes = [1 if kind == "rows" else len(s) for _, _, s in events]
    options = []
    for slide in slides(sizes, decl.window, semantics.count_tick, semantics.count_rampup):
        held = elements[slide.first - 1 : slide.last]
        window = (held[0].time, held[-1].time)
        time = events[slide.event][0]
        options.append([(time, window, c) for c in _contents(held, elements, semantics)])
    return [list(choice) for choice in itertools.product(*options)]


def _contents(
    held: Sequence[Element], every: Sequence[Element], semantics: Semantics
) -> list[tuple[str, ...]]:
    if semantics.count_ties == "arrival":
        return [tuple(s for e in held for s in e.subjects)]

    def key(e: Element) -> int:
        return e.time if semantics.count_order == "time" else e.event

    per_key = []
    for k in sorted({key(e) for e in held}):
        tied = [e for e in every if key(e) == k]
        count = sum(1 for e in held if key(e) == k)
        per_key.append(list(itertools.combinations(tied, count)))
    return [
        tuple(s for group in combo for e in group for s in e.subjects)
        for combo in itertools.product(*per_key)
    ]


def session_outputs(probe: Probe, semantics: Semantics) -> list[list[Evaluation]]:
    decl = probe.query().declared[0]
    assert isinstance(decl.window, SessionWindow)
    times = [t for t, _ in probe.events]
    out = []
    for first, last in sessions(times, decl.window, str(semantics.session_gap)):
        window = decl.window.reported(times[first], times[last], str(semantics.session_bounds))
        subjects = tuple(s for _, pairs in probe.events[first : last + 1] for s, _ in pairs)
        out.append((decl.window.close(times[last]), window, subjects))
    return [out]


def outputs(probe: Probe, semantics: Semantics, kind: str | None) -> list[list[Evaluation]]:
    if probe.kind == "session":
        return session_outputs(probe, semantics)
    return count_outputs(probe, semantics, kind or probe.kind)


def _bindings(subjects: Sequence[str]) -> tuple[dict[str, str], ...]:
    return tuple({"x": f"<{EX}{s}>"} for s in subjects)


class ModelOracle:
    """The model as the fingerprint's oracle (``Oracle.expected``)."""

    calls = 0

    def expected(
        self, probe: Probe, semantics: Semantics, r2s: str | None, kind: str | None = None
    ) -> ExpectedOutput:
        classes = tuple(
            T0Class(0, 0, tuple(
                ExpectedRelation(n, time, window, _bindings(subjects), len(subjects))
                for n, (time, window, subjects) in enumerate(output)
            ))
            for output in outputs(probe, semantics, kind)
        )  # fmt: skip
        # The comparison starts at the first evaluation (no t0: the oracle's
        # stable start, RSP-QL Def. 26): relations before it are not compared.
        first = min((r.time for c in classes for r in c.relations), default=0)
        return ExpectedOutput(classes, first, "model")


Engine = Callable[[Probe, str], list[Evaluation]]


def engine(semantics: Semantics = DECLARED, swap: str | None = None, pick: int = 0) -> Engine:
    """An engine that runs ``semantics`` (``swap``: its ROWS counts triples;
    ``pick``: which correct output it gives when there are several)."""

    def run(probe: Probe, kind: str) -> list[Evaluation]:
        counted = "triples" if swap == kind == "rows" else kind
        found = outputs(probe, semantics, None if probe.kind == "session" else counted)
        return found[pick % len(found)]

    return run


def fingerprint(
    run: Engine,
    declared: Semantics = DECLARED,
    no_windows: bool = False,
    refuses: Sequence[str] = (),
) -> Fingerprint:
    """Record every count and session probe the declared kinds allow, then infer."""
    recorded = {}
    for probe in COUNT_AND_SESSION_PROBES:
        kind = next((k for k in probe.kinds if k in declared.windows), None)
        actual = ActualOutput("model")
        if kind is None:
            recorded[probe.name] = Recorded(probe, declared, actual, skipped="windows: not listed")
            continue
        if kind in refuses:
            actual.fail(f"unsupported window: {kind}")
        else:
            actual.received = [
                Received(Result(_bindings(s), t, None if no_windows else w), 0.0, None)
                for t, w, s in run(probe, kind)
            ]
        recorded[probe.name] = Recorded(probe, declared, actual, kind)
    inference = Inference(recorded, declared, ModelOracle())  # type: ignore[arg-type]
    found = tuple(kinds.conclusions(inference))
    return Fingerprint("model", declared, inference.base, found, recorded)


def values(found: Fingerprint) -> dict[str, str]:
    return {c.dimension: c.value for c in found.conclusions}


def differing(found: Fingerprint) -> dict[str, tuple[str, str | None]]:
    return {c.dimension: (c.value, c.departure) for c in found.conclusions if c.departure}


def test_an_engine_that_runs_its_profile_shows_it() -> None:
    found = fingerprint(engine())
    assert found.inferred == DECLARED
    assert all(c.explained is True for c in found.conclusions)
    assert differing(found) == {}
    assert values(found)["count unit ROWS"] == "events"
    assert values(found)["count unit TRIPLES"] == "triples"


def test_the_model_tells_every_value_apart() -> None:
    # Each probe's two outputs differ, else its dimension could not be inferred.
    for probe in COUNT_AND_SESSION_PROBES:
        (name,) = probe.dimensions
        if name == "count unit":
            other = "triples" if probe.kind == "rows" else "rows"
            assert outputs(probe, DECLARED, None) != outputs(probe, DECLARED, other)
        elif name != "count_bounds":
            a, b = kinds.VALUES[name]
            one, two = (outputs(probe, replace(DECLARED, **{name: v}), None) for v in (a, b))
            assert one != two, probe.name


@pytest.mark.parametrize(
    ("run", "dimension", "value", "departure"),
    [
        (engine(swap="rows"), "count unit ROWS", "triples", "count-unit"),
        (engine(replace(DECLARED, session_gap="merge")), "session_gap", "merge", "session-gap"),
        (engine(replace(DECLARED, count_rampup="skip")), "count_rampup", "skip", "report-policy"),
        (engine(replace(DECLARED, count_tick="graph-driven")), "count_tick", "graph-driven",
         "report-policy"),
        (engine(replace(DECLARED, count_order="arrival")), "count_order", "arrival", "late-events"),
        (engine(replace(DECLARED, session_bounds="[first,last+gap)")), "session_bounds",
         "[first,last+gap)", "window-bounds"),
        # Another resolution of the ties than arrival's: only "any" explains it.
        (engine(replace(DECLARED, count_ties="any"), pick=5), "count_ties", "any",
         "wrong-solutions"),
    ],
    ids=["rows-as-triples", "session-merge", "rampup-skip", "graph-driven", "arrival-order",
         "flink-session-bounds", "other-ties"],
)  # fmt: skip
def test_one_rule_broken_names_its_dimension_alone(
    run: Engine, dimension: str, value: str, departure: str
) -> None:
    found = fingerprint(run)
    assert differing(found) == {dimension: (value, departure)}
    assert all(c.explained for c in found.conclusions)


def test_a_unit_swap_is_no_profile_value() -> None:
    found = fingerprint(engine(swap="rows"))
    assert found.inferred == DECLARED  # a departure, not a semantics
    (item,) = report.departures(found)
    assert (item["class"], item["kind"], item["probes"]) == (
        "count-unit",
        "unexplained",
        ["count-unit-rows"],
    )


def test_a_rampup_reported_where_skip_is_declared_is_shown_not_failed() -> None:
    # skip explains it too (its comparison starts at the first full slide),
    # so report is shown, as no departure.
    declared = replace(DECLARED, count_rampup="skip")
    found = fingerprint(engine(), declared)
    rampup = found.conclusion("count_rampup")
    assert (rampup.value, rampup.departure) == ("report", None)
    assert set(rampup.explaining) == {"report", "skip"}


def test_count_bounds_none_is_read_from_the_output() -> None:
    found = fingerprint(engine(), no_windows=True)
    assert differing(found) == {"count_bounds": ("none", "window-bounds")}
    assert found.inferred.count_bounds == "none"


def test_ties_never_cut_under_arrival_order_keep_the_declared_value() -> None:
    declared = replace(DECLARED, count_order="arrival", count_ties="any")
    found = fingerprint(engine(declared), declared)
    assert values(found)["count_ties"] == "any"
    assert set(found.conclusion("count_ties").explaining) == {"arrival", "any"}


def test_kinds_the_engine_does_not_list_are_not_supported() -> None:
    declared = Semantics(bounds="[o,c)", t0="aligned", reports_window=True)
    found = fingerprint(engine(), declared)
    shown = values(found)
    assert shown.pop("windows") == "time"
    assert set(shown.values()) == {NOT_SUPPORTED}
    assert differing(found) == {} and found.departures == ()
    assert found.inferred == declared
    table = report.table(found)
    assert "not observable" not in table and "count_order         not supported" in table


def test_refused_probes_are_not_supported_and_leave_the_windows() -> None:
    found = fingerprint(engine(), refuses=("triples", "session"))
    shown = values(found)
    assert shown["windows"] == "time, rows"
    assert shown["count unit TRIPLES"] == shown["session_gap"] == NOT_SUPPORTED
    assert shown["count_tick"] == "tuple-driven"  # ROWS only: not observable, as declared
    assert found.conclusion("count_tick").explained is None
    assert found.departures == ()
    assert found.inferred.session_gap is None and found.inferred.count_order == "time"


def test_the_fragment_declares_the_window_fields() -> None:
    found = fingerprint(engine(replace(DECLARED, session_gap="merge")))
    text = report.profile_yaml(found)
    assert "  windows: [time, rows, triples, session]\n" in text
    assert '  count_bounds: "[first,last]"\n' in text
    assert "  session_gap: merge  # declared split\n" in text
    parsed = Semantics(**_semantics_kwargs(yaml.safe_load(text)["semantics"]))
    assert parsed == found.inferred


def test_the_json_carries_the_window_fields() -> None:
    found = fingerprint(engine(), Semantics(reports_window=True))
    as_json: dict[str, Any] = report.semantics_dict(found.inferred)
    assert as_json["windows"] == ["time"] and as_json["count_order"] is None
    rows = {p["probe"]: p for p in report.probes(_with_time_probes(found))}
    assert rows["count-tick"]["not_run"].startswith("windows:")


def _with_time_probes(found: Fingerprint) -> Fingerprint:
    """``report.probes`` lists every probe: the time ones recorded empty."""
    from pytest_rspbench.fingerprint.probes import PROBES

    recorded = dict(found.recorded)
    for probe in PROBES:
        recorded.setdefault(probe.name, Recorded(probe, found.declared, ActualOutput("model")))
    return replace(found, recorded=recorded)
