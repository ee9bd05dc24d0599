"""``rspbench stream stats``: triples, events, time span and rate of a stream.

    rspbench stream stats s.nt
    rspbench stream stats 'rspbench-data:csrbench/stream/data_*.ttl'
    rspbench stream stats specs/csrbench/q2.rspbench.yaml --param range=1000

A stream is read as a spec reads it
(:func:`~pytest_rspbench.stream.sources.open_source`): one timestamped file (a
``lines`` source), a glob of RDF files with one timestamp each (a ``files``
source, the CSRBench layout), or the streams of a spec's case.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import StreamError

# Timestamped lines (a `lines` source), or one RDF file per timestamp (`files`).
LINE_FORMATS = ("ntriples-ts", "n3t", "nquads-ts", "jsonl", "trig")
FILE_FORMATS = ("turtle", "ntriples", "rdfxml")
SUFFIXES = {
    ".ttl": "turtle",
    ".rdf": "rdfxml",
    ".owl": "rdfxml",
    ".xml": "rdfxml",
    ".n3t": "n3t",
    ".nq": "nquads-ts",
    ".jsonl": "jsonl",
    ".trig": "trig",
}
# The IRI of a stream read from a file: no spec names it.
FILE_IRI = "http://example.org/stream"


def add_command(sub: Any) -> None:
    """Register ``stats`` on the ``rspbench stream`` subparsers."""
    stats = sub.add_parser(
        "stats",
        help="triples, events, time span and rate of a stream",
        description="Read a stream as a spec does and print its triples, events, "
        "time span and rate. SOURCE is a timestamped file (s.nt, s.n3t, s.trig ...), "
        "a glob of RDF files with one timestamp each ('data_*.ttl', the CSRBench "
        "layout; quote it), or a spec, whose case's streams are read. "
        "'rspbench-data:' names data shipped with pytest-rspbench.",
    )
    stats.add_argument("source", metavar="SOURCE", help="a stream file, a glob or a spec")
    stats.add_argument(
        "--format",
        choices=LINE_FORMATS + FILE_FORMATS,
        help="how to read SOURCE: a line format, or turtle, ntriples or rdfxml for "
        "one file per timestamp (default: by the file suffix: .ttl turtle, .n3t n3t, "
        ".nq nquads-ts, .trig trig, .jsonl jsonl, .rdf rdfxml, else ntriples-ts)",
    )
    stats.add_argument(
        "--interval",
        type=int,
        default=1000,
        help="ms per number in the file names of one-file-per-timestamp sources (default: 1000)",
    )
    stats.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="K=V",
        help="for a spec: the case, by matrix values (repeatable; default: the first case)",
    )
    stats.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    streams = _streams(args)
    for stream in streams:
        named = stream.iri != FILE_IRI
        _show(stream, f"<{stream.iri}> {stream.describe}" if named else stream.describe)
    return 0


def _streams(args: argparse.Namespace) -> list[Any]:
    from pytest_rspbench.cli.validation import SPEC_SUFFIXES

    if args.source.endswith(SPEC_SUFFIXES):
        from pytest_rspbench.cli.cases import select_case
        from pytest_rspbench.runner import open_streams
        from pytest_rspbench.spec.loader import load_spec

        return open_streams(select_case(load_spec(Path(args.source)), args.param))
    if args.param:
        raise StreamError("--param selects a case of a spec; SOURCE is not a spec.")
    return [_open(args.source, args.format, args.interval)]


def _open(source: str, fmt: str | None, interval: int) -> Any:
    """The stream in ``source``, read as a spec's ``files`` or ``lines`` source."""
    from pytest_rspbench.spec.resources import resolve_path
    from pytest_rspbench.stream.sources import open_source

    path = resolve_path(source, Path.cwd())
    globbed = any(c in path.name for c in "*?[")
    if fmt is None:
        default = "ntriples" if globbed and path.suffix == ".nt" else "ntriples-ts"
        fmt = SUFFIXES.get(path.suffix, default)
    config: dict[str, Any] = {"kind": "lines", "path": str(path), "format": fmt}
    if fmt in FILE_FORMATS:
        config = {"kind": "files", "path": str(path), "format": fmt, "interval": interval}
    elif globbed:
        raise StreamError(
            f"{source}: a glob names one file per timestamp, read as turtle, "
            f"ntriples or rdfxml, not {fmt}.\n"
            "HINT: give --format turtle (or ntriples, rdfxml), or one file."
        )
    return open_source(config, Path.cwd(), FILE_IRI)


def _show(stream: Any, label: str) -> None:
    triples = events = 0
    first = last = None
    for event in stream.events():
        events += 1
        triples += len(event.triples)
        first = event.time if first is None else first
        last = event.time
    if first is None or last is None:
        print(f"{label}: empty stream")
        return
    span = last - first
    rate = f"{events / (span / 1000):.1f} events/s" if span else "all at one time"
    print(f"{label}: {triples} triples in {events} events")
    print(
        f"  time {first} .. {last} ms (span {span} ms), {rate}, "
        f"{triples / max(events, 1):.1f} triples/event"
    )
