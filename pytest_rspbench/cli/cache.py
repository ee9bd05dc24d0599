"""``rspbench cache info`` and ``rspbench cache prune``: the stream cache folder.

Which folder: ``--cache-dir DIR``, else ``$RSPBENCH_CACHE_DIR``, else each
default one that exists: pytest's (``.pytest_cache/d/rspbench-streams`` in
the current directory) and the one ``rspbench oracle`` uses
(``~/.cache/pytest-rspbench/streams``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import time
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import RspbenchError


def add_commands(commands: Any) -> None:
    """Register ``rspbench cache info`` and ``rspbench cache prune``."""
    cache = commands.add_parser(
        "cache",
        help="what the stream cache folder holds; prune it",
        description="The oracle's cache folder: streams written as Parquet and stored "
        "expected outputs. Entries are keyed by the code that wrote them, so after an "
        "upgrade the old ones are never read again; prune removes them by last use.",
    )
    actions = cache.add_subparsers(title="actions")
    info = actions.add_parser(
        "info",
        help="the folder's entries, their size and last use",
        description="Show the folder, its streams and stored outputs, their size and "
        "when they were last used.",
    )
    _folder_argument(info)
    info.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list every stream entry (default: counts only)",
    )
    info.set_defaults(run=run_info)
    prune = actions.add_parser(
        "prune",
        help="remove entries by last use (and stale ones)",
        description="Remove entries not used for --unused-for, then the least recently "
        "used until the folder holds at most --max-size. Streams of an older format and "
        "leftovers of killed runs are always removed. Entries used in the last 10 minutes "
        "are kept (a session may be reading them). Removed entries are written or "
        "computed again when next needed.",
    )
    _folder_argument(prune)
    prune.add_argument(
        "--unused-for",
        type=_age,
        metavar="AGE",
        help="remove entries not used for this long: 30d, 12h, 2w (a bare number is days; "
        "default: no age limit)",
    )
    prune.add_argument(
        "--max-size",
        type=_size,
        metavar="SIZE",
        help="then remove the least recently used until the folder holds at most "
        "this much: 5GB, 500M (0 removes all but recent entries; default: no size limit)",
    )
    prune.add_argument(
        "-n",
        "--dry-run",
        action="store_true",
        help="say what would go, remove nothing (default: remove)",
    )
    prune.set_defaults(run=run_prune)
    cache.set_defaults(run=lambda args: _usage(cache))


def run_info(args: argparse.Namespace) -> int:
    from pytest_rspbench.oracle.store import housekeeping as H

    now = time.time()
    for folder, why in _folders(args.cache_dir):
        print(f"{folder} ({why})")
        if not folder.is_dir():
            print("  does not exist: nothing cached yet")
            continue
        found = H.entries(folder)
        for kind, title in (("stream", "streams"), ("stored", "stored outputs")):
            some = [e for e in found if e.kind == kind]
            line = f"  {title:<15} {len(some):>5}  {H.human_size(sum(e.size for e in some)):>9}"
            if some:
                line += f"  last used {_ago(now - some[-1].used)} .. {_ago(now - some[0].used)}"
            print(line)
        stale = [e for e in found if e.stale]
        if stale:
            size = H.human_size(sum(e.size for e in stale))
            print(f"  of the streams, {len(stale)} ({size}) are of an older format: never read")
        for days in (7, 30):
            old = [e for e in found if e.used < now - days * 86_400]
            if old:
                size = H.human_size(sum(e.size for e in old))
                print(f"  unused for {days} days: {len(old)} entries, {size}")
        print(f"  total           {len(found):>5}  {H.human_size(sum(e.size for e in found)):>9}")
        if args.verbose:
            for e in found:
                if e.kind == "stream":
                    mark = "  (older format)" if e.stale else ""
                    print(f"    {e.path.name[:12]}  {H.human_size(e.size):>9}  "
                          f"used {_ago(now - e.used)}  {e.label}{mark}")  # fmt: skip
        if found:
            print(f"  prune with: rspbench cache prune --cache-dir {folder} --unused-for 30d")
    _archives()
    return 0


def _archives() -> None:
    """The Java class-data archives (:mod:`pytest_rspbench.oracle.spark.cds`): they
    look after themselves, but take room too."""
    from pytest_rspbench.oracle.spark.cds import cache_root
    from pytest_rspbench.oracle.spark.cdsbuild import UNUSED_MAX_AGE
    from pytest_rspbench.oracle.store import housekeeping as H

    root = cache_root()
    sizes = []
    for path in sorted(root.glob("*.jsa")) if root.is_dir() else []:
        with contextlib.suppress(OSError):  # one being replaced right now
            sizes.append(path.stat().st_size)
    if sizes:
        print(
            f"{root} (Spark's class-data archives, one per Java, Spark and driver settings): "
            f"{len(sizes)} files, {H.human_size(sum(sizes))}; one unused for "
            f"{UNUSED_MAX_AGE // 86_400} days "
            "is removed when another is built"
        )


def run_prune(args: argparse.Namespace) -> int:
    from pytest_rspbench.oracle.store import housekeeping as H

    if args.unused_for is None and args.max_size is None:
        raise RspbenchError(
            "rspbench cache prune: say what to remove.\n"
            "HINT: --unused-for 30d (entries not used for 30 days), --max-size 5GB (the "
            "least recently used beyond 5 GB), or both; --dry-run shows what would go."
        )
    verb = "would remove" if args.dry_run else "removed"
    for folder, why in _folders(args.cache_dir):
        if not folder.is_dir():
            print(f"{folder} ({why}): does not exist")
            continue
        result = H.prune(
            folder, unused_for=args.unused_for, max_size=args.max_size, dry_run=args.dry_run
        )
        streams = sum(1 for e in result.removed if e.kind == "stream")
        stored = len(result.removed) - streams
        print(
            f"{folder} ({why}): {verb} {streams} streams and {stored} stored outputs, "
            f"{H.human_size(result.freed)}; {H.human_size(result.remaining)} kept"
            + (f"; {result.scratch} leftovers of killed runs removed" if result.scratch else "")
        )
        if result.failed:
            print(
                f"  {result.failed} entries could not be removed: check the folder's "
                "permissions, or whether another program holds them"
            )
        if result.recent:
            print(
                f"  {result.recent} entries used in the last 10 minutes were left alone "
                "(a session may be reading them)"
            )
        if result.busy:
            print(f"  {result.busy} streams were left alone: a running session is using them")
    return 0


def _folder_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="the folder (default: $RSPBENCH_CACHE_DIR, else pytest's in this directory "
        "and ~/.cache/pytest-rspbench/streams, each that exists)",
    )


def _folders(chosen: Path | None) -> list[tuple[Path, str]]:
    from pytest_rspbench.oracle.store.streamcache import ENV, default_cache_dir

    if chosen is not None:
        return [(chosen.expanduser().resolve(), "--cache-dir")]
    if os.environ.get(ENV):
        return [(Path(os.environ[ENV]).expanduser().resolve(), f"${ENV}")]
    pytest_default = Path.cwd() / ".pytest_cache" / "d" / "rspbench-streams"
    user_default = default_cache_dir(None)
    found = [
        (folder, why)
        for folder, why in (
            (pytest_default, "pytest's cache in this directory"),
            (user_default, "rspbench oracle's default"),
        )
        if folder.is_dir()
    ]
    return found or [(user_default, "rspbench oracle's default")]


def _size(text: str) -> int:
    from pytest_rspbench.oracle.store.housekeeping import parse_size

    try:
        size = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if size is None:
        raise argparse.ArgumentTypeError("--max-size needs a size: e.g. 5GB")
    return size


def _age(text: str) -> float:
    from pytest_rspbench.oracle.store.housekeeping import parse_age

    try:
        return parse_age(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _ago(seconds: float) -> str:
    """``seconds`` ago, for people: ``just now``, ``5 min ago``, ``3 days ago``."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 2 * 86_400:
        return f"{seconds / 3600:.0f} h ago"
    if seconds < 400 * 86_400:
        return f"{seconds / 86_400:.0f} days ago"
    return datetime.datetime.fromtimestamp(time.time() - seconds).strftime("on %Y-%m-%d")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
