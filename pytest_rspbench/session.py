"""Per-pytest-session state: options, the lazily started Spark, artifacts."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import pytest

from pytest_rspbench import options
from pytest_rspbench.options import Settings

if TYPE_CHECKING:
    from pytest_rspbench.report.baseline import Comparison

T = TypeVar("T")


class _Setting(Generic[T]):
    """A session attribute that is one of its settings: read from them, not copied."""

    def __init__(self, read: Callable[[Settings], T]) -> None:
        self.read = read

    def __get__(self, session: RspbenchSession, owner: type | None = None) -> T:
        return self.read(session.settings)


@dataclass
class RspbenchSession:
    """State shared by all items of one pytest session (kept in the stash).

    ``settings`` are its options, parsed once (:func:`pytest_rspbench.options.settings`);
    ``session.master``, ``session.artifacts`` and the other settings read them.
    """

    settings: Settings = field(default_factory=Settings)
    results: list[dict[str, Any]] = field(default_factory=list)
    # Baselines (pytest_rspbench.report.baseline): what came out.
    comparison: Comparison | None = None
    saved: Path | None = None
    # When the session began: entries used since are never pruned.
    began: float = field(default_factory=time.time)
    # After the session: (folder, housekeeping.Pruned), or (folder, why pruning failed).
    pruned: Any = None
    pytest_cache: Any = field(default=None, repr=False)
    _provider: Any = field(default=None, repr=False)
    # Off a terminal: writes a plain line when Spark starts and is ready
    # (report.progress.notices); None where the live line shows it.
    notice: Any = field(default=None, repr=False)
    # --rspbench-warm-spark: the line saying which warm Spark was used (the
    # terminal summary repeats it).
    warm_line: str | None = None
    _stream_cache: Any = field(default=None, repr=False)
    _folders: dict[int, Path] = field(default_factory=dict, repr=False)
    _ahead: Any = field(default=None, repr=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False)
    _sigterm: Any = field(default=None, repr=False)  # the SIGTERM handler replaced
    _closed: bool = field(default=False, repr=False)
    _starting: bool = field(default=False, repr=False)  # a thread is in Spark's start
    # The session was interrupted before its baseline could be compared or saved.
    baseline_skipped: bool = False

    engines = _Setting(lambda s: s.engines)
    master = _Setting(lambda s: s.master)
    artifacts = _Setting(lambda s: s.artifacts)
    json_path = _Setting(lambda s: s.json_path)
    record_dir = _Setting(lambda s: s.record)
    # Baselines: names and rules.
    save = _Setting(lambda s: s.save)
    compare = _Setting(lambda s: s.compare)
    rules = _Setting(lambda s: s.rules)
    baseline_dir = _Setting(lambda s: s.baseline_dir)
    # The oracle's stream cache: the configured folder (or "none"); pytest's
    # cache (``pytest_cache``) holds the default folder.
    cache_dir = _Setting(lambda s: s.cache_dir)
    spark_conf = _Setting(lambda s: s.spark_conf)
    # --rspbench-shrink: seconds per failing item, None when off.
    shrink = _Setting(lambda s: s.shrink)
    # --rspbench-oracle-ahead: background oracle threads (0: off).
    oracle_ahead = _Setting(lambda s: s.oracle_ahead)
    # --rspbench-cache-max-size: bytes the cache folder is pruned to at the end (None: no limit).
    cache_max_size = _Setting(lambda s: s.cache_max_size)

    @classmethod
    def from_config(cls, config: pytest.Config) -> RspbenchSession:
        """The session's state from its options (:mod:`pytest_rspbench.options`)."""
        from pytest_rspbench.report.progress import notices

        session = cls(options.settings(config), pytest_cache=getattr(config, "cache", None))
        session.notice = notices(config)
        return session

    def spark(self) -> Any:
        """The SparkSession, started on first use (one per pytest session;
        background oracle threads ask for it too). None is started once the
        session has ended (:meth:`close`): a background thread asking then
        gets an OracleError, and a start under way at the end is stopped."""
        from pytest_rspbench.errors import OracleError

        ended = OracleError("the pytest session has ended: no Spark is started for it")
        with self._lock:
            if self._closed:
                raise ended
            first = self._provider is None
            if first:
                from pytest_rspbench.oracle.spark import SparkProvider

                self._provider = SparkProvider(
                    self.master,
                    conf=self.spark_conf,
                    warm=self.settings.warm_spark,
                    say=self._warm_said,
                )
                self._tell(f"starting Spark for the oracle ({self.master})")
            began = time.monotonic()
            self._starting = True
            try:
                spark = self._provider.get()
            finally:
                self._starting = False
            if self._closed:  # the session ended while Spark started
                self._provider.stop()
                raise ended
            if first:
                self._tell(f"Spark is ready ({time.monotonic() - began:.0f} s)")
            return spark

    def _warm_said(self, text: str) -> None:
        self.warm_line = text
        self._tell(text)

    def _tell(self, text: str) -> None:
        if self.notice is not None:
            self.notice(text)

    @property
    def ahead(self) -> Any:
        """The :class:`~pytest_rspbench.ahead.OracleAhead` of this session."""
        if self._ahead is None:
            from pytest_rspbench.ahead import OracleAhead

            threads = 0 if self.master.startswith("sc://") else self.oracle_ahead
            self._ahead = OracleAhead(threads, self.spark, self.stream_cache)
        return self._ahead

    @property
    def spark_started(self) -> bool:
        """Whether the SparkSession was asked for already."""
        return self._provider is not None

    def stream_cache(self) -> Any:
        """The oracle's :class:`StreamCache`, or None to keep streams in memory."""
        if self._stream_cache is None:
            from pytest_rspbench.oracle.store.streamcache import stream_cache

            cache = stream_cache(self.master, self.cache_dir, self.pytest_cache)
            self._stream_cache = cache or False
        return self._stream_cache or None

    def artifacts_for(self, item: pytest.Item) -> Path | None:
        """The item's own artifact folder (``--rspbench-artifacts``), or None.

        Named after the node id, made safe for file systems; a long id is cut
        and ends with a hash of the whole id, and an id seen before (an engine
        listed twice) gets ``-2``, ``-3``: no two items share a folder.
        """
        if self.artifacts is None:
            return None
        folder = self._folders.get(id(item))
        if folder is None:
            from pytest_rspbench.runner import folder_name

            name = base = folder_name(item.nodeid)
            taken = set(self._folders.values())
            count = 1
            while self.artifacts / name in taken:
                count += 1
                name = f"{base}-{count}"
            folder = self._folders[id(item)] = self.artifacts / name
        return folder

    def counterexample_folder(self, item: pytest.Item) -> Path:
        """Where a failing item's minimal counterexample is written.

        The item's artifact folder (``--rspbench-artifacts``); without one,
        ``rspbench-counterexamples/<item>`` in pytest's cache folder; without
        the cache plugin, a new temporary folder.
        """
        folder = self.artifacts_for(item)
        if folder is not None:
            return folder
        from pytest_rspbench.runner import folder_name

        if self.pytest_cache is not None:
            return self.pytest_cache.mkdir("rspbench-counterexamples") / folder_name(item.nodeid)
        import tempfile

        return Path(tempfile.mkdtemp(prefix="rspbench-counterexample-"))

    def record(self, nodeid: str, run: Any) -> None:
        """Keep a finished case's summary for the results file and the terminal."""
        from pytest_rspbench.report.record import item_record

        self.results.append(item_record(nodeid, run))

    def note(self, item: Any, report: Any) -> None:
        """Fold an item's test report (outcome, duration) into its record."""
        from pytest_rspbench.report.results import note_outcome

        note_outcome(self.results, item, report, self.artifacts_for(item))

    def finish(self, session: pytest.Session, interrupted: bool = False) -> None:
        """At session end: write the results file; compare with or save a baseline.

        An interrupted session (Ctrl-C, SIGTERM) writes the results of the
        items that finished, and neither compares with nor saves a baseline:
        a part of the suite is no baseline."""
        from pytest_rspbench.report import results

        rootdir = session.config.rootpath
        if self.json_path is not None:
            doc = results.write(self.json_path, self.results, rootdir)
        elif self.compare or self.save:
            doc = results.document(self.results, rootdir)
        else:
            return
        if interrupted:
            self.baseline_skipped = bool(self.compare or self.save)
            return
        if self.compare or self.save:
            from pytest_rspbench.report.baseline import settle

            settle(self, doc, session)

    def prune_cache(self) -> None:
        """Prune the cache folder to ``cache_max_size`` (least recently used first),
        keeping what this session or another running one used. A failure is
        said in the terminal summary: the session's outcome does not depend on it."""
        from pytest_rspbench.oracle.store import housekeeping

        if self.cache_max_size is None:
            return
        cache = self.stream_cache()
        if cache is None or not cache.root.is_dir():
            return
        keep_since = min(self.began, time.time() - housekeeping.RECENT)
        try:
            pruned = housekeeping.prune(
                cache.root, max_size=self.cache_max_size, keep_since=keep_since
            )
        except Exception as exc:  # a disk, permission or concurrent-removal surprise
            self.pruned = (cache.root, f"{type(exc).__name__}: {exc}")
            return
        self.pruned = (cache.root, pruned)

    def record_of(self, nodeid: str) -> dict[str, Any] | None:
        """The record kept for item ``nodeid``, if any."""
        return next((r for r in reversed(self.results) if r.get("nodeid") == nodeid), None)

    def merge(self, record: dict[str, Any]) -> None:
        """Keep ``record`` (from an xdist worker), replacing an older one of its item."""
        for k, kept in enumerate(self.results):
            if kept.get("nodeid") == record.get("nodeid"):
                self.results[k] = record
                return
        self.results.append(record)

    def interrupt_on_sigterm(self) -> None:
        """Make SIGTERM (how ``timeout`` and CI systems cancel a job) end the
        session as Ctrl-C does: the running item's engine is stopped, and the
        results file, JUnit and HTML reports are written for the items that
        finished. A second SIGTERM ends the process at once (the engine
        watchdog then stops the engines). Only when nothing else handles
        SIGTERM, and in the main thread, where handlers run."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return
        self._sigterm = signal.signal(signal.SIGTERM, _terminated)

    def close(self) -> None:
        """The session's end: background oracle work dropped, Spark stopped.

        A background thread may be starting Spark (after Ctrl-C, say): the
        JVM it launches is killed, so its start fails at once instead of the
        process waiting, at its exit, for a Spark start and a computation
        nobody will read."""
        if self._sigterm is not None and signal.getsignal(signal.SIGTERM) is _terminated:
            signal.signal(signal.SIGTERM, self._sigterm)
        self._sigterm = None
        self._closed = True
        if self._ahead is not None:
            self._ahead.close()
        deadline = time.monotonic() + STARTING_GRACE
        while self._starting and time.monotonic() < deadline:
            _kill_launching_jvms()  # the thread may launch it a moment later
            time.sleep(0.05)
        if self._provider is not None:
            self._provider.stop()
        if self._stream_cache:
            self._stream_cache.close()  # its entries may be pruned from now on


STARTING_GRACE = 10.0
"""Seconds the session's end waits for a Spark start in another thread to fail."""


def _kill_launching_jvms() -> None:
    """Kill the Spark driver JVM this process is launching (one per process:
    while a start is under way, no other runs)."""
    import psutil

    for child in psutil.Process().children():
        try:
            # PySpark runs `spark-submit ... pyspark-shell`, which becomes the JVM
            if "pyspark-shell" in child.cmdline():
                for process in [*child.children(recursive=True), child]:
                    process.kill()
        except psutil.Error:
            continue


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM: interrupt the session like Ctrl-C (KeyboardInterrupt)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt("terminated by SIGTERM")


SESSION_KEY = pytest.StashKey[RspbenchSession]()
"""Where the plugin keeps the session's :class:`RspbenchSession`."""
