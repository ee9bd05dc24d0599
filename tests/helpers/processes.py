"""Ports and commands for tests that start servers or the CLI in a child process."""

from __future__ import annotations

import socket
import sys

from pytest_rspbench.oracle.spark import reachable

RSPBENCH = [sys.executable, "-c", "import sys; from pytest_rspbench.cli import main; "
            "sys.exit(main())"]  # fmt: skip
"""``rspbench`` in a fresh interpreter: this one, whatever scripts are on PATH."""


def free_port() -> int:
    """A TCP port on loopback that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something listens on ``127.0.0.1:port``."""
    return reachable("127.0.0.1", port, timeout=2.0)
