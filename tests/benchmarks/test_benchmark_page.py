"""docs/benchmarks.md keeps every run: a new one becomes current, the one it
replaces moves to the top of the history under its own date."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from helpers.benchmarks import benchmarks

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "benchmarks.md"


@pytest.fixture(scope="module")
def page():  # type: ignore[no-untyped-def]
    with benchmarks("page") as (module,):
        return module


def test_its_examples_hold(page) -> None:  # type: ignore[no-untyped-def]
    assert doctest.testmod(page).failed == 0


def test_a_new_run_on_the_real_page_moves_the_current_one_to_the_history(
    page,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    before = doc.read_text(encoding="utf-8")
    current, history = before.split(page.HISTORY)
    keys = page._MARK.findall(current)
    assert ("bench_collect", "2026-11-22") in keys and len(keys) >= 9
    page.publish(
        doc, "bench_collect", "## bench_collect\n\n| items | s |\n| 200 | 3.9 |\n", "2027-01-02"
    )
    after = doc.read_text(encoding="utf-8")
    current2, history2 = after.split(page.HISTORY)
    assert "<!-- bench: bench_collect 2027-01-02 -->" in current2 and "| 200 | 3.9 |" in current2
    assert "bench_collect 2026-11-22" not in current2
    first = history2.split("\n### ", 1)[1]
    assert first.startswith("2026-11-22: bench_collect: `pytest --collect-only`")
    assert len(page._MARK.findall(current2)) == len(keys)
    older = history.split("\n### ", 1)[1]
    assert history2.endswith(older)  # every earlier run is still there, in order
    assert (
        sum(after.count(line) for line in before.splitlines() if line.strip())
        >= sum(1 for line in before.splitlines() if line.strip()) - 1
    )  # nothing lost but the old marker line


def test_a_benchmark_new_to_the_page_goes_last_among_the_current(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "benchmarks.md"
    page.publish(doc, "bench_new", "# New\n\nfigures\n", "2027-01-02")
    page.publish(doc, "bench_other", "# Other\n\nmore\n", "2027-01-03")
    text = doc.read_text(encoding="utf-8")
    assert text.index("### New") < text.index("### Other") < text.index(page.HISTORY)
