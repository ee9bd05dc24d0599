"""The machine's load while an item's engine replays, and what it means for
the item's figures.

A correct or wrong answer does not depend on how busy the machine is; a
delay, a peak memory or a CPU share does. The runner samples the one-minute
load average (``os.getloadavg``) while the replays run (:func:`watching`);
the record keeps it (``load`` in ``metrics.json`` and the results file), and
a failing item that judges such a figure (:data:`MACHINE_METRICS`) measured
on an overloaded machine says so in its failure text::

    delay <= 500ms failed ...
    measured while the machine was overloaded (load 7.9 on 2 cores): ...

Overloaded is a load per core above :data:`OVERLOADED` at any sample
(docs/reliability.md, "Verdicts under load").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

MACHINE_METRICS = ("delay", "peak_rss", "mean_cpu")
"""Threshold metrics measured on the machine, which a busy machine skews
(the metric names of :mod:`pytest_rspbench.spec.thresholds`)."""

OVERLOADED = 1.5
"""Load per core above which the machine is overloaded: runnable processes
waited for a core half the time or more."""

SAYS = (
    "overloaded machine: its delay, memory and CPU figures say more about the "
    "machine than the engine"
)
"""The line under a failure's verdict line that :func:`overload_note` marked."""

INTERVAL = 0.5
"""Seconds between two samples of the load average."""


def cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def load_average() -> float | None:
    """The one-minute load average; None where the system has none (Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


@dataclass(frozen=True)
class Load:
    """The load average seen during an item's replays.

    Attributes:
        peak: the highest one-minute load average sampled.
        mean: the mean of the samples.
        cores: the cores the process may run on.
        samples: how many samples were taken.
    """

    peak: float
    mean: float
    cores: int
    samples: int

    @property
    def per_core(self) -> float:
        """The peak load per core.

        >>> Load(7.9, 6.0, 2, 10).per_core
        3.95
        """
        return self.peak / self.cores

    @property
    def overloaded(self) -> bool:
        """Was the load per core above :data:`OVERLOADED`?

        >>> Load(3.1, 3.0, 2, 4).overloaded, Load(2.9, 2.0, 2, 4).overloaded
        (True, False)
        """
        return self.per_core > OVERLOADED

    def note(self) -> str:
        """What a failure judged on machine figures says about the machine.

        >>> Load(7.94, 6.0, 2, 10).note()
        'measured while the machine was overloaded (load 7.9 on 2 cores)'
        """
        unit = "core" if self.cores == 1 else "cores"
        load = f"load {self.peak:.1f} on {self.cores} {unit}"
        return f"measured while the machine was overloaded ({load})"

    def as_record(self) -> dict[str, object]:
        """The JSON-ready ``load`` of an item's record."""
        return {
            "peak": round(self.peak, 2),
            "mean": round(self.mean, 2),
            "cores": self.cores,
            "samples": self.samples,
            "overloaded": self.overloaded,
        }

    @staticmethod
    def of(samples: Sequence[float], cores: int) -> Load | None:
        """The load of ``samples``; None without any.

        >>> Load.of([1.0, 3.0], 2)
        Load(peak=3.0, mean=2.0, cores=2, samples=2)
        """
        if not samples:
            return None
        return Load(max(samples), sum(samples) / len(samples), cores, len(samples))


class Watch:
    """The samples taken so far; :attr:`load` once the watch is over."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.load: Load | None = None


@contextmanager
def watching(
    interval: float = INTERVAL, sample: Callable[[], float | None] = load_average
) -> Iterator[Watch]:
    """Sample the load average every ``interval`` seconds (and at both ends)
    on a daemon thread while the block runs."""
    watch = Watch()
    stop = threading.Event()

    def take() -> None:
        value = sample()
        if value is not None:
            watch.samples.append(value)

    def loop() -> None:
        while not stop.wait(interval):
            take()

    take()
    thread = threading.Thread(target=loop, name="rspbench-load", daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()
        take()
        watch.load = Load.of(watch.samples, cores())


def overload_note(load: Load | None, failed_metrics: Sequence[str]) -> str | None:
    """The note of a failing item whose failed thresholds include a machine
    figure measured while the machine was overloaded; None otherwise.

    >>> overload_note(Load(7.9, 6.0, 2, 3), ["delay"])
    'measured while the machine was overloaded (load 7.9 on 2 cores)'
    >>> overload_note(Load(7.9, 6.0, 2, 3), ["recall"]) is None
    True
    """
    if load is None or not load.overloaded:
        return None
    if not any(m in MACHINE_METRICS for m in failed_metrics):
        return None
    return load.note()
