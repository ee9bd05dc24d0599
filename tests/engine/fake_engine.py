"""A protocol-1 engine process that misbehaves on request (fault tests).

Without faults it serves the reference engine, so its answers are right.
Faults, as ``name`` or ``name=T`` arguments (T: first event time, in ms, at
which the fault strikes):

    crash=T        print a traceback-like line to stderr and exit(3)
    hang=T         stop reading stdin and sleep (with a child process)
    garbage=T      write a line that is not JSON, then go on
    truncate=T     write half a result line without newline and exit(0)
    badterm=T      emit a result whose binding is not an N-Triples term
    fatal=T        send a fatal protocol error message, then wait
    flood=BYTES    write that many bytes to stderr before saying hello
    silent         never say hello (the engine never starts)
    early-exit     write to stderr and exit(2) before saying hello
    banner         print a banner line on stdout before the hello
    child          start a child process that sleeps (tests tree kill)
    no-done        never answer 'end' with 'done' (but keep reading)
    exit-at-end    answer 'end' by exiting with code 0, without 'done'
    nan=T          write a result whose "time" is NaN (then Infinity), then go on
    huge=BYTES     write one result line of BYTES bytes at the first event, go on
    fatal-go-on=T  send a fatal error message, then go on as if nothing happened
    huge-error     send a fatal error whose message is 10 MB long, then go on
    huge-value=N   write a result whose "time" is a string of N digits
    deep           write a JSON line nested 100,000 deep at the first event
    binary         write a line of bytes that are not UTF-8 at the first event
    wrong-types=T  write results and errors with fields of the wrong type
    stdout-flood=N write N garbage lines at the first event, then go on
    exit0=MS       after 'registered', sleep MS ms and exit(0) without reading
    term=CODE      on SIGTERM, write to stderr and exit(CODE)
    ignore-term    ignore SIGTERM (only SIGKILL stops it)
    close-stdout=T close stdout (point it at /dev/null) and keep running
    setsid-child   start a child that calls setsid and keeps the engine's pipes
    daemon         double-fork a daemon (setsid) that keeps the engine's pipes
    detached-child start a setsid child with an empty environment and no pipes
    stdin-holder   after 'registered', start a setsid child that keeps stdin
                   (not stdout) and exit(3): the harness's writes would block
    decline        answer 'register' with {"type": "unsupported", "reason": ...}
    tag=TEXT       ignored by the engine; its children carry it on their
                   command line, so a test finds them (and only them)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from pytest_rspbench.engine.server import Server, load_engine

SLEEP = "import time; time.sleep(600)"
SLEEPER = [sys.executable, "-c", SLEEP]
WRONG_TYPES = [
    '{"type": "result", "bindings": {"v": "<http://ex/a>"}}',
    '{"type": "result", "bindings": [], "time": "soon"}',
    '{"type": "result", "bindings": [], "window": [0, "x"]}',
    '{"type": "result", "bindings": [], "time": 1e400}',
    '{"type": "result", "bindings": [["<http://ex/a>"]]}',
    '{"type": 5}',
    '{"type": "error", "message": "bad fatal flag", "fatal": "no"}',
    '"result"',
]


def faults(argv: list[str]) -> dict[str, int]:
    out = {}
    for arg in argv:
        name, _, value = arg.partition("=")
        out[name] = int(value) if value.lstrip("-").isdigit() else 0
    return out


def sleeper(tag: str) -> list[str]:
    """A child that sleeps; ``tag`` on its command line identifies it."""
    return [*SLEEPER, tag] if tag else SLEEPER


def tag_of(argv: list[str]) -> str:
    return next((a.partition("=")[2] for a in argv if a.startswith("tag=")), "")


class FaultyServer(Server):
    def __init__(self, faults: dict[str, int]):
        super().__init__(
            load_engine("rspbench_engines.reference.engine:ReferenceEngine"),
            sys.stdin,
            sys.stdout,
        )
        self.faults = faults

    def handle(self, message):
        if message["type"] == "event":
            self.strike(message["time"])
            self.once(message["time"])
        if message["type"] == "register" and "stdin-holder" in self.faults:
            super().handle(message)
            subprocess.Popen(
                sleeper(tag_of(sys.argv[1:])),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            sys.stderr.write("fake_engine: crashed, a child keeps stdin\n")
            sys.stderr.flush()
            os._exit(3)
        if message["type"] == "register" and "decline" in self.faults:
            self.send({"type": "unsupported", "reason": "no sliding windows here"})
            return True
        if message["type"] == "register" and "exit0" in self.faults:
            super().handle(message)
            time.sleep(self.faults["exit0"] / 1000)
            os._exit(0)  # without reading the events already sent
        if message["type"] == "end" and "no-done" in self.faults:
            self.engine.end(message["time"])
            return True
        if message["type"] == "end" and "exit-at-end" in self.faults:
            self.engine.end(message["time"])
            sys.stdout.flush()
            os._exit(0)
        return super().handle(message)

    def strike(self, time_ms: int) -> None:
        due = {k for k, t in self.faults.items() if time_ms >= t}
        if "crash" in due:
            sys.stderr.write(f"fake_engine: RuntimeError: simulated crash at t={time_ms}\n")
            sys.stderr.flush()
            os._exit(3)
        if "hang" in due:
            sys.stderr.write("fake_engine: hanging now\n")
            sys.stderr.flush()
            time.sleep(600)
        if "garbage" in due:
            self.faults.pop("garbage")
            self.raw("this is not json\n")
        if "truncate" in due:
            self.raw('{"type": "result", "bindings": [{"obs": "<http://ex')
            os._exit(0)
        if "badterm" in due:
            self.faults.pop("badterm")
            self.send({"type": "result", "bindings": [{"v": "85"}], "time": time_ms})
        if "fatal" in due:
            self.send(
                {
                    "type": "error",
                    "message": "out of memory in window store",
                    "fatal": True,
                }
            )
            time.sleep(600)

    def once(self, time_ms: int) -> None:
        """Faults that strike once, at the first event at or after their time."""
        due = [
            k for k in ONCE if k in self.faults and (k not in TIMED or time_ms >= self.faults[k])
        ]
        for name in due:
            value = self.faults.pop(name)
            if name == "nan":
                self.raw('{"type": "result", "bindings": [], "time": NaN}\n')
                self.raw('{"type": "result", "bindings": [], "time": Infinity}\n')
            elif name == "huge":
                filler = "x" * value
                self.raw(f'{{"type": "result", "bindings": [{{"v": "{filler}"}}]}}\n')
            elif name == "deep":
                self.raw("[" * 100_000 + "]" * 100_000 + "\n")
            elif name == "binary":
                self.raw_bytes(bytes(range(128, 256)) + b"\n")
            elif name == "wrong-types":
                self.raw("".join(line + "\n" for line in WRONG_TYPES))
            elif name == "fatal-go-on":
                self.send({"type": "error", "message": "index corrupted", "fatal": True})
            elif name == "huge-error":
                self.send({"type": "error", "message": "x" * 10_000_000, "fatal": True})
            elif name == "huge-value":
                self.raw(f'{{"type": "result", "bindings": [], "time": "{"9" * value}"}}\n')
            elif name == "stdout-flood":
                self.raw("garbage line that is not json\n" * value)
            elif name == "close-stdout":
                sys.stderr.write("fake_engine: closing stdout\n")
                sys.stderr.flush()
                with self._lock:  # later results go nowhere, the engine runs on
                    self._out.flush()
                    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)

    def raw_bytes(self, data: bytes) -> None:
        with self._lock:
            self._out.flush()
            binary = self._out.buffer  # type: ignore[attr-defined]
            binary.write(data)
            binary.flush()

    def raw(self, text: str) -> None:
        with self._lock:
            self._out.write(text)
            self._out.flush()


ONCE = (
    "nan",
    "fatal-go-on",
    "huge",
    "huge-error",
    "huge-value",
    "deep",
    "binary",
    "wrong-types",
    "stdout-flood",
    "close-stdout",
)
# The others strike at the first event.
TIMED = ("nan", "wrong-types", "close-stdout", "fatal-go-on")


def on_term(code: int) -> None:
    def handler(signum, frame):
        sys.stderr.write(f"fake_engine: SIGTERM, exiting with {code}\n")
        sys.stderr.flush()
        os._exit(code)

    signal.signal(signal.SIGTERM, handler)


def daemon(tag: str) -> None:
    """The classic double fork: the daemon is nobody's child and has its own session."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, sleeper(tag))
        os._exit(0)


def start_children(wanted: dict[str, int], tag: str) -> None:
    if "child" in wanted:
        subprocess.Popen(sleeper(tag))
    if "setsid-child" in wanted:
        subprocess.Popen(sleeper(tag), start_new_session=True)
    if "daemon" in wanted:
        daemon(tag)
    if "detached-child" in wanted:
        subprocess.Popen(
            sleeper(tag),
            env={},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


def main() -> int:
    wanted = faults(sys.argv[1:])
    start_children(wanted, tag_of(sys.argv[1:]))
    if "term" in wanted:
        on_term(wanted["term"])
    if "ignore-term" in wanted:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "flood" in wanted:
        chunk = ("x" * 99 + "\n").encode()
        for _ in range(wanted["flood"] // len(chunk)):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"fake_engine: end of flood\n")
        sys.stderr.flush()
    if "early-exit" in wanted:
        sys.stderr.write("fake_engine: cannot load the model file\n")
        return 2
    if "silent" in wanted:
        sys.stderr.write("fake_engine: warming up forever\n")
        sys.stderr.flush()
        time.sleep(600)
    if "banner" in wanted:
        print("Fake Engine 1.0 starting...", flush=True)
    return FaultyServer(wanted).serve()


if __name__ == "__main__":
    sys.exit(main())
