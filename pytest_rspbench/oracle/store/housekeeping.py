"""The stream cache folder looked after: what it holds, and pruning it.

Every entry of the folder (:mod:`.streamcache`'s streams, :mod:`.store`'s
stored outputs, narrowings and gracious borders) is keyed by the code that
wrote it, so a new release or an edited oracle module leaves the old entries
behind, never to be read again, and nothing else removed them. Here each
entry's *last use* is its modification time: written entries have their
time of writing, and the oracle sets it to now whenever it reads one
(a read-only folder is left as it is). Pruning removes entries by that time:

- ``unused_for``: entries not used for that many seconds;
- ``max_size``: then the least recently used, until the folder holds at
  most that many bytes;
- never an entry used at or after ``keep_since`` (what the running session
  has read or written, and what another session may be reading now), nor a
  stream another session holds (:mod:`.locks`: it uses it, whenever it last
  looked it up), nor anything that is not the cache's own (other files are
  left alone);
- always: stream entries of an older format (they can never be read again,
  their key names the format), and scratch files of writers that are gone.

``rspbench cache info`` and ``rspbench cache prune`` (:mod:`pytest_rspbench.cli.cache`)
and ``--rspbench-cache-max-size`` at the end of a pytest session use this.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.oracle.store import locks, streamcache
from pytest_rspbench.oracle.store import outputs as store

RECENT = 600.0
"""Seconds: an entry used this recently may be in use by another session."""

_SCRATCH_AGE = 86_400.0
"""Seconds: a stored output's scratch file older than this was left by a kill."""

_HEX = re.compile(r"[0-9a-f]{64}")
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_AGES = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


@dataclass(frozen=True)
class Entry:
    """One entry of the folder: a stream's dataset or one stored file."""

    path: Path
    kind: str  # "stream" or "stored"
    size: int
    used: float  # last use (modification time), seconds since the epoch
    stale: bool = False  # a stream of an older format: never read again
    label: str = ""  # a stream's IRI and triple count


@dataclass
class Pruned:
    """What :func:`prune` removed (or would remove, for a dry run)."""

    removed: list[Entry] = field(default_factory=list)
    kept: list[Entry] = field(default_factory=list)
    recent: int = 0  # entries kept because they were used at or after keep_since
    failed: int = 0  # entries that could not be removed (permissions, a busy disk)
    busy: int = 0  # streams kept because a running session holds them
    scratch: int = 0  # leftover scratch files and folders removed

    @property
    def freed(self) -> int:
        return sum(e.size for e in self.removed)

    @property
    def remaining(self) -> int:
        return sum(e.size for e in self.kept)


def entries(root: Path) -> list[Entry]:
    """The cache's own entries under ``root``, least recently used first."""
    root = Path(root)
    found: list[Entry] = []
    if not root.is_dir():
        return found
    for path in root.iterdir():
        if path.is_dir() and _HEX.fullmatch(path.name):
            found.append(_stream(path))
    outputs = root / store.FOLDER
    if outputs.is_dir():
        for path in outputs.iterdir():
            if path.is_file() and not path.name.startswith(".") and _stored_name(path.name):
                with contextlib.suppress(OSError):
                    stat = path.stat()
                    found.append(Entry(path, "stored", stat.st_size, stat.st_mtime))
    found.sort(key=lambda e: (e.used, str(e.path)))
    return found


def prune(
    root: Path,
    *,
    unused_for: float | None = None,
    max_size: int | None = None,
    keep_since: float | None = None,
    now: float | None = None,
    dry_run: bool = False,
) -> Pruned:
    """Remove entries of ``root`` as the module describes; see :class:`Pruned`."""
    now = time.time() if now is None else now
    keep_since = now - RECENT if keep_since is None else keep_since
    result = Pruned()
    if not dry_run:
        result.scratch = _clean_scratch(Path(root), now)
    candidates = entries(root)
    removable = [e for e in candidates if e.used < keep_since]
    result.recent = len(candidates) - len(removable)
    doomed = {e.path for e in removable if e.stale}
    if unused_for is not None:
        doomed |= {e.path for e in removable if e.used < now - unused_for}
    if max_size is not None:
        total = sum(e.size for e in candidates if e.path not in doomed)
        for e in removable:  # least recently used first
            if total <= max_size:
                break
            if e.path not in doomed:
                doomed.add(e.path)
                total -= e.size
    for e in candidates:
        outcome = "removed" if dry_run else _remove(e.path) if e.path in doomed else "kept"
        if e.path in doomed and outcome == "removed":
            result.removed.append(e)
        else:
            result.failed += outcome == "failed"
            result.busy += outcome == "busy"
            result.kept.append(e)
    return result


def parse_size(text: str) -> int | None:
    """Bytes in ``text``: ``500M``, ``10GB``, ``2g``, ``1048576``; None for ``none``.

    >>> parse_size("10GB"), parse_size("1.5k"), parse_size("none")
    (10737418240, 1536, None)
    """
    clean = text.strip().lower().replace(" ", "")
    if clean in ("none", "off", "unlimited"):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kmgt]?)(?:i?b)?", clean)
    if match is None:
        raise ValueError(
            f"{text!r} is not a size: write a number of bytes with an optional unit, "
            "e.g. 500M, 10GB or 1048576 (or none for no limit)"
        )
    return int(float(match[1]) * _UNITS[match[2]])


def parse_age(text: str) -> float:
    """Seconds in ``text``: ``30d``, ``12h``, ``2w``, ``90m``, ``45s``; a bare number is days.

    >>> parse_age("30"), parse_age("12h"), parse_age("1.5d")
    (2592000.0, 43200.0, 129600.0)
    """
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smhdw]?)", text.strip().lower())
    if match is None:
        raise ValueError(
            f"{text!r} is not an age: write a number of days, or a number with s, m, h, d "
            "or w (seconds, minutes, hours, days, weeks), e.g. 30d or 12h"
        )
    return float(match[1]) * _AGES[match[2] or "d"]


def human_size(size: float) -> str:
    """``size`` bytes for people.

    >>> human_size(0), human_size(1536), human_size(3 * 2**30)
    ('0 B', '1.5 KB', '3.0 GB')
    """
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def _stream(path: Path) -> Entry:
    size = sum(_sizes(path))
    used = 0.0
    with contextlib.suppress(OSError):
        used = path.stat().st_mtime
    try:
        meta = _meta_head(path / streamcache.META)
        stale = meta["format"] != streamcache.FORMAT
        label = f"{meta['iri']}, {meta['triples']:,} triples"
    except (OSError, ValueError, KeyError, TypeError):
        stale, label = False, "(no readable metadata)"
    return Entry(path, "stream", size, used, stale, label)


_HEAD_FIELDS = re.compile(
    r'"format": (?P<format>\d+), "iri": (?P<iri>"(?:[^"\\]|\\.)*"), .*?"triples": (?P<triples>\d+)'
)


def _meta_head(path: Path) -> dict[str, object]:
    """A stream entry's format, IRI and triple count. They come first in its
    metadata, whose event times run to megabytes for a long stream: read
    the head only, and the whole file where the head does not say."""
    with path.open("rb") as stream:
        head = stream.read(1 << 14).decode("utf-8", "replace")
    match = _HEAD_FIELDS.match(head, 1) if head.startswith("{") else None
    if match is None:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    return {
        "format": int(match["format"]),
        "iri": json.loads(match["iri"]),
        "triples": int(match["triples"]),
    }


def _sizes(path: Path) -> Iterator[int]:
    for item in path.rglob("*"):
        with contextlib.suppress(OSError):
            if item.is_file():
                yield item.stat().st_size


def _stored_name(name: str) -> bool:
    return name.endswith((store.ARROW, ".json.gz"))


def _remove(path: Path) -> str:
    """Remove an entry: ``removed``, ``busy`` (a session holds it) or ``failed``.

    A stream is removed under its exclusive lock, and renamed aside first, so
    no reader ever finds half of one under its key. A stored output is read
    whole when it is read: unlinking it under a reader is harmless."""
    try:
        if not path.is_dir():
            path.unlink()
            return "removed"
        held = locks.exclusive(path)
        if held is None:
            return "busy"
        try:
            aside = path.with_name(f".gone-{os.getpid()}-{path.name}")
            os.rename(path, aside)
            shutil.rmtree(aside, ignore_errors=True)
        finally:
            held.release()
    except FileNotFoundError:
        return "removed"  # another process pruned it first
    except OSError:
        return "failed"
    return "removed"


def _clean_scratch(root: Path, now: float) -> int:
    """Leftovers of writers that are gone; returns how many were removed."""
    if not root.is_dir():
        return 0
    before = _count(root.glob(".tmp-*")) + _count(root.glob(".gone-*"))
    streamcache.clean_leftovers(root)
    for path in root.glob(".gone-*"):  # a prune cut short
        match = re.match(r"\.gone-(\d+)-", path.name)
        if match is None or not _alive(int(match[1])):
            streamcache.remove_unheld(path)
    removed = before - _count(root.glob(".tmp-*")) - _count(root.glob(".gone-*"))
    outputs = root / store.FOLDER
    if outputs.is_dir():
        for path in outputs.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < now - _SCRATCH_AGE:
                    path.unlink()
                    removed += 1
    return removed


def _count(paths: Iterable[Path]) -> int:
    return sum(1 for _ in paths)


def _alive(pid: int) -> bool:
    import psutil

    return bool(psutil.pid_exists(pid))
