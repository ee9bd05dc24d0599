"""Per-event overhead of each engine transport against stdin/stdout, side by side.

Run: ``.venv/bin/python benchmarks/transports.py [--events N] [--publish]``.
A trivial engine (it answers ``end`` and nothing else) runs over stdin/stdout
(``pytest_rspbench.engine.server``) and behind the bundled service wrappers
(HTTP with a callback, HTTP with server-sent events and N-Triples events,
WebSocket, MQTT through a local mosquitto); the harness replays N one-triple
events at full speed into each. The rate is the harness's: events per second
from the first event sent to the engine's ``done`` (starting and stopping
the engine left out), best of three. ``--publish`` makes the table the current "Engine
transports" section of docs/benchmarks.md (:mod:`page`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import page

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Engine, Registration, Semantics
from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.stream.model import Event, Stream

SINK = """
from pytest_rspbench.engine.api import Engine


class Sink(Engine):
    name, version = "sink", "1"

    def open(self, registration, emit):
        pass

    def push(self, stream, event):
        pass

    def end(self, end_time):
        pass
"""
S = "http://example.org/stream"
TRIPLE = (
    "<http://example.org/s1>",
    "<http://example.org/value>",
    '"21.5"^^<http://www.w3.org/2001/XMLSchema#double>',
)
SEMANTICS = 'semantics: {bounds: "[o,c)", t0: registration, report: [window-close], tick: time-driven, r2s: [RStream]}\n'
PORT = '--port, "{port}"'
BROKER = '--broker, "{broker}", --topic, "{topic}"'


def wrapper(module: str, where: str) -> str:
    """The command of a bundled service wrapper serving the sink."""
    return f'["{{python}}", -m, rspbench_engines.services.{module}, {where}, --once, --engine, "sink:Sink"]'


HTTP_URL = "\n    url: http://127.0.0.1:{port}"
ADAPTERS = {
    "stdin/stdout": '  command: ["{python}", -m, pytest_rspbench.engine.server, "sink:Sink"]',
    "HTTP, callback, JSON lines": "  http:\n    command: " + wrapper("http", PORT) + HTTP_URL,
    "HTTP, SSE, N-Triples": "  http:\n    command: "
    + wrapper("http", PORT)
    + HTTP_URL
    + "\n    results: sse\n    events: ntriples",
    "WebSocket": "  websocket:\n    command: "
    + wrapper("websocket", PORT)
    + "\n    url: ws://127.0.0.1:{port}",
    "MQTT (local mosquitto, QoS 1)": "  mqtt:\n    command: "
    + wrapper("mqtt", BROKER)
    + "\n    broker: local",
}


class Timed(Engine):
    """The engine under test, timed from its first event to its ``done``."""

    def __init__(self, inner: Engine) -> None:
        self.inner, self.name = inner, inner.name
        self.first: float | None = None
        self.last = 0.0

    def open(self, registration: Registration, emit: Any) -> None:
        self.inner.open(registration, emit)

    def push(self, stream: str, event: Event) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        self.inner.push(stream, event)

    def end(self, end_time: int) -> None:
        self.inner.end(end_time)
        self.last = time.perf_counter()

    def close(self) -> None:
        self.inner.close()

    def flush(self) -> None:
        self.inner.flush()

    def abort(self) -> None:
        self.inner.abort()


def seconds(profile: Path, count: int) -> float:
    """Seconds from the first event sent to ``done`` received."""
    events = [Event(n, (TRIPLE,)) for n in range(count)]
    stream = Stream(S, lambda: iter(events), "bench")
    registration = Registration("REGISTER RStream <o> AS SELECT * WHERE {}", (S,), 0, Semantics())
    engine = Timed(load_profile(profile).create())
    out = harness.run(engine, registration, [stream], count, 0.0, 600.0, sample_interval=None)
    if out.error or engine.first is None:
        raise SystemExit(out.error)
    return engine.last - engine.first


def rate(profile: Path, count: int) -> float:
    return count / min(seconds(profile, count) for _ in range(3))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--publish", action="store_true", help="write docs/benchmarks.md")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rspbench-transports-"))
    (folder / "sink.py").write_text(SINK)
    rows = []
    for label, adapter in ADAPTERS.items():
        path = folder / f"{len(rows)}.yaml"
        path.write_text(f"name: sink{len(rows)}\nadapter:\n{adapter}\n{SEMANTICS}")
        rows.append((label, rate(path, args.events)))
        print(f"{label}: {rows[-1][1]:,.0f} events/s", file=sys.stderr)
    base = rows[0][1]
    table = ["| transport | events/s | per event | vs stdin/stdout |", "|---|---:|---:|---:|"]
    for label, value in rows:
        table.append(f"| {label} | {value:,.0f} | {1e6 / value:,.1f} µs | {value / base:.2f}x |")
    command = f"`benchmarks/transports.py --events {args.events}`, one-triple events at full speed into a trivial engine, from the first event to `done`; best of three."
    text = "## Engine transports\n\n" + command + "\n\n" + "\n".join(table) + "\n"
    print(text)
    if args.publish:
        page.publish(
            Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md", "transports", text
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
