"""One-time engine setup (``npm ci``, ``mvn package``), cached on a hash.

The setup runs in a folder of its own under the cache directory, named after
the engine and the hash of its setup command and ``key`` files (a lockfile):
the ``key`` files are copied there first and the command runs there once.
Later runs with the same key reuse it (the engine's command finds it as
``{setup_dir}``); a changed lockfile gets a new folder. Engine folders stay
clean, and parallel sessions wait for each other on a lock file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from pytest_rspbench.engine import processes
from pytest_rspbench.engine.placeholders import expand
from pytest_rspbench.engine.tree import TOKEN_ENV, ProcessTree
from pytest_rspbench.errors import EngineConfigError, EngineError

CACHE_ENV = "RSPBENCH_CACHE_DIR"
STAMP = ".rspbench-setup.json"
LOG = "setup.log"


@dataclass(frozen=True)
class Setup:
    """``setup``: a one-time command, cached on the hash of ``key`` files."""

    command: tuple[str, ...]
    key: tuple[str, ...] = ()
    timeout: float = 900.0


def parse_setup(raw: Mapping[str, Any] | None) -> Setup | None:
    """The Setup for a schema-validated ``setup:`` mapping (or None).

    >>> parse_setup({"command": ["npm", "ci"], "key": ["package-lock.json"]})
    Setup(command=('npm', 'ci'), key=('package-lock.json',), timeout=900.0)
    """
    if not raw:
        return None
    return Setup(tuple(raw["command"]), tuple(raw.get("key", ())), raw.get("timeout", 900.0))


def cache_root() -> Path:
    """``$RSPBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME``/pytest-rspbench."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-rspbench"


def setup_key(name: str, setup: Setup, engine_dir: Path) -> str:
    """Hash of the engine name, the setup command and the key files' bytes."""
    digest = hashlib.sha256(json.dumps([name, list(setup.command)]).encode())
    for rel in setup.key:
        path = engine_dir / rel
        try:
            digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError as exc:
            raise EngineConfigError(
                f"engine {name!r}: setup key file {rel!r} cannot be read ({exc})."
                "\nHINT: setup.key lists files relative to the engine.yaml folder."
            ) from None
    return digest.hexdigest()[:16]


def prepare(
    name: str,
    setup: Setup,
    engine_dir: Path,
    hint: str = "",
    places: Mapping[str, str] | None = None,
) -> Path:
    """The folder the setup ran in; runs it first when it has not run yet.

    ``places`` fills placeholders of the command (``{python}``, ...); the
    cache key hashes the command as written, so it survives a moved venv.
    """
    command = tuple(expand(part, places or {}) for part in setup.command)
    processes.require(command[0], name, hint)
    folder = cache_root() / "setup" / f"{name}-{setup_key(name, setup, engine_dir)}"
    if (folder / STAMP).exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.with_suffix(".lock")):
        if not (folder / STAMP).exists():
            _run(name, replace(setup, command=command), engine_dir, folder)
    return folder


def _run(name: str, setup: Setup, engine_dir: Path, folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)  # a setup that died half-way
    folder.mkdir(parents=True)
    for rel in setup.key:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(engine_dir / rel, target)
    started = time.monotonic()
    log = folder / LOG
    with log.open("wb") as out:
        code = _run_whole(setup, folder, out)
    if code != 0:
        raise _failed(name, setup, log, code)
    stamp = {
        "command": list(setup.command),
        "key": list(setup.key),
        "seconds": round(time.monotonic() - started, 1),
    }
    (folder / STAMP).write_text(json.dumps(stamp, indent=2))


def _run_whole(setup: Setup, folder: Path, out: IO[bytes]) -> int | None:
    """Run the setup command; its exit code, None after the timeout.

    Its whole process tree is stopped afterwards (``npm`` starts more
    processes; a timeout must not leave them writing into the folder).
    """
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        processes.resolve_command(setup.command),
        cwd=folder,
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=processes.child_env({TOKEN_ENV: token}),
        start_new_session=os.name == "posix",
    )
    tree = ProcessTree(proc, token)
    code = tree.wait(setup.timeout)
    tree.stop(grace=2.0)
    tree.wait(5.0)
    return code


def _failed(name: str, setup: Setup, log: Path, code: int | None) -> EngineError:
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
    status = f"timed out after {setup.timeout:g} s" if code is None else f"exited with {code}"
    return EngineError(
        f"setup of engine {name!r} failed: {' '.join(setup.command)} {status}.\n"
        f"--- last lines of {log} ---\n{tail}\n--- end ---\n"
        "HINT: run the command by hand in that folder to see why; the setup is "
        "retried on the next run."
    )


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock across processes (POSIX flock; no lock elsewhere)."""
    with path.open("a") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: parallel first setups may race
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
