"""``rspbench validate``: check specs and engine profiles without running anything.

    rspbench validate specs/                      every spec and engine.yaml under it
    rspbench validate q1.rspbench.yaml            one spec and the engines it names
    rspbench validate engines/mine/engine.yaml    one engine profile

A folder is searched as pytest collects one: folders pytest skips by default
(hidden ones, ``node_modules``, ``build``, virtualenvs ...) are left out.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import RspbenchError, SpecError

SPEC_SUFFIXES = (".rspbench.yaml", ".rspbench.yml")
ENGINE_NAMES = ("engine.yaml", "engine.yml")
# pytest's default norecursedirs, so a folder means what `pytest DIR` collects.
SKIPPED = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


def add_commands(commands: Any) -> None:
    """Register ``rspbench validate`` on the top-level subparsers."""
    validate = commands.add_parser(
        "validate",
        help="check specs and engine profiles, list the cases",
        description="Check spec files (*.rspbench.yaml) and engine profiles "
        "(engine.yaml) as pytest would at collection, without starting Spark or "
        "an engine. A spec's engines are loaded and checked too. A folder stands "
        "for every spec and engine.yaml under it. Exit status 1 if any is wrong.",
    )
    validate.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a spec, an engine.yaml, or a folder of them",
    )
    validate.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.paths:
        try:
            targets = list(expand(path))
        except RspbenchError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        for target in targets:
            failed += not check(target)
    return 1 if failed else 0


def expand(path: Path) -> Iterator[Path]:
    """``path`` itself, or the specs and engine profiles under a folder, sorted."""
    if not path.is_dir():
        yield path
        return
    found = sorted(_walk(path))
    if not found:
        raise SpecError(
            f"{path}: no *.rspbench.yaml or engine.yaml under this folder.\n"
            "HINT: name spec files like q1.rspbench.yaml, or give their paths."
        )
    yield from found


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in SKIPPED)]
        for name in files:
            if name.endswith(SPEC_SUFFIXES) or name in ENGINE_NAMES:
                yield Path(folder) / name


def is_engine_profile(path: Path) -> bool:
    """Whether ``path`` is an engine.yaml rather than a spec.

    By its name (``engine.yaml``, ``*.engine.yaml``), or for other names by a
    top-level ``adapter:`` key without ``rspbench:``.
    """
    name = path.name
    if name.endswith(SPEC_SUFFIXES):
        return False
    if name in ENGINE_NAMES or name.endswith((".engine.yaml", ".engine.yml")):
        return True
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False  # the spec loader says what is wrong with it
    keys = {line.partition(":")[0] for line in lines if line[:1].isalpha()}
    return "adapter" in keys and "rspbench" not in keys


def check(path: Path) -> bool:
    """Validate one file and print what it holds, or its errors; True if valid."""
    try:
        lines = _engine(path) if is_engine_profile(path) else _spec(path)
    except RspbenchError as exc:
        print(exc, file=sys.stderr)
        return False
    for line in lines:
        print(line)
    if not is_engine_profile(path):
        for warning in vague_known_failures(path):
            print(warning, file=sys.stderr)
    return True


def vague_known_failures(path: Path) -> list[str]:
    """A warning per ``known_failures`` entry that names no departures: it
    expects any failure of its items, so a new bug in them would hide."""
    from pytest_rspbench.spec.judging import vague_known_failures as vague

    return vague(path)


def _engine(path: Path) -> list[str]:
    from pytest_rspbench.cli.engines import describe
    from pytest_rspbench.engine.profiles import load_profile
    from pytest_rspbench.spec.known import beside, known_cases

    profile = load_profile(path.resolve())
    known = known_cases(path.resolve())  # checked too: a SpecError at its file:line
    lines = [f"{path}: ok, engine {profile.name}"] + [
        f"  {line}"
        for line in describe(profile)[:-1]  # not the path again
    ]
    if known:
        lines.append(f"  known failures: {len(known)} in {beside(path)}")
    return lines


def _spec(path: Path) -> list[str]:
    from pytest_rspbench.engine.profiles import identify, resolve
    from pytest_rspbench.spec.loader import load_spec

    named: dict[str, Path] = {}  # the engines as the spec writes them, and its folder

    def check(name: str, base_dir: Path) -> str:
        # As at collection: the profile is loaded, its name is the engine's
        # identity in the case ids, and a bad profile is an error at the spec's
        # engines line that quotes the profile's own.
        named[name] = base_dir
        return identify(name, base_dir)

    spec = load_spec(path, check_engine=check)
    lines = [f"{path}: ok, {len(spec.cases)} case(s)"]
    lines += [f"  {spec.name}[{case.case_id}]" for case in spec.cases]
    profiles = [resolve(name, base) for name, base in named.items()]
    return lines + [f"  engine {p.name}: {p.path}" for p in profiles]
