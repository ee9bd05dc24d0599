"""A parsed spec document and the line every value came from.

:mod:`.document` builds it from YAML text; :mod:`.diagnostics`,
:mod:`.validation` and :mod:`.loader` read it to point an error at
``file:line``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Path_ = tuple[str | int, ...]
"""A JSON path into the document: ``("streams", 0, "iri")``."""


@dataclass(frozen=True)
class Document:
    """A parsed YAML document and the 1-based line of every path in it."""

    data: Any
    lines: dict[Path_, int]
    key_lines: dict[Path_, int]
    text: str

    def line_of(self, path: Path_) -> int:
        """The line of ``path``, or of its nearest ancestor that has one.

        >>> Document({}, {(): 1, ("a",): 3}, {}, "").line_of(("a", 0, "b"))
        3
        """
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)
