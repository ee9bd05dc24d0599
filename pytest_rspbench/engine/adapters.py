"""The kinds of engine adapter an engine.yaml can name, and their factory.

* ``python: module:Class`` — an in-process :class:`~pytest_rspbench.engine.api.Engine`.
* ``command: [...]`` — a process speaking the JSON-lines protocol
  (:mod:`~pytest_rspbench.engine.process`), after an optional cached
  ``setup`` (:mod:`~pytest_rspbench.engine.setupcache`).
* ``recorded: {path, format}`` — answers produced elsewhere, read from files
  (:mod:`~pytest_rspbench.engine.recorded`).
* ``http:``, ``websocket:``, ``mqtt:`` — a service reached over the network
  (:mod:`~pytest_rspbench.engine.transports`).

Commands may use placeholders: ``{python}`` (the running interpreter),
``{engine_dir}`` (the folder of the engine.yaml) and ``{setup_dir}`` (the
cached folder the setup command ran in).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Engine
from pytest_rspbench.engine.placeholders import expand
from pytest_rspbench.engine.transports import config as transports
from pytest_rspbench.errors import EngineConfigError


@dataclass(frozen=True)
class PythonAdapter:
    """``adapter.python``: ``module:Class`` of an in-process engine."""

    target: str


@dataclass(frozen=True)
class CommandAdapter:
    """``adapter.command`` and its options (times in seconds)."""

    command: tuple[str, ...]
    cwd: str = "{engine_dir}"
    env: Mapping[str, str] = field(default_factory=dict)
    handshake_timeout: float = 30.0
    shutdown_grace: float = 2.0
    stderr_limit: int = 16 * 1024 * 1024


@dataclass(frozen=True)
class RecordedAdapter:
    """``adapter.recorded``: where the answers are and how they are written.

    ``path`` may name ``{spec}`` and ``{case}`` (the spec's name and the
    case id), relative to the engine.yaml folder.
    """

    path: str
    format: str = "jsonl"
    regroup: bool = False


Adapter = PythonAdapter | CommandAdapter | RecordedAdapter | transports.ServiceAdapter


def parse_adapter(raw: Mapping[str, Any]) -> Adapter:
    """The adapter dataclass for a schema-validated ``adapter:`` mapping."""
    if "python" in raw:
        return PythonAdapter(raw["python"])
    if any(key in raw for key in transports.TRANSPORTS):
        return transports.parse(raw)
    if "recorded" in raw:
        rec = raw["recorded"]
        return RecordedAdapter(rec["path"], rec.get("format", "jsonl"), rec.get("regroup", False))
    options = {k: v for k, v in raw.items() if k != "command"}
    env = {str(k): str(v) for k, v in options.pop("env", {}).items()}
    return CommandAdapter(tuple(raw["command"]), env=env, **options)


def describe(adapter: Adapter) -> str:
    """A one-line description (the ``adapter`` shown in messages)."""
    if isinstance(adapter, PythonAdapter):
        return adapter.target
    if isinstance(adapter, CommandAdapter):
        return " ".join(adapter.command)
    if isinstance(adapter, transports.ServiceAdapter):
        return transports.describe(adapter)
    return f"recorded {adapter.format} answers at {adapter.path}"


def create(
    profile: Any, artifacts: Path | None = None, case: Mapping[str, str] | None = None
) -> Engine:
    """A fresh engine for one run of ``profile`` (an EngineProfile)."""
    adapter = profile.config
    if isinstance(adapter, PythonAdapter):
        return _python(adapter, profile)
    if isinstance(adapter, RecordedAdapter):
        from pytest_rspbench.engine.recorded import RecordedEngine

        places = {"engine_dir": str(profile.path.parent), **(case or {})}
        path = Path(expand(adapter.path, places))
        path = path if path.is_absolute() else profile.path.parent / path
        return RecordedEngine(profile.name, path, adapter.format, adapter.regroup)
    if isinstance(adapter, transports.ServiceAdapter):
        from pytest_rspbench.engine.transports.factory import create as create_service

        return create_service(adapter, profile, artifacts)
    return _process(adapter, profile, artifacts)


def _python(adapter: PythonAdapter, profile: Any) -> Engine:
    module_name, _, attr = adapter.target.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise EngineConfigError(
            f"{profile.path}: cannot load adapter {adapter.target!r} of engine "
            f"{profile.name!r}: {exc}\nHINT: install the package that provides it."
        ) from None
    return factory()


def _process(adapter: CommandAdapter, profile: Any, artifacts: Path | None) -> Engine:
    from pytest_rspbench.engine import processes
    from pytest_rspbench.engine.process import ProcessConfig, ProcessEngine
    from pytest_rspbench.engine.setupcache import prepare

    engine_dir = profile.path.parent
    places = {"python": sys.executable, "engine_dir": str(engine_dir)}
    command = [expand(part, places) for part in adapter.command]
    if "{setup_dir}" not in command[0]:  # a program the setup installs is checked later
        processes.require(command[0], profile.name, profile.install_hint)
    if profile.setup is not None:
        folder = prepare(profile.name, profile.setup, engine_dir, profile.install_hint, places)
        places["setup_dir"] = str(folder)
    config = ProcessConfig(
        command=tuple(expand(part, places) for part in adapter.command),
        cwd=engine_dir / expand(adapter.cwd, places),
        env={k: expand(v, places) for k, v in adapter.env.items()},
        handshake_timeout=adapter.handshake_timeout,
        shutdown_grace=adapter.shutdown_grace,
        stderr_limit=adapter.stderr_limit,
    )
    return ProcessEngine(config, profile.name, artifacts)
