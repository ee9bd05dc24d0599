"""``rspbench report``: the standalone page, its structure (golden) and the CLI."""

from __future__ import annotations

import json

from pytest_rspbench.cli import main
from pytest_rspbench.report import page, results

from helpers.outline import golden, outline


def test_report_structure_matches_golden(doc, tmp_path):
    html = page.render(doc, tmp_path)
    found = outline(html)
    for name, declared, parsed in found.polylines:
        assert declared == parsed, name
    text = "\n".join(found.lines) + "\n"
    assert text == golden("report-outline.txt", text), (
        "the report's structure changed; if on purpose, rerun with "
        "RSPBENCH_UPDATE_GOLDEN=1 "
        "and review the diff of tests/report/golden/report-outline.txt"
    )


def test_report_has_no_script_and_no_external_request(doc):
    html = page.render(doc)
    assert "<script" not in html.lower()
    assert "http://www.w3.org/2000/svg" in html  # the namespace, not a request
    for attribute in ("src=", 'href="http', "@import", "url("):
        assert attribute not in html


def test_failing_items_open_passing_closed(doc):
    html = page.render(doc)
    lines = outline(html).lines
    opened = [lines[k - 1].split()[1] for k, line in enumerate(lines) if line == "  details=open"]
    assert opened == ["item-1", "item-2", "item-5"]  # error, skipped, failed sweep


def test_artifact_links_are_relative_to_the_page(doc, tmp_path):
    path = tmp_path / "in" / "results.json"
    results.dump(path, doc)
    loaded = results.load(path)
    html = page.render(loaded, tmp_path / "out")
    assert 'href="../in/artifacts/demo_ok/metrics.json"' in html


def test_cli_writes_the_report(doc, tmp_path, capsys):
    source = tmp_path / "results.json"
    source.write_text(json.dumps(doc))
    assert main(["report", str(source), "-o", str(tmp_path / "r.html")]) == 0
    assert "6 item(s)" in capsys.readouterr().out
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_cli_compare_fails_on_a_regression(doc, tmp_path, capsys):
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(doc))
    worse = json.loads(json.dumps(doc))
    for window in worse["items"][0]["windows"]:
        window["recall"] = 0.5
    after.write_text(json.dumps(worse))
    args = [
        "report",
        str(after),
        "-o",
        str(tmp_path / "r.html"),
        "--compare",
        str(before),
    ]
    assert main([*args, "--fail", "recall:-0.1"]) == 1
    out = capsys.readouterr().out
    assert "demo[range=10000,engine=reference]: recall 1.000 -> 0.500" in out
    assert "FAILS recall:-0.1" in out
    assert main(args) == 0


def test_cli_says_what_is_wrong_with_a_results_file(tmp_path, capsys):
    bad = tmp_path / "old.json"
    bad.write_text('{"format": 99, "items": []}')
    assert main(["report", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "results format 99" in err and "HINT" in err
