"""One SparkSession per pytest session, started on first use.

The oracle runs on Spark (docs/oracle.md). :class:`SparkProvider` is cheap
to create, so the plugin can build it at configure time; PySpark is imported
and the JVM started only when a test first needs the session. Local mode finds its
Java with :func:`pytest_rspbench.oracle.spark.java.find_java`, so ``pip install`` is enough.
A ``sc://`` URL uses Spark Connect and needs no local Java at all.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.spark import cds
from pytest_rspbench.oracle.spark.addresses import MASTER_URL, runs_here
from pytest_rspbench.oracle.spark.environment import apply_env, python_for_workers, restore_env
from pytest_rspbench.oracle.spark.failures import spark_failure, start_failure_message
from pytest_rspbench.oracle.spark.java import JavaRuntime, find_java, spark_env
from pytest_rspbench.oracle.spark.sizing import default_driver_memory
from pytest_rspbench.oracle.spark.start import (
    StartFailed,
    active_session,
    arrow_available,
    current_jvm,
    drop_gateway,
    quiet_query_context_loggers,
    start_classic,
    start_connect,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"


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
        warm: the warm Spark this provider connected to
            (:mod:`~pytest_rspbench.oracle.spark.warm`), None if none.
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
        warm: float | None = None,
        warm_for_run: bool = False,
        say: Callable[[str], None] | None = None,
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
            warm: for a ``local`` master, the idle time in seconds of a warm
                Spark to use instead of a JVM of this process (None: off).
            warm_for_run: the warm Spark serves this run only
                (:func:`~pytest_rspbench.oracle.spark.warm.run_server`): one
                this provider starts ends at :meth:`stop`, and ``warm`` is
                then only its idle time should this process die.
            say: gets the one line saying which warm Spark is used.

        Raises:
            OracleError: the master URL has none of the accepted forms.
        """
        if not MASTER_URL.fullmatch(master):
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
        self.warm_idle = warm if master.startswith("local") else None
        self.warm: Any = None
        self.warm_for_run = warm_for_run
        self._owns_warm = False
        self._dead = False
        self._say = say or (lambda text: None)
        self._marked = 0.0
        self._spark: SparkSession | None = None
        self._saved_env: dict[str, str | None] = {}

    @property
    def is_connect(self) -> bool:
        """True for a Spark Connect URL (``sc://``) or a warm Spark."""
        return self.master.startswith("sc://") or self.warm is not None

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
            # the whole run at 20M, 50.7 s and 41.9 s (docs/benchmarks.md). Partitions
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
                self._mark_warm()
                return self._spark
            # The driver JVM died under the last job (out of memory, killed):
            # the next item gets a new one instead of a dead session.
            self._forget_dead()
        began = time.perf_counter()
        active = active_session()
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
            return not self._dead
        jvm = current_jvm()
        if jvm is not None and not self.reused and jvm.exit_code() is not None:
            return False
        try:
            return not self._spark.sparkContext._jsc.sc().isStopped()
        except Exception:  # the JVM is gone: py4j cannot even connect
            return False

    def kill(self) -> bool:
        """Kill the JVM this provider started, for a job or a query plan that
        will not finish: Spark cannot cancel a plan while it is analysed.

        The Spark call under way then fails, and the next :meth:`get` starts
        a new JVM (as after a JVM that died). False when there is none of
        this provider's to kill (Spark Connect, a session someone else started).
        """
        if self.is_connect:
            return self._stop_connect_job()
        jvm = current_jvm()
        if self.reused or self._spark is None or jvm is None:
            return False
        if jvm.proc is None or jvm.exit_code() is not None:
            return False
        jvm.proc.kill()
        return True

    def _stop_connect_job(self) -> bool:
        """:meth:`kill` on Spark Connect: a server this run started is ended
        (the next :meth:`get` starts another), any other is asked to
        interrupt this session's operations."""
        if self._spark is None:
            return False
        if self._owns_warm and self.warm is not None:
            from pytest_rspbench.oracle.spark.warm import end

            self._dead = True
            return end(self.warm, timeout=5.0)
        try:
            self._spark.interruptAll()
        except Exception:  # the server is gone already: the call fails anyway
            return False
        return True

    def stop(self) -> None:
        """Stop the session if this provider started it; forget it either way."""
        spark, self._spark = self._spark, None
        if self._owns_warm and self.warm is not None:
            from pytest_rspbench.oracle.spark import warmstate
            from pytest_rspbench.oracle.spark.warm import end

            if spark is not None:
                with contextlib.suppress(Exception):  # the server may be gone
                    spark.stop()
            end(self.warm)
            with warmstate.locked():
                warmstate.remove(self.warm.pid)
            self._owns_warm = False
            self.warm = None
            return
        if spark is not None and self.warm is not None:
            from pytest_rspbench.oracle.spark.warm import mark_used

            mark_used(self.warm)  # its idle time counts from this run's end
        if spark is not None and not self.reused:
            jvm = current_jvm()
            if jvm is not None:
                # Stopping cancels what still runs (after a Ctrl-C, say); the
                # JVM logs each cancelled task with its stack trace: noise now.
                jvm.mute()
            try:
                spark.stop()
            except Exception:  # a dead JVM cannot be stopped; nothing is lost
                drop_gateway()
            restore_env(self._saved_env)
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
        dead, self._spark = self._spark, None
        if self.is_connect and dead is not None:
            # Its channel closed without a call to the gone server: PySpark
            # would hand the closed-over session to the next getOrCreate,
            # whose calls then retry against nothing for minutes.
            with contextlib.suppress(Exception):
                dead.client.close()
        self._dead = False
        self.restarts += 1
        self.reused = False
        drop_gateway()
        restore_env(self._saved_env)
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
        if not arrow_available():
            # Spark 4 makes Python UDFs Arrow-based by default; without pandas
            # and pyarrow PySpark falls back with a RuntimeWarning per UDF, which
            # `filterwarnings = error` turns into test failures.
            conf["spark.sql.execution.pythonUDF.arrow.enabled"] = "false"
        if runs_here(self.master):
            # Sandboxes and CI runners often have a host name that does not
            # resolve; local mode, and a cluster on loopback, never need more
            # than loopback (the executors reach the driver there too).
            conf["spark.driver.bindAddress"] = "127.0.0.1"
            conf["spark.driver.host"] = "127.0.0.1"
        return conf

    def _mark_warm(self) -> None:
        """Tell the warm Spark it is in use, at most every 10 s."""
        if self.warm is not None and time.monotonic() - self._marked > 10.0:
            from pytest_rspbench.oracle.spark.warm import mark_used

            mark_used(self.warm)
            self._marked = time.monotonic()

    def _start(self) -> SparkSession:
        """Start a new session for this provider's master."""
        if self.warm_idle is not None:
            spark = self._start_warm()
            if spark is not None:
                return spark
        if self.is_connect:
            return start_connect(self.master, self.spark_conf())
        self.java_runtime = find_java()
        env = spark_env(self.java_runtime)
        env.update(python_for_workers(self.master))
        self._saved_env = apply_env(env)
        conf = self.spark_conf()
        try:
            spark = start_classic(conf, cds.plan(self.java_runtime, conf))
        except StartFailed as failed:
            restore_env(self._saved_env)
            memory = conf.get("spark.driver.memory")
            message = start_failure_message(self.master, self.java_runtime, failed, memory)
            raise OracleError(message) from failed.cause
        quiet_query_context_loggers()
        return spark

    def _start_warm(self) -> SparkSession | None:
        """A Spark Connect session on the warm Spark; None when there can be
        none (Spark Connect's client is missing): the caller starts a JVM."""
        from pytest_rspbench.oracle.spark.warm import run_server, warm_server

        assert self.warm_idle is not None
        self.warm = None  # the settings local mode starts with, not a client's
        conf = self.spark_conf()
        if self.warm_for_run:
            self.warm, self._owns_warm = run_server(self.warm_idle, conf, self._say)
        else:
            self.warm = warm_server(self.warm_idle, conf, self._say)
        if self.warm is None:
            return None
        # The server has the rest; a Connect session takes SQL settings only.
        session = {k: v for k, v in conf.items() if k.startswith("spark.sql.")}
        return start_connect(self.warm.url, session, shown=self.warm.shown)
