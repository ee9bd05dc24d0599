"""A live progress line during long items: replay position, results received.

Drawn as a transient suffix after what pytest already wrote on the current
line (the item's name with ``-v``, the dots otherwise) and erased before
pytest writes the outcome, so the log looks exactly as without it. It
appears only after :data:`QUIET_FOR` seconds (short items stay silent),
redraws at most every :data:`EVERY` seconds, and is off when the output is
not a terminal or ``CI`` is set: CI logs stay clean. It fits the room left
on the line, dropping its least important parts first (the count of events,
then of results; a stage's words before its seconds), so an 80-column
terminal still shows how long a step has run (:func:`fitted`).

Where the live line is off, the long steps that push no events say when
they begin and end with a plain line each (:func:`notices`: Spark's start,
30 s or more on a cold machine), so a log is never silent for long.

The harness calls it from its replay thread after each event is pushed; it
writes straight to the terminal with pytest's capturing suspended, as
pytest's own live logging does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

QUIET_FOR = 2.0
EVERY = 0.5
MIN_ROOM = 24  # columns below which no line is drawn


def fitted(parts: list[str], drop: tuple[int, ...], cut: int | None, room: int) -> str:
    """`` [a, b, c]`` within ``room`` columns: the parts at the indexes of
    ``drop`` are left out in that order while it is too long, then the part
    at ``cut`` is shortened (a parenthesis first, then its end, with ``…``).

    >>> fitted(["replay 1.0 s/2.0 s", "12 events", "5 results"], (2, 1), None, 34)
    ' [replay 1.0 s/2.0 s, 12 events]'
    >>> what = "oracle: computing the expected output (begun during the replay)"
    >>> fitted([what, "12 s"], (), 0, 50)
    ' [oracle: computing the expected output, 12 s]'
    >>> fitted([what, "12 s"], (), 0, 30)
    ' [oracle: computing th…, 12 s]'
    """
    kept = list(parts)

    def text() -> str:
        return " [" + ", ".join(p for p in kept if p) + "]"

    for index in drop:
        if len(text()) <= room:
            break
        kept[index] = ""
    if cut is not None and len(text()) > room and "(" in kept[cut]:
        kept[cut] = kept[cut].split("(", 1)[0].rstrip()
    if cut is not None and len(text()) > room:
        over = len(text()) - room
        words = kept[cut][: max(len(kept[cut]) - over - 1, 1)].rstrip()
        kept[cut] = words + "…"
    return text()


class ProgressLine:
    """Callable given to the harness: ``(app_time, end_time, events, results)``."""

    def __init__(self, reporter: Any, capture: Any, stream: Any = None) -> None:
        self._reporter = reporter
        self._capture = capture
        self._stream: Any = stream or sys.__stdout__
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = 0
        self._stages: list[tuple[str, float]] = []
        self._done = threading.Event()

    def __call__(self, app_time: float, end_time: float, events: int, results: int) -> None:
        now = time.monotonic()
        if now - self._start < QUIET_FOR or now - self._last < EVERY:
            return
        self._last = now
        where = f"{text_time(app_time)}/{text_time(end_time)}"
        self._show([f"replay {where}", f"{events} events", f"{results} results"], (2, 1))

    @contextlib.contextmanager
    def stage(self, what: str) -> Iterator[None]:
        """Show ``[what, 12 s]`` while a step that pushes no events runs.

        For the Spark start and the oracle: a timer redraws the elapsed time
        of the innermost stage every :data:`EVERY` seconds once
        :data:`QUIET_FOR` have passed. Stages nest (Spark starts inside the
        oracle's stage).
        """
        self._stages.append((what, time.monotonic()))
        timer = None
        if len(self._stages) == 1:
            self._done.clear()
            timer = threading.Thread(target=self._tick, name="rspbench-progress", daemon=True)
            timer.start()
        try:
            yield
        finally:
            self._stages.pop()
            if timer is not None:
                self._done.set()
                timer.join()
                self.close()

    def _tick(self) -> None:
        while not self._done.wait(EVERY):
            if not self._stages:
                continue
            what, began = self._stages[-1]
            elapsed = time.monotonic() - began
            if elapsed >= QUIET_FOR:
                self._show([what, f"{elapsed:.0f} s"], (), cut=0)

    def _show(self, parts: list[str], drop: tuple[int, ...], cut: int | None = None) -> None:
        with self._lock:
            try:
                self._draw(fitted(parts, drop, cut, self._room()))
            except (OSError, ValueError):  # a closed or broken terminal: no progress
                self._shown = 0

    def _room(self) -> int:
        return shutil.get_terminal_size().columns - self._column() - 1

    def close(self) -> None:
        """Erase what is shown (call before pytest writes the outcome)."""
        with self._lock:
            self._draw("")

    def _draw(self, text: str) -> None:
        room = self._room()
        if self._shown == 0 and (not text or room < MIN_ROOM):
            return
        text = text[: max(room, 0)]
        erase = "\b" * self._shown + " " * self._shown + "\b" * self._shown
        with self._suspended():
            self._stream.write(erase + text)
            self._stream.flush()
        self._shown = len(text)

    def _column(self) -> int:
        writer = getattr(self._reporter, "_tw", None)
        return int(getattr(writer, "width_of_current_line", 0) or 0)

    def _suspended(self) -> Any:
        if self._capture is None:
            return contextlib.nullcontext()
        return self._capture.global_and_fixture_disabled()


def wanted(config: Any, environ: Any = None) -> bool:
    """Whether a live line belongs in this session's output: not in CI logs,
    not under ``-q``, not when the output is no terminal."""
    environ = os.environ if environ is None else environ
    if environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    if (getattr(getattr(config, "option", None), "verbose", 0) or 0) < 0:
        return False
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return bool(reporter is not None and getattr(reporter, "isatty", False))


def notices(config: Any, environ: Any = None) -> Any:
    """Where the live line is off for want of a terminal (a pipe, a CI log),
    a function writing one plain ``rspbench: ...`` line per call; else None.

    Not under ``-q``: a quiet run stays quiet.
    """
    environ = os.environ if environ is None else environ
    if (getattr(getattr(config, "option", None), "verbose", 0) or 0) < 0:
        return None
    lock = threading.Lock()

    def notice(text: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or wanted(config, environ):
            return  # the live line shows it
        with lock:
            reporter.ensure_newline()
            reporter.write_line(f"rspbench: {text}")

    return notice


def live_progress(config: Any) -> ProgressLine | None:
    """A progress line for the next item, or None when it would not be seen."""
    if not wanted(config):
        return None
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    return ProgressLine(reporter, capture)


def text_time(ms: float) -> str:
    """Application time for people: ``850 ms``, ``12.3 s``, ``4 min 05 s``.

    >>> text_time(850), text_time(12_345), text_time(245_000)
    ('850 ms', '12.3 s', '4 min 05 s')
    """
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(int(ms // 1000), 60)
    return f"{minutes} min {seconds:02d} s"


def stage(progress: ProgressLine | None, what: str) -> contextlib.AbstractContextManager[None]:
    """``progress.stage(what)``, or nothing when no line is shown."""
    return contextlib.nullcontext() if progress is None else progress.stage(what)
