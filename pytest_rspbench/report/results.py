"""The results file (``--rspbench-json PATH``): one JSON document per run.

Versioned (``format``), stable enough to diff: keys are sorted, floats are
rounded to 6 digits and items are in collection order. Carries the tool
version, UTC time, machine and commit, and per item the spec, parameters,
engine and profile, verdicts, thresholds and per-window metrics.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from pytest_rspbench import __version__

FORMAT = 1


def machine() -> dict[str, Any]:
    """Where the run happened."""
    import psutil

    return {
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "cpus": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "ci": os.environ.get("CI", "").lower() in ("1", "true", "yes"),
    }


def commit(where: Path) -> dict[str, Any] | None:
    """The git commit of ``where``, if it is in a git work tree."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=5
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=where, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return {"id": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def document(items: list[dict[str, Any]], rootdir: Path) -> dict[str, Any]:
    """The whole results document."""
    return {
        "format": FORMAT,
        "tool": {"name": "pytest-rspbench", "version": __version__},
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "commit": commit(rootdir),
        "items": items,
    }


def write(path: Path, items: list[dict[str, Any]], rootdir: Path) -> None:
    """Write the results file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(_rounded(document(items, rootdir)), indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value
