"""One run of a case through the runner, and what it showed.

Every explored case, every reduction candidate and every check of a written
spec is one :func:`attempt`: :func:`pytest_rspbench.runner.run_case`
(engine at full speed, the oracle on the exploration's one Spark, the strict
verdict over every t0 class), its outcome sorted into what exploration
tells apart::

    passed      the strict verdict found a t0 class that explains the output
    failed      it did not: ``departure`` is the first class of the verdict line
    refused     the oracle does not compute this query (UnsupportedQueryError), or
                the engine declined it at registration (an ``unsupported`` answer)
    error       the oracle (or Spark) failed, or did not finish: ``verdict`` says how

A :class:`Guard` bounds a run: past its seconds the oracle's JVM is killed
(Spark cannot cancel a plan while it is analysed, and explore met plans that
never finish), the run becomes an ``error`` and the next one gets a new JVM.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import EngineError, UnsupportedQueryError
from pytest_rspbench.report.record import CaseRun
from pytest_rspbench.spec.model import Case

# The class of a failure the verdict names nothing for (a threshold, say;
# explore sets none, so this is a fallback).
UNNAMED = "wrong-solutions"
ORACLE_ERROR = "oracle-error"
ORACLE_TIMEOUT = "oracle-timeout"


@dataclass(frozen=True)
class Tried:
    """What one run showed.

    Attributes:
        outcome: "passed", "failed", "refused" or "error".
        run: the case's run (passed and failed).
        departure: the first departure class of a failure; for an error,
            :data:`ORACLE_ERROR` or :data:`ORACLE_TIMEOUT`.
        verdict: the verdict line of a failure, or the error's first line.
    """

    outcome: str
    run: CaseRun | None = None
    departure: str = ""
    verdict: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    def shows(self, departure: str) -> bool:
        """Failed with ``departure`` among its classes."""
        if self.run is None or not self.failed:
            return False
        return departure in {d.name for d in self.run.assessment.departures}


@dataclass(frozen=True)
class Guard:
    """How long one run may take, and how to stop the oracle when it takes longer."""

    seconds: float
    kill: Callable[[], bool]


def attempt(case: Case, spark: Callable[[], Any] | Any, guard: Guard | None = None) -> Tried:
    """Run ``case`` once; the oracle's failures come back as outcomes.

    Raises:
        EngineError: the engine cannot run here (a program it needs is
            missing): nothing can be explored.
    """
    import pytest

    from pytest_rspbench.runner import Declined, run_case

    session = spark() if callable(spark) else spark
    fired = threading.Event()
    timer = _watch(guard, fired)
    try:
        run = run_case(case, session)
    except Declined as exc:
        return Tried("refused", verdict=exc.msg or "")
    except pytest.skip.Exception as exc:  # the runner skips an unavailable engine
        raise EngineError(f"{case.engine} cannot run here: {exc.msg}") from None
    except UnsupportedQueryError as exc:
        return Tried("refused", verdict=_first_line(exc))
    except Exception as exc:  # the oracle failing on a case is what explore reports
        if fired.is_set() and guard is not None:
            said = f"the oracle did not finish in {guard.seconds:g} s"
            return Tried("error", departure=ORACLE_TIMEOUT, verdict=said)
        said = f"{type(exc).__name__}: {_first_line(exc)}"
        return Tried("error", departure=ORACLE_ERROR, verdict=said)
    finally:
        if timer is not None:
            timer.cancel()
    assessment = run.assessment
    if assessment.passed:
        return Tried("passed", run)
    names = [d.name for d in assessment.departures]
    headline = assessment.headline(run.profile.semantics.bounds)
    return Tried("failed", run, names[0] if names else UNNAMED, headline)


def attempt_spec(
    path: Path, engine: str, spark: Callable[[], Any] | Any, guard: Guard | None = None
) -> Tried:
    """Run the (first) case of the spec at ``path`` against ``engine``."""
    from pytest_rspbench.spec.loader import load_spec

    spec = load_spec(path, engines=[engine])
    return attempt(spec.cases[0], spark, guard)


def _watch(guard: Guard | None, fired: threading.Event) -> threading.Timer | None:
    """A timer that kills the oracle's JVM when the run outlasts ``guard``."""
    if guard is None:
        return None

    def expire() -> None:
        fired.set()
        guard.kill()

    timer = threading.Timer(guard.seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
