"""Turning each evaluation's answer into emitted results (the R2S step).

The previous answer is the one of the previous *evaluation* (the previous
instant of ET, RSP-QL Def. 21-22), so evaluations skipped by the
non-empty-content policy do not reset it. Whether an empty relation is
emitted is the engine's empty-relation notification (CSRBench §3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_rspbench.engine.api import Emit, Result

from .relation import stream_out


class Reporter:
    """Applies the R2S operator and emits :class:`Result` objects."""

    def __init__(
        self,
        operator: str,
        emit: Emit,
        *,
        empty_relations: bool,
        reports_window: bool,
    ) -> None:
        self._operator = operator
        self._emit = emit
        self._empty_relations = empty_relations
        self._reports_window = reports_window
        self._previous: Sequence[Mapping[str, str]] = ()

    def report(
        self, time: int, window: tuple[int, int] | None, answer: Sequence[Mapping[str, str]]
    ) -> None:
        """Stream out what the R2S operator makes of ``answer`` at ``time``."""
        relation = stream_out(self._operator, self._previous, answer)
        self._previous = tuple(answer)
        if not relation and not self._empty_relations:
            return
        self._emit(
            Result(
                bindings=tuple(relation),
                time=time,
                window=window if self._reports_window else None,
            )
        )
