"""An engine in another process, driven by the JSON-lines protocol.

:class:`ProcessEngine` is an :class:`~pytest_rspbench.engine.api.Engine`, so
the harness drives it like an in-process one. It starts the profile's
command, waits for the engine's ``hello``, registers the query, writes each
event as one line to the engine's stdin and reads results from its stdout on
a thread. Whatever the engine does — crash, hang, write garbage, flood
stderr, never start — ends as an :class:`~pytest_rspbench.errors.EngineError`
or a recorded fault naming the engine and quoting the tail of its stderr,
never as a crash or a deadlock of the harness (YABench §3.3 wraps each
engine the same way, in-process).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit, Engine, Registration, Unsupported
from pytest_rspbench.engine.stderr import FILE_LIMIT, StderrLog
from pytest_rspbench.engine.stdout import StdoutReader
from pytest_rspbench.engine.tree import ProcessTree
from pytest_rspbench.errors import EngineError
from pytest_rspbench.stream.model import Event

FLUSH_AFTER = 0.005  # seconds an event may wait in the stdin buffer


@dataclass(frozen=True)
class ProcessConfig:
    """How to run an engine process (engine.yaml ``adapter.command`` and friends)."""

    command: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    handshake_timeout: float = 30.0
    shutdown_grace: float = 2.0
    stderr_limit: int = FILE_LIMIT


class ProcessEngine(Engine):
    """Runs ``config.command`` and speaks protocol 1 with it."""

    def __init__(self, config: ProcessConfig, name: str, artifacts: Path | None = None) -> None:
        self.name = name
        self.version = "?"
        self.hello: protocol.Hello | None = None
        self._config = config
        self._artifacts = artifacts
        self._tree: ProcessTree | None = None
        self._stderr: StderrLog | None = None
        self._reader: StdoutReader | None = None
        self._events = 0
        self._last_time: int | None = None
        self._flushed = 0.0
        self._buffered = 0  # event lines written since the last delivery
        self._lost = 0  # event lines the engine never got (its stdin was closed)
        self._step = "start"
        self._fatal_told = False

    def open(self, registration: Registration, emit: Emit) -> None:
        """Start the process, wait for its hello, register the query."""
        self._start(emit)
        reader = self._opened()
        self._wait(
            lambda: reader.hello is not None,
            "its hello",
            self._config.handshake_timeout,
        )
        assert reader.hello is not None
        self.hello, self.version = reader.hello, reader.hello.version
        self._step = "register"
        self._send(protocol.register_line(registration))
        answered = lambda: reader.registered or reader.declined is not None  # noqa: E731
        self._wait(answered, "'registered'", self._config.handshake_timeout)
        if reader.declined is not None:
            raise Unsupported(reader.declined)
        self._step = "replay"

    def push(self, stream: str, event: Event) -> None:
        """Write one event line (unless the engine has declared a fatal error).

        Lines are buffered and delivered when the harness is about to wait
        (:meth:`flush`), when the buffer is full, or 5 ms after the last
        delivery: one system call per event would cap the feed rate.
        """
        reader = self._reader
        if reader is not None and (reader.fatal is not None or reader.closed):
            raise self._gone()
        now = time.monotonic()
        self._buffered += 1
        self._send(protocol.event_line(stream, event), now - self._flushed > FLUSH_AFTER)
        self._events += 1
        self._last_time = event.time

    def flush(self) -> None:
        """Deliver the buffered event lines now."""
        if self._tree is not None and self._tree.returncode is None:
            self._send("", flush=True)

    def end(self, end_time: int) -> None:
        """Write ``end`` and wait for ``done``.

        An engine that exits without ``done``, even with code 0, has not
        finished: it may have quit before reading the whole stream, and with
        few expected results a lenient harness would pass it.
        """
        self._step = "end"
        self._send(protocol.end_line(end_time))
        reader = self._opened()
        reader.wait_for(lambda: reader.done or reader.closed or reader.fatal is not None, None)
        if reader.fatal is not None or not reader.done:  # fatal, even if 'done' came too
            raise self._gone("'done' after 'end'")

    def close(self) -> None:
        """Ask the engine to exit, then make sure its whole tree is gone."""
        tree = self._tree
        if tree is None:
            return
        if tree.returncode is None:
            self._shutdown()
        tree.stop(self._config.shutdown_grace)
        tree.wait(5.0)
        for part in (self._reader, self._stderr):
            if part is not None:
                part.join()

    def abort(self) -> None:
        """Kill the tree now: a blocked write or wait then fails at once."""
        if self._tree is not None:
            self._step = f"{self._step} (aborted after the timeout)"
            self._tree.stop(grace=0.5)

    def pid(self) -> int | None:
        return self._tree.proc.pid if self._tree is not None else None

    def faults(self) -> tuple[str, ...]:
        """Bad lines, and a fatal error that came too late to stop the run."""
        reader = self._reader
        if reader is None:
            return ()
        late = reader.fatal is not None and not self._fatal_told
        return (*reader.listed(), *([f"fatal error after 'done': {reader.fatal}"] if late else []))

    def diagnostics(self) -> str:
        """Where the engine was, its exit status and the tail of its stderr."""
        lines = [f"state: {self._progress()}"]
        code = self._tree.returncode if self._tree is not None else None
        if code is not None:
            lines.append(f"exit status: {_exit_status(code)}")
        if self._stderr is not None:
            self._stderr.join(0.5)
            lines.append(self._stderr.describe(self.name))
        return "\n".join(lines)

    # -- internals -----------------------------------------------------------

    def _start(self, emit: Emit) -> None:
        cfg = self._config
        try:
            self._tree = ProcessTree.start(cfg.command, cfg.cwd, cfg.env, on_exit=self._exited)
        except OSError as exc:
            raise EngineError(
                f"engine {self.name!r}: cannot start {list(cfg.command)} "
                f"in {cfg.cwd}: {exc}"
                "\nHINT: check adapter.command and adapter.cwd in its engine.yaml."
            ) from None
        stdout, stderr = self._tree.proc.stdout, self._tree.proc.stderr
        assert stdout is not None and stderr is not None
        art = self._artifacts
        self._stderr = StderrLog(stderr, art / "stderr.txt" if art else None, cfg.stderr_limit)
        raw = (art / "stdout.jsonl").open("wb") if art else None
        self._reader = StdoutReader(stdout, emit, raw)

    def _opened(self) -> StdoutReader:
        if self._reader is None:
            raise EngineError(f"engine {self.name!r}: open() was not called")
        return self._reader

    def _exited(self, code: int) -> None:
        """On the tree's watcher: the engine exited; what it left must go now.

        What the engine wrote before it exited is read first (within the
        grace). A process it left behind may hold stdout open (a crash would
        look like a hang) or stdin (a write would block until the timeout).
        """
        reader, tree = self._reader, self._tree
        if reader is not None and tree is not None:
            reader.join(self._config.shutdown_grace)
            tree.stop(grace=0.5)

    def _send(self, line: str, flush: bool = True) -> None:
        assert self._tree is not None
        proc = self._tree.proc
        assert proc.stdin is not None
        try:
            proc.stdin.write(line.encode("utf-8"))
            if flush:
                proc.stdin.flush()
                self._flushed = time.monotonic()
                self._buffered = 0
        except (BrokenPipeError, OSError, ValueError):
            # Buffered event lines not delivered: the engine quit before them,
            # even when the write that failed was 'end'.
            self._lost, self._buffered = self._buffered, 0
            self._opened().join(1.0)  # let the reader see the end and the exit code
            raise self._gone() from None

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float | None) -> None:
        reader = self._opened()

        def settled() -> bool:
            return (
                ready()
                or reader.closed
                or reader.fatal is not None
                or (reader.handshake_fault is not None)
            )

        if not reader.wait_for(settled, timeout):
            raise EngineError(
                f"engine {self.name!r} did not send {what} within {timeout:g} s"
                f" of starting {list(self._config.command)}; it never started."
                "\nHINT: an engine must write "
                '{"type": "hello", "protocol": 1, ...} on stdout when it is ready '
                "(docs/engine-protocol.md); raise adapter.handshake_timeout if it "
                "starts slowly.\n" + self.diagnostics()
            )
        if not ready():
            raise self._gone(what)

    def _gone(self, waiting_for: str | None = None) -> EngineError:
        reader = self._opened()
        if reader.fatal is not None:
            self._fatal_told = True
            head = f"engine {self.name!r} reported a fatal error: {reader.fatal}"
        elif reader.handshake_fault is not None:
            head = (
                f"engine {self.name!r} wrote {reader.handshake_fault} "
                "instead of its hello"
                "\nHINT: stdout is for protocol messages only; log to stderr."
            )
        else:
            head = self._stopped(waiting_for)
        return EngineError(f"{head}\n{self.diagnostics()}")

    def _stopped(self, waiting_for: str | None) -> str:
        """The first line for an engine whose process (or stdout) ended early."""
        code = self._exit_code()
        if code == 0 and self._step in ("replay", "end"):
            return self._quit()
        if code is None:
            head = f"engine {self.name!r} closed its stdout but kept running"
        else:
            head = f"engine {self.name!r} stopped unexpectedly: {_exit_status(code)}"
        return head + (f" before sending {waiting_for}" if waiting_for else "")

    def _quit(self) -> str:
        """The first lines for an engine that exited with code 0 without 'done'."""
        unread = self._unread()
        if unread or self._lost or self._step == "replay":
            if self._lost:
                left = " (its stdin closed before all the events were delivered)"
            else:
                left = f" ({unread} bytes of its input never read)" if unread else ""
            head = f"exited with code 0 before the end of the stream{left}, without sending 'done'"
        else:
            head = "exited with code 0 without sending 'done' after 'end'"
        return (
            f"engine {self.name!r} {head}"
            '\nHINT: an engine answers \'end\' with {"type": "done"} after its last '
            "result, then exits on 'shutdown' (docs/engine-protocol.md)."
        )

    def _exit_code(self, timeout: float = 5.0) -> int | None:
        return self._tree.wait(timeout) if self._tree is not None else None

    def _unread(self) -> int | None:
        """Bytes written to the engine's stdin that nobody read (None: unknown).

        The pipe keeps what the engine did not read after it exits; Linux and
        macOS tell how much (FIONREAD).
        """
        stdin = self._tree.proc.stdin if self._tree is not None else None
        try:
            import fcntl
            import termios

            assert stdin is not None
            raw = fcntl.ioctl(stdin.fileno(), termios.FIONREAD, b"\0\0\0\0")
        except (ImportError, AssertionError, OSError, ValueError):
            return None
        return int.from_bytes(raw, sys.byteorder, signed=True)

    def _progress(self) -> str:
        if self._step in ("start", "register"):
            return f"{self._step} (handshake)"
        last = f", the last at t={self._last_time} ms" if self._last_time is not None else ""
        return f"{self._step}; {self._events} events sent{last}"

    def _shutdown(self) -> None:
        assert self._tree is not None
        stdin = self._tree.proc.stdin
        with contextlib.suppress(OSError, ValueError):
            assert stdin is not None
            stdin.write(protocol.shutdown_line().encode())
            stdin.close()
        self._tree.wait(self._config.shutdown_grace)


def _exit_status(code: int | None) -> str:
    """``exit code 3``, ``signal 9 (SIGKILL)`` or ``still running``."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"
