"""Replay streams into an engine and record everything it streams out.

Events of all input streams are merged by application time and sent at
their application-time spacing divided by ``speed`` (0 = as fast as
possible). Sending is scheduled against an absolute clock, so small delays do
not add up (YABench's launcher sleeps each gap in full and drifts). Each
result is stamped on arrival with a monotonic clock and mapped back to
application time; that is what delay is computed from. Results are written
to the record file as they arrive, so a crash or a hang loses nothing.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO

from pytest_rspbench.engine.api import Engine, Registration, Result
from pytest_rspbench.stream.model import Event, Stream


@dataclass(frozen=True)
class Received:
    """A result with its arrival: seconds since replay start, and the
    application time that corresponds to (None when replaying at max rate)."""

    result: Result
    arrival: float
    app_time: float | None


@dataclass
class ActualOutput:
    """Everything an engine did during one run."""

    engine: str
    received: list[Received] = field(default_factory=list)
    events_sent: int = 0
    triples_sent: int = 0
    seconds: float = 0.0
    error: str | None = None


def merged(streams: Sequence[Stream]) -> Iterator[tuple[str, Event]]:
    """Events of all streams in application-time order (stable per stream)."""
    iterators = [((e.time, k, s.iri, e) for e in s.events()) for k, s in enumerate(streams)]
    for _time, _k, iri, event in heapq.merge(*iterators, key=lambda x: (x[0], x[1])):
        yield iri, event


def run(
    engine: Engine,
    registration: Registration,
    streams: Sequence[Stream],
    end_time: int,
    speed: float = 0.0,
    timeout: float = 300.0,
    record: IO[str] | None = None,
) -> ActualOutput:
    """Replay ``streams`` into ``engine``; never raises for engine faults."""
    output = ActualOutput(engine=getattr(engine, "name", type(engine).__name__))
    lock = threading.Lock()
    clock = _Clock(speed)

    def emit(result: Result) -> None:
        arrival = time.monotonic() - clock.start
        received = Received(result, arrival, clock.app_time(arrival))
        with lock:
            output.received.append(received)
            if record is not None:
                record.write(_record_line(received) + "\n")
                record.flush()

    worker = threading.Thread(
        target=_drive, args=(engine, registration, streams, end_time, clock, emit, output),
        name=f"rspbench-{output.engine}", daemon=True,
    )
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        output.error = f"engine {output.engine!r} did not finish within {timeout:g} s (timeout)"
    output.seconds = time.monotonic() - clock.start
    return output


class _Clock:
    def __init__(self, speed: float):
        self.speed = speed
        self.start = time.monotonic()
        self.origin: int | None = None

    def wait_until(self, app_time: int) -> None:
        if self.origin is None:
            self.origin = app_time
            self.start = time.monotonic()
        if self.speed <= 0:
            return
        due = self.start + (app_time - self.origin) / 1000 / self.speed
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def app_time(self, arrival: float) -> float | None:
        if self.speed <= 0 or self.origin is None:
            return None
        return self.origin + arrival * 1000 * self.speed


def _drive(engine, registration, streams, end_time, clock, emit, output) -> None:  # type: ignore[no-untyped-def]
    step = "open"
    try:
        engine.open(registration, emit)
        step = "push"
        for iri, event in merged(streams):
            clock.wait_until(event.time)
            engine.push(iri, event)
            output.events_sent += 1
            output.triples_sent += len(event.triples)
        step = "end"
        clock.wait_until(end_time)
        engine.end(end_time)
    except Exception as exc:  # the engine is the code under test: report, never crash
        output.error = f"engine {output.engine!r} failed in {step}(): {type(exc).__name__}: {exc}"
    finally:
        try:
            engine.close()
        except Exception as exc:
            output.error = output.error or f"engine {output.engine!r} failed in close(): {exc!r}"


def _record_line(received: Received) -> str:
    result = received.result
    return json.dumps(
        {
            "arrival": round(received.arrival, 6),
            "app_time": received.app_time,
            "time": result.time,
            "window": list(result.window) if result.window else None,
            "bindings": [dict(b) for b in result.bindings],
        },
        sort_keys=True,
    )
