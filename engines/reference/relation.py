"""R2S operators over bags of solution mappings (CQL; RSP-QL Def. 20-22).

RStream streams out the whole answer of each evaluation; IStream what is in
the new answer but not in the previous one; DStream the opposite. Answers
are bags, so the differences count multiplicities (CQL's ``R(t) - R(t-1)``
on multisets): a mapping twice in the new answer and once in the previous
one is streamed out once by IStream.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

Bindings = Sequence[Mapping[str, str]]


def bag_difference(minuend: Bindings, subtrahend: Bindings) -> list[Mapping[str, str]]:
    """``minuend - subtrahend`` on bags, in the order of ``minuend``.

    >>> a, b = {"x": "<a>"}, {"x": "<b>"}
    >>> bag_difference([a, a, b], [a])
    [{'x': '<a>'}, {'x': '<b>'}]
    """
    budget = Counter(_key(m) for m in minuend) - Counter(_key(m) for m in subtrahend)
    kept = []
    for mapping in minuend:
        key = _key(mapping)
        if budget[key] > 0:
            budget[key] -= 1
            kept.append(mapping)
    return kept


def stream_out(operator: str, previous: Bindings, current: Bindings) -> list[Mapping[str, str]]:
    """What ``operator`` streams out at an evaluation (Def. 20, 21, 22).

    >>> a, b = {"x": "<a>"}, {"x": "<b>"}
    >>> stream_out("IStream", [a], [a, b]), stream_out("DStream", [a], [b])
    ([{'x': '<b>'}], [{'x': '<a>'}])
    """
    if operator == "RStream":
        return list(current)
    if operator == "IStream":
        return bag_difference(current, previous)
    if operator == "DStream":
        return bag_difference(previous, current)
    raise ValueError(f"unknown R2S operator {operator!r}")


def _key(mapping: Mapping[str, str]) -> Hashable:
    return frozenset(mapping.items())
