"""The oracle's Spark JVM: its process, its output, and why it stopped.

PySpark starts one JVM per process (``spark-submit``, which ``exec``s
``java``) and talks to it over py4j. When that JVM dies, py4j only says
"Connection refused"; this module keeps what it takes to say more: the
process (its exit code or the signal that killed it) and the JVM's last lines,
read from its stderr and stdout by a thread. Spark's start-up chatter is kept
back; once the session runs, later lines (errors at the chosen log level) are
echoed to this process's stderr, until a Ctrl-C or the end of the session
mutes them: the JVM's stack traces of cancelled jobs are no news to a user who
pressed Ctrl-C.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Sequence
from types import FrameType
from typing import IO, Any

TAIL_LINES = 40
SUBMIT_OPTS = "SPARK_SUBMIT_OPTS"

# Spark's own exit codes (org.apache.spark.util.SparkExitCode).
_SPARK_EXIT_CODES = {
    50: "Spark's code for an uncaught exception",
    52: "Spark's code for an OutOfMemoryError",
}
# What the JVM or its launcher print when the Java runtime is the problem.
_JAVA_TROUBLE = re.compile(
    r"UnsupportedClassVersionError|compiled by a more recent version"
    r"|Module \S+ not found|Unrecognized (?:VM )?option|JAVA_HOME is not set"
    r"|Could not find or load main class|java: (?:command )?not found"
    r"|cannot execute|Exec format error",
    re.IGNORECASE,
)
# ... and when memory is (a heap setting, or the machine's memory).
_MEMORY_TROUBLE = re.compile(
    r"Invalid (?:maximum|initial) heap size|Could not reserve enough space"
    r"|insufficient memory for the Java Runtime|Cannot allocate memory|OutOfMemoryError",
    re.IGNORECASE,
)
# spark-class's words when Spark's launcher printed no command.
_LAUNCHER_SILENT = re.compile(r"spark-class: line \d+: CMD: bad array subscript")
_KILLED_HINT = (
    "a JVM killed this way is usually the work of the kernel's out-of-memory killer "
    "(see `dmesg`) or a container's memory limit, else of a user or a CI timeout"
)


class JvmOutput:
    """Reads the JVM's output in a thread, keeps the last lines for errors.

    :attr:`echo` passes the lines read to this process's stderr (fd 2);
    :attr:`count` is how many lines were read so far.
    """

    def __init__(self, stream: IO[bytes], keep: int = TAIL_LINES) -> None:
        self.echo = False
        self.count = 0
        self._tail: deque[str] = deque(maxlen=keep)
        self._thread = threading.Thread(
            target=self._pump, args=(stream,), name="rspbench-jvm-stderr", daemon=True
        )
        self._thread.start()

    def tail(self, wait: float = 0.5) -> list[str]:
        """The last lines; waits a little so lines already written are read."""
        self._thread.join(wait)
        return list(self._tail)

    def since(self, mark: int, wait: float = 0.2) -> list[str]:
        """The last lines among those read after the first ``mark`` ones."""
        tail = self.tail(wait)
        later = self.count - mark
        return tail[-later:] if later > 0 else []

    def _pump(self, stream: IO[bytes]) -> None:
        # Never stop reading: a full pipe would block the JVM on its next log line.
        for line in iter(stream.readline, b""):
            self._tail.append(line.decode("utf-8", "replace").rstrip())
            self.count += 1
            if self.echo:
                self._echo(line)

    def _echo(self, line: bytes) -> None:
        try:
            # fd 2, not sys.stderr: where the JVM would have written itself,
            # so pytest's fd capture sees it the same way.
            os.write(2, line)
        except OSError:
            self.echo = False  # stderr is gone; keep draining quietly


class Jvm:
    """The JVM this process started for Spark.

    Attributes:
        output: its stderr and stdout.
        proc: its process (``spark-submit`` ``exec``s ``java``: the same pid).
        driver_memory: ``spark.driver.memory`` it was started with.
        ready_at: :attr:`JvmOutput.count` when the session was up; lines
            after it are the ones worth quoting.
    """

    def __init__(
        self, output: JvmOutput, proc: subprocess.Popen[bytes] | None, driver_memory: str | None
    ) -> None:
        self.output = output
        self.proc = proc
        self.driver_memory = driver_memory
        self.ready_at = 0

    def ready(self) -> None:
        """The session runs: echo what the JVM says from now on."""
        self.ready_at = self.output.count
        self.output.echo = True

    def mute(self) -> None:
        """Stop echoing the JVM (its lines are still kept)."""
        self.output.echo = False

    def exit_code(self, wait: float = 0.0) -> int | None:
        """The exit code (negative: the signal that killed it); None while it runs."""
        if self.proc is None:
            return None
        try:
            return self.proc.wait(timeout=wait) if wait > 0 else self.proc.poll()
        except subprocess.TimeoutExpired:
            return None

    def later_lines(self) -> list[str]:
        """What the JVM wrote after the session was up."""
        return self.output.since(self.ready_at)


def killed_by(code: int) -> int | None:
    """The signal behind an exit code: negative for Popen, 128 + N for a shell.

    >>> killed_by(-9), killed_by(137), killed_by(1)
    (9, 9, None)
    """
    number = -code if code < 0 else code - 128 if code > 128 else 0
    return number if number in {int(s) for s in signal.Signals} else None


def exit_reason(code: int) -> str:
    """Words for a JVM's exit code.

    >>> exit_reason(-9)
    'killed by signal 9 (SIGKILL)'
    >>> exit_reason(137)
    'killed by signal 9 (SIGKILL; exit code 137)'
    >>> exit_reason(52)
    "exited with code 52 (Spark's code for an OutOfMemoryError)"
    """
    number = killed_by(code)
    if number is not None:
        name = signal.Signals(number).name
        return f"killed by signal {number} ({name}{f'; exit code {code}' if code > 0 else ''})"
    known = _SPARK_EXIT_CODES.get(code)
    return f"exited with code {code}" + (f" ({known})" if known else "")


# Where a user sets Spark's settings: pytest, its ini file, the CLI.
MEMORY_SETTING = (
    "--rspbench-spark-conf spark.driver.memory=12g (the ini key "
    "rspbench_spark_conf; `rspbench oracle --spark-conf spark.driver.memory=12g`)"
)
SETTING_IT = (
    "set it with --rspbench-spark-conf spark.driver.memory=... (the ini key "
    "rspbench_spark_conf; `rspbench oracle --spark-conf ...`)"
)


def death_message(code: int, lines: list[str], driver_memory: str | None) -> str:
    """The OracleError text for a job whose JVM died under it."""
    text = f"the oracle's Spark JVM died while this item's oracle ran: {exit_reason(code)}."
    quoted = "\n".join(f"    {line}" for line in lines[-8:])
    if quoted:
        text += f"\nLast lines of Spark's JVM:\n{quoted}"
    memory = driver_memory or "its default"
    if out_of_memory(code, lines):
        hint = (
            f"The Spark driver ran out of memory (spark.driver.memory = {memory}).\n"
            f"HINT: give it more, e.g. {MEMORY_SETTING}"
        )
    elif killed_by(code) == signal.SIGKILL:
        hint = (
            f"HINT: {_KILLED_HINT}. If memory is short, lower spark.driver.memory "
            f"(now {memory}): {SETTING_IT}"
        )
    elif killed_by(code) is not None:
        hint = "HINT: something stopped it (a user, a CI job's timeout)"
    else:
        hint = "HINT: the JVM's last lines usually say why"
    return f"{text}\n{hint}; the next item starts a new Spark."


def out_of_memory(code: int, lines: list[str]) -> bool:
    """Did a JVM that exited with ``code`` after ``lines`` run out of memory?
    (Spark's executor exits with 52 on an ``OutOfMemoryError``.)"""
    return code == 52 or bool(_MEMORY_TROUBLE.search(" ".join(lines)))


def start_failure(code: int | None, lines: list[str], driver_memory: str | None) -> tuple[str, str]:
    """(what happened, HINT) for a JVM that did not start.

    Java itself was checked before (:func:`~pytest_rspbench.oracle.spark.java.find_java`
    ran ``java -version``): JAVA_HOME is named only when the JVM's words
    point at the Java runtime, not when something killed the JVM.
    """
    said = " ".join(lines)
    killed = (
        f"HINT: Java is fine (it answered `java -version`); {_KILLED_HINT}. Free "
        f"memory or lower spark.driver.memory (now {driver_memory or 'its default'}) "
        f"({SETTING_IT}), then run again."
    )
    signalled = killed_by(code) if code is not None else None
    if code is not None and signalled is not None:
        what = f"its JVM was {exit_reason(code)} while starting"
        if signalled == signal.SIGKILL:
            return what, killed
        return what, "HINT: Java is fine; something stopped the JVM (a user, a CI timeout)."
    if _LAUNCHER_SILENT.search(said):
        # spark-class runs `java` twice: first Spark's launcher, which prints
        # the command of the second; a killed launcher prints nothing.
        what = (
            "Spark's launcher (the first `java` that spark-class runs) ended "
            "without a word, as a killed process does"
        )
        return what, killed
    what = (
        f"its JVM {exit_reason(code)} while starting"
        if code is not None
        else ("the session did not start")
    )
    if _JAVA_TROUBLE.search(said):
        return what, (
            "HINT: the lines above say the Java runtime is the problem: point "
            "JAVA_HOME at a Java 17 or 21 JDK."
        )
    if _MEMORY_TROUBLE.search(said):
        return what, (
            f"HINT: check spark.driver.memory (now {driver_memory or 'its default'}) and "
            f"the machine's free memory ({SETTING_IT})."
        )
    return what, "HINT: the lines above usually say why."


def launch(conf: Any, java_options: Sequence[str] = ()) -> tuple[Any, Jvm]:
    """PySpark's own launch, keeping the JVM's process and output.

    The output pipe is ours, not ``stderr=PIPE``: when the JVM dies at start,
    ``launch_gateway`` raises and drops its Popen, and with it the JVM's
    words and its exit code; so its Popen is recorded on the way too.

    ``java_options`` go to the driver JVM only (see :func:`submit_opts`).

    Raises:
        LaunchFailed: the JVM did not start.
    """
    from pyspark import java_gateway as module

    java_gateway: Any = module  # its Popen is replaced for the launch
    read_fd, write_fd = os.pipe()
    output = JvmOutput(os.fdopen(read_fd, "rb"))
    started: list[subprocess.Popen[bytes]] = []

    def recorded(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        if java_options:
            env = dict(kwargs.get("env") or os.environ)
            env[SUBMIT_OPTS] = submit_opts(java_options, env.get(SUBMIT_OPTS))
            kwargs["env"] = env
        started.append(subprocess.Popen(*args, **kwargs))
        return started[-1]

    memory = conf.get("spark.driver.memory")
    saved, java_gateway.Popen = java_gateway.Popen, recorded
    try:
        gateway = java_gateway.launch_gateway(
            conf, popen_kwargs={"stderr": write_fd, "stdout": write_fd}
        )
    except Exception as exc:
        jvm = Jvm(output, started[0] if started else None, memory)
        raise LaunchFailed(exc, jvm) from exc
    finally:
        java_gateway.Popen = saved
        os.close(write_fd)  # the JVM holds its own copy; at its end the reader sees EOF
    return gateway, Jvm(output, gateway.proc, memory)


JIT_OPTIONS = ("-XX:-DontCompileHugeMethods",)
"""HotSpot options every driver JVM of the oracle gets (before the user's own).

HotSpot never compiles a method of more than 8,000 bytes of bytecode
(``DontCompileHugeMethods``): it runs interpreted, however hot. The code
Spark generates for a stage that evaluates a FILTER's typed comparison
(``?value > 50``: the term's kind, its datatype, its number) is such a method,
so a scan that applies one ran at interpreter speed: YABench's AVG query at
2.1M triples spent 6.7-12.6 s of executor time in that one stage of a warm
run; with this option the whole warm job took 12.3 s of executor time
instead of 23.6 s (docs/benchmarks.md, 2026-11-28). Spark documents the
other way round, ``spark.sql.codegen.hugeMethodLimit=8000`` (give up
whole-stage code generation for such stages); that one was not measured.
"""


def submit_opts(options: Sequence[str], existing: str | None = None) -> str:
    """``SPARK_SUBMIT_OPTS`` with ``options`` first, each quoted for Spark's launcher.

    Spark's launcher puts this variable's options on the driver JVM's command
    line only: not on its own short JVM (that one reads ``SPARK_LAUNCHER_OPTS``),
    and, unlike ``JAVA_TOOL_OPTIONS``, without a banner on stderr. It is set
    in the launch's environment alone, so no other program this process starts
    (an engine running its own Spark) sees it. The user's own options come
    after ours and so win (``-Xshare:off``, say); ``spark.driver.extraJavaOptions``
    stays the user's.

    >>> submit_opts(["-Xshare:auto", "-XX:SharedArchiveFile=/my cache/a.jsa"], "-Da=1")
    '-Xshare:auto "-XX:SharedArchiveFile=/my cache/a.jsa" -Da=1'
    """
    quoted = [_quote_option(option) for option in options]
    return " ".join([*quoted, existing] if existing else quoted)


def _quote_option(option: str) -> str:
    """Quote for CommandBuilderUtils.parseOptionString (double quotes, backslash escapes)."""
    if option and not any(c.isspace() or c in "\\\"'" for c in option):
        return option
    return '"' + option.replace("\\", "\\\\").replace('"', '\\"') + '"'


class LaunchFailed(Exception):
    """The JVM did not start; ``jvm`` holds its last words and exit code."""

    def __init__(self, cause: BaseException, jvm: Jvm) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.jvm = jvm


class _MuteOnInterrupt:
    """A SIGINT handler: mute the JVM, then run the handler it replaced.

    PySpark's handler cancels every job and raises KeyboardInterrupt; the JVM
    then logs each cancelled task with its stack trace, after pytest's summary.
    """

    def __init__(
        self, jvm: Jvm, previous: Callable[[int, FrameType | None], Any] | int | None
    ) -> None:
        self.jvm = jvm
        self.previous = previous

    def __call__(self, signum: int, frame: FrameType | None) -> Any:
        self.jvm.mute()
        if callable(self.previous):
            return self.previous(signum, frame)
        if self.previous != signal.SIG_IGN:
            raise KeyboardInterrupt
        return None


def mute_on_interrupt(jvm: Jvm) -> None:
    """Make Ctrl-C mute ``jvm`` first (main thread only, as for any handler)."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGINT)
    if isinstance(previous, _MuteOnInterrupt):
        previous.jvm = jvm
        return
    signal.signal(signal.SIGINT, _MuteOnInterrupt(jvm, previous))
