"""Reading an engine's stdout: protocol messages in, faults recorded, never a crash.

A daemon thread reads the engine's stdout line by line, decodes each line
(:mod:`~pytest_rspbench.engine.protocol`), hands results to ``emit`` at once
(the harness stamps them on arrival) and records the handshake state for
:class:`~pytest_rspbench.engine.process.ProcessEngine` to wait on. A line that
is not a protocol message — garbage, a truncated last line, a binding that is
not an RDF term, a ``NaN`` time, an overlong line — is recorded as a fault
with its line number and the reading goes on: nothing a line holds can stop
the reading, so the lines after it (``done`` included) still count. Every
line read is also copied to the raw artifact file (``stdout.jsonl``) as it
arrives; of an overlong line, its first :data:`RAW_PREVIEW` bytes.

Memory stays bounded whatever the engine writes: one line of at most
:data:`LINE_LIMIT` bytes at a time (the rest of a longer one is read and
dropped in chunks), at most :data:`MAX_FAULTS` faults listed.
"""

from __future__ import annotations

import threading
from typing import IO

from pytest_rspbench.engine import protocol
from pytest_rspbench.engine.api import Emit
from pytest_rspbench.engine.messages import MAX_FAULTS as MAX_FAULTS
from pytest_rspbench.engine.messages import Said

LINE_LIMIT = 1 << 24  # a longer stdout line is a fault, not a memory blow-up
RAW_PREVIEW = 1 << 16  # bytes of an overlong line copied to stdout.jsonl


class StdoutReader(Said):
    """Reads the engine's stdout on a thread; never raises, records faults."""

    def __init__(self, stdout: IO[bytes], emit: Emit, raw: IO[bytes] | None) -> None:
        super().__init__(emit)
        self.closed = False
        self.handshake_fault: str | None = None
        self._raw = raw
        self._stdout = stdout
        self._number = 0
        self._overlong = 0  # bytes of the current overlong line so far (0: none)
        self._preview = b""
        self._thread = threading.Thread(target=self._run, name="rspbench-stdout", daemon=True)
        self._thread.start()

    def join(self, timeout: float = 2.0) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            while chunk := self._stdout.readline(LINE_LIMIT):
                self._read(chunk)
        except (OSError, ValueError):
            pass  # the pipe was closed under us (abort)
        finally:
            if self._overlong:
                self._end_overlong(truncated=True)
            self._copy_end()
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _read(self, chunk: bytes) -> None:
        """One ``readline`` chunk: a whole line, or a part of an overlong one."""
        if self._overlong:
            self._overlong += len(chunk)
            if chunk.endswith(b"\n"):
                self._end_overlong(truncated=False)
            return
        self._number += 1
        if len(chunk) == LINE_LIMIT and not chunk.endswith(b"\n"):
            self._overlong = len(chunk)
            self._copy(chunk[:RAW_PREVIEW])
            self._preview = chunk[:120]
            return
        self._copy(chunk)
        try:
            self._take(chunk)
        except Exception as exc:  # whatever a line holds, the next ones still count
            self._fault(chunk, f"unreadable ({type(exc).__name__}: {exc})")

    def _end_overlong(self, truncated: bool) -> None:
        size, self._overlong = self._overlong, 0
        self._copy(f"\n[rspbench: line {self._number}: {size} bytes, not kept]\n".encode())
        end = " (no newline: the engine stopped mid-line)" if truncated else ""
        self._fault(self._preview, f"{size} bytes, longer than {LINE_LIMIT}{end}")

    def _copy(self, data: bytes) -> None:
        """Copy to stdout.jsonl; a failing disk loses the copy, not the reading."""
        if self._raw is None:
            return
        try:
            self._raw.write(data)
            self._raw.flush()
        except (OSError, ValueError):
            self._copy_end()

    def _copy_end(self) -> None:
        raw, self._raw = self._raw, None
        if raw is not None:
            try:
                raw.close()
            except OSError:
                pass

    def _take(self, line: bytes) -> None:
        if not line.endswith(b"\n"):
            self._fault(line, "truncated (no newline: the engine stopped mid-line)")
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
        self.dispatch(message, f"stdout line {self._number}")

    def _fault(self, line: bytes, reason: str) -> None:
        shown = line[:120].decode("utf-8", errors="replace").rstrip("\n")
        with self._cond:
            self._fault_locked(f"stdout line {self._number}: {reason}: {shown!r}")
            if self.hello is None and self.handshake_fault is None:
                self.handshake_fault = f"{shown!r} ({reason})"
                self._cond.notify_all()
