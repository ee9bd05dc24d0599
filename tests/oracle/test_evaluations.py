"""The evaluation plan grows with the events, not with the time they span.

One event stamped in 2024 on a stream starting at 0 would make a planner of
every window build one Python object per 10 s window in between (170
million), and a time near 2^63 would grow the process to 19.5 GB. With non-empty-content
only the instants that can see an event are planned; without it (every
window is evaluated) a plan above ``MAX_EVALUATIONS`` is refused with a
reason and a HINT, and times beyond 2^53 ms are refused before planning::

    events   1000                                   1704067200000 (2024-01-01)
    windows  [0,10000) [10000,20000) ... 170 million ... [1704067200000, ...)
    planned  [0,10000)                                  [1704067200000, ...)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.t0 import evaluations as ev
from pytest_rspbench.oracle.t0.planning import Timeline, plan
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds, WindowSpec
from pytest_rspbench.stream.model import Event, Stream

from helpers.properties import explore

IRI = "http://ex/s"
Y2024 = 1_704_067_200_000  # "2024-01-01T00:00:00Z"^^xsd:dateTime, in ms
QUERY = parse(
    "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x\n"
    f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 10000 STEP 10000]\n"
    "WHERE { WINDOW :w { ?x :p ?y } }"
)
DEFAULT = Semantics(bounds="[o,c)", t0=0)  # window-close, non-empty-content
EVERY_WINDOW = Semantics(bounds="[o,c)", t0=0, report=("window-close",))


@pytest.fixture
def few_objects(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail (instead of eating the machine's memory) when a plan builds many
    evaluations, or anything else big: at most 10,000 evaluations, and on
    Linux at most 1 GiB more address space than the process has now."""
    made = [0]

    class Counted(ev.Evaluation):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made[0] += 1
            if made[0] > 10_000:
                raise AssertionError("more than 10,000 evaluations were built")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(ev, "Evaluation", Counted)
    with _address_space(extra=1 << 30):
        yield


@contextlib.contextmanager
def _address_space(extra: int) -> Iterator[None]:
    """Cap this process's address space (RLIMIT_AS) while the block runs."""
    try:
        import resource
    except ImportError:  # not on Linux/macOS: only the object count guards
        yield
        return
    import psutil

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = psutil.Process().memory_info().vms + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def far_apart(*times: int) -> dict[str, Timeline]:
    return {IRI: Timeline(0, times[-1], times)}


@pytest.mark.usefixtures("few_objects")
def test_an_event_in_2024_plans_two_windows_not_170_million() -> None:
    planned = plan(QUERY, DEFAULT, far_apart(1000, Y2024), None)
    (only,) = planned.plans
    assert [e.time for e in only.evaluations] == [10_000]
    # The 2024 window closes after the stream's end (its last event): not
    # evaluated, as before; with a later end it is.
    later = {IRI: Timeline(0, Y2024 + 10_000, (1000, Y2024))}
    (only,) = plan(QUERY, DEFAULT, later, None).plans
    assert [e.time for e in only.evaluations] == [10_000, Y2024 + 10_000]
    assert [e.active["http://ex/w"].index for e in only.evaluations] == [
        0,
        Y2024 // 10_000,
    ]


@pytest.mark.usefixtures("few_objects")
def test_t0_any_plans_each_class_sparsely() -> None:
    planned = plan(QUERY, Semantics(), far_apart(1000, 1001, Y2024 + 5), None)
    assert len(planned.plans) > 1
    assert all(len(p.evaluations) <= 3 for p in planned.plans)


@pytest.mark.usefixtures("few_objects")
def test_evaluating_every_window_of_years_is_refused_with_a_hint() -> None:
    with pytest.raises(OracleError) as info:
        plan(QUERY, EVERY_WINDOW, far_apart(1000, Y2024 + 10_000), None)
    text = str(info.value)
    assert "170,406,721 evaluations for one t0 class" in text
    assert "without non-empty-content every window" in text
    assert "HINT: an event stamped far from the stream's start" in text


@pytest.mark.usefixtures("few_objects")
def test_a_periodic_report_over_years_is_planned_near_the_events() -> None:
    periodic = Semantics(t0=0, report=("periodic", "non-empty-content"), period=5000)
    (only,) = plan(QUERY, periodic, far_apart(1000, Y2024), None).plans
    assert [e.time for e in only.evaluations] == [5000, 10_000, Y2024]
    with pytest.raises(OracleError, match="HINT"):
        plan(QUERY, Semantics(t0=0, report=("periodic",), period=5000),
             far_apart(1000, Y2024), None)  # fmt: skip


@pytest.mark.usefixtures("few_objects")
def test_a_time_near_2_to_the_63_is_refused_before_planning() -> None:
    with pytest.raises(OracleError, match=r"within \+-2\^53 ms"):
        plan(QUERY, DEFAULT, far_apart(1000, 2**63 - 1), None)


@pytest.mark.usefixtures("few_objects")
def test_many_windows_per_event_are_refused_with_a_hint() -> None:
    narrow = parse(QUERY.text.replace("STEP 10000", "STEP 1"))
    with pytest.raises(OracleError, match="HINT: a larger STEP"):
        plan(narrow, DEFAULT, far_apart(*range(0, 300_000, 10_000)), None)


# The sparse plan is the full plan without (some of) the evaluations that
# non-empty-content drops later, when Spark has counted the windows' triples.

names = ("http://ex/w1", "http://ex/w2")
windows = st.lists(
    st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(0, 6)),
    min_size=1,
    max_size=2,
)


@explore(300)
@given(
    windows,
    st.lists(st.integers(0, 80), max_size=8),
    st.integers(0, 90),
    st.sampled_from(sorted(Bounds)),
    st.sampled_from(["window-close", "periodic"]),
    st.sampled_from(["present", "earliest"]),
    st.integers(1, 7),
)
def test_the_sparse_plan_drops_exactly_the_empty_evaluations(
    shapes: list[tuple[int, int, int]],
    times: list[int],
    end: int,
    bounds: Bounds,
    policy: str,
    active_window: str,
    period: int,
) -> None:
    named = tuple(
        ev.NamedWindow(names[k], IRI, WindowSpec(width, slide, bounds), t0)
        for k, (width, slide, t0) in enumerate(shapes)
    )
    event_times = {IRI: sorted(set(times))}
    kept = Semantics(
        report=(policy, "non-empty-content"), period=period, active_window=active_window
    )
    every = Semantics(report=(policy,), period=period, active_window=active_window)
    full = ev.plan(named, every, end, event_times)
    sparse = ev.plan(named, kept, end, event_times)
    kept_full = [e for e in full if _sees_an_event(e, named, event_times[IRI])]
    assert [e for e in sparse if _sees_an_event(e, named, event_times[IRI])] == kept_full
    assert set(map(repr, sparse)) <= set(map(repr, full))
    if policy == "window-close":  # exactly; periodic may keep a few to be dropped
        assert sparse == kept_full


def _sees_an_event(e: ev.Evaluation, named: Any, times: list[int]) -> bool:
    by_name = {w.name: w for w in named}
    for name in e.triggers:
        w, active = by_name[name], e.active[name]
        o, c = w.spec.window(active.index, w.t0)
        upper = c if active.upper is None else active.upper
        if any(w.spec.contains(o, c, t) and t <= upper for t in times):
            return True
    return False


@pytest.mark.spark
def test_the_oracle_answers_for_an_event_in_2024(spark: Any) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    def triple(n: int) -> tuple[str, str, str]:
        return (f"<http://ex/a{n}>", "<http://ex/p>", "<http://ex/b>")

    events = [Event(1000, (triple(1),)), Event(Y2024 + 1, (triple(2),))]
    stream = Stream(IRI, lambda: iter(events), "in memory", end=Y2024 + 20_000)
    out = expected_output(spark, QUERY, [stream], DEFAULT)
    (cls,) = out.classes
    assert [(r.window, r.bindings) for r in cls.relations] == [
        ((0, 10_000), ({"x": "<http://ex/a1>"},)),
        ((Y2024, Y2024 + 10_000), ({"x": "<http://ex/a2>"},)),
    ]


def test_content_change_is_triggered_by_the_windows_an_event_changed() -> None:
    """Two windows over two streams, ``[o,c]``: ``w1 [RANGE 250 STEP 500]``
    from 250, ``w2 [RANGE 500 STEP 500]`` from 0. The evaluation reports the
    window an event entered, in delivery order (stream, then declaration),
    not the first declared window open then; an event in a gap of w1's
    hopping windows changes nothing::

        time     0          250         500     700  750
        s1       *          *                   *
        s2       *                      *
        w1                  [250 ...... 500]         [750 ...
        w2       [0 .................. 500][500 ...............
        triggers w2         w1          w2      -
    """
    bounds = Bounds("[o,c]")
    windows = [
        ev.NamedWindow("w1", "s1", WindowSpec(250, 500, bounds), 250),
        ev.NamedWindow("w2", "s2", WindowSpec(500, 500, bounds), 0),
    ]
    semantics = Semantics(bounds="[o,c]", t0=0, report=("content-change",))
    times = {"s1": (0, 250, 700), "s2": (0, 500)}
    planned = ev.plan(windows, semantics, 1000, times)
    assert [(e.time, e.triggers) for e in planned] == [
        (0, ("w2",)),
        (250, ("w1",)),
        (500, ("w2",)),
    ]  # 700 lies between w1's [250,500] and [750,1000]: no change, no evaluation
    assert planned[2].active["w1"].index == 0  # still contributes its open window
    later_first = ev.plan(windows, semantics, 1000, {"s2": (0, 500), "s1": (0, 250, 700)})
    assert later_first[0].triggers == ("w2",)
    both = ev.plan(windows, semantics, 1000, {"s2": (250,), "s1": (250,)})
    assert both[0].triggers == ("w2", "w1")  # s2 is delivered first at 250
