"""Bags of solution mappings, compared the way the spec asks.

A solution mapping is stored as a sorted tuple of ``(variable, term)`` pairs
so it can be counted in a :class:`collections.Counter` (a bag). Relations
compare as bags (CSRBench, RSP-QL Def. 20-22); terms compare by RDF term
equality, or numeric literals by value (``literal_equality: value``) because
engines retype literals (C-SPARQL turned xsd:double into xsd:integer).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from pytest_rspbench.terms import numeric_value

Solution = tuple[tuple[str, str], ...]
Bag = Counter  # Counter[Solution]


def solution(binding: Mapping[str, str]) -> Solution:
    """A hashable solution mapping (unbound variables are simply absent)."""
    return tuple(sorted((k, v) for k, v in binding.items() if v is not None))


def bag(bindings: Iterable[Mapping[str, str]]) -> Counter[Solution]:
    """A bag of solution mappings."""
    return Counter(solution(b) for b in bindings)


def normalise(items: Counter[Solution], literal_equality: str, tolerance: float) -> Counter[Solution]:
    """Rewrite numeric literals to their value when comparing by value.

    Values are rounded to the tolerance grid so that equal-within-tolerance
    aggregates land on the same key (tolerance 0 compares exact values).
    """
    if literal_equality != "value":
        return items
    out: Counter[Solution] = Counter()
    for sol, count in items.items():
        out[tuple((k, _by_value(v, tolerance)) for k, v in sol)] += count
    return out


def _by_value(term: str, tolerance: float) -> str:
    number = numeric_value(term)
    if number is None:
        return term
    value = float(number)
    if tolerance > 0:
        value = round(value / tolerance) * tolerance
    return f"#num:{value!r}"


def show(sol: Solution) -> str:
    """``{?s=<a>, ?v="1"}`` for messages."""
    return "{" + ", ".join(f"?{k}={v}" for k, v in sol) + "}"
