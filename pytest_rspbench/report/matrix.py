"""``rspbench matrix``: one suite, several engines, one table.

Runs pytest once per engine over the same specs (a suite or paths), each run
writing a results file, and tabulates the outcome of every case for every
engine: the functionality matrix of LSBench Table 1 (supported, wrong,
error, unsupported) and, over the faulty engines, the mutation table that
shows the suite catches each planted bug. The oracle's stored outputs
(:mod:`pytest_rspbench.oracle.store.outputs`) make every run after the first cheap
when the engines share their semantics.

    rspbench matrix --suite conformance -e reference -e faulty-no-purge \\
        -o docs/mutation-table.md

Cells: ``pass``; ``FAIL`` (ran, wrong output or a threshold missed);
``known`` (a declared known failure that still fails); ``error`` (the engine
crashed or the item could not run); ``skip`` (the engine's profile cannot
run the case: unsupported); ``·`` (the run did not have the case). A cell
that did not pass names its departure classes (docs/reading-a-failure.md),
and the engine table counts the cases that show each one. ``--conformance
DIR`` also writes the runs' conformance report
(:mod:`pytest_rspbench.report.conformance`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_rspbench import __version__
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.report.conformance.entries import row_name

CELLS = {"passed": "pass", "failed": "FAIL", "xfailed": "known", "error": "error"}
LEGEND = (
    "`pass` correct · `FAIL` ran and was wrong (or missed a threshold) · "
    "`known` a declared known failure that still fails · `error` the engine "
    "crashed or the item could not run · `skip` the engine's profile cannot run "
    "the case (unsupported) · `·` not in that run; after a cell that did not pass, its "
    "departure classes (docs/reading-a-failure.md)"
)


class MatrixError(RspbenchError):
    """A run of the matrix could not complete (not: a case failed)."""


@dataclass
class EngineRun:
    """One engine's pytest run: its exit status, time and per-case cells."""

    engine: str
    status: int
    seconds: float
    cells: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    departures: dict[str, tuple[str, ...]] = field(default_factory=dict)


def add_commands(commands: Any) -> None:
    """Register ``rspbench matrix`` on the top-level subparsers."""
    matrix = commands.add_parser(
        "matrix",
        help="run specs against several engines and tabulate the outcomes",
        description="Run pytest once per engine over the same specs and write a table "
        "of every case's outcome per engine (Markdown). Arguments after -- go to "
        "pytest unchanged.",
    )
    matrix.add_argument(
        "-e",
        "--engine",
        action="append",
        required=True,
        metavar="NAME|PATH",
        help="an engine (registered name or engine.yaml); repeat for each column",
    )
    matrix.add_argument(
        "--suite",
        action="append",
        default=[],
        metavar="NAME[/PART]",
        help="a registered suite to run (repeatable), as --rspbench-suite (default: none)",
    )
    matrix.add_argument("paths", nargs="*", help="spec files or folders to run")
    matrix.add_argument("-o", "--output", type=Path, help="Markdown file (default: stdout)")
    matrix.add_argument("--json", type=Path, help="also write the table as JSON (default: no JSON)")
    matrix.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each engine's results file and pytest log in DIR (default: not kept)",
    )
    matrix.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="engines run at once, each its own pytest (its own Spark), after the "
        "first engine's run (which stores the oracle's outputs the others read); a "
        "replay waits on the stream's clock most of the time, so on a small machine "
        "a few at once finish sooner; the table is the same whatever N is (default: 1)",
    )
    matrix.add_argument(
        "--conformance",
        type=Path,
        metavar="DIR",
        help="also write the conformance report of the runs to DIR, as rspbench "
        "report --conformance does (default: none)",
    )
    matrix.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    targets = [a for suite in args.suite for a in ("--rspbench-suite", suite)] + list(args.paths)
    if not targets:
        raise MatrixError(
            "nothing to run.\nHINT: name a suite (--suite conformance) or spec paths."
        )
    passthrough = list(getattr(args, "pytest_args", []) or [])
    with tempfile.TemporaryDirectory(prefix="rspbench-matrix-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        runs = run_engines(args.engine, targets, passthrough, folder, args.jobs)
        for outcome, shown in zip(runs, column_names(args.engine), strict=True):
            outcome.engine = shown
        if args.conformance:
            conformance(folder, args.engine, args.conformance)
    command = "rspbench matrix " + " ".join(
        [*(f"-e {e}" for e in args.engine), *(f"--suite {s}" for s in args.suite), *args.paths]
    )
    text = markdown(runs, command)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        print(f"table written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.json:
        args.json.write_text(
            json.dumps(as_json(runs), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
    return 0


def column_names(engines: Sequence[str]) -> list[str]:
    """Each engine's column header: its profile's ``name``, as item ids show
    it (spec-format.md, "Case ids"); the engine as given when that name is
    not unique among the columns or the profile cannot be read.

    >>> column_names(["reference", "engines/reference/engine.yaml"])
    ['reference', 'engines/reference/engine.yaml']
    """
    from pytest_rspbench.engine.profiles import identify
    from pytest_rspbench.errors import RspbenchError

    names = []
    for engine in engines:
        try:
            names.append(identify(engine, Path.cwd()))
        except RspbenchError:
            names.append(engine)
    return [n if names.count(n) == 1 else e for n, e in zip(names, engines, strict=True)]


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of engines") from None
    if not 1 <= jobs <= 32:
        raise argparse.ArgumentTypeError("--jobs takes 1 to 32")
    return jobs


def run_engines(
    engines: Sequence[str],
    targets: Sequence[str],
    passthrough: Sequence[str],
    folder: Path,
    jobs: int = 1,
) -> list[EngineRun]:
    """:func:`run_engine` for each engine, ``jobs`` at once; the runs in the
    engines' order. The first engine runs alone: it fills the oracle's stored
    outputs, which the others then read instead of computing each case again
    at once. A broken run stops the matrix once those under way end."""
    if jobs <= 1 or len(engines) <= 2:
        return [run_engine(e, targets, passthrough, folder, n) for n, e in enumerate(engines)]
    from concurrent.futures import ThreadPoolExecutor

    first = run_engine(engines[0], targets, passthrough, folder, 0)
    with ThreadPoolExecutor(max_workers=min(jobs, len(engines) - 1)) as pool:
        futures = [
            pool.submit(run_engine, engine, targets, passthrough, folder, number)
            for number, engine in enumerate(engines)
            if number > 0
        ]
        try:
            return [first, *(future.result() for future in futures)]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def run_engine(
    engine: str, targets: Sequence[str], passthrough: Sequence[str], folder: Path, number: int
) -> EngineRun:
    """Run pytest for one engine; a failing case is a result, a broken run an error."""
    results = folder / f"{number:02d}-{_slug(engine)}.json"
    log = results.with_suffix(".log")
    command = [
        sys.executable,
        "-m",
        "pytest",
        *targets,
        "--rspbench-engine",
        engine,
        "--rspbench-json",
        str(results),
        "-q",
        "-rN",
        *passthrough,
    ]
    print(f"{engine}: running {' '.join(command[3:])}", file=sys.stderr, flush=True)
    began = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        status = subprocess.call(
            command, stdout=out, stderr=subprocess.STDOUT, env=os.environ | {"CI": "true"}
        )
    seconds = time.monotonic() - began
    if status not in (0, 1) or not results.is_file():
        tail = "".join(log.read_text(encoding="utf-8", errors="replace").splitlines(True)[-15:])
        raise MatrixError(
            f"pytest for engine {engine!r} stopped with exit status {status} "
            f"(0 or 1 expected) after {seconds:.0f} s; its last lines:\n{tail}"
            f"HINT: run the command above by hand to see the whole output (log: {log})."
        )
    outcome = read_results(engine, status, seconds, results)
    counts = _counts(outcome.cells.values())
    print(
        f"{engine}: {', '.join(f'{n} {c}' for c, n in counts.items())} in {seconds:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    return outcome


def conformance(folder: Path, engines: Sequence[str], out: Path) -> None:
    """The conformance report of the runs' results files (``--conformance``)."""
    from pytest_rspbench.report import results
    from pytest_rspbench.report.conformance.build import write

    paths = [folder / f"{number:02d}-{_slug(e)}.json" for number, e in enumerate(engines)]
    summary = write([(p.name, results.load(p)) for p in paths], out)
    scores = ", ".join(f"{e['engine']} {e['conformance']}" for e in summary["engines"])
    print(f"conformance report written to {out}/ ({scores})", file=sys.stderr)


def read_results(engine: str, status: int, seconds: float, path: Path) -> EngineRun:
    """The cells of one engine's results file (case items only)."""
    outcome = EngineRun(engine, status, seconds)
    for item in json.loads(path.read_text(encoding="utf-8")).get("items", []):
        if "spec" not in item:  # mismatch and sweep items span engines
            continue
        row = row_name(item["spec"], item.get("params") or {})
        outcome.cells[row] = cell = cell_of(item)
        reason = item.get("known_failure") or item.get("message")
        if reason and cell != "pass":
            outcome.reasons[row] = str(reason).splitlines()[0]
        names = tuple(str(d.get("name")) for d in item.get("departures") or ())
        if names and cell != "pass":
            outcome.departures[row] = names
    return outcome


def cell_of(item: Mapping[str, Any]) -> str:
    """An item record's cell: pass, FAIL, known, error or skip."""
    raw = item.get("outcome")
    cell = CELLS.get(str(raw), "skip" if raw == "skipped" else "error")
    return "error" if cell == "FAIL" and item.get("engine_error") else cell


def html_table(items: Sequence[Mapping[str, Any]]) -> str:
    """The matrix of a run whose items cover several engines, as HTML
    (empty for one engine): LSBench's functionality matrix in the reports."""
    from html import escape

    cells: dict[str, dict[str, str]] = {}
    engines: list[str] = []
    for item in items:
        engine = _engine_of(item)
        if "spec" not in item or not engine:
            continue
        if engine not in engines:
            engines.append(engine)
        row = row_name(item["spec"], item.get("params") or {})
        cells.setdefault(row, {})[engine] = cell_of(item) if item.get("outcome") else "·"
    if len(engines) < 2:
        return ""
    words = {
        "pass": "supported",
        "FAIL": "wrong",
        "known": "wrong (known)",
        "error": "error",
        "skip": "unsupported",
        "·": "·",
    }
    head = "".join(f"<th>{escape(e)}</th>" for e in engines)
    rows = "".join(
        f"<tr><td>{escape(row)}</td>"
        + "".join(
            f'<td class="{escape(c)}">{escape(words.get(c, c))}</td>'
            for c in (cells[row].get(e, "·") for e in engines)
        )
        + "</tr>"
        for row in sorted(cells)
    )
    return (
        '<h2 class="rspbench-matrix-title">Engines</h2>'
        f'<table class="rspbench-matrix"><tr><th>case</th>{head}</tr>{rows}</table>'
    )


def _engine_of(item: Mapping[str, Any]) -> str:
    """The engine's id as in the item's case id (``...,engine=rspjs``): the
    same for items that ran and items that were skipped before running."""
    for part in reversed(str(item.get("case") or "").split(",")):
        if part.startswith("engine="):
            return part.removeprefix("engine=")
    return str(item.get("engine") or "")


def markdown(runs: Sequence[EngineRun], command: str) -> str:
    """The summary per engine, the cases each engine fails, and the full matrix."""
    rows = sorted({row for r in runs for row in r.cells})
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"<!-- generated by `{command}` (pytest-rspbench {__version__}, {now}); "
        "do not edit by hand -->",
        "",
        "| engine | pass | FAIL | known | error | skip | time | departures (cases) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        counts = _counts(r.cells.values())
        out.append(
            f"| {r.engine} | "
            + " | ".join(str(counts.get(c, 0)) for c in ("pass", "FAIL", "known", "error", "skip"))
            + f" | {_duration(r.seconds)} | {_departure_counts(r)} |"
        )
    out += ["", "Cases each engine fails:", ""]
    for r in runs:
        failing = [row for row in rows if r.cells.get(row) in ("FAIL", "error")]
        listed = ", ".join(f"`{row}`" for row in failing) if failing else "none"
        out.append(f"- **{r.engine}** ({len(failing)}): {listed}")
    out += ["", LEGEND, "", "| case | " + " | ".join(r.engine for r in runs) + " |"]
    out.append("|---|" + "---|" * len(runs))
    for row in rows:
        cells = [_cell(r.cells.get(row, "·"), r.departures.get(row, ())) for r in runs]
        out.append(f"| `{row}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def as_json(runs: Sequence[EngineRun]) -> dict[str, Any]:
    return {
        "tool": f"pytest-rspbench {__version__}",
        "engines": [
            {
                "engine": r.engine,
                "exit_status": r.status,
                "seconds": round(r.seconds, 1),
                "cells": r.cells,
                "reasons": r.reasons,
                "departures": {row: list(names) for row, names in r.departures.items()},
            }
            for r in runs
        ],
    }


def _cell(value: str, departures: Sequence[str] = ()) -> str:
    shown = f"**{value}**" if value in ("FAIL", "error") else value
    return f"{shown} {', '.join(departures)}" if departures else shown


def _departure_counts(run: EngineRun) -> str:
    """The departure classes of an engine's failing cases, each with how many
    cases show it (most first): what kind of bug each engine has."""
    counts = _counts(name for names in run.departures.values() for name in names)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{name} {n}" for name, n in ranked) or "none"


def _counts(cells: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for cell in cells:
        counts[cell] = counts.get(cell, 0) + 1
    return counts


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _slug(engine: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(engine).stem or engine)
