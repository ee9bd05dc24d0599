"""The JSON-lines protocol: encoding harness messages, decoding engine messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.engine.protocol import ProtocolViolation, parse_line
from pytest_rspbench.stream.model import Event


def test_hello_is_parsed_with_capabilities():
    hello = parse_line(
        '{"type": "hello", "protocol": 1, "name": "rsp-js", "version": "1.3.5",'
        ' "capabilities": {"window": false}}'
    )
    assert hello == protocol.Hello("rsp-js", "1.3.5", 1, {"window": False})


def test_hello_with_another_protocol_version_is_refused():
    with pytest.raises(ProtocolViolation, match="protocol 2, this harness speaks 1"):
        parse_line('{"type": "hello", "protocol": 2, "name": "x"}')


def test_result_with_time_and_window():
    result = parse_line(
        '{"type": "result", "bindings": [{"?s": "<http://ex/a>", "n": "\\"1\\""}],'
        ' "time": 4000, "window": [0, 4000]}'
    )
    assert result == Result(({"s": "<http://ex/a>", "n": '"1"'},), 4000, (0, 4000))


def test_result_time_and_window_are_optional():
    assert parse_line('{"type": "result", "bindings": []}') == Result(())


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("this is not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"type": "answer"}', "unknown message type 'answer'"),
        ('{"type": "result"}', "without a 'bindings' list"),
        (
            '{"type": "result", "bindings": [{"v": "85"}]}',
            "?v = '85' is not an N-Triples term",
        ),
        ('{"type": "result", "bindings": [{"v": 85}]}', "is not an N-Triples term"),
        (
            '{"type": "result", "bindings": [], "time": "soon"}',
            "'time' must be an integer",
        ),
        (
            '{"type": "result", "bindings": [], "window": [1]}',
            "'window' must be [open, close]",
        ),
        ('{"type": "result", "bindings": ["x"]}', "is not an object"),
    ],
)
def test_bad_lines_say_what_is_wrong(line, reason):
    with pytest.raises(ProtocolViolation) as info:
        parse_line(line)
    assert reason in str(info.value)


def test_error_messages_are_fatal_unless_said_otherwise():
    assert parse_line('{"type": "error", "message": "boom"}') == protocol.Failure("boom", True)
    warning = parse_line('{"type": "error", "message": "slow", "fatal": false}')
    assert warning == protocol.Failure("slow", False)


def test_register_line_carries_query_streams_semantics_and_static_files():
    registration = Registration(
        "REGISTER ...",
        ("http://s1", "http://s2"),
        500,
        Semantics(bounds="[o,c)", report=("window-close",)),
        (Path("/data/static.ttl"),),
    )
    message = json.loads(protocol.register_line(registration))
    assert message["type"] == "register"
    assert message["protocol"] == 1
    assert message["streams"] == ["http://s1", "http://s2"]
    assert message["start"] == 500
    assert message["semantics"]["bounds"] == "[o,c)"
    assert message["semantics"]["report"] == ["window-close"]
    assert message["static"] == ["/data/static.ttl"]


def test_end_and_shutdown_lines():
    assert json.loads(protocol.end_line(34000)) == {"type": "end", "time": 34000}
    assert json.loads(protocol.shutdown_line()) == {"type": "shutdown"}


TERM = st.text(min_size=0, max_size=20)


@given(st.lists(st.tuples(TERM, TERM, TERM), max_size=5), st.integers(0, 2**53))
def test_event_lines_are_one_json_line_that_round_trips(triples, time):
    line = protocol.event_line("http://ex/s\u00e9", Event(time, tuple(triples)))
    assert line.endswith("\n")
    assert "\n" not in line[:-1]
    message = json.loads(line)
    assert message == {
        "type": "event",
        "stream": "http://ex/s\u00e9",
        "time": time,
        "triples": [list(t) for t in triples],
    }
