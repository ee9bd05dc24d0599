"""Spec error messages people can act on.

Every message names ``file:line``, the JSON path, what is wrong, quotes the
YAML around the line and ends with a ``HINT:`` (learned from pytest's HINT
messages and tavern's schema errors).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.located import Document, Path_


class SpecWarning(UserWarning):
    """A spec that runs but may not test what its author meant: shown in
    pytest's warnings summary at the spec's ``file:line`` (filter it with
    ``-W ignore::pytest_rspbench.spec.diagnostics.SpecWarning``)."""


def json_path(path: Path_) -> str:
    """``('streams', 0, 'iri')`` -> ``$.streams[0].iri``."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def quote(text: str, line: int, context: int = 2, column: int | None = None) -> str:
    """Lines ``line-context .. line+context`` with numbers; the line is marked,
    and with ``column`` (1-based) a ``^`` under that column follows it.

    >>> print(quote("a: 1\\nb: [2\\nc: 3", 2, context=1, column=5))
        1 | a: 1
      > 2 | b: [2
          |     ^
        3 | c: 3
    """
    lines = text.splitlines()
    first = max(1, line - context)
    last = min(len(lines), line + context)
    width = len(str(last))
    out = []
    for number in range(first, last + 1):
        marker = ">" if number == line else " "
        out.append(f"  {marker} {number:>{width}} | {lines[number - 1]}")
        if number == line and column:
            out.append(f"    {'':>{width}} | {' ' * (column - 1)}^")
    return "\n".join(out)


def spec_error(
    filename: str,
    document: Document,
    path: Path_,
    problem: str,
    hint: str,
    line: int | None = None,
    column: int | None = None,
) -> SpecError:
    """Build the SpecError for ``problem`` at ``path`` (or an explicit line,
    and column: ``file:line:column:``, with a ``^`` under it in the quote)."""
    if line is None:
        line = document.key_lines.get(path) or document.line_of(path)
    where = json_path(path)
    place = f"{line}:{column}" if column else f"{line}"
    message = f"{filename}:{place}: {where}: {problem}"
    quoted = quote(document.text, line, column=column) if document.text.strip() else ""
    if quoted:
        message += "\n" + quoted
    message += f"\nHINT: {hint}"
    return SpecError(message, filename, line)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" Did you mean 'range'?"`` when a choice is close, else ``""``."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""
