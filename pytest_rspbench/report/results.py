"""The results file (``--rspbench-json PATH``): one JSON document per run.

Versioned (``format``), stable enough to diff: keys are sorted, floats are
rounded to 6 digits, items are in run order and paths are relative (spec
files to the rootdir, artifact folders to the results file). The document::

    format    2 (1: no samples, profile, outcome, duration, paths)
    tool      {name, version}
    suite     {name, version, specs, digest}: what the specs were
    created   UTC time, ISO 8601           -- volatile
    machine   {python, system, cpus, memory_gib, ci}   -- volatile
    commit    {id, dirty} or null          -- volatile
    items     one record per item: nodeid, id, spec, spec_path, case, params,
              engine, profile (declared and pinned), semantics, outcome,
              duration, passed, mode,
              matched_t0, thresholds, run_metrics, windows, samples, ...

The same document is a baseline (:mod:`pytest_rspbench.report.baseline`) and the
input of ``rspbench report``.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench import __version__
from pytest_rspbench.errors import RspbenchError

FORMAT = 2
READABLE = (1, 2)
MAX_SAMPLES = 600
VOLATILE = ("created", "machine", "commit")
VOLATILE_ITEM = (
    "duration",
    "engine_seconds",
    "oracle_seconds",
    "oracle_stored",  # depends on what earlier runs left in the cache
    "oracle_note",  # depends on --rspbench-oracle-ahead
    "samples",
    "engine_peak_rss",
    "engine_mean_cpu",
    "load",  # the machine's load average during the replays
)


class ResultsFileError(RspbenchError, ValueError):
    """A results file (or baseline) cannot be read."""


def machine() -> dict[str, Any]:
    """Where the run happened."""
    import psutil

    return {
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "ci": os.environ.get("CI", "").lower() in ("1", "true", "yes"),
    }


def commit(where: Path) -> dict[str, Any] | None:
    """The git commit of ``where``, if it is in a git work tree."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=5,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return {"id": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def note_outcome(
    results: list[dict[str, Any]], item: Any, report: Any, folder: Path | None = None
) -> None:
    """Fold a test report (setup, call, teardown) into the item's record.

    An item that never produced a record (skipped: engine unavailable; an
    error before the run) still gets a short one, so the file lists it; a
    mismatch or sweep item gets one with its table (and, when artifacts are
    kept, the data its item wrote to ``folder``).
    """
    record = next((r for r in reversed(results) if r.get("nodeid") == report.nodeid), None)
    if record is None:
        if report.when == "teardown" or (report.when == "setup" and report.passed):
            return
        case = getattr(item, "case", None)
        record = (
            _bare_record(item, report) if case is not None else _group_record(item, report, folder)
        )
        results.append(record)
    record["duration"] = (record.get("duration") or 0.0) + report.duration
    if report.when == "call" or not report.passed:
        known = getattr(report, "wasxfail", None)
        fixed = strict_xpass(report)
        if known is not None and report.skipped:
            # A known failure (strict xfail) that still fails: its reason.
            record["outcome"], record["known_failure"] = "xfailed", known
        elif fixed is not None:
            # A known failure that passed: pytest fails it (xfail strict).
            record["outcome"], record["xpass_strict"] = "failed", fixed
        else:
            record["outcome"] = (
                "error" if report.failed and report.when != "call" else report.outcome
            )


def strict_xpass(report: Any) -> str | None:
    """The reason of a known failure (``xfail(strict=True)``) that passed,
    which pytest reports as failed (``[XPASS(strict)] reason``); else None."""
    text = getattr(report, "longrepr", None)
    if report.when == "call" and report.failed and isinstance(text, str):
        return text.removeprefix(XPASS).strip() if text.startswith(XPASS) else None
    return None


XPASS = "[XPASS(strict)]"


def _bare_record(item: Any, report: Any) -> dict[str, Any]:
    from pytest_rspbench.report.assumed import profile_record

    case = item.case
    return {
        "nodeid": report.nodeid,
        "message": _message(report),
        "outcome": None,
        "duration": 0.0,
        "id": f"{case.spec_name}[{case.case_id}]",
        "spec": case.spec_name,
        "case": case.case_id,
        "params": dict(case.params),
        "engine": case.engine,
        "spec_path": str(case.spec_path),
        "profile": profile_record(case),
    }


def _group_record(item: Any, report: Any, folder: Path | None) -> dict[str, Any]:
    """A mismatch or sweep item: what it published and the data it wrote."""
    kind = type(item).__name__.removesuffix("Item").lower() or "group"
    text = "\n".join(body for head, body in getattr(report, "sections", ()) if "rspbench" in head)
    out: dict[str, Any] = {
        "nodeid": report.nodeid,
        "id": item.name,
        "kind": kind,
        "outcome": None,
        "duration": 0.0,
        "text": text or None,
        "message": _message(report),
    }
    data = folder / f"{kind}.json" if folder is not None else None
    if data is not None and data.is_file():
        out[kind] = json.loads(data.read_text(encoding="utf-8"))
    return out


def _message(report: Any) -> str | None:
    if report.passed:
        return None
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    lines = (getattr(report, "longreprtext", "") or "").strip().splitlines()
    return lines[0] if lines else None


def compact_samples(samples: Sequence[Any]) -> list[dict[str, Any]]:
    """At most :data:`MAX_SAMPLES` samples: groups keep their peak RSS and mean CPU."""
    from pytest_rspbench.report.charts import buckets

    rows = [_sample(s) for s in samples]
    if len(rows) <= MAX_SAMPLES:
        return rows
    out = []
    for group in buckets(len(rows), MAX_SAMPLES):
        part = [rows[k] for k in group]
        last = dict(part[-1])
        last["rss"] = max(p["rss"] or 0 for p in part)
        cpus = [p["cpu"] for p in part if p["cpu"] is not None]
        last["cpu"] = sum(cpus) / len(cpus) if cpus else None
        out.append(last)
    return out


def _sample(sample: Any) -> dict[str, Any]:
    get = sample.get if isinstance(sample, Mapping) else (lambda k: getattr(sample, k, None))
    elapsed = get("elapsed")
    return {
        "elapsed": elapsed if elapsed is not None else get("t"),
        "app_time": get("app_time"),
        "rss": get("rss"),
        "cpu": get("cpu"),
        "threads": get("threads"),
    }


def document(
    items: list[dict[str, Any]], rootdir: Path, where: Path | None = None
) -> dict[str, Any]:
    """The whole results document; ``where`` is the folder the file goes to."""
    from pytest_rspbench.report.assumed import suite_record

    return _rounded(
        {
            "format": FORMAT,
            "tool": {"name": "pytest-rspbench", "version": __version__},
            "suite": suite_record(item.get("spec_path") or "" for item in items),
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": machine(),
            "commit": commit(rootdir),
            "items": [_relative(item, rootdir, where or rootdir) for item in items],
        }
    )


def write(path: Path, items: list[dict[str, Any]], rootdir: Path) -> dict[str, Any]:
    """Write the results file atomically; returns the document."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = document(items, rootdir, path.parent.resolve())
    dump(path, doc)
    return doc


def dump(path: Path, doc: Mapping[str, Any]) -> None:
    """Write ``doc`` as the diff-friendly JSON text (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def load(path: Path) -> dict[str, Any]:
    """Read a results file, checking its format; artifact paths made absolute."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsFileError(f"cannot read results file {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc
    if not isinstance(doc, dict) or doc.get("format") not in READABLE:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ResultsFileError(
            f"{path}: results format {found!r} is not one this version reads "
            f"({', '.join(map(str, READABLE))}).\nHINT: write it with --rspbench-json "
            f"using pytest-rspbench {__version__}, "
            "or read it with the version that wrote it."
        )
    base = Path(path).resolve().parent
    for item in doc.get("items", []):
        if item.get("artifacts"):
            item["artifacts"] = str((base / item["artifacts"]).resolve())
    return doc


def _relative(item: Mapping[str, Any], rootdir: Path, where: Path) -> dict[str, Any]:
    out = dict(item)
    if out.get("spec_path"):
        out["spec_path"] = _rel(Path(out["spec_path"]), rootdir)
    if out.get("artifacts"):
        out["artifacts"] = _rel(Path(out["artifacts"]), where, walk_up=True)
    return out


def _rel(path: Path, start: Path, walk_up: bool = False) -> str:
    try:
        if walk_up:
            return Path(os.path.relpath(path, start)).as_posix()
        return path.resolve().relative_to(start.resolve()).as_posix()
    except ValueError:  # another drive, or outside the rootdir
        return path.as_posix()


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value
