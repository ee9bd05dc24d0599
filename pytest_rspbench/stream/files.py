"""File sources: one RDF file per timestamp (the CSRBench layout).

``data_NN.ttl`` holds the event at application time ``NN * interval`` ms.
Each file is parsed only when the replay reaches it, so memory does not grow
with the number of files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.blanknodes import BlankNodes
from pytest_rspbench.stream.model import Event, Triple

_FORMATS = {
    "turtle": "text/turtle",
    "ntriples": "application/n-triples",
    "rdfxml": "application/rdf+xml",
}
_NUMBER = re.compile(r"(\d+)(?!.*\d)")


def file_per_timestamp(
    directory: Path, pattern: str, interval: int, fmt: str = "turtle"
) -> list[tuple[int, Path]]:
    """List ``(time, file)`` pairs: the last number in each file name times interval.

    Raises StreamError if no file matches or two files give the same time.
    """
    found: dict[int, Path] = {}
    for path in sorted(directory.glob(pattern)):
        match = _NUMBER.search(path.stem)
        if match is None:
            raise StreamError(
                f"{path}: file name has no number to take the timestamp from.\n"
                "HINT: name files like data_00.ttl, data_01.ttl, ..."
            )
        time = int(match.group(1)) * interval
        if time in found:
            raise StreamError(f"{path} and {found[time]} both map to t={time} ms.")
        found[time] = path
    if not found:
        raise StreamError(f"no file matches {pattern!r} in {directory}.")
    return sorted(found.items())


def read_rdf_file(path: Path, fmt: str = "turtle", scope: str = "") -> tuple[Triple, ...]:
    """Parse one RDF file into N-Triples term triples (document order).

    Anonymous blank nodes get labels from the file's bytes, ``scope`` and their
    order (:mod:`~pytest_rspbench.stream.blanknodes`): every read gives the
    same terms.
    """
    import pyoxigraph

    stable = BlankNodes(path, scope)
    try:
        quads = pyoxigraph.parse(path=str(path), format=_rdf_format(fmt))
        return tuple(
            (stable(str(q.subject)), str(q.predicate), stable(str(q.object))) for q in quads
        )
    except SyntaxError as exc:
        raise StreamError(f"{path}:{_position(exc)}: {fmt} syntax error: {exc}") from None
    except OSError as exc:
        raise StreamError(f"{path}: cannot read: {exc.strerror or exc}") from None


def events_from_files(files: list[tuple[int, Path]], fmt: str) -> Iterator[Event]:
    for time, path in files:
        # Scoped by time: equal files at two times hold different blank nodes.
        yield Event(time, read_rdf_file(path, fmt, scope=str(time)))


def _rdf_format(fmt: str) -> Any:
    import pyoxigraph

    return pyoxigraph.RdfFormat.from_media_type(_FORMATS[fmt])


def syntax_position(exc: SyntaxError) -> str:
    """``line:column`` of a pyoxigraph syntax error (also used for TriG)."""
    return _position(exc)


def _position(exc: SyntaxError) -> str:
    # pyoxigraph (0.5) reports 1-based "line L column C" in its message.
    match = re.search(r"line (\d+)[^\d]+(\d+)", str(exc))
    if match:
        return f"{match.group(1)}:{match.group(2)}"
    return f"{exc.lineno or 1}:{exc.offset or 1}"
