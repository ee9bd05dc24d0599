"""Throughput of stream generation, writing and parsing, on one core.

Run: ``.venv/bin/python benchmarks/bench_streams.py [--quick] [--baseline REV]``.
Prints markdown tables. Each figure is the best of a few runs (least disturbed
by other processes). "YABench big" is YABench's largest load: 10,000 stations,
1 s interval, 30 s (about 2.1 million triples); its parse is timed once.

The timestamped N-Triples parser is compared side by side, in the same run
and on the same files, with two baselines: the parser of commit ``REV``
(default: the last one before the block-wise fast path), loaded from git into
a scratch module, and pyoxigraph's N-Triples parser (Rust) reading the same
triples without timestamps, terms turned into the same strings. Runs of the
parsers alternate, so a busy moment hurts them alike. Each parser's peak
memory is measured in a child process of its own, on the medium file and on
the 5x larger big one: a lazy reader's peak does not grow with the file.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_rspbench.stream.lines import read_events, write_lines
from pytest_rspbench.stream.lsbench import LSBenchConfig, lsbench_events
from pytest_rspbench.stream.yabench import SG1Config, sg1_events

BIG = SG1Config(stations=10_000, interval=1000, duration=30_000, seed=100)
MEDIUM = SG1Config(stations=1000, interval=1000, duration=60_000, seed=100)
ROOT = Path(__file__).resolve().parent.parent
# The last commit with the line-at-a-time N-Triples reader (before the fast path).
BASELINE = "8fd2718"


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


def parse(path: Path, fmt: str, reader: Callable[..., Iterator] = read_events) -> int:
    return sum(len(event.triples) for event in reader(path, fmt))


def parse_pyoxigraph(path: Path) -> int:
    """pyoxigraph's N-Triples parser, each term turned into its N-Triples string."""
    import pyoxigraph

    count = 0
    with open(path, "rb") as data:
        for quad in pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.N_TRIPLES):
            str(quad.subject), str(quad.predicate), str(quad.object)
            count += 1
    return count


def baseline_reader(rev: str) -> Callable[..., Iterator]:
    """``read_events`` of commit ``rev``: its lines.py and ntriples.py, from git."""

    def source(name: str) -> str:
        path = f"pytest_rspbench/stream/{name}"
        return subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    modules: dict[str, types.ModuleType] = {}
    for name in ("ntriples", "lines"):
        text = source(f"{name}.py")
        old_import = "from pytest_rspbench.stream import ntriples as nt"
        if name == "lines":
            assert old_import in text, "the baseline's lines.py imports ntriples"
            text = text.replace(old_import, "nt = _baseline_ntriples")
        module = types.ModuleType(f"rspbench_baseline_{name}")
        module.__dict__["_baseline_ntriples"] = modules.get("ntriples")
        sys.modules[module.__name__] = module  # dataclasses look their module up
        exec(compile(text, f"{rev}:{name}.py", "exec"), module.__dict__)
        modules[name] = module
    return modules["lines"].read_events


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss_mb(*child_args: str) -> float:
    """Peak RSS (MB) of a child process that only parses (see ``--peak-of``)."""
    done = subprocess.run(
        [sys.executable, __file__, "--peak-of", *child_args],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout.split()[-1])


def child_peak(parser: str, path: Path, fmt: str, rev: str) -> None:
    if parser == "new":
        parse(path, fmt)
    elif parser == "baseline":
        parse(path, fmt, baseline_reader(rev))
    else:
        parse_pyoxigraph(path)
    # ru_maxrss survives exec on Linux (it would show the parent's peak);
    # VmHWM is this process image's own peak.
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                print(f"{int(line.split()[1]) / 1024:.1f}")
                return
    print(f"{max_rss_mb():.1f}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--quick", action="store_true", help="one run each")
    options.add_argument("--baseline", default=BASELINE, help="commit to compare")
    options.add_argument("--peak-of", nargs=3, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.peak_of:
        parser, path, fmt = args.peak_of
        child_peak(parser, Path(path), fmt, args.baseline)
        return
    runs = 1 if args.quick else 3
    social = LSBenchConfig(users=1000, duration=600_000, seed=1)
    rows: list[tuple[str, int, float, float]] = []

    def measure(what: str, work: Callable[[], int], times: int = runs) -> None:
        cpu, wall, triples = best_of(times, work)
        rows.append((what, triples, cpu, wall))
        print(f"  {what}: {cpu:.2f} s CPU, {wall:.2f} s wall", file=sys.stderr)

    measure("generate yabench-sg1 (1,000 stations, 60 s)", lambda: generate(MEDIUM))
    measure("generate YABench big (10,000 stations, 30 s)", lambda: generate(BIG))
    measure(
        "generate lsbench-social (1,000 users, 10 min)",
        lambda: sum(len(e.triples) for e in lsbench_events(social)),
    )
    for fmt in ("ntriples-ts", "n3t", "jsonl"):
        measure(f"write {fmt} (to memory)", partial(write, MEDIUM, fmt))

    baseline = baseline_reader(args.baseline)
    parsers: dict[str, Callable[[Path, str], int]] = {
        f"baseline ({args.baseline})": partial(parse, reader=baseline),
        "new": parse,
    }
    compared: list[tuple[str, int, dict[str, float]]] = []
    peaks: list[tuple[str, str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for fmt in ("ntriples-ts", "n3t", "jsonl"):
            files[fmt] = Path(folder) / f"medium.{fmt}"
            with open(files[fmt], "w", encoding="utf-8") as out:
                write_lines(sg1_events(MEDIUM), out, fmt)
        plain = Path(folder) / "medium.nt"
        with open(plain, "w", encoding="utf-8") as out:
            for event in sg1_events(MEDIUM):
                out.write("".join(f"{s} {p} {o} .\n" for s, p, o in event.triples))
        for fmt in ("ntriples-ts", "n3t"):
            size = files[fmt].stat().st_size / 1e6
            cpu = {name: float("inf") for name in parsers}
            triples = 0
            for _ in range(runs):  # alternate the parsers
                for name, run in parsers.items():
                    best, _, triples = best_of(1, partial(run, files[fmt], fmt))
                    cpu[name] = min(cpu[name], best)
            best, _, count = best_of(runs, partial(parse_pyoxigraph, plain))
            assert count == triples
            cpu["pyoxigraph"] = best
            compared.append((f"{fmt}, medium ({size:.0f} MB)", triples, cpu))
            print(f"  parse {fmt}: {cpu}", file=sys.stderr)
        size = files["jsonl"].stat().st_size / 1e6
        measure(f"parse jsonl ({size:.0f} MB)", partial(parse, files["jsonl"], "jsonl"))

        path = Path(folder) / "big.nt"
        with open(path, "w", encoding="utf-8") as out:
            write_lines(sg1_events(BIG), out, "ntriples-ts")
        size = path.stat().st_size / 1e6
        cpu = {}
        for name, run in parsers.items():
            cpu[name], _, triples = best_of(1, partial(run, path, "ntriples-ts"))
        compared.append((f"ntriples-ts, YABench big ({size:.0f} MB)", triples, cpu))
        print(f"  parse big: {cpu}", file=sys.stderr)
        for parser in ("baseline", "new"):
            for label, target in (("medium", files["ntriples-ts"]), ("big", path)):
                rss = peak_rss_mb(parser, str(target), "ntriples-ts")
                peaks.append((parser, label, rss))

    print("| what | triples | CPU s | wall s | triples per CPU s |")
    print("|---|---:|---:|---:|---:|")
    for what, triples, cpu_s, wall in rows:
        print(f"| {what} | {triples:,} | {cpu_s:.2f} | {wall:.2f} | {triples / cpu_s:,.0f} |")
    names = [*parsers, "pyoxigraph"]
    print(
        "\nParsing timestamped N-Triples, triples per CPU second (side by side, "
        "best of the alternating runs; pyoxigraph: the same triples as plain "
        "N-Triples):\n"
    )
    print(f"| file | triples | {' | '.join(names)} | new / baseline |")
    print(f"|---|---:|{'---:|' * len(names)}---:|")
    for what, triples, cpu in compared:
        rates = [f"{triples / cpu[name]:,.0f}" if name in cpu else "-" for name in names]
        ratio = cpu[names[0]] / cpu["new"]
        print(f"| {what} | {triples:,} | {' | '.join(rates)} | {ratio:.2f}x |")
    print("\nPeak RSS of a process that only parses (MB):\n")
    print("| parser | medium file | big file (5x) |")
    print("|---|---:|---:|")
    for parser in ("baseline", "new"):
        medium, big = (rss for p, _, rss in peaks if p == parser)
        print(f"| {parser} | {medium:.0f} | {big:.0f} |")
    print(f"\nPython {sys.version.split()[0]}, one core.")


if __name__ == "__main__":
    main()
