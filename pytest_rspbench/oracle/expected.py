"""The oracle's output: expected relations per t0 class."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ExpectedRelation:
    """One evaluation an engine with the profile must report.

    Attributes:
        index: the window's index ``i`` (window ``i`` starts at ``t0 + i*slide``).
        time: evaluation time (application time, ms).
        window: ``(o, c)`` of the evaluated window.
        bindings: the relation streamed out (after R2S): a bag, in a fixed
            order; a tuple of mappings, or the compiled plan's columns read
            as one (:class:`.columns.ColumnBindings`).
        triples: number of distinct input triples in the window.
    """

    index: int
    time: int
    window: tuple[int, int]
    bindings: Sequence[Mapping[str, str]]
    triples: int


@dataclass(frozen=True)
class T0Class:
    """Candidate starts ``t0`` in ``[first, last]`` that give one output."""

    first: int
    last: int
    relations: tuple[ExpectedRelation, ...]

    @property
    def label(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}..{self.last}"


@dataclass(frozen=True)
class ExpectedOutput:
    """What the oracle computed for one case.

    Attributes:
        classes: one entry per t0 class (a single one when the profile fixes t0).
        stable_from: ``t_s`` of RSP-QL Def. 26: comparison starts here.
        evaluator: "spark-dataframe" (compiled plan) or "spark-pyoxigraph"
            (per-window fallback), shown in the report.
        fallback_reason: why the compiled plan was not used, if it was not.
        seconds: wall time of the oracle job (without Spark start); for a
            stored output, the time it took when it was computed.
        stored: read back from the oracle's store instead of computed
            (:mod:`pytest_rspbench.oracle.store.outputs`).
        t0_classes: how many t0 classes the case has; more than
            ``len(classes)`` when they were narrowed.
        narrowing: how the classes were narrowed to those computed
            (:mod:`pytest_rspbench.oracle.t0.narrowing`); empty if they were not.
    """

    classes: tuple[T0Class, ...]
    stable_from: int
    evaluator: str
    fallback_reason: str = ""
    seconds: float = 0.0
    stored: bool = False
    t0_classes: int = 0
    narrowing: str = ""

    @property
    def total_classes(self) -> int:
        """The number of t0 classes, computed or not."""
        return max(self.t0_classes, len(self.classes))
