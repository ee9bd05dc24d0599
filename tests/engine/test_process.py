"""ProcessEngine: an engine process driven through the JSON-lines protocol."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import psutil
from engine_helpers import END, registration, run_fake, tiny_events, tiny_stream
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Result
from pytest_rspbench.engine.process import ProcessConfig, ProcessEngine


def reference_results() -> list[Result]:
    out: list[Result] = []
    engine = ReferenceEngine()
    engine.open(registration(), out.append)
    for event in tiny_events():
        engine.push(tiny_stream().iri, event)
    engine.end(END)
    return out


def test_a_process_engine_answers_like_the_same_engine_in_process(artifacts):
    actual = run_fake(artifacts=artifacts)
    assert actual.error is None
    assert [r.result for r in actual.received] == reference_results()
    assert actual.events_sent == 12
    assert actual.faults == []


def sleepers_since(start: float) -> list[psutil.Process]:
    """fake_engine.py's 'child' processes started after ``start``."""
    return [
        p
        for p in psutil.process_iter(["cmdline", "create_time"])
        if "time.sleep(600)" in " ".join(p.info["cmdline"] or [])
        and p.info["create_time"] >= start
        and p.status() != psutil.STATUS_ZOMBIE
    ]


def test_the_engine_process_and_its_children_are_gone_after_the_run(artifacts):
    start = time.time() - 1
    engine = ProcessEngine(
        ProcessConfig(
            (sys.executable, str(Path(__file__).with_name("fake_engine.py")), "child"),
            Path.cwd(),
        ),
        "fake",
    )
    actual = harness.run(engine, registration(), [tiny_stream()], END, sample_interval=60)
    assert actual.samples[0].processes == 2  # the engine and its child were sampled
    pid = engine.pid()
    assert pid is not None
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert sleepers_since(start) == []


def test_stdout_and_stderr_are_kept_in_the_artifacts(artifacts):
    run_fake("flood=1000", artifacts=artifacts)
    lines = (artifacts / "stdout.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "hello"
    assert json.loads(lines[-1]) == {"type": "done"}
    assert "fake_engine: end of flood" in (artifacts / "stderr.txt").read_text()


def test_the_hello_tells_name_and_version():
    engine = ProcessEngine(
        ProcessConfig(
            (
                sys.executable,
                "-m",
                "pytest_rspbench.engine.server",
                "rspbench_engines.reference.engine:ReferenceEngine",
            ),
            Path.cwd(),
        ),
        "served",
    )
    try:
        engine.open(registration(), lambda result: None)
        assert engine.hello is not None
        assert (engine.hello.name, engine.version) == (
            "reference",
            ReferenceEngine.version,
        )
        assert engine.hello.capabilities == {"window": True}
    finally:
        engine.close()


def test_samples_cover_the_engine_process(artifacts):
    actual = run_fake(artifacts=artifacts, sample_interval=0.05, speed=20)
    assert len(actual.samples) >= 2
    assert actual.peak_rss is not None and actual.peak_rss > 1_000_000
    assert all(s.processes == 1 for s in actual.samples[:-1])
    lines = (artifacts / "samples.jsonl").read_text().splitlines()
    assert len(lines) == len(actual.samples)
    assert set(json.loads(lines[0])) == {
        "elapsed",
        "app_time",
        "rss",
        "cpu",
        "threads",
        "processes",
    }
