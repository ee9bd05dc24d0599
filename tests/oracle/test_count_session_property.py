"""Count and session windows: the oracle equals a brute force (property tests).

On small random streams, with ties (several events at one time, several
triples per event) and out-of-order deliveries, the oracle's output for a
``[ROWS n STEP m]``, ``[TRIPLES n STEP m]`` or ``[SESSION g]`` window must
equal what this file computes by brute force, straight from the contract
(docs/count-and-session-windows.md) and written without the oracle's or the
reference engine's code: number the elements in counting order, slide, take
the last n (under ``count_ties: any`` every choice the contract allows),
evaluate the query by hand, apply the report policy and R2S. Under
``count_ties: any`` an output is a set of correct ones: the oracle's classes
must be that set, each once.

The first property runs the oracle on Spark (compiled plan or pyoxigraph
fallback, drawn), a few pinned examples; the second checks the plan alone
(every evaluation's time, window and correct contents), many examples, no
Spark. A hunt draws new ones: ``pytest -m property --hypothesis-profile=hunt``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, reject
from hypothesis import strategies as st

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle import sequenced
from pytest_rspbench.oracle.oracle import expected_output
from pytest_rspbench.oracle.t0 import axes
from pytest_rspbench.oracle.t0.frames import _rows
from pytest_rspbench.oracle.t0.narrowing import Reported
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.workloads import Disorder, arrivals

from helpers.properties import explore

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
IRI = EX + "s"

QUERIES = {
    "select": "SELECT ?x ?v WHERE { WINDOW :w { ?x :p ?v } }",
    "filter": "SELECT ?x ?v WHERE { WINDOW :w { ?x :p ?v FILTER(?v > 2) } }",
    "group": "SELECT ?x (COUNT(?v) AS ?n) WHERE { WINDOW :w { ?x :p ?v } } GROUP BY ?x",
}

Triple = tuple[str, str, str]
Relation = tuple[int, tuple[int, int] | None, frozenset[tuple[tuple[tuple[str, str], ...], int]]]


@dataclass(frozen=True)
class Profile:
    """The profile fields a draw chooses (docs/count-and-session-windows.md, "Profile keys")."""

    order: str = "time"
    ties: str = "arrival"
    rampup: str = "report"
    tick: str = "tuple-driven"
    bounds: str = "[first,last]"
    gap_rule: str = "split"
    session_bounds: str = "[first,last]"
    non_empty: bool = True
    empty_relations: bool = False
    unit: int = 1

    def semantics(self, r2s: str) -> Semantics:
        report = ("window-close", "non-empty-content") if self.non_empty else ("window-close",)
        return Semantics(
            bounds="[o,c)", t0="registration", report=report, r2s=(r2s,),
            empty_relations=self.empty_relations, time_unit=self.unit, reports_window=True,
            windows=("time", "rows", "triples", "session"), count_order=self.order,
            count_ties=self.ties, count_rampup=self.rampup, count_tick=self.tick,
            count_bounds=self.bounds, session_gap=self.gap_rule,
            session_bounds=self.session_bounds,
        )  # fmt: skip


# ---------------------------------------------------------------- brute force


def delivered(events: Sequence[Event], disorder: Disorder | None, order: str) -> list[int]:
    """Indices of the events a count window counts, in counting order: the
    stream's under ``time``; the deliveries under ``arrival``, a delivery
    equal to an earlier one (time and triples) dropped."""
    if order == "time":
        return list(range(len(events)))
    index = {id(e): k for k, e in enumerate(events)}
    stream = arrivals(events, disorder) if disorder else ((e.time, e) for e in events)
    out, seen = [], set()
    for _, event in stream:
        if (event.time, event.triples) not in seen:
            seen.add((event.time, event.triples))
            out.append(index[id(event)])
    return out


def clock(time: int, unit: int) -> int:
    return time - time % unit


def brute_count(
    events: Sequence[Event], kind: str, n: int, m: int, prof: Profile, disorder: Disorder | None
) -> list[tuple[int, tuple[int, int], list[frozenset[Triple]]]]:
    """Each evaluation of a count window: its time, its [first,last] window,
    and its correct contents (one, or every choice under count_ties any)."""
    counted = delivered(events, disorder, prof.order)
    # An element: (counting index of its event, its triples).
    elements = []
    for j, k in enumerate(counted):
        if kind == "rows":
            elements.append((j, events[k].triples))
        else:
            elements += [(j, (t,)) for t in events[k].triples]
    times = [clock(events[k].time, prof.unit) for k in counted]
    ends = list(itertools.accumulate(1 if kind == "rows" else len(events[k].triples)
                                     for k in counted))  # fmt: skip

    def kept(p: int) -> bool:
        return p % m == 0 and (prof.rampup == "report" or p >= n)

    cuts = []  # (time, last element) of each evaluation
    if kind == "triples" and prof.tick == "graph-driven":
        before = 0
        for j, after in enumerate(ends):
            if any(kept(p) for p in range(before + 1, after + 1)):
                cuts.append((times[j], after))
            before = after
    else:
        cuts = [(times[elements[p - 1][0]], p) for p in range(1, len(elements) + 1) if kept(p)]
    out = []
    for time, p in cuts:
        content = elements[max(0, p - n) : p]
        window = (times[content[0][0]], times[content[-1][0]])
        out.append((time, window, contents(content, elements, times, prof)))
    return out


def contents(
    content: list[tuple[int, tuple[Triple, ...]]],
    elements: list[tuple[int, tuple[Triple, ...]]],
    times: list[int],
    prof: Profile,
) -> list[frozenset[Triple]]:
    """The correct contents of an evaluation holding ``content``: itself, or
    under count_ties any every set holding as many elements of each tie key
    (time, or delivery under arrival) as it does, chosen among all of them."""

    def key(element: tuple[int, tuple[Triple, ...]]) -> int:
        return times[element[0]] if prof.order == "time" else element[0]

    if prof.ties == "arrival":
        return [frozenset(t for _, ts in content for t in ts)]
    wanted = Counter(key(e) for e in content)
    pools = [
        itertools.combinations([i for i, e in enumerate(elements) if key(e) == k], count)
        for k, count in wanted.items()
    ]
    return [
        frozenset(t for pick in picks for i in pick for t in elements[i][1])
        for picks in itertools.product(*pools)
    ]


def brute_sessions(
    events: Sequence[Event], gap: int, prof: Profile
) -> list[tuple[int, tuple[int, int], list[frozenset[Triple]]]]:
    """Each session: its close time, its reported window, its content."""
    runs: list[list[Event]] = []
    for event in events:
        t = clock(event.time, prof.unit)
        last = clock(runs[-1][-1].time, prof.unit) if runs else None
        joins = last is not None and (
            t - last < gap if prof.gap_rule == "split" else t - last <= gap
        )
        if joins:
            runs[-1].append(event)
        else:
            runs.append([event])
    out = []
    for run in runs:
        first, last = clock(run[0].time, prof.unit), clock(run[-1].time, prof.unit)
        window = (first, last) if prof.session_bounds == "[first,last]" else (first, last + gap)
        out.append((last + gap, window, [frozenset(t for e in run for t in e.triples)]))
    return out


def answer(query: str, triples: frozenset[Triple]) -> Counter[tuple[tuple[str, str], ...]]:
    """The query over one window's content, by hand."""
    rows = [(s, o) for s, p, o in sorted(triples) if p == f"<{EX}p>"]
    if query == "filter":
        rows = [(s, o) for s, o in rows if int(o.split('"')[1]) > 2]
    if query == "group":
        per = Counter(s for s, _ in rows)
        return Counter({(("n", f'"{c}"^^<{INT}>'), ("x", s)): 1 for s, c in per.items()})
    return Counter((("v", o), ("x", s)) for s, o in rows)


def brute_outputs(
    evaluations: list[tuple[int, tuple[int, int], list[frozenset[Triple]]]],
    query: str,
    r2s: str,
    prof: Profile,
    windows: bool,
) -> set[tuple[Relation, ...]]:
    """Every correct output stream: a content per evaluation, the report
    policy (non-empty-content skips an empty window), then R2S."""
    outputs = set()
    for chosen in itertools.product(*(set(c) for _, _, c in evaluations)):
        out: list[Relation] = []
        previous: Counter = Counter()
        for (time, window, _), content in zip(evaluations, chosen, strict=True):
            if prof.non_empty and not content:
                continue
            current = answer(query, content)
            emitted = {"RStream": current, "IStream": current - previous,
                       "DStream": previous - current}[r2s]  # fmt: skip
            previous = current
            if emitted or prof.empty_relations:
                out.append((time, window if windows else None, frozenset(emitted.items())))
        outputs.add(tuple(out))
    return outputs


# ------------------------------------------------------------------ streams


@st.composite
def streams(draw: Any, empty_events: bool = False) -> list[Event]:
    """A few events, several at one time now and then, of a few triples each
    from a small vocabulary (so triples and answers repeat)."""
    time = draw(st.integers(0, 4))
    out = []
    for _ in range(draw(st.integers(1, 7))):
        time += draw(st.sampled_from([0, 0, 1, 2, 3]))
        size = draw(st.integers(0 if empty_events else 1, 3))
        triples = tuple(
            (f"<{EX}{draw(st.sampled_from('abc'))}>", f"<{EX}{draw(st.sampled_from('pq'))}>",
             f'"{draw(st.integers(0, 4))}"^^<{INT}>')
            for _ in range(size)
        )  # fmt: skip
        out.append(Event(time, triples))
    return out


PROFILES = st.builds(
    Profile,
    order=st.sampled_from(["time", "arrival"]),
    ties=st.sampled_from(["arrival", "any"]),
    rampup=st.sampled_from(["report", "skip"]),
    tick=st.sampled_from(["tuple-driven", "graph-driven"]),
    bounds=st.sampled_from(["[first,last]", "none"]),
    gap_rule=st.sampled_from(["split", "merge"]),
    session_bounds=st.sampled_from(["[first,last]", "[first,last+gap)"]),
    non_empty=st.booleans(),
    empty_relations=st.booleans(),
    unit=st.sampled_from([1, 1, 2]),
)
DISORDER = st.one_of(
    st.none(),
    st.builds(Disorder, late=st.sampled_from([0.3, 0.6]), max_delay=st.integers(1, 4),
              duplicates=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 50)),
)  # fmt: skip
WINDOWS = st.sampled_from(["rows", "triples", "session"])


def window_clause(kind: str, n: int, m: int) -> str:
    return f"[SESSION {n}]" if kind == "session" else f"[{kind.upper()} {n} STEP {m}]"


def query_text(kind: str, n: int, m: int, query: str, r2s: str) -> str:
    select, where = QUERIES[query].split(" WHERE ", 1)
    return (
        f"PREFIX : <{EX}>\nREGISTER {r2s} :out AS {select}\n"
        f"FROM NAMED WINDOW :w ON STREAM :s {window_clause(kind, n, m)}\nWHERE {where}"
    )


def brute(
    events: list[Event], kind: str, n: int, m: int, prof: Profile, disorder: Disorder | None
) -> list[tuple[int, tuple[int, int], list[frozenset[Triple]]]]:
    if kind == "session":
        return brute_sessions(events, n, prof)
    return brute_count(events, kind, n, m, prof, disorder)


def compared(relations: Sequence[Any], windows: bool) -> tuple[Relation, ...]:
    return tuple(
        (
            r.time,
            tuple(r.window) if windows else None,
            frozenset(Counter(tuple(sorted(b.items())) for b in r.bindings).items()),
        )
        for r in relations
    )


# --------------------------------------------------------------- properties


def _t(o: int) -> Triple:
    return (f"<{EX}a>", f"<{EX}p>", f'"{o}"^^<{INT}>')


# Found by a hunt: two resolutions stream the same bags at different
# evaluations (IStream), told apart only by their windows.
HUNTED = [Event(0, (_t(0),)), Event(0, (_t(0),) * 3), Event(1, (_t(0),)),
          Event(1, (_t(1), _t(0), _t(0)))]  # fmt: skip


@pytest.mark.spark
@explore(24, spark=True)
@example(
    events=HUNTED, kind="triples", n=3, m=2, disorder=None, query="group", r2s="IStream",
    prof=Profile(order="arrival", ties="any", non_empty=False), fallback=False, engine=1,
)  # fmt: skip
@given(
    events=streams(),
    kind=WINDOWS,
    n=st.integers(1, 4),
    m=st.integers(1, 3),
    prof=PROFILES,
    disorder=DISORDER,
    query=st.sampled_from(sorted(QUERIES)),
    r2s=st.sampled_from(["RStream", "IStream", "DStream"]),
    fallback=st.booleans(),
    engine=st.integers(0, 10**6),
)
def test_the_oracle_computes_what_the_brute_force_does(
    spark: Any, events: list[Event], kind: str, n: int, m: int, prof: Profile,
    disorder: Disorder | None, query: str, r2s: str, fallback: bool, engine: int,
) -> None:  # fmt: skip
    """Every correct output, each once; under count_ties any, half the time
    with the enumeration cut to nothing, so that an engine's output (one of
    the brute force's, drawn) picks the resolution (oracle/t0/ties.py)."""
    evaluations = brute(events, kind, n, m, prof, disorder)
    if math.prod(len(set(c)) for _, _, c in evaluations) > 5000:
        reject()  # too many for the brute force (the oracle bounds them too)
    windows = kind == "session" or prof.bounds != "none"
    wanted = brute_outputs(evaluations, query, r2s, prof, windows)
    told = sorted(wanted)[engine % len(wanted)]
    picking = prof.ties == "any" and engine % 2 == 1
    stream = Stream(IRI, lambda: iter(events), "drawn")
    with pytest.MonkeyPatch.context() as patch:
        if picking:
            patch.setattr(sequenced, "MAX_RESOLUTIONS", 0)
        try:
            expected = expected_output(
                spark, parse(query_text(kind, n, m, query, r2s)), [stream], prof.semantics(r2s),
                force_fallback=fallback, disorder={IRI: disorder} if disorder else None,
                reported=Reported.of([_Told(r) for r in told]) if picking else None,
            )  # fmt: skip
        except UnsupportedQueryError as exc:  # too many choices at one tie: refused, saying so
            assert "count_ties any" in str(exc)
            reject()
    got = [compared(c.relations, windows) for c in expected.classes]
    assert len(got) == len(set(got)), "an output listed twice"
    if picking:
        assert told in got and set(got) <= wanted
    else:
        assert set(got) == wanted


@dataclass(frozen=True)
class _Told:
    """A brute-force relation as an engine reports it."""

    relation: Relation

    @property
    def bindings(self) -> tuple[dict[str, str], ...]:
        return tuple(dict(b) for b, count in self.relation[2] for _ in range(count))

    @property
    def time(self) -> int:
        return self.relation[0]

    @property
    def window(self) -> tuple[int, int] | None:
        return self.relation[1]


@explore(400)
@given(
    events=streams(empty_events=True),
    kind=WINDOWS,
    n=st.integers(1, 5),
    m=st.integers(1, 4),
    prof=PROFILES,
    disorder=DISORDER,
)
def test_the_plan_holds_what_the_brute_force_does(
    events: list[Event], kind: str, n: int, m: int, prof: Profile, disorder: Disorder | None
) -> None:
    """Every evaluation's time, window and correct contents, from the plan
    (no Spark: each axis window read back as the rows it holds)."""
    stream = Stream(IRI, lambda: iter(events), "drawn")
    rows, timelines = _rows([stream], {}, positioned=True)
    query = parse(query_text(kind, n, m, "select", "RStream"))
    try:
        plan = axes.plan(query, prof.semantics("RStream"), timelines, [stream],
                         {IRI: disorder} if disorder else {})  # fmt: skip
    except UnsupportedQueryError as exc:  # too many choices at a tie: refused, saying so
        assert "count_ties any" in str(exc)
        reject()
    (steps,) = plan.steps
    planned = [(s.time, s.shown[s.triggers[0]]) for s in steps]
    wanted = brute(events, kind, n, m, prof, disorder)
    assert [(t, w) for t, w, _ in wanted] == [(t, shown.window) for t, shown in planned]
    held = [_held(plan, rows, shown, kind, prof) for _, shown in planned]
    assert [sorted(map(sorted, c)) for _, _, c in wanted] == [sorted(map(sorted, h)) for h in held]


def _held(plan: axes.Plan, rows: list, shown: Any, kind: str, prof: Profile) -> list[set]:
    """The triples each correct content of ``shown`` holds, from the rows'
    axis values (as Spark assigns them, in Python)."""
    (a,) = plan.axes
    stamped: list[tuple[int, Triple]] = []
    for _, s, p, o, t, e, q in rows:
        if a.restamp == "session":
            value = dict(plan.sessions[a.name]).get(clock(t, prof.unit))
        elif a.restamp == "arrival":
            extra = dict(plan.arrival[a.name]).get(e)
            value = None if extra is None else extra if kind == "rows" else q + extra
        else:
            value = e if a.restamp == "e" else q
        if value is not None:
            stamped.append((value, (s, p, o)))
    copies = plan.copies.get(a.name, ())
    stamped += [(v, triple) for pos, v in copies for value, triple in stamped if value == pos]
    indices = plan.choices[a.name][shown.number] if shown.choices else (shown.index,)
    out = []
    for index in indices:
        o, c = a.spec.window(index, a.t0)
        out.append({triple for value, triple in stamped if o < value <= c})
    return out
