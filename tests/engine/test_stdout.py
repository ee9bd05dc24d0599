"""StdoutReader: whatever a line holds, it becomes a fault and the reading goes on.

Fed through an OS pipe, no engine. ``"time": NaN`` makes ``int(nan)`` raise
inside the reader; the reader must not take that for a closed pipe, or it would
ignore every later line, ``done`` included.
"""

from __future__ import annotations

import io
import json
import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rspbench.engine import stdout as stdout_module
from pytest_rspbench.engine.api import Result
from pytest_rspbench.engine.stdout import StdoutReader

DONE = b'{"type": "done"}\n'
RESULT = b'{"type": "result", "bindings": [], "time": 5}\n'


def read(data: bytes, emit=None, raw=None) -> tuple[StdoutReader, list[Result]]:
    results: list[Result] = []
    read_fd, write_fd = os.pipe()
    reader = StdoutReader(os.fdopen(read_fd, "rb"), emit or results.append, raw)
    writer = threading.Thread(target=lambda: _write_all(write_fd, data))
    writer.start()
    writer.join()
    reader.join(10)
    assert reader.closed
    return reader, results


def _write_all(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as out:
        out.write(data)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"type": "result", "bindings": [], "time": NaN}', "NaN is not a JSON number"),
        (b'{"type": "result", "bindings": [], "time": -Infinity}', "-Infinity is not a JSON"),
        (b'{"type": "result", "bindings": [], "time": 1e400}', "must be an integer (ms) below"),
        (b'{"type": "result", "bindings": [], "window": [0, 1e300]}', "below 2^63"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"type": "error", "message": "x", "fatal": "no"}', "must be true or false"),
        (b"\xff\xfe\x00garbage", "not JSON"),
    ],
)
def test_a_bad_line_is_a_numbered_fault_and_later_lines_count(line, reason):
    reader, results = read(RESULT + line + b"\n" + RESULT + DONE)
    assert len(reader.faults) == 1
    assert reader.faults[0].startswith("stdout line 2: ")
    assert reason in reader.faults[0]
    assert len(results) == 2
    assert reader.done


def test_an_overlong_line_is_one_fault_and_its_rest_is_skipped(monkeypatch):
    monkeypatch.setattr(stdout_module, "LINE_LIMIT", 1000)
    monkeypatch.setattr(stdout_module, "RAW_PREVIEW", 100)
    raw = io.BytesIO()
    raw.close = lambda: None  # keep it readable
    reader, results = read(RESULT + b"x" * 5500 + b"\n" + RESULT + DONE, raw=raw)
    assert reader.faults == [f"stdout line 2: 5501 bytes, longer than 1000: {'x' * 120!r}"]
    assert len(results) == 2
    assert reader.done
    assert raw.getvalue() == (
        RESULT + b"x" * 100 + b"\n[rspbench: line 2: 5501 bytes, not kept]\n" + RESULT + DONE
    )


def test_an_overlong_last_line_without_newline_is_a_fault(monkeypatch):
    monkeypatch.setattr(stdout_module, "LINE_LIMIT", 1000)
    reader, _ = read(RESULT + b"x" * 2500)
    assert reader.faults == [
        "stdout line 2: 2500 bytes, longer than 1000 (no newline: the engine "
        f"stopped mid-line): {'x' * 120!r}"
    ]


def test_an_error_in_emit_is_a_fault_not_the_end_of_the_reading():
    calls: list[Result] = []

    def emit(result: Result) -> None:
        calls.append(result)
        if len(calls) == 1:
            raise OSError("No space left on device")

    reader, _ = read(RESULT + RESULT + DONE, emit=emit)
    assert reader.faults == [
        "stdout line 1: unreadable (OSError: No space left on device): "
        f"{RESULT.decode().rstrip()!r}"
    ]
    assert len(calls) == 2
    assert reader.done


def test_a_failing_raw_copy_loses_the_copy_not_the_reading():
    raw = io.BytesIO()
    raw.close()  # every write raises ValueError
    reader, results = read(RESULT + DONE, raw=raw)
    assert reader.faults == []
    assert len(results) == 1
    assert reader.done


def test_faults_beyond_the_listed_ones_are_counted():
    reader, _ = read(b"garbage\n" * 100 + DONE)
    listed = reader.listed()
    assert len(listed) == stdout_module.MAX_FAULTS + 1
    assert listed[-1] == f"({100 - stdout_module.MAX_FAULTS} more faults not listed)"


JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(["result", "error", "done", "hello", "bogus"])},
    optional={
        "bindings": JSON_VALUE,
        "time": JSON_VALUE,
        "window": JSON_VALUE,
        "message": JSON_VALUE,
        "fatal": JSON_VALUE,
    },
)


@settings(max_examples=150, deadline=None)
@given(st.lists(MESSAGE.map(lambda m: json.dumps(m).encode()) | st.binary(max_size=40), max_size=6))
def test_any_engine_output_is_read_to_the_end(lines):
    """Fuzz: whatever lines an engine writes, the reader never stops early; each
    line is a result, a message or a numbered fault, and a final ``done`` counts."""
    clean = [line.replace(b"\n", b" ") for line in lines]
    reader, results = read(b"\n".join([*clean, b""]) + RESULT + DONE)
    assert reader.done
    assert results and results[-1].time == 5
    assert all(f.startswith("stdout line ") for f in reader.faults)
