"""The ``>>>`` examples in the verdict and metric modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "pytest_rspbench.verdict.alignment",
    "pytest_rspbench.rsp.bags",
    "pytest_rspbench.verdict.gracious",
    "pytest_rspbench.verdict.metrics",
    "pytest_rspbench.verdict.mismatch",
    "pytest_rspbench.verdict.sweep",
    "pytest_rspbench.spec.thresholds",
    "pytest_rspbench.verdict.strict",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS
    )
    assert result.failed == 0
