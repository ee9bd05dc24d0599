"""The bundled probes: well formed, and each run once against the reference engine."""

from __future__ import annotations

import itertools
from pathlib import Path

from pytest_rspbench.engine.harness import deliveries
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.fingerprint.probes import (
    BY_NAME,
    COUNT_AND_SESSION_PROBES,
    DIMENSIONS,
    PROBES,
    probes_of,
)
from pytest_rspbench.fingerprint.runs import kind_for, record, registered
from pytest_rspbench.rsp.sessions import SessionWindow


def test_every_dimension_has_probes_and_names_are_unique() -> None:
    assert all(probes_of(d) for d in DIMENSIONS)
    assert len(BY_NAME) == len(PROBES)


def test_probe_streams_are_in_time_order_and_end_after_their_last_event() -> None:
    for probe in PROBES:
        times = [e.time for e in probe.stream().events()]
        assert times == sorted(times) and probe.end > times[-1], probe.name
        assert probe.query().r2s == probe.r2s


def test_no_window_closes_at_the_last_event() -> None:
    # Flush at the end is told apart by the windows closing after the last
    # event; a window closing exactly at it would be ambiguous (closed by the
    # event under [o,c), by the end under (o,c]).
    for probe in PROBES:
        if probe.kind != "time":
            continue  # count windows close at arrivals; sessions: see below
        width, slide = probe.window
        for t0 in (probe.start, probe.events[0][0], -width % slide):
            closes = {t0 + k * slide + width for k in range(-20, 20)}
            assert probe.last_event not in closes, (probe.name, t0)


def test_the_late_probe_delivers_events_out_of_order() -> None:
    probe = BY_NAME["late-events"]
    assert probe.disorder is not None
    stream = probe.stream()
    arrived = list(deliveries([stream], {stream.iri: probe.disorder}))
    times = [e.time for _, _, e in arrived]
    assert times != sorted(times)
    assert max(a - e.time for a, _, e in arrived) <= 1500 < probe.pinned["lateness"]


def test_a_configurable_engine_gets_the_pinned_lateness_others_their_own() -> None:
    reference = resolve("reference", Path.cwd())
    assert registered(BY_NAME["late-events"], reference).semantics.lateness == 2000
    rspjs = resolve("rspjs", Path.cwd())
    assert registered(BY_NAME["late-events"], rspjs).semantics.lateness == 0


def test_the_reference_engine_answers_every_probe() -> None:
    reference = resolve("reference", Path.cwd())
    for probe in PROBES:
        recorded = record(probe, reference)
        assert recorded.error is None, probe.name
        assert recorded.actual.received, probe.name


def test_a_probe_for_either_count_kind_has_one_triple_events() -> None:
    # Then [ROWS n] and [TRIPLES n] are the same window, whichever the engine lists.
    for probe in COUNT_AND_SESSION_PROBES:
        assert probe.either == (probe.kinds == ("rows", "triples")), probe.name
        if probe.either:
            assert all(len(pairs) == 1 for _, pairs in probe.events), probe.name
        assert probe.query(kind=probe.kinds[-1]).kinds == {probe.kinds[-1]}


def test_no_session_closes_at_an_event_or_at_the_end() -> None:
    # A session closing at an event's time is told apart by the gap rule
    # alone in session-gap; in session-bounds nothing else may differ.
    for probe in COUNT_AND_SESSION_PROBES:
        if probe.kind != "session":
            continue
        (decl,) = probe.query().declared
        assert isinstance(decl.window, SessionWindow)
        times = [t for t, _ in probe.events]
        gaps = {b - a for a, b in itertools.pairwise(times)}
        assert (decl.window.gap in gaps) == (probe.name == "session-gap"), probe.name
        assert probe.end not in {t + decl.window.gap for t in times}


def test_an_engine_without_count_or_session_windows_runs_none_of_their_probes() -> None:
    rspjs = resolve("rspjs", Path.cwd())  # windows: [time]; node is not needed to skip
    for probe in COUNT_AND_SESSION_PROBES:
        assert kind_for(probe, rspjs) is None
        recorded = record(probe, rspjs)
        assert not recorded.ran and recorded.actual.received == []
        assert recorded.skipped is not None and "rspjs supports [time]" in recorded.skipped


def test_the_count_order_probe_delivers_late_within_the_pinned_lateness() -> None:
    probe = BY_NAME["count-order"]
    assert probe.disorder is not None
    stream = probe.stream()
    times = [e.time for _, _, e in deliveries([stream], {stream.iri: probe.disorder})]
    assert times != sorted(times) and sorted(times) == [t for t, _ in probe.events]
    assert probe.disorder.max_delay < probe.pinned["lateness"]
