"""Timestamped line formats: one triple (or one event) per line, read lazily.

Formats (the ``fmt`` argument):

``ntriples-ts`` / ``n3t``
    An N-Triples triple followed by its timestamp, then ``.``::

        <http://ex/s> <http://ex/p> "v" "1000" .

    The timestamp is ``"1000"``, ``"1000"^^xsd:long`` (any integer type),
    a bare ``1000`` or an ``xsd:dateTime`` literal (see
    :mod:`~pytest_rspbench.stream.timestamps`). ``n3t`` is YABench's name for
    the same thing; both read YABench's unquoted numbers
    (``42.0^^<...#float>``). They differ only when writing.
``nquads-ts``
    N-Quads whose graph position carries nothing the stream needs. With the
    default ``graph_time=False`` the timestamp is an extra last element and
    the graph is optional and dropped: ``<s> <p> <o> [<g>] "1000" .``. With
    ``graph_time=True`` there is no extra element and the timestamp is the
    last integer in the graph name: ``<s> <p> <o> <urn:t:1000> .``.
``jsonl``
    One JSON object per line, terms as N-Triples strings: either one triple
    ``{"time": 1000, "s": "<...>", "p": "<...>", "o": "\\"v\\""}`` or one event
    ``{"time": 1000, "triples": [["<...>", "<...>", "<...>"], ...]}``.

Files are read lazily, a block of lines (256 KiB) at a time, so memory does
not depend on the file size (files ending in ``.gz`` are decompressed on the
fly). Empty lines and ``#`` comment lines are skipped. Bad input raises
:class:`StreamError` with ``file:line:column: what was expected`` *when the
reader reaches that line*: the events before it have already been yielded,
the load never ends silently short. Collect the events first (``list(...)``)
to check a whole file before using it. Time going backwards is an error
unless ``allow_disorder=True``.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from pytest_rspbench.errors import StreamError
from pytest_rspbench.rsp.terms import NUMERIC_TYPES
from pytest_rspbench.stream import ntriples as nt
from pytest_rspbench.stream.model import Event, Triple, group_events
from pytest_rspbench.stream.textfile import error, open_bytes, undecodable
from pytest_rspbench.stream.timestamps import EXPECTED, INTEGER_TYPES, millis

LINE_FORMATS = ("ntriples-ts", "n3t", "nquads-ts", "jsonl")

_TIME = (
    rf'(?P<tb>[+-]?[0-9]{{1,19}})|"(?P<ti>[+-]?[0-9]{{1,19}})"'
    rf"(?:\^\^<(?P<tid>{nt.IRI_CONTENT})>)?|(?P<tx>{nt.LITERAL})"
)
_SUBJECT, _PREDICATE, _OBJECT = nt.SUBJECT_ROLE, nt.PREDICATE_ROLE, nt.OBJECT_ROLE
_GRAPH = nt.role(nt.SUBJECT, "an IRI or blank node as graph name")
_TIMESTAMP = nt.role(_TIME, 'a timestamp literal such as "1000" (ms)')
_OPTIONAL_GRAPH = nt.Role(_GRAPH.pattern, _GRAPH.expected, optional=True)
_ROLES = {
    "triple": (_SUBJECT, _PREDICATE, _OBJECT, _TIMESTAMP),
    "quad": (_SUBJECT, _PREDICATE, _OBJECT, _OPTIONAL_GRAPH, _TIMESTAMP),
    "graph": (_SUBJECT, _PREDICATE, _OBJECT, _GRAPH),
}
_W = r"[ \t\r]*"
_HEAD = rf"{_W}(?P<s>{nt.SUBJECT}){_W}(?P<p>{nt.IRI}){_W}(?P<o>{nt.OBJECT}){_W}"
_TAIL = rf"{_W}\.{_W}(?:#.*)?"
_END = rf"{_TAIL}\n?"
# The graph shape has no timestamp element: its time groups never match.
_NO_TIME = r"(?:(?P<tb>)(?P<ti>)(?P<tid>)(?!))?"
# Lines keep their "\n": matching it costs less than stripping it first.
_LINES = {
    "triple": re.compile(rf"{_HEAD}(?:{_TIME}){_END}"),
    "quad": re.compile(rf"{_HEAD}(?:(?:{nt.SUBJECT}){_W})?(?:{_TIME}){_END}"),
    "graph": re.compile(rf"{_HEAD}(?P<g>{nt.SUBJECT}){_NO_TIME}{_END}"),
}
# The fast path reads a block of whole lines with one findall of these
# patterns: a line whose terms are already canonical and whose timestamp is an
# integer (in the graph shape: any graph name) matches the first branch;
# any other line matches the second, whole, and goes to _slow_line. Every row
# has the same seven groups: s, p, o (empty for a YABench number), the
# number's lexical form and datatype, the time key (the timestamp's digits,
# or the graph name) and the refused line.
_FAST_HEAD = (
    rf"{_W}({nt.CANONICAL_IRI}|{nt.BNODE}){_W}({nt.CANONICAL_IRI}){_W}"
    rf"(?:({nt.CANONICAL_IRI}|{nt.BNODE}|{nt.CANONICAL_LITERAL})"
    rf"|({nt.NUMBER_LEXICAL})\^\^{nt.NOT_XSD_STRING}({nt.CANONICAL_IRI})){_W}"
)
_INTEGER_TYPE = "|".join(sorted(re.escape(name) for name in INTEGER_TYPES))
_INTEGER_STAMP = rf'"([+-]?[0-9]{{1,19}})"(?:\^\^<(?:{_INTEGER_TYPE})>)?'
_REFUSED = r"|(.*\n)"
_FAST = {
    "triple": re.compile(rf"{_FAST_HEAD}{_INTEGER_STAMP}{_TAIL}\n{_REFUSED}"),
    "quad": re.compile(
        rf"{_FAST_HEAD}(?:(?:{nt.SUBJECT}){_W})?{_INTEGER_STAMP}{_TAIL}\n{_REFUSED}"
    ),
    "graph": re.compile(rf"{_FAST_HEAD}({nt.SUBJECT}){_TAIL}\n{_REFUSED}"),
}
_BLOCK = 1 << 18  # bytes read at a time; a longer line is read whole
_BLANK = re.compile(r"[ \t\r]*(?:#.*)?")
_LAST_INTEGER = re.compile(r"(-?[0-9]{1,19})[^0-9]*$")
_PLAIN_NUMBER = re.compile(r'"([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"\^\^(<.*>)')


def read_events(
    path: Path,
    fmt: str = "ntriples-ts",
    *,
    allow_disorder: bool = False,
    graph_time: bool = False,
) -> Iterator[Event]:
    """Events of a timestamped line file, parsed lazily (see module docstring).

    Consecutive lines with the same timestamp form one event.
    """
    path = Path(path)
    shape = _shape(fmt, graph_time)
    if shape == "json":
        from pytest_rspbench.stream.jsonlines import read_json_timed

        return group_events(_in_order(path, read_json_timed(path), allow_disorder))
    return _ntriples(path, shape, allow_disorder)


def read_timed(
    path: Path,
    fmt: str = "ntriples-ts",
    *,
    allow_disorder: bool = False,
    graph_time: bool = False,
) -> Iterator[tuple[int, Triple]]:
    """``(time, triple)`` pairs of a line file, in file order."""
    path = Path(path)
    shape = _shape(fmt, graph_time)
    if shape == "json":
        from pytest_rspbench.stream.jsonlines import read_json_timed

        return _in_order(path, read_json_timed(path), allow_disorder)
    events = _ntriples(path, shape, allow_disorder)
    return ((event.time, triple) for event in events for triple in event.triples)


def _shape(fmt: str, graph_time: bool) -> str:
    if fmt in ("ntriples-ts", "n3t"):
        return "triple"
    if fmt == "nquads-ts":
        return "graph" if graph_time else "quad"
    if fmt == "jsonl":
        return "json"
    raise StreamError(f"unknown line format {fmt!r}; expected one of {LINE_FORMATS}")


def _blocks(path: Path) -> Iterator[tuple[int, str]]:
    """``(number of the first line, text)``: the file in blocks of whole lines.

    Every block ends in a line feed (one is added to a last line without it).
    Memory holds one block (or one line, if longer), whatever the file size.
    Undecodable bytes raise a StreamError once the lines before them are out.
    ``read1`` makes one read of the underlying file (or of the gzip stream):
    when that fails, only what it would have returned is lost.
    """
    number = 1
    head: list[bytes] = []  # the start of a line longer than a block
    with open_bytes(path) as stream:
        try:
            while True:
                data = stream.read1(_BLOCK)  # type: ignore[attr-defined]
                if not data:
                    break
                end = data.rfind(b"\n") + 1
                if not end:
                    head.append(data)
                    continue
                block = b"".join((*head, data[:end])) if head else data[:end]
                head = [data[end:]] if end < len(data) else []
                yield from _decoded(path, number, block)
                number += block.count(b"\n")
            if head:
                yield from _decoded(path, number, b"".join(head) + b"\n")
        except (OSError, EOFError, zlib.error) as exc:
            raise error(path, number, 1, f"cannot read: {exc}") from None


def _decoded(path: Path, number: int, block: bytes) -> Iterator[tuple[int, str]]:
    try:
        yield number, block.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = block.rfind(b"\n", 0, exc.start) + 1
        if start:  # the lines before the bad one are good UTF-8
            yield number, block[:start].decode("utf-8")
        raw = block[start : block.index(b"\n", exc.start) + 1]
        line = number + block.count(b"\n", 0, start)
        raise undecodable(path, line, raw, exc.start - start) from None


def _ntriples(path: Path, shape: str, allow_disorder: bool) -> Iterator[Event]:
    # The hot loop of every N-Triples-like format. Each block of lines is
    # matched by one findall (see _FAST); a row of it costs a tuple unpacking
    # and two string comparisons, and the timestamp is converted only when its
    # digits change. Refused lines (escapes, unusual timestamps, blank lines,
    # errors) go to _slow_line, which also raises the errors.
    findall = _FAST[shape].findall
    in_graph = shape == "graph"
    batch: list[Triple] = []
    append = batch.append
    current: int | None = None  # the time of the batch
    key = None  # the time key of the last fast row
    time = 0
    for first, text in _blocks(path):
        rows = findall(text)
        for number, (s, p, o, lexical, datatype, stamp, refused) in enumerate(rows, first):
            if refused:
                found = _slow_line(path, number, refused, shape)
                if found is None:
                    continue
                time, triple = found
                key = None
            else:
                if lexical:  # a YABench number: 42.0^^<...#float>
                    o = f'"{lexical}"^^{datatype}'
                triple = (s, p, o)
                if stamp != key:
                    key = stamp
                    if not in_graph:
                        time = int(stamp)
                    elif (graph_time := _time_in_graph(stamp)) is not None:
                        time = graph_time
                    else:
                        raise _no_graph_time(path, number, text, first)
            if time != current:
                if current is not None:
                    if time < current and not allow_disorder:
                        raise disorder(path, number, current, time)
                    yield Event(current, tuple(batch))
                batch = []
                append = batch.append
                current = time
            append(triple)
    if batch:
        yield Event(current, tuple(batch))  # type: ignore[arg-type]


def _no_graph_time(path: Path, number: int, text: str, first: int) -> StreamError:
    """The error for line ``number`` of a block starting at line ``first``: the
    fast path matched it, but its graph name does not end in a time."""
    line = text.split("\n", number - first + 1)[number - first]
    try:
        _slow_line(path, number, line, "graph")
    except StreamError as exc:
        return exc
    raise AssertionError(f"no error for line {number}: {line!r}")


def _slow_line(path: Path, number: int, line: str, shape: str) -> tuple[int, Triple] | None:
    """Time and canonical triple of a line the fast path refused, None to skip
    it (blank or comment), or a StreamError naming the line and column."""
    match = _LINES[shape].fullmatch(line)
    if match is None:
        match = _unusual_line(path, number, line, shape)
        if match is None:
            return None
    return _careful(path, number, match, shape)


def _unusual_line(path: Path, number: int, line: str, shape: str) -> re.Match[str] | None:
    """The match for a line the line regex refused, None to skip it, or an error."""
    line = line.rstrip("\n")
    if number == 1 and line.startswith("\ufeff"):
        line = line[1:]
    match = _LINES[shape].fullmatch(line)
    if match is not None or _BLANK.fullmatch(line):
        return match
    problem = nt.diagnose(line, _ROLES[shape])
    raise error(path, number, problem.column + 1, problem.message)


def _careful(path: Path, number: int, match: re.Match[str], shape: str) -> tuple[int, Triple]:
    """Time and canonical triple of a line matched by the line regex."""
    try:
        s, p, o = (nt.canonical(match[k], match.start(k)) for k in ("s", "p", "o"))
    except nt.TermError as exc:
        raise error(path, number, exc.column + 1, exc.message) from None
    bare, stamp, datatype = match.group("tb", "ti", "tid")
    if bare is not None:
        return int(bare), (s, p, o)
    if stamp is not None and (datatype is None or datatype in INTEGER_TYPES):
        return int(stamp), (s, p, o)
    if shape == "graph":
        return _graph_time(path, number, match), (s, p, o)
    return _literal_time(path, number, match), (s, p, o)


def disorder(path: Path, number: int, last: int, time: int) -> StreamError:
    return error(
        path,
        number,
        1,
        f"expected a timestamp >= {last} ms, found {time} ms; stream time must not "
        "decrease.\nHINT: sort the file by time, or set allow_disorder: true.",
    )


def _graph_time(path: Path, number: int, match: re.Match[str]) -> int:
    time = _time_in_graph(match["g"])
    if time is None:
        raise error(
            path,
            number,
            match.start("g") + 1,
            "expected a graph name ending in the timestamp (ms), e.g. <urn:t:1000>",
        )
    return time


def _time_in_graph(graph: str) -> int | None:
    """The last integer (at most 19 digits) in a graph name, or None."""
    found = _LAST_INTEGER.search(graph)
    if found is None:
        return None
    before = graph[max(found.start() - 1, 0) : found.start()]
    if before and before in "0123456789":
        return None
    return int(found[1])


def _literal_time(path: Path, number: int, match: re.Match[str]) -> int:
    if match["tx"] is not None:
        literal, column = match["tx"], match.start("tx")
    else:
        column = match.start("ti") - 1
        literal = match.string[column : match.end("tid") + 1]
    try:
        return millis(*nt.literal_split(nt.canonical(literal, column)))
    except (ValueError, nt.TermError):
        raise error(path, number, column + 1, f"expected {EXPECTED}, found {literal}") from None


def _in_order(
    path: Path, timed: Iterable[tuple[int, int, Triple]], allow_disorder: bool
) -> Iterator[tuple[int, Triple]]:
    last = None
    for time, number, triple in timed:
        if last is not None and time < last and not allow_disorder:
            raise disorder(path, number, last, time)
        last = time
        yield time, triple


def write_lines(events: Iterable[Event], fp: IO[str], fmt: str = "ntriples-ts") -> int:
    """Write events as lines of ``fmt``; returns the number of triples written.

    ``ntriples-ts`` (and ``nquads-ts``) write ``<s> <p> <o> "1000" .``;
    ``n3t`` writes what YABench writes (numbers unquoted, ``42.0^^<...>``);
    ``jsonl`` writes one event per line. Events without triples are skipped
    except in ``jsonl``. Terms must already be N-Triples strings.

    >>> import io; out = io.StringIO()
    >>> write_lines([Event(5, (("<http://s>", "<http://p>", '"v"'),))], out)
    1
    >>> out.getvalue()
    '<http://s> <http://p> "v" "5" .\\n'
    """
    count = 0
    if fmt == "jsonl":
        for event in events:
            rows = [list(triple) for triple in event.triples]
            fp.write(
                json.dumps(
                    {"time": event.time, "triples": rows},
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
                + "\n"
            )
            count += len(rows)
        return count
    if fmt not in ("ntriples-ts", "nquads-ts", "n3t"):
        raise StreamError(f"cannot write format {fmt!r}; expected one of {LINE_FORMATS}")
    unquote = _unquote_number if fmt == "n3t" else None
    for event in events:
        stamp = f' "{event.time}" .\n'
        if unquote is None:
            fp.write("".join(f"{s} {p} {o}{stamp}" for s, p, o in event.triples))
        else:
            fp.write("".join(f"{s} {p} {unquote(o)}{stamp}" for s, p, o in event.triples))
        count += len(event.triples)
    return count


def _unquote_number(term: str) -> str:
    # YABench's template prints numbers with %.1f straight before ^^<datatype>.
    if term[0] != '"' or term[-1] != ">":
        return term
    match = _PLAIN_NUMBER.fullmatch(term)
    if match is None or match[2][1:-1] not in NUMERIC_TYPES:
        return term
    return f"{match[1]}^^{match[2]}"
