"""Safe YAML loading that remembers where every value came from.

Specs are data: only YAML's safe types are built (no Python objects). Each
value's source line is kept under its JSON path, so a schema error can point at
``file:line`` and quote the lines around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.diagnostics import quote, spec_error
from pytest_rspbench.spec.located import Document, Path_

MAX_NODES = 100_000
# libyaml's loader is ~10x faster; it builds the same safe types and marks.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SAFE_TAGS = frozenset(yaml.SafeLoader.yaml_constructors) - {None}


def parse_document(text: str, filename: str) -> Document:
    """Parse YAML text; raise SpecError (with line) on any YAML problem."""
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return Document(None, {(): 1}, {}, text)
        lines: dict[Path_, int] = {}
        key_lines: dict[Path_, int] = {}
        _walk(node, (), lines, key_lines, _Walk(loader, filename, text))
        data = loader.construct_document(node)
    except SpecError:
        raise
    except yaml.reader.ReaderError as exc:
        raise _character_error(exc, text, filename) from None
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, filename) from None
    except (
        yaml.YAMLError,
        RecursionError,
        ValueError,
        TypeError,
        OverflowError,
    ) as exc:
        raise SpecError(f"{filename}:1: cannot read YAML: {exc}", filename, 1) from None
    finally:
        if loader is not None:
            loader.dispose()
    return Document(data, lines, key_lines, text)


@dataclass
class _Walk:
    loader: yaml.SafeLoader
    filename: str
    text: str
    count: int = 0

    def error(self, path: Path_, line: int, problem: str, hint: str) -> SpecError:
        document = Document(None, {(): line}, {}, self.text)
        return spec_error(self.filename, document, path, problem, hint, line=line)


def _walk(
    node: yaml.Node,
    path: Path_,
    lines: dict[Path_, int],
    key_lines: dict[Path_, int],
    walk: _Walk,
    active: frozenset[int] = frozenset(),
) -> None:
    walk.count += 1
    line = node.start_mark.line + 1
    if walk.count > MAX_NODES or len(path) > 64 or id(node) in active:
        # Aliases can make a document explode or loop; specs never need that.
        raise walk.error(
            path,
            line,
            "the YAML is too deeply nested, recursive or large for a spec.",
            "write the values out instead of using anchors and aliases.",
        )
    lines[path] = line
    _check_tag(node, path, line, walk)
    if isinstance(node, yaml.MappingNode):
        _walk_mapping(node, path, lines, key_lines, walk, active | {id(node)})
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, key_lines, walk, active | {id(node)})
    else:
        _check_scalar(node, path, line, walk)


def _check_tag(node: yaml.Node, path: Path_, line: int, walk: _Walk) -> None:
    # Refuse tags such as !!python/object/apply before anything is constructed.
    if node.tag == "tag:yaml.org,2002:value":
        raise walk.error(path, line, "a bare '=' is not a YAML value.", "quote it: '='.")
    if node.tag not in _SAFE_TAGS:
        raise walk.error(
            path,
            line,
            f"the YAML tag {str(node.tag).replace('tag:yaml.org,2002:', '!!')!r} is not "
            "allowed: a spec holds plain data.",
            "remove the tag; specs never create Python objects.",
        )


def _check_scalar(node: yaml.Node, path: Path_, line: int, walk: _Walk) -> None:
    # Build each scalar here so a bad !!int or date names its own line.
    try:
        walk.loader.construct_object(node)
    except (ValueError, OverflowError, yaml.YAMLError) as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        raise walk.error(
            path,
            line,
            f"cannot read the value {node.value!r}: {problem}.",
            "quote the value to keep it as a string, or fix it.",
        ) from None


def _walk_mapping(
    node: yaml.MappingNode,
    path: Path_,
    lines: dict[Path_, int],
    key_lines: dict[Path_, int],
    walk: _Walk,
    active: frozenset[int],
) -> None:
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = key_node.value
        line = key_node.start_mark.line + 1
        if key in seen and key != "<<":
            raise walk.error(
                (*path, key),
                line,
                f"key {key!r} appears twice in the same mapping (first on line {seen[key]}).",
                "remove one of them; YAML would silently keep only the last.",
            )
        seen[key] = line
        key_lines[(*path, key)] = line
        _walk(value_node, (*path, key), lines, key_lines, walk, active)


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, filename: str) -> SpecError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    problem = exc.problem or exc.context or "YAML syntax error"
    context = exc.context or ""
    lines = text.splitlines()
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    hint = _SYNTAX_HINTS[_hint_key(problem, here)]
    opened = exc.context_mark
    if opened and exc.problem_mark and context.startswith(_UNCLOSED):
        # The parser gives up where the next key starts; the fix belongs where
        # the bracket or quote was opened.
        what = "quote" if "quoted" in context else ("'['" if "sequence" in context else "'{'")
        problem = (
            f"the {what} opened on this line is not closed "
            f"(line {exc.problem_mark.line + 1}: {problem})"
        )
        line = opened.line + 1
        hint = _SYNTAX_HINTS["quoted" if "quoted" in context else "flow"]
    message = f"{filename}:{line}: YAML syntax error: {problem}"
    quoted = quote(text, line) if text.strip() else ""
    message += ("\n" + quoted if quoted else "") + f"\nHINT: {hint}"
    return SpecError(message, filename, line)


def _character_error(exc: yaml.reader.ReaderError, text: str, filename: str) -> SpecError:
    # libyaml reports a byte offset, PyYAML a character offset: find it again.
    found = yaml.reader.Reader.NON_PRINTABLE.search(text)
    offset, character = (found.start(), ord(found.group())) if found else (0, exc.character)
    line = text.count("\n", 0, offset) + 1
    message = (
        f"{filename}:{line}: YAML syntax error: the control character "
        f"{character:#06x} is not allowed in YAML.\n{quote(text, line)}\n"
        "HINT: delete it (it may come from a copy and paste); write it as an "
        "escape such as \\t inside a double-quoted string if you need it."
    )
    return SpecError(message, filename, line)


_UNCLOSED = ("while parsing a flow", "while scanning a quoted scalar")
_SYNTAX_HINTS = {
    "": "check this line and the one above: indentation, an unclosed quote or "
    "bracket, or ': ' inside an unquoted value.",
    "flow": "close it on the same line (']' or '}'), or write one '- item' per line.",
    "quoted": "add the closing quote.",
    "tab": "indent with spaces; YAML does not allow tabs.",
    "indent": "check the indentation: keys of one mapping start in the same "
    "column, and list items need '- '.",
    "colon": "quote a value that contains ': ', or fix the indentation of this key.",
    "alias": "define the anchor ('&name') before using it ('*name'), or write the value out.",
}


def _hint_key(problem: str, line: str) -> str:
    # PyYAML and libyaml word their messages differently; match both.
    if "\t" in line[: len(line) - len(line.lstrip())] or "'\\t'" in problem:
        return "tab"
    for needle, key in (
        ("<block end>", "indent"),
        ("expected '-' indicator", "indent"),
        ("mapping values are not allowed", "colon"),
        ("undefined alias", "alias"),
    ):
        if needle in problem:
            return key
    return ""
