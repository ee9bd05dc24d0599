"""One run sorted by its outcome; a run that outlasts its guard is stopped.

The runner is faked: the outcomes are what ``run_case`` raises or returns.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench import runner
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.errors import EngineError, OracleError, UnsupportedQueryError
from pytest_rspbench.explore.cases import generate, materialize
from pytest_rspbench.explore.scope import scope_of
from pytest_rspbench.explore.trials import Guard, attempt


@pytest.fixture
def case(tmp_path: Path) -> Any:
    generated = generate(1, 0, scope_of(resolve("reference", Path.cwd())))
    return materialize(generated, tmp_path, "reference")


def raising(exc: BaseException) -> Any:
    def run_case(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return run_case


def test_the_oracle_refusing_is_no_failure(case: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "run_case", raising(UnsupportedQueryError("the query uses Foo")))
    tried = attempt(case, None)
    assert (tried.outcome, tried.verdict) == ("refused", "the query uses Foo")


def test_the_oracle_failing_is_an_error_with_its_first_line(
    case: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "run_case", raising(OracleError("Spark died\nmore")))
    tried = attempt(case, None)
    assert (tried.outcome, tried.verdict) == ("error", "OracleError: Spark died")


def test_an_engine_that_cannot_run_stops_everything(
    case: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "run_case", raising(pytest.skip.Exception("node not found")))
    with pytest.raises(EngineError, match="cannot run here: node not found"):
        attempt(case, None)


def test_a_run_past_its_guard_is_stopped_by_killing_the_oracle(
    case: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    killed = threading.Event()

    def run_case(*args: Any, **kwargs: Any) -> Any:
        # As a py4j call does when its JVM is killed: it fails.
        assert killed.wait(10), "the guard never fired"
        raise ConnectionError("Answer from Java side is empty")

    def kill() -> bool:
        killed.set()
        return True

    monkeypatch.setattr(runner, "run_case", run_case)
    tried = attempt(case, lambda: None, Guard(0.05, kill))
    assert (tried.outcome, tried.departure) == ("error", "oracle-timeout")
    assert tried.verdict == "the oracle did not finish in 0.05 s"
