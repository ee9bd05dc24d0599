"""Resource sampling over a process tree; the harness's clock and lateness record."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from engine_helpers import END, registration, tiny_stream

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.sampling import Sample, Sampler, mean_cpu, peak_rss

# A parent that holds 64 MiB and starts a child that holds 32 MiB, then waits.
TREE = """
import subprocess, sys, time
ballast = bytearray(64 * 1024 * 1024)
child = subprocess.Popen([sys.executable, "-c",
    "import sys, time; b = bytearray(32 * 1024 * 1024); "
    "print('up', flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE)
child.stdout.readline()
print("ready", flush=True)
time.sleep(60)
"""


def clock() -> tuple[float, float | None]:
    return 1.0, None


def test_samples_sum_memory_and_processes_over_the_tree(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        sampler = Sampler(proc.pid, 60, tmp_path / "samples.jsonl", clock).start()
        samples = sampler.stop()
    finally:
        for child in __import__("psutil").Process(proc.pid).children(recursive=True):
            child.kill()
        proc.kill()
        proc.wait()
    assert len(samples) == 2  # the first one at start, the last one at stop
    assert all(s.processes == 2 for s in samples)
    assert all(s.rss > 96 * 1024 * 1024 for s in samples)
    assert all(s.threads >= 2 for s in samples)
    lines = (tmp_path / "samples.jsonl").read_text().splitlines()
    assert [Sample(**json.loads(line)) for line in lines] == samples


def test_a_vanished_tree_gives_empty_samples_not_errors(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    samples = Sampler(proc.pid, 60, None, clock).start().stop()
    assert [(s.rss, s.processes) for s in samples] == [(0, 0), (0, 0)]


def test_in_process_engines_are_sampled_as_the_current_process():
    from rspbench_engines.reference.engine import ReferenceEngine

    actual = harness.run(
        ReferenceEngine(), registration(), [tiny_stream()], END, sample_interval=60
    )
    assert len(actual.samples) == 2
    assert all(s.processes == 1 for s in actual.samples)
    assert actual.peak_rss is not None and actual.peak_rss > 0


def test_summaries():
    samples = [
        Sample(0, None, 10, 0.0, 1, 1),
        Sample(0.5, None, 30, 50.0, 1, 1),
        Sample(1, None, 20, 100.0, 1, 1),
    ]
    assert peak_rss(samples) == 30
    assert mean_cpu(samples) == 75.0
    assert peak_rss([]) is None and mean_cpu(samples[:1]) is None


def test_real_time_replay_records_each_events_lateness():
    from rspbench_engines.reference.engine import ReferenceEngine

    actual = harness.run(
        ReferenceEngine(),
        registration(),
        [tiny_stream()],
        END,
        speed=100,
        sample_interval=None,
    )
    assert actual.error is None
    assert len(actual.lateness) == 13  # 12 events and the end
    assert all(late >= 0 for late in actual.lateness)
    fast = harness.run(
        ReferenceEngine(), registration(), [tiny_stream()], END, sample_interval=None
    )
    assert fast.lateness == []  # max rate has no schedule to be late for


def test_a_hung_in_process_engine_times_out_with_its_name():
    from rspbench_engines.reference.engine import ReferenceEngine

    class Stuck(ReferenceEngine):
        name = "stuck"

        def end(self, end_time: int) -> None:
            import threading

            threading.Event().wait()

    actual = harness.run(
        Stuck(), registration(), [tiny_stream()], END, timeout=0.5, sample_interval=None
    )
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'stuck' did not finish within 0.5 s (timeout); 12 events sent, 4 results received."
    )
    assert actual.error.endswith("the engine did not stop after abort().")


def test_elapsed_never_goes_back_even_when_the_replay_clock_restarts():
    """The replay clock restarts at the first event; samples taken before it
    must not run backwards (their ``elapsed`` is since the first sample)."""
    readings = iter([(0.1649, None), (0.0596, None), (0.2, None), (0.3, None)])
    sampler = Sampler(None, 60, None, lambda: next(readings, (9.0, None))).start()
    sampler._take()
    sampler._take()
    samples = sampler.stop()
    elapsed = [s.elapsed for s in samples]
    assert elapsed[0] == 0.0
    assert elapsed == sorted(elapsed)


def test_mean_cpu_is_cpu_time_over_wall_time():
    """A 10 ms last interval at 300% (one clock tick too many) weighs 1%."""
    samples = [
        Sample(0.0, None, 1, 0.0, 1, 1),
        Sample(1.0, None, 1, 100.0, 1, 1),
        Sample(2.0, None, 1, 50.0, 1, 1),
        Sample(2.01, None, 1, 300.0, 1, 1),
    ]
    assert mean_cpu(samples) == pytest.approx((100 + 50 + 3) / 2.01)
    unweighted = sum(s.cpu for s in samples[1:]) / 3
    assert unweighted == 150 and mean_cpu(samples) < 77


def test_the_panel_says_too_short_to_sample_below_three_samples():
    from pytest_rspbench.report.panel import resource_chart

    two = [{"elapsed": 0.0, "rss": 2**20, "cpu": 0.0}, {"elapsed": 0.01, "rss": 2**20, "cpu": 9}]
    assert "too short to sample (2 samples)" in resource_chart(two, [])
    three = [*two, {"elapsed": 0.5, "rss": 2**20, "cpu": 50.0}]
    assert "<svg" in resource_chart(three, [])
