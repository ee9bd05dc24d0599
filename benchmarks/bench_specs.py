"""``pytest specs/`` as a user runs it: empty caches, then warm.

Run (on a quiet machine; about 8 minutes with the defaults)::

    .venv/bin/python benchmarks/bench_specs.py
    .venv/bin/python benchmarks/bench_specs.py --ahead 0 2 --out docs/benchmarks.md
    .venv/bin/python benchmarks/bench_specs.py --ahead 2 --jvm-cds on off
    .venv/bin/python benchmarks/bench_specs.py --ahead 2 --jit on off --rounds 2

For each ``--rspbench-oracle-ahead`` value given (side by side in one run,
alternating so drift in the machine hits both), ``pytest specs/`` runs as a
fresh process twice: with a new, empty ``--rspbench-cache-dir`` (*empty*:
every stream written and every expected output computed, Spark started and
warmed up) and again with the same folder (*warm*: stored outputs read
back). pytest's own cache is off (``-p no:cacheprovider``) so ``--lf`` state
does not leak in; pytest-randomly is off so both orders are the same. Each
row gives the wall time of the whole command,
the peak memory and CPU seconds of its process tree (a failed run is
shown as such: every item must pass), and the machine's CPU
spent outside it (other work: it should be near 0 on a quiet machine).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fresh_process

ROOT = Path(__file__).resolve().parent.parent
MARK = "<!-- bench_specs -->"


def one(
    ahead: int, cache: Path, log: Path, cds: str = "on", jit: str = "on"
) -> fresh_process.Outcome:
    """``pytest specs/`` with this many background oracle threads and cache
    folder, Spark's class-data-sharing archive used (``on``) or not (``off``),
    Spark's huge generated methods compiled (``on``, the default) or run
    interpreted as HotSpot does by default (``off``: the user's way to turn
    the oracle's ``-XX:-DontCompileHugeMethods`` off)."""
    command = [
        sys.executable, "-m", "pytest", "specs/", "-q", "-p", "no:cacheprovider",
        "-p", "no:randomly", "--rspbench-cache-dir", str(cache),
        "--rspbench-oracle-ahead", str(ahead),
    ]  # fmt: skip
    env = os.environ | {"RSPBENCH_JVM_CDS": "1" if cds == "on" else "0"}
    if jit == "off":
        own = env.get("SPARK_SUBMIT_OPTS", "")
        env["SPARK_SUBMIT_OPTS"] = f"{own} -XX:+DontCompileHugeMethods".strip()
    return fresh_process.run(command, cwd=ROOT, env=env, stderr_file=log, timeout=1800)


def ensure_archive(timeout: float = 300.0) -> str:
    """Start Spark once and wait for its class-data-sharing archive to be
    built (in the background, after that JVM exits), so that no run below
    builds one: a user pays the build once per Spark and JDK."""
    import time

    from pytest_rspbench.oracle.spark import cds
    from pytest_rspbench.oracle.spark.cdslock import stale

    def building() -> bool:
        """A live builder holds a lock (a killed run's lock is no builder:
        waiting for it took the whole timeout)."""
        return any(not stale(lock) for lock in root.glob("*.lock"))

    root = cds.cache_root()
    before = set(root.glob("*.jsa")) if root.is_dir() else set()
    start = (
        "from pytest_rspbench.oracle.spark import SparkProvider\n"
        "p = SparkProvider('local[*]'); p.get(); p.stop()"
    )
    subprocess.run([sys.executable, "-c", start], cwd=ROOT, check=True, capture_output=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not building() and list(root.glob("*.jsa")):
            break
        time.sleep(2)
    now = set(root.glob("*.jsa"))
    return "built now" if now - before else ("there already" if now else "none (see java-cds/)")


def collected() -> int | None:
    """How many items ``pytest specs/`` runs (as the runs below select them)."""
    import re

    command = [sys.executable, "-m", "pytest", "specs/", "--collect-only", "-q",
               "-p", "no:cacheprovider", "-p", "no:randomly"]  # fmt: skip
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout
    found = re.search(r"^(\d+)(?:/\d+)? tests? collected", out, re.M)
    return int(found[1]) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ahead", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--rounds", type=int, default=1, help="repeat the whole set")
    parser.add_argument("--empty-only", action="store_true", help="skip the warm runs")
    parser.add_argument(
        "--jvm-cds", nargs="+", choices=["on", "off"], default=["on"],
        help="Spark's class-data-sharing archive used, or not (RSPBENCH_JVM_CDS=0)",
    )  # fmt: skip
    parser.add_argument(
        "--jit", nargs="+", choices=["on", "off"], default=["on"],
        help="Spark's huge generated methods compiled (the oracle's default) or not "
        "(SPARK_SUBMIT_OPTS=-XX:+DontCompileHugeMethods)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, help="write the table into this markdown file")
    args = parser.parse_args()
    if "on" in args.jvm_cds:
        print(f"class-data-sharing archive: {ensure_archive()}", flush=True)
    rows = []
    phases = ("empty",) if args.empty_only else ("empty", "warm")
    work = Path(tempfile.mkdtemp(prefix="bench-specs-"))
    try:
        for round_ in range(args.rounds):
            for phase in phases:
                for ahead in args.ahead:
                    for cds, jit in itertools.product(args.jvm_cds, args.jit):
                        cache = work / f"cache-{round_}-{ahead}-{cds}-{jit}"
                        log = work / f"{ahead}-{cds}-{jit}-{phase}.log"
                        outcome = one(ahead, cache, log, cds, jit)
                        rows.append((ahead, cds, jit, phase, outcome))
                        print(
                            f"ahead {ahead} cds {cds} jit {jit} {phase}: {outcome.status} "
                            f"{outcome.seconds:.1f} s, "
                            f"peak {outcome.peak_mb:.0f} MB, CPU {outcome.cpu:.0f} s, "
                            f"others {outcome.others or 0:.0f} s",
                            flush=True,
                        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = render(rows, collected())
    print(table)
    if args.out:
        write(args.out, table)


def render(rows: list[tuple[int, str, str, str, fresh_process.Outcome]], items: int | None) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        MARK,
        f"`python benchmarks/bench_specs.py` on {when}, {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; each row a "
        f"fresh `pytest specs/` process ({items if items is not None else 'unknown'} items).",
        "",
        "| `--rspbench-oracle-ahead` | Spark's class archive | huge methods compiled "
        "| caches | wall time | peak MB (tree) | CPU s (tree) | other work on the machine, CPU s |",
        "|---:|---|---|---|---:|---:|---:|---:|",
    ]
    for ahead, cds, jit, phase, o in sorted(
        rows, key=lambda r: (r[3] != "empty", r[0], r[1], r[2])
    ):
        seconds = f"{o.seconds:.1f} s" if o.ok else f"{o.status} after {o.seconds:.0f} s"
        lines.append(
            f"| {ahead} | {cds} | {jit} | {phase} | {seconds} | {o.peak_mb:.0f} | {o.cpu:.0f} "
            f"| {o.others or 0:.0f} |"
        )
    lines.append(MARK)
    return "\n".join(lines)


def write(path: Path, table: str) -> None:
    """``table`` as the current ``pytest specs/`` figures of ``path``; the
    section it replaces moves to the page's history (:mod:`page`)."""
    import page

    heading = "### `pytest specs/`: the bundled suite as a user runs it"
    command = (
        "Command: `.venv/bin/python benchmarks/bench_specs.py --ahead 0 2 --out docs/benchmarks.md`"
    )
    page.publish(path, "bench_specs", f"{heading}\n\n{command}\n\n{table}\n")


if __name__ == "__main__":
    main()
