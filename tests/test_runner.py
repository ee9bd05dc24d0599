"""Small parts of the runner: where the input ends."""

from __future__ import annotations

from pathlib import Path

from pytest_rspbench.oracle.store.streamcache import ParquetStream
from pytest_rspbench.runner import end_time
from pytest_rspbench.stream.model import Event, Stream


def unreadable(iri: str) -> Stream:
    def read():
        raise AssertionError("the stream was read")

    return Stream(iri, read, "big generator")


class Cached:
    """A stream cache holding every stream, with its event times."""

    def lookup(self, stream: Stream) -> ParquetStream:
        return ParquetStream(stream.iri, Path("/nowhere"), 3, (0, 500, 4200))


def test_the_end_of_a_cached_stream_comes_from_its_metadata() -> None:
    assert end_time([unreadable("http://s")], Cached()) == 4200  # type: ignore[arg-type]


def test_without_a_cache_the_stream_is_read_to_its_last_event() -> None:
    events = [Event(t, ()) for t in (0, 10, 70)]
    stream = Stream("http://s", lambda: iter(events), "in memory")
    assert end_time([stream]) == 70
    assert end_time([stream, Stream("http://t", lambda: iter(()), "empty")]) == 70


def test_a_declared_end_wins() -> None:
    from dataclasses import replace

    assert end_time([replace(unreadable("http://s"), end=9000)], Cached()) == 9000  # type: ignore[arg-type]
