"""What a service engine says, from whatever carries it: messages in, faults recorded.

The transports hand each message they receive (an HTTP callback body's
line, a server-sent event, a WebSocket or MQTT message) to :meth:`Inbox.take`.
It decodes it as the stdin/stdout protocol does
(:func:`~pytest_rspbench.engine.protocol.parse_line`), hands results to
``emit`` at once (the harness stamps them on arrival) and keeps the state the
engine waits on (:class:`~pytest_rspbench.engine.messages.Said`: hello,
registered, an ``unsupported`` answer, done, a fatal error) and why the
channel closed. A message that is not a protocol message is a fault naming where it
came from; the messages after it still count. Never raises.
"""

from __future__ import annotations

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit
from pytest_rspbench.engine.messages import Said


class Inbox(Said):
    """The engine's messages, taken from any thread."""

    def __init__(self, emit: Emit) -> None:
        super().__init__(emit)
        self.closed: str | None = None  # why the channel closed, None while open
        self.last = 0.0  # monotonic time of the last message
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
        self.dispatch(message, f"message {self._number}")

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
