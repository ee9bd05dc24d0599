"""``--rspbench-shrink[=SECONDS]`` and the ini key ``rspbench_shrink``."""

from __future__ import annotations

import pytest

from pytest_rspbench.options import SHRINK_SECONDS

SHOW = (
    "from pytest_rspbench.plugin import SESSION_KEY\n"
    "def pytest_collection_finish(session):\n"
    "    print('SHRINK', session.config.stash[SESSION_KEY].shrink)\n"
)


def test_help_shows_the_option_and_its_default(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--rspbench-shrink=[[]SECONDS[]]*", "*(default: off)*"])


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [
        ((), "", None),
        (("--rspbench-shrink",), "", SHRINK_SECONDS),
        (("--rspbench-shrink=15",), "", 15.0),
        (("--rspbench-shrink=0",), "", None),
        ((), "rspbench_shrink = 30", 30.0),
        ((), "rspbench_shrink = true", SHRINK_SECONDS),
        (("--rspbench-shrink=5",), "rspbench_shrink = 30", 5.0),
        (("--rspbench-shrink",), "rspbench_shrink = 30", SHRINK_SECONDS),
    ],
)
def test_budget_from_flag_and_ini(pytester, args, ini, expected):
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makeconftest(SHOW)
    result = pytester.runpytest("-s", "--collect-only", *args)
    result.stdout.fnmatch_lines([f"SHRINK {expected}"])


def test_a_path_after_the_bare_flag_is_a_usage_error_with_a_hint(pytester):
    pytester.mkdir("specs")
    result = pytester.runpytest("--rspbench-shrink", "specs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--rspbench-shrink: 'specs' is not a number of seconds.*",
            "HINT: write --rspbench-shrink=SECONDS (with '=')*",
        ]
    )
