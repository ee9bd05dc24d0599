"""``adapter.http``, ``adapter.websocket`` and ``adapter.mqtt`` of an engine.yaml.

One dataclass for the three: what starts the service and where it is, plus
the options of its transport. Strings may hold the placeholders of
:mod:`~pytest_rspbench.engine.placeholders` and, per run, ``{port}`` (a free
loopback port the harness picks), ``{broker}`` (the MQTT broker's
``host:port``) and ``{topic}`` (the run's MQTT topic prefix).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

TRANSPORTS = ("http", "websocket", "mqtt")


@dataclass(frozen=True)
class ApiRequest:
    """One request of a mapped HTTP API (``api:``): method, path and form fields."""

    method: str
    path: str
    form: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServiceAdapter:
    """An engine reached over a network transport (times in seconds).

    Attributes:
        transport: ``http``, ``websocket`` or ``mqtt``.
        command: the program that runs the service; None: it runs already.
        url: where the service listens (``http://``, ``ws://``); for MQTT the
            broker, ``local`` (a mosquitto the plugin starts) or ``mqtt://host:port``.
        topic: MQTT only: the topic prefix of the run.
        results: HTTP only: ``callback`` (the engine POSTs to the harness) or
            ``sse`` (server-sent events the harness reads from the engine).
        events: HTTP only: ``jsonl`` (event messages) or ``ntriples``.
        api: HTTP only: a mapped API (e.g. RSP services), by step name.
        quiet: a mapped API has no ``done``: seconds without a result after
            the end that count as one.
    """

    transport: str
    url: str
    command: tuple[str, ...] | None = None
    cwd: str = "{engine_dir}"
    env: Mapping[str, str] = field(default_factory=dict)
    handshake_timeout: float = 30.0
    shutdown_grace: float = 2.0
    stderr_limit: int = 16 * 1024 * 1024
    request_timeout: float = 30.0
    topic: str = "rspbench/{run}"
    qos: int = 1
    results: str = "callback"
    events: str = "jsonl"
    api: Mapping[str, ApiRequest] | None = None
    quiet: float = 1.0


def parse(raw: Mapping[str, Any]) -> ServiceAdapter:
    """The adapter for a schema-validated ``adapter:`` holding one transport key."""
    transport = next(t for t in TRANSPORTS if t in raw)
    options = dict(raw[transport])
    command = options.pop("command", None)
    env = {str(k): str(v) for k, v in options.pop("env", {}).items()}
    api = options.pop("api", None)
    if transport == "mqtt":
        options["url"] = options.pop("broker", "local")
    return ServiceAdapter(
        transport,
        command=tuple(command) if command is not None else None,
        env=env,
        api=_api(api) if api is not None else None,
        **options,
    )


def describe(adapter: ServiceAdapter) -> str:
    """A one-line description, e.g. ``http service at http://127.0.0.1:{port}``."""
    started = f" started by {' '.join(adapter.command)}" if adapter.command else ""
    if adapter.transport == "mqtt":
        return f"mqtt service on topic {adapter.topic} at broker {adapter.url}{started}"
    return f"{adapter.transport} service at {adapter.url}{started}"


def _api(raw: Mapping[str, Any]) -> dict[str, ApiRequest]:
    return {
        step: ApiRequest(
            str(spec.get("method", "POST")).upper(),
            spec["path"],
            {str(k): str(v) for k, v in spec.get("form", {}).items()},
        )
        for step, spec in raw.items()
    }
