"""What an exploration shows: a progress line, a table, explore.json, a last line.

While it runs, one line on stderr, rewritten in place on a terminal and
printed every :data:`EVERY` seconds otherwise (a CI log)::

    explore reference: 212 cases, 3 failures (r2s-mismatch 3), 0 refused, size 8, 88 s left

At the end, the table (one row per group) and the last line::

    departure     constructs    cases  first spec written           explanation
    r2s-mismatch  minus, union      3  02-r2s-mismatch-minus.un…    the relation …
    1,234 cases, 3 failures in 600 s
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import IO, Any

from pytest_rspbench.explore.exploration import Outcome
from pytest_rspbench.rsp.constructs import shown

EVERY = 15.0  # seconds between progress lines when stderr is not a terminal
JSON_NAME = "explore.json"


class Progress:
    """The progress line on ``out`` (stderr)."""

    def __init__(self, engine: str, out: IO[str] | None = None) -> None:
        self.engine = engine
        self.out = out if out is not None else sys.stderr
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.last = 0.0
        self.shown = ""

    def update(self, outcome: Outcome, left: float) -> None:
        """Show the counts so far (on a terminal, every time; else every :data:`EVERY` s)."""
        line = status_line(self.engine, outcome, left)
        if self.tty:
            self.out.write("\r" + line.ljust(len(self.shown)))
            self.out.flush()
            self.shown = line
        elif time.monotonic() - self.last >= EVERY:
            print(line, file=self.out, flush=True)
            self.last = time.monotonic()

    def say(self, text: str) -> None:
        """A line of its own (a failure found, a replayed entry), above the progress line."""
        if self.tty and self.shown:
            self.out.write("\r" + " " * len(self.shown) + "\r")
            self.shown = ""
        print(text, file=self.out, flush=True)

    def done(self) -> None:
        if self.tty and self.shown:
            self.out.write("\n")
            self.shown = ""


def status_line(engine: str, outcome: Outcome, left: float) -> str:
    """``explore X: 12 cases, 1 failure (lost-window 1), 0 refused, size 2, 40 s left``."""
    counts = outcome.groups.by_departure()
    classes = ", ".join(f"{name} {count}" for name, count in counts.items())
    failures = _count(outcome.failures, "failure") + (f" ({classes})" if classes else "")
    return (
        f"explore {engine}: {_count(outcome.cases, 'case')}, {failures}, "
        f"{outcome.refusals} refused, size {outcome.size}, {max(0.0, left):.0f} s left"
    )


def last_line(outcome: Outcome) -> str:
    """``1,234 cases, 0 failures in 600 s``.

    The seconds are those of the exploration (Spark's start aside).
    """
    return (
        f"{_count(outcome.cases, 'case')}, {_count(outcome.failures, 'failure')} "
        f"in {outcome.seconds:.0f} s"
    )


def table(outcome: Outcome) -> str:
    """One row per group: departure, constructs, cases, first spec written, explanation."""
    header = ("departure", "constructs", "cases", "first spec written", "explanation")
    rows = [header]
    for group in outcome.groups.all:
        found = sum(1 for c in group.cases if c is not None)
        cases = f"{found}" + (" (known)" if group.known else "")
        spec = str(group.spec.relative_to(outcome.settings.folder)) if group.spec else "-"
        mark = "SUSPECT " if group.suspect else ""
        rows.append(
            (group.departure, shown(group.constructs), cases, spec, mark + group.explanation)
        )
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    lines = []
    for row in rows:
        cells = [row[k].ljust(widths[k]) if k != 2 else row[k].rjust(widths[k]) for k in range(4)]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    return "\n".join(lines)


def record(outcome: Outcome, spark_seconds: float | None = None) -> dict[str, Any]:
    """explore.json: the settings, the counts and every group."""
    settings = outcome.settings
    minutes = outcome.seconds / 60 if outcome.seconds else 0.0
    return {
        "engine": outcome.profile,
        "command": settings.command,
        "seed": settings.seed,
        "budget": settings.budget,
        "seconds": round(outcome.seconds, 1),
        "spark_start_seconds": None if spark_seconds is None else round(spark_seconds, 1),
        "cases": outcome.cases,
        "cases_per_minute": round(outcome.cases / minutes, 1) if minutes else None,
        "passed": outcome.passed,
        "failures": outcome.failures,
        "refused": outcome.refused,
        "largest_size": outcome.size,
        "scope": {
            "constructs": sorted(outcome.scope.constructs),
            "r2s": list(outcome.scope.r2s),
            "window_kinds": list(outcome.scope.kinds),
            "lateness": outcome.scope.lateness,
            "varied": list(outcome.scope.varied),
        },
        "groups": [_group(g, settings.folder) for g in outcome.groups.all],
        "replayed": [{"spec": e.spec, "status": status} for e, status in outcome.replayed],
    }


def write_record(outcome: Outcome, spark_seconds: float | None = None) -> Path:
    path = outcome.settings.folder / JSON_NAME
    text = json.dumps(record(outcome, spark_seconds), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _group(group: Any, folder: Path) -> dict[str, Any]:
    return {
        "departure": group.departure,
        "constructs": sorted(group.constructs),
        "cases": [c for c in group.cases if c is not None],
        "known": group.known,
        "spec": str(group.spec.relative_to(folder)) if group.spec else None,
        "suspect": group.suspect,
        "reproduced": group.reproduced,
        "verdict": group.verdict,
        "explanation": group.explanation,
        "note": group.note,
        "found_after_seconds": None if group.found is None else round(group.found, 1),
        "spec_events": group.size[0] if group.size else None,
        "spec_triples": group.size[1] if group.size else None,
    }


def _count(n: int, noun: str) -> str:
    """``1 case``, ``1,234 cases``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
