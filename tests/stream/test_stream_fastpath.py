"""The block-wise fast path of the line reader against the full per-line parser.

:func:`~pytest_rspbench.stream.lines.read_events` matches blocks of lines with
one pattern that accepts only lines whose terms are already canonical, and
sends every other line to ``_slow_line`` (line regex, canonical terms,
diagnosis). The reference reader here sends *every* line to ``_slow_line``,
one line at a time, like the reader before the fast path. On any input, valid
or not, and for any block size, both must yield the same events and then
raise the same error (same ``file:line:column``, same message).
"""

from __future__ import annotations

import gzip
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream import lines, textfile
from pytest_rspbench.stream.lines import read_events, write_lines
from pytest_rspbench.stream.model import Event
from pytest_rspbench.stream.ntriples import quote
from pytest_rspbench.stream.yabench import SG1Config, sg1_events

XSD = "http://www.w3.org/2001/XMLSchema#"
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHAPES = {  # reader name: (format, graph_time)
    "ntriples-ts": ("ntriples-ts", False),
    "n3t": ("n3t", False),
    "nquads-ts": ("nquads-ts", False),
    "nquads-ts/graph": ("nquads-ts", True),
}


def reference_events(
    path: Path, fmt: str, graph_time: bool = False, allow_disorder: bool = False
) -> Iterator[Event]:
    """Every line through the full parser, one line at a time."""
    shape = lines._shape(fmt, graph_time)
    current, batch = None, []  # type: ignore[var-annotated]
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise textfile.undecodable(path, number, raw, exc.start) from None
            found = lines._slow_line(path, number, line, shape)
            if found is None:
                continue
            time, triple = found
            if time != current:
                if current is not None:
                    if time < current and not allow_disorder:
                        raise lines.disorder(path, number, current, time)
                    yield Event(current, tuple(batch))
                current, batch = time, []
            batch.append(triple)
    if batch:
        yield Event(current, tuple(batch))  # type: ignore[arg-type]


def outcome(events: Iterator[Event]) -> tuple[list[Event], str | None]:
    """The events yielded, then the error raised (None if none)."""
    got: list[Event] = []
    try:
        for event in events:
            got.append(event)
    except StreamError as exc:
        return got, str(exc)
    return got, None


def both(
    data: bytes, reader: str, block: int, allow_disorder: bool = False
) -> tuple[tuple[list[Event], str | None], tuple[list[Event], str | None]]:
    fmt, graph_time = SHAPES[reader]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.nt"
        path.write_bytes(data)
        with mock.patch.object(lines, "_BLOCK", block):
            fast = outcome(
                read_events(path, fmt, graph_time=graph_time, allow_disorder=allow_disorder)
            )
        slow = outcome(reference_events(path, fmt, graph_time, allow_disorder))
    return fast, slow


# Terms in every spelling, mostly canonical (the fast path) but also not:
# escapes, upper-case tags, ^^xsd:string, raw characters that print escaped,
# non-ASCII, YABench numbers; lines and files mostly valid, some damaged.
def escape_some(draw: st.DrawFn, text: str) -> str:
    if draw(st.integers(0, 3)):
        return text
    out = []
    for char in text:
        if draw(st.integers(0, 2)) == 0:
            out.append(f"\\u{ord(char):04X}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return "".join(out)


@st.composite
def iris(draw: st.DrawFn) -> str:
    body = draw(st.text(st.sampled_from("abcXYZ019-._~/#:?=éλ\U0001f600"), max_size=10))
    return f"<{draw(st.sampled_from(['http', 'urn', 'x']))}:{escape_some(draw, body)}>"


bnodes = st.from_regex(r"_:[A-Za-z0-9_][A-Za-z0-9_.\-]{0,4}[A-Za-z0-9]", fullmatch=True)
datatypes = st.sampled_from(
    [f"<{XSD}float>", f"<{XSD}int>", "<http://ex/dt>"] * 3
    + [f"<{XSD}string>", "<http://ex/\\u0064t>"]
)
raw_text = st.one_of(
    st.text(
        st.characters(blacklist_characters='"\\\n\r', blacklist_categories=["Cs"]),
        max_size=8,
    ),
    st.text(st.sampled_from("a é\t\x01\x7f\x80\ufffe\uffff"), max_size=4),
)


@st.composite
def literals(draw: st.DrawFn) -> str:
    lexical = draw(raw_text)
    head = draw(
        st.sampled_from(
            [
                quote(lexical),  # canonical escapes
                quote(lexical),
                f'"{lexical}"',  # raw characters, some print escaped
                f'"{escape_some(draw, lexical)}"',
            ]
        )
    )
    suffix = draw(
        st.one_of(
            st.just(""),
            st.from_regex(r"@[a-z]{1,3}(-[a-z0-9]{1,3})?", fullmatch=True),
            st.from_regex(r"@[a-zA-Z]{1,3}(-[a-zA-Z0-9]{1,3})?", fullmatch=True),
            datatypes.map(lambda d: "^^" + d),
        )
    )
    return head + suffix


numbers = st.tuples(
    st.from_regex(
        r"[+-]?([0-9]{1,3}(\.[0-9]{0,2})?|\.[0-9]{1,2})([eE][+-]?[0-9])?", fullmatch=True
    ),
    datatypes,
).map(lambda n: f"{n[0]}^^{n[1]}")
stamps = st.one_of(
    st.integers(-3, 30).map(lambda t: f'"{t}"'),
    st.integers(0, 30).map(lambda t: f'"{t}"'),
    st.integers(0, 30).map(lambda t: f'"{t}"'),
    st.integers(0, 30).map(lambda t: f'"{t}"'),
    st.integers(0, 30).map(str),
    st.sampled_from(["long", "int", "unsignedByte", "string", "float", "decimal"]).map(
        lambda t: f'"7"^^<{XSD}{t}>'
    ),
    st.sampled_from(
        [
            f'"1970-01-01T00:00:00.025Z"^^<{XSD}dateTime>',
            '"+12"',
            '"0012"',
            '"12345678901234567890"',
            f'"1\\u0032"^^<{XSD}long>',
            f'"12"^^<{XSD}\\u006cong>',
        ]
    ),
)
graphs = st.one_of(
    st.integers(-3, 30).map(lambda t: f"<urn:t:{t}>"),
    st.integers(0, 30).map(lambda t: f"_:t{t}"),
    st.sampled_from(["<urn:t:x>", "<urn:t:12345678901234567890>", "<urn:t:\\u0031>"]),
)
spaces = st.sampled_from([" ", " ", " ", "\t", "  ", ""])


@st.composite
def line_texts(draw: st.DrawFn, reader: str) -> str:
    s = draw(st.one_of(iris(), bnodes))
    o = draw(st.one_of(iris(), bnodes, literals(), literals(), numbers))
    terms = [s, draw(iris()), o]
    if reader == "nquads-ts/graph":
        terms.append(draw(graphs))
    else:
        if reader == "nquads-ts" and draw(st.booleans()):
            terms.append(draw(graphs))
        terms.append(draw(stamps))
    text = draw(st.sampled_from(["", " "])) + "".join(t + draw(spaces) for t in terms)
    end = draw(st.sampled_from(["."] * 12 + [" . # note \\u", ".\r", ". x", ""]))
    return text + end


@st.composite
def files(draw: st.DrawFn, reader: str) -> bytes:
    body = draw(
        st.lists(
            st.one_of(
                line_texts(reader),
                line_texts(reader),
                line_texts(reader),
                st.sampled_from(["", "# c", "  \t", "\ufeff"]),
            ),
            max_size=8,
        )
    )
    text = "\n".join(body) + draw(st.sampled_from(["\n", "", "\r\n"]))
    data = bytearray(text.encode("utf-8"))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # damage
        at = draw(st.integers(0, len(data)))
        chunk = draw(st.sampled_from([b'"', b"<", b">", b"\\", b"\n", b" ", b"\xff", b"\xc3"]))
        if draw(st.booleans()):
            data[at:at] = chunk
        else:
            del data[at : at + 1]
    return bytes(data)


blocks = st.sampled_from([1, 2, 7, 64, 1 << 18])


@FUZZ
@given(st.data(), st.sampled_from(sorted(SHAPES)), blocks, st.booleans())
def test_fast_path_equals_the_full_parser(
    data: st.DataObject, reader: str, block: int, allow_disorder: bool
) -> None:
    fast, slow = both(data.draw(files(reader)), reader, block, allow_disorder)
    assert fast == slow


LINES = [  # each alone in a file: same result (or error) both ways
    '<http://s> <http://p> "v"@EN-gb "1" .',
    f'<http://s> <http://p> "v"^^<{XSD}string> "1" .',
    f'<http://s> <http://p> 42^^<{XSD}string> "1" .',
    f'<http://s> <http://p> 4.2e1^^<{XSD}\\u0066loat> "1" .',
    '<http://s> <http://p> "tab\there\u007f" "1" .',
    '<http://\\u00E9> <http://p> _:b.1 "1" .',
    f'<http://s> <http://p> "v" "5"^^<{XSD}unsignedShort> .',
    f'<http://s> <http://p> "v" "5"^^<{XSD}short > .',
    '<http://s> <http://p> "v" "1" . # comment \\',
    '<http://s><http://p>"v""1".',
    '<http://s> <http://p> "v" "1"',
    '<http://s> <http://p> "\\uD800" "1" .',
    "<http://s> <http://p> 4.^^<http://ex/t> 1 .",
    '\ufeff<http://s> <http://p> "v" "1" .',
    '\ufeff\ufeff<http://s> <http://p> "v" "1" .',
    '<http://s> <http://p> "v" <urn:t:5> .',
    '<http://s> <http://p> "v" _:t5 "6" .',
    '<http://s> <http://p> "v" <urn:t:\\u0035> .',
    '<http://s> <http://p> "v" <urn:t:x> .',
]


def test_fast_path_equals_the_full_parser_on_known_cases() -> None:
    for reader in SHAPES:
        for line in LINES:
            for block in (3, 1 << 18):
                fast, slow = both((line + "\n").encode(), reader, block)
                assert fast == slow, (reader, line)


def test_errors_come_from_the_same_line_with_blocks_of_any_size() -> None:
    good = "".join(f'<http://s> <http://p> "v{t}" "{t}" .\n' for t in range(40))
    for bad in ('<http://s> <http://p> "v\\q" "40" .\n', '<http://s> <p> "v" "40" .\n'):
        data = (good + bad + good).encode()
        for block in (1, 5, 100, 1 << 18):
            fast, slow = both(data, "ntriples-ts", block)
            assert fast == slow
            assert fast[1] is not None and ":41:" in fast[1]
            assert len(fast[0]) == 39  # the events before the bad line


def test_undecodable_byte_in_a_later_block() -> None:
    good = "".join(f'<http://s> <http://p> "é{t}" "{t}" .\n' for t in range(30))
    data = good.encode() + b'<http://s> <http://p> "\xe9" "30" .\n' + good.encode()
    for block in (1, 64, 1 << 18):
        fast, slow = both(data, "n3t", block)
        assert fast == slow
        assert fast[1] is not None and re.search(r":31:24: expected UTF-8", fast[1])


def test_graph_name_without_time_on_a_fast_line() -> None:
    text = '<http://s> <http://p> "a" <urn:t:1> .\n<http://s> <http://p> "b" <urn:t:x> .\n'
    fast, slow = both(text.encode(), "nquads-ts/graph", 1 << 18)
    assert fast == slow
    assert fast[1] is not None and ":2:27: expected a graph name ending" in fast[1]


def test_yabench_files_take_the_fast_path(tmp_path: Path) -> None:
    # The benchmark's input: every line must be matched by the fast pattern.
    config = SG1Config(stations=20, interval=1000, duration=3000, seed=7)
    for fmt in ("ntriples-ts", "n3t"):
        path = tmp_path / f"s.{fmt}"
        with open(path, "w", encoding="utf-8") as out:
            write_lines(sg1_events(config), out, fmt)
        with mock.patch.object(lines, "_slow_line", side_effect=AssertionError):
            events = list(read_events(path, fmt))
        assert events == list(reference_events(path, fmt))
        assert events == list(sg1_events(config))


def test_truncated_gzip_is_a_positioned_error(tmp_path: Path) -> None:
    text = "".join(f'<http://s> <http://p> "v{t}" "{t}" .\n' for t in range(20_000))
    data = gzip.compress(text.encode())
    path = tmp_path / "s.nt.gz"
    path.write_bytes(data[: len(data) // 2])
    events, message = outcome(read_events(path))
    found = re.match(rf"{re.escape(str(path))}:(\d+):1: cannot read", message or "")
    assert found, message
    assert events and events[-1].time < int(found[1]) - 1  # line n has time n - 1
