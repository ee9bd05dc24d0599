"""The warm Spark's state file: where it runs, its token, and when it was last used.

One file per user, ``$XDG_CACHE_HOME/pytest-rspbench/warm-spark/state.json``
(``~/.cache`` by default; ``$RSPBENCH_WARM_SPARK_DIR`` moves the folder),
mode 0600 in a folder of mode 0700: the token in it is what lets a client
use the server, so only the user who started it can. Every change is a
whole new file renamed into place under an exclusive lock on ``lock``
beside it, so readers never see half a file and the server and its clients
never overwrite each other's ``last_used``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

DIR_ENV = "RSPBENCH_WARM_SPARK_DIR"
IDLE_ENV = "RSPBENCH_WARM_SPARK"
SERVER_MODULE = "pytest_rspbench.oracle.spark.warmserver"
"""What the server's command line runs: how its process is known as ours."""
TOKEN_ENV = "SPARK_CONNECT_AUTHENTICATE_TOKEN"
"""The variable Spark Connect's server reads its token from (and the client, as a default)."""

_UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_idle(text: str) -> float | None:
    """A warm Spark's idle time in seconds (``90s``, ``10m``, ``1h``, ``600``);
    None for ``off``.

    >>> parse_idle("10m"), parse_idle("90s"), parse_idle("off")
    (600.0, 90.0, None)

    Raises:
        ValueError: what is wrong, said for the user.
    """
    value = text.strip().lower()
    if value in ("off", "no", "false", "none", "0", ""):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smh]?)", value)
    if match is None:
        raise ValueError(
            f"{text!r} is not an idle time: a number with s, m or h (90s, 10m, 1h), or off"
        )
    seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds < 1:
        raise ValueError(f"{text!r}: a warm Spark stays at least 1 s")
    return seconds


def folder(env: Mapping[str, str] = os.environ) -> Path:
    """The warm Spark's folder (state file, lock, server log), made private."""
    base = env.get(DIR_ENV)
    if base:
        path = Path(base).expanduser()
    else:
        cache = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(cache) / "pytest-rspbench" / "warm-spark"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


@dataclass
class WarmState:
    """What the state file holds about one warm Spark Connect server.

    Attributes:
        pid: the server's Python process (its JVM is its child).
        port: the gRPC port, on 127.0.0.1.
        token: the bearer token a client must send.
        started: when it became ready (epoch seconds).
        last_used: the last job or client seen (epoch seconds).
        idle: seconds without use after which it stops by itself.
        identity: what it runs with (:func:`identity`); another is stale.
    """

    pid: int
    port: int
    token: str
    started: float
    last_used: float
    idle: float
    identity: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The master URL a client connects with (``localhost``: PySpark sends a
        token over a plain local channel only to a host of that name)."""
        return f"sc://localhost:{self.port}/;token={self.token}"

    @property
    def shown(self) -> str:
        """The server's address without its token, for messages and reports."""
        return f"sc://127.0.0.1:{self.port}"


def identity(conf: Mapping[str, str], java: str) -> dict[str, str]:
    """What a warm server must share with a client that reuses it: PySpark's
    version, the Python of its workers, the Java, and its Spark settings
    (driver memory among them). A difference makes the recorded server stale."""
    import pyspark

    return {
        "pyspark": pyspark.__version__,
        # The environment, not the executable's name: python and python3 of one
        # virtualenv are the same.
        "python": f"Python {sys.version.split()[0]} in {sys.prefix}",
        "java": java,
        "conf": json.dumps(dict(sorted(conf.items()))),
    }


def state_path(env: Mapping[str, str] = os.environ) -> Path:
    return folder(env) / "state.json"


def log_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where the server writes what it and its JVM say."""
    return folder(env) / "server.log"


@contextlib.contextmanager
def locked(env: Mapping[str, str] = os.environ) -> Iterator[None]:
    """Hold the warm Spark's exclusive lock: one starts it, the others wait."""
    fd = os.open(folder(env) / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def read(env: Mapping[str, str] = os.environ) -> WarmState | None:
    """The recorded server, or None when there is no state file or it is unreadable."""
    try:
        data = json.loads(state_path(env).read_text(encoding="utf-8"))
        return WarmState(**data)
    except (OSError, ValueError, TypeError):
        return None


def write(state: WarmState, env: Mapping[str, str] = os.environ) -> None:
    """Write the state file, mode 0600, whole (the caller holds :func:`locked`)."""
    path = state_path(env)
    temporary = path.with_name(f".state.{os.getpid()}.json")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(state), out)
    os.chmod(temporary, 0o600)  # the umask cannot widen it, but an old file could be wider
    os.replace(temporary, path)


def remove(pid: int, env: Mapping[str, str] = os.environ) -> None:
    """Remove the state file if it still records the server ``pid`` (the caller
    holds :func:`locked`): a newer server's file is left alone."""
    state = read(env)
    if state is not None and state.pid == pid:
        with contextlib.suppress(FileNotFoundError):
            state_path(env).unlink()


def touch(pid: int, when: float | None = None, env: Mapping[str, str] = os.environ) -> None:
    """Record a use of the server ``pid`` now (or at ``when``), if it is still the recorded one."""
    with locked(env):
        state = read(env)
        if state is None or state.pid != pid:
            return
        moment = time.time() if when is None else when
        if moment > state.last_used:
            state.last_used = moment
            write(state, env)


def server_process(state: WarmState) -> object | None:
    """The recorded server's process (a ``psutil.Process``) if it is alive, ours
    and runs the warm server; else None."""
    import psutil

    try:
        process = psutil.Process(state.pid)
        if process.uids().real != os.getuid() or process.status() == psutil.STATUS_ZOMBIE:
            return None
        if SERVER_MODULE not in process.cmdline():
            return None
        return process
    except psutil.Error:
        return None


def stale(state: WarmState, wanted: Mapping[str, str] | None) -> str | None:
    """Why the recorded server cannot be used, or None when it can.

    Its process ended or is not a warm server, nothing answers on its port,
    it holds another token than the file, or (when ``wanted`` is given) it
    runs with another identity (:func:`identity`).
    """
    from pytest_rspbench.oracle.spark.addresses import reachable

    process = server_process(state)
    if process is None:
        return f"its process {state.pid} has ended"
    try:
        token = process.environ().get(TOKEN_ENV)  # type: ignore[attr-defined]
    except Exception:
        token = None
    if token != state.token:
        return "it holds another token than the state file"
    if not reachable("127.0.0.1", state.port, timeout=2.0):
        return f"nothing answers on its port {state.port}"
    if wanted is not None:
        for key, value in wanted.items():
            if state.identity.get(key) != value:
                if key == "conf":
                    return "it runs with other Spark settings (driver memory, --spark-conf)"
                return f"it runs another {key} ({state.identity.get(key)}; here {value})"
    return None
