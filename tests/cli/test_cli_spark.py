"""``rspbench spark serve``: a Spark Connect server that oracle runs share."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from pytest_rspbench.cli import main

from helpers.processes import RSPBENCH, free_port, listening

START_TIMEOUT = 180.0  # seconds; a busy 2-core CI machine starts Spark slowly


def test_the_port_is_a_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["spark", "serve", "--port", "0"])
    assert exit_.value.code == 2
    assert "'0': a port is a number from 1 to 65535" in capsys.readouterr().err


def test_a_taken_port_is_named_with_the_url_to_use_instead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["spark", "serve", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert f"error: port {port} on 127.0.0.1 is in use" in err
    assert f"--spark-master sc://127.0.0.1:{port}" in err


def test_the_server_is_ready_when_its_own_process_listens_not_another() -> None:
    """Another process that takes the port while the JVM starts (it happened
    in CI: the test reported ready while Spark's launcher still ran) must not
    pass for the server."""
    from pytest_rspbench.oracle.spark.server import ConnectServer

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as foreign:
        foreign.bind(("127.0.0.1", 0))
        foreign.listen()
        taken = foreign.getsockname()[1]
        own = free_port()
        listen = (
            "import socket, sys, time; s = socket.socket(); "
            f"s.bind(('127.0.0.1', {own})); s.listen(); print('up', flush=True); time.sleep(60)"
        )
        child = subprocess.Popen([sys.executable, "-c", listen], stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None and child.stdout.readline() == b"up\n"
            server = ConnectServer(port=taken)
            server.process = child
            assert listening(taken) and not server._listens()
            server.port = own
            assert server._listens()
        finally:
            child.kill()
            child.wait()
        assert not server._listens()  # ended


def test_the_server_runs_its_jobs_locally_or_on_a_standalone_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["spark", "serve", "--master", "sc://127.0.0.1:15002"]) == 1
    err = capsys.readouterr().err
    assert "--master 'sc://127.0.0.1:15002'" in err and "HINT: --master local[*]" in err


def test_a_cluster_elsewhere_is_refused_with_what_to_do_instead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["spark", "serve", "--master", "spark://spark.example.org:7077"]) == 1
    err = capsys.readouterr().err
    assert "cannot read this machine's stream cache" in err
    assert "sbin/start-connect-server.sh" in err


def test_without_an_action_the_help_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spark"]) == 2
    assert "serve" in capsys.readouterr().out


class Served:
    """``rspbench spark serve`` in a child process, its output read by a thread."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [*RSPBENCH, "spark", "serve", "--port", str(self.port), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, words: str, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while words not in self.text:
            if self.process.poll() is not None:
                self._reader.join(5)
                if words in self.text:
                    return
                pytest.fail(f"rspbench spark serve ended ({self.process.returncode}):\n{self.text}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {words!r} within {timeout:.0f} s:\n{self.text}")
            time.sleep(0.2)

    def jvm(self) -> psutil.Process:
        """The server's JVM (spark-submit execs java: the command's only child)."""
        java = []
        for child in psutil.Process(self.process.pid).children(recursive=True):
            try:  # Spark's launcher, ended and not reaped, is a zombie: skip it
                if "SparkConnectServer" in " ".join(child.cmdline()):
                    java.append(child)
            except psutil.Error:
                continue
        assert len(java) == 1, java
        return java[0]

    def finish(self, timeout: float = 60.0) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(5)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def served() -> Iterator[Served]:
    server = Served()
    try:
        yield server
    finally:
        server.kill()


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_an_oracle_run_on_the_served_spark_gives_local_results_and_ctrl_c_stops_it(
    served: Served, spec: Path, tmp_path: Path
) -> None:
    served.wait_for("Ctrl-C stops it.")
    url = f"sc://127.0.0.1:{served.port}"
    assert f"Spark Connect server ready at {url}" in served.text
    assert f"rspbench oracle SPEC --spark-master {url}" in served.text
    jvm = served.jvm()
    # As the oracle's own driver JVM: huge generated methods are compiled.
    assert "-XX:-DontCompileHugeMethods" in jvm.cmdline()

    local, remote = tmp_path / "local.jsonl", tmp_path / "remote.jsonl"
    assert main(["oracle", str(spec), "--param", "temp=80", "-o", str(local)]) == 0
    # A client process of its own, as a user's next command is: no JVM in it.
    env = os.environ | {"RSPBENCH_CACHE_DIR": str(tmp_path / "cache")}
    argv = ["oracle", str(spec), "--param", "temp=80", "--spark-master", url, "-o", str(remote)]
    done = subprocess.run([*RSPBENCH, *argv], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in remote.read_text().splitlines()]
    assert sum(len(r["bindings"]) for r in rows) > 0
    assert remote.read_text() == local.read_text()

    served.process.send_signal(signal.SIGINT)  # what Ctrl-C in its terminal sends
    assert served.finish() == 0, served.text
    assert served.lines[-1] == "Stopping the Spark Connect server ..."
    assert not jvm.is_running() or jvm.status() == psutil.STATUS_ZOMBIE
    assert not listening(served.port)


@pytest.mark.slow
@pytest.mark.spark
def test_a_server_that_dies_ends_the_command_with_what_killed_it(served: Served) -> None:
    served.wait_for("Ctrl-C stops it.")
    served.jvm().kill()
    assert served.finish() == 1
    assert "The Spark Connect server ended by itself: killed by signal 9 (SIGKILL)" in served.text


@pytest.mark.slow
@pytest.mark.spark
def test_a_server_that_cannot_start_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    argv = ["spark", "serve", "--port", str(port), "--spark-conf", "spark.driver.memory=lots"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "error: the Spark Connect server did not start on Java" in err
    assert "Invalid maximum heap size: -Xmxlots" in err
    assert "HINT: check spark.driver.memory (now lots)" in err
    assert not listening(port)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_command_takes_its_server_along(served: Served) -> None:
    """SIGKILL gives ``rspbench spark serve`` no chance to stop its JVM: the
    kernel does (the JVM runs in a session of its own, so nothing else would)."""
    served.wait_for("Ctrl-C stops it.")
    jvm = served.jvm()
    served.process.kill()
    served.finish()
    gone, _ = psutil.wait_procs([jvm], timeout=60)
    assert gone, f"the server's JVM {jvm.pid} outlived its command"
    assert not listening(served.port)


def test_an_oracle_run_on_a_server_that_is_not_there_says_how_to_start_it(
    spec: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PySpark's client alone retries an unreachable server for minutes."""
    # A session this test process started earlier would be reused whatever
    # the master says (docs/oracle.md); a user's command has none.
    monkeypatch.setattr("pytest_rspbench.oracle.spark.provider.active_session", lambda: None)
    # Nor an output stored by an earlier run (it would need no Spark at all).
    monkeypatch.setenv("RSPBENCH_CACHE_DIR", str(spec.parent / "cache"))
    port = free_port()
    argv = ["oracle", str(spec), "--spark-master", f"sc://127.0.0.1:{port}"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"error: No Spark Connect server answers at 127.0.0.1:{port}" in err
    assert f"HINT: start one with `rspbench spark serve --port {port}`" in err
