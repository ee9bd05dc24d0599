"""The reference engine's watermark buffer (lateness > 0) and content-change gaps."""

from __future__ import annotations

from rspbench_engines.reference.reorder import Reorder

from pytest_rspbench.stream.model import Event

from helpers.reference import EX, query, run, triple, who


def test_events_of_one_time_leave_in_the_streams_order() -> None:
    # lateness 10: stream B's event at 5 arrives before stream A's (late) one.
    buffer = Reorder(10, streams=("http://a", "<http://b>"))
    out = [*buffer.push("http://b", Event(5, ())), *buffer.push("http://a", Event(5, ()))]
    out += list(buffer.drain())
    assert [(stream, event.time) for stream, event in out] == [("http://a", 5), ("http://b", 5)]


def test_a_hopping_window_in_its_gap_shows_nothing() -> None:
    # :w [RANGE 5 STEP 5] on :s; :w2 [RANGE 2 STEP 10] on :s2, [o,c), t0 = 0:
    #   time   0    1    2    3    ...   10
    #   :w2    [0,2)     gap ................ [10,12)
    # At 3, :w changes; :w2's latest window [0,2) has closed: no content.
    windows = (
        "FROM NAMED WINDOW :w ON STREAM :s [RANGE 5 STEP 5]\n"
        "FROM NAMED WINDOW :w2 ON STREAM :s2 [RANGE 2 STEP 10]"
    )
    where = "{ WINDOW :w { ?s :p ?o } } UNION { WINDOW :w2 { ?s :q ?o } }"
    events = [(1, [triple("u", "q", "o")], EX + "s2"), (3, [triple("x", "p", "o")])]
    out = run(
        query("RStream", windows, where),
        events,
        end=4,
        report=("content-change",),
        tick="tuple-driven",
    )
    assert [(r.time, who(r)) for r in out] == [(1, ["u"]), (3, ["x"])]
