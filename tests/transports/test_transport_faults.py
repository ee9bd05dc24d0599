"""Faults over the wire: each a clear item error naming the transport and the URL.

No fault hangs past the item's timeout, loses a result already received, or
leaves a process behind.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from fake_services import Garbage, Silent, http_fake, ws_dropping
from transport_helpers import engine, profile_file, replay

from pytest_rspbench.engine.transports.service import free_port

pytest.importorskip("websockets")
pytest.importorskip("paho.mqtt")


def run(tmp_path: Path, adapter: str, timeout: float = 20.0, count: int = 10, speed: float = 0.0):
    return replay(engine(profile_file(tmp_path, adapter)), count, timeout, speed)


@pytest.mark.parametrize(
    ("adapter", "where"),
    [
        ("  http: {url: 'http://127.0.0.1:PORT'}", "over http at http://127.0.0.1:PORT"),
        ("  websocket: {url: 'ws://127.0.0.1:PORT'}", "over websocket at ws://127.0.0.1:PORT"),
        ("  mqtt: {broker: 'mqtt://127.0.0.1:PORT'}", "over mqtt at mqtt://127.0.0.1:PORT"),
    ],
)
def test_a_service_that_is_not_listening(tmp_path, adapter, where):
    port = str(free_port())
    output = run(tmp_path, adapter.replace("PORT", port))
    assert output.error.startswith(f"engine 'svc' {where.replace('PORT', port)}")
    assert "nothing is listening there (connection refused)" in output.error
    assert "HINT: start the service first" in output.error


@pytest.mark.parametrize(
    ("transport", "what"), [("http", "GET /hello"), ("websocket", "the WebSocket handshake")]
)
def test_a_service_that_accepts_and_never_answers(tmp_path, transport, what):
    silent = Silent()
    scheme = "http" if transport == "http" else "ws"
    url = f"{scheme}://127.0.0.1:{silent.port}"
    started = time.monotonic()
    try:
        output = run(tmp_path, f"  {transport}: {{url: '{url}', handshake_timeout: 1}}")
    finally:
        silent.close()
    assert output.error.startswith(f"engine 'svc' over {transport} at {url}: ")
    assert f"it accepted the connection but did not answer {what} in time" in output.error
    assert time.monotonic() - started < 15


def test_a_service_that_never_answers_the_end_is_stopped_at_the_timeout(tmp_path):
    """A started service hangs on POST /end: the item's timeout stops it, tree and all."""
    fake = Path(__file__).with_name("fake_services.py")
    adapter = (
        f"  http:\n    command: ['{sys.executable}', '{fake}', hangs, '{{port}}']\n"
        "    url: 'http://127.0.0.1:{port}'\n"
    )
    service = engine(profile_file(tmp_path, adapter))
    started = time.monotonic()
    output = replay(service, timeout=3.0)
    assert time.monotonic() - started < 3.0 + 8.0
    assert output.error.startswith("engine 'svc' did not finish within 3 s (timeout)")
    assert "1 results received" in output.error
    assert len(output.received) == 1  # what came before the hang is kept
    pid = service.pid()
    assert pid is not None and not _alive(pid)


def test_a_service_that_drops_the_connection_mid_stream(tmp_path):
    server = http_fake("drops")
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        output = run(tmp_path, f"  http: {{url: '{url}'}}", count=3000)
    finally:
        server.shutdown()
    assert output.error.startswith(f"engine 'svc' over http at {url}: ")
    assert "during POST /events" in output.error
    assert len(output.received) == 1  # the result pushed before the drop


def test_a_websocket_engine_that_drops_its_subscription(tmp_path):
    server = ws_dropping()
    url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    try:
        output = run(tmp_path, f"  websocket: {{url: '{url}'}}", count=3000, speed=20.0)
    finally:
        server.shutdown()
    assert output.error.startswith(f"engine 'svc' over websocket at {url}: ")
    assert "the stream subscription at ws://127.0.0.1:" in output.error
    assert len(output.received) == 1


def test_a_service_that_answers_an_http_error(tmp_path):
    server = http_fake("error")
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        output = run(tmp_path, f"  http: {{url: '{url}'}}")
    finally:
        server.shutdown()
    assert output.error.startswith(
        f"engine 'svc' over http at {url}: answered POST /events with HTTP 500 "
        "Internal Server Error: 'engine exploded\\n'"
    )


def test_a_service_that_answers_garbage(tmp_path):
    garbage = Garbage()
    url = f"http://127.0.0.1:{garbage.port}"
    try:
        output = run(tmp_path, f"  http: {{url: '{url}'}}")
    finally:
        garbage.close()
    assert output.error.startswith(f"engine 'svc' over http at {url}: answered GET /hello with ")
    assert "something that is not HTTP" in output.error


def test_garbage_among_the_results_is_a_fault_and_the_rest_counts(tmp_path):
    server = http_fake("garbage-results")
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        output = run(tmp_path, f"  http: {{url: '{url}'}}")
    finally:
        server.shutdown()
    assert output.error.startswith("engine 'svc' broke the engine protocol")
    assert (
        "  the callback POST /results, message 3: not JSON (Expecting value): 'this is no message'"
        in output.error
    )
    assert len(output.received) == 1


def test_a_broker_that_goes_away(tmp_path, mosquitto):
    adapter = (
        "  mqtt:\n"
        "    command: ['{python}', -m, rspbench_engines.services.mqtt, --broker, '{broker}',"
        " --topic, '{topic}']\n"
        f"    broker: {mosquitto.url}\n"
    )
    service = engine(profile_file(tmp_path, adapter))
    threading.Timer(2.5, mosquitto.stop).start()
    output = replay(service, count=60, timeout=30.0, speed=10.0)  # 6 s of replay
    assert output.error.startswith(f"engine 'svc' over mqtt at {mosquitto.url} (topic rspbench/")
    assert "the broker went away" in output.error
    assert output.received  # the windows closed before the broker left
    pid = service.pid()
    assert pid is not None and not _alive(pid)


def test_a_started_service_that_exits_at_once(tmp_path):
    adapter = (
        "  http:\n    command: ['{python}', -c, 'import sys; sys.exit(3)']\n"
        "    url: 'http://127.0.0.1:{port}'\n"
    )
    output = run(tmp_path, adapter)
    assert "the service stopped unexpectedly: exit code 3 before sending GET /hello" in output.error
    assert output.error.startswith("engine 'svc' over http at http://127.0.0.1:")


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
