"""A user's second run with a warm Spark (``--rspbench-warm-spark``), timed.

Runs ``pytest SPECS`` four times, each in a fresh process (no pytest cache)
with a warm Spark folder of the benchmark's own (``RSPBENCH_WARM_SPARK_DIR``,
so no server from before is found):

1. *cold*: the warm Spark off: the run starts its own JVM; a new cache
   folder (``--rspbench-cache-dir``): streams and outputs written;
2. *first warm*: ``--rspbench-warm-spark 10m`` in a new cache folder: the run
   starts the server, writes the streams and the outputs;
3. *second warm*: the same again in the first warm run's cache folder with
   its expected outputs deleted (as a user's second run after the outputs'
   code or queries changed: the streams cached, every output computed): the
   run reuses the server;
4. *second warm, nothing cached*: the same in a new cache folder (streams
   written again too).

It prints the wall times and the ratio of the second warm run to the first
(the target: at most 0.6), stops the server, and with ``--out`` publishes
them in docs/benchmarks.md.

    .venv/bin/python benchmarks/warm_spark.py --specs specs/ --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import page  # noqa: E402

TARGET = 0.6


def timed(specs: list[str], cache: Path, env: dict[str, str], warm: str) -> float:
    """Wall seconds of one ``pytest SPECS`` in a fresh process; fails loudly."""
    argv = [sys.executable, "-m", "pytest", *specs, "-q", "-p", "no:cacheprovider"]
    argv += ["--rspbench-cache-dir", str(cache), "--rspbench-warm-spark", warm]
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return took


def measure(specs: list[str]) -> dict[str, float]:
    import shutil

    from pytest_rspbench.oracle.store.outputs import FOLDER

    with tempfile.TemporaryDirectory(prefix="rspbench-warm-bench-") as tmp:
        env = dict(os.environ, RSPBENCH_WARM_SPARK_DIR=str(Path(tmp) / "warm"))
        env.pop("RSPBENCH_WARM_SPARK", None)
        first = Path(tmp) / "cache-first"
        try:
            times = {
                "cold": timed(specs, Path(tmp) / "cache-cold", env, "off"),
                "first warm": timed(specs, first, env, "10m"),
            }
            shutil.rmtree(first / FOLDER)  # every output computed again
            times["second warm"] = timed(specs, first, env, "10m")
            times["second, nothing cached"] = timed(specs, Path(tmp) / "cache-new", env, "10m")
        finally:
            code = "import sys; from pytest_rspbench.cli import main; sys.exit(main())"
            stop = [sys.executable, "-c", code, "spark", "stop"]
            subprocess.run(stop, cwd=ROOT, env=env, capture_output=True)
    return times


def section(specs: list[str], times: dict[str, float], start_load: float) -> str:
    import datetime
    import platform

    cold, first, second = times["cold"], times["first warm"], times["second warm"]
    bare = times["second, nothing cached"]
    load = os.getloadavg()[0]
    verdict = "meets" if second <= TARGET * first else "misses"
    command = " ".join([".venv/bin/python benchmarks/warm_spark.py --specs", *specs])
    return "\n".join(
        [
            "## Warm Spark: a user's second run (`warm_spark.py`)",
            "",
            f"Command: `{command} --out docs/benchmarks.md`. `pytest {' '.join(specs)}`, "
            "each run a fresh process with no expected output stored; "
            f"{platform.machine()}, {os.cpu_count()} cores, "
            f"{datetime.date.today().isoformat()}; load average {start_load:.1f} at the "
            f"start, {load:.1f} at the end.",
            "",
            "| run | streams | wall s |",
            "|---|---|---:|",
            f"| cold: `--rspbench-warm-spark off` (a JVM of its own) | written | {cold:.1f} |",
            f"| first warm: starts the server | written | {first:.1f} |",
            f"| second warm: reuses it | cached by the first | {second:.1f} |",
            f"| second warm, nothing cached: reuses it | written | {bare:.1f} |",
            "",
            f"Second warm run / first warm run: **{second / first:.2f}** ({verdict} the "
            f"target of {TARGET}); second warm run / cold run: {second / cold:.2f}; "
            f"with nothing cached, second / first: {bare / first:.2f}.",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument(
        "--specs", nargs="+", default=["specs/csrbench"], help="default: specs/csrbench"
    )
    options.add_argument("--out", type=Path, help="publish the figures in this page")
    args = options.parse_args(argv)
    start_load = os.getloadavg()[0]
    times = measure(args.specs)
    text = section(args.specs, times, start_load)
    print(text)
    if args.out is not None:
        page.publish(args.out, "warm-spark", text)


if __name__ == "__main__":
    main()
