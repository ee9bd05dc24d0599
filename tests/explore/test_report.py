"""What an exploration shows: the progress line, the table, explore.json, the last line."""

from __future__ import annotations

import io
import json
from pathlib import Path

from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.explore.exploration import Outcome, Settings
from pytest_rspbench.explore.report import (
    Progress,
    last_line,
    record,
    status_line,
    table,
    write_record,
)
from pytest_rspbench.explore.scope import scope_of

REFERENCE = resolve("reference", Path.cwd())


def outcome(tmp_path: Path) -> Outcome:
    done = Outcome(Settings("reference", tmp_path, 7, 600.0), "reference", scope_of(REFERENCE))
    done.cases, done.passed, done.seconds, done.size = 1234, 1230, 600.2, 8
    done.refused = {"the query uses Foo": 1}
    bounds = done.groups.add("window-bounds", frozenset(), "strict: FAIL — window bounds x1")
    bounds.cases += [3, 17]
    bounds.spec = tmp_path / "01-window-bounds-plain" / "counterexample.rspbench.yaml"
    lost = done.groups.add("lost-window", frozenset({"optional"}))
    lost.cases += [40]
    lost.suspect = True
    lost.spec = tmp_path / "suspects" / "02-lost-window-optional" / "counterexample.rspbench.yaml"
    return done


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_last_line_counts_cases_and_failures(tmp_path: Path) -> None:
    done = outcome(tmp_path)
    assert last_line(done) == "1,234 cases, 3 failures in 600 s"
    done.cases, done.groups.all = 1, []
    assert last_line(done) == "1 case, 0 failures in 600 s"


def test_the_progress_line_names_the_classes_and_the_time_left(tmp_path: Path) -> None:
    line = status_line("reference", outcome(tmp_path), 88.4)
    assert line == (
        "explore reference: 1,234 cases, 3 failures (window-bounds 2, lost-window 1), "
        "1 refused, size 8, 88 s left"
    )


def test_on_a_terminal_the_line_is_rewritten_elsewhere_printed_now_and_then(
    tmp_path: Path,
) -> None:
    done = outcome(tmp_path)
    terminal = Terminal()
    shown = Progress("reference", terminal)
    shown.update(done, 10)
    shown.update(done, 9)
    shown.say("failure: ...")
    shown.done()
    text = terminal.getvalue()
    assert text.count("\r") >= 2 and "\n" not in text.split("failure: ...")[0]
    log = io.StringIO()
    plain = Progress("reference", log)
    plain.update(done, 10)
    plain.update(done, 9)  # within EVERY seconds of the first: not printed
    assert "\r" not in log.getvalue() and log.getvalue().count("\n") == 1


def test_the_table_has_one_row_per_group(tmp_path: Path) -> None:
    lines = table(outcome(tmp_path)).splitlines()
    assert lines[0].split() == [
        "departure",
        "constructs",
        "cases",
        "first",
        "spec",
        "written",
        "explanation",
    ]
    assert lines[1].split()[:5] == [
        "window-bounds",
        "plain",
        "pattern",
        "2",
        "01-window-bounds-plain/counterexample.rspbench.yaml",
    ]
    assert "suspects/02-lost-window-optional/counterexample.rspbench.yaml  SUSPECT" in lines[2]


def test_explore_json_keeps_the_settings_counts_and_groups(tmp_path: Path) -> None:
    path = write_record(outcome(tmp_path), spark_seconds=9.04)
    written = json.loads(path.read_text())
    assert written == record(outcome(tmp_path), 9.04)
    assert (written["cases"], written["failures"], written["seed"]) == (1234, 3, 7)
    assert written["cases_per_minute"] == 123.4
    assert written["spark_start_seconds"] == 9.0
    assert written["groups"][0]["spec"] == "01-window-bounds-plain/counterexample.rspbench.yaml"
    assert written["groups"][1]["suspect"] is True
    assert "optional" in written["scope"]["constructs"]
