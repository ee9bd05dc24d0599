"""Probes the profile excludes, or the engine declines, are not supported.

An engine whose profile streams out RStream only, or lists ``two-windows``
under ``unsupported:``, is not asked to run the probes that need them; an
engine answering ``unsupported`` to a probe's registration has it skipped
too. Their dimensions read ``not supported``: no departure, no oracle call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.engine.profiles import EngineProfile, resolve
from pytest_rspbench.fingerprint import report
from pytest_rspbench.fingerprint.conclusions import NOT_SUPPORTED
from pytest_rspbench.fingerprint.inference import Inference
from pytest_rspbench.fingerprint.probes import BY_NAME, PROBES
from pytest_rspbench.fingerprint.runs import Recorded, excluded, record
from pytest_rspbench.rsp.outputs import ActualOutput

ENGINE = """\
name: rstream-only
adapter:
  python: rspbench_engines.reference.engine:ReferenceEngine
semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close, non-empty-content]
  tick: time-driven
  r2s: [RStream]
  empty_relations: false
  reports_window: true
unsupported: [two-windows, aggregates]
"""


@pytest.fixture
def profile(tmp_path: Path) -> EngineProfile:
    path = tmp_path / "engine.yaml"
    path.write_text(ENGINE)
    return resolve(str(path), tmp_path)


class NoOracle:
    """Fails the test if the inference asks the oracle anything."""

    def expected(self, *args: object, **kwargs: object) -> None:
        raise AssertionError(f"the oracle was asked for {args[0]}")


def test_the_probes_the_profile_excludes_are_named_with_the_reason(
    profile: EngineProfile,
) -> None:
    reasons = {p.name: excluded(p, profile, "time") for p in PROBES if p.kind == "time"}
    assert reasons["istream"] == "r2s: the query registers IStream, rstream-only supports RStream"
    assert reasons["dstream"] is not None and "DStream" in reasons["dstream"]
    assert reasons["two-windows"] is not None and "two-windows" in reasons["two-windows"]
    assert reasons["empty-average"] is not None and "aggregates" in reasons["empty-average"]
    assert reasons["late-start"] is None and reasons["burst"] is None


def test_an_excluded_probe_is_not_run(profile: EngineProfile, tmp_path: Path) -> None:
    found = record(BY_NAME["istream"], profile, tmp_path / "istream")
    assert found.skipped is not None and found.skipped.startswith("r2s:")
    assert not found.ran and found.actual.error is None
    assert not (tmp_path / "istream").exists()  # no engine was started


def test_their_dimensions_are_not_supported_and_no_departure(profile: EngineProfile) -> None:
    skipped = ("istream", "dstream", "two-windows", "empty-average", "burst")
    recorded = {
        name: Recorded(BY_NAME[name], profile.semantics, ActualOutput("e"), skipped="excluded")
        for name in skipped
    }
    inference = Inference(recorded, profile.semantics, NoOracle())  # type: ignore[arg-type]
    r2s = inference.r2s()
    answers = inference.answers()
    assert [(c.dimension, c.value) for c in r2s] == [
        ("r2s IStream", NOT_SUPPORTED),
        ("r2s DStream", NOT_SUPPORTED),
    ]
    assert answers.value == NOT_SUPPORTED and answers.explained is None
    assert answers.skipped == ("two-windows", "empty-average", "burst")
    for c in [*r2s, answers]:
        assert c.departure is None and c.departures == ()
    assert inference.base.r2s == ("RStream",)


def test_a_declined_probe_reads_not_supported_in_the_table(profile: EngineProfile) -> None:
    """The engine answered ``unsupported`` to ``two-windows`` only: the other
    answers probes are still judged (here: by an oracle that must not be
    asked, so they are skipped too), and the table says so."""
    recorded = {
        name: Recorded(
            BY_NAME[name], profile.semantics, ActualOutput("e"), skipped="declined: no joins"
        )
        for name in ("two-windows", "empty-average", "burst")
    }
    conclusion = Inference(recorded, profile.semantics, NoOracle()).answers()  # type: ignore[arg-type]
    assert conclusion.probes == ("two-windows", "empty-average", "burst")
    assert report._note(conclusion) == ""
