"""Verdicts that do not move: a few bundled specs, quiet and under a CPU hog on
every core, give each item the same outcome (``benchmarks/saturated.py``,
docs/reliability.md "Verdicts under load").

The two runs are pytest sessions in this process (pytester), sharing the test
run's Spark, so the oracle, the replays and the hogs compete for the cores::

    quiet      pytest specs --rspbench-json quiet.json
    saturated  pytest specs --rspbench-json busy.json    + one hog per core
    compare    item by item: outcome and departures equal
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import psutil
import pytest

from helpers.benchmarks import benchmarks

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.usefixtures("spark")]

ROOT = Path(__file__).resolve().parents[2]
SPECS = ("bounds-oc.rspbench.yaml", "example7-sliding-window.rspbench.yaml")
DATA = ("nearby.n3t", "coupons.n3t", "shops.ttl", "sparse.n3t")
ENGINES = "reference,faulty-wrong-bounds,faulty-no-purge"


@pytest.fixture(scope="module")
def tool() -> Iterator[ModuleType]:
    """``benchmarks/saturated.py``, imported."""
    with benchmarks("saturated") as (saturated,):
        yield saturated


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """Bundled RSP-QL specs with their data, in the pytester folder."""
    (pytester.path / "data").mkdir()
    for name in SPECS:
        shutil.copy(ROOT / "specs" / "rspql" / name, pytester.path / name)
    for name in DATA:
        shutil.copy(ROOT / "specs" / "rspql" / "data" / name, pytester.path / "data" / name)
    return pytester.path


def results(pytester: pytest.Pytester, name: str) -> dict:
    pytester.runpytest("--rspbench-engine", ENGINES, "--rspbench-json", name)
    return json.loads((pytester.path / name).read_text())


def test_a_cpu_hog_on_every_core_moves_no_verdict(
    tool: ModuleType, project: Path, pytester: pytest.Pytester
) -> None:
    quiet = tool.items(results(pytester, "quiet.json"))
    with tool.saturated() as hogs:
        assert len(hogs) >= 1 and all(psutil.pid_exists(pid) for pid in hogs)
        busy = tool.items(results(pytester, "busy.json"))
    assert not any(psutil.pid_exists(pid) and _running(pid) for pid in hogs)
    rows = tool.compare(quiet, busy)
    assert len(rows) == 3 * 3  # 3 cases (bounds-oc: 2, example 7: 1), 3 engines
    outcomes = {r.quiet.outcome for r in rows if r.quiet is not None}
    assert outcomes == {"passed", "failed"}, "both kinds of verdict are compared"
    assert [r.nodeid for r in rows if r.agrees != "same"] == [], tool.table(rows)
    assert all(r.busy is not None and r.busy.load is not None for r in rows)
    assert "9 items: 9 same, 0 timing items failed under overload (allowed), 0 whose " in (
        tool.table(rows)
    )
    assert tool.table(rows).endswith(", 0 moved")


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_timed_item_that_fails_under_overload_is_allowed_and_others_move(
    tool: ModuleType,
) -> None:
    def item(outcome: str, timed: bool, overloaded: bool, departures: tuple = ()) -> object:
        load = {"peak": 7.9, "cores": 2, "overloaded": overloaded}
        return tool.Item("x", outcome, departures, timed, load)

    allowed = tool.Row("x", item("passed", True, False), item("failed", True, True))
    calm = tool.Row("x", item("passed", True, False), item("failed", True, False))
    correctness = tool.Row("x", item("passed", False, False), item("failed", False, True))
    other = tool.Row(
        "x", item("failed", False, False, ("lost-window",)), item("failed", False, False)
    )
    assert [r.agrees for r in (allowed, calm, correctness, other)] == [
        "overloaded",
        "MOVED",
        "MOVED",
        "MOVED",
    ]
    text = tool.table([allowed, other])
    assert "| `x` | timing | passed | 7.9 / 2 | failed | 7.9 / 2 | overloaded |" in text
    assert "failed (lost-window)" in text


def test_other_answers_under_load_are_the_engine_s_and_the_same_answers_judged_otherwise_move(
    tool: ModuleType, tmp_path: Path
) -> None:
    """With both runs' recorded answers, an item whose engine sent other
    answers is ``engine``; the same answers (arrival times aside) with
    another verdict are a verdict that moved."""
    spec = "s"
    answers = {"quiet": tmp_path / "quiet-answers", "busy": tmp_path / "saturated-answers"}

    def record(side: str, name: str, windows: list[list[int]], arrival: float) -> None:
        folder = answers[side] / spec
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            {"window": w, "bindings": [], "arrival": arrival + i} for i, w in enumerate(windows)
        ]
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))

    def item(name: str, outcome: str) -> object:
        return tool.Item(name, outcome, (), False, None, "e", spec, name)

    record("quiet", "raced", [[0, 2], [2, 4]], 1.0)
    record("busy", "raced", [[2, 4], [0, 2]], 5.0)  # out of order under load
    record("quiet", "judged", [[0, 2]], 1.0)
    record("busy", "judged", [[0, 2]], 9.0)  # the same answer, later
    quiet = {n: item(n, "xfailed") for n in ("raced", "judged")}
    busy = {n: item(n, "passed") for n in ("raced", "judged")}
    rows = tool.compare(quiet, busy, (answers["quiet"], answers["busy"]))
    assert [(r.nodeid, r.same_answers, r.agrees) for r in rows] == [
        ("raced", False, "engine"),
        ("judged", True, "MOVED"),
    ]
    text = tool.by_engine(rows)
    assert "1 whose engine answered differently" in text and "1 moved" in text


def test_the_tool_needs_specs_to_run(tool: ModuleType, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        tool.main([])
    assert "name the specs to run after --" in capsys.readouterr().err
