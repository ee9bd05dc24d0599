"""Spark settings sized to the oracle's input: small streams, large streams.

Measured on this project's benchmarks (docs/benchmarks.md): a small input
runs faster with one partition and interpreted expressions, a large one
needs more shuffle partitions so that no task result outgrows the driver.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

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
the 20M self-join's 4) it completes (docs/benchmarks.md, 2026-11-29). More partitions cost
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
    # A setting the session has already is left alone, so concurrent jobs on
    # a session that keeps small settings (rspbench explore) never see one
    # of them restored under them.
    saved = {key: value for key, value in saved.items() if value != settings[key]}
    for key in saved:
        conf.set(key, settings[key])
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


def keep_small(spark: Any) -> None:
    """Give the session :data:`SMALL_CONF` for good: every input it will see is small
    (``rspbench explore``), and :func:`sized` then changes nothing under jobs
    that run at once."""
    for key, value in SMALL_CONF.items():
        spark.conf.set(key, value)


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
