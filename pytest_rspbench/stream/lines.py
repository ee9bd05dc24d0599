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

Lines are read one at a time, so memory does not depend on the file size
(files ending in ``.gz`` are decompressed on the fly). Empty lines and ``#``
comment lines are skipped. Bad input raises :class:`StreamError` with
``file:line:column: what was expected`` *when the reader reaches that line*:
the events before it have already been yielded, the load never ends silently
short. Collect the events first (``list(...)``) to check a whole file before
using it. Time going backwards is an error unless ``allow_disorder=True``.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream import ntriples as nt
from pytest_rspbench.stream.model import Event, Triple, group_events
from pytest_rspbench.stream.timestamps import EXPECTED, INTEGER_TYPES, millis
from pytest_rspbench.terms import NUMERIC_TYPES

LINE_FORMATS = ("ntriples-ts", "n3t", "nquads-ts", "jsonl")

_TIME = (
    rf'(?P<tb>[+-]?[0-9]{{1,19}})|"(?P<ti>[+-]?[0-9]{{1,19}})"(?:\^\^<(?P<tid>[^>]*)>)?'
    rf"|(?P<tx>{nt.LITERAL})"
)
_SUBJECT = nt.role(nt.SUBJECT, "an IRI or blank node as subject")
_PREDICATE = nt.role(nt.IRI, "an IRI as predicate")
_OBJECT = nt.role(nt.OBJECT, "an IRI, blank node or literal as object")
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
_LINES = {
    "triple": re.compile(rf"{_HEAD}(?:{_TIME}){_TAIL}"),
    "quad": re.compile(rf"{_HEAD}(?:(?:{nt.SUBJECT}){_W})?(?:{_TIME}){_TAIL}"),
    "graph": re.compile(rf"{_HEAD}(?P<g>{nt.SUBJECT}){_TAIL}"),
}
_BLANK = re.compile(r"[ \t\r]*(?:#.*)?")
_LAST_INTEGER = re.compile(r"(-?[0-9]{1,19})[^0-9]*$")
_MIN_TIME = -(1 << 63)
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_NUMBER = re.compile(
    r'"([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"\^\^(<.*>)'
)


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
    return group_events(
        read_timed(path, fmt, allow_disorder=allow_disorder, graph_time=graph_time)
    )


def read_timed(
    path: Path,
    fmt: str = "ntriples-ts",
    *,
    allow_disorder: bool = False,
    graph_time: bool = False,
) -> Iterator[tuple[int, Triple]]:
    """``(time, triple)`` pairs of a line file, in file order."""
    path = Path(path)
    if fmt in ("ntriples-ts", "n3t"):
        timed = _ntriples(path, "triple")
    elif fmt == "nquads-ts":
        timed = _ntriples(path, "graph" if graph_time else "quad")
    elif fmt == "jsonl":
        timed = _jsonl(path)
    else:
        raise StreamError(
            f"unknown line format {fmt!r}; expected one of {LINE_FORMATS}"
        )
    return _in_order(path, timed, allow_disorder)


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text without line end)``; undecodable bytes are StreamErrors."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rb") as stream:
            for number, raw in enumerate(stream, 1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    column = len(raw[: exc.start].decode("utf-8", "replace")) + 1
                    raise StreamError(
                        f"{path}:{number}:{column}: expected UTF-8 text, "
                        f"found byte {raw[exc.start]:#04x}"
                    ) from None
                if number == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield number, text.rstrip("\n")
    except (OSError, EOFError, zlib.error) as exc:
        where = f"{path}:{number + 1}:1" if number else str(path)
        raise StreamError(f"{where}: cannot read: {exc}") from None


def error(path: Path, line: int, column: int, message: str) -> StreamError:
    """A StreamError naming ``path:line:column`` (both 1-based)."""
    return StreamError(f"{path}:{line}:{column}: {message}")


def _ntriples(path: Path, shape: str) -> Iterator[tuple[int, int, Triple]]:
    fullmatch = _LINES[shape].fullmatch
    roles = _ROLES[shape]
    canonical = nt.canonical
    raw_to_escape = nt.RAW_TO_ESCAPE.search
    graph_time = shape == "graph"
    for number, line in numbered_lines(path):
        match = fullmatch(line)
        if match is None:
            if _BLANK.fullmatch(line):
                continue
            problem = nt.diagnose(line, roles)
            raise error(path, number, problem.column + 1, problem.message)
        s, p, o = match.group("s", "p", "o")
        try:
            if "\\" in line:
                s = canonical(s, match.start("s"))
                p = canonical(p, match.start("p"))
                o = canonical(o, match.start("o"))
            elif o[0] == '"':
                if o[-1] != '"' or raw_to_escape(o):
                    o = canonical(o, match.start("o"))
            elif o[0] != "<" and o[0] != "_":
                o = canonical(o, match.start("o"))
        except nt.TermError as exc:
            raise error(path, number, exc.column + 1, exc.message) from None
        if graph_time:
            time = _graph_time(path, number, match)
        else:
            bare, stamp, datatype = match.group("tb", "ti", "tid")
            if bare is not None:
                time = int(bare)
            elif stamp is not None and (datatype is None or datatype in INTEGER_TYPES):
                time = int(stamp)
            else:
                time = _literal_time(path, number, match)
        yield time, number, (s, p, o)


def _graph_time(path: Path, number: int, match: re.Match[str]) -> int:
    found = _LAST_INTEGER.search(match["g"])
    before = match["g"][max(found.start() - 1, 0) : found.start()] if found else ""
    if found is None or (before and before in "0123456789"):
        raise error(
            path,
            number,
            match.start("g") + 1,
            "expected a graph name ending in the timestamp (ms), e.g. <urn:t:1000>",
        )
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
        raise error(
            path, number, column + 1, f"expected {EXPECTED}, found {literal}"
        ) from None


def _jsonl(path: Path) -> Iterator[tuple[int, int, Triple]]:
    for number, line in numbered_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(path, number, exc.colno, f"expected JSON: {exc.msg}") from None
        except (ValueError, RecursionError) as exc:  # huge numbers, deep nesting
            raise error(path, number, 1, f"expected JSON: {exc}") from None
        time, triples = _json_record(path, number, line, record)
        for triple in triples:
            yield time, number, triple


def _json_record(
    path: Path, number: int, line: str, record: object
) -> tuple[int, list[Triple]]:
    def fail(key: str, message: str) -> StreamError:
        found = line.find(f'"{key}"')
        return error(path, number, found + 1 if found >= 0 else 1, message)

    if not isinstance(record, dict):
        raise error(
            path, number, 1, 'expected a JSON object like {"time": ..., "s": ...}'
        )
    time = record.get("time")
    if type(time) is not int or not _MIN_TIME <= time < -_MIN_TIME:
        raise fail("time", 'expected "time": an integer number of ms (a Java long)')
    keys = set(record) - {"time"}
    if keys == {"triples"}:
        rows = record["triples"]
        if not isinstance(rows, list):
            raise fail("triples", 'expected "triples": a list of [s, p, o] lists')
    elif keys == {"s", "p", "o"}:
        rows = [[record["s"], record["p"], record["o"]]]
    else:
        raise error(
            path,
            number,
            1,
            'expected keys "time" and "s", "p", "o", or '
            f'"time" and "triples"; found {sorted(record)}',
        )
    return time, [_json_triple(path, number, line, row) for row in rows]


def _json_triple(path: Path, number: int, line: str, row: object) -> Triple:
    if not (
        isinstance(row, list) and len(row) == 3 and all(isinstance(t, str) for t in row)
    ):
        found = max(line.find('"triples"'), 0)
        raise error(
            path, number, found + 1, "expected each triple as a list of three strings"
        )
    terms = []
    for text, part in zip(row, (_SUBJECT, _PREDICATE, _OBJECT), strict=True):
        at = line.find(json.dumps(text, ensure_ascii=False)[1:-1])
        at = max(at, 0)
        surrogate = _SURROGATE.search(text)
        if surrogate:
            raise error(
                path,
                number,
                at + surrogate.start() + 1,
                "expected Unicode text, found a lone surrogate escape",
            )
        if not part.pattern.fullmatch(text):
            problem = nt.diagnose_term(text, part)
            raise error(path, number, at + problem.column + 1, problem.message)
        try:
            terms.append(nt.canonical(text))
        except nt.TermError as exc:
            raise error(path, number, at + exc.column + 1, exc.message) from None
    return terms[0], terms[1], terms[2]


def _in_order(
    path: Path, timed: Iterable[tuple[int, int, Triple]], allow_disorder: bool
) -> Iterator[tuple[int, Triple]]:
    last = None
    for time, number, triple in timed:
        if last is not None and time < last and not allow_disorder:
            raise error(
                path,
                number,
                1,
                f"expected a timestamp >= {last} ms, found {time} ms; stream "
                "time must not decrease.\nHINT: sort the file by time, or "
                "set allow_disorder: true.",
            )
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
        raise StreamError(
            f"cannot write format {fmt!r}; expected one of {LINE_FORMATS}"
        )
    unquote = _unquote_number if fmt == "n3t" else None
    for event in events:
        stamp = f' "{event.time}" .\n'
        if unquote is None:
            fp.write("".join(f"{s} {p} {o}{stamp}" for s, p, o in event.triples))
        else:
            fp.write(
                "".join(f"{s} {p} {unquote(o)}{stamp}" for s, p, o in event.triples)
            )
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
