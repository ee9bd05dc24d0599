"""A local MQTT broker for the session: mosquitto on a loopback port.

``broker: local`` in an engine.yaml's ``adapter.mqtt`` makes the first run
that needs it start ``mosquitto`` (Debian: ``apt-get install mosquitto``;
macOS: ``brew install mosquitto``) on a free loopback port; every later run
of the session uses the same one, and the plugin stops it when pytest ends
(``pytest_unconfigure``; ``atexit`` for the ``rspbench`` command). It keeps
no message on disk and queues without limit, so a slow engine is sent every
event, late, never fewer.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_rspbench.errors import EngineError

START_TIMEOUT = 10.0  # seconds mosquitto gets to listen
_CONFIG = """\
listener {port} 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 0
log_dest stderr
log_type error
log_type warning
"""
_SBIN = ("/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin")


@dataclass
class Broker:
    """A running mosquitto: its process, address and log."""

    process: subprocess.Popen[bytes]
    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / "mosquitto.log").read_text(errors="replace")[-2000:]
        return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_LOCAL: Broker | None = None
_LOCK = threading.Lock()


def program() -> str | None:
    """The mosquitto program: on PATH or in an sbin folder."""
    return shutil.which("mosquitto") or shutil.which("mosquitto", path=os.pathsep.join(_SBIN))


def local() -> Broker:
    """The session's broker, started on first use (EngineUnavailable if missing)."""
    global _LOCAL
    with _LOCK:
        if _LOCAL is None or _LOCAL.process.poll() is not None:
            _LOCAL = start()
        return _LOCAL


def stop_local() -> None:
    """Stop the session's broker, if one was started."""
    global _LOCAL
    with _LOCK:
        broker, _LOCAL = _LOCAL, None
    if broker is not None:
        broker.stop()


def start(port: int | None = None) -> Broker:
    """A new mosquitto on ``port`` (a free one if None), listening when it returns."""
    from pytest_rspbench.engine.processes import EngineUnavailable
    from pytest_rspbench.engine.transports.service import free_port

    found = program()
    if found is None:
        raise EngineUnavailable(
            "an engine with 'broker: local' needs mosquitto, which is not installed."
            "\nHINT: apt-get install mosquitto (Debian, Ubuntu), brew install mosquitto "
            "(macOS), or give adapter.mqtt.broker: mqtt://host:port of a running broker."
        )
    port = port or free_port()
    folder = Path(tempfile.mkdtemp(prefix="rspbench-mosquitto-"))
    folder.chmod(0o755)  # mosquitto started as root reads its config as user mosquitto
    config = folder / "mosquitto.conf"
    config.write_text(_CONFIG.format(port=port), encoding="utf-8")
    config.chmod(0o644)
    with (folder / "mosquitto.log").open("wb") as log:
        process = subprocess.Popen(
            [found, "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    broker = Broker(process, port, folder)
    if not _listening(broker):
        broker.stop()
        raise EngineError(
            f"the local MQTT broker (mosquitto on 127.0.0.1:{port}) did not start: "
            f"{broker.log().strip() or 'no output'}"
            "\nHINT: run the same mosquitto by hand to see why, or give "
            "adapter.mqtt.broker: mqtt://host:port of a running broker."
        )
    return broker


def _listening(broker: Broker) -> bool:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and broker.process.poll() is None:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", broker.port), timeout=1.0),
        ):
            return True
        time.sleep(0.05)
    return False


atexit.register(stop_local)
