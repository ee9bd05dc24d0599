"""The oracle's Spark runtime: the only room that starts, configures or stops Spark.

Its face: :class:`SparkProvider` (one session per pytest session),
:func:`sized` (settings for the input's size), :func:`spark_failure` (the one
place that turns a failing Spark job into a message). Behind it: the JVM
(``jvm``), Java discovery (``java``), class-data sharing (``cds*``), a Spark
Connect server kept running (``server``) or started and stopped by itself
(``warm``, ``warmstate``, ``warmserver``), where Spark runs (``addresses``)
and PySpark's one private patch (``patch``).
"""

from __future__ import annotations

from pytest_rspbench.oracle.spark.addresses import reachable, reads_local_files
from pytest_rspbench.oracle.spark.failures import spark_failure
from pytest_rspbench.oracle.spark.provider import DEFAULT_MASTER, SparkProvider
from pytest_rspbench.oracle.spark.sizing import sized

__all__ = [
    "DEFAULT_MASTER",
    "SparkProvider",
    "reachable",
    "reads_local_files",
    "sized",
    "spark_failure",
]
