"""adapter.http, adapter.websocket and adapter.mqtt in engine.yaml: read, checked, described."""

from __future__ import annotations

import pytest
from rspbench_engines.services import SERVICES, profile_path
from transport_helpers import profile_file

from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.engine.transports.config import ServiceAdapter
from pytest_rspbench.errors import EngineConfigError


@pytest.mark.parametrize("service", SERVICES)
def test_the_bundled_service_profiles_load(service):
    load_profile.cache_clear()
    profile = load_profile(profile_path(service))
    assert isinstance(profile.config, ServiceAdapter)
    assert profile.name == f"reference-{service}"
    assert " service " in profile.adapter


def test_every_key_is_read(tmp_path):
    adapter = (
        "  http:\n    command: [srv, --port, '{port}']\n    url: 'http://127.0.0.1:{port}/x'\n"
        "    results: sse\n    events: ntriples\n    request_timeout: 5\n    env: {A: 1}\n"
    )
    load_profile.cache_clear()
    config = load_profile(profile_file(tmp_path, adapter)).config
    assert config == ServiceAdapter(
        "http",
        "http://127.0.0.1:{port}/x",
        ("srv", "--port", "{port}"),
        env={"A": "1"},
        request_timeout=5,
        results="sse",
        events="ntriples",
    )


@pytest.mark.parametrize(
    ("adapter", "says"),
    [
        ("  http: {url: 'ftp://x'}", "adapter"),
        ("  websocket: {command: [x]}", "adapter"),
        ("  mqtt: {broker: 'tcp://x:1'}", "adapter"),
        ("  http: {url: 'http://x', results: push}", "adapter"),
    ],
)
def test_a_wrong_transport_key_is_an_error_at_its_line(tmp_path, adapter, says):
    path = profile_file(tmp_path, adapter)
    load_profile.cache_clear()
    with pytest.raises(EngineConfigError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:")
    assert says in message and "HINT:" in message
