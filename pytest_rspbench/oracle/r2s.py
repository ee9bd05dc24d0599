"""R2S on the oracle's own columns: per-window relations to the output stream.

The report policy and the R2S operators are decided in one place,
:mod:`pytest_rspbench.rsp.policy`, which the verdict reads too. Here they are
applied to the oracle's evaluations, whose bindings may be the compiled
plan's Arrow columns (:class:`.columns.ColumnBindings`): an RStream relation
of complete columns comes sorted already and is kept as it is, never read
into mappings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_rspbench.oracle.store.columns import ColumnBindings
from pytest_rspbench.rsp import policy
from pytest_rspbench.rsp.outputs import ExpectedRelation
from pytest_rspbench.rsp.semantics import Semantics


def stream_out(
    evaluations: Sequence[policy.Evaluated], r2s: str, semantics: Semantics
) -> tuple[ExpectedRelation, ...]:
    """Apply R2S to evaluations, in time order (already filtered by policy).

    Each evaluation is ``(window index, time, o, c, triples, bindings)``
    (:func:`pytest_rspbench.rsp.policy.stream_out`).
    """
    return policy.stream_out(evaluations, r2s, semantics, ordered=_sorted)


def _sorted(bindings: Sequence[Mapping[str, str]]) -> Sequence[Mapping[str, str]] | None:
    """The bindings sorted as their solutions sort (:func:`.policy.sorted_rows`);
    the compiled plan's columns come sorted so (:func:`.solutions._collected`),
    and are kept as they are when every solution binds every variable."""
    if isinstance(bindings, ColumnBindings):
        return bindings if bindings.complete else None
    return policy.sorted_rows(bindings)
