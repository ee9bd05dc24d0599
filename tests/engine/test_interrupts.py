"""A session ended from outside: Ctrl-C, SIGTERM and ``kill -9`` of pytest.

Each test runs ``pytest`` on a tiny spec in a subprocess whose environment
carries a mark of its own, so every process the session starts (engines and
their children, the Spark JVM and its workers, the engine watchdog) carries
it too; the engine is fake_engine.py behind ``setsid -w`` (a wrapper that
puts it in a session of its own), with a child that calls ``setsid`` again
and sleeps: the process that outlived a killed session before the watchdog.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest
from engine_helpers import FAKE_ENGINE, SPEC, leftovers, new_tag, tiny_events

from helpers.project import profile_yaml

pytestmark = [
    pytest.mark.slow,
    pytest.mark.spark,
    pytest.mark.skipif(
        sys.platform != "linux" or shutil.which("setsid") is None,
        reason="needs Linux and setsid(1)",
    ),
]

MARK = "RSPBENCH_INTERRUPT_TEST"
GONE_WITHIN = 30.0  # seconds: a bound for a loaded machine, not a measurement
REPORTS = ("results.json", "junit.xml", "report.html")


def write_project(folder: Path, tag: str) -> None:
    events = tiny_events()
    lines = "\n".join(f'{s} {p} {o} "{e.time}" .' for e in events for s, p, o in e.triples)
    (folder / "stream.nt").write_text(lines)
    spec = SPEC.replace("ENGINES", "wrapped.yaml").replace("STEPS", "[2000, 4000]")
    (folder / "tiny.rspbench.yaml").write_text(spec + "replay:\n  speed: 4\n")
    engine = f"exec setsid -w {sys.executable} {FAKE_ENGINE} setsid-child tag={tag}"
    command = json.dumps(["sh", "-c", engine])
    (folder / "wrapped.yaml").write_text(
        profile_yaml("wrapped", f"command: {command}\nshutdown_grace: 1")
    )


def start(folder: Path, mark: str) -> subprocess.Popen[bytes]:
    for name in REPORTS:
        (folder / name).unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "tiny.rspbench.yaml",
        "--rspbench-cache-dir=cache",
        "--rspbench-json=results.json",
        "--junitxml=junit.xml",
        "--html=report.html",
        "-W",
        "error::pytest_rspbench.oracle.store.streamcache.CacheRepairWarning",
    ]
    env = {**os.environ, MARK: mark}
    out = (folder / "out.txt").open("wb")
    return subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT)


def marked(mark: str) -> list[psutil.Process]:
    """Live processes started by the session marked ``mark``."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARK) == mark and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def gone(mark: str) -> list[str]:
    """Waits for every process of the session to end; those left, described."""
    deadline = time.monotonic() + GONE_WITHIN
    while (left := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)
    described = []
    for process in left:
        with_name = f"{process.pid} {' '.join(process.cmdline())[:200]}"
        described.append(with_name)
        process.kill()
    return described


def wait_for_engine(tag: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not leftovers(tag) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def stop(proc: subprocess.Popen[bytes], how: signal.Signals) -> int:
    proc.send_signal(how)
    try:
        return proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_c_at_random_points_writes_the_reports_leaves_nothing_and_the_cache_serves(
    tmp_path: Path,
) -> None:
    tag, mark = new_tag(), uuid.uuid4().hex
    write_project(tmp_path, tag)
    rng = random.Random(20261201)
    for delay in sorted(rng.uniform(0.0, 4.0) for _ in range(3)):
        proc = start(tmp_path, mark)
        wait_for_engine(tag, proc)
        time.sleep(delay)
        code = stop(proc, signal.SIGINT)
        out = (tmp_path / "out.txt").read_text()
        assert code in (0, 2), out  # 0: the run had finished
        assert all((tmp_path / name).is_file() for name in REPORTS), out
        assert "Traceback" not in out
        assert gone(mark) == []
        assert leftovers(tag) == []
    # The next run finds the cache as the interrupted ones left it: it passes,
    # with no damaged entry (a CacheRepairWarning is an error here).
    proc = start(tmp_path, mark)
    assert proc.wait(300) == 0, (tmp_path / "out.txt").read_text()
    entries = sorted(p.name for p in (tmp_path / "cache").iterdir())
    proc = start(tmp_path, mark)
    assert proc.wait(300) == 0, (tmp_path / "out.txt").read_text()
    results = json.loads((tmp_path / "results.json").read_text())
    assert [item["oracle_stored"] for item in results["items"]] == [True, True]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == entries
    assert gone(mark) == []


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_session_ended_mid_replay_leaves_no_engine(tmp_path: Path, how: signal.Signals) -> None:
    tag, mark = new_tag(), uuid.uuid4().hex
    write_project(tmp_path, tag)
    proc = start(tmp_path, mark)
    wait_for_engine(tag, proc)
    time.sleep(0.5)
    assert len(leftovers(tag)) >= 2  # the engine and its setsid child run
    code = stop(proc, how)
    out = (tmp_path / "out.txt").read_text()
    assert gone(mark) == []
    assert leftovers(tag) == []
    if how == signal.SIGTERM:  # as Ctrl-C: the reports of what finished
        assert code == 2, out
        assert "KeyboardInterrupt: terminated by SIGTERM" in out
        assert all((tmp_path / name).is_file() for name in REPORTS), out
    else:
        assert code == -signal.SIGKILL
