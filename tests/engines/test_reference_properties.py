"""The incremental engine against a brute-force model of window-close.

The model enumerates every window of RSP-QL Def. 13 and filters the whole
stream for each one (no buffers, no purging, no skipping), so it checks the
engine's buffers, purge bounds, closure detection and empty-gap skipping.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.reference import query, run, triple

BOUNDS = ("(o,c]", "[o,c)", "[o,c]")


def holds(bounds: str, o: int, c: int, t: int) -> bool:
    low = o < t if bounds.startswith("(") else o <= t
    high = t < c if bounds.endswith(")") else t <= c
    return low and high


def model(
    events: list[tuple[int, list[str]]],
    width: int,
    slide: int,
    t0: int,
    bounds: str,
    end: int,
    non_empty: bool,
    empty_relations: bool,
) -> list[tuple[int, tuple[int, int], list[str]]]:
    """(time, window, sorted subjects) per emitted RStream relation."""
    reported = []
    i = 0
    while t0 + i * slide + width <= end:
        o, c = t0 + i * slide, t0 + i * slide + width
        content = {s for t, names in events if holds(bounds, o, c, t) for s in names}
        i += 1
        if non_empty and not content:
            continue
        # ?s of each triple (s, :p, :o): one solution per distinct subject
        if content or empty_relations:
            reported.append((c, (o, c), sorted(content)))
    return reported


timelines = st.lists(
    st.tuples(st.integers(0, 60), st.lists(st.sampled_from("abcdef"), max_size=3)),
    max_size=12,
).map(lambda evs: sorted(evs, key=lambda e: e[0]))


@settings(max_examples=100, deadline=None)
@given(
    events=timelines,
    width=st.integers(1, 20),
    slide=st.integers(1, 20),
    t0=st.integers(0, 10),
    bounds=st.sampled_from(BOUNDS),
    extra=st.integers(0, 30),
    non_empty=st.booleans(),
    empty_relations=st.booleans(),
)
def test_window_close_matches_brute_force(
    events: list[tuple[int, list[str]]],
    width: int,
    slide: int,
    t0: int,
    bounds: str,
    extra: int,
    non_empty: bool,
    empty_relations: bool,
) -> None:
    end = (events[-1][0] if events else 0) + extra
    text = query(
        "RStream",
        f"FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]",
        "WINDOW :w { ?s :p :o }",
        "?s",
    )
    pushed = [(t, [triple(s, "p", "o") for s in names]) for t, names in events]
    report = ("window-close", "non-empty-content") if non_empty else ("window-close",)
    out = run(
        text,
        pushed,
        end,
        bounds=bounds,
        t0=t0,
        report=report,
        empty_relations=empty_relations,
    )
    got = [(r.time, r.window, sorted(b["s"][-2] for b in r.bindings)) for r in out]
    assert got == model(events, width, slide, t0, bounds, end, non_empty, empty_relations)


def content_change_model(
    events: list[tuple[int, list[str]]], width: int, slide: int, t0: int, bounds: str
) -> list[tuple[int, tuple[int, int], list[str]]]:
    """Graph-driven content-change: one evaluation per event that adds a new
    timestamped triple (one the window does not hold at that time) to the
    present (most recently opened) window, over its data so far."""
    start = 1 if bounds.startswith("(") else 0
    reported = []
    for n, (t, names) in enumerate(events):
        opened = [i for i in range(200) if t0 + i * slide + start <= t]
        if not opened:
            continue
        o = t0 + max(opened) * slide
        c = o + width
        if not holds(bounds, o, c, t):
            continue
        before = {s for u, ns in events[:n] if holds(bounds, o, c, u) for s in ns}
        now = {s for u, ns in events[:n] if u == t for s in ns}
        if set(names) - now:
            reported.append((t, (o, c), sorted(before | set(names))))
    return reported


@settings(max_examples=100, deadline=None)
@given(
    events=timelines,
    width=st.integers(1, 20),
    slide=st.integers(1, 20),
    t0=st.integers(0, 10),
    bounds=st.sampled_from(BOUNDS),
)
def test_content_change_matches_brute_force(
    events: list[tuple[int, list[str]]], width: int, slide: int, t0: int, bounds: str
) -> None:
    text = query(
        "RStream",
        f"FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]",
        "WINDOW :w { ?s :p :o }",
        "?s",
    )
    pushed = [(t, [triple(s, "p", "o") for s in names]) for t, names in events]
    out = run(
        text,
        pushed,
        100,
        bounds=bounds,
        t0=t0,
        report=("content-change",),
        tick="graph-driven",
    )
    got = [(r.time, r.window, sorted(b["s"][-2] for b in r.bindings)) for r in out]
    assert got == content_change_model(events, width, slide, t0, bounds)
