"""Options and help text."""

from __future__ import annotations


def test_help_lists_options_with_defaults(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*--rspbench-engine=*",
            "*(default: none)*",
            "*--rspbench-spark-master=*",
            "*(default: local[[]*[]])*",
            "*--rspbench-artifacts=*",
            "*rspbench_files (args):*",
        ]
    )


def show_session(pytester, label: str, expression: str) -> None:
    """A conftest that prints ``label`` and ``expression`` of the session."""
    pytester.makeconftest(
        "from pytest_rspbench.plugin import SESSION_KEY\n"
        "def pytest_collection_finish(session):\n"
        "    rspbench = session.config.stash[SESSION_KEY]\n"
        f"    print({label!r}, {expression})\n"
    )


def test_ini_sets_spark_master(pytester):
    pytester.makeini("[pytest]\nrspbench_spark_master = local[1]\n")
    show_session(pytester, "MASTER", "rspbench.master")
    result = pytester.runpytest("-s", "--collect-only")
    result.stdout.fnmatch_lines(["MASTER local[1]"])


def test_files_pattern_is_configurable(pytester):
    pytester.makeini("[pytest]\nrspbench_files = *.bench.yaml\n")
    pytester.makefile(".bench.yaml", broken="rspbench: 1\nname: [\n")
    result = pytester.runpytest("--collect-only")
    result.stdout.fnmatch_lines(["*broken.bench.yaml:*YAML syntax error*"])


def test_spark_conf_from_option_and_ini(pytester):
    pytester.makeini("[pytest]\nrspbench_spark_conf =\n    spark.driver.memory=3g\n")
    show_session(pytester, "CONF", "sorted(rspbench.spark_conf.items())")
    result = pytester.runpytest("-s", "--collect-only")
    result.stdout.fnmatch_lines(["CONF [[]('spark.driver.memory', '3g')[]]"])
    result = pytester.runpytest(
        "-s", "--collect-only", "--rspbench-spark-conf", "spark.sql.shuffle.partitions=2"
    )
    result.stdout.fnmatch_lines(["CONF [[]('spark.sql.shuffle.partitions', '2')[]]"])


def test_spark_conf_that_is_not_a_setting_is_a_usage_error(pytester):
    result = pytester.runpytest("--rspbench-spark-conf", "12g")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "*--rspbench-spark-conf '12g': expected KEY=VALUE with a Spark setting as KEY.*",
            "*HINT: e.g. --rspbench-spark-conf spark.driver.memory=12g*",
        ]
    )
    assert "Traceback" not in result.stderr.str()
