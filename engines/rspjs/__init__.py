"""rsp-js, the third-party RSP-QL engine from npm, behind a protocol-1 adapter.

The entry point ``rspbench.engines: rspjs`` resolves to :func:`engine_profile`.
The adapter (``adapter.js``), the pinned npm dependencies (``package.json``,
``package-lock.json``) and the measured profile (``engine.yaml``, README.md)
live next to this file.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["engine_profile"]


def engine_profile() -> Path:
    """Path of rsp-js's profile (``engine.yaml``).

    >>> engine_profile().name
    'engine.yaml'
    """
    return Path(__file__).with_name("engine.yaml")
