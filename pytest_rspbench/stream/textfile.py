"""A stream file as numbered lines of UTF-8 text, plain or gzip-compressed.

Shared by the line formats (:mod:`.lines`: N-Triples and friends) and JSON
lines (:mod:`.jsonlines`); every error names ``path:line:column``.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from pytest_rspbench.errors import StreamError


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text without line end)``; undecodable bytes are StreamErrors."""
    number = 0
    with open_bytes(path) as stream:
        try:
            for number, raw in enumerate(stream, 1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise undecodable(path, number, raw, exc.start) from None
                if number == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield number, text.rstrip("\n")
        except (OSError, EOFError, zlib.error) as exc:
            raise error(path, number + 1, 1, f"cannot read: {exc}") from None


def error(path: Path, line: int, column: int, message: str) -> StreamError:
    """A StreamError naming ``path:line:column`` (both 1-based)."""
    return StreamError(f"{path}:{line}:{column}: {message}")


def open_bytes(path: Path) -> IO[bytes]:
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except OSError as exc:
        raise StreamError(f"{path}: cannot read: {exc.strerror or exc}") from None


def undecodable(path: Path, number: int, raw: bytes, at: int) -> StreamError:
    """The error for line ``number``, whose bytes ``raw`` are not UTF-8 at ``at``."""
    column = len(raw[:at].decode("utf-8", "replace")) + 1
    return error(path, number, column, f"expected UTF-8 text, found byte {raw[at]:#04x}")
