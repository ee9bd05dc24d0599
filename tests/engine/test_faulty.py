"""Each faulty engine deviates from the reference engine exactly as intended."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from rspbench_engines.faulty import BUGS, engines, profile_path
from rspbench_engines.faulty.load import Backlog
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.stream.model import Event

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
S = EX + "s"
PROFILE = Semantics(
    bounds="[o,c)",
    t0="registration",
    report=("window-close", "non-empty-content"),
    r2s=("RStream",),
    reports_window=True,
)


def query(select: str = "?x", where: str = "?x :p ?v", window: str = "RANGE 2000 STEP 2000") -> str:
    return (
        f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT {select}\n"
        f"FROM NAMED WINDOW :w ON STREAM :s [{window}]\n"
        f"WHERE {{ WINDOW :w {{ {where} }} }}"
    )


def event(time: int, *values: int, subject: str = "x") -> Event:
    return Event(
        time,
        tuple((f"<{EX}{subject}{v}>", f"<{EX}p>", f'"{v}"^^<{INT}>') for v in values),
    )


def run(
    engine: ReferenceEngine,
    text: str,
    events: Sequence[Event],
    end: int,
    semantics: Semantics = PROFILE,
) -> list[Result]:
    out: list[Result] = []
    engine.open(Registration(text, (S,), 0, semantics), out.append)
    for e in events:
        engine.push(S, e)
    engine.end(end)
    return out


def windows(
    results: Sequence[Result],
) -> list[tuple[tuple[int, int] | None, list[str]]]:
    return [(r.window, sorted(b["x"].rsplit("/", 1)[1][:-1] for b in r.bindings)) for r in results]


def test_every_faulty_engine_declares_the_reference_profile():
    reference = resolve("reference", Path.cwd())
    for bug in BUGS:
        profile = resolve(f"faulty-{bug}", Path.cwd())
        assert profile.name == f"faulty-{bug}"
        assert profile.path == profile_path(bug)
        assert profile.semantics == reference.semantics, bug
        assert isinstance(profile.create(), ReferenceEngine)


# Tumbling 2 s windows, [o,c): a at 0 and 500, b at 2500, c at 4100.
STREAM = [event(0, 1), event(500, 2), event(2500, 3), event(4100, 4)]


def test_no_purge_keeps_expired_triples_in_later_windows():
    right = windows(run(ReferenceEngine(), query(), STREAM, 6000))
    wrong = windows(run(engines.NoPurge(), query(), STREAM, 6000))
    assert right == [
        ((0, 2000), ["x1", "x2"]),
        ((2000, 4000), ["x3"]),
        ((4000, 6000), ["x4"]),
    ]
    assert wrong == [
        ((0, 2000), ["x1", "x2"]),
        ((2000, 4000), ["x1", "x2", "x3"]),
        ((4000, 6000), ["x1", "x2", "x3", "x4"]),
    ]


def test_wrong_bounds_puts_an_event_on_the_close_into_the_closing_window():
    on_close = [event(1000, 1), event(2000, 2), event(3000, 3)]
    right = windows(run(ReferenceEngine(), query(), on_close, 6000))
    wrong = windows(run(engines.WrongBounds(), query(), on_close, 6000))
    assert right == [((0, 2000), ["x1"]), ((2000, 4000), ["x2", "x3"])]
    assert wrong == [((0, 2000), ["x1", "x2"]), ((2000, 4000), ["x3"])]


def test_misses_last_drops_the_window_reported_at_the_end():
    right = run(ReferenceEngine(), query(), STREAM, 6000)
    wrong = run(engines.MissesLast(), query(), STREAM, 6000)
    assert wrong == right[:-1]
    assert right[-1].window == (4000, 6000)


def test_duplicates_emits_every_relation_twice():
    right = run(ReferenceEngine(), query(), STREAM, 6000)
    wrong = run(engines.Duplicates(), query(), STREAM, 6000)
    assert wrong == [r for r in right for _ in range(2)]


def test_ignores_lateness_puts_a_late_event_in_the_wrong_window():
    late = Semantics(**{**PROFILE.__dict__, "lateness": 1500})
    # The event of 1500 arrives after 2500: the reference engine holds
    # [0,2000) open 1.5 s longer and places it; the faulty one has already
    # evaluated [0,2000), and no open window can hold it: it is lost.
    arrived = [event(0, 0), event(2500, 2), event(1500, 1), event(4500, 4)]
    right = run(ReferenceEngine(), query(), arrived, 6000, late)
    wrong = run(engines.IgnoresLateness(), query(), arrived, 6000, late)
    assert windows(right) == [
        ((0, 2000), ["x0", "x1"]),
        ((2000, 4000), ["x2"]),
        ((4000, 6000), ["x4"]),
    ]
    assert windows(wrong) == [((0, 2000), ["x0"]), ((2000, 4000), ["x2"]), ((4000, 6000), ["x4"])]
    in_order = sorted(arrived, key=lambda e: e.time)
    assert run(engines.IgnoresLateness(), query(), in_order, 6000, late) == right


def test_null_avg_leaves_an_empty_average_unbound():
    text = query(select="(AVG(?v) AS ?avg) (COUNT(?v) AS ?n)", where="?x :p ?v FILTER(?v > 100)")
    right = run(ReferenceEngine(), text, STREAM, 6000)
    wrong = run(engines.NullAvg(), text, STREAM, 6000)
    assert next(dict(b) for r in right for b in r.bindings) == {
        "avg": f'"0"^^<{INT}>',
        "n": f'"0"^^<{INT}>',
    }
    assert next(dict(b) for r in wrong for b in r.bindings) == {"n": f'"0"^^<{INT}>'}


def test_null_avg_keeps_real_averages():
    text = query(select="(AVG(?v) AS ?avg)")
    assert run(engines.NullAvg(), text, STREAM, 6000) == run(ReferenceEngine(), text, STREAM, 6000)


# Light: one triple per second.
# Heavy: a burst of 900 triples at 0 (3 s of work at 300 triples/s).
LIGHT = [event(t, t // 1000) for t in range(0, 8000, 1000)]
HEAVY = [
    event(0, *range(900)),
    *[event(t, 1000 + t // 1000) for t in range(1000, 8000, 1000)],
]


@pytest.mark.parametrize("faulty", [engines.DelayedWindows, engines.DropsUnderLoad])
def test_load_dependent_bugs_do_not_show_without_load(faulty):
    assert run(faulty(), query(), LIGHT, 8000) == run(ReferenceEngine(), query(), LIGHT, 8000)


def test_delayed_windows_drift_by_the_backlog_under_load():
    right = windows(run(ReferenceEngine(), query(), HEAVY, 8000))
    wrong = windows(run(engines.DelayedWindows(), query(), HEAVY, 8000))
    assert [w for w, _ in right] == [
        (0, 2000),
        (2000, 4000),
        (4000, 6000),
        (6000, 8000),
    ]
    # The burst is seen at 3000 ms (backlog 3 s); the backlog then drains by
    # 1 s per second while each 1-triple event adds 3 ms, so x1001..x1003 are
    # seen at 3003, 3006 and 3009 ms, x1004 at 4003 ms.
    assert wrong[0][0] == (2000, 4000)
    assert len(wrong[0][1]) == 903
    assert wrong[1:] == [
        ((4000, 6000), ["x1004", "x1005"]),
        ((6000, 8000), ["x1006", "x1007"]),
    ]


def test_drops_under_load_loses_relations_while_loaded():
    right = run(ReferenceEngine(), query(), HEAVY, 8000)
    wrong = run(engines.DropsUnderLoad(), query(), HEAVY, 8000)
    assert [r.window for r in right] == [
        (0, 2000),
        (2000, 4000),
        (4000, 6000),
        (6000, 8000),
    ]
    # [0,2000) closes at 2000 ms with 1003 ms of backlog left: dropped. By
    # 4000 ms the burst is worked off and the engine answers again.
    assert wrong == right[1:]


def test_backlog_model():
    backlog = Backlog(capacity=300, cap=10_000)
    assert backlog.arrive(0, 900) == 3000
    assert backlog.arrive(1000, 1) == 2003
    assert backlog.arrive(5000, 1) == 3
    assert Backlog(capacity=1, cap=500).arrive(0, 10) == 500


# Count and session windows (docs/count-and-session-windows.md).
WINDOWED = Semantics(
    **{
        **PROFILE.__dict__,
        "windows": ("time", "rows", "triples", "session"),
        "count_order": "time",
        "count_ties": "arrival",
        "count_rampup": "report",
        "count_tick": "tuple-driven",
        "count_bounds": "[first,last]",
        "session_gap": "split",
        "session_bounds": "[first,last]",
    }
)
# Three events of two triples each, at 1, 2 and 3 s.
PAIRS = [event(1000, 1, 2), event(2000, 3, 4), event(3000, 5, 6)]


def test_count_triples_counts_triples_where_rows_counts_events():
    text = query(window="ROWS 2")
    right = windows(run(ReferenceEngine(), text, PAIRS, 4000, WINDOWED))
    wrong = windows(run(engines.CountsTriples(), text, PAIRS, 4000, WINDOWED))
    assert right == [
        ((1000, 1000), ["x1", "x2"]),
        ((1000, 2000), ["x1", "x2", "x3", "x4"]),
        ((2000, 3000), ["x3", "x4", "x5", "x6"]),
    ]
    assert wrong[-1] == ((3000, 3000), ["x5", "x6"])
    assert len(wrong) == 6  # one per triple
    # A TRIPLES window is what it asks for already.
    triples = query(window="TRIPLES 2")
    assert run(engines.CountsTriples(), triples, PAIRS, 4000, WINDOWED) == run(
        ReferenceEngine(), triples, PAIRS, 4000, WINDOWED
    )


def test_count_off_by_one_keeps_one_element_too_many():
    text = query(window="ROWS 1")
    right = windows(run(ReferenceEngine(), text, PAIRS, 4000, WINDOWED))
    wrong = windows(run(engines.CountOffByOne(), text, PAIRS, 4000, WINDOWED))
    assert right == [
        ((1000, 1000), ["x1", "x2"]),
        ((2000, 2000), ["x3", "x4"]),
        ((3000, 3000), ["x5", "x6"]),
    ]
    assert wrong == [
        ((1000, 1000), ["x1", "x2"]),
        ((1000, 2000), ["x1", "x2", "x3", "x4"]),
        ((2000, 3000), ["x3", "x4", "x5", "x6"]),
    ]


def test_session_merge_merges_at_exactly_the_gap_where_the_profile_splits():
    # gap 1 s: 1, 2 and 3 s are each exactly one gap apart
    text = query(window="SESSION 1s")
    right = windows(run(ReferenceEngine(), text, PAIRS, 4000, WINDOWED))
    wrong = windows(run(engines.SessionMerge(), text, PAIRS, 4000, WINDOWED))
    assert right == [
        ((1000, 1000), ["x1", "x2"]),
        ((2000, 2000), ["x3", "x4"]),
        ((3000, 3000), ["x5", "x6"]),
    ]
    assert wrong == [((1000, 3000), ["x1", "x2", "x3", "x4", "x5", "x6"])]
    merging = replace(WINDOWED, session_gap="merge")
    assert run(engines.SessionMerge(), text, PAIRS, 4000, merging) == run(
        ReferenceEngine(), text, PAIRS, 4000, merging
    )


LATE = Semantics(**{**PROFILE.__dict__, "lateness": 1500})


def test_re_reports_fires_a_window_again_for_a_late_event():
    """The event of 1500 arrives after 2500: [0,2000) was reported without it
    at its close, and is reported again, with it, stamped 2500."""
    arrived = [event(0, 0), event(2500, 2), event(1500, 1), event(4500, 4)]
    wrong = run(engines.ReReports(), query(), arrived, 6000, LATE)
    assert [(r.time, *w) for r, w in zip(wrong, windows(wrong), strict=True)] == [
        (2000, (0, 2000), ["x0"]),
        (2500, (0, 2000), ["x0", "x1"]),
        (4000, (2000, 4000), ["x2"]),
        (6000, (4000, 6000), ["x4"]),
    ]
    repeat = [event(0, 0), event(2500, 2), event(0, 0), event(4500, 4)]
    assert len(run(engines.ReReports(), query(), repeat, 6000, LATE)) == 3  # nothing new


def test_early_firing_reports_half_a_slide_before_the_close():
    """[0,2000) fires at the event of 1000 (1000 + 1000 >= 2000), before it
    holds 1000 and 1500; [2000,4000) at 3200, without it."""
    stream = [event(0, 0), event(1000, 1), event(1500, 2), event(2500, 3), event(3200, 4)]
    wrong = run(engines.EarlyFiring(), query(), stream, 6000)
    assert [(r.time, *w) for r, w in zip(wrong, windows(wrong), strict=True)] == [
        (1000, (0, 2000), ["x0"]),
        (3200, (2000, 4000), ["x3"]),
    ]


def test_backlog_evaluates_each_window_two_slides_late_over_what_it_holds():
    stream = [event(500, 0), event(2500, 2), event(4500, 4), event(6500, 6), event(8500, 8)]
    wrong = run(engines.BacklogLag(), query(), stream, 8600)
    assert [(r.time, *w) for r, w in zip(wrong, windows(wrong), strict=True)] == [
        (6500, (0, 2000), ["x0", "x2", "x4"]),
        (8500, (2000, 4000), ["x2", "x4", "x6"]),
        (6000, (4000, 6000), ["x4"]),  # the end: the rest on time
        (8000, (6000, 8000), ["x6"]),
    ]


def test_drops_late_drops_what_the_lateness_keeps():
    arrived = [event(0, 0), event(2500, 2), event(1500, 1), event(4500, 4)]
    right = run(ReferenceEngine(), query(), arrived, 6000, LATE)
    wrong = run(engines.DropsLate(), query(), arrived, 6000, LATE)
    assert windows(right)[0] == ((0, 2000), ["x0", "x1"])
    assert windows(wrong) == [((0, 2000), ["x0"]), ((2000, 4000), ["x2"]), ((4000, 6000), ["x4"])]


def test_newest_only_evaluates_the_newest_of_the_windows_one_event_closes():
    """4100 closes [0,2000) and [2000,4000) at once: only [2000,4000) is evaluated."""
    stream = [event(500, 1), event(2500, 2), event(4100, 4)]
    gap = [event(500, 1), event(4100, 4)]
    assert windows(run(engines.NewestOnly(), query(), stream, 4100)) == [
        ((0, 2000), ["x1"]),
        ((2000, 4000), ["x2"]),
    ]
    assert windows(run(ReferenceEngine(), query(), gap, 4100)) == [((0, 2000), ["x1"])]
    assert run(engines.NewestOnly(), query(), gap, 4100) == []  # [2000,4000) is empty


def test_canonical_literals_rewrites_numbers_in_their_canonical_form():
    text = query(select="?x ?v")
    stream = [Event(500, ((f"<{EX}x1>", f"<{EX}p>", f'"+08"^^<{INT}>'),))]
    got = run(engines.CanonicalLiterals(), text, stream, 2000)
    assert got[0].bindings == ({"x": f"<{EX}x1>", "v": f'"8"^^<{INT}>'},)
