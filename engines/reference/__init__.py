"""The reference engine: RSP-QL evaluated incrementally in Python.

Written independently of the oracle (it shares no window arithmetic or query
parsing with it) so that the two implementations check each other. The
entry point ``rspbench.engines: reference`` resolves to :func:`engine_profile`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["engine_profile"]


def engine_profile() -> Path:
    """Path of the reference engine's profile (``engine.yaml``).

    >>> engine_profile().name
    'engine.yaml'
    """
    return Path(__file__).with_name("engine.yaml")
