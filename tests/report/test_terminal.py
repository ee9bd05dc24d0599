"""The terminal: summary table, and the live progress line (quiet in CI)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from pytest_rspbench.report import progress
from pytest_rspbench.report.terminal import summary_lines


def test_summary_has_one_line_per_item_and_counts(doc):
    lines = summary_lines(doc["items"])
    assert lines[0].split() == [
        "verdict",
        "t0",
        "precision",
        "recall",
        "delay",
        "p95",
        "peak",
        "RSS",
        "windows",
        "item",
    ]
    assert len(lines) == 2 + len(doc["items"]) + 2
    assert lines[2].startswith("pass    0") and "281 ms" in lines[2]
    assert lines[3].startswith("error   ~0") and "232.7 MiB" in lines[3]
    assert lines[4].startswith("skipped ")
    assert lines[-2] == "1 FAIL, 1 error, 3 pass, 1 skipped"
    assert lines[-1].startswith("t0 ~N: no t0 class reproduces the output; N is the closest")


def test_quiet_lists_only_the_items_that_did_not_pass(doc):
    lines = summary_lines(doc["items"], quiet=True)
    listed = lines[2 : 2 + 3]
    assert sorted(line.split()[0] for line in listed) == ["FAIL", "error", "skipped"]
    assert not any(line.startswith("pass ") for line in lines)
    assert "1 FAIL, 1 error, 3 pass, 1 skipped (not listed: -q)" in lines


def test_in_process_figures_are_marked_and_explained():
    item = {"nodeid": "a.yaml::a", "passed": True, "matched_t0": "0", "engine_peak_rss": 2**27}
    lines = summary_lines([dict(item, engine_in_process=True), dict(item, nodeid="a.yaml::b")])
    assert "128.0 MiB*" in lines[2] and "128.0 MiB " in lines[3] + " "
    assert lines[-1].startswith("peak RSS *: in-process engine: the harness's memory")


class _Reporter:
    def __init__(self, column=10, tty=True):
        self.isatty = tty
        self._tw = SimpleNamespace(width_of_current_line=column)


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(progress.shutil, "get_terminal_size", lambda: SimpleNamespace(columns=120))
    return now


def test_progress_appears_after_a_while_and_erases_itself(clock):
    out = io.StringIO()
    line = progress.ProgressLine(_Reporter(), None, out)
    line(1000, 60_000, 1, 0)
    assert out.getvalue() == ""  # short items stay silent
    clock[0] += 3
    line(12_300, 60_000, 12, 5)
    shown = " [replay 12.3 s/1 min 00 s, 12 events, 5 results]"
    assert out.getvalue() == shown
    clock[0] += 0.1
    line(12_400, 60_000, 13, 5)
    assert out.getvalue() == shown  # at most one redraw every EVERY seconds
    line.close()
    n = len(shown)
    assert out.getvalue() == shown + "\b" * n + " " * n + "\b" * n


def test_progress_never_wraps_the_line(clock):
    out = io.StringIO()
    line = progress.ProgressLine(_Reporter(column=110), None, out)
    clock[0] += 3
    line(1, 2, 3, 4)
    assert out.getvalue() == ""


@pytest.mark.parametrize(
    ("env", "tty", "wanted"),
    [
        ({}, True, True),
        ({"CI": "true"}, True, False),
        ({"CI": "1"}, True, False),
        ({"CI": "false"}, True, True),
        ({}, False, False),
    ],
)
def test_progress_is_quiet_in_ci_and_without_a_terminal(env, tty, wanted):
    config = SimpleNamespace(
        pluginmanager=SimpleNamespace(get_plugin=lambda name: _Reporter(tty=tty))
    )
    assert progress.wanted(config, env) is wanted
