"""The scripts of ``benchmarks/``, imported by the tests of their logic.

A benchmark script imports its siblings (``page``, ``workloads``, ...) by
name, some of them only when a function runs, so ``benchmarks/`` stays on
``sys.path`` while the modules are in use and leaves it afterwards.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@contextlib.contextmanager
def benchmarks(*names: str) -> Iterator[tuple[ModuleType, ...]]:
    """``benchmarks/<name>.py`` for each name, imported, in that order."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield tuple(importlib.import_module(name) for name in names)
    finally:
        sys.path.remove(str(BENCHMARKS))
