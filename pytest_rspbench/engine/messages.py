"""What an engine has said so far, whatever carried it.

:class:`Said` keeps the state a harness waits on (hello, registered, an
``unsupported`` answer, done, a fatal error) and the faults to list, for
the stdin/stdout reader (:mod:`.stdout`) and the service transports'
inbox (:mod:`.transports.inbox`) alike, so every transport understands
every message of the protocol (docs/engine-protocol.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit, Result

MAX_FAULTS = 20
FAULT_CHARS = 500  # characters of one listed fault


class Said:
    """The engine's messages so far; results go to ``emit`` as they come."""

    def __init__(self, emit: Emit) -> None:
        self.hello: protocol.Hello | None = None
        self.registered = False
        self.declined: str | None = None  # the reason of an 'unsupported' answer
        self.done = False
        self.fatal: str | None = None
        self.faults: list[str] = []
        self.errors = 0
        self.results = 0
        self._emit = emit
        self._cond = threading.Condition()

    def dispatch(self, message: protocol.Message, where: str) -> None:
        """Take one decoded message; ``where`` names it in a fault."""
        if isinstance(message, Result):
            self.results += 1
            self._emit(message)
            return
        with self._cond:
            if isinstance(message, protocol.Hello):
                self.hello = message
            elif isinstance(message, protocol.Registered):
                self.registered = True
            elif isinstance(message, protocol.Declined):
                self.declined = message.reason
            elif isinstance(message, protocol.Done):
                self.done = True
            elif message.fatal:
                self.fatal = self.fatal or message.message
            else:
                self._fault_locked(f"{where}: engine error: {message.message}")
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
