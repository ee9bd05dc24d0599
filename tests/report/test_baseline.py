"""Baselines: rules, medians over repeats, what got better or worse, the gate."""

from __future__ import annotations

import json

import pytest

from pytest_rspbench.report import baseline as bl


def _record(case, recall=1.0, delay=100.0, rss=100 * 2**20, windows=4):
    return {
        "id": f"s[{case}]",
        "passed": True,
        "engine_peak_rss": rss,
        "windows": [
            {"index": i, "precision": 1.0, "recall": recall, "f1": 1.0, "delay": delay}
            for i in range(windows)
        ],
    }


def _doc(*items):
    return {"format": 2, "items": list(items)}


@pytest.mark.parametrize(
    ("text", "metric", "direction", "amount", "relative"),
    [
        ("recall:-0.01", "recall", -1, 0.01, False),
        ("delay.p95:+20%", "delay.p95", 1, 0.2, True),
        ("f1.min:0.05", "f1.min", -1, 0.05, False),
        ("delay.max:0.5s", "delay.max", 1, 500.0, False),
        ("peak_rss:+50MiB", "peak_rss", 1, 50 * 2**20, False),
        (" iou : - 1% ", "iou", -1, 0.01, True),
    ],
)
def test_rules_parse(text, metric, direction, amount, relative):
    rule = bl.parse_rule(text)
    assert (rule.metric, rule.direction, rule.amount, rule.relative) == (
        metric,
        direction,
        amount,
        relative,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recall", "HINT: write METRIC"),
        ("recal:-0.1", "unknown metric 'recal'"),
        ("iou.p95:0.1", "one number per run"),
        ("recall:-5ms", "unit ms does not fit recall"),
    ],
)
def test_bad_rules_say_what_to_write(text, message):
    with pytest.raises(bl.BaselineError, match=message):
        bl.parse_rule(text)


def test_worse_and_better_are_listed_and_rules_fail():
    before = _doc(_record("a"), _record("b", delay=200.0))
    after = _doc(_record("a", recall=0.9), _record("b", delay=100.0))
    rules = [bl.parse_rule("recall:-0.05"), bl.parse_rule("delay.p95:+20%")]
    result = bl.compare(before, after, rules, "main")
    worse = [c for c in result.changes if not c.better]
    better = [c for c in result.changes if c.better]
    assert [(c.item, c.metric) for c in worse] == [("s[a]", "recall")]
    assert [(c.item, c.metric) for c in better] == [("s[b]", "delay.p95")]
    assert [r.metric for c in result.regressions for r in c.broken] == ["recall"]
    text = "\n".join(bl.lines(result))
    assert "s[a]: recall 1.000 -> 0.900 (-0.100, -10%)  FAILS recall:-0.05" in text
    assert "s[b]: delay.p95 200 ms -> 100 ms (-100 ms, -50%)" in text
    assert text.endswith("FAILED: 1 regression(s) beyond --rspbench-compare-fail")


def test_timing_noise_is_not_listed_but_can_still_fail_a_rule():
    before, after = _doc(_record("a", delay=100.0)), _doc(_record("a", delay=104.0))
    assert bl.compare(before, after).changes == []
    strict = bl.compare(before, after, [bl.parse_rule("delay.p95:+2%")])
    assert len(strict.regressions) == 1


def test_repeats_are_compared_by_their_medians():
    #  baseline: delays 100, 900 (outlier), 110 -> median 110
    #  now:      delays 120, 115, 2000 (outlier) -> median 120: +9%, under 20%
    before = _doc(
        *(_record(f"repeat={k},x=1", delay=d) for k, d in enumerate((100.0, 900.0, 110.0)))
    )
    after = _doc(
        *(_record(f"x=1,repeat={k}", delay=d) for k, d in enumerate((120.0, 115.0, 2000.0)))
    )
    result = bl.compare(before, after, [bl.parse_rule("delay.p95:+20%")])
    assert result.compared == 1 and result.regressions == []
    (change,) = [c for c in result.changes if c.metric == "delay.p95"]
    assert (change.before, change.after, change.runs) == (110.0, 120.0, (3, 3))
    assert "[medians of 3 / 3 runs]" in change.describe()


def test_items_missing_on_either_side_are_named():
    result = bl.compare(_doc(_record("a"), _record("gone")), _doc(_record("a"), _record("new")))
    assert result.missing == ["s[gone]"] and result.new == ["s[new]"]


def test_baseline_names_and_paths(tmp_path):
    assert bl.baseline_path("main", tmp_path) == tmp_path / ".rspbench/baselines/main.json"
    assert bl.baseline_path("x.json", tmp_path).name == "x.json"
    with pytest.raises(bl.BaselineError, match="HINT"):
        bl.baseline_path("../etc", tmp_path)


def test_compare_needs_an_existing_baseline(pytester):
    pytester.makefile(".rspbench.yaml", empty="")
    result = pytester.runpytest("--rspbench-compare", "nope")
    result.stderr.fnmatch_lines(
        ["*no baseline 'nope'*", "*HINT: store one first with --rspbench-save nope*"]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_rules_need_a_baseline(pytester):
    result = pytester.runpytest("--rspbench-compare-fail", "recall:-0.01")
    result.stderr.fnmatch_lines(["*--rspbench-compare-fail needs a baseline*"])
    result = pytester.runpytest("--rspbench-compare", "x.json", "--rspbench-compare-fail", "bad")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_help_lists_the_baseline_options(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*--rspbench-save=*",
            "*--rspbench-compare=*",
            "*--rspbench-baseline-dir=*",
            "*(default: .rspbench/baselines)*",
            "*--rspbench-compare-fail=EXPR*",
        ]
    )


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_save_then_compare_fails_the_session_on_a_regression(tiny, monkeypatch):
    spec = tiny.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text() + "thresholds:\n  - recall >= 0\n")
    first = tiny.runpytest("--rspbench-save", "main")
    first.assert_outcomes(passed=2)
    first.stdout.fnmatch_lines(["baseline 'main' saved to *.rspbench/baselines/main.json"])
    saved = json.loads((tiny.path / ".rspbench" / "baselines" / "main.json").read_text())
    assert len(saved["items"]) == 2

    monkeypatch.setenv("RSPBENCH_TEST_DROP", "1")
    second = tiny.runpytest("--rspbench-compare", "main", "--rspbench-compare-fail", "recall:-0.01")
    second.assert_outcomes(passed=2)  # the items meet their thresholds ...
    assert second.ret == pytest.ExitCode.TESTS_FAILED  # ... the comparison fails the run
    second.stdout.fnmatch_lines(
        [
            "*rspbench comparison with a baseline*",
            "compared with baseline main (*main.json): 2 item(s), * change(s) for the worse*",
            "worse:",
            "  tiny?step=2000,engine=switch?: recall 1.000 -> * FAILS recall:-0.01",
            "FAILED: 2 regression(s) beyond --rspbench-compare-fail",
        ]
    )
