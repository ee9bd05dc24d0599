"""JSON Schema validation of specs, turned into located, actionable errors."""

from __future__ import annotations

import functools
import json
import math
import re
from importlib import resources
from typing import Any

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.located import Document, Path_

SPEC_SCHEMA = "spec-v1.schema.json"
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_]\w*\}")
ENGINE_SCHEMA = "engine-v1.schema.json"


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """A schema shipped inside the package."""
    text = resources.files("pytest_rspbench").joinpath("schemas", name).read_text("utf-8")
    return json.loads(text)


@functools.cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry = Registry().with_resources(
        (schema(n)["$id"], Resource.from_contents(schema(n))) for n in (SPEC_SCHEMA, ENGINE_SCHEMA)
    )
    return Draft202012Validator(schema(name), registry=registry)


def validate(document: Document, filename: str, name: str = SPEC_SCHEMA) -> None:
    """Raise SpecError for the most relevant schema violation, if any."""
    from jsonschema.exceptions import best_match

    _check_keys(document.data, document, filename, (), name)
    error = best_match(_validator(name).iter_errors(document.data))
    if error is not None:
        raise _explain(error, document, filename)


def _check_keys(value: Any, document: Document, filename: str, path: Path_, name: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise spec_error(
                    filename,
                    document,
                    path,
                    f"key {key!r} is not a string.",
                    "quote it, e.g. '\"on\": ...': YAML reads unquoted numbers and "
                    "yes/no/on/off/true/false as numbers and booleans.",
                    line=document.key_lines.get((*path, str(key))) or document.line_of(path),
                )
            _check_keys(item, document, filename, (*path, key), name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_keys(item, document, filename, (*path, index), name)
    elif isinstance(value, float) and not math.isfinite(value):
        # JSON has no infinity or NaN and no setting takes them; comparisons
        # with NaN are all false, so range checks alone would let it through.
        written = ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
        raise spec_error(
            filename,
            document,
            path,
            f"{written} is not a finite number.",
            "write a finite number: .inf, -.inf and .nan (YAML's infinity and "
            "not-a-number) are not values a spec or profile can take" + _range_of(path, name) + ".",
        )


def _range_of(path: Path_, name: str = SPEC_SCHEMA) -> str:
    """``"; here: a number from 0 to 1000000"`` for the value at ``path``."""
    nodes = [schema(name)]
    for part in path:
        nodes = [child for node in nodes for child in _children(node, part, name)]
    while nodes:
        node = nodes.pop(0)
        if "$ref" in node:
            nodes.append(_resolve(node["$ref"], name))
        for combinator in ("allOf", "anyOf", "oneOf"):
            nodes += [n for n in node.get(combinator, []) if isinstance(n, dict)]
        low = node.get("minimum", node.get("exclusiveMinimum"))
        high = node.get("maximum", node.get("exclusiveMaximum"))
        if low is not None or high is not None:
            return "; here: " + _span(node)
    return ""


def _children(node: Any, key: str | int, name: str) -> list[dict[str, Any]]:
    """The subschemas that may apply to ``node``'s child ``key`` (a rough walk:
    every branch of allOf/anyOf/oneOf and every ``then`` is taken)."""
    out: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        here = stack.pop()
        if not isinstance(here, dict):
            continue
        if "$ref" in here:
            stack.append(_resolve(here["$ref"], name))
        for combinator in ("allOf", "anyOf", "oneOf"):
            stack += here.get(combinator, [])
        stack.append(here.get("then"))
        if isinstance(key, int):
            out.append(here.get("items"))  # type: ignore[arg-type]
        elif key in here.get("properties", {}):
            out.append(here["properties"][key])
        elif isinstance(here.get("additionalProperties"), dict):
            out.append(here["additionalProperties"])
    return [child for child in out if isinstance(child, dict)]


def _resolve(ref: str, name: str) -> Any:
    where, _, pointer = ref.partition("#")
    document = next(
        (schema(n) for n in (SPEC_SCHEMA, ENGINE_SCHEMA) if schema(n)["$id"] == where),
        schema(name),
    )
    for part in pointer.strip("/").split("/") if pointer.strip("/") else []:
        document = document.get(part, {})
    return document


def _span(node: dict[str, Any]) -> str:
    """``a number from 0 to 1,000,000`` from a schema's bounds."""
    kind = "a whole number" if node.get("type") == "integer" else "a number"
    if "minimum" in node:
        low = f" from {_number(node['minimum'])}"
    elif "exclusiveMinimum" in node:
        low = f" above {_number(node['exclusiveMinimum'])}"
    else:
        low = ""
    if "maximum" in node:
        joint = "to" if "minimum" in node else "and at most" if low else "up to"
        high = f" {joint} {_number(node['maximum'])}"
    elif "exclusiveMaximum" in node:
        high = f" {'and ' if low else ''}below {_number(node['exclusiveMaximum'])}"
    else:
        high = ""
    return kind + low + high


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    return str(value)


def _explain(error: Any, document: Document, filename: str) -> SpecError:
    path = tuple(error.absolute_path)
    kind = error.validator
    schema_here = error.schema if isinstance(error.schema, dict) else {}
    if "propertyNames" in error.schema_path:
        return _bad_name(error, document, filename, path)
    if kind == "additionalProperties":
        allowed = sorted(schema_here.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        key = extra[0] if extra else "?"
        return spec_error(
            filename,
            document,
            (*path, key),
            f"unknown key {key!r}.",
            f"remove it or use one of: {', '.join(allowed)}." + did_you_mean(key, allowed),
        )
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return spec_error(
            filename,
            document,
            path,
            f"required key {missing!r} is missing.",
            f"add '{missing}: ...'" + _describe(error, missing),
        )
    if kind == "enum":
        choices = [str(c) for c in error.validator_value]
        return spec_error(
            filename,
            document,
            path,
            f"{error.instance!r} is not allowed here.",
            f"use one of: {', '.join(choices)}.{did_you_mean(error.instance, choices)}",
        )
    if kind == "const" and path == ("rspbench",):
        return spec_error(
            filename,
            document,
            path,
            f"spec format {error.instance!r} is not supported by this version.",
            "set 'rspbench: 1' (this version of pytest-rspbench reads format 1).",
        )
    if kind == "type":
        value = error.validator_value
        types: list[str] = value if isinstance(value, list) else [value]
        expected = " or ".join(_JSON_TYPES.get(t, t) for t in types)
        hint = _type_hint(types, expected, schema_here)
        if isinstance(error.instance, str) and _PLACEHOLDER.fullmatch(error.instance):
            hint = (
                f"write {expected} here: a ${{...}} placeholder works only in the "
                "query and in source values the schema leaves open "
                "(e.g. generator parameters)." + _about(schema_here)
            )
        return spec_error(
            filename,
            document,
            path,
            f"expected {expected}, got {_type_name(error.instance)} {_short(error.instance)}.",
            hint,
        )
    if error.parent is not None and _is_placeholder(schema_here):
        return _not_value_nor_placeholder(error.parent, document, filename, path)
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return spec_error(
            filename,
            document,
            path,
            f"{_short(error.instance)} is out of range: expected {_span(schema_here)}.",
            f"write {_span(schema_here)}." + _about(schema_here),
        )
    if kind in ("oneOf", "anyOf"):
        return _no_alternative(error, document, filename, path, schema_here)
    if kind == "minItems":
        return spec_error(
            filename,
            document,
            path,
            f"expected a list of at least {error.validator_value} item(s), got an empty list.",
            (
                "give the parameter at least one value, e.g. '[10000]', or remove it."
                if path[:1] == ("matrix",)
                else "list at least one item here."
            )
            + _about(schema_here),
        )
    return spec_error(
        filename,
        document,
        path,
        error.message + ".",
        schema_here.get("description") or "see docs/spec-format.md for this key.",
    )


def _is_placeholder(node: Any) -> bool:
    placeholder = schema(SPEC_SCHEMA)["$defs"]["placeholder"]
    return isinstance(node, dict) and node.get("pattern") == placeholder["pattern"]


def _not_value_nor_placeholder(
    alternatives: Any, document: Document, filename: str, path: Path_
) -> SpecError:
    """A value that is neither what a key takes nor a ``${name}`` placeholder
    (the schema's ``anyOf: [<value>, placeholder]``)."""
    expected = []
    for option in alternatives.validator_value:
        option = {**_resolve(option["$ref"], SPEC_SCHEMA), **option} if "$ref" in option else option
        if _is_placeholder(option):
            continue
        if "enum" in option:
            expected.append("one of " + ", ".join(str(c) for c in option["enum"]))
        elif option.get("type") in ("number", "integer"):
            expected.append(_span(option))
        elif "type" in option:
            expected.append(_JSON_TYPES.get(option["type"], option["type"]))
    wanted = " or ".join(expected)
    return spec_error(
        filename,
        document,
        path,
        f"expected {wanted}, or a ${{name}} placeholder; got {_type_name(alternatives.instance)} "
        f"{_short(alternatives.instance)}.",
        f"write {wanted}, or '${{name}}' with 'name: [...]' under 'matrix:'."
        + _about(alternatives.schema if isinstance(alternatives.schema, dict) else {}),
    )


def _bad_name(error: Any, document: Document, filename: str, path: Path_) -> SpecError:
    name = error.instance
    if path == ("matrix",) and name == "engine":
        return spec_error(
            filename,
            document,
            (*path, name),
            "'engine' cannot be a matrix parameter: every case already runs once per engine.",
            "list the engines under 'engines:' (or use --rspbench-engine) and "
            "remove 'engine' from 'matrix:'.",
        )
    return spec_error(
        filename,
        document,
        (*path, name),
        f"{name!r} is not allowed as a name here ({error.message}).",
        "start with a letter or '_' and use only letters, digits and '_', "
        "so that ${name} placeholders can refer to it.",
    )


def _no_alternative(
    error: Any, document: Document, filename: str, path: Path_, schema_here: Any
) -> SpecError:
    choices: list[str] = []
    for option in error.validator_value:
        if "$ref" in option:
            option = {**_resolve(option["$ref"], SPEC_SCHEMA), **option}
        choices += [str(c) for c in option.get("enum", [])]
        if "type" in option:
            choices.append(_JSON_TYPES.get(option["type"], option["type"]))
    return spec_error(
        filename,
        document,
        path,
        f"{_short(error.instance)} is not allowed here.",
        f"use one of: {', '.join(choices)}."
        + did_you_mean(str(error.instance), choices)
        + _about(schema_here),
    )


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _about(schema_here: dict[str, Any]) -> str:
    description = schema_here.get("description")
    return f" ({description})" if description else ""


def _describe(error: Any, key: str) -> str:
    prop = error.schema.get("properties", {}).get(key, {}) if isinstance(error.schema, dict) else {}
    description = prop.get("description") if isinstance(prop, dict) else None
    return f" ({description})" if description else " (see docs/spec-format.md)"


_JSON_TYPES = {
    "array": "a list",
    "object": "a mapping",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
}


def _type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "nothing",
    }.get(type(value), type(value).__name__)


def _type_hint(types: list[str], expected: str, schema_here: dict[str, Any]) -> str:
    base = (
        {
            "array": "write a YAML list, one '- item' per line.",
            "object": "write a mapping of 'key: value' lines, indented under this key.",
            "string": 'quote the value, e.g. "...".',
            "integer": "write a whole number without quotes (milliseconds for times).",
            "number": "write a number without quotes.",
            "boolean": "write true or false.",
        }.get(types[0], "")
        if len(types) == 1
        else ""
    )
    return (base or f"write {expected} here.") + _about(schema_here)
