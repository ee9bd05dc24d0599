"""Where Spark runs: master URLs, loopback, and whether a server answers.

A master is ``local[...]`` (this process starts the JVM), ``spark://host:port``
(a standalone cluster) or ``sc://host:port`` (Spark Connect). Only these
functions read host names out of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

MASTER_URL = re.compile(
    r"local(\[(\*|\d+)(,\d+)?\])?"  # local, local[*], local[N], local[N,maxFailures]
    r"|spark://[^/\s]+"  # standalone, possibly host1:port1,host2:port2
    r"|sc://[^\s]+"  # Spark Connect, possibly with /;token=... parameters
)
"""The master URLs pytest-rspbench accepts."""

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def reads_local_files(master: str) -> bool:
    """True if Spark with this master reads this machine's files at their paths.

    Local mode, and a standalone cluster or Spark Connect server on loopback.

    >>> reads_local_files("local[2]"), reads_local_files("sc://localhost:15002")
    (True, True)
    >>> reads_local_files("spark://cluster.example:7077")
    False
    """
    if master.startswith("sc://"):
        from urllib.parse import urlsplit

        host = urlsplit(master.split(";", 1)[0]).hostname or ""
        return host in ("localhost", "127.0.0.1", "::1")
    return runs_here(master)


def connect_address(master: str) -> tuple[str, int]:
    """Host and port of a Spark Connect URL (port 15002 when it names none).

    >>> connect_address("sc://127.0.0.1:15003/;token=abc")
    ('127.0.0.1', 15003)
    >>> connect_address("sc://spark.example.org")
    ('spark.example.org', 15002)
    >>> connect_address("sc://[::1]:15010")
    ('::1', 15010)
    """
    authority = master.removeprefix("sc://").split("/", 1)[0]
    host, sep, port = authority.rpartition(":")
    if not sep or host.endswith("[") or (host.startswith("[") and not host.endswith("]")):
        host, port = authority, ""
    return host.strip("[]"), int(port) if port.isdigit() else 15002


def probed(host: str, env: Mapping[str, str] = os.environ) -> bool:
    """Whether a Connect server at ``host`` is first tried with a plain TCP
    connection: not when gRPC goes through a proxy (``grpc_proxy``,
    ``https_proxy``, ``http_proxy``), which the client honours and a direct
    connection would not, except for a server on loopback.

    >>> probed("127.0.0.1", {"https_proxy": "http://proxy:3128"})
    True
    >>> probed("spark.example.org", {"HTTPS_PROXY": "http://proxy:3128"})
    False
    >>> probed("spark.example.org", {})
    True
    """
    if host in ("localhost", "127.0.0.1", "::1"):
        return True
    names = ("grpc_proxy", "https_proxy", "http_proxy")
    return not any(env.get(n) or env.get(n.upper()) for n in names)


def reachable(host: str, port: int, timeout: float = 5.0) -> bool:
    """Whether a TCP connection to ``host:port`` opens within ``timeout`` s
    (something listens there)."""
    import socket

    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def runs_here(master: str) -> bool:
    """True if Spark's Python workers run on this machine (this interpreter exists)."""
    if master.startswith("local"):
        return True
    hosts = master.removeprefix("spark://").split(",")
    return all(host.rsplit(":", 1)[0] in LOOPBACK_HOSTS for host in hosts)
