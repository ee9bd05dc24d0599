"""A warm Spark: one Spark Connect server that later runs reuse, until it is idle.

With ``--rspbench-warm-spark 10m`` (ini ``rspbench_warm_spark``, environment
``RSPBENCH_WARM_SPARK``; ``rspbench oracle --warm-spark``), the first run
that needs the oracle's local Spark starts a Spark Connect server on
127.0.0.1 (:mod:`~pytest_rspbench.oracle.spark.warmserver`), detached from
it, and connects to it; later runs find it in the state file
(:mod:`~pytest_rspbench.oracle.spark.warmstate`) and connect at once: no
JVM to start and a JIT already warm. The server stops by itself after the
idle time without use; ``rspbench spark status`` and ``rspbench spark
stop`` show and end it.

A recorded server that cannot be used is replaced: its process ended, its
port does not answer, it holds another token, or it runs another PySpark,
Python, Java or other Spark settings than the run asks for.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.spark import warmstate
from pytest_rspbench.oracle.spark.warmstate import WarmState

START_TIMEOUT = 180.0  # seconds for the server to be ready (a busy 2-core machine)
STOP_TIMEOUT = 60.0
OFF_HINT = "--rspbench-warm-spark off (rspbench: --warm-spark off)"
CLIENT_ENV = ("SPARK_REMOTE", "SPARK_LOCAL_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
"""The variables PySpark's Connect client sets in its process."""

RUN_OFF_HINT = "--warm-spark off runs Spark in this process, --warm-spark 10m keeps it warm"


def client_missing() -> str | None:
    """What Spark Connect's client lacks here (the ``connect`` extra), or None."""
    try:
        import pyspark.sql.connect.session  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def idle_text(seconds: float) -> str:
    """An idle time as people write it.

    >>> idle_text(600), idle_text(90), idle_text(3600)
    ('10m', '90s', '1h')
    """
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:g}s"


def warm_server(
    idle: float, conf: Mapping[str, str], say: Callable[[str], None]
) -> WarmState | None:
    """The warm server to connect to, reused or started now; None when Spark
    Connect's client is not installed (the caller runs Spark itself).

    ``conf`` is the whole Spark configuration local mode would start with;
    ``say`` gets one line saying what was done and how to stop it.

    Raises:
        OracleError: the server did not start (the message quotes its log).
    """
    return _server(idle, conf, say, for_run=False)[0]


def run_server(
    idle: float, conf: Mapping[str, str], say: Callable[[str], None]
) -> tuple[WarmState | None, bool]:
    """A Spark Connect server for one run (``rspbench explore``): a warm one
    already running is used and left as it is (its idle time included);
    else one is started, with ``idle`` as its idle time should the run die,
    and the second value is True: the caller ends it (:func:`end`) when the
    run does.

    Raises:
        OracleError: the server did not start (the message quotes its log).
    """
    return _server(idle, conf, say, for_run=True)


def _server(
    idle: float, conf: Mapping[str, str], say: Callable[[str], None], *, for_run: bool
) -> tuple[WarmState | None, bool]:
    missing = client_missing()
    if missing is not None:
        say(
            f"warm Spark: not used, Spark Connect's client is not installed ({missing}); "
            "the oracle starts its own Spark. HINT: pip install 'pytest-rspbench[connect]'"
        )
        return None, False
    from pytest_rspbench.oracle.spark.java import find_java

    wanted = warmstate.identity(conf, find_java().describe())
    with warmstate.locked():
        state = warmstate.read()
        if state is not None:
            why = warmstate.stale(state, wanted)
            if why is None:
                state.last_used = time.time()
                if not for_run:
                    state.idle = idle
                warmstate.write(state)
                say(f"warm Spark: using {state.shown} (pid {state.pid}); {_stopping(state)}")
                return state, False
            say(f"warm Spark: the one recorded at {state.shown} is replaced: {why}")
            end(state)
            warmstate.remove(state.pid)
        began = time.monotonic()
        state = start(idle, conf, wanted)
    took = time.monotonic() - began
    if for_run:
        say(
            f"Spark Connect: started {state.shown} (pid {state.pid}) in {took:.0f} s for "
            f"this run; it ends with the run ({RUN_OFF_HINT})"
        )
    else:
        say(
            f"warm Spark: started {state.shown} (pid {state.pid}) in {took:.0f} s, for later "
            f"runs too; {_stopping(state)}"
        )
    return state, True


def _stopping(state: WarmState) -> str:
    return (
        f"it stops after {idle_text(state.idle)} without use; `rspbench spark stop` "
        f"stops it now, {OFF_HINT} leaves it out"
    )


def start(idle: float, conf: Mapping[str, str], wanted: Mapping[str, str]) -> WarmState:
    """Start a server and wait until it is ready (the caller holds the lock)."""
    token = secrets.token_urlsafe(32)
    env = dict(os.environ)
    env[warmstate.TOKEN_ENV] = token  # not on its command line: others can read that
    # A process that used Spark Connect has PySpark's client mode in its
    # environment: the server would take itself for a client (it cannot make
    # a SparkContext then).
    for var in CLIENT_ENV:
        env.pop(var, None)
    read_fd, write_fd = os.pipe()
    log = warmstate.log_path()
    log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        launcher = subprocess.Popen(
            [sys.executable, "-m", warmstate.SERVER_MODULE, str(write_fd)],
            stdin=subprocess.PIPE,
            stdout=log_fd,
            stderr=log_fd,
            env=env,
            cwd=warmstate.folder(),
            start_new_session=True,  # not in the caller's terminal: Ctrl-C there is not its
            pass_fds=(write_fd,),
        )
    finally:
        os.close(write_fd)
        os.close(log_fd)
    config = {"conf": dict(conf), "idle": idle, "identity": dict(wanted)}
    assert launcher.stdin is not None
    launcher.stdin.write(json.dumps(config).encode())
    launcher.stdin.close()
    launcher.wait()  # it forks the server off and ends at once
    with os.fdopen(read_fd, "rb") as answers:
        pid, answer = _answers(answers)
    if answer.get("port") is None:
        if pid is not None:
            _terminate(pid)
        raise OracleError(_failed(answer.get("error"), log))
    state = warmstate.read()
    if state is None or state.pid != pid:
        raise OracleError(_failed("it recorded no state file", log))
    return state


def _answers(answers: object) -> tuple[int | None, dict[str, object]]:
    """The server's pid and its last answer, read until it says ready or fails."""
    deadline = time.monotonic() + START_TIMEOUT
    pid: int | None = None
    buffer = b""
    fd = answers.fileno()  # type: ignore[attr-defined]
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return pid, {"error": "it ended while starting"}
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if "pid" in message:
                pid = int(message["pid"])
            else:
                return pid, message
    return pid, {"error": f"it was not ready within {START_TIMEOUT:.0f} s"}


def _failed(why: object, log: os.PathLike[str]) -> str:
    try:
        lines = open(log, encoding="utf-8", errors="replace").read().splitlines()[-15:]
    except OSError:
        lines = []
    tail = "\n".join(f"    {line}" for line in lines) or "    (none)"
    return (
        f"the warm Spark did not start: {why}\nLast lines of its log {log}:\n{tail}\n"
        f"HINT: {OFF_HINT} runs the oracle on a Spark of its own."
    )


def end(state: WarmState, timeout: float = STOP_TIMEOUT) -> bool:
    """Stop the recorded server if it is ours and alive; whether it was."""
    process = warmstate.server_process(state)
    if process is None:
        return False
    _terminate(state.pid, timeout)
    return True


def _terminate(pid: int, timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` s (its JVM ends with it: the
    JVM's stdin is a pipe from it)."""
    import psutil

    try:
        process = psutil.Process(pid)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout)
    except psutil.TimeoutExpired:
        process.kill()
    except psutil.Error:
        pass


def stop(env: Mapping[str, str] = os.environ) -> str:
    """``rspbench spark stop``: end the warm server; what was done."""
    with warmstate.locked(env):
        state = warmstate.read(env)
        if state is None:
            return "No warm Spark is running."
        stopped = end(state)
        warmstate.remove(state.pid, env)
    if stopped:
        return f"Stopped the warm Spark at {state.shown} (pid {state.pid})."
    return f"The warm Spark recorded at {state.shown} had ended; its state file is removed."


def status(env: Mapping[str, str] = os.environ) -> tuple[int, str]:
    """``rspbench spark status``: 0 and what runs, or 1 and why nothing usable does."""
    state = warmstate.read(env)
    if state is None:
        return 1, (
            "No warm Spark is running.\nHINT: --rspbench-warm-spark 10m (pytest) or "
            "--warm-spark 10m (rspbench oracle, explore) starts one that later runs reuse."
        )
    why = warmstate.stale(state, None)
    if why is not None:
        return 1, (
            f"The warm Spark recorded at {state.shown} (pid {state.pid}) cannot be used: "
            f"{why}.\nThe next run with a warm Spark replaces it; `rspbench spark stop` "
            "removes it now."
        )
    now = time.time()
    until = state.last_used + state.idle
    lines = [
        f"warm Spark at {state.shown}, pid {state.pid}",
        f"  started    {_when(state.started, now)}",
        f"  last used  {_when(state.last_used, now)}",
        f"  stops      after {idle_text(state.idle)} without use (at {_clock(until)} "
        "if unused until then)",
        f"  runs       PySpark {state.identity.get('pyspark')}, {state.identity.get('java')}",
        f"  python     {state.identity.get('python')}",
        f"  state file {warmstate.state_path(env)} (log: {warmstate.log_path(env)})",
        "`rspbench spark stop` stops it now.",
    ]
    return 0, "\n".join(lines)


def _clock(moment: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(moment))


def _when(moment: float, now: float) -> str:
    return f"{_clock(moment)} ({max(0.0, now - moment):.0f} s ago)"


def reminder(env: Mapping[str, str] = os.environ) -> str | None:
    """The line a run ends with when a warm Spark is recorded, else None."""
    state = warmstate.read(env)
    if state is None:
        return None
    return f"warm Spark: {state.shown} (pid {state.pid}) kept running; {_stopping(state)}"


def mark_used(state: WarmState) -> None:
    """Tell the server a client uses it (a long replay runs no Spark job)."""
    try:
        warmstate.touch(state.pid)
    except OSError:
        pass  # a mark lost only shortens its life; the next run starts another
