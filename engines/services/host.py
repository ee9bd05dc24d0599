"""The engine behind a service: one Engine per registration, its words sent on.

Every wrapper in this package drives its engine through a :class:`Host`:
``register``, ``event``, ``end`` and ``shutdown`` messages in, ``hello``,
``registered``, ``result``, ``error`` and ``done`` out through ``send``. An
exception of the engine becomes a fatal ``error`` message, as on stdin/stdout.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pytest_rspbench.engine.api import Engine, Result
from pytest_rspbench.engine.protocol import PROTOCOL
from pytest_rspbench.engine.server import load_engine, registration
from pytest_rspbench.stream.model import Event

REFERENCE = "rspbench_engines.reference.engine:ReferenceEngine"

Send = Callable[[Mapping[str, Any]], None]


class Host:
    """Runs one engine at a time for a service; thread-safe sends."""

    def __init__(self, target: str, send: Send) -> None:
        self.target = target
        self.engine: Engine | None = None
        self._send = send
        self._lock = threading.Lock()

    def hello(self) -> dict[str, Any]:
        engine = load_engine(self.target)
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "name": engine.name,
            "version": engine.version,
            "capabilities": {"window": True},
        }

    def handle(self, message: Mapping[str, Any]) -> None:
        """Act on one harness message; an engine failure is sent as a fatal error."""
        try:
            self._handle(message)
        except Exception as exc:  # the engine's fault is the harness's to report
            self.send({"type": "error", "message": f"{type(exc).__name__}: {exc}", "fatal": True})

    def _handle(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "register":
            self.close()
            self.engine = load_engine(self.target)
            self.engine.open(registration(message), self.result)
            self.send({"type": "registered"})
        elif kind == "event" and self.engine is not None:
            triples = tuple(tuple(t) for t in message["triples"])
            self.engine.push(message["stream"], Event(message["time"], triples))
        elif kind == "end" and self.engine is not None:
            self.engine.end(message["time"])
            self.send({"type": "done"})
        elif kind == "shutdown":
            self.close()

    def result(self, result: Result) -> None:
        self.send(
            {
                "type": "result",
                "bindings": [dict(b) for b in result.bindings],
                "time": result.time,
                "window": list(result.window) if result.window else None,
            }
        )

    def send(self, message: Mapping[str, Any]) -> None:
        with self._lock:
            self._send(message)

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.close()


def arguments(description: str) -> argparse.ArgumentParser:
    """The options every wrapper takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--engine", default=REFERENCE, help="module:Class of the Engine served")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--once", action="store_true", help="exit after one run's shutdown")
    return parser
