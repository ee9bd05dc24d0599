"""A service engine for one run: placeholders filled, the transport picked."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Engine
from pytest_rspbench.engine.placeholders import expand
from pytest_rspbench.engine.transports.config import ServiceAdapter
from pytest_rspbench.engine.transports.service import free_port


def create(adapter: ServiceAdapter, profile: Any, artifacts: Path | None) -> Engine:
    """A fresh engine of ``profile`` (an EngineProfile) over ``adapter``'s transport."""
    from pytest_rspbench.engine import processes
    from pytest_rspbench.engine.setupcache import prepare

    engine_dir = profile.path.parent
    run = uuid.uuid4().hex[:12]
    places = {"python": sys.executable, "engine_dir": str(engine_dir), "run": run}
    places["port"] = str(free_port())
    if adapter.command and "{setup_dir}" not in adapter.command[0]:
        processes.require(expand(adapter.command[0], places), profile.name, profile.install_hint)
    if profile.setup is not None:
        folder = prepare(profile.name, profile.setup, engine_dir, profile.install_hint, places)
        places["setup_dir"] = str(folder)
    cwd = engine_dir / expand(adapter.cwd, places)
    if adapter.transport == "http" and adapter.api is not None:
        from pytest_rspbench.engine.transports.rspservices import MappedEngine

        return MappedEngine(adapter, profile.name, places, cwd, artifacts)
    if adapter.transport == "http":
        from pytest_rspbench.engine.transports.http import HttpEngine

        return HttpEngine(adapter, profile.name, places, cwd, artifacts)
    if adapter.transport == "websocket":
        from pytest_rspbench.engine.transports.websocket import WebSocketEngine

        return WebSocketEngine(adapter, profile.name, places, cwd, artifacts)
    from pytest_rspbench.engine.transports.mqtt import MqttEngine

    return MqttEngine(adapter, profile.name, places, cwd, artifacts)
