"""Report policy and R2S: from per-window relations to the output stream.

SECRET's report policies decide *when* the query is evaluated; CQL's R2S
operators (RSP-QL Def. 20-22) decide *what* is streamed out:

- RStream: the whole relation at each evaluation;
- IStream: what is new since the previous evaluation (bag difference);
- DStream: what disappeared since the previous evaluation.

With empty-relation notification off, empty relations are not streamed out
(but still count as "the previous evaluation").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from operator import itemgetter

from pytest_rspbench.oracle.expected import ExpectedRelation
from pytest_rspbench.oracle.store.columns import ColumnBindings
from pytest_rspbench.rsp.bags import Solution, solution
from pytest_rspbench.rsp.semantics import Semantics


def stream_out(
    evaluations: Sequence[tuple[int, int, int, int, int, Sequence[Mapping[str, str]]]],
    r2s: str,
    semantics: Semantics,
) -> tuple[ExpectedRelation, ...]:
    """Apply R2S to evaluations, in time order (already filtered by policy).

    Each evaluation is ``(window index, time, o, c, triples, bindings)``.
    """
    out = []
    previous: Counter[Solution] = Counter()
    before: dict[Solution, Mapping[str, str]] = {}
    for index, time, o, c, triples, bindings in evaluations:
        if r2s == "RStream" and (rows := _sorted(bindings)) is not None:
            # The whole relation, in the order the general path gives it,
            # without a bag of it (the general path took 15-20 s of 96 s for
            # a self-join's 3 million solutions; this one 3.6 s).
            if rows or semantics.empty_relations:
                out.append(ExpectedRelation(index, time, (o, c), rows, triples))
            previous, before = Counter(), {}  # RStream reads neither
            continue
        # Each solution streamed out is one of the evaluations' own mappings
        # where it can be (a plain dict with no unbound value), not a copy:
        # the output then shares the solutions the job collected (DStream's
        # come from the previous evaluation).
        held: dict[Solution, Mapping[str, str]] = {}
        current: Counter[Solution] = Counter()
        for b in bindings:
            key = solution(b)
            current[key] += 1
            if key not in held and type(b) is dict and None not in b.values():
                held[key] = b
        if r2s == "IStream":
            emitted = current - previous
        elif r2s == "DStream":
            emitted = previous - current
        else:
            emitted = current
        source = before if r2s == "DStream" else held
        previous, before = current, held
        if not emitted and not semantics.empty_relations:
            continue
        rows = tuple(source.get(sol) or dict(sol) for sol in sorted(emitted.elements()))
        out.append(ExpectedRelation(index, time, (o, c), rows, triples))
    return tuple(out)


def _sorted(bindings: Sequence[Mapping[str, str]]) -> Sequence[Mapping[str, str]] | None:
    """The bindings sorted as their solutions sort, when each is a plain dict
    binding the same variables; else None. The compiled plan's columns come
    sorted so (:func:`.solutions._collected`), and are kept as they are when
    every solution binds every variable.

    Their solutions then pair the same variables in the same order, so
    comparing the values in that order compares the solutions.
    """
    if isinstance(bindings, ColumnBindings):
        return bindings if bindings.complete else None
    if not bindings or type(bindings[0]) is not dict or not bindings[0]:
        return None if bindings else ()
    names = sorted(bindings[0])
    same = bindings[0].keys()
    for b in bindings:
        if type(b) is not dict or b.keys() != same or None in b.values():
            return None
    return tuple(sorted(bindings, key=itemgetter(*names)))
