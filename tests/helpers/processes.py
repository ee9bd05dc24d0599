"""Ports and commands for tests that start servers or the CLI in a child process."""

from __future__ import annotations

import random
import socket
import sys

from pytest_rspbench.oracle.spark import reachable

RSPBENCH = [sys.executable, "-c", "import sys; from pytest_rspbench.cli import main; "
            "sys.exit(main())"]  # fmt: skip
"""``rspbench`` in a fresh interpreter: this one, whatever scripts are on PATH."""


_DRAW = random.SystemRandom()  # not the one pytest-randomly seeds alike in every worker


def free_port() -> int:
    """A TCP port on loopback that nobody listens on right now.

    It is drawn below the kernel's ephemeral range (32768 up on Linux), from
    which every ``bind(0)`` and outgoing connection of the tests' other
    processes (Spark's JVMs, engines) takes its ports: one of them could
    otherwise take this port before the test's server binds it.
    """
    for _ in range(200):
        port = _DRAW.randrange(20000, 32000)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000 on 127.0.0.1")


def listening(port: int) -> bool:
    """Whether something listens on ``127.0.0.1:port``."""
    return reachable("127.0.0.1", port, timeout=2.0)
