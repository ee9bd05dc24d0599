"""Stable labels for anonymous blank nodes (``[]``, ``[ ... ]``, collections).

pyoxigraph labels each anonymous blank node of a Turtle, TriG or RDF/XML file
with a fresh random number on every parse. A stream is read more than once (to
replay it into the engine, to build the oracle's input, from the stream cache),
so each read would see other terms, and a correct engine would fail.

:class:`BlankNodes` gives them labels that depend only on the file's bytes,
an optional scope (a ``files`` stream's event time, so two equal files at two
times keep their nodes apart) and the order in which the parser meets them, a
stable skolemisation::

    [ ex:p 1 ]           ->  _:a5d41402abc4bt2000n0   (file digest, time, number)

Labels the author wrote (``_:b1``, ``rdf:nodeID="b1"``) are kept as written.
Only terms shaped like pyoxigraph's random labels (25 to 32 hex digits) are
looked at, and the file is scanned for written labels only when one appears,
so files without anonymous blank nodes cost nothing more.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

_RANDOM = re.compile(r"_:[0-9a-f]{25,32}")
_WRITTEN = re.compile(rb"(?:_:|nodeID\s*=\s*[\"'])([0-9a-f]{25,32})")


class BlankNodes:
    """Relabels the anonymous blank nodes of one file, the same way on every read.

    >>> nodes = BlankNodes(Path("x.ttl"), "0", data=b"<a> <b> [] .")
    >>> nodes("_:3f2a9c0b1d4e5f60718293a4b5c6d7e8"), nodes("_:b1")
    ('_:af38fe0281d68t0n0', '_:b1')
    >>> nodes("_:3f2a9c0b1d4e5f60718293a4b5c6d7e8")  # the same node, the same label
    '_:af38fe0281d68t0n0'
    """

    def __init__(self, path: Path, scope: str = "", data: bytes | None = None) -> None:
        self.path = path
        self.scope = f"t{scope}" if scope else ""
        self.data = data
        self.labels: dict[str, str] = {}
        self.prefix = ""
        self.written: set[str] | None = None

    def __call__(self, term: str) -> str:
        """``term`` with a stable label if it is an anonymous blank node."""
        if term[:2] != "_:" or not _RANDOM.fullmatch(term):
            return term
        label = self.labels.get(term)
        if label is None:
            if self.written is None:
                self._scan()
            written = term[2:] in self.written  # type: ignore[operator]
            label = term if written else f"_:{self.prefix}n{len(self.labels)}"
            self.labels[term] = label
        return label

    def _scan(self) -> None:
        """The file's digest (the label prefix) and the hex labels written in it."""
        digest = hashlib.sha256()
        written: set[str] = set()
        for block in self._blocks():
            digest.update(block)
            written.update(m.decode("ascii") for m in _WRITTEN.findall(block))
        self.prefix = f"a{digest.hexdigest()[:12]}{self.scope}"
        self.written = written

    def _blocks(self) -> Iterator[bytes]:
        if self.data is not None:
            yield self.data
            return
        with open(self.path, "rb") as data:
            # Line by line, so a label is never cut in two; lines of a huge
            # file are read one at a time.
            yield from data
