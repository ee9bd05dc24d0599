"""JSON lines streams (format ``jsonl``): one triple or one event per line.

Terms are N-Triples strings, as everywhere else::

    {"time": 1000, "s": "<http://ex/s>", "p": "<http://ex/p>", "o": "\\"v\\""}
    {"time": 1000, "triples": [["<http://ex/s>", "<http://ex/p>", "_:b"], ...]}

``time`` is an integer number of ms (a Java long). Any other key, or a term
that is not exactly one N-Triples term, is a :class:`StreamError` naming
``file:line:column``. Reached through :func:`~pytest_rspbench.stream.lines.read_events`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream import ntriples as nt
from pytest_rspbench.stream.model import Triple
from pytest_rspbench.stream.textfile import error, numbered_lines

_SUBJECT, _PREDICATE, _OBJECT = nt.SUBJECT_ROLE, nt.PREDICATE_ROLE, nt.OBJECT_ROLE
_SUBJECT_TERM = _SUBJECT.pattern.fullmatch
_PREDICATE_TERM = _PREDICATE.pattern.fullmatch
_OBJECT_TERM = _OBJECT.pattern.fullmatch
_MIN_TIME = -(1 << 63)
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_json_timed(path: Path) -> Iterator[tuple[int, int, Triple]]:
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


def _json_record(path: Path, number: int, line: str, record: object) -> tuple[int, list[Triple]]:
    def fail(key: str, message: str) -> StreamError:
        found = line.find(f'"{key}"')
        return error(path, number, found + 1 if found >= 0 else 1, message)

    if not isinstance(record, dict):
        raise error(path, number, 1, 'expected a JSON object like {"time": ..., "s": ...}')
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
    if not (isinstance(row, list) and len(row) == 3 and all(isinstance(t, str) for t in row)):
        found = max(line.find('"triples"'), 0)
        raise error(path, number, found + 1, "expected each triple as a list of three strings")
    s, p, o = row
    if (
        _SUBJECT_TERM(s)
        and _PREDICATE_TERM(p)
        and _OBJECT_TERM(o)
        and (s + p + o).isascii()
        and "\\" not in s + p
        and not nt.needs_canonical(o)
    ):
        return s, p, o
    return tuple(  # type: ignore[return-value]
        _json_term(path, number, line, text, part)
        for text, part in zip(row, (_SUBJECT, _PREDICATE, _OBJECT), strict=True)
    )


def _json_term(path: Path, number: int, line: str, text: str, part: nt.Role) -> str:
    at = max(line.find(json.dumps(text, ensure_ascii=False)[1:-1]), 0)
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
        return nt.canonical(text)
    except nt.TermError as exc:
        raise error(path, number, at + exc.column + 1, exc.message) from None
