"""Run every benchmark and write the figures to docs/benchmarks.md.

    .venv/bin/python benchmarks/run_all.py

Each ``bench_*.py`` script prints a markdown section; this script adds the
command and the machine and writes them all into one page. ``bench_oracle``
(the oracle against per-window rdflib and pyoxigraph loops) runs its default,
the 100k-triple workloads (about 5 minutes); its larger sizes and the
``t0: any`` runs are separate commands (see docs/benchmarks.md).
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOC = HERE.parent / "docs" / "benchmarks.md"
# Section titles for scripts whose section has a name of its own.
TITLES = {"bench_oracle": "Oracle vs per-window loops"}


def machine() -> str:
    import psutil

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = psutil.virtual_memory().total / 2**30
    return (
        f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB RAM, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def main() -> None:
    scripts = sorted(HERE.glob("bench_*.py"))
    if len(sys.argv) > 1:
        scripts = [s for s in scripts if any(name in s.name for name in sys.argv[1:])]
    sections = []
    for script in scripts:
        print(f"running {script.name} ...", file=sys.stderr)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
        failed = f"FAILED:\n```\n{done.stderr[-3000:]}\n```"
        body = done.stdout.strip() if done.returncode == 0 else failed
        title = TITLES.get(script.stem, script.stem)
        sections.append(
            f"## {title}\n\nCommand: `.venv/bin/python benchmarks/{script.name}`\n\n{body}\n"
        )
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    header = (
        "# Benchmarks\n\n"
        "Regenerate with `.venv/bin/python benchmarks/run_all.py` (one script: "
        "`benchmarks/run_all.py bench_collect`).\n\n"
        f"Measured {today} on: {machine()}.\n\n"
        "Timings are wall clock on a shared 2-core machine; compare rows of one run, "
        "not runs of different days.\n"
    )
    DOC.write_text(header + "\n" + "\n".join(sections))
    print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
