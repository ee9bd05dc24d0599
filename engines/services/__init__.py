"""The reference engine as a service: one thin server per transport.

Each wraps an :class:`~pytest_rspbench.engine.api.Engine` (the reference
engine unless ``--engine module:Class`` names another) behind HTTP
(:mod:`.http`, and the RSP-services style API in :mod:`.rsp_services`),
WebSocket (:mod:`.websocket`) or MQTT (:mod:`.mqtt`), as
``pytest_rspbench.engine.server`` does on stdin/stdout. None of them
computes anything: what the engine emits is sent as it is. Each transport
has an engine.yaml here (``reference-http/engine.yaml``, ...), registered as
``reference-http``, ``reference-websocket``, ``reference-mqtt`` and
``reference-rsp-services``.
"""

from __future__ import annotations

from pathlib import Path

SERVICES = ("http", "http-sse", "websocket", "mqtt", "rsp-services")

__all__ = ["SERVICES", "profile_path"]


def profile_path(service: str) -> Path:
    """The engine.yaml of ``reference-<service>``.

    >>> profile_path("http").parent.name
    'reference-http'
    """
    if service not in SERVICES:
        raise ValueError(f"unknown service {service!r}; known: {', '.join(SERVICES)}")
    return Path(__file__).with_name(f"reference-{service}") / "engine.yaml"


def http() -> Path:
    return profile_path("http")


def http_sse() -> Path:
    return profile_path("http-sse")


def websocket() -> Path:
    return profile_path("websocket")


def mqtt() -> Path:
    return profile_path("mqtt")


def rsp_services() -> Path:
    return profile_path("rsp-services")
