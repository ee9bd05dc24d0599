"""Every engine fault gives a clear error naming the engine and its stderr.

Crash, hang, garbage or truncated output lines, stderr floods and an engine
that never starts, first through the harness (fast, no Spark), then as pytest
items: the item fails with the message, the other items keep running and the
artifacts keep what was captured up to the fault. test_fault_suite.py runs
every fault of fake_engine.py through the same checks; the tests here pin
the exact messages and the subtler faults (a NaN time, exit 0
before the end, the status after a kill, a stderr flood, a child holding stdout).
"""

from __future__ import annotations

import json
import re
import sys
import time

import pytest
from engine_helpers import (
    END,
    EX,
    FAKE_ENGINE,
    fake_config,
    leftovers,
    new_tag,
    registration,
    run_fake,
    tiny_events,
    tiny_stream,
)
from test_process import sleepers_since

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.process import ProcessConfig, ProcessEngine
from pytest_rspbench.errors import EngineError

from helpers.project import profile_yaml

# -- through the harness -------------------------------------------------------


def test_crash_names_engine_exit_code_progress_and_stderr(artifacts):
    actual = run_fake("crash=3000", artifacts=artifacts, speed=20)
    assert actual.error is not None
    lines = actual.error.splitlines()
    assert lines[0] == "engine 'fake' stopped unexpectedly: exit code 3"
    assert re.fullmatch(r"state: replay; \d+ events sent, the last at t=\d+ ms", lines[1])
    assert "fake_engine: RuntimeError: simulated crash at t=3000" in actual.error
    assert f"whole log: {artifacts / 'stderr.txt'}" in actual.error


def test_results_before_a_crash_are_kept(artifacts):
    actual = run_fake("crash=7000", artifacts=artifacts)
    assert actual.error is not None
    windows = [r.result.window for r in actual.received]
    assert windows[:2] == [(0, 4000), (2000, 6000)]
    recorded = (artifacts / "stdout.jsonl").read_text().splitlines()
    assert sum(json.loads(line)["type"] == "result" for line in recorded) == len(windows)


def test_hang_times_out_and_kills_the_whole_process_tree(artifacts):
    start = time.time() - 1
    actual = run_fake("hang=3000", "child", artifacts=artifacts, timeout=8, speed=10)
    assert actual.error is not None
    head, *rest = actual.error.splitlines()
    assert head.startswith("engine 'fake' did not finish within 8 s (timeout);")
    assert "exit status: signal 15 (SIGTERM)" in rest
    assert "fake_engine: hanging now" in actual.error
    assert sleepers_since(start) == []


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        ("term=7", "exit code 7"),
        ("ignore-term", "signal 9 (SIGKILL)"),
    ],
)
def test_the_real_exit_status_is_reported_after_the_kill(artifacts, fault, status):
    """The engine's own status, though psutil reaps it before Popen (which would say 'exit code 0')."""
    actual = run_fake("hang=3000", fault, artifacts=artifacts, timeout=3)
    assert actual.error is not None
    assert f"exit status: {status}" in actual.error.splitlines()


def test_garbage_line_is_a_fault_and_the_run_goes_on(artifacts):
    actual = run_fake("garbage=3000", artifacts=artifacts)
    assert actual.faults == ["stdout line 3: not JSON (Expecting value): 'this is not json'"]
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' broke the engine protocol (docs/engine-protocol.md):\n"
        "  stdout line 3: not JSON"
    )
    assert len(actual.received) == 5  # every window was still reported


def test_truncated_line_at_exit_is_a_fault(artifacts):
    actual = run_fake("truncate=3000", artifacts=artifacts)
    assert actual.faults == [
        "stdout line 3: truncated (no newline: the engine stopped mid-line): "
        '\'{"type": "result", "bindings": [{"obs": "<http://ex\''
    ]
    assert actual.error is not None
    # It exited mid-stream: that is the verdict; the bad line is listed after it.
    assert actual.error.startswith("engine 'fake' exited with code 0 ")
    assert "exit status: exit code 0" in actual.error
    assert actual.error.endswith(
        "it also broke the engine protocol:\n  stdout line 3: truncated "
        '(no newline: the engine stopped mid-line): \'{"type": "result", '
        '"bindings": [{"obs": "<http://ex\''
    )


@pytest.mark.parametrize("constant", ["NaN", "Infinity"])
def test_a_nan_or_infinite_time_is_a_fault_and_the_reading_goes_on(artifacts, constant):
    """A NaN or infinite time does not stop the reader: ``int(nan)`` raises, and later lines count."""
    actual = run_fake("nan=3000", artifacts=artifacts)
    line = 3 if constant == "NaN" else 4
    assert (
        f"stdout line {line}: not JSON ({constant} is not a JSON number): "
        f'\'{{"type": "result", "bindings": [], "time": {constant}}}\''
    ) in actual.faults
    assert len(actual.received) == 5  # the lines after it still count
    assert actual.error is not None
    assert actual.error.startswith("engine 'fake' broke the engine protocol")
    recorded = (artifacts / "stdout.jsonl").read_text().splitlines()
    assert recorded[-1] == '{"type": "done"}'  # 'done' was read, no timeout


def test_an_engine_that_exits_0_without_reading_its_input_has_not_finished(artifacts):
    """Exit 0 right after 'registered', with input left unread, is not a finished run."""
    actual = run_fake("exit0=300", artifacts=artifacts)
    assert actual.error is not None
    assert re.match(
        r"engine 'fake' exited with code 0 before the end of the stream "
        r"\(\d+ bytes of its input never read\), without sending 'done'\n"
        r"HINT: .*\nstate: end; 12 events sent",
        actual.error,
    ), actual.error


@pytest.mark.parametrize("repeat", range(3))
def test_an_immediate_exit_0_is_an_error_whoever_sees_it_first(artifacts, repeat):
    """The push, the flush or the wait for 'done' may see the exit: all say so."""
    actual = run_fake("exit0=0", artifacts=artifacts)
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' exited with code 0 before the end of the stream"
    ), actual.error


def test_an_exit_0_seen_only_when_end_is_written_is_before_the_end_of_the_stream(
    artifacts, monkeypatch
):
    """The interleaving CI met: every event still in the stdin buffer when the
    engine died, so the write of 'end' was the first to fail. The engine got
    none of them; it did not quit after 'end'."""
    from pytest_rspbench.engine import process

    monkeypatch.setattr(process, "FLUSH_AFTER", 3600.0)  # no delivery before 'end'
    artifacts.mkdir(parents=True)
    engine = ProcessEngine(fake_config("exit0=300"), "fake", artifacts)
    engine.open(registration(), lambda result: None)
    for event in tiny_events():  # well within the 300 ms before it exits
        engine.push(EX + "s", event)
    assert engine._tree is not None
    engine._tree.proc.wait(10)
    with pytest.raises(EngineError) as raised:
        engine.end(END)
    engine.close()
    first = str(raised.value).splitlines()[0]
    assert first == (
        "engine 'fake' exited with code 0 before the end of the stream "
        "(its stdin closed before all the events were delivered), without sending 'done'"
    )


def test_an_exit_0_after_end_without_done_is_an_error(artifacts):
    """A clean exit is no proof of a finished stream: 'done' is."""
    actual = run_fake("exit-at-end", artifacts=artifacts)
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' exited with code 0 without sending 'done' after 'end'\n"
        'HINT: an engine answers \'end\' with {"type": "done"} after its last result'
    )
    assert len(actual.received) == 5  # what it sent is kept


def test_binding_that_is_not_an_rdf_term_is_a_fault(artifacts):
    actual = run_fake("badterm=3000", artifacts=artifacts)
    assert len(actual.faults) == 1
    assert "binding ?v = '85' is not an N-Triples term" in actual.faults[0]


def test_fatal_error_message_stops_the_run(artifacts):
    actual = run_fake("fatal=3000", artifacts=artifacts, speed=20)
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' reported a fatal error: out of memory in window store\n"
    )
    assert actual.received == []


def test_a_fatal_error_counts_even_when_done_follows(artifacts):
    """A fatal error the harness read before 'done' was dropped if 'done' came too."""
    actual = run_fake("fatal-go-on=3000", artifacts=artifacts)
    assert actual.error is not None
    assert actual.error.startswith("engine 'fake' reported a fatal error: index corrupted\n")


def test_stderr_flood_neither_blocks_nor_bloats(tmp_path):
    artifacts = tmp_path / "art"
    engine_out = run_fake("flood=30000000", artifacts=artifacts)
    assert engine_out.error is None  # verbose logging is not a fault
    assert len(engine_out.received) == 5
    kept = (artifacts / "stderr.txt").stat().st_size
    assert 16 * 1024 * 1024 - 4096 <= kept < 16 * 1024 * 1024 + 200


def test_stderr_txt_keeps_the_head_and_the_tail_of_a_flood(artifacts):
    """Not only the first 16 MiB are kept: the last lines are the ones that explain a crash."""
    actual = run_fake("flood=30000000", "crash=3000", artifacts=artifacts)
    assert actual.error is not None
    text = (artifacts / "stderr.txt").read_bytes()
    assert text.startswith(b"x" * 99 + b"\n")
    assert re.search(
        rb"\n\[rspbench: \d+ bytes of stderr dropped here; kept the first \d+ and the "
        rb"last \d+ of 30000079\]\n",
        text,
    )
    assert text.endswith(
        b"fake_engine: end of flood\nfake_engine: RuntimeError: simulated crash at t=3000\n"
    )
    assert len(text) < 16 * 1024 * 1024 + 200


def test_stderr_flood_before_a_crash_shows_only_a_bounded_tail(artifacts):
    actual = run_fake("flood=5000000", "crash=3000", artifacts=artifacts)
    assert actual.error is not None
    assert len(actual.error) < 4000
    assert "5000079 bytes in all" in actual.error
    assert actual.error.splitlines()[-2] == "fake_engine: RuntimeError: simulated crash at t=3000"


def test_engine_that_never_says_hello_times_out_the_handshake(artifacts):
    actual = run_fake("silent", artifacts=artifacts, handshake_timeout=1)
    assert actual.error is not None
    assert actual.error.startswith("engine 'fake' did not send its hello within 1 s of starting")
    assert "it never started." in actual.error
    assert "HINT: an engine must write" in actual.error
    assert "fake_engine: warming up forever" in actual.error


def test_engine_that_exits_before_its_hello(artifacts):
    actual = run_fake("early-exit", artifacts=artifacts)
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' stopped unexpectedly: exit code 2 before sending its hello"
    )
    assert "fake_engine: cannot load the model file" in actual.error


def test_banner_on_stdout_before_the_hello(artifacts):
    actual = run_fake("banner", artifacts=artifacts)
    assert actual.error is not None
    assert actual.error.startswith(
        "engine 'fake' wrote 'Fake Engine 1.0 starting...' "
        "(not JSON (Expecting value)) instead of its hello\n"
        "HINT: stdout is for protocol messages only; log to stderr."
    )


def test_engine_that_never_answers_end_times_out(artifacts):
    actual = run_fake("no-done", artifacts=artifacts, timeout=8)
    assert actual.error is not None
    assert "did not finish within 8 s (timeout)" in actual.error
    assert "state: end (aborted after the timeout); 12 events sent" in actual.error
    assert len(actual.received) == 5


def test_missing_program_cannot_start(artifacts):
    engine = ProcessEngine(ProcessConfig(("/nonexistent/engine",), artifacts.parent), "ghost")
    actual = harness.run(engine, registration(), [tiny_stream()], END, sample_interval=None)
    assert actual.error is not None
    assert actual.error.startswith("engine 'ghost': cannot start ['/nonexistent/engine'] in ")
    assert "HINT: check adapter.command and adapter.cwd in its engine.yaml." in actual.error


# -- as pytest items -----------------------------------------------------------

FAULTS_TAG = new_tag()  # carried by the fake engines' processes below


def fake_yaml(name: str, *faults: str, timeout: float = 5) -> str:
    command = json.dumps([sys.executable, str(FAKE_ENGINE), *faults])
    adapter = f"command: {command}\nhandshake_timeout: {timeout}\nshutdown_grace: 1"
    return profile_yaml(name, adapter)


@pytest.fixture
def fake_engines(spec_project, pytester):
    engines = {
        "fake-ok": (),
        "fake-crash": ("crash=3000",),
        "fake-hang": ("hang=3000", "child"),
        "fake-garbage": ("garbage=3000",),
        "fake-silent": ("silent",),
        "fake-nan": ("nan=3000",),
        "fake-quits": ("exit0=300",),
        "fake-leaks": ("setsid-child", "daemon", "crash=3000"),
    }
    for name, faults in engines.items():
        wait = 2 if name == "fake-silent" else 30  # the handshake timeout
        tagged = (*faults, f"tag={FAULTS_TAG}")
        pytester.makefile(".yaml", **{name: fake_yaml(name, *tagged, timeout=wait)})
    return spec_project


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_process_engine_passes_the_tiny_spec(fake_engines, pytester):
    fake_engines(engines="fake-ok.yaml", steps="[2000, 4000]")
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_each_fault_fails_its_items_and_the_others_still_run(fake_engines, pytester):
    fake_engines(
        engines="fake-crash.yaml, fake-hang.yaml, fake-ok.yaml, fake-garbage.yaml, "
        "fake-silent.yaml, fake-nan.yaml, fake-quits.yaml, fake-leaks.yaml",
        extra="replay:\n  speed: 10\n  timeout: 10\n",
    )
    result = pytester.runpytest("--rspbench-artifacts", "art")
    result.assert_outcomes(passed=1, failed=7)
    result.stdout.fnmatch_lines_random(
        [
            "*engine error: engine 'fake-crash' stopped unexpectedly: exit code 3",
            "*fake_engine: RuntimeError: simulated crash at t=3000",
            "*engine error: engine 'fake-hang' did not finish within 10 s (timeout);*",
            "*fake_engine: hanging now",
            "*engine error: engine 'fake-garbage' broke the engine protocol*",
            "*stdout line 3: not JSON (Expecting value): 'this is not json'",
            "*engine error: engine 'fake-silent' did not send its hello within 2 s*",
            "*fake_engine: warming up forever",
            "*engine error: engine 'fake-nan' broke the engine protocol*",
            "*stdout line 3: not JSON (NaN is not a JSON number)*",
            "*engine error: engine 'fake-quits' exited with code 0 before the end of*",
            "*engine error: engine 'fake-leaks' stopped unexpectedly: exit code 3*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert leftovers(FAULTS_TAG) == []
    crashed = next(p for p in (pytester.path / "art").iterdir() if "fake-crash" in p.name)
    kept = {p.name for p in crashed.iterdir()}
    assert {"stderr.txt", "stdout.jsonl", "results.jsonl", "engine-error.txt"} <= kept
    assert "simulated crash" in (crashed / "engine-error.txt").read_text()


def test_engine_whose_program_is_missing_is_skipped_with_the_hint(spec_project, pytester):
    pytester.makefile(
        ".yaml",
        ghost=fake_yaml("ghost").replace(
            json.dumps([sys.executable, str(FAKE_ENGINE)]), '["no-such-engine-binary"]'
        )
        + "install_hint: pip install ghost-engine\n",
    )
    spec_project(engines="ghost.yaml")
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*engine 'ghost' needs 'no-such-engine-binary', which is neither*",
        ]
    )
