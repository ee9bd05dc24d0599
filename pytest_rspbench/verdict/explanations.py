"""What each window of a failing output shows, and what could explain it.

:mod:`.departures` names an item's departures; this module does the work per
window. The comparison is cut into *slots*: one per expected relation (from
``t_s`` on) and one per window the engine reported that the oracle has no
relation for. Each slot gets what it lacks (``M``) and has extra (``U``)
under the spec's equality, then:

- :func:`compare`: a second report of the slot's window at one instant is a
  *duplicate report* (a copy, or a second evaluation beside a right one,
  rsp-js D8), stamped later a *re-reported window*; one evaluation in parts
  a *report-policy mismatch*;
- :func:`sequence`: a slot never reported is a *lost window* (the input went
  on past its close), a *missing final window* (it was still open when the
  input ended), or, for an empty relation from an engine that sends none, a
  *report-policy mismatch*; reports out of their windows' order are *out of
  order* (a longest increasing subsequence keeps the most in order);
- :func:`content`: the classes that could explain ``M`` and ``U``, found by
  looking the solutions up in the other slots:

  ===================== ===================================================
  class                 when
  ===================== ===================================================
  window bounds         every solution moved to or from a window that holds
                        the slot's border event (or the event has no other
                        window): another bounds convention (CSRBench §6)
  shifted windows       what the slot lacks was reported elsewhere and what
                        it has extra is due elsewhere (YABench §6: C-SPARQL)
  late events           the same, or a loss, with a profile that waits for
                        late events (``lateness``)
  dropped late event    such a loss, its solutions in no window at all
  stale content         ``M`` empty, ``U`` due in earlier windows (CQELS)
  R2S mismatch          the same under IStream (RStream repeats earlier
                        answers); under DStream, nothing of what is due
  empty-group aggregate ``U`` is ``M`` with its zero aggregates unbound, or
                        no row (SPARQLstream's AVG, CSRBench §6)
  term form             ``U`` is ``M`` with literals in another lexical
                        form of the same datatype and value (canonicalised)
  same value, other     ``U`` and ``M`` equal by value
  lexical form
  extra window          a relation for a window the oracle has none for
  ===================== ===================================================

- :func:`timing`: a window reported before its close is an *early report*,
  long after it a *backlog* (where the profile trusts reported times).
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_rspbench.rsp.bags import Solution, added, bag, match, size
from pytest_rspbench.rsp.bags import same as same_bag
from pytest_rspbench.rsp.outputs import ExpectedRelation, Received
from pytest_rspbench.rsp.policy import while_open
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.terms import literal_parts, numeric_value
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.verdict.alignment import Aligned

Window = tuple[int, int]
LCS_CELLS = 4_000_000  # content alignment beyond this: position alignment stays


@dataclass
class Slot:
    """One window of the comparison: an expected relation, or results of a
    window the oracle has no relation for (``expected`` empty, not ``due``)."""

    window: Window | None
    time: int | None
    due: bool
    expected: Counter[Solution]
    results: list[int]
    actual: Counter[Solution] = field(default_factory=Counter)
    missing: Counter[Solution] = field(default_factory=Counter)
    unexpected: Counter[Solution] = field(default_factory=Counter)
    found: set[str] = field(default_factory=set)  # sequence findings
    possible: set[str] = field(default_factory=set)  # content explanations
    excused: bool = False  # not reported, and allowed not to be

    @property
    def differs(self) -> bool:
        return not self.excused and bool(self.missing or self.unexpected or self.possible)


@dataclass
class Evidence:
    """What the stream says about time: its distinct event times and, asked
    for the terms of the solutions that moved, the times each term occurs at.

    A solution's *anchor* is the times of its rarest term found in the stream
    (an observation IRI occurs at one instant): with it, a solution that
    moved is known to come from a border event or not. Terms the stream does
    not have (computed values, the engine's blank nodes) give no anchor.
    """

    times: Sequence[int]
    locate: Callable[[set[str]], Mapping[str, Iterable[int]]] | None = None
    read: Callable[[], Mapping[str, Sequence[tuple[int, int]]]] | None = None
    """Per stream IRI, its events in stream order, each one's time and triple
    count (count and session windows are replayed from them, :mod:`.variants`)."""
    _where: dict[str, frozenset[int]] = field(default_factory=dict)
    _events: Mapping[str, Sequence[tuple[int, int]]] | None = None

    def events(self) -> Mapping[str, Sequence[tuple[int, int]]] | None:
        """The streams' events (read once; None: not known)."""
        if self._events is None and self.read is not None:
            self._events = self.read()
        return self._events

    @property
    def instants(self) -> frozenset[int]:
        return frozenset(self.times)

    def learn(self, solutions: Iterable[Solution]) -> None:
        """Find the times of these solutions' terms (one pass over the stream)."""
        if self.locate is None:
            return
        terms = {t for sol in solutions for _, t in sol} - set(self._where)
        if terms:
            found = self.locate(terms)
            self._where.update({t: frozenset(found.get(t, ())) for t in terms})

    def anchor(self, sol: Solution) -> frozenset[int] | None:
        known = [self._where[t] for _, t in sol if self._where.get(t)]
        return min(known, key=len) if known else None


def slots_of(
    relations: Sequence[ExpectedRelation],
    received: Sequence[Received],
    aligned: Aligned,
    stable_from: int,
) -> list[Slot]:
    """The slots of a comparison, in evaluation order, from ``t_s`` on.

    Results of one window the oracle has no relation for share a slot.
    """
    groups: Sequence[Sequence[int]] = aligned.groups
    leftovers: Sequence[int] = aligned.leftovers
    if aligned.rule == "position":
        groups, leftovers = by_content(relations, received)
    slots = [
        Slot(rel.window, rel.time, True, bag(rel.bindings), list(group))
        for rel, group in zip(relations, groups, strict=True)
        if rel.time >= stable_from
    ]
    for k in leftovers:
        result = received[k].result
        if result.time is not None and result.time < stable_from:
            continue  # the transient part is not judged (RSP-QL Def. 26)
        window = (result.window[0], result.window[1]) if result.window else None
        same = [s for s in slots if not s.due and window and s.window == window]
        if same:
            same[0].results.append(k)
        else:
            slots.append(Slot(window, result.time, False, Counter(), [k]))
    return sorted(slots, key=_when)


def _when(slot: Slot) -> tuple[int, int, bool]:
    """Slots in evaluation order: by time (a leftover without one: by close)."""
    close = slot.window[1] if slot.window else 0
    time = slot.time if slot.time is not None else close
    return time, close, not slot.due


def by_content(
    relations: Sequence[ExpectedRelation], received: Sequence[Received]
) -> tuple[list[list[int]], list[int]]:
    """Results matched to relations by equal content, keeping their order.

    Position alignment pairs the k-th result with the k-th relation, so one
    lost window shifts every later pair. This pairs equal relations first (a
    longest common subsequence) and the rest between them in order; outputs
    too long for that keep the positions.

    >>> from pytest_rspbench.rsp.outputs import Result
    >>> def rel(k, x):
    ...     return ExpectedRelation(k, k, (k, k + 1), ({"x": x},), 1)
    >>> def res(x):
    ...     return Received(Result(({"x": x},)), 0.0, None)
    >>> by_content([rel(0, "a"), rel(1, "b"), rel(2, "c")], [res("a"), res("c")])
    ([[0], [], [1]], [])
    """
    e = [bag(r.bindings) for r in relations]
    a = [bag(r.result.bindings) for r in received]
    if len(a) * len(e) > LCS_CELLS:
        return [[k] if k < len(a) else [] for k in range(len(e))], list(range(len(e), len(a)))
    pairs = _lcs(a, e)
    groups: list[list[int]] = [[] for _ in relations]
    leftovers: list[int] = []
    bounds = [(-1, -1), *pairs, (len(a), len(e))]
    for (i0, j0), (i1, j1) in itertools.pairwise(bounds):
        if i1 < len(a) and j1 < len(e):
            groups[j1].append(i1)
        gap_a, gap_e = range(i0 + 1, i1), range(j0 + 1, j1)
        for i, j in zip(gap_a, gap_e, strict=False):
            groups[j].append(i)
        leftovers += list(gap_a[len(gap_e) :])
    return groups, leftovers


def _lcs(a: Sequence[Counter[Solution]], e: Sequence[Counter[Solution]]) -> list[Window]:
    table = [[0] * (len(e) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(e) - 1, -1, -1):
            if same_bag(a[i], e[j]):
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < len(a) and j < len(e):
        if same_bag(a[i], e[j]):
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


class Equality:
    """The spec's equality, and a key that is equal for equal values (to find
    a solution in other windows)."""

    def __init__(self, comparison: Comparison) -> None:
        self.mode = comparison.literal_equality
        self.tolerance = comparison.tolerance

    def diff(
        self, actual: Counter[Solution], expected: Counter[Solution]
    ) -> tuple[Counter[Solution], Counter[Solution]]:
        """What ``actual`` lacks and has extra."""
        m = match(actual, expected, self.mode, self.tolerance)
        return Counter(m.missing), Counter(m.unexpected)

    def key(self, sol: Solution) -> Solution:
        if self.mode != "value":
            return sol
        return tuple((v, _number_key(t)) for v, t in sol)


_NUMBER_KEY = "#number:"


def _number_key(term: str) -> str:
    value = numeric_value(term)
    return term if value is None else f"{_NUMBER_KEY}{float(value)!r}"


def compare(slot: Slot, received: Sequence[Received], same: Equality) -> None:
    """The slot's content after duplicates, and what it lacks and has extra.

    A window reported more than once is a duplicate report: a copy, or
    (rsp-js D8) a second evaluation beside one that was right, which is then
    the one judged.
    """
    bags = [bag(received[k].result.bindings) for k in slot.results]
    right = [b for b in bags if slot.due and not any(same.diff(b, slot.expected))]
    if len(bags) > 1 and right:
        slot.found.add(_repeat(slot, received))
        kept = right[:1]
    elif len(bags) > 1 and _repeat(slot, received) == "re-reported-window":
        slot.found.add("re-reported-window")
        kept = bags[-1:]  # the engine's last word on the window is judged
    else:
        seen: list[tuple[Counter[Solution], tuple[object, object]]] = []
        kept = []
        for k, got in zip(slot.results, bags, strict=True):
            result = received[k].result
            key = (result.window, result.time)
            if any(w == key and same_bag(c, got) for c, w in seen):
                slot.found.add("duplicate-report")
            else:
                kept.append(got)
            seen.append((got, key))
    slot.actual = added(kept)
    slot.missing, slot.unexpected = same.diff(slot.actual, slot.expected)
    if len(kept) > 1 and not slot.missing and not slot.unexpected:
        slot.found.add("report-policy")  # one evaluation reported in parts


def _repeat(slot: Slot, received: Sequence[Received]) -> str:
    """What a window reported more than once shows: *re-reported* when a
    later report is stamped later than the first (opened again for a late
    event, or fired again); else a *duplicate report* (a copy, or a second
    evaluation at the same instant, rsp-js D8)."""
    times = [received[k].result.time for k in slot.results]
    first = times[0]
    later = any(t is not None and first is not None and t > first for t in times[1:])
    return "re-reported-window" if later else "duplicate-report"


def timing(
    slots: Sequence[Slot], received: Sequence[Received], semantics: Semantics, slide: int | None
) -> None:
    """Windows that differ and were reported before they closed, or long after.

    Only where the profile trusts the engine's reports (``reports_window``)
    and reports a window when it closes (window-close: an engine under
    content-change or periodic reports a window while it is open), and only
    for time windows (``slide``: the smallest slide; None: other kinds). A
    report stamped before the close is an *early report*; one stamped later
    than the close plus the profile's ``lateness`` and a slide (the next
    window was due before it) is a *backlog*. Either explains the window's
    content: it was evaluated over what the engine held at that time::

        window [0,10), slide 10, lateness 0
        reported at  7  -> early report       at 10..20 -> on time
                         at 21 -> backlog
    """
    if slide is None or not semantics.reports_window or while_open(semantics):
        return
    unit = max(semantics.time_unit, 1)
    for s in slots:
        if not (s.differs and s.results and s.window is not None):
            continue
        times = [t for k in s.results if (t := received[k].result.time) is not None]
        close = s.window[1]
        if times and min(times) <= close - unit:
            s.possible = {"early-report"}
        elif times and max(times) > close + semantics.lateness + slide:
            s.possible = {"backlog"}


def sequence(
    slots: list[Slot],
    received: Sequence[Received],
    mode: str,
    stream: Evidence | None,
    crashed: bool,
) -> None:
    """Windows never reported, and relations out of order."""
    reported = [k for k, s in enumerate(slots) if s.results]
    first, last = reported[0], reported[-1]
    end = max(stream.times) if stream is not None and stream.times else None
    # An engine that sends empty relations and skipped one lost it; one that
    # sends none has another policy.
    sends_empty = any(not received[k].result.bindings for s in slots for k in s.results)
    for k, s in enumerate(slots):
        if s.results or not s.due:
            continue
        if not s.expected and not sends_empty:
            s.possible.add("report-policy")  # an empty relation was due
        elif mode == "containment" and (k < first or k > last):
            s.excused = True  # CSRBench containment: may start late and stop early
        elif k > last and crashed:
            s.excused = True  # what a crash cut off is the engine error
        elif k > last and (end is None or s.window is None or s.window[1] >= end):
            s.possible.add("missing-final-window")
        else:
            s.possible.add("lost-window")
    if mode not in ("strict", "containment"):
        return  # thresholds judge windows one by one: the order does not count
    order = [min(s.results) for s in slots if s.due and s.results]
    keep = set(_increasing(order))
    for s in slots:
        if s.due and s.results and min(s.results) not in keep:
            s.found.add("out-of-order")


def _increasing(values: Sequence[int]) -> list[int]:
    """A longest increasing subsequence of ``values`` (patience sorting)."""
    tails: list[int] = []
    links: dict[int, int | None] = {}
    for v in values:
        at = bisect.bisect_left(tails, v)
        links[v] = tails[at - 1] if at else None
        tails[at : at + 1] = [v]
    out: list[int] = []
    at_value: int | None = tails[-1] if tails else None
    while at_value is not None:
        out.append(at_value)
        at_value = links[at_value]
    return out[::-1]


@dataclass
class _Where:
    """Per solution key, the slots that expect it, that got it, and that
    lack it: how a solution is found in other windows."""

    expected: dict[Solution, set[int]]
    actual: dict[Solution, set[int]]
    missing: dict[Solution, set[int]]
    unexpected: dict[Solution, set[int]]

    @classmethod
    def of(cls, slots: Sequence[Slot], same: Equality) -> _Where:
        """Indexed for the keys of the solutions some slot lacks or has extra
        (the only ones looked up), so a large window that differs in one
        solution is not keyed whole."""
        needed = {same.key(sol) for s in slots for b in (s.missing, s.unexpected) for sol in b}
        # A solution whose key is needed has that key's terms that are not
        # numbers: one of them per key sifts the solutions before keying.
        anchors: set[tuple[str, str]] | None = set()
        for key in needed:
            pair = next((p for p in key if not p[1].startswith(_NUMBER_KEY)), None)
            if pair is None or anchors is None:
                anchors = None
            else:
                anchors.add(pair)
        index: tuple[dict[Solution, set[int]], ...] = tuple(defaultdict(set) for _ in range(4))
        for k, s in enumerate(slots):
            bags = (s.expected, s.actual, s.missing, s.unexpected)
            for bag_, at in zip(bags, index, strict=True):
                for sol in bag_:
                    if anchors is not None and anchors.isdisjoint(sol):
                        continue
                    if (key := same.key(sol)) in needed:
                        at[key].add(k)
        return cls(*index)


def content(
    slots: list[Slot],
    semantics: Semantics,
    r2s: str,
    same: Equality,
    stream: Evidence | None,
) -> None:
    """The classes that could explain each window's content."""
    where = _Where.of(slots, same)
    if stream is not None:
        stream.learn(sol for s in slots for sol in (*s.missing, *s.unexpected))
    late = semantics.lateness > 0
    # Only RStream reports a solution in the windows its event is in;
    # IStream and DStream report it where it enters or leaves them.
    anchored = r2s == "RStream"
    # Without anchors (IStream, DStream) a border move shows as a loss in
    # one window and a gain in another: gains alone are the R2S's or stale.
    moves = anchored or any(s.missing for s in slots if s.results and not s.excused)
    for k, s in enumerate(slots):
        if not s.due and s.results and not s.actual:
            # An empty relation the oracle has none for: against the policy,
            # or (a profile that sends them) for a window it does not have.
            s.possible.add("extra-window" if semantics.empty_relations else "report-policy")
        if s.excused or not (s.missing or s.unexpected):
            continue
        if not s.due:
            s.possible.add("extra-window")
        if s.missing and s.unexpected and _rewritten(s):
            s.possible = {"term-form"}  # exact: nothing else to look for
            continue
        if s.missing and s.unexpected and _lexical(s, same):
            s.possible.add("lexical-form")
        if s.missing and _empty_group(s):
            if s.unexpected and _empty_group(s, exact=True):
                # Each row the engine sent is an expected one with its
                # aggregate unbound: nothing else to look for (a late event,
                # a border) would give exactly that.
                s.possible = {"empty-group-aggregate"}
                continue
            s.possible.add("empty-group-aggregate")
        earlier = _elsewhere(s.unexpected, where.expected, same, range(k).__contains__)
        if not s.missing and earlier:
            s.possible.add("r2s-mismatch" if r2s == "IStream" else "stale-content")
        if r2s == "DStream" and s.actual and not (s.actual & s.expected):
            s.possible.add("r2s-mismatch")
        if _moved(k, s, where, same, stream if anchored else None):
            s.possible.add("late-events" if late else "shifted-windows")
        elif late and s.missing and s.results:
            # Lost: a late event the engine put nowhere was dropped; one
            # found in other windows was placed in some of its windows only.
            nowhere = not s.unexpected and not any(
                where.actual.get(same.key(sol)) for sol in s.missing
            )
            s.possible.add("dropped-late-event" if nowhere else "late-events")
        if moves and stream is not None and _at_border(k, s, slots, where, same, stream, anchored):
            s.possible.add("window-bounds")


def _elsewhere(
    solutions: Counter[Solution],
    index: dict[Solution, set[int]],
    same: Equality,
    accept: Callable[[int], bool],
) -> bool:
    """Is every solution in a slot of ``index`` that ``accept`` takes?"""
    return bool(solutions) and all(
        any(map(accept, index.get(same.key(sol), ()))) for sol in solutions
    )


def _moved(k: int, s: Slot, where: _Where, same: Equality, stream: Evidence | None = None) -> bool:
    """Solutions reported in other windows than theirs: what the window lacks
    was reported where it is not due, what it has extra is due elsewhere, and
    it lost something or took what its own window lacks (else: stale content).
    (A solution of overlapping sliding windows is due in several: finding it
    where it is due too says nothing.) An extra solution whose anchor lies
    inside the window did not move in: the same value by chance (an
    aggregate), not a move."""
    others = k.__ne__
    lacks = not s.missing or _elsewhere(s.missing, where.unexpected, same, others)
    extra = not s.unexpected or _elsewhere(s.unexpected, where.expected, same, others)
    taken = any(where.missing.get(same.key(sol), set()) - {k} for sol in s.unexpected)
    came = (
        stream is None
        or s.window is None
        or all(_from_outside(stream.anchor(sol), s.window) for sol in s.unexpected)
    )
    return lacks and extra and came and (bool(s.missing) or taken)


def _from_outside(anchor: frozenset[int] | None, window: Window) -> bool:
    return anchor is None or any(not window[0] < t < window[1] for t in anchor)


def _at_border(
    k: int,
    s: Slot,
    slots: Sequence[Slot],
    where: _Where,
    same: Equality,
    stream: Evidence,
    anchored: bool = True,
) -> bool:
    """Could another bounds convention explain the window's difference?

    Under another convention only the solutions of an event exactly on a
    border ``x`` change windows. So each solution the window has extra is due
    in a window it shares a border event with (one holds the other's ``o`` or
    ``c``, and an event is there), and each one it lacks was reported in such
    a window; or the border event is in no other window (before the first
    window, after the last): there is nowhere else to find it. A solution
    whose anchor (:class:`Evidence`) misses every shared border came from
    another event: not a bounds departure (stale content, a drift).
    """
    if s.window is None:
        return False
    window, instants = s.window, stream.instants
    own = _borders(window, instants)

    def shared(j: int) -> set[int]:
        w = slots[j].window
        if j == k or w is None:
            return set()
        return {x for x in own if _holds(w, x)} | {
            x for x in _borders(w, instants) if _holds(window, x)
        }

    def fits(sol: Solution, points: set[int]) -> bool:
        anchor = stream.anchor(sol) if anchored else None
        return bool(points) and (anchor is None or bool(anchor & points))

    def explained(sols: Counter[Solution], index: dict[Solution, set[int]]) -> bool:
        return all(any(fits(sol, shared(j)) for j in index.get(same.key(sol), ())) for sol in sols)

    lonely = {x for x in own if not any(_holds(t.window, x) for j, t in enumerate(slots) if j != k)}

    def alone(sols: Counter[Solution]) -> bool:
        return all(fits(sol, lonely) for sol in sols)

    gained = explained(s.unexpected, where.expected)
    lost = explained(s.missing, where.actual)
    # At least one side must be found in a neighbour: a value that changed
    # (an aggregate) is no border event.
    return (gained and lost) or (gained and alone(s.missing)) or (lost and alone(s.unexpected))


def _holds(window: Window | None, x: int) -> bool:
    return window is not None and window[0] <= x <= window[1]


def _borders(window: Window, instants: frozenset[int]) -> list[int]:
    """The window's ends that an event sits on."""
    return [x for x in window if x in instants]


def _rewritten(s: Slot) -> bool:
    """Every solution the window has extra is one it lacks with some literals
    rewritten: the same datatype and value in another lexical form
    (``"8"`` for ``"+8"``, ``"2.25"`` for ``"2.25E0"``): canonicalised.

    >>> from collections import Counter
    >>> t = "<http://www.w3.org/2001/XMLSchema#integer>"
    >>> s = Slot((0, 10), 10, True, Counter(), [])
    >>> s.missing = Counter({(("n", f'"+8"^^{t}'),): 1})
    >>> s.unexpected = Counter({(("n", f'"8"^^{t}'),): 1})
    >>> _rewritten(s)
    True
    """
    if sum(s.missing.values()) != sum(s.unexpected.values()):
        return False
    rest = Counter(s.missing)
    for sol, count in s.unexpected.items():
        for _ in range(count):
            twin = next((m for m in rest if rest[m] > 0 and _same_but_form(sol, m)), None)
            if twin is None:
                return False
            rest[twin] -= 1
    return True


def _same_but_form(got: Solution, due: Solution) -> bool:
    """The same solution but for literals of one datatype and value written
    in other lexical forms (at least one)."""
    if [v for v, _ in got] != [v for v, _ in due]:
        return False
    pairs = [(a, e) for (_, a), (_, e) in zip(got, due, strict=True) if a != e]
    return bool(pairs) and all(_same_literal(a, e) for a, e in pairs)


def _same_literal(a: str, e: str) -> bool:
    pa, pe = literal_parts(a), literal_parts(e)
    if pa is None or pe is None or pa[1] is None or pa[1:] != pe[1:]:
        return False
    value = numeric_value(a)
    return value is not None and value == numeric_value(e)


def _lexical(s: Slot, same: Equality) -> bool:
    """The same values as expected, in other lexical forms."""
    return match(s.unexpected, s.missing, "value", same.tolerance).equal


def _empty_group(s: Slot, exact: bool = False) -> bool:
    """Expected solutions with an aggregate of 0, got with it unbound (or no
    row at all for a one-row answer): SPARQL 1.1 §18.5.1 gives COUNT, SUM
    and AVG of no values as 0. ``exact``: and every unexpected row is one
    of them, unbound."""
    rest = Counter(s.unexpected)
    for sol in s.missing:
        zeros = {v for v, t in sol if numeric_value(t) == 0}
        if not zeros:
            return False
        unbound = tuple((v, t) for v, t in sol if v not in zeros)
        if rest[unbound] > 0:
            rest[unbound] -= 1
        elif s.unexpected or size(s.expected) != 1:
            return False
    return not exact or not +rest
