"""What a service engine says, from whatever carries it: messages in, faults recorded.

The transports hand each message they receive (an HTTP callback body's
line, a server-sent event, a WebSocket or MQTT message) to :meth:`Inbox.take`.
It decodes it as the stdin/stdout protocol does
(:func:`~pytest_rspbench.engine.protocol.parse_line`), hands results to
``emit`` at once (the harness stamps them on arrival) and keeps the state the
engine waits on: hello, registered, done, a fatal error, and why the channel
closed. A message that is not a protocol message is a fault naming where it
came from; the messages after it still count. Never raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit, Result

MAX_FAULTS = 20
FAULT_CHARS = 500


class Inbox:
    """The engine's messages, taken from any thread."""

    def __init__(self, emit: Emit) -> None:
        self.hello: protocol.Hello | None = None
        self.registered = False
        self.done = False
        self.fatal: str | None = None
        self.closed: str | None = None  # why the channel closed, None while open
        self.faults: list[str] = []
        self.errors = 0
        self.results = 0
        self.last = 0.0  # monotonic time of the last message
        self._emit = emit
        self._cond = threading.Condition()
        self._number = 0

    def take(self, text: str, where: str) -> None:
        """One message (a line of JSON) that came from ``where``."""
        import time

        self._number += 1
        self.last = time.monotonic()
        text = text.strip()
        if not text:
            return
        try:
            message = protocol.parse_line(text)
        except protocol.ProtocolViolation as exc:
            self.fault(f"{where}, message {self._number}: {exc}: {text[:120]!r}")
            return
        if isinstance(message, Result):
            self.results += 1
            self._emit(message)
            return
        self._state(message)

    def _state(self, message: protocol.Message) -> None:
        with self._cond:
            if isinstance(message, protocol.Hello):
                self.hello = message
            elif isinstance(message, protocol.Registered):
                self.registered = True
            elif isinstance(message, protocol.Done):
                self.done = True
            elif isinstance(message, protocol.Failure) and message.fatal:
                self.fatal = self.fatal or message.message
            elif isinstance(message, protocol.Failure):
                self._fault_locked(f"message {self._number}: engine error: {message.message}")
            self._cond.notify_all()

    def fault(self, text: str) -> None:
        """Record a fault that does not stop the run."""
        with self._cond:
            self._fault_locked(text)

    def close(self, reason: str) -> None:
        """The channel the engine speaks on is gone (the first reason is kept)."""
        with self._cond:
            self.closed = self.closed or reason
            self._cond.notify_all()

    def poke(self) -> None:
        """Wake the waiters (something they watch changed)."""
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[], bool], timeout: float | None) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def listed(self) -> list[str]:
        """The faults to show: the first :data:`MAX_FAULTS`, then how many more."""
        with self._cond:
            more = self.errors - len(self.faults)
            return self.faults + ([f"({more} more faults not listed)"] if more else [])

    def _fault_locked(self, text: str) -> None:
        self.errors += 1
        if len(self.faults) < MAX_FAULTS:
            self.faults.append(text if len(text) <= FAULT_CHARS else text[:FAULT_CHARS] + "...")
