"""Sampling an engine's CPU, memory and threads over its whole process tree.

YABench §3.3 measures memory, CPU and the number of threads while it feeds
the engine, every 500 ms; we do the same with psutil, summed over the engine
process and all its descendants (a launcher script and the JVM or node it
starts count as one engine). CPU % is CPU time (user + system) used by the
tree between two samples divided by the wall time between them, times 100:
100 = one core busy, so on a machine of N cores it reaches at most 100 x N;
processes that start or exit between samples are still counted. The mean
over a run (:func:`mean_cpu`) is the CPU time of the whole run over its wall
time, so a short last interval (CPU time is counted in clock ticks of
10 ms) weighs little. ``elapsed`` is seconds since the first sample (the
engine registered), on the monotonic clock: it never goes back. Samples are
appended to ``samples.jsonl`` as they are taken: a crash or a hang keeps them.

An in-process engine (``adapter: python:``) is sampled as the current
process alone (not its children: the Spark JVM is one), so its figures are
the harness's: pytest, the engine and the oracle's threads together
(docs/metrics.md); reports say so (``in-process: the harness's memory``).

A :class:`Sample` and the peak and mean read from samples are part of the
actual output the verdict judges: they live in :mod:`pytest_rspbench.rsp.outputs`
and are imported here.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import psutil

from pytest_rspbench.rsp.outputs import Sample, mean_cpu, peak_rss

__all__ = [
    "DEFAULT_INTERVAL",
    "INTERVAL_ENV",
    "Sample",
    "Sampler",
    "mean_cpu",
    "peak_rss",
    "resolve_interval",
]

DEFAULT_INTERVAL = 0.5
INTERVAL_ENV = "RSPBENCH_SAMPLE_INTERVAL_MS"


def resolve_interval(configured: float | None = None) -> float:
    """The sampling interval in seconds (0: no sampling).

    ``$RSPBENCH_SAMPLE_INTERVAL_MS`` wins, then ``configured`` (the engine
    profile's ``sampling.interval``), then 500 ms (YABench §3.3).
    """
    raw = os.environ.get(INTERVAL_ENV, "").strip()
    if raw.isdigit():
        return int(raw) / 1000
    return DEFAULT_INTERVAL if configured is None else configured


class Sampler:
    """Samples a process tree on a daemon thread until :meth:`stop`."""

    def __init__(
        self,
        pid: int | None,
        interval: float,
        path: Path | None,
        clock: Callable[[], tuple[float, float | None]],
    ) -> None:
        self.samples: list[Sample] = []
        self._root = pid if pid is not None else os.getpid()
        self._children = pid is not None
        self._interval = interval
        self._clock = clock
        self._out = path.open("w", encoding="utf-8") if path else None
        self._known: dict[int, psutil.Process] = {}
        self._cpu: dict[int, float] = {}
        self._last = self._began = time.monotonic()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rspbench-sampler", daemon=True)

    def start(self) -> Sampler:
        self._take()
        self._thread.start()
        return self

    def stop(self) -> list[Sample]:
        """Take a last sample, stop the thread, close the file."""
        self._stopping.set()
        self._thread.join()
        self._take()
        if self._out is not None:
            self._out.close()
        return self.samples

    def _run(self) -> None:
        while not self._stopping.wait(self._interval):
            self._take()

    def _take(self) -> None:
        now = time.monotonic()
        rss = threads = 0
        cpu_seconds = 0.0
        alive = self._processes()
        for process in alive:
            try:
                with process.oneshot():
                    rss += process.memory_info().rss
                    threads += process.num_threads()
                    times = process.cpu_times()
            except psutil.Error:
                continue
            used = times.user + times.system
            cpu_seconds += used - self._cpu.get(process.pid, 0.0)
            self._cpu[process.pid] = used
        wall = now - self._last
        self._last = now
        cpu = 100 * cpu_seconds / wall if self.samples and wall > 0 else 0.0
        if not self.samples:
            self._began = now
        _, app_time = self._clock()
        elapsed = round(now - self._began, 4)
        sample = Sample(elapsed, app_time, rss, round(cpu, 1), threads, len(alive))
        self._record(sample)

    def _processes(self) -> list[psutil.Process]:
        """The tree now; Process objects are kept so a reused pid is not confused."""
        try:
            root = self._known.get(self._root) or psutil.Process(self._root)
            found = [root, *(root.children(recursive=True) if self._children else [])]
        except psutil.Error:
            return []
        current = {p.pid: self._known.get(p.pid, p) for p in found}
        self._known = current
        self._cpu = {pid: used for pid, used in self._cpu.items() if pid in current}
        return list(current.values())

    def _record(self, sample: Sample) -> None:
        self.samples.append(sample)
        if self._out is not None:
            self._out.write(json.dumps(asdict(sample)) + "\n")
            self._out.flush()
