"""Starting Spark: a local driver JVM (classic PySpark) or a Spark Connect client.

PySpark starts one JVM per process and keeps its gateway in class attributes
after a session stops. This module keeps that JVM's process and output
(:class:`~pytest_rspbench.oracle.spark.jvm.Jvm`) so failures can say how it
ended, and forgets it all when the JVM died (:func:`drop_gateway`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.spark import cds
from pytest_rspbench.oracle.spark.addresses import connect_address, probed, reachable
from pytest_rspbench.oracle.spark.jvm import (
    JIT_OPTIONS,
    Jvm,
    LaunchFailed,
    launch,
    mute_on_interrupt,
)
from pytest_rspbench.oracle.spark.patch import cache_function_lookups

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# One JVM per process: PySpark keeps its gateway after a session stops.
_jvm: Jvm | None = None


def current_jvm() -> Jvm | None:
    """The driver JVM this process launched, while PySpark's gateway to it lasts."""
    return _jvm


class StartFailed(Exception):
    """A start that failed, with the JVM that did not start (None if none was launched)."""

    def __init__(self, cause: BaseException, jvm: Jvm | None) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.jvm = jvm


def start_classic(conf: dict[str, str], archive: cds.Plan | None = None) -> SparkSession:
    """Start the JVM (keeping its process and output) if needed, then the session.

    ``archive`` says which class-data-sharing options a new driver JVM gets
    (:mod:`pytest_rspbench.oracle.spark.cds`).
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
        raise StartFailed(failed.cause, failed.jvm) from failed.cause
    except Exception as exc:
        archive.abandon()
        jvm = _jvm
        if jvm is not None and jvm.exit_code(wait=1.0) is not None:
            drop_gateway()  # it died while starting: the next try launches anew
        raise StartFailed(exc, jvm) from exc
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


def drop_gateway() -> None:
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


def active_session() -> SparkSession | None:
    """The session someone already started in this process, if any."""
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    try:
        # active(): this thread's session, else the default one (classic or Connect).
        return SparkSession.active()
    except (PySparkException, ImportError):
        return None


def quiet_query_context_loggers() -> None:
    """Stop PySpark from logging every failed query as JSON on stderr, and
    py4j from logging a traceback for every call a stopped JVM cut off.

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
    # py4j logs a traceback for every call cut off by a JVM that ended (Ctrl-C,
    # SIGTERM, a JVM killed for a plan that never finishes); the call's own
    # error is raised anyway, and the oracle explains it (spark_failure).
    logging.getLogger("py4j").setLevel(logging.CRITICAL)


def arrow_available() -> bool:
    """True if pandas and pyarrow are installed (found, not imported: cheap)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("pandas", "pyarrow"))


def start_connect(master: str, conf: Mapping[str, str], shown: str | None = None) -> SparkSession:
    """Connect to the Spark Connect server at ``master`` (no local JVM) with ``conf``.

    ``shown`` names the server in messages instead of ``master`` (which may
    hold a token).
    """
    from pyspark.sql import SparkSession

    named = shown or master

    try:  # the client packages first: without them nothing else matters
        import pyspark.sql.connect.session  # noqa: F401
    except ImportError as exc:
        raise OracleError(
            f"Spark Connect ({named}) needs client packages: {exc}\n"
            "HINT: pip install 'pytest-rspbench[connect]'"
        ) from exc
    # PySpark's client retries an unreachable server with back-off for
    # minutes, in silence: a server that is not there is named at once.
    host, port = connect_address(master)
    if probed(host) and not reachable(host, port):
        serve = "rspbench spark serve" + (f" --port {port}" if port != 15002 else "")
        if host in ("localhost", "127.0.0.1", "::1"):
            hint = f"start one with `{serve}` (it runs until Ctrl-C)"
        else:
            hint = "check that the server runs there and that the network lets you in"
        raise OracleError(
            f"No Spark Connect server answers at {host}:{port} ({named}).\n"
            f"HINT: {hint}; or leave out the sc:// master and the oracle starts "
            "its own Spark."
        )
    builder = SparkSession.builder.remote(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except ImportError as exc:
        raise OracleError(
            f"Spark Connect ({named}) needs client packages: {exc}\n"
            "HINT: pip install 'pytest-rspbench[connect]'"
        ) from exc
    except Exception as exc:
        if "UNAUTHENTICATED" in str(exc) or "nvalid authentication" in str(exc):
            raise OracleError(refused(named)) from None
        raise OracleError(
            f"Could not connect to the Spark Connect server {named}: "
            f"{type(exc).__name__}: {exc}\n"
            "HINT: check that the server runs (`rspbench spark serve` starts one "
            "on this machine) and that host and port are right."
        ) from exc
    quiet_query_context_loggers()
    return spark


def refused(shown: str) -> str:
    """The message for a Connect server that refused this client's token."""
    return (
        f"The Spark Connect server at {shown} refused this client: the token "
        "is missing from the sc:// URL or wrong (a warm Spark takes only the token of "
        "its state file, which only the user who started it can read).\n"
        "HINT: to use your own warm Spark, leave out the sc:// master and turn on "
        "--rspbench-warm-spark (rspbench: --warm-spark); `rspbench spark status` shows it. "
        "For another server, add its token: sc://HOST:PORT/;token=TOKEN."
    )
