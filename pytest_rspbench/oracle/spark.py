"""One SparkSession per pytest session, started on first use.

The oracle runs on Spark (DESIGN.md §4). :class:`SparkProvider` is cheap to
create, so the plugin can build it at configure time; PySpark is imported and
the JVM started only when a test first needs the session. Local mode finds its
Java with :func:`pytest_rspbench.oracle.java.find_java`, so ``pip install`` is enough.
A ``sc://`` URL uses Spark Connect and needs no local Java at all.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pytest_rspbench.errors import OracleError, SparkMemoryError
from pytest_rspbench.oracle import cds
from pytest_rspbench.oracle.java import JavaRuntime, find_java, spark_env
from pytest_rspbench.oracle.jvm import (
    JIT_OPTIONS,
    MEMORY_SETTING,
    Jvm,
    LaunchFailed,
    death_message,
    launch,
    mute_on_interrupt,
    out_of_memory,
    start_failure,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"

_MASTER = re.compile(
    r"local(\[(\*|\d+)(,\d+)?\])?"  # local, local[*], local[N], local[N,maxFailures]
    r"|spark://[^/\s]+"  # standalone, possibly host1:port1,host2:port2
    r"|sc://[^\s]+"  # Spark Connect, possibly with /;token=... parameters
)
_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


class SparkProvider:
    """Owns the SparkSession of one pytest session.

    >>> provider = SparkProvider("local[2]")  # starts nothing yet
    >>> provider.started
    False

    Attributes:
        master: ``local[...]``, ``spark://host:port`` or ``sc://host:port``.
        startup_seconds: how long :meth:`get` took to start (or find) the
            session; None before the first call.
        java_runtime: the Java that Spark was started with; None for Spark
            Connect or a reused session.
        reused: True if :meth:`get` found a session that someone else
            started; :meth:`stop` leaves such a session running.
    """

    def __init__(
        self,
        master: str = DEFAULT_MASTER,
        *,
        shuffle_partitions: int = 4,
        driver_memory: str | None = None,
        log_level: str = "ERROR",
        conf: Mapping[str, str] | None = None,
        app_name: str = "pytest-rspbench",
    ) -> None:
        """Check the settings; start nothing.

        Args:
            master: where Spark runs (see the class attributes).
            shuffle_partitions: ``spark.sql.shuffle.partitions``; Spark's 200
                is made for clusters and only adds tasks for test-sized data.
            driver_memory: ``spark.driver.memory`` (the heap of local mode);
                default: a quarter of the machine's memory, 2g to 8g.
            log_level: Spark's log level; WARN or ERROR keep the terminal quiet.
            conf: more Spark settings; they win over the ones above.
            app_name: the application name shown by a cluster's UI.

        Raises:
            OracleError: the master URL has none of the accepted forms.
        """
        if not _MASTER.fullmatch(master):
            raise OracleError(
                f"Spark master {master!r} is not a URL that pytest-rspbench knows.\n"
                "HINT: use local[*], local[N], spark://host:port or sc://host:port."
            )
        self.master = master
        self.shuffle_partitions = shuffle_partitions
        self.driver_memory = driver_memory or default_driver_memory()
        self.restarts = 0
        self.log_level = log_level
        self.conf = dict(conf or {})
        self.app_name = app_name
        self.startup_seconds: float | None = None
        self.java_runtime: JavaRuntime | None = None
        self.reused = False
        self._spark: SparkSession | None = None
        self._saved_env: dict[str, str | None] = {}

    @property
    def is_connect(self) -> bool:
        """True for a Spark Connect URL (``sc://``)."""
        return self.master.startswith("sc://")

    @property
    def started(self) -> bool:
        """True once :meth:`get` has returned a session that is not stopped."""
        return self._spark is not None

    def spark_conf(self) -> dict[str, str]:
        """The Spark settings a session started by this provider gets.

        Spark Connect only takes SQL session settings; the others belong to
        the server.
        """
        conf = {
            "spark.sql.shuffle.partitions": str(self.shuffle_partitions),
            # Application times are epoch milliseconds: never shift by the host's zone.
            "spark.sql.session.timeZone": "UTC",
            # A join whose shuffled partitions all come out below this size
            # (as Spark's adaptive execution measures them) builds a hash
            # table of one side per partition instead of sorting both sides:
            # the oracle joins triple patterns on IRIs, long strings with a
            # common prefix, which sort slowly. At 5M triples the filter's
            # join stages took 15.2 s of task time sorted and 8.2 s hashed;
            # the whole run at 20M, 50.7 s and 41.9 s (session 24). Partitions
            # above it (a skewed or huge join) are still sorted, which spills
            # to disk rather than running out of memory. 64MB is Spark's
            # advisory partition size, below which this setting has no effect.
            "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold": "64MB",
        }
        if not self.is_connect:
            conf.update(self._classic_conf())
        conf.update(self.conf)
        if not self.is_connect:
            # The most the driver takes from one job: its heap (the user's, if
            # set), not Spark's 1g. The oracle collects its whole output into
            # the driver by design; a self-join's 5.6 million solutions at 20M
            # triples are 1.5 GB of Arrow batches. Past the heap, the
            # out-of-memory error says what to raise.
            conf.setdefault("spark.driver.maxResultSize", conf["spark.driver.memory"])
        return conf

    def get(self) -> SparkSession:
        """Return the session, starting Spark on the first call.

        A session that is already active in this process (say an outer test
        session started it) is reused and later left running.

        Raises:
            JavaNotFoundError: local Spark has no Java 17+ to run on.
            OracleError: Spark did not start; the message quotes the JVM.
        """
        if self._spark is not None:
            if self.alive():
                return self._spark
            # The driver JVM died under the last job (out of memory, killed):
            # the next item gets a new one instead of a dead session.
            self._forget_dead()
        began = time.perf_counter()
        active = _active_session()
        self.reused = active is not None
        self._spark = active if active is not None else self._start()
        self.startup_seconds = time.perf_counter() - began
        return self._spark

    def alive(self) -> bool:
        """Is the session started and still usable?

        A local driver JVM can die under a job (``OutOfMemoryError``); its
        SparkContext is then stopped, or the JVM gone altogether.
        """
        if self._spark is None:
            return False
        if self.is_connect:
            return True
        if _jvm is not None and not self.reused and _jvm.exit_code() is not None:
            return False
        try:
            return not self._spark.sparkContext._jsc.sc().isStopped()
        except Exception:  # the JVM is gone: py4j cannot even connect
            return False

    def stop(self) -> None:
        """Stop the session if this provider started it; forget it either way."""
        spark, self._spark = self._spark, None
        if spark is not None and not self.reused:
            if _jvm is not None:
                # Stopping cancels what still runs (after a Ctrl-C, say); the
                # JVM logs each cancelled task with its stack trace: noise now.
                _jvm.mute()
            try:
                spark.stop()
            except Exception:  # a dead JVM cannot be stopped; nothing is lost
                _drop_gateway()
            _restore_env(self._saved_env)
            self._saved_env = {}

    def explain_failure(self, exc: BaseException) -> OracleError | None:
        """The OracleError for ``exc`` if it is a Spark job failing (else
        None): a :class:`~pytest_rspbench.errors.SparkMemoryError` naming this
        session's driver heap when it ran out of memory; it says so when the
        JVM died (the next :meth:`get` starts a new one)."""
        return spark_failure(exc, self.spark_conf().get("spark.driver.memory"))

    @contextlib.contextmanager
    def used(self) -> Iterator[None]:
        """A command's use of this session: a Spark job failing becomes an
        :class:`OracleError` that names it (:meth:`explain_failure`); the
        session stops at the end either way."""
        try:
            yield
        except Exception as exc:
            error = self.explain_failure(exc)
            if error is None:
                raise
            raise error from exc
        finally:
            self.stop()

    def _forget_dead(self) -> None:
        """Drop a dead session and its JVM, so :meth:`get` starts afresh."""
        self._spark = None
        self.restarts += 1
        self.reused = False
        _drop_gateway()
        _restore_env(self._saved_env)
        self._saved_env = {}

    def summary(self) -> dict[str, Any]:
        """What reports show about the oracle's Spark."""
        return {
            "master": self.master,
            "java": self.java_runtime.describe() if self.java_runtime else None,
            "startup_seconds": self.startup_seconds,
            "reused": self.reused,
        }

    def _classic_conf(self) -> dict[str, str]:
        """Settings for a JVM started in this process (local or standalone)."""
        conf = {
            "spark.master": self.master,
            "spark.app.name": self.app_name,
            "spark.driver.memory": self.driver_memory,
            "spark.log.level": self.log_level,
            "spark.ui.enabled": "false",
            # PySpark starts the JVM as "pyspark-shell", which turns the stage
            # progress bar on; it would draw over pytest's output.
            "spark.ui.showConsoleProgress": "false",
            # On, every DataFrame and Column call tells the JVM its Python call
            # site (4 more py4j round trips and a stack walk each): a third of
            # the time spent building a plan. The oracle names failures itself.
            "spark.python.sql.dataFrameDebugging.enabled": "false",
        }
        if not _arrow_available():
            # Spark 4 makes Python UDFs Arrow-based by default; without pandas
            # and pyarrow PySpark falls back with a RuntimeWarning per UDF, which
            # `filterwarnings = error` turns into test failures.
            conf["spark.sql.execution.pythonUDF.arrow.enabled"] = "false"
        if _runs_here(self.master):
            # Sandboxes and CI runners often have a host name that does not
            # resolve; local mode, and a cluster on loopback, never need more
            # than loopback (the executors reach the driver there too).
            conf["spark.driver.bindAddress"] = "127.0.0.1"
            conf["spark.driver.host"] = "127.0.0.1"
        return conf

    def _start(self) -> SparkSession:
        """Start a new session for this provider's master."""
        if self.is_connect:
            return self._start_connect()
        self.java_runtime = find_java()
        env = spark_env(self.java_runtime)
        if _runs_here(self.master) and "PYSPARK_PYTHON" not in os.environ:
            # Python workers default to `python3` on PATH, which need not be
            # this interpreter (a virtualenv that is not activated).
            env["PYSPARK_PYTHON"] = sys.executable
        self._saved_env = _apply_env(env)
        conf = self.spark_conf()
        try:
            spark = _start_classic(conf, cds.plan(self.java_runtime, conf))
        except _StartFailed as failed:
            _restore_env(self._saved_env)
            raise OracleError(self._failure_message(failed)) from failed.cause
        _quiet_query_context_loggers()
        return spark

    def _start_connect(self) -> SparkSession:
        """Connect to a Spark Connect server (no local JVM)."""
        from pyspark.sql import SparkSession

        try:  # the client packages first: without them nothing else matters
            import pyspark.sql.connect.session  # noqa: F401
        except ImportError as exc:
            raise OracleError(
                f"Spark Connect ({self.master}) needs client packages: {exc}\n"
                "HINT: pip install 'pytest-rspbench[connect]'"
            ) from exc
        # PySpark's client retries an unreachable server with back-off for
        # minutes, in silence: a server that is not there is named at once.
        host, port = connect_address(self.master)
        if probed(host) and not reachable(host, port):
            serve = "rspbench spark serve" + (f" --port {port}" if port != 15002 else "")
            if host in ("localhost", "127.0.0.1", "::1"):
                hint = f"start one with `{serve}` (it runs until Ctrl-C)"
            else:
                hint = "check that the server runs there and that the network lets you in"
            raise OracleError(
                f"No Spark Connect server answers at {host}:{port} ({self.master}).\n"
                f"HINT: {hint}; or leave out the sc:// master and the oracle starts "
                "its own Spark."
            )
        builder = SparkSession.builder.remote(self.master)
        for key, value in self.spark_conf().items():
            builder = builder.config(key, value)
        try:
            spark = builder.getOrCreate()
        except ImportError as exc:
            raise OracleError(
                f"Spark Connect ({self.master}) needs client packages: {exc}\n"
                "HINT: pip install 'pytest-rspbench[connect]'"
            ) from exc
        except Exception as exc:
            raise OracleError(
                f"Could not connect to the Spark Connect server {self.master}: "
                f"{type(exc).__name__}: {exc}\n"
                "HINT: check that the server runs (`rspbench spark serve` starts one "
                "on this machine) and that host and port are right."
            ) from exc
        _quiet_query_context_loggers()
        return spark

    def _failure_message(self, failed: _StartFailed) -> str:
        """The OracleError text for a start that failed: what happened to the
        JVM (killed, exited), its last lines, and a HINT that fits."""
        assert self.java_runtime is not None
        jvm = failed.jvm
        code = jvm.exit_code(wait=2.0) if jvm is not None else None
        # A JVM that ended has closed its output: wait for the reader to see all.
        lines = jvm.output.tail(wait=5.0 if code is not None else 0.5) if jvm else []
        memory = self.spark_conf().get("spark.driver.memory")
        what, hint = start_failure(code, lines, memory)
        if not self.master.startswith("local"):
            hint += f" Check that the master {self.master} is up and reachable."
        tail = "\n".join(f"    {line}" for line in lines) or "    (none)"
        return (
            f"Spark did not start (master {self.master}) on "
            f"{self.java_runtime.describe()}: {what}.\n"
            f"{type(failed.cause).__name__}: {failed.cause}\n"
            f"Last lines that Spark's launcher and JVM wrote:\n{tail}\n{hint}"
        )


class _StartFailed(Exception):
    """Internal: a start failure with the JVM that did not start."""

    def __init__(self, cause: BaseException, jvm: Jvm | None) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.jvm = jvm


# One JVM per process: PySpark keeps its gateway after a session stops.
_jvm: Jvm | None = None


def _start_classic(conf: dict[str, str], archive: cds.Plan | None = None) -> SparkSession:
    """Start the JVM (keeping its process and output) if needed, then the session.

    ``archive`` says which class-data-sharing options a new driver JVM gets
    (:mod:`pytest_rspbench.oracle.cds`).
    """
    global _jvm
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    archive = archive or cds.Plan()
    spark_conf = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    launched = False
    try:
        if SparkContext._gateway is None:
            gateway, _jvm = launch(spark_conf, (*JIT_OPTIONS, *archive.options))
            launched = True
            SparkContext(conf=spark_conf, gateway=gateway)
        builder = SparkSession.builder
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
    except LaunchFailed as failed:
        archive.abandon()
        raise _StartFailed(failed.cause, failed.jvm) from failed.cause
    except Exception as exc:
        archive.abandon()
        jvm = _jvm
        if jvm is not None and jvm.exit_code(wait=1.0) is not None:
            _drop_gateway()  # it died while starting: the next try launches anew
        raise _StartFailed(exc, jvm) from exc
    if _jvm is not None:
        _jvm.ready()
        mute_on_interrupt(_jvm)
    if launched:
        _hand_over_archive(archive, spark)
    else:
        archive.abandon()  # a JVM already ran: it has no class list to give
    cache_function_lookups()
    return spark


def _hand_over_archive(archive: cds.Plan, spark: SparkSession) -> None:
    """Tell the archive's builder which driver JVM to wait for and its class path."""
    if archive.job is None:
        return
    try:
        system = spark.sparkContext._jvm.java.lang  # type: ignore[union-attr]
        class_path = system.System.getProperty("java.class.path")
        pid = system.ProcessHandle.current().pid()
    except Exception:  # py4j trouble is for the oracle's jobs to report
        archive.abandon()
        return
    archive.started(str(class_path), int(pid))


def cache_function_lookups() -> None:
    """Make PySpark look up each of Spark's SQL functions once per SparkContext.

    Classic PySpark finds ``functions.when`` (and every other) by reflection
    on each call: two py4j round trips before the call itself, and the
    oracle's plans make thousands of such calls. The found method is the same
    every time for one JVM, so it is kept on the SparkContext (a new JVM has
    a new context, and looks them up again). Measured on ten CSRBench specs
    in a warm session: 16.8 s instead of 17.9 s (the fastest of four rounds);
    14.4 s with interpreted expressions for small inputs too (:data:`SMALL_CONF`).
    """
    try:
        from pyspark.sql.functions import builtin
    except ImportError:  # pragma: no cover - another PySpark layout: nothing to do
        return
    original = getattr(builtin, "_get_jvm_function", None)
    if original is None or getattr(original, "rspbench_cached", False):
        return

    def cached(name: str, sc: Any) -> Any:
        found = sc.__dict__.setdefault("_rspbench_functions", {})
        member = found.get(name)
        if member is None:
            member = found[name] = original(name, sc)
        return member

    cached.rspbench_cached = True  # type: ignore[attr-defined]
    builtin._get_jvm_function = cached


SMALL_INPUT = 50_000
"""Streams of at most this many triples (all together) are small for :func:`sized`."""

SMALL_CONF = {
    # One task per stage: a few thousand rows gain nothing from four.
    "spark.sql.shuffle.partitions": "1",
    # No re-planning between stages: each one costs more than it saves here.
    "spark.sql.adaptive.enabled": "false",
    # Java code generated and compiled per plan (Janino) costs more than
    # interpreting the expressions over a few thousand rows.
    "spark.sql.codegen.wholeStage": "false",
    # Nor for each projection and predicate: every generated class is also
    # new bytecode for the JVM's JIT compiler, whose threads took more CPU
    # than anything else in a session of small specs.
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}
"""Session settings for small inputs, measured on the bundled specs: 20 items'
oracle time 84.6 s with Spark's defaults; 76.4 s, 73.1 s and 68.1 s with each
of these alone (docs/benchmarks.md)."""


TRIPLES_PER_PARTITION = 6_000_000
"""A large input gets at least one shuffle partition per this many triples
(:func:`sized`).

The oracle collects its whole output into the driver, one task result per
partition of the last stage, and the driver holds a result while it is
sent to Python. With the session's 4 partitions, the self-join over 50M
triples (14.2 million solutions) came in four results of about 1 GB, and
the driver's 5 GB heap ran out of memory; with 9 (about 400 MB each, as
the 20M self-join's 4) it completes (session 25). More partitions cost
time: 2.5M triples per partition made the 20M self-join 7-11 s slower
(9 partitions against 4), so inputs up to 24M triples keep 4."""


@contextlib.contextmanager
def sized(spark: Any, triples: int | None) -> Iterator[None]:
    """Run the oracle's jobs with settings for the input's size.

    For a small input (:data:`SMALL_INPUT`) the session gets
    :data:`SMALL_CONF`; for a large one, at least one shuffle partition per
    :data:`TRIPLES_PER_PARTITION` triples (a larger setting stays); either
    way the session gets its own values back afterwards. For an unknown size
    nothing changes.
    """
    if triples is None:
        yield
        return
    conf = spark.conf
    settings = dict(SMALL_CONF) if triples <= SMALL_INPUT else {}
    if triples > SMALL_INPUT:
        wanted = -(-triples // TRIPLES_PER_PARTITION)
        current = conf.get("spark.sql.shuffle.partitions", None)
        if current is None or (current.isdigit() and int(current) < wanted):
            settings["spark.sql.shuffle.partitions"] = str(wanted)
    saved = {key: conf.get(key, None) for key in settings}
    for key, value in settings.items():
        conf.set(key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


def spark_failure(exc: BaseException, driver_memory: str | None = None) -> OracleError | None:
    """The OracleError for a Spark job that failed under the oracle.

    None when ``exc`` is not Spark's (py4j's) doing. When the JVM is gone
    (py4j then says "Connection refused") the text says that it died and how
    (killed by a signal, out of memory); else it names the first line of the
    Java error and, when the driver ran out of memory, how to give it more.
    Out of memory, it is a :class:`~pytest_rspbench.errors.SparkMemoryError`.
    ``driver_memory`` defaults to the one the JVM was started with.
    """
    try:
        from py4j.protocol import Py4JError, Py4JNetworkError
    except ImportError:  # pragma: no cover - pyspark always brings py4j
        return None
    if not isinstance(exc, (Py4JError, ConnectionError)):
        return None
    jvm = _jvm
    if driver_memory is None and jvm is not None:
        driver_memory = jvm.driver_memory
    # A Java error's text comes from the JVM; a JVM dying under the job
    # (out of memory) cannot give it, and py4j's str() then fails.
    try:
        told = str(exc)
    except Exception:
        told = None
    # A lost connection: give a dying JVM a moment to be gone for good.
    lost = told is None or isinstance(exc, (Py4JNetworkError, ConnectionError))
    code = jvm.exit_code(wait=5.0 if told is None else 1.0 if lost else 0.0) if jvm else None
    if jvm is not None and code is not None:
        last = jvm.later_lines()
        died = SparkMemoryError if out_of_memory(code, last) else OracleError
        return died(death_message(code, last, driver_memory))
    told = told or f"{type(exc).__name__} (the JVM no longer answers)"
    first = next((line for line in told.splitlines() if line.strip()), type(exc).__name__)
    later = jvm.later_lines() if jvm is not None else []
    said = " ".join([told, *later])
    text = f"the oracle's Spark job failed: {first.strip()}"
    oom = "OutOfMemoryError" in said
    if "spark.driver.maxResultSize" in said and not oom:
        text += (
            "\nThe expected output is larger than spark.driver.maxResultSize, the most "
            "the driver takes from one job (the driver's memory unless you set it).\n"
            "HINT: give the driver more memory, and the limit follows, e.g. "
            f"{MEMORY_SETTING}; or set spark.driver.maxResultSize itself the same way."
        )
        return OracleError(text)
    if oom:
        text += (
            f"\nThe Spark driver ran out of memory (spark.driver.memory = "
            f"{driver_memory or 'its default'}).\nHINT: give it more, e.g. "
            f"{MEMORY_SETTING}; the next item starts a new Spark."
        )
    else:
        lines = "\n".join(f"    {line}" for line in later[-8:])
        if lines:
            text += f"\nLast lines of Spark's JVM:\n{lines}"
        text += "\nHINT: the Java error above (and the JVM's last lines) usually say why."
    return (SparkMemoryError if oom else OracleError)(text)


def default_driver_memory() -> str:
    """A quarter of the machine's memory, at least 2g and at most 8g.

    Spark's own default (1g) is too small for YABench's big loads; the heap
    is reserved as the JVM needs it, so a larger limit costs nothing until
    it is used.
    """
    try:
        import psutil

        total = psutil.virtual_memory().total
    except Exception:
        return "2g"
    gigabytes = total // 4 // 2**30
    return f"{min(max(gigabytes, 2), 8)}g"


def _drop_gateway() -> None:
    """Forget PySpark's session, context and gateway, killing their JVM.

    PySpark keeps them in class attributes and reuses the gateway for any
    new context; after the JVM died that gateway leads nowhere.
    """
    global _jvm
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    gateway = SparkContext._gateway
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    SparkContext._active_spark_context = None
    SparkContext._gateway = None
    SparkContext._jvm = None
    _jvm = None
    if gateway is None:
        return
    proc = getattr(gateway, "proc", None)
    with contextlib.suppress(Exception):  # its JVM may be gone already
        gateway.shutdown()
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)


def _active_session() -> SparkSession | None:
    """The session someone already started in this process, if any."""
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    try:
        # active(): this thread's session, else the default one (classic or Connect).
        return SparkSession.active()
    except (PySparkException, ImportError):
        return None


def _quiet_query_context_loggers() -> None:
    """Stop PySpark from logging every failed query as JSON on stderr.

    PySpark 4 logs each error that has a query context, JVM stack included, to
    a handler bound to the stderr of that moment (``propagate=False``, so
    pytest's log capture never sees it). The same error is raised anyway, and
    the oracle reports it.
    """
    import logging

    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        # PySparkLogger.getLogger: a plain logging.Logger under this name would
        # break PySpark's calls with structured keyword arguments.
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def _arrow_available() -> bool:
    """True if pandas and pyarrow are installed (found, not imported: cheap)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("pandas", "pyarrow"))


def reads_local_files(master: str) -> bool:
    """True if Spark with this master reads this machine's files at their paths.

    Local mode, and a standalone cluster or Spark Connect server on loopback.

    >>> reads_local_files("local[2]"), reads_local_files("sc://localhost:15002")
    (True, True)
    >>> reads_local_files("spark://cluster.example:7077")
    False
    """
    if master.startswith("sc://"):
        from urllib.parse import urlsplit

        host = urlsplit(master.split(";", 1)[0]).hostname or ""
        return host in ("localhost", "127.0.0.1", "::1")
    return _runs_here(master)


def connect_address(master: str) -> tuple[str, int]:
    """Host and port of a Spark Connect URL (port 15002 when it names none).

    >>> connect_address("sc://127.0.0.1:15003/;token=abc")
    ('127.0.0.1', 15003)
    >>> connect_address("sc://spark.example.org")
    ('spark.example.org', 15002)
    >>> connect_address("sc://[::1]:15010")
    ('::1', 15010)
    """
    authority = master.removeprefix("sc://").split("/", 1)[0]
    host, sep, port = authority.rpartition(":")
    if not sep or host.endswith("[") or (host.startswith("[") and not host.endswith("]")):
        host, port = authority, ""
    return host.strip("[]"), int(port) if port.isdigit() else 15002


def probed(host: str, env: Mapping[str, str] = os.environ) -> bool:
    """Whether a Connect server at ``host`` is first tried with a plain TCP
    connection: not when gRPC goes through a proxy (``grpc_proxy``,
    ``https_proxy``, ``http_proxy``), which the client honours and a direct
    connection would not, except for a server on loopback.

    >>> probed("127.0.0.1", {"https_proxy": "http://proxy:3128"})
    True
    >>> probed("spark.example.org", {"HTTPS_PROXY": "http://proxy:3128"})
    False
    >>> probed("spark.example.org", {})
    True
    """
    if host in ("localhost", "127.0.0.1", "::1"):
        return True
    names = ("grpc_proxy", "https_proxy", "http_proxy")
    return not any(env.get(n) or env.get(n.upper()) for n in names)


def reachable(host: str, port: int, timeout: float = 5.0) -> bool:
    """Whether a TCP connection to ``host:port`` opens within ``timeout`` s
    (something listens there)."""
    import socket

    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _runs_here(master: str) -> bool:
    """True if Spark's Python workers run on this machine (this interpreter exists)."""
    if master.startswith("local"):
        return True
    hosts = master.removeprefix("spark://").split(",")
    return all(host.rsplit(":", 1)[0] in _LOOPBACK_HOSTS for host in hosts)


def _apply_env(values: Mapping[str, str]) -> dict[str, str | None]:
    """Set variables in ``os.environ``; return their old values for restoring."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    return saved


def _restore_env(saved: Mapping[str, str | None]) -> None:
    """Undo :func:`_apply_env`."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
