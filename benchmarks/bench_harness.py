"""The replay harness's own limits, measured with a trivial engine process.

Run: ``.venv/bin/python benchmarks/bench_harness.py [--quick]``. Prints a
markdown section (writes no files). The engine is a protocol-1 process that
reads stdin in large chunks and only answers ``register`` and ``end``, so the
figures are the harness's: how fast it can encode and send events, how close
to schedule it sends them in real time, and what sampling costs.

* **Feed rate**: the stream replayed at max rate (``speed: 0``); triples per
  second from the first event to ``done``. Best of three.
* **Timing error**: real-time replay (speed 1, one event per ms of
  application time); per event, how late it was sent against its scheduled
  time on the harness's absolute clock (p50, p99, max).
* **Sampling overhead**: the max-rate feed with sampling off, every 500 ms
  (the default) and every 10 ms; and the cost of one sample.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.process import ProcessConfig, ProcessEngine
from pytest_rspbench.engine.sampling import Sampler
from pytest_rspbench.stream.model import Event, Stream

SINK = r"""
import os, sys
out = sys.stdout
out.write('{"type":"hello","protocol":1,"name":"sink","version":"1"}\n'); out.flush()
fd, tail = sys.stdin.fileno(), b""
while True:
    chunk = os.read(fd, 1 << 20)
    if not chunk:
        break
    seen = tail + chunk
    if b'"type":"register"' in seen:
        out.write('{"type":"registered"}\n'); out.flush()
    if b'"type":"end"' in seen:
        out.write('{"type":"done"}\n'); out.flush()
    if b'"type":"shutdown"' in seen:
        break
    tail = chunk[-32:]
"""
TRIPLE = (
    "<http://example.org/sensor/s1/obs/000001>",
    "<http://purl.oclc.org/NET/ssnx/ssn#observationResult>",
    '"21.5"^^<http://www.w3.org/2001/XMLSchema#double>',
)
S = "http://example.org/stream"


def stream(events: int, per_event: int, spacing: int = 1) -> Stream:
    batch = (TRIPLE,) * per_event
    return Stream(S, lambda: (Event(i * spacing, batch) for i in range(events)), "bench")


def replay(
    sink: Path,
    source: Stream,
    end: int,
    speed: float = 0,
    interval: float | None = None,
) -> harness.ActualOutput:
    engine = ProcessEngine(ProcessConfig((sys.executable, str(sink)), Path.cwd()), "sink")
    out = harness.run(
        engine,
        Registration("bench", (S,), 0),
        [source],
        end,
        speed=speed,
        timeout=600,
        sample_interval=interval,
    )
    if out.error:
        raise SystemExit(out.error)
    return out


def feed_rate(sink: Path, events: int, per_event: int, interval: float | None = None) -> float:
    best = 0.0
    for _ in range(3):
        out = replay(sink, stream(events, per_event), events, interval=interval)
        best = max(best, out.triples_sent / out.seconds)
    return best


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timing(sink: Path, seconds: int, per_event: int, speed: float = 1) -> tuple[float, ...]:
    events = int(seconds * 1000 * speed)
    out = replay(sink, stream(events, per_event), events, speed=speed)
    late = [x * 1000 for x in out.lateness]
    return (
        percentile(late, 0.5),
        percentile(late, 0.99),
        max(late),
        statistics.fmean(late),
    )


def bare_sleep(seconds: int) -> tuple[float, ...]:
    """The same schedule without the harness: what the OS gives a sleeping thread."""
    start, late = time.monotonic(), []
    for i in range(1, seconds * 1000 + 1):
        due = start + i / 1000
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        late.append((time.monotonic() - due) * 1000)
    return (
        percentile(late, 0.5),
        percentile(late, 0.99),
        max(late),
        statistics.fmean(late),
    )


def sample_cost() -> float:
    sampler = Sampler(None, 60, None, lambda: (0.0, None))
    start = time.perf_counter()
    for _ in range(200):
        sampler._take()
    return (time.perf_counter() - start) / 200 * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (default: full)")
    args = parser.parse_args()
    n = 50_000 if args.quick else 200_000
    seconds = 2 if args.quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        sink = Path(tmp) / "sink.py"
        sink.write_text(SINK)
        print("### Replay harness (protocol engine process)\n")
        print("Max-rate feed over the JSON-lines protocol to a trivial engine process:\n")
        print("| triples per event | events | triples/s | events/s |\n|---:|---:|---:|---:|")
        for per_event in (1, 5, 20):
            events = n // per_event
            rate = feed_rate(sink, events, per_event)
            print(f"| {per_event} | {events:,} | {rate:,.0f} | {rate / per_event:,.0f} |")
        print(
            f"\nReal-time replay, one event per ms, {seconds} s per row; "
            "lateness of each "
            "send against its schedule:\n"
        )
        print("| rate | events/s | p50 (ms) | p99 (ms) | max (ms) | mean (ms) |")
        print("|---|---:|---:|---:|---:|---:|")
        rows = (
            ("1k triples/s", 1, 1.0),
            ("50k triples/s", 50, 1.0),
            ("50k triples/s (1 per event, speed 50)", 1, 50.0),
        )
        p50, p99, worst, mean = bare_sleep(seconds)
        print(
            f"| baseline: a bare sleep loop, no harness | 1,000 | {p50:.3f} "
            f"| {p99:.3f} | {worst:.3f} | {mean:.3f} |"
        )
        for label, per_event, speed in rows:
            p50, p99, worst, mean = timing(sink, seconds, per_event, speed)
            print(
                f"| {label} | {1000 * speed:,.0f} | {p50:.3f} | {p99:.3f} "
                f"| {worst:.3f} "
                f"| {mean:.3f} |"
            )
        print("\nSampling overhead (max-rate feed, 5 triples per event):\n")
        print("| sampling | triples/s |\n|---|---:|")
        for label, interval in (
            ("off", None),
            ("every 500 ms", 0.5),
            ("every 10 ms", 0.01),
        ):
            print(f"| {label} | {feed_rate(sink, n // 5, 5, interval):,.0f} |")
        print(
            f"\nOne sample of a one-process tree costs {sample_cost():.0f} µs of the "
            "harness's time (psutil: RSS, CPU times, threads)."
        )


if __name__ == "__main__":
    main()
