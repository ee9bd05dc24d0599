"""Options and help text."""

from __future__ import annotations


def test_help_lists_options_with_defaults(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines([
        "*--rspbench-engine=*",
        "*(default: none)*",
        "*--rspbench-spark-master=*",
        "*(default: local[[]*[]])*",
        "*--rspbench-artifacts=*",
        "*rspbench_files (args):*",
    ])


def test_ini_sets_spark_master(pytester):
    pytester.makeini("[pytest]\nrspbench_spark_master = local[1]\n")
    pytester.makeconftest(
        "import pytest\n"
        "from pytest_rspbench.plugin import SESSION_KEY\n"
        "def pytest_collection_finish(session):\n"
        "    print('MASTER', session.config.stash[SESSION_KEY].master)\n"
    )
    result = pytester.runpytest("-s", "--collect-only")
    result.stdout.fnmatch_lines(["MASTER local[1]"])


def test_files_pattern_is_configurable(pytester):
    pytester.makeini("[pytest]\nrspbench_files = *.bench.yaml\n")
    pytester.makefile(".bench.yaml", broken="rspbench: 1\nname: [\n")
    result = pytester.runpytest("--collect-only")
    result.stdout.fnmatch_lines(["*broken.bench.yaml:*YAML syntax error*"])
