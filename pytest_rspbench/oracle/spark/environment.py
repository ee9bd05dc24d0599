"""The environment variables a local Spark is started with, set and restored.

PySpark's launcher reads ``JAVA_HOME`` and ``PYSPARK_PYTHON`` from
``os.environ`` of this process; they are set for the session's life and put
back when it stops.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from pytest_rspbench.oracle.spark.addresses import runs_here


def python_for_workers(master: str, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """``PYSPARK_PYTHON`` for Spark's Python workers, when it must be set.

    Workers default to ``python3`` on ``PATH``, which need not be this
    interpreter (a virtualenv that is not activated); a user's own setting wins.

    >>> python_for_workers("spark://cluster.example:7077")
    {}
    """
    if runs_here(master) and "PYSPARK_PYTHON" not in env:
        return {"PYSPARK_PYTHON": sys.executable}
    return {}


def apply_env(values: Mapping[str, str]) -> dict[str, str | None]:
    """Set variables in ``os.environ``; return their old values for restoring."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    return saved


def restore_env(saved: Mapping[str, str | None]) -> None:
    """Undo :func:`apply_env`."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
