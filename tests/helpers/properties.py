"""How many examples a property test runs: pinned in the normal run, many and
random in a *hunt*.

A property test whose examples each run the oracle on Spark can afford a few
dozen examples per run, so they are derandomized: every run checks the same
ones, and a red build is never a coin toss. That proves little about the
examples never drawn. A hunt draws them::

    pytest -m property --hypothesis-profile=hunt -n 2

``hunt`` (registered in ``tests/conftest.py``) makes every property test
random, and multiplies the examples of those written with :func:`explore` by
``RSPBENCH_HUNT_FACTOR`` (default 20). A failure prints the
``@reproduce_failure`` blob and is kept in Hypothesis's example database
(``.hypothesis/``), so the next hunt tries it first (docs/oracle.md, "How
the oracle is checked").

It also holds the strategies the Spark property tests share (a window's
bounds, report policies).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

HUNT = "hunt"

BOUNDS = st.sampled_from(["(o,c]", "[o,c)", "[o,c]"])
"""A window's bounds, any of the three."""

ON_CLOSE = [("window-close",), ("window-close", "non-empty-content")]
REPORTS = st.sampled_from([*ON_CLOSE, ("content-change",)])
"""A report policy: on close (empty windows reported or not) or on content change."""


def hunting() -> bool:
    """Is the ``hunt`` profile loaded (``--hypothesis-profile=hunt``)?"""
    current = getattr(settings, "get_current_profile_name", None)
    name = current() if current is not None else getattr(settings, "_current_profile", None)
    return name == HUNT


def factor() -> int:
    """How many times more examples a hunt runs (``RSPBENCH_HUNT_FACTOR``)."""
    text = os.environ.get("RSPBENCH_HUNT_FACTOR", "20")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f"RSPBENCH_HUNT_FACTOR={text!r}: expected a whole number, e.g. 20"
        ) from None
    return max(1, value)


def explore(max_examples: int, *, spark: bool = False) -> settings:
    """Settings for a property test of ``max_examples`` examples.

    ``spark``: each example runs Spark (slow, and a fixture per test
    function): derandomized, no deadline, no health check for either. In a
    hunt, :func:`factor` times as many examples, random.
    """
    options: dict = {"max_examples": max_examples, "deadline": None}
    if spark:
        options["derandomize"] = True
        options["suppress_health_check"] = [
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
        ]
    else:
        options["suppress_health_check"] = [HealthCheck.too_slow]
    if hunting():
        options["max_examples"] = max_examples * factor()
        options["derandomize"] = False
    return settings(**options)
