"""The warm Spark's own process: a Spark Connect server that stops when idle.

Started by :func:`pytest_rspbench.oracle.spark.warm.warm_server` as
``python -m pytest_rspbench.oracle.spark.warmserver FD`` in a session of its
own, it forks once at once (the caller waits for the first process only) and
the child lives on after its caller. The child starts the oracle's classic
Spark, as local mode does (:class:`~pytest_rspbench.oracle.spark.provider.SparkProvider`:
the same Java, settings and class-data-sharing archive), with Spark
Connect's plugin on 127.0.0.1 and the token of its environment
(``SPARK_CONNECT_AUTHENTICATE_TOKEN``). It writes the state file, tells
its caller on ``FD`` (one JSON line: ``{"pid": N}``, then ``{"port": P}`` or
``{"error": "..."}``), and then watches its SparkContext: when no Connect
execution and no Spark job has run, and no client marked a use in the state
file, for the idle time recorded there, it stops Spark, removes the state
file and exits. It also stops at SIGTERM (``rspbench spark stop``) and when
its state file is gone or records another server: nobody can reach it then.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from typing import Any

CONNECT_CONF = {
    "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
    "spark.connect.grpc.binding.address": "127.0.0.1",
    "spark.connect.grpc.binding.port": "0",  # any free port; the state file says which
}


def main(argv: list[str] | None = None) -> int:
    """Fork the server off; the first process returns at once."""
    args = sys.argv[1:] if argv is None else argv
    ready = int(args[0])
    config = json.loads(sys.stdin.read())
    if os.fork() > 0:
        os._exit(0)  # the caller waits for this one; the child is the server
    _say(ready, {"pid": os.getpid()})
    return run(config, ready)


def run(config: dict[str, Any], ready: int) -> int:
    """Start Spark with Spark Connect, record it, and serve until idle or told to stop."""
    from pytest_rspbench.oracle.spark import warmstate
    from pytest_rspbench.oracle.spark.provider import SparkProvider

    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    conf = {**config["conf"], **CONNECT_CONF}
    provider = SparkProvider(conf["spark.master"], conf=conf, log_level="WARN")
    try:
        spark = provider.get()
        port = connect_port(spark)
    except Exception as exc:
        _say(ready, {"error": str(exc)})
        provider.stop()
        return 1
    now = time.time()
    state = warmstate.WarmState(
        pid=os.getpid(),
        port=port,
        token=os.environ[warmstate.TOKEN_ENV],
        started=now,
        last_used=now,
        idle=float(config["idle"]),
        identity=config["identity"],
    )
    warmstate.write(state)  # its caller holds the lock until this answer
    _say(ready, {"port": port})
    try:
        why = watch(spark, state, stopping)
        print(f"warm Spark: stopping, {why}", file=sys.stderr, flush=True)
    finally:
        with warmstate.locked():
            warmstate.remove(state.pid)
        provider.stop()
    return 0


def connect_port(spark: Any) -> int:
    """The port Spark Connect's server listens on (bound to any free one).

    ``localPort`` is a method of the Scala object, which has no static
    forwarder: it is reached through the object's ``MODULE$`` field.
    """
    lang = spark.sparkContext._jvm.java.lang
    name = "org.apache.spark.sql.connect.service.SparkConnectService$"
    loader = lang.Thread.currentThread().getContextClassLoader()
    service = lang.Class.forName(name, True, loader).getField("MODULE$").get(None)
    return int(service.localPort())


def watch(spark: Any, state: Any, stopping: threading.Event) -> str:
    """Poll until the server has been idle for the recorded idle time; why it stops.

    A use is a Connect execution running or finished since the last poll
    (Spark Connect's execution manager keeps the time of the last one), a
    Spark job running, or a client's mark in the state file.
    """
    from pytest_rspbench.oracle.spark import warmstate

    jvm = spark.sparkContext._jvm
    service = jvm.org.apache.spark.sql.connect.service.SparkConnectService
    tracker = spark.sparkContext.statusTracker()
    last = recorded = state.last_used
    idle = state.idle
    while not stopping.wait(poll_interval(idle)):
        now = time.time()
        executions = service.listActiveExecutions()
        if executions.isRight() or tracker.getActiveJobsIds():
            last = now
        else:  # Left: the JVM's nanoTime of the last execution's end
            ago = (jvm.java.lang.System.nanoTime() - int(executions.left().get())) / 1e9
            if 0 <= ago < now - last:
                last = now - ago
        current = warmstate.read()
        if current is None or current.pid != state.pid:
            return "its state file is gone or names another server"
        last, idle = max(last, current.last_used), current.idle
        if last - recorded >= 1.0:
            warmstate.touch(state.pid, last)
            recorded = last
        if now - last >= idle:
            return f"idle for {now - last:.0f} s"
    return "asked to stop (SIGTERM)"


def poll_interval(idle: float) -> float:
    """Seconds between two looks: a tenth of the idle time, 0.5 s to 5 s.

    >>> poll_interval(600), poll_interval(3)
    (5.0, 0.5)
    """
    return min(5.0, max(0.5, idle / 10))


def _say(fd: int, message: dict[str, Any]) -> None:
    """One JSON line to the caller; it may have gone (then nobody listens)."""
    try:
        os.write(fd, (json.dumps(message) + "\n").encode())
        if "pid" not in message:
            os.close(fd)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
