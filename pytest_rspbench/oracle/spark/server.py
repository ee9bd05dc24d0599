"""A Spark Connect server kept running between oracle runs (``rspbench spark serve``).

Every ``rspbench oracle`` call and every pytest session starts its own Spark
JVM: about 5-9 s to start, and a cold JVM runs its first jobs about twice as
slowly as a warm one (docs/benchmarks.md). A Spark Connect server started once
keeps one JVM warm; ``--spark-master sc://127.0.0.1:PORT`` (CLI) or
``--rspbench-spark-master sc://127.0.0.1:PORT`` (pytest) then runs the oracle
on it, with no JVM in the calling process.

The server is the pip-installed Spark's own (``SparkConnectServer``, what
``sbin/start-connect-server.sh`` runs), launched in the foreground with what
the oracle's local mode uses: the Java that
:func:`~pytest_rspbench.oracle.spark.java.find_java` finds, the same driver memory,
loopback only, and this interpreter for Python workers (the oracle's
fallback UDFs import this package). It listens on loopback only, so it reads
the same stream cache as local mode.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.spark.addresses import MASTER_URL, reachable, runs_here
from pytest_rspbench.oracle.spark.java import JavaRuntime, find_java, spark_env
from pytest_rspbench.oracle.spark.jvm import (
    JIT_OPTIONS,
    SUBMIT_OPTS,
    JvmOutput,
    exit_reason,
    start_failure,
    submit_opts,
)
from pytest_rspbench.oracle.spark.sizing import default_driver_memory

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
DEFAULT_PORT = 15002  # Spark Connect's own default
HOST = "127.0.0.1"
START_TIMEOUT = 180.0  # seconds for the server to listen (a busy 2-core machine)
STOP_TIMEOUT = 30.0


def spark_home() -> Path:
    """The Spark distribution inside the pyspark package (bin/, jars/)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


@dataclass
class ConnectServer:
    """One Spark Connect server process on loopback.

    Attributes:
        port: the gRPC port clients connect to.
        master: the server's own Spark master (``local[*]``: it runs the jobs).
        driver_memory: its heap (``spark.driver.memory``).
        conf: more ``spark.*`` settings for the server.
    """

    port: int = DEFAULT_PORT
    master: str = "local[*]"
    driver_memory: str | None = None
    conf: Mapping[str, str] = field(default_factory=dict)
    java: JavaRuntime | None = None
    process: subprocess.Popen[bytes] | None = None
    output: JvmOutput | None = None
    started_in: float | None = None

    @property
    def url(self) -> str:
        """The ``sc://`` URL clients give as their Spark master."""
        return f"sc://{HOST}:{self.port}"

    def command(self) -> list[str]:
        """``spark-submit`` running the server class, with this server's settings."""
        memory = self.driver_memory or default_driver_memory()
        settings = {
            "spark.connect.grpc.binding.address": HOST,
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.driver.host": HOST,
            "spark.driver.bindAddress": HOST,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.log.level": "WARN",
            # As in local mode (SparkProvider.spark_conf): the oracle collects its
            # whole output, so the driver takes as much as its heap holds.
            "spark.driver.maxResultSize": memory,
            **self.conf,
        }
        argv = [str(spark_home() / "bin" / "spark-submit"), "--class", SERVER_CLASS]
        argv += ["--name", "pytest-rspbench Spark Connect server", "--master", self.master]
        argv += ["--driver-memory", memory]
        for key, value in settings.items():
            argv += ["--conf", f"{key}={value}"]
        return argv

    def environment(self, java: JavaRuntime) -> dict[str, str]:
        env = dict(os.environ)
        env.update(spark_env(java))
        env.update(
            {
                "SPARK_HOME": str(spark_home()),
                # The server runs the oracle's Python UDFs: in this interpreter.
                "PYSPARK_PYTHON": sys.executable,
                "SPARK_LOCAL_IP": HOST,
                # What start-connect-server.sh sets: this JVM is the server,
                # not a Connect client.
                "SPARK_CONNECT_MODE": "0",
            }
        )
        # The driver JVM's own options (the user's SPARK_SUBMIT_OPTS after them).
        env[SUBMIT_OPTS] = submit_opts(JIT_OPTIONS, env.get(SUBMIT_OPTS))
        for var in ("SPARK_REMOTE", "SPARK_LOCAL_REMOTE", "SPARK_CONNECT_MODE_ENABLED"):
            env.pop(var, None)  # a Connect client's own: the server is none
        # Spark's launcher sizes a Connect server's heap by this, when set,
        # instead of --driver-memory (as for the Thrift server).
        env.pop("SPARK_DAEMON_MEMORY", None)
        return env

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the server and wait until it listens.

        Raises:
            OracleError: the port is taken, Java is missing, or the server
                did not come up (its last lines and a HINT say why).
        """
        if self.master.startswith("sc://") or not MASTER_URL.fullmatch(self.master):
            raise OracleError(
                f"--master {self.master!r}: the server runs its jobs on local[*], local[N] "
                "or a standalone cluster on this machine, spark://127.0.0.1:port.\n"
                "HINT: --master local[*]"
            )
        if not runs_here(self.master):
            # Its clients, on loopback, would hand the executors stream-cache
            # files that only this machine has.
            raise OracleError(
                f"--master {self.master}: a cluster on other machines cannot read this "
                "machine's stream cache, which the server's clients use.\nHINT: start "
                "the Connect server on the cluster (sbin/start-connect-server.sh) and give "
                'its sc://host:port to the oracle (docs/oracle.md, "Running the oracle on '
                'a cluster"); or run the jobs here: --master local[*]'
            )
        if reachable(HOST, self.port, timeout=1.0):
            raise OracleError(
                f"port {self.port} on {HOST} is in use (another Spark Connect server?).\n"
                f"HINT: choose another with --port, or use the server that runs there: "
                f"--spark-master {self.url}"
            )
        self.java = find_java()
        began = time.monotonic()
        self.process = subprocess.Popen(
            self.command(),
            env=self.environment(self.java),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C is ours to pass on, once
            preexec_fn=_parent_death_signal(),
        )
        assert self.process.stdout is not None
        self.output = JvmOutput(self.process.stdout)
        while not self._listens():
            code = self.process.poll()
            if code is not None:
                raise OracleError(self._failed(code))
            if time.monotonic() - began > timeout:
                self.stop()
                raise OracleError(
                    f"the Spark Connect server did not listen on port {self.port} within "
                    f"{timeout:.0f} s; it was stopped.\nLast lines it wrote:\n"
                    f"{self._tail()}\nHINT: a busy machine starts Spark slowly; try again."
                )
            time.sleep(0.2)
        self.started_in = time.monotonic() - began
        self.output.echo = True  # from now on its warnings and errors are the user's

    def _listens(self) -> bool:
        """Whether the server's own JVM listens on its port.

        Something answering on the port is not enough: another process may
        bind it between the check in :meth:`start` and the JVM's own bind
        (the JVM then fails, and the clients would meet the other process).
        """
        import psutil

        assert self.process is not None
        try:
            root = psutil.Process(self.process.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return False  # ended: the caller's poll() says how
        for process in tree:
            try:
                sockets = process.net_connections(kind="tcp")
            except psutil.AccessDenied:  # a platform that hides them: fall back
                return reachable(HOST, self.port, timeout=1.0)
            except psutil.Error:
                continue  # the launcher, ended between the two calls
            for sock in sockets:
                if sock.status == psutil.CONN_LISTEN and sock.laddr.port == self.port:
                    return True
        return False

    def _tail(self) -> str:
        lines = self.output.tail(wait=2.0) if self.output else []
        return "\n".join(f"    {line}" for line in lines[-15:]) or "    (none)"

    def _failed(self, code: int) -> str:
        lines = self.output.tail(wait=5.0) if self.output else []
        memory = self.driver_memory or default_driver_memory()
        what, hint = start_failure(code, lines, memory)
        assert self.java is not None
        tail = "\n".join(f"    {line}" for line in lines[-15:]) or "    (none)"
        return (
            f"the Spark Connect server did not start on {self.java.describe()}: {what}.\n"
            f"Last lines it wrote:\n{tail}\n{hint}"
        )

    def wait(self) -> int:
        """Block until the server ends; its exit code."""
        assert self.process is not None
        return self.process.wait()

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout`` s); its exit code."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        if self.output is not None:
            self.output.echo = False  # its shutdown chatter is no news
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            return self.process.wait()


def _parent_death_signal() -> Callable[[], None] | None:
    """What the server's process runs before ``exec``: ask the kernel to send
    it SIGTERM when this process dies, even by SIGKILL (Linux's
    ``PR_SET_PDEATHSIG``, kept across ``spark-submit``'s ``exec java``).
    Without it a killed ``rspbench spark serve`` would leave its JVM running,
    holding the port and gigabytes of heap. None elsewhere.

    ``prctl`` is looked up here, in the parent: the child, forked from a
    process that may run threads, only calls it.
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    term = int(signal.SIGTERM)

    def set_it() -> None:
        prctl(1, term)  # 1: PR_SET_PDEATHSIG

    return set_it


def serve(server: ConnectServer, say: Callable[[str], None]) -> int:
    """Run ``server`` until Ctrl-C (or SIGTERM) or until it ends by itself.

    Returns the command's exit code: 0 when stopped by the user, else 1.
    """
    say(f"Starting a Spark Connect server on {HOST}:{server.port} ...")
    stopping = False

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        server.start()
        assert server.java is not None and server.started_in is not None
        say(
            f"Spark Connect server ready at {server.url} (master {server.master}, "
            f"{server.java.describe()}, started in {server.started_in:.1f} s).\n"
            f"Use it with:\n"
            f"    rspbench oracle SPEC --spark-master {server.url}\n"
            f"    pytest specs/ --rspbench-spark-master {server.url}\n"
            f"Ctrl-C stops it."
        )
        code = server.wait()
        say(f"The Spark Connect server ended by itself: {exit_reason(code)}.")
        return 1
    except KeyboardInterrupt:
        stopping = True
        return 0
    finally:
        if stopping:
            say("Stopping the Spark Connect server ...")
        server.stop()
        signal.signal(signal.SIGTERM, previous)
