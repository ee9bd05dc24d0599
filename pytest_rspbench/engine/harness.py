"""Replay streams into an engine and record everything it streams out.

Events of all input streams are merged by application time and sent at
their application-time spacing divided by ``speed`` (0 = as fast as
possible). Sending is scheduled against an absolute clock, so small delays do
not add up (YABench's launcher sleeps each gap in full and drifts). Each
result is stamped on arrival with a monotonic clock and mapped back to
application time; that is what delay is computed from. Results are written
to the record file as they arrive, so a crash or a hang loses nothing.

The engine runs on a worker thread; the caller's thread keeps the time. When
the run exceeds its timeout the engine is aborted (an engine process has its
whole tree killed) and the item gets an error naming the engine and quoting
what it said last. CPU, memory and threads are sampled meanwhile
(:mod:`~pytest_rspbench.engine.sampling`).

What a run records, :class:`Received` and :class:`ActualOutput`, are values
of :mod:`pytest_rspbench.rsp.outputs` (the verdict judges them without this
module); they are imported here.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pytest_rspbench.engine.api import Engine, Registration, Result, Unsupported
from pytest_rspbench.engine.clock import ReplayClock
from pytest_rspbench.engine.sampling import DEFAULT_INTERVAL, Sample, Sampler
from pytest_rspbench.errors import EngineError
from pytest_rspbench.rsp.outputs import ActualOutput, Received
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.workloads import Disorder, arrivals

ABORT_GRACE = 5.0  # seconds the worker gets to notice an abort


def merged(streams: Sequence[Stream]) -> Iterator[tuple[str, Event]]:
    """Events of all streams in application-time order (stable per stream)."""
    if len(streams) == 1:  # the common case, without the merge's cost per event
        iri = streams[0].iri
        for event in streams[0].events():
            yield iri, event
        return
    iterators = [_tagged(k, stream) for k, stream in enumerate(streams)]
    for _time, _k, iri, event in heapq.merge(*iterators, key=lambda x: (x[0], x[1])):
        yield iri, event


def deliveries(
    streams: Sequence[Stream], disorder: Mapping[str, Disorder] | None = None
) -> Iterator[tuple[int, str, Event]]:
    """``(arrival, stream IRI, event)`` in the order the engine receives them.

    Without ``disorder`` an event arrives at its time (:func:`merged`). A
    stream with a :class:`Disorder` has some events arrive late and some
    twice; the streams are merged by arrival (stable per stream).
    """
    disorder = disorder or {}
    if not any(s.iri in disorder for s in streams):
        for iri, event in merged(streams):
            yield event.time, iri, event
        return
    iterators = [_arriving(k, stream, disorder.get(stream.iri)) for k, stream in enumerate(streams)]
    for arrival, _k, iri, event in heapq.merge(*iterators, key=lambda x: (x[0], x[1])):
        yield arrival, iri, event


def _arriving(
    k: int, stream: Stream, disorder: Disorder | None
) -> Iterator[tuple[int, int, str, Event]]:
    """Like :func:`_tagged`, keyed by arrival time."""
    iri = stream.iri
    if disorder is None:
        for event in stream.events():
            yield event.time, k, iri, event
        return
    for arrival, event in arrivals(stream.events(), disorder):
        yield arrival, k, iri, event


def _tagged(k: int, stream: Stream) -> Iterator[tuple[int, int, str, Event]]:
    """``stream``'s events keyed for the merge, tagged with its position and IRI.

    A function, not a generator expression inside the list comprehension of
    :func:`merged`: a generator expression reads its free variables when it
    is iterated, after the comprehension has finished, so every stream's
    events would carry the last stream's IRI.
    """
    iri = stream.iri
    for event in stream.events():
        yield event.time, k, iri, event


def run(
    engine: Engine,
    registration: Registration,
    streams: Sequence[Stream],
    end_time: int,
    speed: float = 0.0,
    timeout: float = 300.0,
    record: IO[str] | None = None,
    *,
    artifacts: Path | None = None,
    sample_interval: float | None = DEFAULT_INTERVAL,
    progress: Callable[[float, float, int, int], None] | None = None,
    disorder: Mapping[str, Disorder] | None = None,
) -> ActualOutput:
    """Replay ``streams`` into ``engine``; never raises for engine faults.

    ``disorder`` maps stream IRIs to late and duplicated deliveries
    (:func:`deliveries`): such events are pushed at their arrival time with
    their own, earlier time.

    ``sample_interval`` is in seconds (None or 0: no sampling); samples go to
    ``artifacts/samples.jsonl`` as they are taken. ``progress``, if given, is
    called from the replay thread after each event as ``progress(event time,
    end time, events sent, results received)`` (the live progress line).
    """
    output = ActualOutput(engine=getattr(engine, "name", type(engine).__name__))
    clock = ReplayClock(speed)
    emit = _Recorder(output, clock, record)
    sampling = _Sampling(engine, clock, sample_interval, artifacts)
    replay = _Replay(
        engine, registration, streams, end_time, clock, emit, output, sampling, progress, disorder
    )
    worker = threading.Thread(
        target=_drive, args=(replay,), name=f"rspbench-{output.engine}", daemon=True
    )
    worker.start()
    try:
        worker.join(timeout)
    except BaseException:  # Ctrl-C, or SIGTERM as Ctrl-C: stop the engine now
        engine.abort()
        worker.join(ABORT_GRACE if engine.pid() is not None else 0.1)
        raise
    if worker.is_alive():
        _time_out(engine, worker, output, timeout, sampling)
    sampling.stop()
    output.samples = sampling.samples
    output.in_process = sampling.in_process
    output.faults = list(engine.faults())
    if output.faults and not output.fail(_faults_error(output.engine, engine)):
        # Another error came first; the bad lines still explain what happened.
        output.error = f"{output.error}\nit also broke the engine protocol:\n" + _listed(
            output.faults
        )
    output.lateness = clock.lateness
    output.seconds = time.monotonic() - clock.start
    return output


class _Recorder:
    """The ``emit`` given to the engine: stamps, keeps and writes each result."""

    def __init__(self, output: ActualOutput, clock: ReplayClock, record: IO[str] | None) -> None:
        self._output = output
        self._clock = clock
        self._record = record
        self._lock = threading.Lock()

    def __call__(self, result: Result) -> None:
        arrival = time.monotonic() - self._clock.start
        received = Received(result, arrival, self._clock.app_time(arrival))
        with self._lock:
            self._output.received.append(received)
            if self._record is not None:
                self._record.write(record_line(received) + "\n")
                self._record.flush()


class _Sampling:
    """Starts a sampler once the engine is open (its process exists)."""

    def __init__(
        self,
        engine: Engine,
        clock: ReplayClock,
        interval: float | None,
        artifacts: Path | None,
    ) -> None:
        self._engine, self._clock, self._interval = engine, clock, interval
        self._path = artifacts / "samples.jsonl" if artifacts else None
        self._sampler: Sampler | None = None
        self._lock = threading.Lock()
        self.samples: list[Sample] = []
        self.in_process = False  # the samples measure the harness's own process

    def begin(self) -> None:
        if not self._interval or self._interval <= 0:
            return
        with self._lock:
            pid = self._engine.pid()
            self.in_process = pid is None
            self._sampler = Sampler(pid, self._interval, self._path, self._clock.now).start()

    def stop(self) -> None:
        """Stop sampling (idempotent); the samples stay in ``samples``."""
        with self._lock:
            sampler, self._sampler = self._sampler, None
            if sampler is not None:
                self.samples = sampler.stop()


@dataclass(frozen=True)
class _Replay:
    """One replay, as the worker thread drives it (:func:`_drive`).

    Attributes:
        engine: the engine under test.
        registration: the query and streams it is asked to run.
        streams: the input streams, replayed merged (:func:`deliveries`).
        end_time: the application time at which the input is over.
        clock: the replay clock events are sent by.
        emit: stamps, keeps and writes each result the engine streams out.
        output: what the run records, filled in as it goes.
        sampling: the engine's CPU and memory sampler, begun once it is open.
        progress: called after each event (the live progress line), if given.
        disorder: late and duplicated deliveries per stream IRI, if any.
    """

    engine: Engine
    registration: Registration
    streams: Sequence[Stream]
    end_time: int
    clock: ReplayClock
    emit: _Recorder
    output: ActualOutput
    sampling: _Sampling
    progress: Callable[[float, float, int, int], None] | None = None
    disorder: Mapping[str, Disorder] | None = None


def _drive(replay: _Replay) -> None:
    """Open, feed, end and close the engine; its faults go into ``replay.output``."""
    engine, clock, output, sampling = replay.engine, replay.clock, replay.output, replay.sampling
    end_time, progress = replay.end_time, replay.progress
    step = "open"
    try:
        engine.open(replay.registration, replay.emit)
        sampling.begin()
        step = "push"
        for arrival, iri, event in deliveries(replay.streams, replay.disorder):
            clock.wait_until(arrival, engine.flush)
            engine.push(iri, event)
            output.events_sent += 1
            output.triples_sent += len(event.triples)
            if progress is not None:
                progress(arrival, end_time, output.events_sent, len(output.received))
        step = "end"
        clock.wait_until(end_time, engine.flush)
        engine.end(end_time)
    except Unsupported as exc:  # declined at registration: a skip, not a fault
        output.unsupported = exc.reason or "(no reason given)"
    except EngineError as exc:  # already names the engine and explains itself
        output.fail(str(exc))
    except Exception as exc:  # the engine is the code under test: report, never crash
        output.fail(f"engine {output.engine!r} failed in {step}(): {type(exc).__name__}: {exc}")
    finally:
        sampling.stop()
        try:
            engine.close()
        except Exception as exc:
            output.fail(f"engine {output.engine!r} failed in close(): {exc!r}")


def _time_out(
    engine: Engine,
    worker: threading.Thread,
    output: ActualOutput,
    timeout: float,
    sampling: _Sampling,
) -> None:
    """Stop a run that took too long; the error keeps the engine's last words.

    If the engine had already failed and is only slow to close, that first
    error stays the item's error.
    """
    timed_out = output.fail(
        f"engine {output.engine!r} did not finish within {timeout:g} s (timeout); "
        f"{output.events_sent} events sent, {len(output.received)} results received."
    )
    sampling.stop()  # before the kill: the last sample shows the hung engine
    engine.abort()
    # Only an engine in a process can be stopped; an in-process one keeps its thread.
    worker.join(ABORT_GRACE if engine.pid() is not None else 0.1)
    if not timed_out:
        return
    details = engine.diagnostics()
    if worker.is_alive():
        details = (details + "\n" if details else "") + "the engine did not stop after abort()."
    if details:
        output.error = f"{output.error}\n{details}"


def _faults_error(name: str, engine: Engine) -> str:
    details = engine.diagnostics()
    return (
        f"engine {name!r} broke the engine protocol (docs/engine-protocol.md):"
        f"\n{_listed(engine.faults())}" + (f"\n{details}" if details else "")
    )


def _listed(faults: Sequence[str]) -> str:
    return "\n".join(f"  {f}" for f in faults)


def record_line(received: Received) -> str:
    """One ``results.jsonl`` line: a relation as received."""
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
