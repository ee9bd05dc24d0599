"""Run every benchmark and put its figures into docs/benchmarks.md.

    .venv/bin/python benchmarks/run_all.py

Each ``bench_*.py`` script prints a markdown section; this script adds the
command and the machine and writes them all into one page. ``bench_oracle``
(the oracle against per-window rdflib and pyoxigraph loops) runs its default,
the 100k-triple workloads (about 5 minutes); its larger sizes and the
``t0: any`` runs are separate commands (see docs/benchmarks.md).

Each script's section becomes that benchmark's current figures; the section
it replaces moves to the page's history (:mod:`page`), so no earlier run is
lost.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import page

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
    for script in scripts:
        print(f"running {script.name} ...", file=sys.stderr)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
        failed = f"FAILED:\n```\n{done.stderr[-3000:]}\n```"
        body = done.stdout.strip() if done.returncode == 0 else failed
        title = TITLES.get(script.stem, script.stem)
        section = (
            f"## {title}\n\nCommand: `.venv/bin/python benchmarks/{script.name}`\n\n"
            f"Machine: {machine()}. Date: {page.today()}.\n\n{body}\n"
        )
        page.publish(DOC, script.stem, section)
        print(f"{script.stem}: its section in {DOC} is current now", file=sys.stderr)


if __name__ == "__main__":
    main()
