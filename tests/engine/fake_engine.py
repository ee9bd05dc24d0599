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
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from pytest_rspbench.engine.server import Server, load_engine

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def faults(argv: list[str]) -> dict[str, int]:
    out = {}
    for arg in argv:
        name, _, value = arg.partition("=")
        out[name] = int(value) if value else 0
    return out


class FaultyServer(Server):
    def __init__(self, faults: dict[str, int]):
        super().__init__(
            load_engine("rspbench_engines.reference.engine:ReferenceEngine"),
            sys.stdin,
            sys.stdout,
        )
        self.faults = faults

    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "event":
            self.strike(message["time"])
        if message["type"] == "end" and "no-done" in self.faults:
            self.engine.end(message["time"])
            return True
        return super().handle(message)

    def strike(self, time_ms: int) -> None:
        due = {k for k, t in self.faults.items() if time_ms >= t}
        if "crash" in due:
            sys.stderr.write(
                f"fake_engine: RuntimeError: simulated crash at t={time_ms}\n"
            )
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

    def raw(self, text: str) -> None:
        with self._lock:
            self._out.write(text)
            self._out.flush()


def main() -> int:
    wanted = faults(sys.argv[1:])
    if "child" in wanted:
        subprocess.Popen(SLEEPER)
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
