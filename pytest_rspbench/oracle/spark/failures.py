"""Spark failures turned into messages a user can act on: the one place that does.

A Spark job failing under the oracle (:func:`spark_failure`) and a JVM that
did not start (:func:`start_failure_message`) become an
:class:`~pytest_rspbench.errors.OracleError` (a
:class:`~pytest_rspbench.errors.SparkMemoryError` when memory ran out) that
says what happened to the JVM, quotes its last lines and ends with a HINT.
"""

from __future__ import annotations

from pytest_rspbench.errors import OracleError, SparkMemoryError
from pytest_rspbench.oracle.spark.java import JavaRuntime
from pytest_rspbench.oracle.spark.jvm import (
    MEMORY_SETTING,
    death_message,
    out_of_memory,
    start_failure,
)
from pytest_rspbench.oracle.spark.start import StartFailed, current_jvm


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
    jvm = current_jvm()
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


def start_failure_message(
    master: str, java: JavaRuntime, failed: StartFailed, memory: str | None
) -> str:
    """The OracleError text for a start that failed: what happened to the
    JVM (killed, exited), its last lines, and a HINT that fits."""
    jvm = failed.jvm
    code = jvm.exit_code(wait=2.0) if jvm is not None else None
    # A JVM that ended has closed its output: wait for the reader to see all.
    lines = jvm.output.tail(wait=5.0 if code is not None else 0.5) if jvm else []
    what, hint = start_failure(code, lines, memory)
    if not master.startswith("local"):
        hint += f" Check that the master {master} is up and reachable."
    tail = "\n".join(f"    {line}" for line in lines) or "    (none)"
    return (
        f"Spark did not start (master {master}) on "
        f"{java.describe()}: {what}.\n"
        f"{type(failed.cause).__name__}: {failed.cause}\n"
        f"Last lines that Spark's launcher and JVM wrote:\n{tail}\n{hint}"
    )
