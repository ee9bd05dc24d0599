"""The parameters of each stream generator, as ``rspbench stream generators`` lists them.

Names and defaults come from the generator's settings dataclass (what
``open_source`` builds); the description and the allowed values from the
packaged spec schema, which states the same bounds as the generators' own
checks (:mod:`~pytest_rspbench.stream.parameters`), so the list says what a
spec may write.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import importlib
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.errors import StreamError


@dataclass(frozen=True)
class Parameter:
    """One generator parameter: its name, default, allowed values and meaning."""

    name: str
    default: str
    allowed: str
    description: str


def run(args: argparse.Namespace) -> int:
    """Print each generator (or the one named) with its parameters."""
    names = [args.name] if args.name else generator_names()
    for number, name in enumerate(names):
        check_name(name)
        print(("\n" if number else "") + f"{name}: {summary(name)}")
        for line in table(parameters(name)):
            print(f"  {line}")
    return 0


def table(rows: list[Parameter]) -> list[str]:
    """Two lines a parameter: name, default and allowed values; then its meaning."""
    width = max(len(r.name) for r in rows)
    lines = []
    for r in rows:
        lines.append(f"{r.name:<{width}}  default {r.default}; {r.allowed}".rstrip("; "))
        if r.description:
            lines.append(f"{'':<{width}}  {r.description}")
    return lines


def generator_names() -> list[str]:
    """The generators a spec's ``kind: generator`` source can name."""
    from pytest_rspbench.stream import sources

    return sorted(sources.GENERATORS)


def parameters(name: str) -> list[Parameter]:
    """The parameters of generator ``name``, in the order of its settings class."""
    properties = _schema_properties(name)
    out = []
    for field in dataclasses.fields(_settings_class(name)):
        described = properties.get(field.name, {})
        out.append(
            Parameter(
                field.name,
                _shown_default(field.default),
                allowed(described),
                described.get("description", ""),
            )
        )
    return out


def check_name(name: str) -> None:
    """StreamError with a did-you-mean when no generator is called ``name``."""
    names = generator_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        raise StreamError(
            f"unknown generator {name!r}; the generators are {', '.join(names)}.\n"
            "HINT: " + (f"did you mean {close[0]!r}?" if close else "use one of those names.")
        )


def summary(name: str) -> str:
    """The first line of the generator module's docstring."""
    module = importlib.import_module(_entry(name)[0])
    line = (module.__doc__ or name).strip().splitlines()[0]
    return line.removeprefix(f"``{name}``: ").replace("``", "")


def allowed(described: dict[str, Any]) -> str:
    """The values a parameter's schema allows, in words.

    >>> allowed({"anyOf": [{"type": "integer", "minimum": 1, "maximum": 10**6},
    ...                    {"$ref": "#/$defs/placeholder"}]})
    'whole number, 1 to 1,000,000'
    >>> allowed({"type": "number", "exclusiveMinimum": 1, "maximum": 1000})
    'number, above 1 to 1,000'
    >>> allowed({"enum": ["constant", "step"]})
    'one of constant, step'
    """
    options = [o for o in described.get("anyOf", [described]) if "placeholder" not in str(o)]
    words = [w for w in map(_option, options) if w]
    if len(words) == 2 and words[1] == "a list of " + words[0].removeprefix("one of "):
        return "one or a list of " + words[0].removeprefix("one of ")
    return "; or ".join(words)


def _option(option: dict[str, Any]) -> str:
    if "enum" in option:
        return "one of " + ", ".join(map(str, option["enum"]))
    if option.get("type") == "array":
        return "a list of " + _option(option.get("items", {})).removeprefix("one of ")
    if "$ref" in option and option["$ref"].endswith("/seed"):
        return "whole number (a Java long)"
    kind = {"integer": "whole number", "number": "number"}.get(option.get("type", ""), "")
    low = option.get("minimum", option.get("exclusiveMinimum"))
    high = option.get("maximum")
    if low is None or high is None:
        return kind
    above = "above " if "exclusiveMinimum" in option else ""
    return f"{kind}, {above}{low:,} to {high:,}"


def _shown_default(default: Any) -> str:
    if default is dataclasses.MISSING:
        return "(required)"
    if default is None:
        return "none"
    if isinstance(default, (tuple, list)):
        return ", ".join(map(str, default))
    return (
        f"{default:,}"
        if isinstance(default, int) and not isinstance(default, bool)
        else str(default)
    )


def _entry(name: str) -> tuple[str, str, str]:
    from pytest_rspbench.stream import sources

    check_name(name)
    return sources.GENERATORS[name]


def _settings_class(name: str) -> Any:
    module, settings_class, _ = _entry(name)
    return getattr(importlib.import_module(module), settings_class)


def _schema_properties(name: str) -> dict[str, Any]:
    """The spec schema's properties for a generator source named ``name``."""
    from pytest_rspbench.spec.validation import SPEC_SCHEMA, schema

    for rule in schema(SPEC_SCHEMA)["$defs"]["source"].get("allOf", []):
        condition = rule.get("if", {}).get("properties", {})
        if condition.get("name", {}).get("const") == name:
            return dict(rule.get("then", {}).get("properties", {}))
    return {}
