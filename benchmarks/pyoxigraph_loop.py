"""A per-window pyoxigraph loop: what one writes without the oracle.

Run::

    .venv/bin/python benchmarks/pyoxigraph_loop.py STREAM.nt --query Q.rq \\
        --range 5000 --step 5000 --end 30000 [--t0 0] [--bounds "[o,c]"] \\
        [--graph IRI] -o out.jsonl

Reads a timestamped N-Triples file, one ``<s> <p> <o> "t" .`` a line with
``t`` (ms) ascending, as ``rspbench stream generate --format ntriples-ts``
writes it; cuts it into time-based windows (window ``i`` spans
``o = t0 + i*step`` to ``c = o + range``, its ends in or out as ``--bounds``
says, RSP-QL Def. 12-13); loads each window's triples into a fresh
``pyoxigraph.Store`` as the named graph ``--graph`` and runs the SPARQL query
of ``--query`` on it. Every window that closes by ``--end`` is evaluated, an
empty one too (RStream, empty relations on), and written as one JSON line in
the shape of ``rspbench oracle``'s output: ``index``, ``window``, ``time``,
``triples``, ``bindings`` (variable -> N-Triples term).

Count-based windows (docs/count-and-session-windows.md) instead of time
windows, with ``--rows N`` (the last N events: the lines of one time are one
event) or ``--triples N`` (the last N lines), and ``--count-step M``::

    .venv/bin/python benchmarks/pyoxigraph_loop.py STREAM.nt --query Q.rq \
        --rows 5000 --count-step 5000 -o out.jsonl

The window slides after every M-th event (line); the slide after element p
holds the elements p-N+1 .. p (fewer during the ramp-up: reported), in the
file's order (ties broken by it); it is evaluated at the time of element p,
and reports ``[first, last]``: the times of its first and last element (the
profile count_order time, count_ties arrival, count_rampup report,
count_tick tuple-driven, count_bounds [first,last]). Relations are numbered
from 0 in order.

The file is read once; only the lines a window still open can hold are kept
(at most one window's worth plus one slide), so memory follows the window,
not the stream. The last line on stderr is a JSON summary (seconds spent
reading, loading and querying, windows, solutions). This script imports
nothing of pytest-rspbench: it stands for a user's own loop.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

# (time, lines, bytes): the lines of one event time, joined.
Chunk = tuple[int, int, bytes]


def chunks(path: Path, times: dict[str, float]) -> Iterator[Chunk]:
    """The file's lines grouped by time, each turned into plain N-Triples."""
    lines: list[bytes] = []
    current = 0
    began = time.perf_counter()
    with path.open("rb") as stream:
        for line in stream:
            # The time is the last quoted literal: `<s> <p> <o> "1091" .`
            head, _, tail = line.rpartition(b' "')
            if not head:
                continue  # a blank line
            t = int(tail[: tail.index(b'"')])
            if t != current and lines:
                times["read"] += time.perf_counter() - began
                yield current, len(lines), b"".join(lines)
                began = time.perf_counter()
                lines = []
            current = t
            lines.append(head + b" .\n")
    times["read"] += time.perf_counter() - began
    if lines:
        yield current, len(lines), b"".join(lines)


def windows(
    source: Iterator[Chunk], width: int, slide: int, t0: int, end: int, bounds: str
) -> Iterator[tuple[int, int, int, int, bytes]]:
    """``(index, o, c, triples, N-Triples)`` of every window closed by ``end``."""
    last = (end - width - t0) // slide  # the last window with c <= end
    first_in = 1 if bounds == "(o,c]" else 0  # an event at o is outside
    last_out = 1 if bounds == "[o,c)" else 0  # an event at c is outside
    buffer: deque[Chunk] = deque()
    i = 0

    def cut(index: int) -> tuple[int, int, int, int, bytes]:
        o = t0 + index * slide
        c = o + width
        inside = [ch for ch in buffer if o + first_in <= ch[0] <= c - last_out]
        data = b"".join(ch[2] for ch in inside)
        return index, o, c, sum(ch[1] for ch in inside), data

    for chunk in source:
        # Window i is complete once time has passed its close.
        while i <= last and chunk[0] > t0 + i * slide + width:
            yield cut(i)
            i += 1
            o_next = t0 + i * slide + first_in
            while buffer and buffer[0][0] < o_next:
                buffer.popleft()
        if i > last:
            return
        if chunk[0] >= t0 + i * slide:
            buffer.append(chunk)
    while i <= last:
        yield cut(i)
        i += 1


def counted(
    source: Iterator[Chunk], size: int, step: int, per_line: bool
) -> Iterator[tuple[int, int, int, int, bytes]]:
    """``(time, first, last, triples, N-Triples)`` of every slide of a count
    window over ``source``: events (chunks) or, ``per_line``, single lines.

    Written for this loop from the contract's definition (docs/count-and-
    session-windows.md), not from the oracle's code: a ring of the last
    ``size`` elements, a slide after every ``step``-th. ``[ROWS 2 STEP 2]``::

        events   e1@1  e2@2  e3@5  e4@6
        slides         ^           ^         {e1,e2} at 2 [1,2]; {e3,e4} at 6 [5,6]
    """
    held: deque[tuple[int, bytes, int]] = deque()
    count = 0
    for t, lines, data in source:
        elements = [(t, data, lines)]
        if per_line:
            elements = [(t, line + b"\n", 1) for line in data.splitlines() if line]
        for element in elements:
            held.append(element)
            if len(held) > size:
                held.popleft()
            count += 1
            if count % step == 0:
                content = b"".join(e[1] for e in held)
                yield element[0], held[0][0], element[0], sum(e[2] for e in held), content


def evaluate(sparql: str, graph: str, data: bytes, times: dict[str, float]) -> list:
    """The query's solutions on one window's triples, loaded as ``graph``."""
    import pyoxigraph as ox

    began = time.perf_counter()
    store = ox.Store()
    if data:
        store.bulk_load(
            data, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(graph), lenient=True
        )
    loaded = time.perf_counter()
    result = store.query(sparql)
    assert isinstance(result, ox.QuerySolutions), "a SELECT query"
    names = [v.value for v in result.variables]
    rows = [{n: str(row[n]) for n in names if row[n] is not None} for row in result]
    times["load"] += loaded - began
    times["query"] += time.perf_counter() - loaded
    return rows


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("stream", type=Path, help="timestamped N-Triples file")
    options.add_argument("--query", type=Path, required=True, help="SPARQL file")
    options.add_argument("--range", type=int, help="window width, ms (a time window)")
    options.add_argument("--step", type=int, help="window slide, ms (a time window)")
    options.add_argument("--end", type=int, help="stream end, ms (a time window)")
    count = options.add_mutually_exclusive_group()
    count.add_argument("--rows", type=int, help="a count window of the last ROWS events")
    count.add_argument("--triples", type=int, help="a count window of the last TRIPLES lines")
    options.add_argument(
        "--count-step", type=int, default=1,
        help="a count window slides after every COUNT_STEP events or lines (default 1)",
    )  # fmt: skip
    options.add_argument("--t0", type=int, default=0, help="window start (default 0)")
    options.add_argument(
        "--bounds", choices=["[o,c]", "[o,c)", "(o,c]"], default="[o,c]",
        help="which window ends are in (default [o,c], YABench)",
    )  # fmt: skip
    options.add_argument(
        "--graph", default="http://example.org/yabench/w",
        help="named graph of a window's triples (default: the benchmarks' window IRI)",
    )  # fmt: skip
    options.add_argument("-o", "--output", type=Path, required=True)
    args = options.parse_args(argv)
    size = args.rows or args.triples
    if size is None and None in (args.range, args.step, args.end):
        options.error("give --range, --step and --end (a time window), or --rows/--triples")
    began = time.perf_counter()
    sparql = args.query.read_text(encoding="utf-8")
    times = {"read": 0.0, "load": 0.0, "query": 0.0}
    count = solutions = 0
    source = chunks(args.stream, times)
    if size is not None:
        slides = counted(source, size, args.count_step, args.triples is not None)
        cut = ((n, at, (first, last), triples, data)
               for n, (at, first, last, triples, data) in enumerate(slides))  # fmt: skip
    else:
        cut = ((index, c, (o, c), triples, data) for index, o, c, triples, data in
               windows(source, args.range, args.step, args.t0, args.end, args.bounds))  # fmt: skip
    with args.output.open("w", encoding="utf-8") as out:
        for index, at, (o, c), triples, data in cut:
            rows = evaluate(sparql, args.graph, data, times)
            line = {"index": index, "window": [o, c], "time": at, "triples": triples}
            out.write(json.dumps(line | {"bindings": rows}, sort_keys=True) + "\n")
            count += 1
            solutions += len(rows)
    summary = {"seconds": time.perf_counter() - began, "windows": count}
    summary |= {"solutions": solutions} | {k: round(v, 3) for k, v in times.items()}
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
