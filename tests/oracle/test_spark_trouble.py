"""When Spark's JVM dies, is killed at start, or Ctrl-C stops a job.

The words come first, without Spark: exit codes and signals, the message for
a JVM that died under a job, the HINT for a JVM that did not start, the
Ctrl-C handler. Then each trouble for real, in its own process so that the
JVM of this test session is never touched: a JVM killed between two oracle
calls (the message, then a new JVM), a ``java`` that kills itself while Spark
starts (not the JAVA_HOME hint), a JVM killed under an item's oracle (the
item says so, ``metrics.json`` is kept, the next item passes), and a pytest
run interrupted during a long Spark job (pytest's summary, no Java stack trace).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle import spark as sparksession
from pytest_rspbench.oracle.spark import start
from pytest_rspbench.oracle.spark.jvm import (
    Jvm,
    JvmOutput,
    death_message,
    exit_reason,
    mute_on_interrupt,
    out_of_memory,
    start_failure,
)

from helpers.project import EX, STREAM, XSD

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, env: dict[str, str], timeout: float = 300) -> str:
    """Run ``code`` in a fresh interpreter; return its stdout, fail with stderr."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


# --- the words ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (-9, "killed by signal 9 (SIGKILL)"),
        (-15, "killed by signal 15 (SIGTERM)"),
        (137, "killed by signal 9 (SIGKILL; exit code 137)"),
        (52, "exited with code 52 (Spark's code for an OutOfMemoryError)"),
        (1, "exited with code 1"),
    ],
)
def test_exit_reasons(code: int, words: str) -> None:
    assert exit_reason(code) == words


def test_a_jvm_killed_under_a_job_is_said_to_have_died() -> None:
    text = death_message(-9, [], "4g")
    first, *rest = text.splitlines()
    assert first == (
        "the oracle's Spark JVM died while this item's oracle ran: killed by signal 9 (SIGKILL)."
    )
    assert rest[-1].startswith("HINT: a JVM killed this way is usually the work of the kernel's")
    assert "lower spark.driver.memory (now 4g)" in text
    assert text.endswith("the next item starts a new Spark.")


def test_a_jvm_out_of_memory_is_told_to_get_more() -> None:
    text = death_message(52, ["java.lang.OutOfMemoryError: Java heap space"], "2g")
    assert "exited with code 52 (Spark's code for an OutOfMemoryError)" in text
    assert "    java.lang.OutOfMemoryError: Java heap space" in text
    assert "The Spark driver ran out of memory (spark.driver.memory = 2g)" in text
    assert "--rspbench-spark-conf spark.driver.memory=12g" in text


@pytest.mark.parametrize(
    ("code", "lines", "oom"),
    [
        (52, [], True),
        (-9, ["java.lang.OutOfMemoryError: Java heap space"], True),
        (-9, ["ERROR Executor: boom"], False),
        (-15, [], False),
    ],
)
def test_out_of_memory_is_told_by_the_exit_code_or_the_jvm_s_words(
    code: int, lines: list[str], oom: bool
) -> None:
    assert out_of_memory(code, lines) is oom


def test_a_dead_jvm_out_of_memory_is_a_spark_memory_error(
    dead_jvm: Jvm, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_rspbench.errors import SparkMemoryError

    said = ["java.lang.OutOfMemoryError: Java heap space"]
    monkeypatch.setattr(dead_jvm, "later_lines", lambda: said)
    error = sparksession.spark_failure(ConnectionRefusedError(111, "Connection refused"))
    assert isinstance(error, SparkMemoryError), error


def test_a_jvm_stopped_otherwise_is_not_blamed_on_memory() -> None:
    text = death_message(-15, [], "2g")
    assert "HINT: something stopped it" in text
    assert "memory" not in text


@pytest.mark.parametrize("code", [-9, 137])
def test_a_jvm_killed_while_starting_is_no_java_problem(code: int) -> None:
    what, hint = start_failure(code, ["Using Spark's default log4j profile"], "8g")
    assert what.startswith("its JVM was killed by signal 9 (SIGKILL")
    assert what.endswith("while starting")
    assert "JAVA_HOME" not in hint
    assert hint.startswith("HINT: Java is fine (it answered `java -version`)")
    assert "lower spark.driver.memory (now 8g)" in hint


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("java.lang.UnsupportedClassVersionError: org/apache/spark/launcher/Main", "JAVA_HOME"),
        ("Error occurred during initialization of boot layer", "usually say why"),
        ("Module jdk.incubator.vector not found", "JAVA_HOME"),
        ("Invalid maximum heap size: -Xmxlots", "spark.driver.memory (now lots)"),
        ("There is insufficient memory for the Java Runtime Environment", "free memory"),
    ],
)
def test_start_failure_hint_follows_what_the_jvm_said(line: str, hint: str) -> None:
    what, said = start_failure(1, [line], "lots")
    assert what == "its JVM exited with code 1 while starting"
    assert hint in said


# --- a dead JVM, without Spark: a process killed the same way ----------------------


@pytest.fixture
def dead_jvm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Jvm]:
    """A stand-in for Spark's JVM: a process that wrote two lines and was killed."""
    read_fd, write_fd = os.pipe()
    output = JvmOutput(os.fdopen(read_fd, "rb"))
    proc = subprocess.Popen(
        ["sh", "-c", "echo started; sleep 0.2; echo 'ERROR Executor: boom'; sleep 60"],
        stdout=write_fd,
    )
    os.close(write_fd)
    jvm = Jvm(output, proc, "3g")
    while output.count < 1:
        time.sleep(0.05)
    jvm.ready()
    jvm.mute()
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    monkeypatch.setattr(start, "_jvm", jvm)
    yield jvm


def test_connection_refused_from_a_dead_jvm_says_it_died(dead_jvm: Jvm) -> None:
    error = sparksession.spark_failure(ConnectionRefusedError(111, "Connection refused"))
    assert type(error) is OracleError  # killed, not out of memory
    text = str(error)
    assert text.startswith("the oracle's Spark JVM died while this item's oracle ran: killed")
    assert "Connection refused" not in text
    # Only what the JVM said once the session was up, not its start-up chatter.
    assert "    ERROR Executor: boom" in text and "started" not in text
    assert "spark.driver.memory (now 3g)" in text  # the heap it was started with


@pytest.fixture
def unsayable() -> type[Exception]:
    """A Java error whose text py4j asks the JVM for, after the JVM died."""
    from py4j.protocol import Py4JError

    class JavaError(Py4JError):
        def __str__(self) -> str:
            raise ConnectionRefusedError(111, "Connection refused")

    return JavaError


def test_a_java_error_from_a_jvm_that_died_says_it_died(
    dead_jvm: Jvm, unsayable: type[Exception]
) -> None:
    """Out of memory, the JVM fails the job, then exits: py4j cannot fetch the
    error's text any more. That was a traceback from the message itself."""
    text = str(sparksession.spark_failure(unsayable()))
    assert text.startswith("the oracle's Spark JVM died while this item's oracle ran: killed")


def test_a_java_error_whose_text_is_gone_is_still_named(
    monkeypatch: pytest.MonkeyPatch, unsayable: type[Exception]
) -> None:
    monkeypatch.setattr(start, "_jvm", None)
    text = str(sparksession.spark_failure(unsayable(), "2g"))
    assert text.startswith("the oracle's Spark job failed: JavaError (the JVM no longer answers)")


def test_a_dead_jvm_does_not_explain_errors_that_are_not_spark_s(dead_jvm: Jvm) -> None:
    assert sparksession.spark_failure(ValueError("a bug")) is None


def test_ctrl_c_mutes_the_jvm_then_runs_the_handler_it_replaced() -> None:
    called = []
    saved = signal.signal(signal.SIGINT, lambda signum, frame: called.append(signum))
    try:
        jvm = Jvm(JvmOutput(io.BytesIO()), None, None)
        jvm.ready()
        mute_on_interrupt(jvm)
        handler = signal.getsignal(signal.SIGINT)
        mute_on_interrupt(jvm)  # once is enough: no handler wraps itself
        assert signal.getsignal(signal.SIGINT) is handler
        assert jvm.output.echo
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)  # Python runs the handler between two bytecodes
        assert called == [signal.SIGINT]
        assert not jvm.output.echo
    finally:
        signal.signal(signal.SIGINT, saved)


# --- for real, each in its own process ---------------------------------------------


@pytest.mark.spark
@pytest.mark.slow
def test_a_jvm_killed_between_two_oracle_calls_is_named_and_replaced() -> None:
    out = run_python(
        """
        import psutil
        from pyspark import SparkContext
        from pytest_rspbench.oracle.spark import SparkProvider

        provider = SparkProvider("local[1]")
        first = provider.get()
        assert first.range(3).count() == 3
        proc = SparkContext._gateway.proc
        psutil.Process(proc.pid).kill()  # as the kernel's OOM killer would
        proc.wait()
        try:
            first.range(4).count()
        except Exception as exc:
            print(provider.explain_failure(exc))
        second = provider.get()
        print("count", second.range(5).count(), "restarts", provider.restarts)
        print("new pid", SparkContext._gateway.proc.pid != proc.pid)
        provider.stop()
        """,
        env=dict(os.environ),
    )
    assert out.startswith(
        "the oracle's Spark JVM died while this item's oracle ran: killed by signal 9 (SIGKILL).\n"
    ), out
    assert "HINT: a JVM killed this way is usually the work of the kernel's" in out
    assert "Connection refused" not in out
    assert "count 5 restarts 1" in out
    assert "new pid True" in out


def _java_that_kills_itself(tmp_path: Path, launcher: bool) -> Path:
    """A JAVA_HOME whose ``java`` answers ``-version`` and kills itself when it
    should start Spark (``launcher``: already when Spark's launcher runs it)."""
    from pytest_rspbench.oracle.spark.java import find_java

    real = find_java().java
    home = tmp_path / ("killed-launcher" if launcher else "killed-jvm")
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    spared = "" if launcher else f'  *org.apache.spark.launcher.Main*) exec "{real}" "$@" ;;\n'
    java.write_text(
        f'#!/bin/sh\ncase "$*" in\n  -version) exec "{real}" "$@" ;;\n{spared}esac\nkill -9 $$\n'
    )
    java.chmod(0o755)
    return home


@pytest.mark.slow
@pytest.mark.parametrize("launcher", [True, False], ids=["launcher-killed", "jvm-killed"])
def test_a_jvm_killed_while_starting_is_not_blamed_on_java(tmp_path: Path, launcher: bool) -> None:
    home = _java_that_kills_itself(tmp_path, launcher)
    out = run_python(
        """
        from pytest_rspbench.errors import OracleError
        from pytest_rspbench.oracle.spark import SparkProvider
        try:
            SparkProvider("local[1]", driver_memory="1g").get()
        except OracleError as exc:
            print(exc)
        """,
        env={**os.environ, "JAVA_HOME": str(home)},
        timeout=120,
    )
    first = out.splitlines()[0]
    assert first.startswith("Spark did not start (master local[1]) on Java ")
    assert f"from JAVA_HOME ({home})" in first
    what = (
        "Spark's launcher (the first `java` that spark-class runs) ended without a "
        "word, as a killed process does"
        if launcher
        else "its JVM was killed by signal 9 (SIGKILL) while starting"
    )
    assert first.endswith(f": {what}."), out
    assert "HINT: Java is fine (it answered `java -version`)" in out
    assert "point JAVA_HOME" not in out


SPEC = f"""\
rspbench: 1
name: tiny
streams:
  - iri: {EX}s
    source:
      kind: lines
      path: stream.nt
      format: ntriples-ts
query: |
  PREFIX : <{EX}>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP ${{step}}]
  WHERE {{ WINDOW :w {{ ?obs :value ?v . FILTER(?v > 80) }} }}
matrix:
  step: [2000, 4000]
engines: [reference]
"""


def test_when_the_oracle_fails_metrics_json_keeps_the_engine_s_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oracle's Spark cannot be reached (no Spark here: no JVM is known);
    the item's error says so and metrics.json keeps what the engine did."""
    monkeypatch.setattr(start, "_jvm", None)
    from pytest_rspbench.errors import OracleError
    from pytest_rspbench.runner import run_case
    from pytest_rspbench.spec.loader import load_spec

    (tmp_path / "stream.nt").write_text(STREAM)
    (tmp_path / "tiny.rspbench.yaml").write_text(SPEC)
    case = load_spec(tmp_path / "tiny.rspbench.yaml").cases[0]

    def gone() -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    with pytest.raises(OracleError, match=r"^the oracle's Spark job failed: .*Connection refused"):
        run_case(case, gone, tmp_path / "art")
    metrics = json.loads((tmp_path / "art" / "metrics.json").read_text())
    assert metrics["oracle_error"].startswith("the oracle's Spark job failed")
    assert (metrics["spec"], metrics["engine"], metrics["passed"]) == ("tiny", "reference", False)
    assert metrics["engine_results_total"] == 4 == len(metrics["engine_results"])
    assert metrics["engine_results"][0]["window"] == [0, 4000]
    assert (tmp_path / "art" / "results.jsonl").read_text().count("\n") == 4


def test_any_oracle_failure_keeps_metrics_json(tmp_path: Path) -> None:
    from pytest_rspbench.runner import run_case
    from pytest_rspbench.spec.loader import load_spec

    (tmp_path / "stream.nt").write_text(STREAM)
    (tmp_path / "tiny.rspbench.yaml").write_text(SPEC)
    case = load_spec(tmp_path / "tiny.rspbench.yaml").cases[0]

    def broken() -> None:
        raise MemoryError("no room")

    with pytest.raises(MemoryError):
        run_case(case, broken, tmp_path / "art")
    metrics = json.loads((tmp_path / "art" / "metrics.json").read_text())
    assert metrics["oracle_error"] == "MemoryError: no room"
    assert metrics["engine_results_total"] == 4


KILLS_THE_FIRST_ORACLE = """
import os

import pytest_rspbench.oracle.oracle as oracle

real = oracle.expected_output
calls = []


def killing(spark, *args, **kwargs):
    session = spark()
    calls.append(1)
    if len(calls) == 1:  # the JVM dies just as the first item's oracle starts
        from pyspark import SparkContext

        proc = SparkContext._gateway.proc
        proc.kill()
        proc.wait()
    return real(session, *args, **kwargs)


oracle.expected_output = killing
"""


def _project(pytester: pytest.Pytester, conftest: str) -> None:
    pytester.makefile(".nt", stream=STREAM)
    pytester.makefile(".rspbench.yaml", tiny=SPEC)
    pytester.makeconftest(conftest)


@pytest.mark.spark
@pytest.mark.slow
def test_a_jvm_killed_under_an_item_fails_it_keeps_its_metrics_and_the_next_passes(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, KILLS_THE_FIRST_ORACLE)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--rspbench-artifacts", "art",
        "--rspbench-oracle-ahead", "0", timeout=600,
    )  # fmt: skip
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "tiny?step=2000,engine=reference?: the oracle's Spark JVM died while this "
            "item's oracle ran: killed by signal 9 (SIGKILL).",
            "HINT: a JVM killed this way is usually *; the next item starts a new Spark.",
        ]
    )
    assert "Connection refused" not in result.stdout.str()
    (folder,) = (pytester.path / "art").glob("*step=2000*")
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["passed"] is False
    assert metrics["oracle_error"].startswith("the oracle's Spark JVM died")
    assert metrics["engine_error"] is None
    assert metrics["engine_results_total"] == len(metrics["engine_results"]) > 0
    first = metrics["engine_results"][0]
    assert first["window"] == [0, 4000]
    assert {"obs": f"<{EX}obs1>", "v": f'"85"^^<{XSD}double>'} in first["bindings"]


KILLS_THE_FIRST_BACKGROUND_ORACLE = """
import pytest_rspbench.oracle.oracle as oracle

real = oracle.ahead
calls = []


def killing(spark, request):
    session = spark()
    calls.append(1)
    if len(calls) == 1:  # the JVM dies under the first background computation
        from pyspark import SparkContext

        proc = SparkContext._gateway.proc
        proc.kill()
        proc.wait()
    return real(session, request)


oracle.ahead = killing
"""


@pytest.mark.spark
@pytest.mark.slow
def test_a_jvm_killed_under_a_background_oracle_is_computed_again_after_the_replay(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, KILLS_THE_FIRST_BACKGROUND_ORACLE)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--rspbench-json", "r.json",
        "--rspbench-oracle-ahead", "1", timeout=600,
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    items = json.loads((pytester.path / "r.json").read_text())["items"]
    assert [i["passed"] for i in items] == [True, True]


SLEEPS_IN_THE_ORACLE = """
import os
import time

import pytest_rspbench.oracle.oracle as oracle

HERE = os.path.dirname(os.path.abspath(__file__))


def sleepy(x):
    # Runs in Spark's Python workers: once tasks run, the test may press Ctrl-C.
    open(os.path.join(HERE, "oracle-started"), "w").close()
    time.sleep(600)
    return x


def long_oracle(spark, *args, **kwargs):
    from pyspark import SparkContext
    from pyspark.sql import functions as F

    session = spark()
    with open(os.path.join(HERE, "jvm.pid"), "w") as out:
        out.write(str(SparkContext._gateway.proc.pid))
    session.range(4).repartition(2).select(F.udf(sleepy, "long")("id")).collect()


oracle.expected_output = long_oracle
oracle.ahead = long_oracle  # the same in the background (--rspbench-oracle-ahead)
"""


def _gone(pid: int, timeout: float) -> bool:
    import psutil

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("ahead", ["0", "2"])
def test_ctrl_c_during_a_spark_job_leaves_pytest_s_summary_only(
    pytester: pytest.Pytester, ahead: str
) -> None:
    """Ctrl-C in a terminal: SIGINT to pytest, the JVM and Spark's Python workers
    (the whole foreground process group) while tasks of the oracle's job run.
    Before the fix the JVM logged the cancelled and crashed tasks, stack traces
    included, after pytest's summary (every run shown here printed some)."""
    _project(pytester, SLEEPS_IN_THE_ORACLE)
    started = pytester.path / "oracle-started"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--rspbench-oracle-ahead",
            ahead,
        ],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    try:
        deadline = time.monotonic() + 300
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert started.exists(), "the oracle's Spark job did not start"
        time.sleep(1)  # every task in its sleep
        os.killpg(proc.pid, signal.SIGINT)
        out = proc.communicate(timeout=120)[0].decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out
    lines = out.splitlines()
    banner = next(k for k, line in enumerate(lines) if line.startswith("!!!"))
    assert lines[banner].strip("! ") == "KeyboardInterrupt", out
    # pytest's summary, and nothing after it.
    assert lines[banner + 1].endswith(": KeyboardInterrupt"), out
    assert lines[banner + 2].startswith("(to show a full traceback"), out
    assert lines[banner + 3 :] == [lines[-1]] and "no tests ran" in lines[-1], out
    for noise in ("\tat ", "ERROR", "Exception", "org.apache.spark", "Traceback"):
        assert noise not in out, out
    # Nothing is left behind: the JVM ends with pytest (its stdin closes).
    assert _gone(int((pytester.path / "jvm.pid").read_text()), timeout=60)
