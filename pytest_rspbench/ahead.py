"""Expected outputs computed ahead, while engines replay (``--rspbench-oracle-ahead``).

An engine replays its stream in stream time: a 15 s stream takes 15 s
whatever the machine does, and the oracle needs nothing from the engine
unless the query has so many t0 classes that the engine's output narrows
them (:func:`pytest_rspbench.oracle.oracle.ahead`). So a pytest session
computes each item's expected output in background threads, from the moment
the item or the one before it starts, and the item takes it once its engine
is done: an item costs about the longer of its replay and its oracle, not
their sum.

Each thread has its own Spark session (``newSession()``: the same JVM, its
own SQL settings, which the oracle changes for small inputs), so two
computations run side by side and use both cores of a small machine.

CPU taken by the oracle is taken from the engine under test. A spec that
judges delay, memory or CPU (``delay``, ``peak_rss``, ``mean_cpu``
thresholds), a load sweep or a repeated run replays with the background
work paused: computations under way finish first, none starts until the
replay ends. The item's report says which of the two it replayed under (an
item whose own oracle needs its output still replays alongside the next
item's computation).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Any

from pytest_rspbench.report.load import MACHINE_METRICS
from pytest_rspbench.spec.model import Case

DURING = "replayed with the oracle running in the background"
PAUSED = "replayed with the background oracle paused (the spec judges delay, memory or CPU)"

_AST_LOCK = threading.RLock()


def serialise_ast_parse() -> None:
    """Let one thread at a time run ``ast.parse`` in this process (idempotent).

    CPython 3.11's conversion of a parse tree to ``ast`` objects keeps its
    recursion bookkeeping where two threads can corrupt it: "SystemError: AST
    constructor recursion depth mismatch". Once background oracle threads
    run, pytest's assertion rewriting parses each of this plugin's modules
    on its first import, in whichever thread imports it, while another
    thread may be parsing too: seen failing an item about one run in five
    of tests/verdict. Every caller of ``ast.parse`` (pytest's rewriting among
    them) then takes one lock; parsing is rare, so nobody waits long.
    """
    import ast
    import functools

    with _AST_LOCK:
        if getattr(ast.parse, "_rspbench_serialised", False):
            return
        original = ast.parse

        @functools.wraps(original)
        def parse(*args: Any, **kwargs: Any) -> Any:
            with _AST_LOCK:
                return original(*args, **kwargs)

        parse._rspbench_serialised = True  # type: ignore[attr-defined]
        ast.parse = parse


def judges_performance(case: Case) -> bool:
    """Does the case judge a figure that background CPU use would skew?"""
    return (
        case.sweep is not None
        or case.repeat > 1
        or any(t.metric in MACHINE_METRICS for t in case.thresholds)
    )


class _Gate:
    """Open unless a timed replay runs; counts the computations under way."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._closed = 0
        self._running = 0

    @contextmanager
    def working(self) -> Iterator[None]:
        """Held by a computation: waits while the gate is closed."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed == 0)
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    @contextmanager
    def closed(self) -> Iterator[None]:
        """Held by a timed replay: no computation starts, those under way end first."""
        with self._cond:
            self._closed += 1
            self._cond.wait_for(lambda: self._running == 0)
        try:
            yield
        finally:
            with self._cond:
                self._closed -= 1
                self._cond.notify_all()


class _Handle:
    """One item's computation, as :class:`pytest_rspbench.runner.Ahead` wants it."""

    def __init__(self, future: Future[Any], gate: _Gate, timed: bool) -> None:
        self._future = future
        self._gate = gate
        self._timed = timed

    def replaying(self) -> Any:
        return self._gate.closed() if self._timed else nullcontext()

    def result(self) -> Any:
        return self._future.result()

    @property
    def note(self) -> str:
        return PAUSED if self._timed else DURING


class OracleAhead:
    """Background threads computing the expected outputs of the next items.

    Args:
        threads: how many computations run at once (0: none, every item
            computes its oracle after its replay, as without this class).
        spark: returns the session's SparkSession (started on first call;
            each thread makes its own ``newSession()`` of it).
        cache: returns the stream cache (None: streams in memory).
    """

    def __init__(self, threads: int, spark: Callable[[], Any], cache: Callable[[], Any]) -> None:
        self.threads = threads
        self._spark = spark
        self._cache = cache
        self._gate = _Gate()
        self._futures: dict[str, Future[Any]] = {}
        self._local = threading.local()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, nodeid: str, case: Case) -> None:
        """Start computing the item's expected output, if not already begun."""
        if self.threads <= 0:
            return
        with self._lock:
            if nodeid in self._futures:
                return
            if self._pool is None:
                serialise_ast_parse()  # before a second thread can import or parse
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="rspbench-oracle")
            self._futures[nodeid] = self._pool.submit(self._compute, case)

    def take(self, nodeid: str, case: Case) -> _Handle | None:
        """The item's computation (begun now if it was not); None when off."""
        if self.threads <= 0:
            return None
        self.submit(nodeid, case)
        with self._lock:
            future = self._futures.pop(nodeid)
        return _Handle(future, self._gate, judges_performance(case))

    def close(self) -> None:
        """Drop what has not started; let what runs end with Spark's stop."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._futures.clear()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _compute(self, case: Case) -> Any:
        from pytest_rspbench.runner import expect_ahead

        with self._gate.working():
            return expect_ahead(case, self._session, self._cache())

    def _session(self) -> Any:
        """This thread's Spark session: its own SQL settings, the shared JVM."""
        base = self._spark()
        kept = getattr(self._local, "pair", None)
        if kept is None or kept[0] is not base:
            kept = self._local.pair = (base, base.newSession())
        return kept[1]
