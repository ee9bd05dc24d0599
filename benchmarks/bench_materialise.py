"""The oracle's stream DataFrame: createDataFrame (old) vs Parquet cold vs warm.

Run: ``.venv/bin/python benchmarks/bench_materialise.py [--quick] [--runs N]``.
Prints a markdown table. For yabench-sg1 streams of about 100k and 1M triples
it times, side by side in one Spark session (``local[2]``):

- *createDataFrame*: read the Python stream into a list of rows (the old
  ``oracle._rows``) and ``spark.createDataFrame(rows, schema)``;
- *Parquet cold*: :meth:`StreamCache.materialise` into an empty cache
  (the stream is read once and written to Parquet through Spark);
- *Parquet warm*: the same call on the filled cache (a new
  :class:`StreamCache`, as in the next pytest run: no event is read).

Each figure is wall time for building the DataFrame plus ``count()``; the
*scan* columns add one full pass over every column (``bit_xor(xxhash64(...))``),
since a Parquet ``count()`` can be answered from file footers; the three
checksums must agree. The Python
process's peak RSS is taken after each step (in the order cold, warm, old,
so the old path's growth shows). ``--quick`` runs the 100k stream only.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_rspbench.oracle.oracle import _rows
from pytest_rspbench.oracle.spark import SparkProvider
from pytest_rspbench.oracle.store.streamcache import SCHEMA, StreamCache
from pytest_rspbench.stream.model import Stream
from pytest_rspbench.stream.sources import open_source

IRI = "http://example.org/yabench/stream"
# 7 triples per observation; 143 observations per station in 142 s at 1 s.
SIZES = {
    "100 stations, 1 s, 142 s": {"stations": 100, "interval": 1000},
    "1,000 stations, 1 s, 142 s": {"stations": 1000, "interval": 1000},
}


def sg1(params: dict[str, int]) -> Stream:
    config = {"kind": "generator", "name": "yabench-sg1", "duration": 142_000}
    return open_source(config | params | {"seed": 100}, Path("."), IRI)


def scan(frame: Any) -> int:
    from pyspark.sql import functions as F

    columns = F.xxhash64("stream", "s", "p", "o", "t")
    return int(frame.agg(F.bit_xor(columns)).collect()[0][0] or 0)


def timed(work: Callable[[], Any], runs: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(runs):
        began = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - began)
    return best, result


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(spark: Any, stream: Stream, runs: int, folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def cold() -> Any:
        root = Path(tempfile.mkdtemp(dir=folder))
        frame = StreamCache(root).materialise(spark, stream).frame(spark)
        out["triples"] = frame.count()
        out["root"] = root
        return frame

    def warm() -> Any:
        frame = StreamCache(out["root"]).materialise(spark, stream).frame(spark)
        frame.count()
        return frame

    def old() -> Any:
        rows, _ = _rows([stream], {})
        frame = spark.createDataFrame(rows, SCHEMA)
        frame.count()
        return frame

    checksums = set()
    for name, work in (("cold", cold), ("warm", warm), ("old", old)):
        seconds, frame = timed(work, runs)
        rss = max_rss_mb()
        print(f"  {name}: {seconds:.1f} s", file=sys.stderr)
        scanned, checksum = timed(partial(scan, frame), 1)
        checksums.add(checksum)
        out[name] = (seconds, scanned, rss)
    assert len(checksums) == 1, f"the three DataFrames differ: {checksums}"
    out["mb"] = sum(p.stat().st_size for p in out["root"].rglob("*.parquet")) / 1e6
    return out


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--quick", action="store_true", help="the 100k stream only")
    options.add_argument("--runs", type=int, default=1, help="best of N (default 1)")
    args = options.parse_args()
    sizes = list(SIZES.items())[:1] if args.quick else list(SIZES.items())
    provider = SparkProvider("local[2]")
    spark = provider.get()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            # Warm the JVM up (JSON and Parquet readers, code generation) on a
            # tiny stream first, or the first figure pays for it.
            measure(spark, sg1({"stations": 2, "interval": 1000}), 1, Path(folder))
            for label, params in sizes:
                print(f"yabench-sg1 {label}", file=sys.stderr)
                rows.append((label, measure(spark, sg1(params), args.runs, Path(folder))))
    finally:
        provider.stop()
    print(
        "| yabench-sg1 | triples | createDataFrame s | Parquet cold s | "
        "Parquet warm s | scan after old / cold / warm s | Parquet MB | "
        "peak RSS after cold / warm / old MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, m in rows:
        scans = " / ".join(f"{m[k][1]:.1f}" for k in ("old", "cold", "warm"))
        rss = " / ".join(f"{m[k][2]:.0f}" for k in ("cold", "warm", "old"))
        print(
            f"| {label} | {m['triples']:,} | {m['old'][0]:.1f} | {m['cold'][0]:.1f} | "
            f"{m['warm'][0]:.1f} | {scans} | {m['mb']:.1f} | {rss} |"
        )
    print(
        f"\nSpark local[2], best of {args.runs} run(s), wall time; Python {sys.version.split()[0]}."
    )


if __name__ == "__main__":
    main()
