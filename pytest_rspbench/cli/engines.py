"""``rspbench engines``: the engines specs can name, with their semantics."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_rspbench.engine.profiles import EngineProfile


def add_engine_argument(command: argparse.ArgumentParser) -> None:
    """``-e/--engine NAME|PATH``, the one engine a command runs (fingerprint, explore)."""
    command.add_argument(
        "-e",
        "--engine",
        required=True,
        metavar="NAME|PATH",
        help="a registered engine name (rspbench engines lists them) or a path to "
        "an engine.yaml, relative to the current folder (required)",
    )


def add_commands(commands: Any) -> None:
    """Register ``rspbench engines`` on the top-level subparsers."""
    engines = commands.add_parser(
        "engines",
        help="list registered engines and their semantics",
        description="List the engines registered through the rspbench.engines entry "
        "points: the names a spec's engines: list and --rspbench-engine take, each "
        "with its semantics and the engine.yaml it comes from.",
    )
    engines.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.engine.profiles import registered, resolve

    for name in sorted(registered()):
        profile = resolve(name, Path.cwd())
        print(f"{name}: {profile.description}")
        for line in describe(profile):
            print(f"  {line}")
    return 0


def describe(profile: EngineProfile) -> list[str]:
    """Lines that sum up a profile: its semantics and where it is written."""
    s = profile.semantics
    lines = [
        f"bounds {s.bounds}, t0 {s.t0}, report {'+'.join(s.report)}, tick {s.tick}, "
        f"r2s {'/'.join(s.r2s)}, empty relations {'on' if s.empty_relations else 'off'}",
    ]
    if s.windows != ("time",):  # docs/count-and-session-windows.md
        lines.append(f"windows {'/'.join(s.windows)}")
    return [*lines, f"adapter: {profile.adapter}", f"profile: {profile.path}"]
