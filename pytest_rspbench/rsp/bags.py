"""Bags of solution mappings, and how two bags are matched.

A solution mapping is stored as a sorted tuple of ``(variable, term)`` pairs
so it can be counted in a :class:`collections.Counter` (a bag). Relations
compare as bags (CSRBench, RSP-QL Def. 20-22).

Terms compare by RDF term equality (``literal_equality: term``), or numeric
literals by value (``value``: engines retype literals, C-SPARQL turned
xsd:double into xsd:integer), as doubles like SPARQL's numeric type promotion
(so ``"1"^^xsd:integer`` equals ``"1.0"^^xsd:double``; integers beyond 2^53
lose their last digits). With a ``tolerance`` two numbers match when they
differ by at most that much. That relation is not transitive (0.0 ~ 0.1 ~
0.2 with tolerance 0.1, but 0.0 !~ 0.2), so it cannot be turned into keys
(rounding to a grid splits values that straddle a grid edge): the bags are
*matched*, pairing as many actual with expected solutions as possible (a
maximum bipartite matching), and that number is what precision and recall
count.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.rsp.terms import numeric_value

Solution = tuple[tuple[str, str], ...]
Bag = Counter  # Counter[Solution]
_NUMBER = "#number"
_NAN = (1, 0.0)  # NaN matches NaN: an engine that outputs NaN where NaN is due is right


def solution(binding: Mapping[str, str]) -> Solution:
    """A hashable solution mapping (unbound variables are simply absent)."""
    if None in binding.values():
        return tuple(sorted((k, v) for k, v in binding.items() if v is not None))
    return tuple(sorted(binding.items()))  # 40 % faster: no generator


class Frozen(Sequence[Mapping[str, str]]):
    """A sequence of solution mappings that never changes once made (as a
    tuple): :func:`bag` may remember its bag. The oracle's columnar bags
    (:class:`pytest_rspbench.oracle.store.columns.ColumnBindings`) are such."""

    __slots__ = ()


def bag(bindings: Iterable[Mapping[str, str]]) -> Counter[Solution]:
    """A bag of solution mappings.

    Inside :func:`remembered`, the bag of one tuple (or :class:`Frozen`
    sequence) of bindings is built once and the same
    :class:`~collections.Counter` returned after that: treat it as read-only.
    """
    memo = _REMEMBERED.get()
    if memo is None or not (type(bindings) is tuple or isinstance(bindings, Frozen)):
        return Counter(solution(b) for b in bindings)
    known = memo.get(id(bindings))
    if known is not None and known[0] is bindings:
        return known[1]
    built = Counter(solution(b) for b in bindings)
    memo[id(bindings)] = (bindings, built)  # the tuple is kept: its id stays its own
    return built


_REMEMBERED: ContextVar[dict[Any, tuple[object, Any]] | None] = ContextVar(
    "rspbench_bags", default=None
)


@contextmanager
def remembered() -> Iterator[None]:
    """Build each relation's bag once while inside (a verdict reads the same
    relations for the match, the window table, the metrics and the
    explanations: on YABench's self-join, 594,000 bindings, that was 35 bags
    built from 3.9 million bindings)."""
    if _REMEMBERED.get() is not None:
        yield
        return
    token = _REMEMBERED.set({})
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def same(a: Counter[Solution], b: Counter[Solution]) -> bool:
    """``a == b`` for bags, at C speed (``Counter.__eq__`` compares in a
    Python generator: 10 s over YABench's self-join); counts of 0 are
    absent, as for Counter.

    >>> same(Counter({"x": 1, "y": 0}), Counter({"x": 1}))
    True
    """
    if dict.__eq__(a, b):
        return True
    return (0 in a.values() or 0 in b.values()) and a == b


def size(items: Counter[Solution]) -> int:
    return sum(items.values())


def added(bags: Iterable[Counter[Solution]]) -> Counter[Solution]:
    """The sum of ``bags`` (a new Counter; they are left as they are).

    ``Counter.update`` adds a mapping one entry at a time in Python (about
    1 s per 500,000 solutions); here only the solutions two bags share are
    added that way, the rest is copied at C speed.

    >>> added([Counter({"x": 1, "y": 2}), Counter({"y": 1, "z": 1})]) == Counter(x=1, y=3, z=1)
    True
    """
    total: Counter[Solution] = Counter()
    for items in bags:
        shared = total.keys() & items.keys()
        sums = {s: total[s] + items[s] for s in shared}
        dict.update(total, items)
        dict.update(total, sums)
    return total


def differing(a: Counter[Solution], b: Counter[Solution]) -> set[Solution]:
    """The solutions whose count differs between the bags: those of
    ``a - b`` and ``b - a``.

    Found from the symmetric difference of the two item views, at C speed
    (``Counter.__sub__`` loops in Python: about 0.4 s per 100,000 solutions).

    >>> sorted(differing(Counter({"x": 1, "y": 2, "w": 0}), Counter({"y": 1, "z": 1})))
    ['x', 'y', 'z']
    """
    return {s for s, _ in a.items() ^ b.items() if a.get(s, 0) != b.get(s, 0)}


def _differences(
    actual: Counter[Solution], expected: Counter[Solution]
) -> tuple[tuple[Solution, ...], tuple[Solution, ...]]:
    """``expected - actual`` and ``actual - expected``, each as sorted solutions."""
    missing: list[Solution] = []
    unexpected: list[Solution] = []
    for s in differing(actual, expected):
        more = actual.get(s, 0) - expected.get(s, 0)
        if more > 0:
            unexpected += [s] * more
        else:
            missing += [s] * -more
    return tuple(sorted(missing)), tuple(sorted(unexpected))


@dataclass(frozen=True)
class Matched:
    """The result of matching an actual bag against an expected bag.

    Attributes:
        common: number of actual solutions paired with an expected one
            (``|A ∩ E|`` over bags).
        missing: expected solutions left unpaired, sorted.
        unexpected: actual solutions left unpaired, sorted.
    """

    common: int
    missing: tuple[Solution, ...]
    unexpected: tuple[Solution, ...]

    @property
    def equal(self) -> bool:
        return not self.missing and not self.unexpected


def match(
    actual: Counter[Solution],
    expected: Counter[Solution],
    literal_equality: str = "term",
    tolerance: float = 0.0,
) -> Matched:
    """Pair actual with expected solutions as the spec's equality allows.

    >>> one = '"1"^^<http://www.w3.org/2001/XMLSchema#integer>'
    >>> same = '"1.0E0"^^<http://www.w3.org/2001/XMLSchema#double>'
    >>> match(Counter({(("v", one),): 1}), Counter({(("v", same),): 1}), "value").common
    1
    """
    if same(actual, expected):  # the identity pairs every solution: nothing can beat it
        return Matched(size(actual), (), ())
    if literal_equality != "value":
        lacking, extra = _differences(actual, expected)
        return Matched(size(actual) - len(extra), lacking, extra)
    if tolerance == 0:
        return _exact(actual, expected)
    common, actual, expected = _untouched(actual, expected, lambda sol: _signature(sol)[0])
    missing: list[Solution] = []
    unexpected: list[Solution] = []
    groups_a, groups_e = _by_signature(actual), _by_signature(expected)
    for signature in sorted(set(groups_a) | set(groups_e)):
        items_a, items_e = groups_a.get(signature, []), groups_e.get(signature, [])
        pairs = _pair(items_a, items_e, tolerance)
        common += len(pairs)
        used_a = {i for i, _ in pairs}
        used_e = {j for _, j in pairs}
        unexpected += [s for i, (_, s) in enumerate(items_a) if i not in used_a]
        missing += [s for j, (_, s) in enumerate(items_e) if j not in used_e]
    return Matched(common, tuple(sorted(missing)), tuple(sorted(unexpected)))


def _exact(actual: Counter[Solution], expected: Counter[Solution]) -> Matched:
    """Value equality without tolerance: values become keys (transitive)."""
    common, actual, expected = _untouched(actual, expected, _value_key)
    keys_a: dict[Solution, list[Solution]] = defaultdict(list)
    keys_e: dict[Solution, list[Solution]] = defaultdict(list)
    for items, keys in ((actual, keys_a), (expected, keys_e)):
        for sol in sorted(items):
            keys[_value_key(sol)].extend([sol] * items[sol])
    missing, unexpected = [], []
    for key in sorted(set(keys_a) | set(keys_e), key=repr):
        left, right = keys_a.get(key, []), keys_e.get(key, [])
        # Identical terms pair first, the rest in sorted order.
        shared = Counter(left) & Counter(right)
        rest_left = sorted((Counter(left) - shared).elements())
        rest_right = sorted((Counter(right) - shared).elements())
        n = min(len(rest_left), len(rest_right))
        common += size(shared) + n
        unexpected += rest_left[n:]
        missing += rest_right[n:]
    return Matched(common, tuple(sorted(missing)), tuple(sorted(unexpected)))


def equal(
    actual: Counter[Solution],
    expected: Counter[Solution],
    literal_equality: str = "term",
    tolerance: float = 0.0,
) -> bool:
    """Are the two bags equal under the spec's equality?"""
    if same(actual, expected):
        return True
    if literal_equality != "value" or size(actual) != size(expected):
        return False
    return match(actual, expected, literal_equality, tolerance).equal


def terms_match(left: str, right: str, literal_equality: str, tolerance: float) -> bool:
    """Do two terms match under the spec's equality?"""
    if left == right:
        return True
    if literal_equality != "value":
        return False
    a, b = _number(left), _number(right)
    if a is None or b is None:
        return False
    return _close(a, b, tolerance)


def _number(term: str) -> tuple[int, float] | None:
    number = numeric_value(term)
    if number is None:
        return None
    value = float(number)
    return _NAN if math.isnan(value) else (0, value + 0.0)  # + 0.0: -0.0 is 0.0


def _close(a: tuple[int, float], b: tuple[int, float], tolerance: float) -> bool:
    if a[0] or b[0]:
        return a == b
    return a[1] == b[1] or abs(a[1] - b[1]) <= tolerance


def _untouched(
    actual: Counter[Solution], expected: Counter[Solution], group: Callable[[Solution], Any]
) -> tuple[int, Counter[Solution], Counter[Solution]]:
    """Set aside the groups a difference does not touch.

    Solutions pair only within their ``group`` (same non-numeric terms, or
    same values). A group holding no solution of ``actual - expected`` or
    ``expected - actual`` has the same bag on both sides: the identity pairs
    all of it, which no matching beats, and the groups are independent. So
    only the touched groups need pairing (a whole one: inside a group,
    pairing identical solutions first can lose a pair under a tolerance,
    0.0 ~ 0.1 ~ 0.2 with 0.1). Returns the size of the rest and the bags of
    the touched groups.

    >>> xsd = "http://www.w3.org/2001/XMLSchema#"
    >>> one, two = f'"1"^^<{xsd}integer>', f'"2"^^<{xsd}integer>'
    >>> a = Counter({(("k", "<x>"), ("v", one)): 2, (("k", "<y>"), ("v", one)): 1})
    >>> e = Counter({(("k", "<x>"), ("v", one)): 2, (("k", "<y>"), ("v", two)): 1})
    >>> common, touched_a, touched_e = _untouched(a, e, lambda sol: _signature(sol)[0])
    >>> common, [dict(s)["k"] for s in touched_a], [dict(s)["k"] for s in touched_e]
    (2, ['<y>'], ['<y>'])
    """
    touched = {group(s) for s in differing(actual, expected)}
    # A member of a touched group has that group's non-numeric terms: one
    # of them per group sifts the solutions before their group is computed.
    anchors: set[tuple[str, str]] | None = set()
    for key in touched:
        pair = next((kv for kv in key if not kv[1].startswith(_NUMBER)), None)
        if pair is None or anchors is None:
            anchors = None  # numbers only: every solution may be a member
        else:
            anchors.add(pair)

    def kept(items: Counter[Solution]) -> Counter[Solution]:
        if anchors is None:
            return Counter({s: n for s, n in items.items() if group(s) in touched})
        return Counter(
            {s: n for s, n in items.items() if not anchors.isdisjoint(s) and group(s) in touched}
        )

    kept_a, kept_e = kept(actual), kept(expected)
    return size(actual) - size(kept_a), kept_a, kept_e


def _value_key(sol: Solution) -> Solution:
    memo = _REMEMBERED.get()
    if memo is not None and (known := memo.get(("value key", sol))) is not None:
        return known[1]
    key = tuple((k, v if (n := _number(v)) is None else f"{_NUMBER}:{n!r}") for k, v in sol)
    if memo is not None:
        memo[("value key", sol)] = (sol, key)
    return key


def _signature(sol: Solution) -> tuple[Solution, tuple[tuple[int, float], ...]]:
    """The solution with its numbers replaced by a mark, and the numbers."""
    memo = _REMEMBERED.get()
    if memo is not None and (known := memo.get(("signature", sol))) is not None:
        return known[1]
    signature = []
    numbers = []
    for k, v in sol:
        n = _number(v)
        signature.append((k, v if n is None else _NUMBER))
        if n is not None:
            numbers.append(n)
    found = (tuple(signature), tuple(numbers))
    if memo is not None:
        memo[("signature", sol)] = (sol, found)
    return found


Item = tuple[tuple[tuple[int, float], ...], Solution]


def _by_signature(items: Counter[Solution]) -> dict[Solution, list[Item]]:
    """Group solutions that can only differ in their numbers; expand counts."""
    groups: dict[Solution, list[Item]] = defaultdict(list)
    for sol in sorted(items):
        signature, numbers = _signature(sol)
        groups[signature].extend([(numbers, sol)] * items[sol])
    for members in groups.values():
        members.sort()
    return groups


def _pair(left: Sequence[Item], right: Sequence[Item], tolerance: float) -> list[tuple[int, int]]:
    """A maximum set of pairs (i, j) whose numbers all match; deterministic."""
    if not left or not right:
        return []
    if len(left[0][0]) == 1:
        return _pair_line(left, right, tolerance)
    return _pair_general(left, right, tolerance)


def _pair_line(
    left: Sequence[Item], right: Sequence[Item], tolerance: float
) -> list[tuple[int, int]]:
    """One number each: the sorted two-pointer sweep is a maximum matching.

    Both sides are sorted; a value that cannot pair with the smallest
    remaining value on the other side while being smaller than it cannot
    pair with anything later either, so skipping it loses nothing.
    """
    pairs = []
    i = j = 0
    while i < len(left) and j < len(right):
        a, b = left[i][0][0], right[j][0][0]
        if _close(a, b, tolerance):
            pairs.append((i, j))
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return pairs


def _pair_general(
    left: Sequence[Item], right: Sequence[Item], tolerance: float
) -> list[tuple[int, int]]:
    """Several numbers: augmenting paths (Kuhn's algorithm), iterative, in order."""
    edges = [
        [
            j
            for j, (nb, _) in enumerate(right)
            if all(_close(x, y, tolerance) for x, y in zip(na, nb, strict=True))
        ]
        for na, _ in left
    ]
    owner: dict[int, int] = {}
    for root in range(len(left)):
        _augment(root, edges, owner)
    return sorted((i, j) for j, i in owner.items())


def _augment(root: int, edges: list[list[int]], owner: dict[int, int]) -> None:
    """Find one augmenting path from ``root`` and flip it (depth-first)."""
    seen: set[int] = set()
    stack = [(root, iter(edges[root]))]
    path: list[tuple[int, int]] = []  # (left, right) taken on the way down
    while stack:
        i, candidates = stack[-1]
        for j in candidates:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner:
                for left, right in [*path, (i, j)]:
                    owner[right] = left
                return
            path.append((i, j))
            stack.append((owner[j], iter(edges[owner[j]])))
            break
        else:
            stack.pop()
            if path:
                path.pop()


SHOWN_CHARS = 200
KEPT_CHARS = 2000


def show(sol: Solution) -> str:
    """``{?s=<a>, ?v="1"}`` for messages; a long term is cut (:func:`clip`)."""
    return "{" + ", ".join(f"?{k}={clip(v, SHOWN_CHARS)}" for k, v in sol) + "}"


def clip(term: str, limit: int = KEPT_CHARS) -> str:
    """``term`` cut to about ``limit`` characters, saying how long it was.

    A failure text or a metrics file shows terms; one huge literal from an
    engine must not make them megabytes (the engine's raw output keeps it).

    >>> clip('"' + "x" * 300 + '"', 20)
    '"xxxxxxxxxxxxxxxxxx…[302 chars]'
    """
    if len(term) <= limit:
        return term
    return f"{term[: limit - 1]}…[{len(term)} chars]"
