"""``rspbench schema``: where the packaged JSON Schemas are, for editors.

    rspbench schema               the spec schema's path
    rspbench schema engine        the engine.yaml schema's path
    rspbench schema spec --print  its text

An editor with the YAML language server (VS Code's YAML extension, Neovim,
Helix, JetBrains IDEs) then checks and completes a spec as it is typed, from
a first line ``# yaml-language-server: $schema=<path>`` (docs/cli.md).
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import Any

# The files in pytest_rspbench/schemas/, by what they describe.
SCHEMAS = {"spec": "spec-v1.schema.json", "engine": "engine-v1.schema.json"}


def add_commands(commands: Any) -> None:
    """Register ``rspbench schema`` on the top-level subparsers."""
    schema = commands.add_parser(
        "schema",
        help="print the path of the JSON Schema for specs or engine.yaml",
        description="Print the path of a JSON Schema shipped with pytest-rspbench, "
        "for an editor's YAML language server: put "
        "'# yaml-language-server: $schema=PATH' on a spec's first line. "
        "The schemas follow the installed version.",
    )
    schema.add_argument(
        "kind",
        nargs="?",
        choices=sorted(SCHEMAS),
        default="spec",
        help="spec (*.rspbench.yaml) or engine (engine.yaml) (default: spec)",
    )
    schema.add_argument(
        "--print",
        action="store_true",
        dest="show",
        help="print the schema's JSON text instead of its path (default: the path)",
    )
    schema.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = schema_path(args.kind)
    if args.show:
        sys.stdout.write(path.read_text(encoding="utf-8"))
    else:
        print(path)
    return 0


def schema_path(kind: str) -> Path:
    """The file of the ``spec`` or ``engine`` schema in the installed package.

    >>> schema_path("spec").name
    'spec-v1.schema.json'
    """
    with resources.as_file(
        resources.files("pytest_rspbench").joinpath("schemas", SCHEMAS[kind])
    ) as path:
        return Path(path).resolve()
