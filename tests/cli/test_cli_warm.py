"""A warm Spark (``--warm-spark``, ``--rspbench-warm-spark``): started by the first
run, reused by the next ones, refused to others, stopped when idle.

Every run is a process of its own, as a user's next command is; one server
start serves the whole test.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.oracle.spark import warm, warmstate

from helpers.processes import RSPBENCH

TIMEOUT = 600  # seconds for one run on a busy 2-core machine


@pytest.fixture
def warm_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The warm Spark's folder in the test's, no stored outputs; the server stopped after."""
    monkeypatch.setenv(warmstate.DIR_ENV, str(tmp_path / "warm"))
    monkeypatch.setenv("RSPBENCH_CACHE_DIR", "none")
    monkeypatch.delenv("RSPBENCH_WARM_SPARK", raising=False)
    yield dict(os.environ)
    warm.stop()


def spark_children(process: subprocess.Popen[str]) -> Iterator[set[str]]:
    """While ``process`` runs: the command lines of its descendants that run Spark."""
    while process.poll() is None:
        seen = set()
        try:
            children = psutil.Process(process.pid).children(recursive=True)
        except psutil.Error:
            children = []
        for child in children:
            try:
                line = " ".join(child.cmdline())
            except psutil.Error:
                continue
            if "spark" in line.lower():
                seen.add(line)
        yield seen
        time.sleep(0.2)


def run(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``argv`` in a process of its own; its result and the Spark processes it started."""
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    spark: set[str] = set()
    for seen in spark_children(process):
        spark |= seen
    out, err = process.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(argv, process.returncode, out, err), spark


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_warm_spark_is_started_once_reused_refused_to_others_and_ends_when_idle(
    warm_env: dict[str, str], spec: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local.jsonl"
    assert main(["oracle", str(spec), "--param", "temp=80", "-o", str(local)]) == 0
    oracle = [*RSPBENCH, "oracle", str(spec), "--param", "temp=80"]

    first, _ = run([*oracle, "--warm-spark", "5m", "-o", str(tmp_path / "1.jsonl")], warm_env)
    assert first.returncode == 0, first.stderr
    state = warmstate.read()
    assert state is not None
    assert f"rspbench: warm Spark: started {state.shown} (pid {state.pid})" in first.stderr
    assert "`rspbench spark stop` stops it now" in first.stderr
    assert stat.S_IMODE(warmstate.state_path().stat().st_mode) == 0o600
    assert (tmp_path / "1.jsonl").read_text() == local.read_text()

    # Another client without the token, or with a wrong one, is refused.
    for url in (state.shown, f"sc://localhost:{state.port}/;token=wrong"):
        refused, _ = run([*oracle, "--spark-master", url], warm_env)
        assert refused.returncode == 1, refused.stderr
        assert "refused this client: the token is missing from the sc:// URL or wrong" in (
            refused.stderr
        )
        assert "Traceback" not in refused.stderr

    status = subprocess.run(
        [*RSPBENCH, "spark", "status"], env=warm_env, capture_output=True, text=True
    )
    assert status.returncode == 0, status.stdout
    assert status.stdout.startswith(f"warm Spark at {state.shown}, pid {state.pid}\n")

    second, spark = run([*oracle, "--warm-spark", "5m", "-o", str(tmp_path / "2.jsonl")], warm_env)
    assert second.returncode == 0, second.stderr
    assert f"rspbench: warm Spark: using {state.shown} (pid {state.pid})" in second.stderr
    assert not spark, f"the second run started Spark of its own: {spark}"
    assert (tmp_path / "2.jsonl").read_text() == local.read_text()

    # pytest reuses it too; with a short idle time it then stops by itself.
    pytest_run = [sys.executable, "-m", "pytest", str(spec), "-p", "no:cacheprovider"]
    third, spark = run([*pytest_run, "--rspbench-warm-spark", "2s"], warm_env)
    assert third.returncode == 0, third.stdout + third.stderr
    assert not spark, f"pytest started Spark of its own: {spark}"
    assert f"rspbench: warm Spark: using {state.shown} (pid {state.pid})" in third.stdout
    try:
        server = psutil.Process(state.pid)
    except psutil.NoSuchProcess:  # already stopped: idle 2 s while pytest was ending
        server = None
    if server is not None:
        gone, _ = psutil.wait_procs([server], timeout=120)
        assert gone, f"the warm Spark {state.pid} did not stop when idle"
    assert warmstate.read() is None
    log = warmstate.log_path().read_text()
    assert "warm Spark: stopping, idle for" in log


def test_a_bad_idle_time_is_a_usage_error_naming_where(
    warm_env: dict[str, str], spec: Path
) -> None:
    env = warm_env | {"RSPBENCH_WARM_SPARK": "soon"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(spec), "-p", "no:cacheprovider"],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "RSPBENCH_WARM_SPARK: 'soon' is not an idle time" in done.stderr
    assert "HINT: e.g. 10m" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_spark_command_shows_and_stops_no_server(
    warm_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["spark", "status"]) == 1
    assert capsys.readouterr().out.startswith("No warm Spark is running.\nHINT: ")
    assert main(["spark", "stop"]) == 0
    assert capsys.readouterr().out == "No warm Spark is running.\n"


def test_the_state_file_is_json_a_user_can_read(warm_env: dict[str, str]) -> None:
    warmstate.write(warmstate.WarmState(1, 2, "t", 3.0, 4.0, 5.0, {"pyspark": "4"}))
    data = json.loads(warmstate.state_path().read_text())
    assert set(data) == {"pid", "port", "token", "started", "last_used", "idle", "identity"}
