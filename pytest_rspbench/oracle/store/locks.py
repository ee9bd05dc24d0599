"""Locks that let several sessions share one cache folder.

Two pytest sessions (two terminals, two CI jobs on one runner) may read,
write and prune the same folder at once. Entries are written in a scratch
folder and renamed into place, so nobody reads half of one; what renaming
cannot prevent is a prune removing a stream entry that another session's
Spark still reads (Spark opens its Parquet files at every job). So each
stream entry holds a lock file, ``.lock`` (Spark's readers skip names that
start with ``.``):

* a session that uses an entry holds a **shared** lock on it until it ends
  (:func:`hold`); many sessions may;
* whoever removes an entry (pruning, a damaged entry discarded, a scratch
  folder cleaned) first takes the **exclusive** lock without waiting
  (:func:`exclusive`), and leaves the entry alone if it cannot: it is in use.

The locks are POSIX ``flock`` locks: the kernel drops them when a process
ends, however it ends, so a killed session never leaves one behind. On a
system without ``fcntl`` (Windows) nothing is locked, as before. A folder
that cannot hold a lock file (a read-only cache) is read without one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

LOCK = ".lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Held:
    """A lock held on a folder (``fd`` None: none could be taken, go on)."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing drops the lock


def hold(folder: Path) -> Held | None:
    """A shared lock on ``folder``, waiting while it is being removed;
    None if it was removed (or replaced) in the meantime."""
    fd = _open(folder)
    if fd is None:
        return None if not folder.is_dir() else Held(None)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        os.close(fd)
        return Held(None)
    if not _same(fd, folder):  # renamed aside while we waited: gone
        os.close(fd)
        return None
    return Held(fd)


def exclusive(folder: Path) -> Held | None:
    """The exclusive lock on ``folder`` if nobody holds one; None if in use."""
    fd = _open(folder)
    if fd is None:
        return Held(None)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        return Held(None)
    return Held(fd)


def in_use(folder: Path) -> bool:
    """Does someone hold a lock on ``folder`` (a reader, or a writer)?"""
    held = exclusive(folder)
    if held is None:
        return True
    held.release()
    return False


def create(folder: Path) -> None:
    """Put the lock file in a folder about to be published."""
    with contextlib.suppress(OSError):
        (folder / LOCK).touch()


def _open(folder: Path) -> int | None:
    """The folder's lock file, opened (created if missing); None if not possible."""
    if fcntl is None:
        return None
    path = folder / LOCK
    for flags in (os.O_RDONLY, os.O_RDWR | os.O_CREAT):
        try:
            return os.open(path, flags | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:
            continue  # an entry written without one, or the folder is gone
        except OSError:
            return None  # read-only: no lock
    return None


def _same(fd: int, folder: Path) -> bool:
    """Is ``fd`` still the lock file of ``folder`` (not of a folder moved away)?"""
    try:
        return os.stat(folder / LOCK).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False
