"""The class-data-sharing archive's lock and file stamps (:mod:`.cds`).

One builder at a time holds ``<key>.lock`` (its pid inside); a lock whose
holder is gone, or older than :data:`LOCK_MAX_AGE`, is broken.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

LOCK_MAX_AGE = 24 * 3600  # a lock older than this is stale, whoever holds it


def acquire(lock: Path) -> bool:
    """Create ``lock`` holding this pid, unless a live holder has it.

    A lock whose holder is gone (or that is older than :data:`LOCK_MAX_AGE`)
    is broken. Two processes breaking the same stale lock may both build: the
    archive is renamed into place atomically, so that only costs time.
    """
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if not stale(lock):
                return False
            with contextlib.suppress(OSError):
                lock.unlink()
            continue
        except OSError:
            return False
        with os.fdopen(fd, "w") as file:
            file.write(str(os.getpid()))
        return True
    return False


def release(lock: Path, pid: int | None = None) -> None:
    """Remove ``lock`` if ``pid`` (default: this process) holds it."""
    if _holder(lock) == (pid or os.getpid()):
        with contextlib.suppress(OSError):
            lock.unlink()


def stale(lock: Path) -> bool:
    """Is ``lock`` no builder's: its holder gone, or older than :data:`LOCK_MAX_AGE`?"""
    holder = _holder(lock)
    seconds = age(lock)
    if holder is None:
        return seconds > 60  # being written, or garbage
    return seconds > LOCK_MAX_AGE or not alive(holder)


def _holder(lock: Path) -> int | None:
    text = read(lock).strip()
    return int(text) if text.isdigit() else None


def alive(pid: int) -> bool:
    """Is ``pid`` running (a zombie is not; someone else's process is)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    # An exited child not yet reaped by its parent is a zombie: as good as gone.
    stat = read(Path(f"/proc/{pid}/stat"))
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def touch(path: Path) -> bool:
    """Mark ``path`` as used now (for :func:`.cdsbuild.prune`); False if it does not exist."""
    if not path.is_file():
        return False
    with contextlib.suppress(OSError):  # someone else's file: use it all the same
        os.utime(path)
    return True


def age(path: Path) -> float:
    """Seconds since ``path`` changed; infinite if it does not exist."""
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return float("inf")


def stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)
    return (stat.st_size, stat.st_mtime_ns)


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
