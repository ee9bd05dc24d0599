"""The fault-injection suite: every way an engine process can misbehave, one check.

Each case runs tests/engine/fake_engine.py with some faults through the
harness (``harness.run``, no Spark) and asserts what the harness promises
(docs/reliability.md):

* one clear error whose first line is the verdict, or no error when the
  fault is harmless (a correct verdict);
* no Python traceback in the message, and the message is short;
* the artifacts are kept: stdout.jsonl, stderr.txt (head and tail),
  results.jsonl with every result received before the fault;
* no process is left behind (psutil finds nothing carrying the case's tag);
* memory stays bounded (tracemalloc peak of the harness) and the run ends
  within its timeout plus the shutdown grace.

``test_engine_faults_as_items`` in test_faults.py runs a few of these as
pytest items next to a correct engine.
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from dataclasses import dataclass

import pytest
from engine_helpers import END, fake_config, leftovers, new_tag, registration, tiny_stream

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.process import ProcessEngine

MEMORY_BOUND = 64 * 1024 * 1024  # bytes the harness may allocate for one run
MESSAGE_BOUND = 6000  # characters of an error message
CRASH = r"engine 'fake' stopped unexpectedly: exit code 3"
PROTOCOL = r"engine 'fake' broke the engine protocol \(docs/engine-protocol\.md\):$"
TIMEOUT = r"engine 'fake' did not finish within 3 s \(timeout\); "


@dataclass(frozen=True)
class Case:
    """One fault: fake_engine.py arguments and what must come of them.

    ``verdict`` matches the first line of the error ("" for no error);
    ``results`` is how many results must be received and kept (the tiny
    spec has 5 windows; None: not fixed by the fault); ``said`` must be in the
    message (a line of the engine's stderr, or a fault).
    """

    faults: tuple[str, ...]
    verdict: str
    results: int | None = None
    said: str = ""
    timeout: float = 30.0
    speed: float = 0.0


CASES = {
    # crashes
    "crash at start": Case(
        ("early-exit",),
        r"engine 'fake' stopped unexpectedly: exit code 2 before sending its hello$",
        0,
        "fake_engine: cannot load the model file",
    ),
    "crash mid-stream": Case(
        ("crash=7000",), CRASH, 2, "RuntimeError: simulated crash at t=7000", speed=20
    ),
    "fatal error message": Case(
        ("fatal=3000",),
        r"engine 'fake' reported a fatal error: out of memory in window store$",
        0,
    ),
    # hangs
    "hang": Case(("hang=3000",), TIMEOUT, 0, "exit status: signal 15 (SIGTERM)", 3),
    "hang, ignores SIGTERM": Case(
        ("hang=3000", "ignore-term"), TIMEOUT, 0, "exit status: signal 9 (SIGKILL)", 3
    ),
    "hang, exits 7 on SIGTERM": Case(
        ("hang=3000", "term=7"), TIMEOUT, 0, "exit status: exit code 7", 3
    ),
    "never answers end": Case(("no-done",), TIMEOUT, 5, "state: end (aborted", 3),
    "never says hello": Case(
        ("silent",),
        r"engine 'fake' did not send its hello within 1 s of starting ",
        0,
        "fake_engine: warming up forever",
    ),
    # bad output
    "banner before hello": Case(
        ("banner",), r"engine 'fake' wrote 'Fake Engine 1.0 starting...' .* instead of its hello$"
    ),
    "garbage line": Case(("garbage=3000",), PROTOCOL, 5, "stdout line 3: not JSON"),
    "bytes that are not UTF-8": Case(("binary",), PROTOCOL, 5, "stdout line 3: not JSON"),
    "NaN and Infinity times": Case(
        ("nan=3000",), PROTOCOL, 5, "stdout line 4: not JSON (Infinity is not a JSON number)"
    ),
    "JSON nested 100,000 deep": Case(("deep",), PROTOCOL, 5, "not JSON (nested too deeply)"),
    "a 20 MB line": Case(
        ("huge=20000000",), PROTOCOL, 5, "stdout line 3: 20000044 bytes, longer than 16777216"
    ),
    "wrong types": Case(
        ("wrong-types=3000",), PROTOCOL, 5, "error 'fatal' must be true or false, got 'no'"
    ),
    "a 10 MB fatal error message": Case(
        ("huge-error",), r"engine 'fake' reported a fatal error: x{2000}\.\.\. \(10000000 char"
    ),
    "a 10 MB bad value": Case(
        ("huge-value=10000000",), PROTOCOL, 5, "'time' must be an integer (ms), got '999"
    ),
    "binding that is not a term": Case(("badterm=3000",), PROTOCOL, 5, "is not an N-Triples term"),
    "20,000 garbage lines": Case(
        ("stdout-flood=20000",), PROTOCOL, 5, "(19980 more faults not listed)"
    ),
    "truncated last line": Case(
        ("truncate=3000",), r"engine 'fake' exited with code 0 ", 0, "stdout line 3: truncated"
    ),
    # stderr
    "30 MB of stderr": Case(("flood=30000000",), "", 5),
    "30 MB of stderr, then a crash": Case(
        ("flood=30000000", "crash=3000"), CRASH, 0, "30000079 bytes in all"
    ),
    # early exits
    "exit 0 after registered": Case(
        ("exit0=300",), r"engine 'fake' exited with code 0 before the end of the stream ", 0
    ),
    "exit 0 at once": Case(
        ("exit0=0",), r"engine 'fake' exited with code 0 before the end of the stream", 0
    ),
    "exit 0 instead of done": Case(
        ("exit-at-end",), r"engine 'fake' exited with code 0 without sending 'done' after 'end'$", 5
    ),
    "closes stdout, runs on": Case(
        ("close-stdout=3000",),
        r"engine 'fake' closed its stdout but kept running",
        0,
        "fake_engine: closing stdout",
    ),
    # processes it leaves
    "child, then a hang": Case(("child", "hang=3000"), TIMEOUT, 0, "", 3),
    "setsid child": Case(("setsid-child",), "", 5, speed=10),
    "setsid child, then a crash": Case(("setsid-child", "crash=3000"), CRASH, 0),
    "setsid child, then a hang": Case(("setsid-child", "hang=3000"), TIMEOUT, 0, "", 3),
    "daemon (double fork)": Case(("daemon",), "", 5, speed=10),
    "daemon, then a crash": Case(("daemon", "crash=3000"), CRASH, 0),
    "detached child (no mark, no pipes)": Case(("detached-child",), "", 5, speed=10),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_fault(case: Case, artifacts):
    tag = new_tag()
    artifacts.mkdir(parents=True)
    started = time.monotonic()
    tracemalloc.start()
    try:
        with (artifacts / "results.jsonl").open("w") as record:
            actual = harness.run(
                ProcessEngine(
                    fake_config(*case.faults, f"tag={tag}", handshake_timeout=1),
                    "fake",
                    artifacts,
                ),
                registration(),
                [tiny_stream()],
                END,
                speed=case.speed,
                timeout=case.timeout,
                record=record,
                artifacts=artifacts,
                sample_interval=None,
            )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    seconds = time.monotonic() - started

    if case.verdict:
        assert actual.error is not None
        assert re.match(case.verdict, actual.error.splitlines()[0]), actual.error
        assert "Traceback" not in actual.error
        assert len(actual.error) < MESSAGE_BOUND
        assert case.said in actual.error
    else:
        assert actual.error is None
    if case.results is not None:
        assert len(actual.received) == case.results
    kept = (artifacts / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["window"] for line in kept] == [
        list(r.result.window or ()) for r in actual.received
    ]
    assert {"stdout.jsonl", "stderr.txt"} <= {p.name for p in artifacts.iterdir()}
    assert leftovers(tag) == []
    assert peak < MEMORY_BOUND
    assert seconds < case.timeout + 10
