"""Every command's ``-h`` says what it does, and the top-level help lists them all."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from pytest_rspbench.cli import _parser, main


def _commands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[prefix + name] = sub
                found |= _commands(sub, f"{prefix}{name} ")
    return found


COMMANDS = _commands(_parser())


def test_the_commands() -> None:
    assert sorted(COMMANDS) == [
        "cache",
        "cache info",
        "cache prune",
        "engines",
        "explore",
        "fingerprint",
        "init",
        "matrix",
        "oracle",
        "report",
        "schema",
        "spark",
        "spark serve",
        "spark status",
        "spark stop",
        "stream",
        "stream generate",
        "stream generators",
        "stream stats",
        "validate",
    ]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_a_description(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``rspbench validate -h`` and ``engines -h`` had only a usage line."""
    description = COMMANDS[command].description
    assert description, command
    with pytest.raises(SystemExit) as exited:
        main([*command.split(), "-h"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    first = " ".join(description.split()[:4])
    assert first in " ".join(out.split())


# Options whose help does not say its default yet, by command (not in cli/).
WITHOUT_DEFAULT: dict[str, str] = {}


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=WITHOUT_DEFAULT[c], strict=True))
        if c in WITHOUT_DEFAULT
        else c
        for c in sorted(COMMANDS)
    ],
)
def test_every_option_help_ends_with_its_default(command: str) -> None:
    """House style: an option's help says its default (pytest-benchmark)."""
    for action in COMMANDS[command]._actions:
        if action.option_strings and action.help and action.help != argparse.SUPPRESS:
            if action.dest in ("help", "version") or action.required:
                continue
            assert "default" in action.help, (command, action.option_strings)


def test_docs_cli_md_lists_every_command() -> None:
    """docs/cli.md's table names each command (the ``stream``, ``spark`` and ``cache``
    groups by their actions)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    named = re.findall(r"^\| `rspbench ([a-z]+(?: [a-z]+)?)", text, re.MULTILINE)
    assert sorted(named) == sorted(set(COMMANDS) - {"stream", "spark", "cache"})
