"""The JSON-lines engine protocol, version 1: messages and their encoding.

An engine process reads one JSON object per line on stdin and writes one per
line on stdout (docs/engine-protocol.md)::

    engine  -> {"type": "hello", "protocol": 1, "name": ..., "version": ...}
    harness -> {"type": "register", "query": ..., "streams": [...], ...}
    engine  -> {"type": "registered"}   (or {"type": "unsupported", "reason": ...})
    harness -> {"type": "event", "stream": ..., "time": 1000, "triples": [[s, p, o]]}
    engine  -> {"type": "result", "bindings": [{"v": "<a>"}], "time": 4000, ...}
    harness -> {"type": "end", "time": 34000}
    engine  -> {"type": "done"}
    harness -> {"type": "shutdown"}

This module only turns messages into lines and lines into messages; it never
raises anything but :class:`ProtocolViolation` on bad input, so a reader can
record the fault and go on. Terms are N-Triples strings (docs/engine-protocol.md,
"RDF terms").
"""

from __future__ import annotations

import functools
import json
import math
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from json.encoder import encode_basestring
from typing import Any

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.stream.model import Event

PROTOCOL = 1
ENGINE_MESSAGES = ("hello", "registered", "unsupported", "result", "error", "done")
_TERM_STARTS = ("<", '"', "_:")
TIME_LIMIT = 2**63  # ms; a time or window bound at or beyond is a fault
MESSAGE_LIMIT = 2000  # characters of an engine's error message kept
SHOWN = 80  # characters of a bad value quoted in a fault


class ProtocolViolation(ValueError):
    """A line the engine wrote is not a valid protocol-1 message."""


@dataclass(frozen=True)
class Hello:
    """The engine's first line: who it is and what it can do."""

    name: str
    version: str
    protocol: int
    capabilities: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Registered:
    """The engine has registered the query and is ready for events."""


@dataclass(frozen=True)
class Declined:
    """The engine does not run the registered query (an ``unsupported`` answer)."""

    reason: str


@dataclass(frozen=True)
class Failure:
    """The engine reports an error; ``fatal`` ones end the run."""

    message: str
    fatal: bool = True


@dataclass(frozen=True)
class Done:
    """The engine has emitted everything it will emit after ``end``."""


Message = Hello | Registered | Declined | Result | Failure | Done


def register_line(registration: Registration) -> str:
    """The ``register`` message for ``registration``."""
    return _line(
        {
            "type": "register",
            "protocol": PROTOCOL,
            "query": registration.query,
            "streams": list(registration.streams),
            "start": registration.start,
            "semantics": semantics_json(registration.semantics),
            "static": [str(p) for p in registration.static],
        }
    )


def event_line(stream: str, event: Event) -> str:
    """The ``event`` message: one graph of ``stream`` at application time.

    Written by hand around one encoder call: this is the hot path of a replay.

    >>> event_line("http://s", Event(5, (("<a>", "<p>", "<b>"),)))
    '{"type":"event","stream":"http://s","time":5,"triples":[["<a>","<p>","<b>"]]}\\n'
    """
    triples = ",".join([f"[{_q(s)},{_q(p)},{_q(o)}]" for s, p, o in event.triples])
    return (
        f'{{"type":"event","stream":{_quoted(stream)},"time":{int(event.time)},'
        f'"triples":[{triples}]}}\n'
    )


def end_line(end_time: int) -> str:
    """The ``end`` message: application time has reached ``end_time``."""
    return _line({"type": "end", "time": end_time})


def shutdown_line() -> str:
    """The ``shutdown`` message: exit now, nothing more will come."""
    return _line({"type": "shutdown"})


def semantics_json(semantics: Semantics) -> dict[str, Any]:
    """The profile as JSON (tuples become lists).

    >>> json.dumps(semantics_json(Semantics())["bounds"])
    '"(o,c]"'
    """
    return {
        f.name: list(v) if isinstance(v, tuple) else v
        for f in fields(semantics)
        for v in [getattr(semantics, f.name)]
    }


def parse_line(line: str) -> Message:
    """Decode one line the engine wrote; ProtocolViolation says what is wrong.

    >>> parse_line('{"type": "result", "bindings": [{"x": "<a>"}], "time": 5}').time
    5
    """
    data = loads(line)
    if not isinstance(data, dict):
        raise ProtocolViolation("not a JSON object")
    kind = data.get("type")
    if kind not in ENGINE_MESSAGES:
        raise ProtocolViolation(
            f"unknown message type {_shown(kind)}; expected one of {list(ENGINE_MESSAGES)}"
        )
    return _PARSERS[kind](data)


def loads(text: str) -> Any:
    """Strict JSON (no ``NaN``, no stack overflow); ProtocolViolation says why not.

    >>> loads('{"time": NaN}')
    Traceback (most recent call last):
    pytest_rspbench.engine.protocol.ProtocolViolation: not JSON (NaN is not a JSON number)
    """
    try:
        return json.loads(text, parse_constant=_not_a_number)
    except ProtocolViolation:
        raise
    except ValueError as exc:
        raise ProtocolViolation(f"not JSON ({exc.args[0].split(':')[0]})") from None
    except RecursionError:
        raise ProtocolViolation("not JSON (nested too deeply)") from None


def parse_result(data: Mapping[str, Any]) -> Result:
    """A ``result`` message (or a recorded one: ``type`` may be absent)."""
    bindings = data.get("bindings")
    if not isinstance(bindings, list):
        raise ProtocolViolation("result without a 'bindings' list")
    return Result(
        tuple(_binding(b) for b in bindings),
        _optional_int(data.get("time"), "time"),
        _window(data.get("window")),
    )


def _hello(data: Mapping[str, Any]) -> Hello:
    protocol = data.get("protocol")
    if protocol != PROTOCOL:
        raise ProtocolViolation(
            f"hello speaks protocol {_shown(protocol)}, this harness speaks {PROTOCOL}"
        )
    capabilities = data.get("capabilities") or {}
    if not isinstance(capabilities, dict):
        raise ProtocolViolation("hello 'capabilities' must be an object")
    return Hello(
        _text(data.get("name", "?"), 200),
        _text(data.get("version", "?"), 200),
        protocol,
        capabilities,
    )


def _failure(data: Mapping[str, Any]) -> Failure:
    fatal = data.get("fatal", True)
    if not isinstance(fatal, bool):
        raise ProtocolViolation(f"error 'fatal' must be true or false, got {_shown(fatal)}")
    return Failure(_text(data.get("message", "(no message)"), MESSAGE_LIMIT), fatal)


def _binding(raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ProtocolViolation(f"binding {_shown(raw)} is not an object")
    for name, term in raw.items():
        if not isinstance(term, str) or not term.startswith(_TERM_STARTS):
            raise ProtocolViolation(
                f"binding ?{_shown(name, 40)[1:-1]} = {_shown(term)} is not an N-Triples term "
                '(IRIs as <...>, literals as "..."^^<datatype> or "..."@lang, '
                "blank nodes as _:b)"
            )
    return {str(k).lstrip("?$"): v for k, v in raw.items()}


def _not_a_number(constant: str) -> Any:
    """Python's JSON reader accepts ``NaN`` and ``Infinity``; JSON (RFC 8259) does not."""
    raise ProtocolViolation(f"not JSON ({constant} is not a JSON number)")


def _optional_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProtocolViolation(f"'{what}' must be an integer (ms), got {_shown(value)}")
    if not math.isfinite(value) or abs(value) >= TIME_LIMIT:
        # int(nan) and int(inf) raise; times beyond 2^63 ms overflow Spark's longs.
        raise ProtocolViolation(f"'{what}' must be an integer (ms) below 2^63, got {_shown(value)}")
    return int(value)


def _window(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise ProtocolViolation(f"'window' must be [open, close] in ms, got {_shown(value)}")
    o, c = (_optional_int(v, "window") for v in value)
    if o is None or c is None:
        raise ProtocolViolation(f"'window' must be [open, close] in ms, got {_shown(value)}")
    return o, c


def _shown(value: Any, limit: int = SHOWN) -> str:
    """``repr(value)``, bounded in depth and length: a fault quotes, never copies.

    >>> _shown("x" * 100, 12)
    "'xxxxxxxx..."
    >>> _shown([[[[[1]]]]])
    '[[[[[...]]]]]'
    """
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(value: Any, limit: int) -> str:
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 4, SHOWN, SHOWN

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_q = encode_basestring  # C-accelerated JSON string quoting, non-ASCII kept


@functools.lru_cache(maxsize=64)
def _quoted(text: str) -> str:
    return _ENCODER.encode(text)


def _line(message: Mapping[str, Any]) -> str:
    return _ENCODER.encode(message) + "\n"


_PARSERS: dict[str, Any] = {
    "hello": _hello,
    "registered": lambda data: Registered(),
    "unsupported": lambda data: Declined(_text(data.get("reason", "(no reason)"), MESSAGE_LIMIT)),
    "result": parse_result,
    "error": _failure,
    "done": lambda data: Done(),
}
