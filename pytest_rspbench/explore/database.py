"""The failure database: every counterexample explore wrote, replayed first next time.

``explore-db.json`` in the output folder lists, per engine, each group's
written spec (relative to the folder), its departure and constructs, the
generated case it came from (so it can be materialized again when the spec
was removed), when it was found and its status at the last run::

    {"version": 1, "entries": [
      {"engine": "faulty-wrong-bounds", "departure": "window-bounds",
       "constructs": [], "spec": "01-window-bounds-plain/counterexample.rspbench.yaml",
       "case": {...}, "found": "2026-01-05T10:12:00", "status": "failing",
       "checked": "2026-01-05T10:12:00", "suspect": false}]}

A run replays the entries of its engine before it generates anything: one
that passes now is ``fixed`` (the bug is confirmed fixed), one that still
fails seeds its group, so new cases that show it join the group instead of
being shrunk again. Entries of other engines are kept as they are.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import RspbenchError

FILE = "explore-db.json"
VERSION = 1
STATUSES = ("failing", "fixed", "missing")
"""``failing``: the spec still fails on the engine; ``fixed``: it passes now;
``missing``: neither the spec nor its case could be run again."""


@dataclass
class Entry:
    """One counterexample of the database."""

    engine: str
    departure: str
    constructs: list[str]
    spec: str
    case: dict[str, Any] = field(default_factory=dict)
    found: str = ""
    status: str = "failing"
    checked: str = ""
    suspect: bool = False
    verdict: str = ""


def now() -> str:
    """The time of a check, to the second (UTC)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def load(folder: Path) -> list[Entry]:
    """The entries in ``folder``; none when there is no database yet.

    Raises:
        RspbenchError: the file is there but is not a database of this version.
    """
    path = folder / FILE
    if not path.is_file():
        return []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") != VERSION:
            raise ValueError(f"version {raw.get('version')!r}, expected {VERSION}")
        return [Entry(**entry) for entry in raw["entries"]]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RspbenchError(
            f"{path}: not a failure database of rspbench explore ({exc}).\n"
            "HINT: remove it (explore starts a new one) or point -o at another folder."
        ) from None


def save(folder: Path, entries: list[Entry]) -> Path:
    """Write ``entries`` to ``folder``'s database (atomically: a killed run keeps the old)."""
    path = folder / FILE
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(
        {"version": VERSION, "entries": [asdict(e) for e in entries]}, indent=2, ensure_ascii=False
    )
    partial = path.with_suffix(".json.partial")
    partial.write_text(text + "\n", encoding="utf-8")
    partial.replace(path)
    return path


def of_engine(entries: list[Entry], engine: str) -> list[Entry]:
    """The entries a run against ``engine`` replays, in the order found."""
    return [e for e in entries if e.engine == engine]
