"""The warm Spark's state file and its staleness rules, without Spark.

A stand-in server is a Python process whose command line names the warm
server's module, with a token in its environment and (when asked) a socket
listening on loopback: what :func:`warmstate.stale` looks at.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_rspbench.oracle.spark import warm, warmstate
from pytest_rspbench.oracle.spark.warmstate import WarmState


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(warmstate.DIR_ENV, str(tmp_path / "warm"))
    return tmp_path / "warm"


class StandIn:
    """A process that looks like a warm server to :func:`warmstate.stale`."""

    def __init__(self, token: str, listen: bool) -> None:
        self.socket: socket.socket | None = None
        self.port = 1
        if listen:
            self.socket = socket.socket()
            self.socket.bind(("127.0.0.1", 0))
            self.socket.listen()
            self.port = self.socket.getsockname()[1]
        env = os.environ | {warmstate.TOKEN_ENV: token}
        code = "import time; time.sleep(120)"
        argv = [sys.executable, "-c", code, warmstate.SERVER_MODULE]
        self.process = subprocess.Popen(argv, env=env)
        # Until the child has exec'd, its command line is pytest's: wait for it
        # (bounded), so no check below sees a process that is not yet a stand-in.
        import psutil

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if warmstate.SERVER_MODULE in psutil.Process(self.process.pid).cmdline():
                    break
            except psutil.Error:
                pass
            time.sleep(0.02)

    def state(self, token: str = "secret", **identity: str) -> WarmState:
        now = time.time()
        return WarmState(self.process.pid, self.port, token, now, now, 60.0, identity)

    def end(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.socket is not None:
            self.socket.close()


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn("secret", listen=True)
    yield server
    server.end()


def test_idle_times_are_written_as_people_write_them() -> None:
    assert warmstate.parse_idle("10m") == 600
    assert warmstate.parse_idle("1.5h") == 5400
    assert warmstate.parse_idle(" 45 ") == 45
    assert warmstate.parse_idle("OFF") is None
    with pytest.raises(ValueError, match="'ten' is not an idle time"):
        warmstate.parse_idle("ten")
    with pytest.raises(ValueError, match="at least 1 s"):
        warmstate.parse_idle("0.5s")


def test_the_state_file_is_the_users_alone(folder: Path) -> None:
    state = WarmState(123, 4567, "secret", 1.0, 2.0, 600.0, {"pyspark": "4"})
    with warmstate.locked():
        warmstate.write(state)
    path = warmstate.state_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert warmstate.read() == state
    assert [p.name for p in folder.iterdir() if p.name.startswith(".state")] == []


def test_an_old_wider_file_is_replaced_by_a_private_one(folder: Path) -> None:
    folder.mkdir(parents=True)
    path = folder / "state.json"
    path.write_text("{}")
    path.chmod(0o644)
    warmstate.write(WarmState(1, 2, "t", 0.0, 0.0, 1.0))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_unreadable_state_file_is_no_server(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "state.json").write_text("{not json")
    assert warmstate.read() is None


def test_a_recorded_server_that_answers_with_its_token_is_used(stand_in: StandIn) -> None:
    assert warmstate.stale(stand_in.state(pyspark="4.3.0"), {"pyspark": "4.3.0"}) is None


def test_a_dead_process_is_stale(stand_in: StandIn) -> None:
    state = stand_in.state()
    stand_in.end()
    assert warmstate.stale(state, None) == f"its process {state.pid} has ended"


def test_a_process_that_is_no_warm_server_is_stale() -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        now = time.time()
        state = WarmState(other.pid, 1, "secret", now, now, 60.0)
        assert warmstate.stale(state, None) == f"its process {other.pid} has ended"
    finally:
        other.kill()
        other.wait()


def test_another_token_is_stale(stand_in: StandIn) -> None:
    why = warmstate.stale(stand_in.state(token="forged"), None)
    assert why == "it holds another token than the state file"


def test_a_port_that_does_not_answer_is_stale() -> None:
    server = StandIn("secret", listen=False)
    try:
        state = server.state()
        state.port = _closed_port()
        assert warmstate.stale(state, None) == f"nothing answers on its port {state.port}"
    finally:
        server.end()


def test_another_pyspark_or_other_settings_are_stale(stand_in: StandIn) -> None:
    state = stand_in.state(pyspark="4.2.0", conf='{"spark.driver.memory": "2g"}')
    why = warmstate.stale(state, {"pyspark": "4.3.0"})
    assert why == "it runs another pyspark (4.2.0; here 4.3.0)"
    why = warmstate.stale(state, {"conf": '{"spark.driver.memory": "8g"}'})
    assert why == "it runs with other Spark settings (driver memory, --spark-conf)"


def test_a_server_is_marked_used_only_while_it_is_the_recorded_one(folder: Path) -> None:
    warmstate.write(WarmState(10, 2, "t", 0.0, 5.0, 60.0))
    warmstate.touch(11, when=50.0)  # another server's mark: ignored
    assert warmstate.read().last_used == 5.0  # type: ignore[union-attr]
    warmstate.touch(10, when=50.0)
    warmstate.touch(10, when=20.0)  # never backwards
    assert warmstate.read().last_used == 50.0  # type: ignore[union-attr]
    warmstate.remove(11)
    assert warmstate.read() is not None
    warmstate.remove(10)
    assert warmstate.read() is None


def test_without_the_connect_client_the_oracle_runs_locally_and_says_so(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warm, "client_missing", lambda: "No module named 'grpc'")
    said: list[str] = []
    assert warm.warm_server(600.0, {}, said.append) is None
    assert said == [
        "warm Spark: not used, Spark Connect's client is not installed (No module named "
        "'grpc'); the oracle starts its own Spark. HINT: pip install 'pytest-rspbench[connect]'"
    ]
    assert warmstate.read() is None


def test_status_and_stop_without_a_server(folder: Path) -> None:
    code, text = warm.status()
    assert code == 1 and text.startswith("No warm Spark is running.\nHINT: ")
    assert warm.stop() == "No warm Spark is running."


def test_status_and_stop_of_a_recorded_server(folder: Path, stand_in: StandIn) -> None:
    state = stand_in.state(pyspark="4.3.0", java="Java 17")
    warmstate.write(state)
    code, text = warm.status()
    assert code == 0, text
    assert text.splitlines()[0] == f"warm Spark at {state.shown}, pid {state.pid}"
    assert "stops      after 1m without use" in text
    assert warm.stop() == f"Stopped the warm Spark at {state.shown} (pid {state.pid})."
    assert stand_in.process.wait(timeout=60) is not None
    assert warmstate.read() is None


def test_status_of_a_server_that_ended(folder: Path, stand_in: StandIn) -> None:
    state = stand_in.state()
    warmstate.write(state)
    stand_in.end()
    code, text = warm.status()
    assert code == 1
    assert f"cannot be used: its process {state.pid} has ended" in text
    assert warm.stop().endswith("had ended; its state file is removed.")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
