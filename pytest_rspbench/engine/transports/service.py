"""An engine that runs as a service, driven over a network transport.

:class:`ServiceEngine` is an :class:`~pytest_rspbench.engine.api.Engine`, so
the harness drives it like any other. It starts the service's command when
there is one (a :class:`~pytest_rspbench.engine.tree.ProcessTree`, stopped
whole at the end, its stdout and stderr drained like an engine process's),
connects, registers the query, sends events in batches and waits for
``done``. The transports (HTTP, WebSocket, MQTT) fill in the five steps
that touch the wire. Every fault is an :class:`~pytest_rspbench.errors.EngineError`
naming the engine, the transport and the URL; results already received stay
recorded, and :meth:`abort` closes the connections so that no blocked call
outlives the item's timeout.
"""

from __future__ import annotations

import abc
import contextlib
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit, Engine, Registration, Unsupported
from pytest_rspbench.engine.placeholders import expand
from pytest_rspbench.engine.stderr import StderrLog
from pytest_rspbench.engine.transports.config import ServiceAdapter
from pytest_rspbench.engine.transports.inbox import Inbox
from pytest_rspbench.engine.tree import ProcessTree
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event

FLUSH_AFTER = 0.005  # seconds an event may wait in the batch
BATCH = 512  # events sent in one request or message burst at most
RETRY = 0.05  # seconds between two attempts to reach a starting service


class ServiceEngine(Engine):
    """The common part of the three transports; subclasses touch the wire."""

    transport = "service"

    def __init__(
        self,
        adapter: ServiceAdapter,
        name: str,
        places: Mapping[str, str],
        cwd: Path,
        artifacts: Path | None = None,
    ) -> None:
        self.name = name
        self.version = "?"
        self.hello: protocol.Hello | None = None
        self.adapter = adapter
        self.places = dict(places)
        self.url = expand(adapter.url, places)
        self._cwd = cwd
        self._artifacts = artifacts
        self._tree: ProcessTree | None = None
        self._logs: dict[str, StderrLog] = {}
        self._inbox: Inbox | None = None
        self._batch: list[tuple[str, Event]] = []
        self._flushed = 0.0
        self._events = 0
        self._last_time: int | None = None
        self._step = "start"
        self._fatal_told = False
        self.aborted = False
        self.said_shutdown = False  # a started service then gets its grace to exit

    @property
    def where(self) -> str:
        """``http at http://127.0.0.1:8080``: the transport and its address."""
        return f"{self.transport} at {self.url}"

    # -- the five steps a transport implements -------------------------------

    @abc.abstractmethod
    def connect(self) -> None:
        """Reach the service (started or running); keep its hello if it sends one."""

    @abc.abstractmethod
    def register(self, registration: Registration) -> None:
        """Send the registration; ``registered`` comes through the inbox."""

    @abc.abstractmethod
    def send_events(self, batch: list[tuple[str, Event]]) -> None:
        """Deliver events (stream IRI and event), in order."""

    @abc.abstractmethod
    def send_end(self, end_time: int) -> None:
        """Deliver the end of the stream after the last event."""

    @abc.abstractmethod
    def disconnect(self) -> None:
        """Say ``shutdown`` if the service still listens, close every connection."""

    def prepare(self) -> None:
        """Before the service starts: e.g. listen where its hello will come."""

    def ready(self) -> None:
        """The engine has registered: check what the replay needs (a subscriber)."""

    def interrupt(self) -> None:
        """From another thread: make a blocked send or receive return now."""

    # -- the Engine interface ------------------------------------------------

    def open(self, registration: Registration, emit: Emit) -> None:
        """Start the service if the profile says how, connect, register."""
        self._inbox = Inbox(emit)
        self.prepare()
        self._start()
        self._step = "connect"
        self.connect()
        if self.hello is not None:
            self.version = self.hello.version
        self._step = "register"
        self.register(registration)
        answered = lambda: self.inbox.registered or self.inbox.declined is not None  # noqa: E731
        self.wait(answered, "'registered'", self.adapter.handshake_timeout)
        if self.inbox.declined is not None:
            raise Unsupported(self.inbox.declined)
        self.ready()
        self._step = "replay"

    def push(self, stream: str, event: Event) -> None:
        """Add one event to the batch; send the batch when it is full or old."""
        inbox = self.inbox
        if inbox.fatal is not None or inbox.closed is not None or self.aborted:
            raise self.gone()
        self._batch.append((stream, event))
        self._events += 1
        self._last_time = event.time
        if len(self._batch) >= BATCH or time.monotonic() - self._flushed > FLUSH_AFTER:
            self.flush()

    def flush(self) -> None:
        """Send the batch now."""
        batch, self._batch = self._batch, []
        self._flushed = time.monotonic()
        if batch and not self.aborted:
            self.send_events(batch)

    def end(self, end_time: int) -> None:
        """Send the rest and the end, then wait for ``done``."""
        self.flush()
        self._step = "end"
        self.send_end(end_time)
        inbox = self.inbox
        inbox.wait_for(lambda: self.finished() or self._settled(), None)
        if inbox.fatal is not None or not self.finished():
            raise self.gone("'done' after 'end'")

    def finished(self) -> bool:
        """Whether the engine has said everything (``done``)."""
        return self.inbox.done

    def close(self) -> None:
        """Disconnect, then make sure a started service's whole tree is gone."""
        with contextlib.suppress(Exception):
            self.disconnect()
        tree = self._tree
        if tree is not None:
            tree.wait(self.adapter.shutdown_grace if self.said_shutdown and not self.aborted else 0)
            tree.stop(self.adapter.shutdown_grace)
            tree.wait(5.0)
        for log in self._logs.values():
            log.join()

    def abort(self) -> None:
        """Close the connections and stop a started service: blocked calls return."""
        self.aborted = True
        self._step = f"{self._step} (aborted after the timeout)"
        with contextlib.suppress(Exception):
            self.interrupt()
        if self._tree is not None:
            self._tree.stop(grace=0.5)
        if self._inbox is not None:
            self._inbox.close("the run was aborted")

    def pid(self) -> int | None:
        return self._tree.proc.pid if self._tree is not None else None

    def faults(self) -> tuple[str, ...]:
        if self._inbox is None:
            return ()
        fatal = self._inbox.fatal
        late = [f"fatal error after 'done': {fatal}"] if fatal and not self._fatal_told else []
        return (*self._inbox.listed(), *late)

    def diagnostics(self) -> str:
        """Where the run was, how the service exited and what it logged."""
        lines = [f"state: {self._progress()}"]
        code = self._tree.returncode if self._tree is not None else None
        if code is not None:
            lines.append(f"service exit status: {_exit_status(code)}")
        for log in self._logs.values():
            log.join(0.5)
            if log.total or log is self._logs.get("stderr"):
                lines.append(log.describe(self.name))
        return "\n".join(lines)

    # -- helpers for the transports ------------------------------------------

    @property
    def inbox(self) -> Inbox:
        if self._inbox is None:
            raise EngineError(f"engine {self.name!r}: open() was not called")
        return self._inbox

    @property
    def started(self) -> bool:
        """Whether the harness started the service (``command:``)."""
        return self._tree is not None

    def error(self, what: str, hint: str = "") -> EngineError:
        """An error naming the engine, the transport and the URL."""
        text = f"engine {self.name!r} over {self.where}: {what}"
        if hint:
            text += f"\nHINT: {hint}"
        return EngineError(f"{text}\n{self.diagnostics()}")

    def gone(self, waiting_for: str | None = None) -> EngineError:
        """The error for a service that stopped talking (fatal, closed, exited)."""
        inbox = self.inbox
        before = f" before sending {waiting_for}" if waiting_for else ""
        if inbox.fatal is not None:
            self._fatal_told = True
            return self.error(f"the engine reported a fatal error: {inbox.fatal}")
        code = self._tree.returncode if self._tree is not None else None
        if code is not None:
            return self.error(f"the service stopped unexpectedly: {_exit_status(code)}{before}")
        reason = inbox.closed or "the connection ended"
        return self.error(f"{reason}{before}")

    def wait(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        """Wait for ``ready``; a clear error when the engine stops or the time is up."""
        if not self.inbox.wait_for(lambda: ready() or self._settled(), timeout):
            raise self.error(
                f"no {what} within {timeout:g} s",
                "the service must answer as docs/engine-protocol.md says for "
                f"{self.transport}; raise adapter.{self.transport}.handshake_timeout if "
                "it is slow.",
            )
        if not ready():
            raise self.gone(what)

    def until_reachable(self, attempt: Callable[[], None], what: str) -> None:
        """Call ``attempt`` until it connects; a started service gets the handshake time.

        A service the harness did not start is tried once: nothing listening
        there is the user's to fix.
        """
        deadline = time.monotonic() + self.adapter.handshake_timeout
        while True:
            try:
                attempt()
                return
            except OSError as exc:
                if self.aborted:
                    raise self.gone() from None
                exited = self._tree is not None and self._tree.returncode is not None
                if not self.started or exited or time.monotonic() > deadline:
                    raise self._unreachable(exc, what) from None
                time.sleep(RETRY)

    # -- internals -----------------------------------------------------------

    def _unreachable(self, exc: OSError, what: str) -> EngineError:
        if self._tree is not None and self._tree.returncode is not None:
            return self.gone(what)
        if isinstance(exc, ConnectionRefusedError):
            reason = "nothing is listening there (connection refused)"
        elif isinstance(exc, (TimeoutError, socket.timeout)):
            reason = f"it accepted the connection but did not answer {what} in time"
        else:
            reason = f"cannot reach it ({type(exc).__name__}: {exc})"
        if self.started:
            hint = "the service the harness started never listened at that address: check "
            hint += f"that adapter.{self.transport}.command serves adapter.{self.transport}.url."
        else:
            hint = f"start the service first, or give adapter.{self.transport}.command so "
            hint += "the harness starts it."
        return self.error(f"{reason} while waiting for {what}", hint)

    def _settled(self) -> bool:
        inbox = self.inbox
        exited = self._tree is not None and self._tree.returncode is not None
        return inbox.fatal is not None or inbox.closed is not None or exited or self.aborted

    def _start(self) -> None:
        command = self.adapter.command
        if command is None:
            return
        argv = tuple(expand(part, self.places) for part in command)
        env = {k: expand(v, self.places) for k, v in self.adapter.env.items()}
        try:
            self._tree = ProcessTree.start(argv, self._cwd, env, on_exit=self._exited)
        except OSError as exc:
            raise self.error(
                f"cannot start {list(argv)} in {self._cwd}: {exc}",
                f"check adapter.{self.transport}.command and cwd in its engine.yaml.",
            ) from None
        proc = self._tree.proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.close()  # a service reads nothing from the harness's pipe
        art = self._artifacts
        limit = self.adapter.stderr_limit
        self._logs["stderr"] = StderrLog(proc.stderr, art / "stderr.txt" if art else None, limit)
        self._logs["stdout"] = StderrLog(proc.stdout, art / "stdout.txt" if art else None, limit)

    def _exited(self, code: int) -> None:
        if self._inbox is not None:
            self._inbox.poke()

    def _progress(self) -> str:
        if self._step in ("start", "connect", "register"):
            return f"{self._step} (handshake)"
        last = f", the last at t={self._last_time} ms" if self._last_time is not None else ""
        received = self._inbox.results if self._inbox is not None else 0
        return f"{self._step}; {self._events} events sent{last}, {received} results received"


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _exit_status(code: int) -> str:
    import signal

    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {-code} ({signal.Signals(-code).name})"
        return f"signal {-code}"
    return f"exit code {code}"
