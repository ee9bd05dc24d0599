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
    options.add_argument("--range", type=int, required=True, help="window width, ms")
    options.add_argument("--step", type=int, required=True, help="window slide, ms")
    options.add_argument("--end", type=int, required=True, help="stream end, ms")
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
    began = time.perf_counter()
    sparql = args.query.read_text(encoding="utf-8")
    times = {"read": 0.0, "load": 0.0, "query": 0.0}
    count = solutions = 0
    source = chunks(args.stream, times)
    cut = windows(source, args.range, args.step, args.t0, args.end, args.bounds)
    with args.output.open("w", encoding="utf-8") as out:
        for index, o, c, triples, data in cut:
            rows = evaluate(sparql, args.graph, data, times)
            line = {"index": index, "window": [o, c], "time": c, "triples": triples}
            out.write(json.dumps(line | {"bindings": rows}, sort_keys=True) + "\n")
            count += 1
            solutions += len(rows)
    summary = {"seconds": time.perf_counter() - began, "windows": count}
    summary |= {"solutions": solutions} | {k: round(v, 3) for k, v in times.items()}
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
