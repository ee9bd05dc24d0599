"""What a new user meets first: node ids to paste back, why items were
deselected, plain lines off a terminal. Collection only: no Spark."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_rspbench.report import progress


def test_a_spec_outside_the_rootdir_keeps_its_folder_in_its_id(
    project, pytester: pytest.Pytester
) -> None:
    """Like ``../dir/test_a.py::test_a``: the id pytest prints runs it again."""
    project()
    outside = pytester.path / "elsewhere"
    outside.mkdir()
    (pytester.path / "tiny.rspbench.yaml").rename(outside / "tiny.rspbench.yaml")
    (pytester.path / "stream.nt").rename(outside / "stream.nt")
    root = pytester.mkdir("root")
    (root / "pytest.ini").write_text("[pytest]\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        listed = pytester.runpytest("--rootdir", str(root), "../elsewhere", "--co", "-q")
        listed.stdout.fnmatch_lines(
            ["../elsewhere/tiny.rspbench.yaml::tiny[[]range=4000,step=2000,engine=reference[]]"]
        )
        pasted = pytester.runpytest(
            "--rootdir",
            str(root),
            "../elsewhere/tiny.rspbench.yaml::tiny[range=4000,step=4000,engine=reference]",
            "--co",
            "-q",
        )
    pasted.stdout.fnmatch_lines(["*step=4000*", "1 test collected*"])


def test_deselected_heavy_levels_are_named(project, pytester: pytest.Pytester) -> None:
    project(extra="marks: [heavy]\n")
    result = pytester.runpytest("--co")
    result.stdout.fnmatch_lines(
        [
            "collected 2 items / 2 deselected / 0 selected",
            "rspbench: 2 deselected are heavy load levels: --rspbench-heavy runs them too, "
            "-m heavy only them",
        ]
    )
    assert "heavy load levels" not in pytester.runpytest("--co", "--rspbench-heavy").stdout.str()


class _Reporter:
    def __init__(self, tty: bool) -> None:
        self.isatty = tty
        self.lines: list[str] = []

    def ensure_newline(self) -> None:
        self.lines.append("\n")

    def write_line(self, text: str) -> None:
        self.lines.append(text)


def _config(reporter: _Reporter, verbose: int = 0) -> SimpleNamespace:
    return SimpleNamespace(
        option=SimpleNamespace(verbose=verbose),
        pluginmanager=SimpleNamespace(get_plugin=lambda name: reporter),
    )


def test_off_a_terminal_the_spark_start_is_a_plain_line() -> None:
    piped = _Reporter(tty=False)
    notice = progress.notices(_config(piped), {})
    assert notice is not None
    notice("starting Spark for the oracle (local[*])")
    assert piped.lines == ["\n", "rspbench: starting Spark for the oracle (local[*])"]
    terminal = _Reporter(tty=True)
    progress.notices(_config(terminal), {})("starting Spark")  # the live line shows it
    assert terminal.lines == []
    in_ci = _Reporter(tty=True)
    progress.notices(_config(in_ci), {"CI": "true"})("starting Spark")
    assert in_ci.lines[-1] == "rspbench: starting Spark"
    assert progress.notices(_config(piped, verbose=-1), {}) is None  # -q stays quiet


@pytest.mark.parametrize("columns", [80, 60, 54])
def test_the_live_line_keeps_its_seconds_on_a_narrow_terminal(columns: int) -> None:
    what = "oracle: computing the expected output (begun during the replay)"
    room = columns - 30  # the item's name and dots take the rest
    text = progress.fitted([what, "12 s"], (), 0, room)
    assert len(text) <= room and text.endswith(", 12 s]")
    line = progress.fitted(
        ["replay 12.3 s/1 min 00 s", "120 events", "5 results"], (2, 1), None, 40
    )
    assert line == " [replay 12.3 s/1 min 00 s, 120 events]"


@pytest.mark.slow
def test_a_spec_that_tests_nothing_warns_at_its_line(project, pytester: pytest.Pytester) -> None:
    """``FILTER(?v > "80")`` over numbers is never true: every window is
    empty and the item passes; a warning names the spec's file:line."""
    project()
    spec = pytester.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text().replace("?v > 80", '?v > "80"').replace("2000, 4000", "4000"))
    result = pytester.runpytest("-W", "default", "--rspbench-oracle-ahead", "0")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*tiny.rspbench.yaml:2: SpecWarning: *tiny.rspbench.yaml:2: "
            "tiny[[]range=4000,step=4000,engine=reference[]]: the expected output is empty "
            "in every window and every t0 class*",
            "*HINT: `rspbench oracle *tiny.rspbench.yaml --param range=4000 --param step=4000`*",
        ]
    )


SHOW_XFAIL = """
def pytest_collection_modifyitems(items):
    for item in items:
        mark = item.get_closest_marker("xfail")
        print("XFAIL" if mark else "RUN", item.name, mark.kwargs["reason"] if mark else "")
"""


def test_a_known_failures_file_beside_the_engine_marks_its_cases(
    project, pytester: pytest.Pytester
) -> None:
    project(engines="drops-one.yaml")
    pytester.makeconftest(SHOW_XFAIL)
    (pytester.path / "known-failures.yaml").write_text(
        "# drops-one's known failures in suites it does not own\n"
        "- case: tiny[range=4000,step=2000]\n"
        "  departures: [wrong-solutions]\n"
        "  reason: drops a binding (#1)\n"
    )
    result = pytester.runpytest("--co", "-q", "-s")
    result.stdout.fnmatch_lines(
        [
            "XFAIL tiny[[]range=4000,step=2000,engine=drops-one[]] known departure of drops-one "
            "(wrong-solutions): drops a binding (#1) (known-failures.yaml:2)",
            "RUN tiny[[]range=4000,step=4000,engine=drops-one[]]*",
        ]
    )
    (pytester.path / "known-failures.yaml").write_text("- case: tiny*\n  reason: all of it\n")
    assert pytester.runpytest("--co", "-q", "-s").stdout.str().count("XFAIL tiny") == 2
    # Another engine's cases are not its: the file belongs to drops-one.
    project(engines="reference")
    assert "XFAIL" not in pytester.runpytest("--co", "-q", "-s").stdout.str()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("case: x\n", "*known-failures.yaml:1: $: a known-failures file is a list of entries*"),
        ("- case: x\n  reson: y\n", "*known-failures.yaml:2: $[[]0[]].reson: unknown key 'reson'*"),
        ("- reason: y\n", "*known-failures.yaml:1: $[[]0[]].case: 'case' is missing*"),
        (
            "- case: x\n  reason: y\n  departures: [lost-windows]\n",
            "*known-failures.yaml:3: $[[]0[]].departures[[]0[]]: unknown departure class "
            "'lost-windows'.",
        ),
        (
            "- case: x\n  reason: y\n  intermittent: sometimes\n",
            "*known-failures.yaml:3: $[[]0[]].intermittent: 'intermittent' must be true or false*",
        ),
    ],
)
def test_a_bad_known_failures_file_is_a_clear_error(
    project, pytester: pytest.Pytester, text: str, says: str
) -> None:
    project(engines="drops-one.yaml")
    (pytester.path / "known-failures.yaml").write_text(text)
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines([says, "*HINT: *"])
    assert "Traceback" not in result.stdout.str()


def test_an_intermittent_entry_beside_the_engine_is_a_non_strict_known_failure(
    tmp_path: Path,
) -> None:
    from pytest_rspbench.spec.known import known_cases

    profile = tmp_path / "engine.yaml"
    (tmp_path / "known-failures.yaml").write_text(
        "- case: csrbench-q7*\n  reason: D7\n  departures: [out-of-order]\n"
        "  intermittent: true\n- case: csrbench-q2*\n  reason: D2\n"
    )
    racy, steady = (k.failure("rspjs") for k in known_cases(profile))
    assert racy.intermittent and racy.departures == ("out-of-order",)
    assert not steady.intermittent
