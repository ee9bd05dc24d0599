"""``rspbench stream``: generate streams to files, show their statistics.

    rspbench stream generators                    each generator's parameters
    rspbench stream generate yabench-sg1 --set stations=50 --set seed=1 -o s.nt
    rspbench stream generate yabench-sg1 --set stations=50 --format parquet -o s/
    rspbench stream stats s.nt                    (:mod:`~pytest_rspbench.cli.statistics`)

``--format parquet`` writes the Parquet dataset the oracle reads
(:mod:`~pytest_rspbench.oracle.store.streamcache`), through Spark.
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
    """Register ``rspbench stream`` and its commands on the top-level subparsers."""
    from pytest_rspbench.cli import statistics

    stream = commands.add_parser(
        "stream",
        help="generate streams, show their statistics",
        description="Generate a stream to a file, list the generators' parameters, "
        "or count the triples and events of a stream.",
    )
    sub = stream.add_subparsers(title="stream commands")
    _add_generators(sub)
    _add_generate(sub)
    statistics.add_command(sub)
    stream.set_defaults(run=lambda args: (stream.print_help(), 2)[1])


def _add_generators(sub: Any) -> None:
    from pytest_rspbench.cli import generators

    listing = sub.add_parser(
        "generators",
        help="list the generators and their parameters",
        description="List each stream generator with its parameters: default, "
        "allowed values and meaning. A spec sets them in a source of kind "
        "generator; `rspbench stream generate NAME --set K=V` on the command line.",
    )
    listing.add_argument("name", nargs="?", help="only this generator (default: all of them)")
    listing.set_defaults(run=generators.run)


def _add_generate(sub: Any) -> None:
    generate = sub.add_parser(
        "generate",
        help="write a generated stream to a file",
        description="Write the stream a generator makes, as timestamped lines or as "
        "the Parquet dataset the oracle reads. `rspbench stream generators` lists "
        "the generators and their parameters.",
    )
    generate.add_argument("generator", help="yabench-sg1, lsbench-social or workload")
    generate.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="K=V",
        help="a generator parameter, e.g. --set stations=1000 (repeatable; "
        "default: the generator's defaults)",
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
        help="accepted for older scripts, unused: Parquet is written without Spark "
        "(default: local[*])",
    )
    generate.add_argument("--quiet", action="store_true", help="no progress line (default: off)")
    generate.set_defaults(run=_generate)


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

    from pytest_rspbench.oracle.store.streamcache import write_parquet

    if args.output is None:
        raise StreamError("--format parquet needs -o DIR, a new folder")
    counted = replace(stream, read=lambda: progress.wrap(stream.read()))
    try:
        stored = write_parquet(counted, args.output)
    finally:
        progress.done()
    print(
        f"{stored.triples} triples in {len(stored.times)} events written to "
        f"{stored.path} (Parquet)",
        file=sys.stderr,
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

    def __init__(self, enabled: bool) -> None:
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
