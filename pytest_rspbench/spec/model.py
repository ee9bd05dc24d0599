"""Frozen dataclasses a spec is validated into; nothing reads raw YAML later."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.spec.thresholds import Threshold
from pytest_rspbench.stream.workloads import Disorder


@dataclass(frozen=True)
class StreamDecl:
    """One input stream: its IRI, where its events come from and, with
    ``disorder``, how they reach the engine out of order."""

    iri: str
    source: Mapping[str, Any]
    start: int = 0
    end: int | None = None
    disorder: Disorder | None = None


STRICT_MODES = ("strict", "containment")
"""The comparison modes that ask for an equal output (the rest is graded):
the verdict judges them, and the oracle narrows its t0 classes for them."""


@dataclass(frozen=True)
class Comparison:
    """How actual output is compared with expected output.

    Attributes:
        mode: "strict" (equal to some t0 class's output), "containment" (a
            contiguous part of it, CSRBench) or "graded" (thresholds only).
        alignment: how actual results are aligned to expected relations for
            the per-window metrics: "auto", "window", "time", "arrival" or
            "position" (see :mod:`pytest_rspbench.verdict.alignment`).
        arrival_tolerance: for "arrival": the latest a result may arrive
            after its evaluation (ms); None: no limit.
        gracious_shift: YABench's gracious mode: how far (ms) window borders
            may be shifted to explain a result; None: off.
    """

    mode: str = "strict"
    literal_equality: str = "term"
    tolerance: float = 0.0
    alignment: str = "auto"
    arrival_tolerance: int | None = None
    gracious_shift: int | None = None

    def __post_init__(self) -> None:
        if self.tolerance < 0:
            raise ValueError(f"tolerance must not be negative, got {self.tolerance}")
        if self.gracious_shift is not None and self.gracious_shift < 0:
            raise ValueError(f"gracious max_shift must not be negative, got {self.gracious_shift}")

    @property
    def exact(self) -> bool:
        """Does the mode ask for an equal output (:data:`STRICT_MODES`)?

        >>> Comparison("containment").exact, Comparison("graded").exact
        (True, False)
        """
        return self.mode in STRICT_MODES


@dataclass(frozen=True)
class KnownFailure:
    """A known departure of an engine from a spec: a strict expected failure.

    Attributes:
        engine: the engine's profile name, or a glob (``faulty-*``).
        reason: why it fails, shown in the report.
        params: only cases with these matrix values (empty: every case).
        departures: the departure classes it names (``lost-window``, ...,
            :mod:`pytest_rspbench.rsp.departures`); an item that also shows
            another one fails. Empty: any failure is expected (a whole-spec
            reason, which ``rspbench validate`` warns about).
        windows: only at these windows ``(o, c)`` (empty: at any window).
        intermittent: the engine shows it on some runs only (a race inside
            the engine): a run without it passes as XPASS, not as a failure.
    """

    engine: str
    reason: str
    params: tuple[tuple[str, Any], ...] = ()
    departures: tuple[str, ...] = ()
    windows: tuple[tuple[int, int], ...] = ()
    intermittent: bool = False

    def matches(self, engine_name: str, params: Mapping[str, Any]) -> bool:
        """True for ``engine_name`` and a case with these matrix values."""
        from fnmatch import fnmatchcase

        if not fnmatchcase(engine_name, self.engine):
            return False
        return all(k in params and str(params[k]) == str(v) for k, v in self.params)

    def unknown(self, found: Iterable[Any]) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
        """What of ``found`` (departures: ``.name`` and ``.windows``) this entry
        does not declare, as ``(name, windows)``; nothing when it names none.

        >>> from types import SimpleNamespace as D
        >>> known = KnownFailure("rspjs", "D2", departures=("missing-final-window",))
        >>> known.unknown([D(name="missing-final-window", windows=((8, 12),)),
        ...                D(name="lost-window", windows=((2, 6),))])
        [('lost-window', ((2, 6),))]
        """
        if not self.departures:
            return []
        out = []
        for departure in found:
            windows = tuple(tuple(w) for w in departure.windows)
            if departure.name not in self.departures:
                out.append((departure.name, windows))
            elif self.windows and windows:
                extra = tuple(w for w in windows if w not in self.windows)
                if extra:
                    out.append((departure.name, extra))
        return out


@dataclass(frozen=True)
class Mismatch:
    """The ``mismatch:`` key: compare the engines' outputs (LSBench §3.3).

    Attributes:
        partition: "auto" (each engine's report policy: content-change is
            eager, the others periodical), "periodical" or "eager".
        epsilon: comparability tolerance: every pair must have a mismatch
            of at most this (a ratio, 0.05 = 5%); None: not checked.
    """

    partition: str = "auto"
    epsilon: float | None = None


@dataclass(frozen=True)
class Sweep:
    """The ``sweep:`` key: correctness against load over one matrix parameter.

    Attributes:
        over: the matrix parameter that sets the load (e.g. ``speed`` used
            as ``replay.speed: ${speed}``, or a generator's ``stations``).
        at_least: the sweep item fails when the highest comparable value of
            an engine is below this; None: it only reports.
    """

    over: str
    at_least: float | None = None


@dataclass(frozen=True)
class Case:
    """One combination of matrix values with one engine: one pytest item.

    Attributes:
        case_id: readable id such as ``range=10000,step=10000,engine=reference``.
        params: the matrix values of this case, in matrix order.
    """

    spec_name: str
    spec_path: Path
    case_id: str
    params: tuple[tuple[str, Any], ...]
    engine: str
    query: RspqlQuery
    streams: tuple[StreamDecl, ...]
    static: tuple[Path, ...]
    semantics: Mapping[str, Any]
    speed: float
    timeout: float
    comparison: Comparison
    thresholds: tuple[Threshold, ...]
    mostly: float
    warmup_windows: int
    marks: tuple[str, ...]
    line: int
    mismatch: Mismatch | None = None
    sweep: Sweep | None = None
    engine_id: str = ""
    known_failures: tuple[KnownFailure, ...] = ()
    repeat: int = 1

    @property
    def base_dir(self) -> Path:
        return self.spec_path.parent

    def params_without(self, name: str | None = None) -> tuple[tuple[str, Any], ...]:
        """The matrix values except ``name``: what cases of one group share."""
        return tuple((k, v) for k, v in self.params if k != name)


@dataclass(frozen=True)
class Spec:
    """A validated spec file and the cases it expands to."""

    name: str
    path: Path
    description: str
    cases: tuple[Case, ...] = field(default=())


def param_text(value: Any) -> str:
    """A matrix value as written in YAML (and SPARQL, and ids): ``true``, not ``True``.

    >>> param_text(True), param_text(80.0), param_text("fast")
    ('true', '80.0', 'fast')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
