"""Draining an engine's stderr: a bounded tail in memory, a capped file on disk.

An engine that logs a lot must neither block (a full pipe stops the engine
mid-write) nor exhaust memory, so stderr is read continuously in chunks, only
its last few KiB are kept for error messages, and the artifact file stops
growing at a limit (the number of bytes left out is written at its end).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO

TAIL_BYTES = 8192
TAIL_LINES = 20
FILE_LIMIT = 16 * 1024 * 1024


class StderrLog:
    """Reads a binary stream on a daemon thread until it ends."""

    def __init__(
        self,
        stream: IO[bytes],
        path: Path | None = None,
        file_limit: int = FILE_LIMIT,
        tail_bytes: int = TAIL_BYTES,
    ):
        self.path = path
        self.total = 0
        self._stream = stream
        self._file_limit = file_limit
        self._tail_bytes = tail_bytes
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._drain, name="rspbench-stderr", daemon=True
        )
        self._thread.start()

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last ``lines`` lines read so far (from at most the last 8 KiB)."""
        with self._lock:
            text = self._tail.decode("utf-8", errors="replace")
            cut = self.total > len(self._tail)
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
        return (
            f"--- last lines of {engine!r}'s stderr{size}{where} ---\n{tail}\n"
            f"--- end of stderr ---"
        )

    def _drain(self) -> None:
        out = self.path.open("wb") if self.path else None
        written = 0
        try:
            fd = self._stream.fileno()
            while chunk := os.read(fd, 65536):
                self._remember(chunk)
                if out is not None and written < self._file_limit:
                    out.write(chunk[: self._file_limit - written])
                    out.flush()
                    written += min(len(chunk), self._file_limit - written)
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the engine is gone
        finally:
            if out is not None:
                if self.total > written:
                    dropped = self.total - written
                    out.write(f"\n[rspbench: {dropped} more bytes not kept]\n".encode())
                out.close()

    def _remember(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._tail += chunk
            if len(self._tail) > self._tail_bytes:
                del self._tail[: len(self._tail) - self._tail_bytes]
