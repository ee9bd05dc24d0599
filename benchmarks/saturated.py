"""Verdicts that do not move: the same specs, on a quiet and on a saturated machine.

Runs pytest twice over the same specs and engines (any pytest arguments),
once on a quiet machine and once with a CPU hog on every core (and, with
``--disk``, a writer that fsyncs all the time), then compares each item's
outcome and writes the table (docs/reliability.md, "Verdicts under load")::

    .venv/bin/python benchmarks/saturated.py --disk -o saturated.md -- \\
        specs/ --rspbench-engine reference,faulty-wrong-bounds

Both runs record every engine's answers (``--rspbench-record``, in
``quiet-answers/`` and ``saturated-answers/`` of the ``--keep`` folder).

An item that judges correctness only must come out the same. An item that
judges a delay, memory or CPU threshold may differ, but only by failing on
the saturated machine with the load recorded as overloaded (its failure text
then says "measured while the machine was overloaded (load ... on ... cores)").
An item whose engine sent other answers under load (an engine with a race of
its own, such as rsp-js's D5 and D7: their arrival times aside, the two
recordings differ) is listed as ``engine``: two outputs were judged, not one
output twice. Any other difference is a verdict that moved: the exit status
is 1. ``--by-engine`` sums the table up per engine (a whole suite over many
engines); ``--compare QUIET SATURATED`` compares two kept results files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOG = "while True: pass"
# Rewrites one 4 MiB block and fsyncs it, forever: the disk stays busy, the
# file never grows.
DISK = """
import os, sys
block = os.urandom(4 << 20)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
while True:
    os.pwrite(fd, block, 0)
    os.fsync(fd)
"""


@contextmanager
def saturated(hogs: int | None = None, disk: Path | None = None) -> Iterator[list[int]]:
    """A CPU hog on each of ``hogs`` cores (default: every core), and with
    ``disk`` an fsync-heavy writer to that file, while the block runs.
    Yields the processes' ids; each is stopped (and its file removed) after."""
    count = hogs if hogs is not None else (os.cpu_count() or 1)
    started = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]
    if disk is not None:
        started.append(subprocess.Popen([sys.executable, "-c", DISK, str(disk)]))
    try:
        yield [p.pid for p in started]
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if disk is not None:
            disk.unlink(missing_ok=True)


def run_pytest(
    args: Sequence[str], results: Path, cwd: Path | None = None, record: Path | None = None
) -> int:
    """pytest over ``args`` writing its results file to ``results`` and, with
    ``record``, every engine's answers there (``--rspbench-record``); its exit status."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args]
    command += ["--rspbench-json", str(results)]
    if record is not None:
        command += ["--rspbench-record", str(record)]
    return subprocess.run(command, cwd=cwd).returncode


# -- comparing two results files ------------------------------------------------


@dataclass(frozen=True)
class Item:
    """What one item of a results file says."""

    nodeid: str
    outcome: str
    departures: tuple[str, ...]
    timed: bool  # judges a delay, memory or CPU threshold
    load: dict[str, Any] | None
    engine: str = ""
    spec: str = ""
    case: str = ""

    @property
    def verdict(self) -> str:
        """Its outcome, with the departures of a failure."""
        if self.departures:
            return f"{self.outcome} ({', '.join(self.departures)})"
        return self.outcome


def items(document: dict[str, Any]) -> dict[str, Item]:
    """The items of a results document, by node id."""
    from pytest_rspbench.report.load import MACHINE_METRICS as METRICS
    from pytest_rspbench.spec.thresholds import parse

    out = {}
    for record in document.get("items", []):
        texts = [t["threshold"] for t in record.get("thresholds") or []]
        timed = any(parse(text).metric in METRICS for text in texts)
        departures = tuple(sorted(d["name"] for d in record.get("departures") or []))
        out[record["nodeid"]] = Item(
            record["nodeid"],
            record.get("outcome") or "?",
            departures,
            timed,
            record.get("load"),
            str(record.get("engine") or ""),
            str(record.get("spec") or ""),
            str(record.get("case") or ""),
        )
    return out


@dataclass(frozen=True)
class Row:
    """One item on both machines."""

    nodeid: str
    quiet: Item | None
    busy: Item | None
    # Did the engine send the same answers in both runs (None: not recorded)?
    same_answers: bool | None = None

    @property
    def agrees(self) -> str:
        """``same``; ``overloaded`` (a timed item failing under load, allowed);
        ``engine`` (the engine's own answers differ between the runs, so the
        verdicts judge two outputs: the engine's race, not the verdict's); or
        ``MOVED`` (the same answers judged differently, or nothing recorded)."""
        q, b = self.quiet, self.busy
        if (
            q is not None
            and b is not None
            and (q.outcome, q.departures) == (b.outcome, b.departures)
        ):
            return "same"
        if q is not None and b is not None and q.timed and b.outcome == "failed":
            if (b.load or {}).get("overloaded"):
                return "overloaded"
        if self.same_answers is False:
            return "engine"
        return "MOVED"


def compare(
    quiet: dict[str, Item],
    busy: dict[str, Item],
    answers: tuple[Path, Path] | None = None,
) -> list[Row]:
    """Every item of either run, in the quiet run's order; with ``answers``
    (the two runs' ``--rspbench-record`` folders), whether its engine sent the
    same answers in both."""
    names = list(quiet) + [n for n in busy if n not in quiet]
    rows = []
    for name in names:
        q, b = quiet.get(name), busy.get(name)
        same = None
        if answers is not None and q is not None and b is not None:
            same = recorded(answers[0], q) == recorded(answers[1], b)
        rows.append(Row(name, q, b, same))
    return rows


def recorded(folder: Path, item: Item) -> list[Any] | None:
    """The answers an item's engine sent, as ``--rspbench-record`` wrote them,
    without their arrival times (which always differ); None when none were
    recorded. Their order is kept: relations out of order are another answer."""
    from pytest_rspbench.runner import safe_name

    path = folder / item.spec / f"{safe_name(item.case)}.jsonl"
    if not item.spec or not path.is_file():
        return None
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            value = json.loads(line)
            value.pop("arrival", None)
            lines.append(value)
    return lines


KINDS = ("same", "overloaded", "engine", "MOVED")


def summed(counts: dict[str, int]) -> str:
    """``1574 same, 1 timing items failed under overload (allowed), ...``"""
    return (
        f"{counts['same']} same, {counts['overloaded']} timing items failed under "
        f"overload (allowed), {counts['engine']} whose engine answered differently "
        f"(its answers recorded in both runs differ), {counts['MOVED']} moved"
    )


def load_text(item: Item | None) -> str:
    """``7.9 / 2`` (peak load average / cores), or ``-``."""
    if item is None or not item.load:
        return "-"
    return f"{item.load['peak']:.1f} / {item.load['cores']}"


def table(rows: Sequence[Row]) -> str:
    """The comparison as a Markdown table, with a count of each kind of row."""
    lines = [
        "| item | judges | quiet | load | saturated | load | agrees |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        judges = (
            "timing"
            if any(i is not None and i.timed for i in (row.quiet, row.busy))
            else "correctness"
        )
        quiet = row.quiet.verdict if row.quiet else "(absent)"
        busy = row.busy.verdict if row.busy else "(absent)"
        lines.append(
            f"| `{row.nodeid}` | {judges} | {quiet} | {load_text(row.quiet)} | {busy} "
            f"| {load_text(row.busy)} | {row.agrees} |"
        )
    counts = {k: sum(r.agrees == k for r in rows) for k in KINDS}
    lines.append("")
    lines.append(f"{len(rows)} items: {summed(counts)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run specs on a quiet and a saturated machine and compare each item's verdict.",
        epilog="Arguments after -- go to pytest, e.g. -- specs/ --rspbench-engine reference",
    )
    parser.add_argument("--hogs", type=int, default=None, help="CPU hogs (default: one per core)")
    parser.add_argument(
        "--disk", action="store_true", help="also a writer that fsyncs all the time"
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="write the table here too")
    parser.add_argument(
        "--keep", type=Path, default=None, help="keep both results files in this folder"
    )
    parser.add_argument(
        "--by-engine",
        action="store_true",
        help="sum the table up per engine and list only the items that are not the same "
        "(for a whole suite over many engines)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar=("QUIET", "SATURATED"),
        help="run nothing: compare two results files written before (e.g. by --keep; "
        "the answers recorded beside them, NAME-answers/, are compared too when there)",
    )
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments (after --)")
    options = parser.parse_args(argv)
    if options.compare:
        found = [p.parent / f"{p.stem}-answers" for p in options.compare]
        answers = (found[0], found[1]) if all(f.is_dir() for f in found) else None
        rows = compare(*(items(_read(path)) for path in options.compare), answers=answers)
    else:
        if not options.pytest_args:
            parser.error("name the specs to run after --, e.g. -- specs/rspql")
        with tempfile.TemporaryDirectory() as tmp:
            folder = options.keep or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            quiet, busy = folder / "quiet.json", folder / "saturated.json"
            answers = (folder / "quiet-answers", folder / "saturated-answers")
            run_pytest(options.pytest_args, quiet, record=answers[0])
            with saturated(options.hogs, folder / "disk-hog.bin" if options.disk else None):
                run_pytest(options.pytest_args, busy, record=answers[1])
            rows = compare(items(_read(quiet)), items(_read(busy)), answers)
    text = by_engine(rows) if options.by_engine else table(rows)
    print(text)
    if options.output is not None:
        options.output.write_text(text + "\n", encoding="utf-8")
    return 1 if any(r.agrees == "MOVED" for r in rows) else 0


def by_engine(rows: Sequence[Row]) -> str:
    """The comparison summed up per engine, then every row that is not ``same``:
    the table for a whole suite over many engines."""
    engines: dict[str, list[Row]] = {}
    for row in rows:
        either = row.quiet or row.busy
        engines.setdefault(either.engine if either else "?", []).append(row)
    lines = [
        "| engine | items | correctness items: same | timing items: same / overloaded "
        "| engine answered differently | moved | quiet: passed / failed / xfailed / skipped "
        "| peak load quiet / saturated |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for engine, group in engines.items():
        timed = [r for r in group if any(i is not None and i.timed for i in (r.quiet, r.busy))]
        plain = [r for r in group if r not in timed]
        outcomes = [r.quiet.outcome for r in group if r.quiet is not None]
        tally = " / ".join(
            str(sum(o == k for o in outcomes)) for k in ("passed", "failed", "xfailed", "skipped")
        )
        peaks = []
        for side in ("quiet", "busy"):
            loads = [
                i.load["peak"]
                for r in group
                if (i := getattr(r, side)) is not None and i.load and i.load.get("peak") is not None
            ]
            peaks.append(f"{min(loads):.1f}-{max(loads):.1f}" if loads else "-")
        lines.append(
            f"| {engine} | {len(group)} | {sum(r.agrees == 'same' for r in plain)} of "
            f"{len(plain)} | {sum(r.agrees == 'same' for r in timed)} / "
            f"{sum(r.agrees == 'overloaded' for r in timed)} of {len(timed)} | "
            f"{sum(r.agrees == 'engine' for r in group)} | "
            f"{sum(r.agrees == 'MOVED' for r in group)} | {tally} | "
            f"{peaks[0]} / {peaks[1]} (cores: {_cores(group)}) |"
        )
    odd = [r for r in rows if r.agrees != "same"]
    if odd:
        lines += ["", table(odd)]
    counts = {k: sum(r.agrees == k for r in rows) for k in KINDS}
    lines += ["", f"{len(rows)} items over {len(engines)} engines: {summed(counts)}"]
    return "\n".join(lines)


def _cores(rows: Sequence[Row]) -> str:
    cores = {i.load.get("cores") for r in rows for i in (r.quiet, r.busy) if i and i.load}
    return ", ".join(str(c) for c in sorted(c for c in cores if c is not None)) or "-"


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise SystemExit(f"pytest wrote no results file at {path}: see its output above")
    return json.loads(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
