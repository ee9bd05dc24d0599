"""The ``>>>`` examples in the verdict and metric modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "pytest_rspbench.alignment",
    "pytest_rspbench.bags",
    "pytest_rspbench.gracious",
    "pytest_rspbench.metrics",
    "pytest_rspbench.mismatch",
    "pytest_rspbench.sweep",
    "pytest_rspbench.thresholds",
    "pytest_rspbench.verdict",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS
    )
    assert result.failed == 0
