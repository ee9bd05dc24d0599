"""How a process is known as an engine's: its group, its mark, its pipes.

:class:`~pytest_rspbench.engine.tree.ProcessTree` (in the harness) and the
:mod:`~pytest_rspbench.engine.watchdog` (after the harness died) stop the
same processes: those :func:`marked` finds, with the descendants each of
them followed. Linux's ``/proc`` is read directly (psutil elsewhere).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import psutil

TOKEN_ENV = "RSPBENCH_ENGINE_RUN"
"""The mark: every process an engine starts inherits ``TOKEN_ENV=<token>``."""
_PROC = Path("/proc")


def marked(group: int | None, token: str, pipes: frozenset[str]) -> list[psutil.Process]:
    """Processes in process group ``group``, with the mark ``token`` or
    holding one of ``pipes`` (``pipe:[inode]``).

    Read from ``/proc`` without a psutil handle per process: this runs at
    every stop, and most processes are not the engine's.
    """
    if os.name != "posix":
        return []
    found = []
    for pid in psutil.pids():
        if _is_marked(pid, group, token, pipes):
            with contextlib.suppress(psutil.Error):
                found.append(psutil.Process(pid))
    return found


def _is_marked(pid: int, group: int | None, token: str, pipes: frozenset[str]) -> bool:
    if group is not None:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == group:
                return True
    if token and _environ(pid).get(TOKEN_ENV) == token:
        return True
    return bool(pipes) and not pipes.isdisjoint(_fds(pid))


def alive(process: psutil.Process) -> bool:
    """Running and not a zombie (a zombie holds no pipe and uses no CPU)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def protected() -> set[int]:
    """This process and its ancestors: never members, whatever they hold."""
    me = psutil.Process()
    return {me.pid, *(p.pid for p in me.parents())}


def _environ(pid: int) -> dict[str, str]:
    """The environment ``pid`` was started with (empty if unreadable)."""
    if not _PROC.is_dir():  # not Linux
        with contextlib.suppress(psutil.Error):
            return psutil.Process(pid).environ()
        return {}
    try:
        raw = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return {}
    pairs = (item.partition(b"=") for item in raw.split(b"\0") if item)
    return {k.decode(errors="replace"): v.decode(errors="replace") for k, _, v in pairs}


def _fds(pid: int) -> set[str]:
    """What the open file descriptors of ``pid`` point at (Linux; empty elsewhere)."""
    folder = f"/proc/{pid}/fd"
    out = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(folder):
            with contextlib.suppress(OSError):
                out.add(os.readlink(f"{folder}/{fd}"))
    return out
