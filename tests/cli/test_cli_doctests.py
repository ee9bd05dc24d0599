"""The ``>>>`` examples in the command modules' docstrings run as tests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pytest_rspbench.cli as cli_package

MODULES = sorted(
    f"pytest_rspbench.cli.{info.name}" for info in pkgutil.iter_modules(cli_package.__path__)
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
