"""The oracle on Spark Connect gives what it gives in-process (docs/oracle.md).

``rspbench explore`` runs the oracle on a Spark Connect server by default
(``--warm-spark run``), and pytest does with ``--rspbench-warm-spark``. The
plan then travels as protobuf and the tables the oracle builds in Python as
Arrow batches, where in-process Spark takes both through py4j. Each spec of
``tests/explore/regressions`` (two of which explore found on a warm Spark:
an expression deeper than the protocol decodes, an empty table whose schema
Connect cannot infer) and a few bundled specs, computed both ways.

The Connect side runs in a process of its own: PySpark switches its
functions to Connect for the whole process once a Connect session exists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.oracle.spark import warm, warmstate

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = ROOT / "tests" / "explore" / "regressions"
BUNDLED = [
    ROOT / "specs" / "rspql" / "example10-content-change.rspbench.yaml",
    ROOT / "specs" / "lsbench" / "l03-aggregation.rspbench.yaml",
    ROOT / "specs" / "windows" / "rows-aggregate.rspbench.yaml",
    ROOT / "specs" / "windows" / "session-merge-at-gap.rspbench.yaml",
]
TIMEOUT = 900  # seconds for every Connect run together, on a busy 2-core machine

CONNECT_RUNS = """
import sys
from pytest_rspbench.cli import main
out, specs = sys.argv[1], sys.argv[2:]
failed = [s for i, s in enumerate(specs)
          if main(["oracle", s, "-o", f"{out}/{i}.jsonl", "--warm-spark", "2m"]) != 0]
sys.exit(f"failed on Spark Connect: {failed}" if failed else 0)
"""


def specs() -> list[Path]:
    found = sorted(REGRESSIONS.glob("*/*.rspbench.yaml"))
    assert {p.parent.name for p in found} >= {"connect-deep-escape", "connect-empty-group-table"}
    return found + BUNDLED


def outputs(path: Path) -> list[Any]:
    """The oracle's JSON lines, as values (key order and spacing aside)."""
    return sorted(
        (json.loads(line) for line in path.read_text().splitlines() if line.strip()),
        key=lambda value: json.dumps(value, sort_keys=True),
    )


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_the_oracle_on_spark_connect_gives_what_it_gives_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(warmstate.DIR_ENV, str(tmp_path / "warm"))
    monkeypatch.setenv("RSPBENCH_CACHE_DIR", "none")
    monkeypatch.delenv("RSPBENCH_WARM_SPARK", raising=False)
    paths = specs()
    local, remote = tmp_path / "local", tmp_path / "connect"
    local.mkdir()
    remote.mkdir()
    for i, spec in enumerate(paths):
        assert main(["oracle", str(spec), "-o", str(local / f"{i}.jsonl")]) == 0, spec
    try:
        done = subprocess.run(
            [sys.executable, "-c", CONNECT_RUNS, str(remote), *map(str, paths)],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        warm.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    for i, spec in enumerate(paths):
        assert outputs(remote / f"{i}.jsonl") == outputs(local / f"{i}.jsonl"), spec


KILL_AND_AGAIN = """
import json, psutil
from pytest_rspbench.oracle.spark import SparkProvider, warmstate
provider = SparkProvider("local[1]", warm=60.0, warm_for_run=True)
first = provider.get()
assert first.range(3).count() == 3
pid = provider.warm.pid
killed = provider.kill()
alive_after_kill = provider.alive()
second = provider.get()
assert second.range(4).count() == 4
again = provider.warm.pid
provider.stop()
print(json.dumps({"killed": killed, "alive_after_kill": alive_after_kill, "pids": [pid, again],
                  "running": [psutil.pid_exists(p) for p in (pid, again)],
                  "state_after_stop": warmstate.read() is not None}))
"""


@pytest.mark.slow
@pytest.mark.spark
def test_a_server_for_the_run_is_replaced_when_a_case_is_killed_and_ends_with_the_run(
    tmp_path: Path,
) -> None:
    """explore's guard ends a case that outlasts its limit: on a server the run
    started, by ending the server; the next case gets a new one, and the run's
    end ends that one too."""
    env = {**os.environ, warmstate.DIR_ENV: str(tmp_path / "warm")}
    env.pop("RSPBENCH_WARM_SPARK", None)
    done = subprocess.run(
        [sys.executable, "-c", KILL_AND_AGAIN],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["killed"] and not seen["alive_after_kill"]
    assert seen["pids"][0] != seen["pids"][1]
    assert seen["running"] == [False, False]
    assert not seen["state_after_stop"]
