"""An engine's process tree: followed while it runs, stopped whole, its exit seen.

An engine command often starts more processes (a shell script starting a
JVM, ``npx`` starting ``node``), and some leave the tree: a child that calls
``setsid`` or daemonises is re-parented and leads its own process group, yet
may still hold the engine's pipes, so stdout never ends and the process
outlives the session. A :class:`ProcessTree` counts a process as the
engine's when any of these holds:

* **descent**: it is a descendant of the engine now, or was one at any poll
  while the engine ran (every :data:`POLL` s; a psutil handle keeps its start
  time, so a reused pid is never mistaken for it);
* **group**: it is in the engine's process group (the engine leads its own
  session, :func:`~pytest_rspbench.engine.processes.spawn`);
* **mark**: its environment holds ``RSPBENCH_ENGINE_RUN=<token>``, which
  every process the engine starts inherits unless it clears its environment
  (Jenkins' ProcessTreeKiller follows builds by ``BUILD_ID`` the same way);
* **pipes**: it holds the engine's stdin, stdout or stderr (Linux ``/proc``).

A double-forked daemon that clears its environment and closes the engine's
pipes within one poll interval escapes all four; only a cgroup would hold it.

The tree also watches the engine's own exit, so a crash is seen even while a
leftover child keeps stdout open (``on_exit`` is called with the exit code).
Its watcher thread is the only code that reaps the engine process: psutil's
``wait`` would reap it first and the status would be lost (``Popen`` then
reports exit code 0 for an engine killed by SIGTERM).

Every tree is also told to this process's
:mod:`~pytest_rspbench.engine.watchdog`, which stops it by the same marks if
this process dies (``kill -9``) before it could; a stopped tree is forgotten.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import psutil

from pytest_rspbench.engine import processes
from pytest_rspbench.engine.marks import TOKEN_ENV, alive, marked, protected
from pytest_rspbench.engine.watchdog import watchdog

POLL = 0.5  # seconds between two looks at the engine's descendants
KILL_ROUNDS = 3  # a member may start another while it is being killed


class ProcessTree:
    """The engine process ``proc`` and every process it leaves behind."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        token: str = "",
        on_exit: Callable[[int], None] | None = None,
        poll: float = POLL,
    ) -> None:
        self.proc = proc
        self._token = token
        self._on_exit = on_exit
        self._poll = poll
        self._pipes = _pipe_names(proc)
        self._root = _handle(proc.pid)
        self._seen: dict[int, psutil.Process] = {}
        self._seen_lock = threading.Lock()
        self._exited = threading.Event()
        self._stopping = threading.Lock()
        self._watcher = threading.Thread(target=self._watch, name="rspbench-tree", daemon=True)
        self._watcher.start()
        if token:
            watchdog().watch(token, proc.pid, self._pipes)

    @classmethod
    def start(
        cls,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        on_exit: Callable[[int], None] | None = None,
    ) -> ProcessTree:
        """Spawn ``command`` with a fresh mark in its environment and follow it."""
        token = uuid.uuid4().hex
        watchdog().expect(token)  # before the spawn: a kill right after it is covered
        try:
            proc = processes.spawn(command, cwd, {**env, TOKEN_ENV: token})
        except BaseException:
            watchdog().forget(token)
            raise
        return cls(proc, token, on_exit)

    @property
    def returncode(self) -> int | None:
        """The engine's exit code (negative: the signal), None while it runs."""
        return self.proc.returncode if self._exited.is_set() else None

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait up to ``timeout`` s for the engine to exit; its exit code or None."""
        self._exited.wait(timeout)
        return self.returncode

    def members(self) -> list[psutil.Process]:
        """The processes that are the engine's now (see the module docstring)."""
        found: dict[int, psutil.Process] = {}
        if self._root is not None and not self._exited.is_set():
            found[self._root.pid] = self._root
        with self._seen_lock:
            seen = list(self._seen.values())
        for process in [*self._descendants(), *seen, *self._marked()]:
            if alive(process):
                found.setdefault(process.pid, process)
        for pid in protected():
            found.pop(pid, None)
        return list(found.values())

    def stop(self, grace: float) -> int:
        """Terminate every member, kill what is left after ``grace`` s.

        Returns how many processes were members when it started.
        """
        with self._stopping:
            first = self.members()
            if not first:
                self._forget()
                return 0  # nobody left to start another
            for process in first:
                _quietly(process.terminate)
            left = self._outliving(first, grace)
            for _ in range(KILL_ROUNDS):
                left = list({p.pid: p for p in [*left, *self.members()]}.values())
                if not left:
                    break
                for process in left:
                    _quietly(process.kill)
                self._kill_group()
                left = self._outliving(left, 1.0)
            if not left:
                self._forget()
            return len(first)

    # -- internals -----------------------------------------------------------

    def _forget(self) -> None:
        """Tell the watchdog the tree is gone, once the engine has exited."""
        if self._token and self._exited.is_set():
            watchdog().forget(self._token)

    def _watch(self) -> None:
        while True:
            try:
                self.proc.wait(self._poll)
                break
            except subprocess.TimeoutExpired:
                descendants = self._descendants()
                with self._seen_lock:
                    self._seen.update((p.pid, p) for p in descendants)
        self._exited.set()
        if self._on_exit is not None:
            self._on_exit(self.proc.returncode)

    def _descendants(self) -> list[psutil.Process]:
        if self._root is None or self._exited.is_set():
            return []
        try:
            return self._root.children(recursive=True)
        except psutil.Error:
            return []

    def _marked(self) -> list[psutil.Process]:
        return marked(self.proc.pid, self._token, self._pipes)

    def _outliving(self, members: list[psutil.Process], timeout: float) -> list[psutil.Process]:
        """Those of ``members`` still running after up to ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            left = [p for p in members if self._running(p)]
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(0.02)

    def _running(self, process: psutil.Process) -> bool:
        if process.pid == self.proc.pid:
            return not self._exited.is_set()  # never reaped here (see the docstring)
        return alive(process)

    def _kill_group(self) -> None:
        """Kill the engine's group at once, while the group id is surely its own."""
        if os.name == "posix" and not self._exited.is_set():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)


def _handle(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.Error:
        return None


def _pipe_names(proc: subprocess.Popen[bytes]) -> frozenset[str]:
    """``pipe:[inode]`` of the engine's stdio pipes, as ``/proc/PID/fd`` shows them."""
    names = set()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            names.add(f"pipe:[{os.fstat(stream.fileno()).st_ino}]")  # type: ignore[union-attr]
    return frozenset(names)


def _quietly(action: Callable[[], object]) -> None:
    with contextlib.suppress(psutil.Error):
        action()
