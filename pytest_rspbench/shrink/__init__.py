"""Minimal counterexamples of failing items (``--rspbench-shrink``).

:mod:`.delta` holds the search (delta debugging, time-span compression),
pure; :mod:`.shrinker` runs candidates through the engine and the oracle;
:mod:`.written` writes the result as a spec with its stream. Above the
runner in the layers: it replays and judges through it.
"""

from __future__ import annotations

from pytest_rspbench.shrink.shrinker import shrink

__all__ = ["shrink"]
