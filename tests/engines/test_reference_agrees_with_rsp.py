"""Two implementations of count and session windows agree on random streams.

``pytest_rspbench.rsp.counting`` / ``rsp.sessions`` (the arithmetic the oracle
will use) and the reference engine (its own, written independently) must
give the same evaluations: which elements, at which time, reporting which
window (docs/count-and-session-windows.md).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rspbench.rsp.counting import CountWindow, slides
from pytest_rspbench.rsp.sessions import SessionWindow, sessions

from helpers.reference import query, run, triple, who

ANY = "WINDOW :w { ?s ?p ?o }"
# events: (gap to the previous event in ms, number of triples)
EVENTS = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=8)


def stream(shape: list[tuple[int, int]]) -> list[tuple[int, list, list[str]]]:
    out, time = [], 0
    for index, (gap, size) in enumerate(shape):
        time += gap
        names = [f"e{index}t{k}" for k in range(size)]
        out.append((time, [triple(n, "p", "o") for n in names], names))
    return out


@settings(max_examples=60, deadline=None)
@given(
    EVENTS,
    st.sampled_from(["rows", "triples"]),
    st.integers(1, 4),
    st.integers(1, 3),
    st.sampled_from(["tuple-driven", "graph-driven"]),
    st.sampled_from(["report", "skip"]),
)
def test_count_windows_agree(shape, kind, size, step, tick, rampup) -> None:
    events = stream(shape)
    window = CountWindow(kind, size, step)
    sizes = [1 if kind == "rows" else len(names) for _, _, names in events]
    # the elements in counting order: (time, names it holds)
    elements = [
        (t, names) if kind == "rows" else (t, [n])
        for t, _, names in events
        for n in ([None] if kind == "rows" else names)
    ]
    expected = []
    for s in slides(sizes, window, tick, rampup):
        held = elements[s.first - 1 : s.last]
        names = sorted(n for _, ns in held for n in ns)
        expected.append((events[s.event][0], (held[0][0], held[-1][0]), names))
    text = query("RStream", f"FROM NAMED WINDOW :w ON STREAM :s [{window.label}]", ANY, "?s")
    profile = {
        "count_order": "time",
        "count_ties": "arrival",
        "count_rampup": rampup,
        "count_tick": tick,
        "count_bounds": "[first,last]",
    }
    out = run(text, [(t, triples) for t, triples, _ in events], 100, **profile)
    assert [(r.time, r.window, who(r)) for r in out] == expected


@settings(max_examples=60, deadline=None)
@given(
    EVENTS,
    st.integers(1, 4),
    st.sampled_from(["split", "merge"]),
    st.sampled_from(["[first,last]", "[first,last+gap)"]),
)
def test_session_windows_agree(shape, gap, rule, bounds) -> None:
    events = stream(shape)
    window = SessionWindow(gap)
    times = [t for t, _, _ in events]
    expected = []
    for first, last in sessions(times, window, rule):
        names = sorted(n for _, _, ns in events[first : last + 1] for n in ns)
        reported = window.reported(times[first], times[last], bounds)
        expected.append((window.close(times[last]), reported, names))
    text = query("RStream", f"FROM NAMED WINDOW :w ON STREAM :s [{window.label}]", ANY, "?s")
    profile = {"session_gap": rule, "session_bounds": bounds}
    out = run(text, [(t, triples) for t, triples, _ in events], times[-1], **profile)
    assert [(r.time, r.window, who(r)) for r in out] == expected
