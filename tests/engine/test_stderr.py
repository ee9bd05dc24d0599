"""StderrLog: stderr drained on a thread; the head and the tail kept, never more.

Fed through an OS pipe, no engine. The artifact file for a 10-line limit::

    written:  l00 l01 l02 ... l97 l98 l99
    kept:     [head: l00 ...] [rspbench: N bytes dropped here ...] [tail: ... l99]
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from pytest_rspbench.engine.stderr import StderrLog

LINE = 12  # bytes per line: "line 000042\n"


def drained(data: bytes, path: Path | None, limit: int) -> StderrLog:
    read, write = os.pipe()
    log = StderrLog(os.fdopen(read, "rb"), path, limit)
    writer = threading.Thread(target=lambda: _write_all(write, data))
    writer.start()
    writer.join()
    log.join(10)
    return log


def _write_all(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def lines(n: int) -> bytes:
    return b"".join(f"line {k:06d}\n".encode() for k in range(n))


def test_a_short_log_is_kept_whole(tmp_path):
    path = tmp_path / "stderr.txt"
    drained(lines(10), path, 1000)
    assert path.read_bytes() == lines(10)


def test_a_log_just_at_the_limit_is_kept_whole(tmp_path):
    path = tmp_path / "stderr.txt"
    drained(lines(100), path, 100 * LINE)
    assert path.read_bytes() == lines(100)


def test_a_long_log_keeps_its_head_and_its_tail_and_says_what_was_dropped(tmp_path):
    path = tmp_path / "stderr.txt"
    log = drained(lines(100_000), path, 100 * LINE)
    text = path.read_bytes()
    head, note, tail = re.split(rb"\n(\[rspbench: .*\])\n", text)
    assert head == lines(50)
    assert tail == lines(100_000)[-len(tail) :]
    assert tail.startswith(b"line ")  # cut on a line start
    assert tail.endswith(b"line 099999\n")
    dropped = int(re.search(rb"(\d+) bytes of stderr dropped", note).group(1))
    assert len(head) + dropped + len(tail) == log.total == 100_000 * LINE
    assert note.endswith(f"kept the first 600 and the last {len(tail)} of 1200000]".encode())
    assert len(text) <= 100 * LINE + len(note) + 2


def test_the_tail_for_messages_is_the_last_lines():
    log = drained(lines(100_000), None, 100 * LINE)
    assert log.tail(3) == "line 099997\nline 099998\nline 099999"
    assert "1200000 bytes in all" in log.describe("e")
    assert log.describe("tumblr-dbg").startswith("--- last lines of the stderr of 'tumblr-dbg', ")


def test_memory_holds_at_most_the_file_tail():
    log = drained(lines(300_000), None, 64 * 1024 * 1024)
    assert len(log._tail) == 1 << 20
