"""``rspbench stream``: generate streams to files and show their statistics.

    rspbench stream generate yabench-sg1 --set stations=50 --set seed=1 -o s.nt
    rspbench stream generate yabench-sg1 --set stations=50 --format parquet -o s/
    rspbench stream stats s.nt

``--format parquet`` writes the Parquet dataset the oracle reads
(:mod:`~pytest_rspbench.oracle.streamcache`), through Spark.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import StreamError

FORMATS = ("ntriples-ts", "n3t", "nquads-ts", "jsonl", "parquet")
DEFAULT_IRI = "http://example.org/stream"


def add_commands(commands: Any) -> None:
    stream = commands.add_parser(
        "stream", help="generate streams, show their statistics"
    )
    sub = stream.add_subparsers(title="stream commands")
    generate = sub.add_parser("generate", help="write a generated stream to a file")
    generate.add_argument("generator", help="yabench-sg1, lsbench-social or workload")
    generate.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="K=V",
        help="a generator parameter, e.g. --set stations=1000 (repeatable)",
    )
    generate.add_argument(
        "--format",
        choices=FORMATS,
        default="ntriples-ts",
        help="parquet writes a folder, through Spark (default: ntriples-ts)",
    )
    generate.add_argument(
        "-o",
        "--output",
        type=Path,
        help="output file, or a new folder for parquet (default: stdout)",
    )
    generate.add_argument(
        "--iri",
        default=DEFAULT_IRI,
        help=f"the stream column's value in parquet (default: {DEFAULT_IRI})",
    )
    generate.add_argument(
        "--spark-master",
        default="local[*]",
        help="Spark master for parquet (default: local[*])",
    )
    generate.add_argument("--quiet", action="store_true", help="no progress line")
    generate.set_defaults(run=_generate)
    stats = sub.add_parser(
        "stats", help="triples, events, time span and rate of a stream file"
    )
    stats.add_argument("file", type=Path)
    stats.add_argument(
        "--format", default="ntriples-ts", help="line format (default: ntriples-ts)"
    )
    stats.set_defaults(run=_stats)
    stream.set_defaults(run=lambda args: (stream.print_help(), 2)[1])


def _generate(args: argparse.Namespace) -> int:
    from pytest_rspbench.stream.lines import write_lines
    from pytest_rspbench.stream.sources import open_source

    config: dict[str, Any] = {"kind": "generator", "name": args.generator}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise StreamError(f"--set {item!r}: expected K=V, e.g. --set stations=50")
        config[key] = _value(value)
    stream = open_source(config, Path.cwd(), args.iri)
    progress = _Progress(enabled=not args.quiet and sys.stderr.isatty())
    if args.format == "parquet":
        return _generate_parquet(stream, args, progress)
    out = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
    try:
        count = write_lines(progress.wrap(stream.events()), out, args.format)
    finally:
        progress.done()
        if args.output:
            out.close()
    print(
        f"{count} triples written" + (f" to {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    return 0


def _generate_parquet(stream: Any, args: argparse.Namespace, progress: Any) -> int:
    from dataclasses import replace

    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.streamcache import write_parquet

    if args.output is None:
        raise StreamError("--format parquet needs -o DIR, a new folder")
    counted = replace(stream, read=lambda: progress.wrap(stream.read()))
    provider = SparkProvider(args.spark_master)
    try:
        stored = write_parquet(provider.get(), counted, args.output)
    finally:
        progress.done()
        provider.stop()
    print(
        f"{stored.triples} triples in {len(stored.times)} events written to "
        f"{stored.path} (Parquet)",
        file=sys.stderr,
    )
    return 0


def _stats(args: argparse.Namespace) -> int:
    from pytest_rspbench.stream.lines import read_events

    triples = events = 0
    first = last = None
    for event in read_events(args.file, args.format):
        events += 1
        triples += len(event.triples)
        first = event.time if first is None else first
        last = event.time
    if first is None or last is None:
        print(f"{args.file}: empty stream")
        return 0
    span = last - first
    rate = events / (span / 1000) if span else float("inf")
    print(f"{args.file}: {triples} triples in {events} events")
    print(
        f"  time {first} .. {last} ms (span {span} ms), {rate:.1f} events/s, "
        f"{triples / max(events, 1):.1f} triples/event"
    )
    return 0


def _value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


class _Progress:
    """A one-line progress counter on stderr, only on a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.count = 0
        self.shown = 0.0

    def wrap(self, events: Any) -> Any:
        for event in events:
            self.count += len(event.triples)
            now = time.monotonic()
            if self.enabled and now - self.shown > 0.5:
                print(
                    f"\r{self.count:,} triples, t={event.time} ms",
                    end="",
                    file=sys.stderr,
                )
                self.shown = now
            yield event

    def done(self) -> None:
        if self.enabled:
            print(file=sys.stderr)
