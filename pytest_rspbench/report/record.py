"""One record of a case run, built once.

:func:`case_record` turns a :class:`CaseRun` into the JSON-ready record that
every report reads: ``metrics.json`` in the item's artifacts, the results file
(:func:`item_record` adds the item's identity), the terminal summary, JUnit
properties and both HTML reports (pytest-benchmark keeps one
``generate_json`` the same way). A case whose oracle failed has no verdict:
:func:`unjudged_record` builds its ``metrics.json`` from the same pieces.
Nothing else builds these keys.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.profiles import EngineProfile
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.report.assumed import profile_record, semantics_record
from pytest_rspbench.report.counterexample import Counterexample, counterexample_record
from pytest_rspbench.report.load import Load
from pytest_rspbench.report.results import compact_samples
from pytest_rspbench.rsp.bags import Solution, clip
from pytest_rspbench.rsp.outputs import ActualOutput, ExpectedOutput, Received
from pytest_rspbench.spec.model import Case
from pytest_rspbench.verdict.departures import Departure
from pytest_rspbench.verdict.metrics import WindowRow
from pytest_rspbench.verdict.strict import Assessment


@dataclass(frozen=True)
class CaseRun:
    """Everything one case produced."""

    case: Case
    profile: EngineProfile
    actual: ActualOutput
    expected: ExpectedOutput
    assessment: Assessment
    artifacts: Path | None
    counterexample: Counterexample | None = None  # --rspbench-shrink, a failing item
    # What ran beside the replay (--rspbench-oracle-ahead): the oracle in the
    # background, or nothing (paused); "" when the option is 0.
    oracle_note: str = ""
    # The load average while the replays ran (report/load.py); None where
    # the system has none, or the run was not timed by the runner.
    load: Load | None = None


RUN_KEY = pytest.StashKey[CaseRun]()
"""Where a case item keeps its :class:`CaseRun` (read by the mismatch and sweep
items and the pytest-html hooks)."""

KEPT_RESULTS = 1000
"""How many of an engine's results :func:`unjudged_record` keeps
(``results.jsonl`` keeps them all)."""


def case_record(run: CaseRun) -> dict[str, Any]:
    """A JSON-ready summary of a case run (the metrics artifact)."""
    a = run.assessment
    return (
        {
            **_identity(run.case, run.profile.name),
            "semantics": semantics_record(run.profile.semantics),
            "passed": a.passed,
            "verdict": a.headline(run.profile.semantics.bounds),
            "departures": [departure_record(d) for d in a.departures],
            "mode": a.mode,
            "matched_t0": a.matched.label if a.matched else None,
            "closest_t0": a.chosen.label,
            "t0_classes": a.classes_tried,
            "stable_from": a.stable_from,
            "evaluator": run.expected.evaluator,
            "fallback_reason": run.expected.fallback_reason,
            "oracle_seconds": round(run.expected.seconds, 3),
            "oracle_stored": run.expected.stored,
            "oracle_note": run.oracle_note or None,
            "load": None if run.load is None else run.load.as_record(),
            **_engine_side(run.actual, _engine_seconds(run)),
            "thresholds": [
                {
                    "threshold": o.threshold.text,
                    "ok": o.ok,
                    "measured": o.measured,
                    "detail": o.detail,
                }
                for o in a.outcomes
            ],
            "windows": [window_record(r) for r in a.rows],
        }
        | assessment_fields(a)
        | (
            {"t0_classes_total": run.expected.total_classes, "t0_narrowing": a.narrowing}
            if a.narrowing
            else {}
        )
        | (
            {"counterexample": counterexample_record(run.counterexample)}
            if run.counterexample is not None
            else {}
        )
    )


def unjudged_record(
    case: Case, engine: str, actual: ActualOutput, error: BaseException
) -> dict[str, Any]:
    """The record of a case run without a verdict (its oracle failed): the
    engine's side, its first :data:`KEPT_RESULTS` results and the error."""
    named = isinstance(error, RspbenchError)  # its text is the message
    return {
        **_identity(case, engine),
        "passed": False,
        "oracle_error": str(error) if named else f"{type(error).__name__}: {error}",
        **_engine_side(actual, actual.seconds),
        "engine_results_total": len(actual.received),
        "engine_results": [_result(r) for r in actual.received[:KEPT_RESULTS]],
    }


def _identity(case: Case, engine: str) -> dict[str, Any]:
    return {"spec": case.spec_name, "case": case.case_id, "engine": engine}


def _engine_side(actual: ActualOutput, seconds: float) -> dict[str, Any]:
    """What the engine did, as every record of a run has it."""
    return {
        "engine_seconds": round(seconds, 3),
        "engine_error": actual.error,
        "engine_faults": actual.faults,
        "engine_peak_rss": actual.peak_rss,
        "engine_mean_cpu": actual.mean_cpu,
        # An in-process engine's samples are the harness's memory and CPU.
        "engine_in_process": actual.in_process,
    }


def _result(received: Received) -> dict[str, Any]:
    """One result the engine streamed out, huge terms cut."""
    r = received.result
    return {
        "time": r.time,
        "window": list(r.window) if r.window else None,
        "arrival": round(received.arrival, 3),
        "bindings": [{k: clip(v) for k, v in b.items()} for b in r.bindings],
    }


def _engine_seconds(run: CaseRun) -> float:
    """The engine's wall time; the median over the replays with ``repeat``."""
    repeats = run.assessment.repeats
    if not repeats:
        return run.actual.seconds
    return statistics.median(r.engine_seconds for r in repeats)


def item_record(nodeid: str, run: CaseRun) -> dict[str, Any]:
    """The JSON-ready record of one finished case (paths still absolute)."""
    case = run.case
    return {
        "nodeid": nodeid,
        "id": f"{case.spec_name}[{case.case_id}]",
        "spec_path": str(case.spec_path),
        "params": dict(case.params),
        "profile": profile_record(case),
        "samples": compact_samples(getattr(run.actual, "samples", None) or ()),
        "artifacts": None if run.artifacts is None else str(run.artifacts),
        "outcome": None,
        "duration": 0.0,
    } | case_record(run)


def assessment_fields(a: Assessment) -> dict[str, object]:
    """JSON-ready fields about the verdict, the alignment and the run metrics."""
    return (
        {
            "matched_relations": None
            if a.span is None
            else {"first": a.span.first, "count": a.span.count, "of": a.span.total},
            "alignment": None
            if a.alignment is None
            else {"rule": a.alignment.rule, "reason": a.alignment.reason},
            "run_metrics": None if a.run is None else a.run.as_dict(),
            "scored_windows": len(a.scored),
        }
        | (
            {
                "repeats": [
                    {
                        "passed": r.passed,
                        "engine_seconds": round(r.engine_seconds, 3),
                        "engine_error": r.error,
                        "run_metrics": None if r.run is None else r.run.as_dict(),
                    }
                    for r in a.repeats
                ]
            }
            if a.repeats
            else {}
        )
        | ({"strict_difference": a.difference} if a.difference else {})
    )


def departure_record(d: Departure) -> dict[str, object]:
    """One departure of a failing case, JSON-ready (docs/reading-a-failure.md)."""
    return {
        "name": d.name,
        "title": d.kind.title,
        "explanation": d.kind.explanation,
        "count": d.count,
        "windows": [list(w) for w in d.windows],
        "detail": d.detail,
    }


def window_record(r: WindowRow) -> dict[str, object]:
    """One row of the per-window table, JSON-ready."""
    out: dict[str, object] = {
        "index": r.index,
        "window": list(r.window) if r.window else None,
        "time": r.time,
        "precision": r.precision,
        "recall": r.recall,
        "f1": r.f1,
        "delay": r.delay,
        "expected": r.expected,
        "actual": r.actual,
        "triples": r.triples,
        "missing": [_kept(s) for s in r.missing],
        "unexpected": [_kept(s) for s in r.unexpected],
    }
    if r.gracious is not None:
        g = r.gracious
        out["gracious"] = {
            "window": list(g.window),
            "precision": g.precision,
            "recall": g.recall,
            "f1": g.f1,
            "shift_start": g.shift_start,
            "shift_end": g.shift_end,
            "start_range": list(g.start_range),
            "end_range": list(g.end_range),
        }
    return out


def _kept(solution: Solution) -> dict[str, str]:
    """A solution for the record, huge terms cut (results.jsonl keeps them whole)."""
    return {name: clip(term) for name, term in solution}
