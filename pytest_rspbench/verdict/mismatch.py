"""Mismatch between two engines' outputs (LSBench §3.3) and comparability.

LSBench measures how much of engine E1's output engine E2 does not produce,
tolerating duplicates and following the order of the outputs. E1's output
``a_1 .. a_n1`` is cut into blocks ``A_1 .. A_m`` (an *output partition*):

- *periodical*: one block per execution (here: per relation streamed out);
- *eager*: one block per output element (here: per solution).

A block is compared with a *slice* of E2's output from position ``j`` on.
``T_i`` keeps the elements of ``A_i`` found in the slice (the *maximal
remainder*); the next slice starts at the smallest position where an element
of ``T_i`` was found (or stays at ``j`` when ``T_i`` is empty)::

    T_1 = A_1 ∩ O_E2[1],   T_i = A_i ∩ O_E2[match(T_(i-1))]

    mm(E1, E2) = Σ (|A_i| - |T_i|) / Σ |A_i|          (a ratio; LSBench: %)

Positions in E2's output are its relations: the solutions of one relation
are emitted together and have no order among themselves, so they share one
position (LSBench's engines emitted tuples one by one). In the eager
partition the solutions of one relation of E1 are taken in sorted order so
that the number does not depend on an engine's hash order. An empty output
of E1 has mismatch 0 (there is nothing E2 could miss). Elements compare with
the spec's equality (``literal_equality``, ``tolerance``).

Engines are *comparable* with tolerance epsilon, ``comp(E, Q, R, epsilon)``,
when every ordered pair has ``mm(E1, E2) <= epsilon``.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.rsp.bags import Solution, solution, terms_match
from pytest_rspbench.rsp.semantics import Semantics

PARTITIONS = ("periodical", "eager")

Relations = Sequence[Sequence[Mapping[str, str]]]  # an output: relations of bindings


@dataclass(frozen=True)
class Matrix:
    """Pairwise mismatches; ``values[(a, b)]`` is mm(a, b)."""

    engines: tuple[str, ...]
    values: Mapping[tuple[str, str], float]
    partitions: Mapping[str, str]

    def comparable(self, epsilon: float) -> bool:
        """LSBench's comp(E, Q, R, epsilon): every pair within epsilon."""
        return all(v <= epsilon + 1e-12 for v in self.values.values())

    def worst(self) -> tuple[tuple[str, str], float] | None:
        if not self.values:
            return None
        return max(sorted(self.values.items()), key=lambda kv: kv[1])


def partition_of(semantics: Semantics, requested: str = "auto") -> str:
    """The output partition of an engine: eager for content-change engines
    (they evaluate as data arrives), periodical for the others."""
    if requested != "auto":
        return requested
    return "eager" if "content-change" in semantics.report else "periodical"


def blocks(output: Relations, kind: str) -> list[list[Solution]]:
    """E1's output cut into blocks.

    >>> blocks([[{"x": "b"}, {"x": "a"}], []], "eager")
    [[(('x', 'a'),)], [(('x', 'b'),)]]
    """
    relations = [sorted(solution(b) for b in relation) for relation in output]
    if kind == "periodical":
        return [r for r in relations if r]
    return [[s] for r in relations for s in r]


def mismatch(
    first: Relations,
    second: Relations,
    kind: str = "periodical",
    literal_equality: str = "term",
    tolerance: float = 0.0,
) -> float:
    """mm(E1, E2): the share of E1's output that E2 does not produce (0..1).

    >>> a, b, c = {"x": "a"}, {"x": "b"}, {"x": "c"}
    >>> # a is found at position 1; b only before it; c after.
    >>> mismatch([[a], [b], [c]], [[b], [a], [c]], "eager")
    0.3333333333333333
    """
    parts = blocks(first, kind)
    total = sum(len(p) for p in parts)
    if total == 0:
        return 0.0
    find = _finder(second, literal_equality, tolerance)
    start = 0
    kept = 0
    for part in parts:
        found = [p for p in (find(a, start) for a in part) if p is not None]
        kept += len(found)
        if found:
            start = min(found)
    return (total - kept) / total


def matrix(
    outputs: Mapping[str, Relations],
    partitions: Mapping[str, str],
    literal_equality: str = "term",
    tolerance: float = 0.0,
) -> Matrix:
    """mm for every ordered pair of engines, in the order given."""
    names = tuple(outputs)
    values = {
        (a, b): mismatch(outputs[a], outputs[b], partitions[a], literal_equality, tolerance)
        for a in names
        for b in names
        if a != b
    }
    return Matrix(names, values, dict(partitions))


def _finder(
    output: Relations, literal_equality: str, tolerance: float
) -> Callable[[Solution, int], int | None]:
    """``find(a, j)``: the smallest position >= j of an element equal to ``a``."""
    positions: dict[Solution, list[int]] = defaultdict(list)
    for k, relation in enumerate(output):
        for sol in sorted({solution(b) for b in relation}):
            positions[sol].append(k)
    cache: dict[Solution, list[int]] = {}

    def where(a: Solution) -> list[int]:
        if a not in cache:
            if literal_equality == "value":
                hits = sorted(
                    {
                        k
                        for sol, ks in positions.items()
                        if _same(a, sol, literal_equality, tolerance)
                        for k in ks
                    }
                )
            else:
                hits = positions.get(a, [])
            cache[a] = hits
        return cache[a]

    def find(a: Solution, start: int) -> int | None:
        hits = where(a)
        at = bisect.bisect_left(hits, start)
        return hits[at] if at < len(hits) else None

    return find


def _same(a: Solution, b: Solution, literal_equality: str, tolerance: float) -> bool:
    if len(a) != len(b):
        return False
    return all(
        ka == kb and terms_match(va, vb, literal_equality, tolerance)
        for (ka, va), (kb, vb) in zip(a, b, strict=True)
    )


def table(m: Matrix) -> str:
    """The matrix as fixed-width text: row E1, column E2, cell mm(E1, E2)."""
    width = max([len(e) for e in m.engines] + [8])
    head = f"{'mm(row, column)':<{width}} " + " ".join(f"{e:>{width}}" for e in m.engines)
    lines = [head, "-" * len(head)]
    for a in m.engines:
        cells = ["-" if a == b else f"{m.values[(a, b)]:.2%}" for b in m.engines]
        lines.append(
            f"{a:<{width}} " + " ".join(f"{c:>{width}}" for c in cells) + f"   ({m.partitions[a]})"
        )
    return "\n".join(lines)
