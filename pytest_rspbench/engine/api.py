"""The in-process engine adapter API.

An engine under test is driven through four calls, in this order::

    engine.open(registration, emit)      # register the query and its streams
    engine.push(stream_iri, event) ...   # events, in application-time order
    engine.end(end_time)                 # the stream is over at end_time
    engine.close()                       # always called, even after a failure

Optional hooks (``abort``, ``flush``, ``pid``, ``faults``, ``diagnostics``)
let the harness stop, feed, sample and explain engines that run elsewhere;
in-process engines can ignore them.

The engine calls ``emit(result)`` whenever it streams out a relation, from
any thread. The harness, not the engine, stamps each result on arrival
(DESIGN §4). Engines written in other languages speak the same steps as JSON
lines over stdin/stdout (docs/engine-protocol.md); this module is the Python
side of it.

This module deliberately holds no window arithmetic: engines must be written
independently of the oracle (two implementations catch each other's bugs).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.stream.model import Event

BOUNDS = ("(o,c]", "[o,c)", "[o,c]")
REPORT_POLICIES = ("window-close", "non-empty-content", "content-change", "periodic")
TICKS = ("time-driven", "tuple-driven", "graph-driven")
R2S = ("RStream", "IStream", "DStream")


@dataclass(frozen=True)
class Semantics:
    """An engine's declared operational semantics (CSRBench Table 1).

    Attributes:
        bounds: window bounds convention: "(o,c]", "[o,c)" or "[o,c]".
        t0: how the engine picks the start of its first window: "any"
            (unknown: the oracle tries every candidate), "registration" (the
            registration time), "first-event" (the first event's time),
            "aligned" (per window, the start whose windows close at multiples
            of the slide from time 0: ``t0 = -width mod slide``), or a fixed
            integer time in ms.
        report: report policies, combined (SECRET), e.g.
            ("window-close", "non-empty-content").
        tick: "time-driven", "tuple-driven" or "graph-driven".
        r2s: the R2S operators the engine supports.
        empty_relations: whether the engine emits empty relations.
        time_unit: the engine's time resolution in ms.
        reports_window: whether the window an engine says it reported can be
            trusted for aligning results to windows.
        active_window: for content-change and periodic reports, which open
            window the query sees: "present" (RSP-QL: the most recently
            opened one) or "earliest" (SECRET: the earliest open one).
        period: the period in ms of the "periodic" report policy.
        lateness: how late (ms of application time) an event may arrive and
            still be placed in its windows; the engine holds windows open
            that long. 0: events must arrive in time order.
    """

    bounds: str = "(o,c]"
    t0: str | int = "any"
    report: tuple[str, ...] = ("window-close", "non-empty-content")
    tick: str = "time-driven"
    r2s: tuple[str, ...] = ("RStream",)
    empty_relations: bool = False
    time_unit: int = 1
    reports_window: bool = False
    active_window: str = "present"
    period: int | None = None
    lateness: int = 0

    def __post_init__(self) -> None:
        if self.bounds not in BOUNDS:
            raise ValueError(f"bounds must be one of {BOUNDS}, got {self.bounds!r}")
        for policy in self.report:
            if policy not in REPORT_POLICIES:
                raise ValueError(f"unknown report policy {policy!r}")
        if self.active_window not in ("present", "earliest"):
            raise ValueError(
                f"active_window must be present or earliest, got {self.active_window!r}"
            )
        if "periodic" in self.report and not self.period:
            raise ValueError("the periodic report policy needs a period (ms)")
        if self.tick not in TICKS:
            raise ValueError(f"tick must be one of {TICKS}, got {self.tick!r}")

    @property
    def reports_empty(self) -> bool:
        """Does the engine report windows whose content is empty?"""
        return "non-empty-content" not in self.report


@dataclass(frozen=True)
class Registration:
    """What an engine is asked to run.

    Attributes:
        query: the continuous query in RSP-QL syntax.
        streams: IRIs of the input streams (without angle brackets).
        start: the registration time ``a`` in application time (ms).
        semantics: the profile the engine runs under; engines that can be
            configured (the in-repo reference engine) follow it, real engines
            ignore it.
        static: RDF files holding static background data.
    """

    query: str
    streams: tuple[str, ...]
    start: int
    semantics: Semantics = field(default_factory=Semantics)
    static: tuple[Path, ...] = ()


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


Emit = Callable[[Result], None]


class Engine(abc.ABC):
    """Base class for engines driven in-process."""

    name: str = "engine"
    version: str = "0"

    @abc.abstractmethod
    def open(self, registration: Registration, emit: Emit) -> None:
        """Register the query; keep ``emit`` to stream out results."""

    @abc.abstractmethod
    def push(self, stream: str, event: Event) -> None:
        """Receive one event of ``stream`` (events arrive in time order)."""

    @abc.abstractmethod
    def end(self, end_time: int) -> None:
        """The input is over: application time has reached ``end_time``."""

    def close(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Release resources; called even when the run failed."""

    # Optional supervision hooks. In-process engines can ignore them; engines
    # that run elsewhere (a process, a file) use them so the harness can stop
    # them, sample them and explain their faults.

    def abort(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Stop now, from another thread: the run timed out.

        Must make a blocked ``push``/``end`` return or raise soon.
        """

    def flush(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """The harness is about to wait for the next event: deliver buffered input."""

    def pid(self) -> int | None:
        """The root process to sample for CPU and memory; None: in-process."""
        return None

    def faults(self) -> tuple[str, ...]:
        """Faults seen so far that did not stop the run (bad output lines)."""
        return ()

    def diagnostics(self) -> str:
        """Text that explains a failure, e.g. the tail of the engine's stderr."""
        return ""
