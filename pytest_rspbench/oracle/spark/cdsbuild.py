"""The class-data-sharing archive's builder: a detached process (:mod:`.cds`).

Started once the driver JVM that writes the class list is up, it waits for
that JVM to exit, dumps the archive with ``java -Xshare:dump``, checks it
with ``-Xshare:on`` and renames it into place; a failure leaves
``<key>.failed``. ``python -m pytest_rspbench.oracle.spark.cdsbuild JOB_JSON``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench.oracle.spark.cdslock import LOCK_MAX_AGE, age, alive, release

UNUSED_MAX_AGE = 7 * 24 * 3600  # archives of other keys unused this long are removed
# Archives kept, the new one included: each is about 200 MB, and every
# virtualenv (a tox environment, a fresh clone's) has a key of its own.
MAX_ARCHIVES = 5
DUMP_TIMEOUT = 30 * 60


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
        prune(root, key)
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
    """``python -m pytest_rspbench.oracle.spark.cdsbuild JOB_JSON``: run :func:`build`."""
    return 0 if build(json.loads(argv[0])) else 1


def spawn(job: Mapping[str, Any]) -> None:
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


def cleanup_job(job: Mapping[str, Any]) -> None:
    with contextlib.suppress(OSError):
        Path(job["class_list"]).unlink()
    release(Path(job["root"]) / f"{job['key']}.lock")


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


def _run(command: list[str], what: str) -> None:
    """Run a java command; raise with its last lines if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=DUMP_TIMEOUT)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {command}\n{tail}")


def _wait_for_exit(pid: int, poll: float) -> bool:
    """Wait until ``pid`` has exited (its class list is then complete)."""
    deadline = time.monotonic() + LOCK_MAX_AGE
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True


def _whole_lines(class_list: Path) -> None:
    """Cut a last line that a killed JVM left half written."""
    data = class_list.read_bytes()
    if data and not data.endswith(b"\n"):
        class_list.write_bytes(data[: data.rfind(b"\n") + 1])


def prune(root: Path, key: str) -> None:
    """Remove other keys' files that nobody used for :data:`UNUSED_MAX_AGE`,
    then other keys' archives beyond :data:`MAX_ARCHIVES`, the least
    recently used first (a JVM that maps one keeps its mapping)."""
    others = []
    for path in root.iterdir():
        if path.name.lstrip(".").startswith(key):
            continue
        if age(path) > UNUSED_MAX_AGE:
            with contextlib.suppress(OSError):
                path.unlink()
        elif path.suffix == ".jsa":
            others.append((age(path), path.name, path))
    others.sort()  # the most recently used first
    for _, _, path in others[MAX_ARCHIVES - 1 :]:
        with contextlib.suppress(OSError):
            path.unlink()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
