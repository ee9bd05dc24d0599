"""The two output streams a verdict compares: the engine's and the oracle's.

An engine streams out relations (:class:`Result`), each stamped by the
harness on arrival (:class:`Received`); one replay's are an
:class:`ActualOutput`. The oracle computes, for every t0 class, the relations
an engine with the profile must stream out (:class:`ExpectedRelation`,
:class:`T0Class`, :class:`ExpectedOutput`; RSP-QL Def. 24-26). Both sides
are plain values here, below the engine and the oracle that produce them, so
the verdict judges them without knowing either implementation::

    engine/   --> ActualOutput   --+
                                   +--> verdict/
    oracle/   --> ExpectedOutput --+
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

_ERROR_LOCK = threading.Lock()


@dataclass(frozen=True)
class Result:
    """One relation an engine streamed out.

    Attributes:
        bindings: the solution mappings: variable name (no ``?``) to an RDF
            term in N-Triples form. A bag: duplicates are meaningful.
        time: the application time the engine says it evaluated at, if any.
        window: the ``(o, c)`` the engine says it reported, if any.
    """

    bindings: tuple[Mapping[str, str], ...]
    time: int | None = None
    window: tuple[int, int] | None = None


@dataclass(frozen=True)
class Received:
    """A result with its arrival: seconds since replay start, and the
    application time that corresponds to (None when replaying at max rate)."""

    result: Result
    arrival: float
    app_time: float | None


@dataclass(frozen=True)
class Sample:
    """One measurement of the engine's process tree.

    Attributes:
        elapsed: seconds since the first sample (the engine registered), on
            the monotonic clock.
        app_time: the application time (ms) that corresponds to, when
            replaying in real time; None at max rate or before the replay.
        rss: resident memory of the tree, in bytes.
        cpu: CPU % of the tree since the previous sample (100 = one core).
        threads: threads of all processes in the tree.
        processes: processes in the tree.
    """

    elapsed: float
    app_time: float | None
    rss: int
    cpu: float
    threads: int
    processes: int

    def get(self, key: str, default: Any = None) -> Any:
        """Mapping-style access for code written against dict samples;
        ``"t"`` and ``"time"`` mean ``elapsed`` (seconds)."""
        if key in ("t", "time"):
            return self.elapsed
        return getattr(self, key, default)


def peak_rss(samples: Sequence[Sample]) -> int | None:
    """Largest RSS seen, in bytes; None without samples."""
    return max((s.rss for s in samples), default=None)


def mean_cpu(samples: Sequence[Sample | Mapping[str, Any]]) -> float | None:
    """CPU % of the whole run: each sample's CPU % (after the first, which
    covers no interval) weighted by its interval, i.e. CPU time over wall
    time (100 = one core). Samples without increasing ``elapsed`` count alike.

    >>> a, b, c = ({"elapsed": t, "cpu": u} for t, u in ((0, 0), (1.0, 50), (1.01, 300)))
    >>> round(mean_cpu([a, b, c]), 1)
    52.5
    """

    def get(sample: Sample | Mapping[str, Any], name: str) -> Any:
        return sample.get(name) if isinstance(sample, Mapping) else getattr(sample, name, None)

    pairs = [(a, b) for a, b in itertools.pairwise(samples) if get(b, "cpu") is not None]
    if not pairs:
        return None
    walls = [float(get(b, "elapsed") or 0.0) - float(get(a, "elapsed") or 0.0) for a, b in pairs]
    if all(w > 0 for w in walls):
        used = sum(float(get(b, "cpu")) * w for (_, b), w in zip(pairs, walls, strict=True))
        return used / sum(walls)
    return sum(float(get(b, "cpu")) for _, b in pairs) / len(pairs)


@dataclass
class ActualOutput:
    """Everything an engine did during one run.

    Attributes:
        samples: CPU/RSS/thread samples of the engine's process tree.
        faults: problems that did not stop the run (bad output lines).
        lateness: seconds each event was sent after its scheduled time (a
            uniform sample of at most 100,000 events; real-time replay only).
        unsupported: the engine's reason when it declined the query at
            registration (docs/engine-protocol.md): the case is skipped.
        in_process: the engine ran in the harness's process, so ``samples``
            measure the harness (pytest, the engine and the oracle's threads).
    """

    engine: str
    received: list[Received] = field(default_factory=list)
    events_sent: int = 0
    triples_sent: int = 0
    seconds: float = 0.0
    error: str | None = None
    samples: list[Sample] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    unsupported: str | None = None
    in_process: bool = False

    def fail(self, message: str) -> bool:
        """Record ``message`` as the error unless one is recorded; True if it was."""
        with _ERROR_LOCK:
            if self.error is not None:
                return False
            self.error = message
            return True

    @property
    def peak_rss(self) -> int | None:
        """Largest resident memory of the engine's process tree, in bytes."""
        return peak_rss(self.samples)

    @property
    def mean_cpu(self) -> float | None:
        """Mean CPU % of the engine's process tree (100 = one core)."""
        return mean_cpu(self.samples)


def regrouped(received: Sequence[Received], unit: int) -> list[Received]:
    """Consecutive results stamped within one time unit, as one relation.

    An engine with a coarser clock (``time_unit`` ms) that emits bindings one
    by one (CSRBench's engines did) stamps one relation's bindings with
    times in one unit. With ``unit`` 1 nothing changes. Only a profile that
    asks for it (the recorded adapter's ``regroup: true``) is regrouped: the
    verdict judges, and the oracle narrows its t0 classes by, the output so
    regrouped; other engines' relations stay as they were sent.

    >>> def r(t, x):
    ...     return Received(Result(({"x": x},), t), 0.0, None)
    >>> [(g.result.time, len(g.result.bindings))
    ...  for g in regrouped([r(1000, "<a>"), r(1400, "<b>"), r(2000, "<c>")], 1000)]
    [(1000, 2), (2000, 1)]
    """
    if unit <= 1:
        return list(received)
    out: list[Received] = []
    for item in received:
        time = item.result.time
        last = out[-1].result if out else None
        if (
            last is not None
            and time is not None
            and last.time is not None
            and last.time // unit == time // unit
        ):
            merged = Result(last.bindings + item.result.bindings, last.time, last.window)
            out[-1] = replace(out[-1], result=merged)
        else:
            out.append(item)
    return out


@dataclass(frozen=True)
class ExpectedRelation:
    """One evaluation an engine with the profile must report.

    Attributes:
        index: the window's index ``i`` (window ``i`` starts at ``t0 + i*slide``).
        time: evaluation time (application time, ms).
        window: ``(o, c)`` of the evaluated window.
        bindings: the relation streamed out (after R2S): a bag, in a fixed
            order; a tuple of mappings, or the oracle's columns read as one
            (:class:`pytest_rspbench.oracle.store.columns.ColumnBindings`).
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
