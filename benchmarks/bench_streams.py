"""Throughput of stream generation, writing and parsing, on one core.

Run: ``.venv/bin/python benchmarks/bench_streams.py [--quick]``. Prints a
markdown table. Each figure is the best of a few runs (least disturbed by
other processes). "YABench big" is YABench's largest load: 10,000 stations,
1 s interval, 30 s (about 2.1 million triples); its parse is timed once.
"""

from __future__ import annotations

import argparse
import io
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_rspbench.stream.lines import read_events, write_lines
from pytest_rspbench.stream.lsbench import LSBenchConfig, lsbench_events
from pytest_rspbench.stream.yabench import SG1Config, sg1_events

BIG = SG1Config(stations=10_000, interval=1000, duration=30_000, seed=100)


def best_of(runs: int, work: Callable[[], int]) -> tuple[float, float, int]:
    """(best CPU s, best wall s, triples) over ``runs`` runs of ``work``.

    CPU time is the figure to compare: it is what one core spends, whatever
    else the machine runs; wall time shows what the machine gave us.
    """
    cpu, wall, count = [], [], 0
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        count = work()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return min(cpu), min(wall), count


def generate(config: SG1Config) -> int:
    return sum(len(event.triples) for event in sg1_events(config))


def write(config: SG1Config, fmt: str) -> int:
    return write_lines(sg1_events(config), io.StringIO(), fmt)


def parse(path: Path, fmt: str) -> int:
    return sum(len(event.triples) for event in read_events(path, fmt))


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--quick", action="store_true", help="one run each")
    runs = 1 if options.parse_args().quick else 3
    medium = SG1Config(stations=1000, interval=1000, duration=60_000, seed=100)
    social = LSBenchConfig(users=1000, duration=600_000, seed=1)
    rows: list[tuple[str, int, float, float]] = []

    def measure(what: str, work: Callable[[], int], times: int = runs) -> None:
        cpu, wall, triples = best_of(times, work)
        rows.append((what, triples, cpu, wall))
        print(f"  {what}: {cpu:.2f} s CPU, {wall:.2f} s wall", file=sys.stderr)

    measure("generate yabench-sg1 (1,000 stations, 60 s)", lambda: generate(medium))
    measure("generate YABench big (10,000 stations, 30 s)", lambda: generate(BIG))
    measure(
        "generate lsbench-social (1,000 users, 10 min)",
        lambda: sum(len(e.triples) for e in lsbench_events(social)),
    )
    for fmt in ("ntriples-ts", "n3t", "jsonl"):
        measure(f"write {fmt} (to memory)", partial(write, medium, fmt))

    with tempfile.TemporaryDirectory() as folder:
        rss_before = max_rss_mb()
        for fmt in ("ntriples-ts", "n3t", "jsonl"):
            path = Path(folder) / f"medium.{fmt}"
            with open(path, "w", encoding="utf-8") as out:
                write_lines(sg1_events(medium), out, fmt)
            size = path.stat().st_size / 1e6
            measure(f"parse {fmt} ({size:.0f} MB)", partial(parse, path, fmt))
        path = Path(folder) / "big.nt"
        with open(path, "w", encoding="utf-8") as out:
            write_lines(sg1_events(BIG), out, "ntriples-ts")
        size = path.stat().st_size / 1e6
        what = f"parse ntriples-ts, YABench big ({size:.0f} MB)"
        measure(what, partial(parse, path, "ntriples-ts"), times=1)
        rss_after = max_rss_mb()

    print("| what | triples | CPU s | wall s | triples per CPU s |")
    print("|---|---:|---:|---:|---:|")
    for what, triples, cpu, wall in rows:
        print(
            f"| {what} | {triples:,} | {cpu:.2f} | {wall:.2f} | {triples / cpu:,.0f} |"
        )
    print(
        f"\nPeak RSS {rss_after:.0f} MB (before parsing {rss_before:.0f} MB): parsing "
        f"is lazy. Python {sys.version.split()[0]}, one core."
    )


if __name__ == "__main__":
    main()
