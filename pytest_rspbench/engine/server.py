"""The engine side of the protocol for any in-process Engine.

``python -m pytest_rspbench.engine.server module:Class`` runs an
:class:`~pytest_rspbench.engine.api.Engine` as a protocol-1 process: it says
hello, answers ``register`` by calling ``open``, turns ``event`` lines into
``push`` calls and ``end`` into ``end`` followed by ``done``. It is the
reference for adapter authors (docs/engine-protocol.md) and lets a Python
engine run in its own process, isolated from the harness (crashes, memory
and CPU are then its own).
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from pytest_rspbench.engine.api import Engine, Registration, Result, Semantics, Unsupported
from pytest_rspbench.engine.protocol import PROTOCOL
from pytest_rspbench.stream.model import Event


class Server:
    """Reads protocol lines from ``stdin``, writes replies to ``stdout``."""

    def __init__(self, engine: Engine, stdin: IO[str], stdout: IO[str]) -> None:
        self.engine = engine
        self._in = stdin
        self._out = stdout
        self._lock = threading.Lock()  # engines may emit from their own threads

    def serve(self) -> int:
        """Run until ``shutdown`` or the end of stdin; the exit code."""
        self.send(
            {
                "type": "hello",
                "protocol": PROTOCOL,
                "name": self.engine.name,
                "version": self.engine.version,
                "capabilities": {"window": True},
            }
        )
        try:
            for line in self._in:
                if line.strip() and not self.handle(json.loads(line)):
                    break
        finally:
            self.engine.close()
        return 0

    def handle(self, message: Mapping[str, Any]) -> bool:
        """Act on one harness message; False after ``shutdown``."""
        kind = message["type"]
        if kind == "event":
            triples = tuple(tuple(t) for t in message["triples"])
            self.engine.push(message["stream"], Event(message["time"], triples))
        elif kind == "register":
            try:
                self.engine.open(registration(message), self.result)
            except Unsupported as exc:
                self.send({"type": "unsupported", "reason": exc.reason})
                return True
            self.send({"type": "registered"})
        elif kind == "end":
            self.engine.end(message["time"])
            self.send({"type": "done"})
        elif kind == "shutdown":
            return False
        return True

    def result(self, result: Result) -> None:
        """The ``emit`` given to the engine: one ``result`` line per relation."""
        self.send(
            {
                "type": "result",
                "bindings": [dict(b) for b in result.bindings],
                "time": result.time,
                "window": list(result.window) if result.window else None,
            }
        )

    def send(self, message: Mapping[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False) + "\n"
        with self._lock:
            self._out.write(line)
            self._out.flush()


def registration(message: Mapping[str, Any]) -> Registration:
    """The Registration a ``register`` message describes."""
    raw = dict(message.get("semantics") or {})
    for key in ("report", "r2s", "windows"):
        if key in raw:
            raw[key] = tuple(raw[key])
    known = Semantics.__dataclass_fields__
    semantics = Semantics(**{k: v for k, v in raw.items() if k in known})
    return Registration(
        message["query"],
        tuple(message["streams"]),
        int(message["start"]),
        semantics,
        tuple(Path(p) for p in message.get("static", ())),
    )


def load_engine(target: str) -> Engine:
    """Instantiate ``module:Class``."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or ":" not in args[0]:
        print(
            "usage: python -m pytest_rspbench.engine.server module:EngineClass",
            file=sys.stderr,
        )
        return 2
    engine = load_engine(args[0])
    try:
        return Server(engine, sys.stdin, sys.stdout).serve()
    except Exception as exc:
        # Report, then exit non-zero: the harness shows this and our stderr.
        Server(engine, sys.stdin, sys.stdout).send(
            {"type": "error", "message": f"{type(exc).__name__}: {exc}", "fatal": True}
        )
        raise


if __name__ == "__main__":
    sys.exit(main())
