"""Shared fixtures for the project's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

# PyYAML's C extension cannot be imported twice: import it once here so
# pytester's module cleanup after in-process runs never drops it.
import yaml  # noqa: F401


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One SparkSession for the whole test run.

    Inner pytest sessions run by ``pytester.runpytest`` (in-process) find it
    active, reuse it and leave it running, so Spark starts once.
    """
    from pytest_rspbench.sparksession import SparkProvider

    provider = SparkProvider("local[2]")
    yield provider.get()
    provider.stop()
