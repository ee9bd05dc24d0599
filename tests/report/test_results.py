"""The results file: format 2, golden end to end, outcomes, bounded samples."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_rspbench.report import results

from helpers.outline import golden

VOLATILE = "<volatile>"


def normalised(doc: dict) -> dict:
    """The document with what changes from run to run replaced by a marker."""
    out = json.loads(json.dumps(doc))
    for key in results.VOLATILE:
        out[key] = VOLATILE
    out["tool"]["version"] = VOLATILE
    for item in out["items"]:
        for key in results.VOLATILE_ITEM:
            if key in item:
                item[key] = VOLATILE
        for key in ("peak_rss", "mean_cpu"):
            if (item.get("run_metrics") or {}).get(key) is not None:
                item["run_metrics"][key] = VOLATILE
    return out


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_results_file_matches_golden_and_junit_carries_metrics(tiny):
    result = tiny.runpytest(
        "--rspbench-json",
        "out/results.json",
        "--rspbench-artifacts",
        "art",
        "--junitxml",
        "junit.xml",
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*rspbench summary*",
            "verdict*t0*precision*recall*delay p95*peak RSS*windows*item",
            "pass*0*1.000*1.000*tiny.rspbench.yaml::tiny?step=2000,engine=switch?",
            "2 pass",
            "results written to *results.json",
        ]
    )
    doc = json.loads((tiny.path / "out" / "results.json").read_text())
    assert doc["format"] == results.FORMAT == 2
    assert doc["created"].endswith("Z") and set(doc["machine"]) >= {
        "python",
        "cpus",
        "system",
    }
    assert doc["items"][0]["artifacts"].startswith("../art/")
    assert (tiny.path / "out" / doc["items"][0]["artifacts"] / "metrics.json").is_file()
    text = json.dumps(normalised(doc), indent=1, sort_keys=True) + "\n"
    assert text == golden("results-tiny.json", text), (
        "the results file changed shape; if on purpose, bump results.FORMAT when a key "
        "changes meaning, rerun with RSPBENCH_UPDATE_GOLDEN=1 and review the diff"
    )
    xml = (tiny.path / "junit.xml").read_text()
    for name in ("rspbench.recall.mean", "rspbench.f1.mean", "rspbench.iou"):
        assert f'name="{name}"' in xml
    assert 'name="rspbench.delay.p95"' not in xml  # max-rate replay: no delay to report


def _report(nodeid, when, outcome, duration=0.5, longrepr=None):
    return SimpleNamespace(
        nodeid=nodeid,
        when=when,
        outcome=outcome,
        duration=duration,
        longrepr=longrepr,
        passed=outcome == "passed",
        failed=outcome == "failed",
        skipped=outcome == "skipped",
        longreprtext="boom\nmore",
        sections=[],
    )


def _case_item():
    case = SimpleNamespace(
        spec_name="s",
        case_id="engine=x",
        params=(("a", 1),),
        engine="x",
        spec_path="/p/s.rspbench.yaml",
        base_dir=Path("/p"),
        semantics={"t0": "first-event"},
    )
    return SimpleNamespace(case=case, name="s[engine=x]")


def test_outcome_and_duration_are_folded_into_the_record():
    records = [{"nodeid": "n", "outcome": None, "duration": 0.0}]
    for when in ("setup", "call", "teardown"):
        results.note_outcome(records, _case_item(), _report("n", when, "passed"))
    assert records == [{"nodeid": "n", "outcome": "passed", "duration": 1.5}]


def test_a_skipped_item_still_gets_a_record():
    records = []
    skip = _report("n", "setup", "skipped", longrepr=("f", 1, "Skipped: needs node"))
    results.note_outcome(records, _case_item(), skip)
    (record,) = records
    assert record["outcome"] == "skipped" and record["message"] == "Skipped: needs node"
    assert record["id"] == "s[engine=x]" and record["params"] == {"a": 1}
    # What the case assumed, even unrun: engine x has no engine.yaml to read.
    assert record["profile"] == {"name": "x", "declared": None, "pinned": {"t0": "first-event"}}


def test_a_setup_error_is_an_error():
    records = []
    results.note_outcome(records, _case_item(), _report("n", "setup", "failed"))
    assert records[0]["outcome"] == "error" and records[0]["message"] == "boom"


def test_group_item_record_reads_what_its_item_wrote(tmp_path):
    (tmp_path / "mismatch.json").write_text('{"engines": ["a", "b"], "mismatch": []}')
    item = type("MismatchItem", (), {"name": "s[mismatch]"})()
    report = _report("g", "call", "passed")
    report.sections = [("Captured rspbench call", "the table")]
    records = []
    results.note_outcome(records, item, report, tmp_path)
    assert records[0]["kind"] == "mismatch" and records[0]["text"] == "the table"
    assert records[0]["mismatch"]["engines"] == ["a", "b"]


def test_samples_are_bounded_and_keep_the_peak():
    samples = [{"elapsed": k / 2, "app_time": None, "rss": k, "cpu": 50.0} for k in range(5000)]
    kept = results.compact_samples(samples)
    assert len(kept) == results.MAX_SAMPLES
    assert max(s["rss"] for s in kept) == 4999 and kept[-1]["elapsed"] == 2499.5


def test_load_rejects_unknown_formats_and_bad_json(tmp_path):
    (tmp_path / "a.json").write_text("{nope")
    with pytest.raises(results.ResultsFileError, match=r"a\.json:1: not JSON"):
        results.load(tmp_path / "a.json")
    (tmp_path / "b.json").write_text('{"format": 3}')
    with pytest.raises(results.ResultsFileError, match="HINT"):
        results.load(tmp_path / "b.json")
    with pytest.raises(results.ResultsFileError, match="cannot read"):
        results.load(tmp_path / "missing.json")


def test_format_1_files_still_render(doc):
    from pytest_rspbench.report.page import render

    doc["format"] = 1
    for item in doc["items"]:
        for key in ("samples", "profile", "outcome", "duration", "artifacts", "id"):
            item.pop(key, None)
    assert "precision and recall per window" in render(doc)
