"""Draining an engine's stderr: a bounded tail in memory, its head and tail on disk.

An engine that logs a lot must neither block (a full pipe stops the engine
mid-write) nor exhaust memory, so stderr is read continuously in chunks. The
artifact file keeps the **head** of the log (how the engine started) as it
arrives and, when the stream ends, its **tail** (the lines that explain a
crash), with a line saying how many bytes were dropped in between::

    stderr.txt:  | head: first limit - K bytes | [rspbench: N bytes dropped] | tail: last K bytes |
    stream:      |=====================================================================|

K is :data:`TAIL_KEPT` (1 MiB, at most half the limit); the tail lives in
memory until the stream ends, so memory is bounded by K (or the 8 KiB read
for error messages) whatever the engine writes.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import IO

TAIL_BYTES = 8192  # read for error messages
TAIL_LINES = 20
TAIL_KEPT = 1 << 20  # bytes of the end of stderr kept for stderr.txt
FILE_LIMIT = 16 * 1024 * 1024


class StderrLog:
    """Reads a binary stream on a daemon thread until it ends."""

    def __init__(
        self,
        stream: IO[bytes],
        path: Path | None = None,
        file_limit: int = FILE_LIMIT,
        tail_bytes: int = TAIL_BYTES,
    ) -> None:
        self.path = path
        self.total = 0
        self._stream = stream
        self._tail_bytes = tail_bytes
        self._file_tail = min(TAIL_KEPT, max(0, file_limit) // 2)
        self._head_limit = max(0, file_limit - self._file_tail)
        self._keep = max(tail_bytes, self._file_tail)  # bytes of the end in memory
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="rspbench-stderr", daemon=True)
        self._thread.start()

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last ``lines`` lines read so far (from at most the last 8 KiB)."""
        with self._lock:
            text = self._tail[-self._tail_bytes :].decode("utf-8", errors="replace")
            cut = self.total > self._tail_bytes
        all_lines = text.splitlines()
        if cut and len(all_lines) > 1:
            all_lines = all_lines[1:]  # the first one was cut by the bound
        return "\n".join(line[-500:] for line in all_lines[-lines:])

    def join(self, timeout: float = 2.0) -> None:
        """Wait until the stream has ended (the engine and its children exited)."""
        self._thread.join(timeout)

    def describe(self, engine: str) -> str:
        """The stderr tail as an error-message section, or a note that it is empty."""
        tail = self.tail()
        where = f" (whole log: {self.path})" if self.path else ""
        if not tail.strip():
            return f"{engine!r} wrote nothing to stderr{where}."
        size = f", {self.total} bytes in all" if self.total > len(tail) else ""
        head = f"--- last lines of the stderr of {engine!r}{size}{where} ---"
        return f"{head}\n{tail}\n--- end of stderr ---"

    def _drain(self) -> None:
        out = self._open()
        written = 0
        try:
            fd = self._stream.fileno()
            while chunk := os.read(fd, 65536):
                self._remember(chunk)
                if out is not None and written < self._head_limit:
                    head = chunk[: self._head_limit - written]
                    written += len(head)
                    out = _write(out, head)
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the engine is gone
        finally:
            if out is not None and _write(out, self._rest(written)) is not None:
                out.close()

    def _open(self) -> IO[bytes] | None:
        try:
            return self.path.open("wb") if self.path else None
        except OSError:
            return None  # no artifact, but the draining must go on

    def _rest(self, written: int) -> bytes:
        """What follows the head in the file: the tail, after a gap note if any."""
        with self._lock:
            missing = self.total - written
            tail = bytes(self._tail[len(self._tail) - self._file_tail :])
        if missing <= len(tail):
            return tail[len(tail) - missing :]
        newline = tail.find(b"\n", 0, 4096)
        tail = tail[newline + 1 :] if newline >= 0 else tail  # start on a whole line
        dropped = missing - len(tail)
        note = (
            f"\n[rspbench: {dropped} bytes of stderr dropped here; kept the first "
            f"{written} and the last {len(tail)} of {self.total}]\n"
        )
        return note.encode() + tail

    def _remember(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._tail += chunk
            if len(self._tail) > self._keep:
                del self._tail[: len(self._tail) - self._keep]


def _write(out: IO[bytes], data: bytes) -> IO[bytes] | None:
    """Write and flush; a full disk loses the artifact (None), not the draining."""
    try:
        out.write(data)
        out.flush()
        return out
    except OSError:
        with contextlib.suppress(OSError):
            out.close()
        return None
