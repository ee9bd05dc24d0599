"""A watchdog process that stops the engines of a session that was killed.

An engine runs in its own session, so a signal that ends pytest (``kill
-9``, the out-of-memory killer, a CI runner that kills the job) never
reaches it, nor the processes it starts; its stdin closing makes a
well-behaved engine exit, but a child that called ``setsid`` and sleeps
keeps running. ``prctl(PR_SET_PDEATHSIG)`` reaches only a direct child.

So the first engine a process starts also starts one watchdog for the
process: ``python -m pytest_rspbench.engine.watchdog``, in a session of its
own (a Ctrl-C at the terminal does not reach it), reading lines from a pipe
that only the pytest process holds:

* ``expect TOKEN``: processes whose environment holds
  ``RSPBENCH_ENGINE_RUN=TOKEN`` (:mod:`~pytest_rspbench.engine.tree`'s mark)
  are an engine's; sent before the engine is started;
* ``watch TOKEN PID PIPE...``: that engine's process and its stdio pipes;
  the watchdog looks at its descendants every :data:`POLL` s and remembers
  them (a daemon that leaves the tree is still known);
* ``forget TOKEN``: the harness stopped that engine's processes itself.

When the pipe ends (the pytest process is gone, however it ended), every
engine not forgotten is stopped as :class:`~pytest_rspbench.engine.tree.ProcessTree`
would stop it: each process that is the engine's by descent, group, mark
or pipes gets SIGTERM, and what is left after :data:`GRACE` s SIGKILL; then
the watchdog exits. A pytest process that ends normally has forgotten every
engine, and its watchdog exits at once.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO

import psutil

from pytest_rspbench.engine import marks

POLL = 0.5  # seconds between two looks at a watched engine's descendants
GRACE = 1.0  # seconds between SIGTERM and SIGKILL when the session is gone
ROUNDS = 3  # a process may start another while it is being stopped


class Watchdog:
    """The pytest side: the pipe to this process's watchdog."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = -1  # the process that started it (a fork starts its own)

    def expect(self, token: str) -> None:
        """Processes marked with ``token`` are an engine's, about to start."""
        self._send(f"expect {token}")

    def watch(self, token: str, pid: int, pipes: frozenset[str]) -> None:
        """Engine ``token`` runs as ``pid`` with these stdio pipes."""
        self._send(" ".join(["watch", token, str(pid), *sorted(pipes)]))

    def forget(self, token: str) -> None:
        """Engine ``token``'s processes were stopped: nothing to do for it."""
        self._send(f"forget {token}")

    def close(self) -> None:
        """End the pipe; the watchdog stops what was not forgotten, then exits."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None or self._pid != os.getpid():
                return
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(GRACE * ROUNDS + 2.0)

    def _send(self, line: str) -> None:
        with self._lock:
            stdin = self._started()
            if stdin is None:
                return
            try:
                stdin.write(line.encode("utf-8", "replace") + b"\n")
                stdin.flush()
            except (OSError, ValueError):  # the watchdog is gone: nothing more to do
                self._proc = None

    def _started(self) -> IO[bytes] | None:
        if self._proc is not None and self._pid == os.getpid():
            return self._proc.stdin
        if os.name != "posix":
            return None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            return None
        self._pid = os.getpid()
        return self._proc.stdin


_WATCHDOG = Watchdog()
atexit.register(_WATCHDOG.close)


def watchdog() -> Watchdog:
    """This process's :class:`Watchdog` (its process starts on first use)."""
    return _WATCHDOG


# -- the watchdog process ------------------------------------------------------


@dataclass
class _Engine:
    token: str
    pid: int | None = None
    root: psutil.Process | None = None
    pipes: frozenset[str] = frozenset()
    seen: dict[int, psutil.Process] = field(default_factory=dict)

    def look(self) -> None:
        """Remember the engine's descendants now."""
        if self.root is None:
            return
        with contextlib.suppress(psutil.Error):
            self.seen.update((p.pid, p) for p in self.root.children(recursive=True))

    def members(self) -> dict[int, psutil.Process]:
        self.look()
        found = {p.pid: p for p in self.seen.values()}
        if self.root is not None:
            found[self.root.pid] = self.root
        for process in marks.marked(self.pid, self.token, self.pipes):
            found.setdefault(process.pid, process)
        return {pid: p for pid, p in found.items() if marks.alive(p)}


def _handle(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.Error:
        return None


def _read(engines: dict[str, _Engine], line: str) -> None:
    words = line.split()
    if len(words) < 2:
        return
    kind, token = words[0], words[1]
    if kind == "expect":
        engines.setdefault(token, _Engine(token))
    elif kind == "watch" and len(words) >= 3 and words[2].isdigit():
        engine = engines.setdefault(token, _Engine(token))
        engine.pid, engine.root = int(words[2]), _handle(int(words[2]))
        engine.pipes = frozenset(words[3:])
        engine.look()
    elif kind == "forget":
        engines.pop(token, None)


def sweep(engines: list[_Engine]) -> int:
    """Stop every process of ``engines``; how many there were at first."""
    protected = marks.protected()

    def members() -> list[psutil.Process]:
        found: dict[int, psutil.Process] = {}
        for engine in engines:
            found.update(engine.members())
        return [p for pid, p in found.items() if pid not in protected]

    first = members()
    left = first
    for signal_them in ("terminate", *["kill"] * ROUNDS):
        for process in left:
            with contextlib.suppress(psutil.Error):
                getattr(process, signal_them)()
        deadline = time.monotonic() + GRACE
        while (left := [p for p in left if marks.alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.02)
        left = list({p.pid: p for p in [*left, *members()]}.values())
        if not left:
            break
    return len(first)


def main() -> int:
    """Read the pipe until it ends, then stop what was not forgotten."""
    import signal

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):  # the session's end, not ours
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    engines: dict[str, _Engine] = {}
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        ready, _, _ = select.select([fd], [], [], POLL)
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                _read(engines, line.decode("utf-8", "replace"))
        for engine in engines.values():
            engine.look()
    if engines:
        sweep(list(engines.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
