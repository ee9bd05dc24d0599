"""How long `pytest --collect-only` takes on a folder of 100 generated specs.

Issue target: under 3 s. Compared side by side with collecting the same
folder with the plugin disabled (pytest's own floor on this machine).

    .venv/bin/python benchmarks/bench_collect.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPECS = 100
REPEATS = 5

SPEC = """\
rspbench: 1
name: generated-{n}
streams:
  - iri: http://example.org/s
    source: {{kind: files, path: "rspbench-data:csrbench/stream/data_*.ttl", interval: 1000}}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${{range}} STEP ${{step}}]
  WHERE {{ WINDOW :w {{ ?s ?p ?o . FILTER(?o > {n}) }} }}
matrix:
  range: [10000, 5000]
  step: [1000]
engines: [reference]
thresholds: ["recall >= 0.99 in every window"]
"""


def timed(args: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 5):
        raise SystemExit(done.stdout[-2000:] + done.stderr[-2000:])
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in range(SPECS):
            (folder / f"spec_{n:03}.rspbench.yaml").write_text(SPEC.format(n=n))
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        with_plugin = [timed([*pytest, "--collect-only"], folder) for _ in range(REPEATS)]
        without = [
            timed([*pytest, "--collect-only", "-p", "no:rspbench"], folder) for _ in range(REPEATS)
        ]
    print(f"### Collection of {SPECS} specs ({2 * SPECS} items), median of {REPEATS} runs\n")
    print("| run | median s | min s |")
    print("|---|---|---|")
    print(
        f"| pytest --collect-only, plugin on | {statistics.median(with_plugin):.2f} | {min(with_plugin):.2f} |"
    )
    print(
        f"| same folder, `-p no:rspbench` (pytest alone) | {statistics.median(without):.2f} | {min(without):.2f} |"
    )


if __name__ == "__main__":
    main()
