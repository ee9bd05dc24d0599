"""Reading an engine's stdout: protocol messages in, faults recorded, never a crash.

A daemon thread reads the engine's stdout line by line, decodes each line
(:mod:`~pytest_rspbench.engine.protocol`), hands results to ``emit`` at once
(the harness stamps them on arrival) and records the handshake state for
:class:`~pytest_rspbench.engine.process.ProcessEngine` to wait on. A line that
is not a protocol message — garbage, a truncated last line, a binding that is
not an RDF term, an overlong line — is recorded as a fault with its line
number and the reading goes on. Every line read is also copied to the raw
artifact file (``stdout.jsonl``) as it arrives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit, Result

LINE_LIMIT = 1 << 24  # a longer stdout line is a fault, not a memory blow-up
MAX_FAULTS = 20


class StdoutReader:
    """Reads the engine's stdout on a thread; never raises, records faults."""

    def __init__(self, stdout: IO[bytes], emit: Emit, raw: IO[bytes] | None):
        self.hello: protocol.Hello | None = None
        self.registered = False
        self.done = False
        self.closed = False
        self.fatal: str | None = None
        self.handshake_fault: str | None = None
        self.faults: list[str] = []
        self.errors = 0
        self._emit = emit
        self._raw = raw
        self._stdout = stdout
        self._number = 0
        self._cond = threading.Condition()
        self._thread = threading.Thread(
            target=self._run, name="rspbench-stdout", daemon=True
        )
        self._thread.start()

    def wait_for(self, predicate: Callable[[], bool], timeout: float | None) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def join(self, timeout: float = 2.0) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            while line := self._stdout.readline(LINE_LIMIT):
                self._number += 1
                if self._raw is not None:
                    self._raw.write(line)
                    self._raw.flush()
                self._take(line)
        except (OSError, ValueError):
            pass  # the pipe was closed under us (abort)
        finally:
            if self._raw is not None:
                self._raw.close()
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _take(self, line: bytes) -> None:
        if not line.endswith(b"\n"):
            self._fault(
                line,
                "truncated (no newline: the engine stopped mid-line)"
                if len(line) < LINE_LIMIT
                else f"longer than {LINE_LIMIT} bytes",
            )
            return
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            message = protocol.parse_line(text)
        except protocol.ProtocolViolation as exc:
            self._fault(line, str(exc))
            return
        self._dispatch(message)

    def _dispatch(self, message: protocol.Message) -> None:
        if isinstance(message, Result):
            self._emit(message)
            return
        with self._cond:
            if isinstance(message, protocol.Hello):
                self.hello = message
            elif isinstance(message, protocol.Registered):
                self.registered = True
            elif isinstance(message, protocol.Done):
                self.done = True
            elif message.fatal:
                self.fatal = self.fatal or message.message
            else:
                self._fault_locked(
                    f"stdout line {self._number}: engine error: {message.message}"
                )
            self._cond.notify_all()

    def _fault(self, line: bytes, reason: str) -> None:
        shown = line[:120].decode("utf-8", errors="replace").rstrip("\n")
        with self._cond:
            self._fault_locked(f"stdout line {self._number}: {reason}: {shown!r}")
            if self.hello is None and self.handshake_fault is None:
                self.handshake_fault = f"{shown!r} ({reason})"
                self._cond.notify_all()

    def _fault_locked(self, text: str) -> None:
        self.errors += 1
        if len(self.faults) < MAX_FAULTS:
            self.faults.append(text)
        elif len(self.faults) == MAX_FAULTS:
            self.faults.append("(more faults not listed)")
