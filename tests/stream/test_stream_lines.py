"""Timestamped line formats: reading, canonical terms, errors, writing."""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import pytest

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.lines import read_events, read_timed, write_lines
from pytest_rspbench.stream.model import Event

XSD = "http://www.w3.org/2001/XMLSchema#"
S, P = "<http://ex/s>", "<http://ex/p>"


def write(tmp_path: Path, text: str, name: str = "s.nt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def times(path: Path, fmt: str = "ntriples-ts", **options: object) -> list[int]:
    return [e.time for e in read_events(path, fmt, **options)]  # type: ignore[arg-type]


def error_of(path: Path, fmt: str = "ntriples-ts", **options: object) -> str:
    with pytest.raises(StreamError) as info:
        list(read_events(path, fmt, **options))  # type: ignore[arg-type]
    return str(info.value)


def test_ntriples_ts_groups_equal_times_into_events(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f'{S} {P} "a" "1000" .\n{S} {P} "b" "1000" .\n\n# note\n{S} {P} "c" "2000" .\n',
    )
    events = list(read_events(path))
    assert [(e.time, len(e.triples)) for e in events] == [(1000, 2), (2000, 1)]
    assert events[0].triples[1] == (S, P, '"b"')


def test_yabench_unquoted_number_is_normalised(tmp_path: Path) -> None:
    line = f'{S} {P} 42.0^^<{XSD}float> "1000" .\n'
    (event,) = read_events(write(tmp_path, line, "y.n3t"), "n3t")
    assert event.triples == ((S, P, f'"42.0"^^<{XSD}float>'),)


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ('"1000"', 1000),
        (f'"1000"^^<{XSD}long>', 1000),
        (f'"1000"^^<{XSD}integer>', 1000),
        ("1000", 1000),
        (f'"1970-01-01T00:00:01.25Z"^^<{XSD}dateTime>', 1250),
        (f'"1970-01-01T01:00:00+01:00"^^<{XSD}dateTime>', 0),
        (f'"1970-01-01T00:00:02"^^<{XSD}dateTime>', 2000),
    ],
)
def test_timestamp_spellings(tmp_path: Path, stamp: str, expected: int) -> None:
    assert times(write(tmp_path, f"{S} {P} <http://ex/o> {stamp} .\n")) == [expected]


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ('"a\\u0042\\U00000043"', '"aBC"'),
        ('"tab\\there"', '"tab\\there"'),
        ('"q\\\'s"', '"q\'s"'),
        ('"\\u0001"', '"\\u0001"'),
        (f'"x"^^<{XSD}string>', '"x"'),
        ('"hi"@EN-GB', '"hi"@en-gb'),
        ("<http://ex/\\u00E9>", "<http://ex/é>"),
        ("_:b.1", "_:b.1"),
    ],
)
def test_terms_come_out_canonical(tmp_path: Path, written: str, canonical: str) -> None:
    (event,) = read_events(write(tmp_path, f'{S} {P} {written} "5" .\n'))
    assert event.triples[0][2] == canonical


def test_same_canonical_form_as_pyoxigraph(tmp_path: Path) -> None:
    import pyoxigraph

    objects = ['"a\\u0042\\t\\"\\\\"@EN', f'"x"^^<{XSD}string>', '"\\u007f\\b\\f"']
    text = "".join(f"{S} {P} {o} .\n" for o in objects)
    expected = [
        str(q.object)
        for q in pyoxigraph.parse(text.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES)
    ]
    stamped = "".join(f'{S} {P} {o} "1" .\n' for o in objects)
    (event,) = read_events(write(tmp_path, stamped))
    assert [t[2] for t in event.triples] == expected


@pytest.mark.parametrize(
    ("line", "position", "expected"),
    [
        (f'{S} {P} "v" "1000"', "1:39", "expected '.' at end of triple"),
        (f"{S} {P} <http://ex/o> .", "1:43", "expected a timestamp literal"),
        (f'{S} {P} "v\\q" "1"', "1:31", "expected an escape"),
        (f'{S} {P} "v "1" .', "1:34", "expected '.' at end of triple"),
        (f'{S} {P} "v" "10.5" .', "1:33", "expected an integer timestamp in ms"),
        (f'{S} <p> "v" "1" .', "1:15", "expected an absolute IRI"),
        (f'{S} <http://ex/a b> "v" "1" .', "1:27", "expected '>' to close the IRI"),
        (f'"s" {P} "v" "1" .', "1:1", "expected an IRI or blank node as subject"),
        (f'{S} {P} "v" "1" . x', "1:39", "expected end of line after '.'"),
        (f'{S} {P} "v"@ "1" .', "1:33", "expected a language tag"),
        (f'{S} {P} "\\uD800" "1" .', "1:30", "expected a Unicode scalar value"),
        (f'{S} {P} "v" "1"^^<{XSD}float> .', "1:33", "expected an integer timestamp"),
        (f'{S} {P} "v" "1"^^<{XSD}\\006cong> .', "1:72", "expected \\uXXXX or \\UXXXXXXXX"),
    ],
)
def test_errors_name_file_line_column(
    tmp_path: Path, line: str, position: str, expected: str
) -> None:
    path = write(tmp_path, line + "\n")
    message = error_of(path)
    assert message.startswith(f"{path}:{position}: {expected}"), message


def test_error_is_raised_when_the_bad_line_is_reached(tmp_path: Path) -> None:
    good = "".join(f'{S} {P} "v" "{t}" .\n' for t in (1, 2, 3))
    path = write(tmp_path, good + f"{S} {P} oops\n")
    events = read_events(path)
    assert next(events).time == 1
    assert next(events).time == 2
    with pytest.raises(StreamError, match=r":4:\d+: expected an IRI, blank node"):
        list(events)


def test_time_going_backwards_is_an_error_unless_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, f'{S} {P} "a" "2000" .\n{S} {P} "b" "1000" .\n')
    assert re.match(rf"{re.escape(str(path))}:2:1: expected a timestamp >= 2000", error_of(path))
    assert times(path, allow_disorder=True) == [2000, 1000]


def test_undecodable_bytes_are_a_positioned_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.nt"
    path.write_bytes(f'{S} {P} "a" "1" .\n{S} {P} "\xff" "2" .\n'.encode("latin-1"))
    assert error_of(path).startswith(f"{path}:2:30: expected UTF-8 text")
    good = f'{S} {P} "a" "1" .\n{S} {P} "b" "2" .\n'.encode()
    path.write_bytes(good + b"\xff\n")
    events = read_events(path)
    assert next(events).time == 1  # lines before the bad byte are read
    with pytest.raises(StreamError, match=r"bad\.nt:3:1: expected UTF-8"):
        next(events)


def test_long_lines_and_no_final_newline(tmp_path: Path) -> None:
    long = "x" * 3_000_000
    path = write(tmp_path, f'{S} {P} "{long}" "1" .\n{S} {P} "y" "2" .')
    events = list(read_events(path))
    assert [e.time for e in events] == [1, 2]
    assert len(events[0].triples[0][2]) == len(long) + 2


def test_gzip_and_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "s.nt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(f'\ufeff{S} {P} "a" "7" .\r\n')
    assert times(path) == [7]


def test_nquads_graph_is_optional_and_dropped(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f'{S} {P} "a" <http://g> "1" .\n{S} {P} "b" _:g "2" .\n{S} {P} "c" "3" .\n',
        "s.nq",
    )
    events = list(read_events(path, "nquads-ts"))
    assert [e.time for e in events] == [1, 2, 3]
    assert events[0].triples == ((S, P, '"a"'),)


def test_nquads_time_in_graph_name(tmp_path: Path) -> None:
    path = write(tmp_path, f'{S} {P} "a" <urn:t:1000> .\n{S} {P} "b" _:t2000 .\n', "s.nq")
    assert times(path, "nquads-ts", graph_time=True) == [1000, 2000]
    bad = write(tmp_path, f'{S} {P} "a" <urn:t:x> .\n', "bad.nq")
    assert "1:33: expected a graph name ending in the timestamp" in error_of(
        bad, "nquads-ts", graph_time=True
    )


def test_jsonl_triple_and_event_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{"time": 1, "s": "<http://ex/s>", "p": "<http://ex/p>", "o": "\\"A\\"@EN"}\n'
        '{"time": 2, "triples": [["_:b", "<http://ex/p>", "<http://ex/o>"],'
        ' ["_:b", "<http://ex/p>", "42^^<http://www.w3.org/2001/XMLSchema#int>"]]}\n',
        "s.jsonl",
    )
    events = list(read_events(path, "jsonl"))
    assert events[0] == Event(1, ((S, P, '"A"@en'),))
    assert events[1].triples[1][2] == f'"42"^^<{XSD}int>'


@pytest.mark.parametrize(
    ("line", "position", "expected"),
    [
        ('{"time": 1, "s": "<http://a>"', "1:30", "expected JSON"),
        ("[1, 2]", "1:1", "expected a JSON object"),
        (
            '{"time": "1", "s": "<http://a>", "p": "<http://a>", "o": "<http://a>"}',
            "1:2",
            'expected "time"',
        ),
        ('{"time": 1, "s": "<http://a>", "p": "<http://a>"}', "1:1", "expected keys"),
        (
            '{"time": 1, "s": "<http://a>", "p": "<http://a>", "o": "x"}',
            "1:57",
            "expected an IRI, blank node or literal as object",
        ),
        (
            '{"time": 1, "s": "<http://a> ", "p": "<http://a>", "o": "<http://a>"}',
            "1:29",
            "expected end of term",
        ),
        ('{"time": 1, "triples": [["<http://a>"]]}', "1:13", "expected each triple"),
    ],
)
def test_jsonl_errors(tmp_path: Path, line: str, position: str, expected: str) -> None:
    path = write(tmp_path, line + "\n", "s.jsonl")
    message = error_of(path, "jsonl")
    assert message.startswith(f"{path}:{position}: {expected}"), message


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(StreamError, match="unknown line format"):
        list(read_timed(tmp_path / "x", "csv"))
    with pytest.raises(StreamError, match="cannot read"):
        list(read_timed(tmp_path / "missing.nt"))


def test_lines_are_read_lazily(tmp_path: Path) -> None:
    # A reader that had loaded the file would not see lines appended later.
    path = write(tmp_path, "".join(f'{S} {P} "v" "{t}" .\n' for t in range(3)))
    events = read_events(path)
    assert next(events).time == 0
    with open(path, "a", encoding="utf-8") as out:
        out.write("".join(f'{S} {P} "v" "{t}" .\n' for t in range(3, 50_000)))
    assert sum(1 for _ in events) == 49_999


EVENTS = [
    Event(0, ((S, P, f'"42.0"^^<{XSD}float>'), ("_:b1", P, '"a\\"b\\n"@en'))),
    Event(1500, ((S, P, "<http://ex/é>"),)),
]


def test_write_ntriples_ts() -> None:
    out = io.StringIO()
    assert write_lines(EVENTS, out) == 3
    assert out.getvalue().splitlines()[0] == f'{S} {P} "42.0"^^<{XSD}float> "0" .'


def test_write_n3t_is_yabench_form() -> None:
    out = io.StringIO()
    write_lines(EVENTS, out, "n3t")
    assert out.getvalue().splitlines()[0] == f'{S} {P} 42.0^^<{XSD}float> "0" .'


@pytest.mark.parametrize("fmt", ["ntriples-ts", "n3t", "jsonl", "nquads-ts"])
def test_write_then_read_round_trips(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "s.out"
    with open(path, "w", encoding="utf-8") as out:
        write_lines(EVENTS, out, fmt)
    assert list(read_events(path, fmt)) == EVENTS


def test_write_unknown_format() -> None:
    with pytest.raises(StreamError, match="cannot write format"):
        write_lines(EVENTS, io.StringIO(), "trig")
