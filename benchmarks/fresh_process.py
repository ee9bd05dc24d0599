"""One command in a fresh process: wall time, peak memory and CPU of its tree.

The end-to-end benchmark (:mod:`oracle_e2e`) runs every measurement as a new
process, so what a user pays is in the figure: interpreter start, imports,
Spark's JVM start and warm-up, writing files. While the command runs, a
thread samples the process and all its descendants (the Spark JVM, its
Python workers) every ``interval`` seconds with psutil:

- *peak MB*: the largest sum of their resident sets seen in one sample
  (pages shared between them count once per process, so it is an upper
  bound of what the tree held);
- *CPU s*: user + system time, the larger of two counts: the kernel's for
  the process and the descendants it waited for (``RUSAGE_CHILDREN``; exact,
  but blind to a descendant nobody waited for) and, per process, the last
  time seen in a sample, summed (a process loses what it used after its
  last sample, up to ``interval``).

A command still running after ``timeout`` seconds is killed with its whole
process group, and whatever it started that left the group. A failed one is
classified from its exit and its stderr: out of memory (a Java
``OutOfMemoryError``, a Python ``MemoryError``, or SIGKILL that was not ours:
the kernel's OOM killer), or failed with its exit status.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

OOM_TEXTS = ("OutOfMemoryError", "MemoryError", "Cannot allocate memory", "Java heap space")


@dataclass
class Outcome:
    """What one fresh process took and how it ended.

    Attributes:
        status: ``ok``, ``timeout``, ``out of memory`` or ``failed (exit N)``.
        seconds: wall time from start to exit (or to the kill).
        peak_mb: peak RSS of the process tree, MB (sum over its processes).
        cpu: CPU seconds of the process tree (user + system).
        load: the 1-minute load average when it started (it counts the
            benchmark's own processes too: a Spark JVM keeps 2-4 threads busy).
        others: CPU seconds the whole machine spent meanwhile outside this
            process tree (and this benchmark's own process): other work.
        stderr: the last lines of its stderr.
    """

    status: str
    seconds: float
    peak_mb: float
    cpu: float
    load: float
    stderr: str = ""
    others: float | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class TreeSampler:
    """Samples a process tree's RSS and CPU every ``interval`` s in a thread."""

    def __init__(self, pid: int, interval: float) -> None:
        import psutil

        self.root = psutil.Process(pid)
        self.interval = interval
        self.peak = 0
        self.cpu: dict[int, float] = {}
        self.seen: dict[int, psutil.Process] = {}  # pid -> psutil.Process, to kill leftovers
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> TreeSampler:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.done.set()
        self.thread.join()

    def _run(self) -> None:
        while True:
            self.sample()
            if self.done.wait(self.interval):
                return

    def sample(self) -> None:
        import psutil

        try:
            tree = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return  # the root has ended
        rss = 0
        for process in tree:
            try:
                with process.oneshot():
                    rss += process.memory_info().rss
                    times = process.cpu_times()
            except psutil.Error:
                continue
            self.cpu[process.pid] = times.user + times.system
            self.seen.setdefault(process.pid, process)
        self.peak = max(self.peak, rss)


def run(
    command: list[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
    stderr_file: Path,
    interval: float = 0.2,
) -> Outcome:
    """Run ``command`` to its end (or ``timeout``) and measure its tree."""
    load = os.getloadavg()[0]
    waited = _children_cpu()
    machine, own = _machine_cpu(), _own_cpu()
    with stderr_file.open("wb") as err:
        began = time.perf_counter()
        child = subprocess.Popen(
            command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
            start_new_session=True,  # its own group: the JVM goes with it
        )  # fmt: skip
        sampler = TreeSampler(child.pid, interval).start()
        timed_out = False
        try:
            code = child.wait(timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill(child, sampler)
            code = child.wait()
        seconds = time.perf_counter() - began
        sampler.stop()
    leftovers(sampler)
    tail = "\n".join(stderr_file.read_text(errors="replace").splitlines()[-40:])
    status = "timeout" if timed_out else classify(code, tail)
    cpu = max(_children_cpu() - waited, sum(sampler.cpu.values()))
    others = max(0.0, _machine_cpu() - machine - cpu - (_own_cpu() - own))
    return Outcome(status, seconds, sampler.peak / 2**20, cpu, load, tail, others=others)


def _machine_cpu() -> float:
    """CPU seconds the whole machine has spent busy (all cores)."""
    import psutil

    times = psutil.cpu_times()
    return times.user + times.system + getattr(times, "nice", 0.0)


def _own_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def classify(code: int, stderr: str) -> str:
    """``ok``, ``out of memory`` or ``failed (exit N)`` from an exit and stderr.

    >>> classify(0, ""), classify(1, "java.lang.OutOfMemoryError: Java heap space")
    ('ok', 'out of memory')
    >>> classify(-9, ""), classify(2, "usage: ...")
    ('out of memory', 'failed (exit 2)')
    """
    if code == 0:
        return "ok"
    if code == -signal.SIGKILL or any(text in stderr for text in OOM_TEXTS):
        # SIGKILL that we did not send: the kernel's OOM killer.
        return "out of memory"
    return f"failed (exit {code})"


def kill(child: subprocess.Popen, sampler: TreeSampler) -> None:
    """SIGKILL the child's process group, then anything of its tree left."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    leftovers(sampler)


def leftovers(sampler: TreeSampler) -> None:
    """Kill the processes of the tree that outlived it (left its group)."""
    import psutil

    for process in sampler.seen.values():
        try:
            if process.is_running():  # same pid and start time as when seen
                process.kill()
        except psutil.Error:
            continue
