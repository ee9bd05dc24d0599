"""The runs behind engines/rspjs/README.md: ``python engines/rspjs/runs.py``.

Each run replays a small stream into rsp-js through the protocol adapter and
prints the relations it streamed out, with the window rsp-js evaluated.
Needs node and npm (the first run installs rsp-js into the setup cache).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.stream.model import Event, Stream

EX = "http://example.org/"
S = EX + "s"
INT = "http://www.w3.org/2001/XMLSchema#integer"
PROFILE = Path(__file__).with_name("engine.yaml")


def event(time: int, *names: str, p: str = "p") -> Event:
    return Event(time, tuple((f"<{EX}{n}>", f"<{EX}{p}>", f'"{time}"^^<{INT}>') for n in names))


def query(windows: str, where: str = "WINDOW :w { ?x :p ?v }", r2s: str = "RStream") -> str:
    head = f"PREFIX : <{EX}>\nREGISTER {r2s} <{EX}out> AS SELECT ?x\n"
    return f"{head}{windows}\nWHERE {{ {where} }}"


def replay(
    text: str,
    events: list[Event],
    end: int,
    speed: float = 0,
    others: dict[str, list[Event]] | None = None,
) -> harness.ActualOutput:
    """Replay ``events`` on :s (and ``others``: more streams, by IRI)."""
    profile = load_profile(PROFILE)
    inputs = {S: events, **(others or {})}
    streams = [Stream(iri, _replayer(evs), "run") for iri, evs in inputs.items()]
    registration = Registration(text, tuple(inputs), 0, profile.semantics)
    return harness.run(
        profile.create(),
        registration,
        streams,
        end,
        speed=speed,
        timeout=120,
        sample_interval=None,
    )


def show(
    title: str,
    text: str,
    events: list[Event],
    end: int,
    speed: float = 0,
    others: dict[str, list[Event]] | None = None,
) -> None:
    actual = replay(text, events, end, speed, others)

    def shown(evs: list[Event]) -> str:
        return ", ".join(
            f"{e.time}:{'+'.join(t[0][len(EX) + 1 : -1] for t in e.triples)}" for e in evs[:12]
        ) + (" ..." if len(evs) > 12 else "")

    print(f"\n### {title}\nevents (time:subjects): {shown(events)}", end="")
    for iri, evs in (others or {}).items():
        print(f"\nevents on :{iri[len(EX) :]}: {shown(evs)}", end="")
    print(f"; end={end}; speed={speed or 'max'}")
    if actual.error:
        print("ERROR:", actual.error)
    for received in actual.received:
        names = sorted(b.get("x", "?")[len(EX) + 1 : -1] for b in received.result.bindings)
        label = names if len(names) <= 8 else f"{len(names)} bindings"
        print(f"  window {received.result.window}: {label}")
    if not actual.received:
        print("  (no relation)")


def main() -> int:
    tumbling = "FROM NAMED WINDOW :w ON STREAM :s [RANGE {} STEP {}]"
    each_second = [event(t, f"o{t // 1000}") for t in range(0, 12000, 1000)]
    show(
        "R1 tiny: RANGE 4000 STEP 2000, one event per second",
        query(tumbling.format(4000, 2000)),
        each_second,
        12000,
    )
    show(
        "R2 sparse events: RANGE 2000 STEP 1000",
        query(tumbling.format(2000, 1000)),
        [
            event(0, "a"),
            event(1000, "b"),
            event(2000, "c"),
            event(2500, "d"),
            event(9000, "e"),
            event(9500, "f"),
        ],
        12000,
    )
    show(
        "R3 first event late: RANGE 3000 STEP 2000",
        query(tumbling.format(3000, 2000)),
        [event(t, f"o{t}") for t in (5500, 6000, 7000, 8000, 9000, 10000, 11000, 12000)],
        12000,
    )
    show(
        "R4 IStream query: RANGE 4000 STEP 1000",
        query(tumbling.format(4000, 1000), r2s="IStream"),
        each_second[:8],
        8000,
    )
    show(
        "R5 two windows over the same stream",
        query(
            tumbling.format(2000, 2000).replace(":w ", ":w1 ")
            + "\n"
            + tumbling.format(4000, 2000).replace(":w ", ":w2 "),
            where="WINDOW :w1 { ?x :p ?v }",
        ),
        each_second[:8],
        8000,
    )
    show(
        "R6 empty answer on a non-empty window: FILTER(?v > 3000), RANGE 2000 STEP 2000",
        query(
            tumbling.format(2000, 2000),
            where="WINDOW :w { ?x :p ?v FILTER(?v > 3000) }",
        ),
        each_second[:8],
        8000,
    )
    show(
        "R7 ten bindings per event, RANGE 4000 STEP 2000, replayed at 10x real time",
        query(tumbling.format(4000, 2000)),
        [event(t, *[f"o{t // 1000}_{k}" for k in range(10)]) for t in range(0, 30000, 1000)],
        30000,
        speed=10,
    )
    # R8: two windows over two streams, :w1 on :s (predicate :p) and :w2 on
    # :s2 (predicate :q), the same grid on both.
    two = (
        "FROM NAMED WINDOW :w1 ON STREAM :s [RANGE {0} STEP {1}]\n"
        "FROM NAMED WINDOW :w2 ON STREAM :s2 [RANGE {0} STEP {1}]"
    )
    s2 = EX + "s2"
    for title, (width, slide), where, prefix in (
        (
            "R8a two streams, UNION of :w1 and :w2, RANGE 2000 STEP 2000 on both",
            (2000, 2000),
            "{ WINDOW :w1 { ?x :p ?v } } UNION { WINDOW :w2 { ?x :q ?v } }",
            "b",
        ),
        (
            "R8b two streams, join of :w1 and :w2 on ?x, RANGE 4000 STEP 2000 on both",
            (4000, 2000),
            "WINDOW :w1 { ?x :p ?v } WINDOW :w2 { ?x :q ?u }",
            "o",
        ),
    ):
        second = [event(t, f"{prefix}{t // 1000}", p="q") for t in range(0, 8000, 1000)]
        show(
            title,
            query(two.format(width, slide), where=where),
            each_second[:8],
            8000,
            others={s2: second},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())


def _replayer(events: list[Event]) -> Callable[[], Iterator[Event]]:
    """The events again each time the stream is read."""
    return lambda: iter(events)
