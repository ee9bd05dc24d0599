"""Safe YAML loading that remembers where every value came from.

Specs are data: only YAML's safe types are built (no Python objects). Each
value's source line is kept under its JSON path, so a schema error can point at
``file:line`` and quote the lines around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from pytest_rspbench.errors import SpecError

Path_ = tuple[str | int, ...]
MAX_NODES = 100_000


@dataclass(frozen=True)
class Document:
    """A parsed YAML document and the 1-based line of every path in it."""

    data: Any
    lines: dict[Path_, int]
    key_lines: dict[Path_, int]
    text: str

    def line_of(self, path: Path_) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)


def parse_document(text: str, filename: str) -> Document:
    """Parse YAML text; raise SpecError (with line) on any YAML problem."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None, {(): 1}, {}, text)
        lines: dict[Path_, int] = {}
        key_lines: dict[Path_, int] = {}
        _walk(node, (), lines, key_lines, filename, [0], set())
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or exc.context or "YAML syntax error"
        raise SpecError(
            f"{filename}:{line}: YAML syntax error: {problem}",
            filename,
            line,
        ) from None
    except (yaml.YAMLError, RecursionError, ValueError, TypeError, OverflowError) as exc:
        raise SpecError(f"{filename}:1: cannot read YAML: {exc}", filename, 1) from None
    finally:
        loader.dispose()
    return Document(data, lines, key_lines, text)


def _walk(
    node: yaml.Node,
    path: Path_,
    lines: dict[Path_, int],
    key_lines: dict[Path_, int],
    filename: str,
    count: list[int],
    active: set[int],
) -> None:
    count[0] += 1
    if count[0] > MAX_NODES or len(path) > 64 or id(node) in active:
        # Aliases can make a document explode or loop; specs never need that.
        raise SpecError(
            f"{filename}:{node.start_mark.line + 1}: the YAML is too deeply nested, "
            "recursive or large for a spec.\nHINT: write the values out instead of "
            "using anchors and aliases.",
            filename,
            node.start_mark.line + 1,
        )
    lines[path] = node.start_mark.line + 1
    active.add(id(node))
    if isinstance(node, yaml.MappingNode):
        _walk_mapping(node, path, lines, key_lines, filename, count, active)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, key_lines, filename, count, active)
    active.discard(id(node))


def _walk_mapping(node, path, lines, key_lines, filename, count, active) -> None:  # type: ignore[no-untyped-def]
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = key_node.value
        line = key_node.start_mark.line + 1
        if key in seen and key != "<<":
            raise SpecError(
                f"{filename}:{line}: key {key!r} appears twice in the same mapping "
                f"(first on line {seen[key]}).\nHINT: remove one of them; YAML "
                "would silently keep only the last.",
                filename,
                line,
            )
        seen[key] = line
        key_lines[(*path, key)] = line
        _walk(value_node, (*path, key), lines, key_lines, filename, count, active)
