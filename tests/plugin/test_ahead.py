"""``--rspbench-oracle-ahead``: expected outputs computed while engines replay."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from pytest_rspbench.ahead import DURING, PAUSED, OracleAhead, _Gate, judges_performance
from pytest_rspbench.spec.thresholds import parse as parse_threshold

from helpers.project import engine_yaml

SLOW_ENGINE = '''
import time
from rspbench_engines.reference.engine import ReferenceEngine


class Slow(ReferenceEngine):
    """The reference engine, 0.3 s slower per event: a replay that takes a while."""

    name = "slow"

    def push(self, stream, event):
        time.sleep(0.3)
        super().push(stream, event)
'''


def test_a_timed_replay_waits_for_the_running_computation_and_holds_off_the_next() -> None:
    gate = _Gate()
    order: list[str] = []
    started, release = threading.Event(), threading.Event()

    def computation(name: str, hold: threading.Event | None) -> None:
        with gate.working():
            order.append(f"{name} starts")
            started.set()
            if hold is not None:
                hold.wait(10)
            order.append(f"{name} ends")

    first = threading.Thread(target=computation, args=("first", release))
    first.start()
    started.wait(10)

    def replay() -> None:
        with gate.closed():
            order.append("replay")
            second = threading.Thread(target=computation, args=("second", None))
            second.start()
            second.join(0.2)  # it may not start while the gate is closed
            order.append("replay ends")
        second.join(10)

    replayer = threading.Thread(target=replay)
    replayer.start()
    release.set()
    replayer.join(10)
    first.join(10)
    assert order == [
        "first starts",
        "first ends",
        "replay",
        "replay ends",
        "second starts",
        "second ends",
    ]


def test_specs_judging_delay_memory_cpu_sweeps_or_repeats_are_timed(tiny_case) -> None:
    assert not judges_performance(tiny_case)
    for text in ("delay.p95 <= 1s", "peak_rss <= 1GB", "mean_cpu <= 150%"):
        assert judges_performance(replace(tiny_case, thresholds=(parse_threshold(text),)))
    assert not judges_performance(
        replace(tiny_case, thresholds=(parse_threshold("recall >= 1 in every window"),))
    )
    assert judges_performance(replace(tiny_case, repeat=3))


def test_nothing_runs_in_the_background_with_zero_threads(tiny_case) -> None:
    def no_spark() -> None:
        raise AssertionError("Spark asked for")

    ahead = OracleAhead(0, no_spark, lambda: None)
    ahead.submit("a", tiny_case)
    assert ahead.take("a", tiny_case) is None
    ahead.close()


@pytest.fixture
def tiny_case(project, pytester):
    from pytest_rspbench.spec.loader import load_spec

    project()
    return load_spec(pytester.path / "tiny.rspbench.yaml").cases[0]


def _notes(pytester) -> dict[str, object]:
    items = json.loads((pytester.path / "r.json").read_text())["items"]
    return {item["id"]: item.get("oracle_note") for item in items}


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_the_oracle_runs_during_the_replay_and_the_report_says_so(project, pytester):
    pytester.makepyfile(slow_engines=SLOW_ENGINE)
    pytester.makefile(".yaml", slow=engine_yaml("slow", "slow_engines:Slow"))
    project(engines="slow.yaml")
    result = pytester.runpytest("--rspbench-json", "r.json", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert set(_notes(pytester).values()) == {DURING}


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_spec_judging_delay_replays_with_the_oracle_paused(project, pytester):
    # An instant replay has no delay to judge: the items fail on the
    # threshold, which does not matter here.
    project(extra="thresholds:\n  - delay.p95 <= 10s\n")
    pytester.runpytest("--rspbench-json", "r.json", "-p", "no:randomly")
    assert set(_notes(pytester).values()) == {PAUSED}


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_zero_computes_after_the_replay_with_the_same_verdicts(project, pytester):
    pytester.makepyfile(
        faulty=(
            "from rspbench_engines.reference.engine import ReferenceEngine\n"
            "from pytest_rspbench.engine.api import Result\n"
            "class DropsOne(ReferenceEngine):\n"
            "    name = 'drops-one'\n"
            "    def open(self, registration, emit):\n"
            "        super().open(registration, lambda r: emit("
            "Result(r.bindings[1:], r.time, r.window)))\n"
        )
    )
    pytester.makefile(".yaml", drops=engine_yaml("drops-one", "faulty:DropsOne"))
    project(engines="reference, drops.yaml")
    outcomes = {}
    for threads in ("2", "0"):
        result = pytester.runpytest(
            "--rspbench-json", "r.json", "-p", "no:randomly", "--rspbench-oracle-ahead", threads
        )
        result.assert_outcomes(passed=2, failed=2)
        items = json.loads((pytester.path / "r.json").read_text())["items"]
        outcomes[threads] = {i["id"]: (i["outcome"], i["verdict"]) for i in items}
        notes = {i.get("oracle_note") for i in items}
        assert notes == ({DURING} if threads == "2" else {None})
    assert outcomes["2"] == outcomes["0"]


def test_a_bad_thread_count_is_a_usage_error(project, pytester):
    project()
    result = pytester.runpytest("--rspbench-oracle-ahead", "two")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--rspbench-oracle-ahead: 'two' is not a number of threads*"])


def test_background_threads_parse_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython 3.11 corrupts ast.parse run in two threads at once (pytest's
    assertion rewriting of a lazily imported module beside the oracle's code
    digest): once the pool exists, every ast.parse holds one lock."""
    import ast

    from pytest_rspbench import ahead

    held: list[bool] = []

    def original(*args: object, **kwargs: object) -> ast.Module:
        # An RLock held by this thread can be taken again without blocking;
        # from another thread it could not: try from one.
        free = threading.Event()

        def probe() -> None:
            if ahead._AST_LOCK.acquire(blocking=False):
                ahead._AST_LOCK.release()
                free.set()

        other = threading.Thread(target=probe)
        other.start()
        other.join()
        held.append(not free.is_set())
        return ast.Module(body=[], type_ignores=[])

    monkeypatch.setattr(ast, "parse", original)
    pool = OracleAhead(1, spark=lambda: None, cache=lambda: None)
    monkeypatch.setattr(pool, "_compute", lambda case: None)
    pool.submit("item", object())  # type: ignore[arg-type]
    pool.close()
    ast.parse("x = 1")
    ahead.serialise_ast_parse()  # a second time wraps nothing again
    ast.parse("y = 2")
    assert held == [True, True]
    assert ast.parse.__wrapped__ is original  # type: ignore[attr-defined]
