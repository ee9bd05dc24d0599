"""What ``rspbench explore`` finds, engine by engine: the tables of docs/conformance.md.

Each engine is explored in a fresh process (Spark's start included in the
wall time), with the same seed and budget; what each run found is read from
its ``explore.json``:

- the faulty engines (every ``engines/faulty/*/engine.yaml``): seconds to the
  first failure, cases run, the departures found, and the size of the first
  spec written (events, triples); explore itself checks that the spec fails
  on the engine (*reproduced*) and passes on ``reference`` (not a *suspect*);
- ``rspjs``: the departure classes explore found, each with the time to its
  first failure, beside the bundled suite's items whose ``known_failures``
  declare that class for rspjs (or none: a departure only explore reaches);
- ``reference``: cases per minute and failures (every failure there is a
  bug of the oracle or of the reference engine), published to
  docs/benchmarks.md.

Run from the repository root::

    python benchmarks/explore_tables.py                      # all three, 120 s each
    python benchmarks/explore_tables.py --only faulty --budget 120 --seed 1
    python benchmarks/explore_tables.py --only reference --budget 600 --seed 1

``--write`` puts the tables into docs/conformance.md (between its
``<!-- explore: ... -->`` markers) and the reference figure into
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from fresh_process import Outcome, run  # noqa: E402
from page import publish, today  # noqa: E402

CONFORMANCE = ROOT / "docs" / "conformance.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"


def faulty_engines() -> list[str]:
    """The names of the faulty engines, from their engine.yaml files."""
    names = []
    for path in sorted((ROOT / "engines" / "faulty").glob("*/engine.yaml")):
        names.append(yaml.safe_load(path.read_text(encoding="utf-8"))["name"])
    return names


def explore(engine: str, budget: float, seed: int, folder: Path) -> tuple[dict[str, Any], Outcome]:
    """One exploration in a fresh process; its explore.json and what the process took."""
    shutil.rmtree(folder, ignore_errors=True)
    rspbench = Path(sys.executable).with_name("rspbench")
    command = [
        str(rspbench), "explore", "-e", engine,
        "--budget", f"{budget:g}", "--seed", str(seed), "-o", str(folder),
    ]  # fmt: skip
    folder.parent.mkdir(parents=True, exist_ok=True)
    stderr = folder.parent / f"{engine}.stderr"
    outcome = run(command, timeout=budget + 900, cwd=ROOT, stderr_file=stderr)
    path = folder / "explore.json"
    if not path.is_file():
        return {"engine": engine, "groups": [], "cases": 0, "error": outcome.status}, outcome
    return json.loads(path.read_text(encoding="utf-8")), outcome


def faulty_row(engine: str, record: dict[str, Any], outcome: Outcome) -> str:
    """``| engine | s to first | cases | departures | spec size | checked |``."""
    found = [
        g for g in record["groups"] if not g["suspect"] and g["found_after_seconds"] is not None
    ]
    found.sort(key=lambda g: g["found_after_seconds"])
    if not found:
        why = record.get("error") or "nothing found"
        return f"| {engine} | — | {record['cases']:,} | {why} | — | — |"
    first = found[0]
    departures = ", ".join(dict.fromkeys(g["departure"] for g in found))
    size = f"{first['spec_events']} events, {first['spec_triples']} triples"
    checked = "fails on it, passes on reference" if first["reproduced"] else "not reproduced"
    return (
        f"| {engine} | {first['found_after_seconds']:.0f} | {record['cases']:,} | "
        f"{departures} | {size} | {checked} |"
    )


def faulty_table(budget: float, seed: int, scratch: Path) -> str:
    rows = []
    for engine in faulty_engines():
        record, outcome = explore(engine, budget, seed, scratch / engine)
        rows.append(faulty_row(engine, record, outcome))
        print(rows[-1], flush=True)
    head = (
        f"`rspbench explore -e ENGINE --budget {budget:g} --seed {seed}` for each faulty engine "
        f"({_machine()}, {today()}; `python benchmarks/explore_tables.py --only faulty "
        f"--budget {budget:g} --seed {seed} --write`). Seconds to the first failure count "
        "from the end of Spark's start; departures in the order found.\n\n"
        "| engine | s to first failure | cases | departures found | first spec written | "
        "the spec |\n|---|---|---|---|---|---|\n"
    )
    return head + "\n".join(rows) + "\n"


def bundled_departures(engine: str) -> dict[str, list[str]]:
    """Departure class -> the bundled specs whose known failures declare it for ``engine``."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "specs").rglob("*.rspbench.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for entry in doc.get("known_failures") or []:
            if entry.get("engine") != engine:
                continue
            params = entry.get("params") or {}
            item = doc.get("name", path.stem)
            if params:
                item += "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
            for departure in entry.get("departures") or []:
                found.setdefault(departure, [])
                if item not in found[departure]:
                    found[departure].append(item)
    return found


def rspjs_table(budget: float, seed: int, scratch: Path) -> str:
    record, outcome = explore("rspjs", budget, seed, scratch / "rspjs")
    bundled = bundled_departures("rspjs")
    explored: dict[str, float] = {}
    for group in record["groups"]:
        if group["suspect"] or group["found_after_seconds"] is None:
            continue
        name = group["departure"]
        explored[name] = min(explored.get(name, float("inf")), group["found_after_seconds"])
    rows = []
    for name in sorted(set(explored) | set(bundled)):
        first = f"{explored[name]:.0f} s" if name in explored else "not found"
        items = bundled.get(name)
        suite = ", ".join(f"`{i}`" for i in items[:3]) if items else "none"
        if items and len(items) > 3:
            suite += f" and {len(items) - 3} more"
        rows.append(f"| {name} | {first} | {suite} |")
    head = (
        f"`rspbench explore -e rspjs --budget {budget:g} --seed {seed}`: {record['cases']:,} "
        f"cases in {outcome.seconds:.0f} s ({_machine()}, {today()}; `python "
        f"benchmarks/explore_tables.py --only rspjs --budget {budget:g} --seed {seed} "
        "--write`). The bundled suite's column lists the items whose `known_failures` "
        "declare the class for rspjs; *none* is a departure only explore reaches.\n\n"
        "| departure | explore (time to first) | bundled suite |\n|---|---|---|\n"
    )
    return head + "\n".join(rows) + "\n"


def reference_section(budget: float, seed: int, scratch: Path) -> str:
    record, outcome = explore("reference", budget, seed, scratch / "reference")
    minutes = outcome.seconds / 60
    groups = ", ".join(
        f"{g['departure']} (case {g['cases'][0] if g['cases'] else '?'})" for g in record["groups"]
    )
    return (
        "## rspbench explore against the reference engine\n\n"
        f"`rspbench explore -e reference --budget {budget:g} --seed {seed}` in a fresh "
        f"process ({_machine()}; `python benchmarks/explore_tables.py --only reference "
        f"--budget {budget:g} --seed {seed} --write`):\n\n"
        "| cases | failures | wall time (Spark's start included) | Spark's start | "
        "cases per minute (wall) | peak MB |\n|---|---|---|---|---|---|\n"
        f"| {record['cases']:,} | {record.get('failures', '?')} | {outcome.seconds:.0f} s | "
        f"{record.get('spark_start_seconds')} s | {record['cases'] / minutes:.1f} | "
        f"{outcome.peak_mb:.0f} |\n\n"
        + (f"Failures: {groups}.\n\n" if groups else "No failure.\n\n")
        + "The oracle ran on the Spark Connect server explore starts for its run "
        "(`--warm-spark run`, docs/explore.md): *Spark's start* is that server's, and "
        "*peak MB* is the explore process's own (the server's JVM aside). In-process "
        "Spark (`--warm-spark off`) ran 61 cases a minute on the first 150 cases of "
        "this seed, against 129 on Connect: each DataFrame call analysed in the JVM "
        "as it is made, where a Connect client sends the plan once.\n"
    )


def place(doc: Path, key: str, text: str) -> None:
    """Put ``text`` between ``<!-- explore: KEY -->`` and ``<!-- /explore: KEY -->`` in ``doc``."""
    page = doc.read_text(encoding="utf-8")
    begin, end = f"<!-- explore: {key} -->", f"<!-- /explore: {key} -->"
    block = f"{begin}\n{text}{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(page):
        page = pattern.sub(lambda _: block, page)
    else:
        page = page.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(page, encoding="utf-8")


def _machine() -> str:
    cores = os.cpu_count() or 1
    try:
        import psutil

        memory = f", {psutil.virtual_memory().total / 2**30:.0f} GiB"
    except ImportError:
        memory = ""
    return f"{platform.machine()}, {cores} cores{memory}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("faulty", "rspjs", "reference"), action="append")
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="write the docs' tables")
    args = parser.parse_args(argv)
    parts = args.only or ["faulty", "rspjs", "reference"]
    scratch = Path(tempfile.mkdtemp(prefix="rspbench-explore-tables-"))
    print(f"explorations under {scratch}", flush=True)
    if "faulty" in parts:
        text = faulty_table(args.budget, args.seed, scratch)
        print(text)
        if args.write:
            place(CONFORMANCE, "faulty", text)
    if "rspjs" in parts:
        text = rspjs_table(args.budget, args.seed, scratch)
        print(text)
        if args.write:
            place(CONFORMANCE, "rspjs", text)
    if "reference" in parts:
        text = reference_section(args.budget, args.seed, scratch)
        print(text)
        if args.write:
            publish(BENCHMARKS, "explore-reference", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
