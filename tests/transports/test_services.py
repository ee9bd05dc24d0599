"""The reference engine behind each transport answers as it does in-process."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rspbench_engines.services import SERVICES, profile_path
from transport_helpers import engine, profile_file, replay

from pytest_rspbench.engine.profiles import resolve

pytest.importorskip("websockets")
pytest.importorskip("paho.mqtt")


def _answers(output):
    assert output.error is None, output.error
    return [(r.result.time, r.result.window, r.result.bindings) for r in output.received]


@pytest.fixture(scope="module")
def in_process():
    return _answers(replay(resolve("reference", Path.cwd()).create()))


@pytest.mark.parametrize("service", SERVICES)
def test_each_service_answers_as_the_engine_in_process(service, in_process):
    if service == "mqtt":
        from pytest_rspbench.engine.transports import broker

        if broker.program() is None:
            pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    answers = _answers(replay(engine(profile_path(service))))
    if service == "rsp-services":  # the API carries no semantics: it runs its profile's
        profile = resolve("reference", Path.cwd())
        in_process = _answers(replay(profile.create(), semantics=profile.semantics))
    assert answers == in_process
    assert len(answers) == 5


def test_an_http_service_already_running_serves_run_after_run(tmp_path, in_process):
    from rspbench_engines.services.http import serve

    server = serve(0, "rspbench_engines.reference.engine:ReferenceEngine")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for results in ("callback", "sse"):
            path = profile_file(tmp_path, f"  http: {{url: '{url}', results: {results}}}")
            assert _answers(replay(engine(path))) == in_process
    finally:
        server.shutdown()
        server.server_close()


def test_a_websocket_service_already_running(tmp_path, in_process):
    from rspbench_engines.services.websocket import serve

    server = serve(0, "rspbench_engines.reference.engine:ReferenceEngine")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    try:
        path = profile_file(tmp_path, f"  websocket: {{url: '{url}'}}")
        assert _answers(replay(engine(path))) == in_process
    finally:
        server.shutdown()


def test_results_stamped_on_arrival_at_the_harness(tmp_path):
    """At speed 1 a window's result arrives after its close, as over stdin/stdout."""
    output = replay(engine(profile_path("http")), count=5, speed=1.0)
    assert output.error is None
    closes = [r.result.time for r in output.received]
    arrivals = [r.app_time for r in output.received]
    assert all(a is not None and a >= c for a, c in zip(arrivals, closes, strict=True))
