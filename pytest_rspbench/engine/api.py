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
any thread. The harness, not the engine, stamps each result on arrival (the
``delay`` metric of docs/metrics.md is measured from there). Engines written in
other languages speak the same steps as JSON lines over stdin/stdout
(docs/engine-protocol.md); this module is the Python side of it.

This module deliberately holds no window arithmetic: engines must be written
independently of the oracle (two implementations catch each other's bugs).
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.rsp.outputs import Result
from pytest_rspbench.rsp.semantics import BOUNDS, R2S, REPORT_POLICIES, TICKS, Semantics
from pytest_rspbench.stream.model import Event

__all__ = [
    "BOUNDS",
    "R2S",
    "REPORT_POLICIES",
    "TICKS",
    "Emit",
    "Engine",
    "Registration",
    "Result",
    "Semantics",
    "Unsupported",
]


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


Emit = Callable[[Result], None]


class Unsupported(Exception):
    """The engine does not run this query: raised by ``open`` (or answered
    ``{"type": "unsupported", "reason": ...}`` over the protocol).

    The case is skipped with ``reason``, not failed: an engine declining a
    construct it lacks makes no mistake (docs/engine-protocol.md).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Engine(abc.ABC):
    """Base class for engines driven in-process."""

    name: str = "engine"
    version: str = "0"

    @abc.abstractmethod
    def open(self, registration: Registration, emit: Emit) -> None:
        """Register the query; keep ``emit`` to stream out results.

        Raise :class:`Unsupported` for a query the engine does not run."""

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
