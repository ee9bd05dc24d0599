"""An engine that answers ``unsupported`` to ``register`` declines the query.

Over the protocol (``{"type": "unsupported", "reason": ...}``) or in
process (``open`` raises :class:`~pytest_rspbench.engine.api.Unsupported`),
the replay records the reason and no error; in pytest the case is skipped
with the engine's reason, before the oracle runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import run_fake

from pytest_rspbench.engine.protocol import Declined, ProtocolViolation, parse_line

pytest_plugins = ["pytester"]


def test_the_answer_is_parsed_with_its_reason() -> None:
    message = parse_line('{"type": "unsupported", "reason": "no OPTIONAL"}')
    assert message == Declined("no OPTIONAL")
    assert parse_line('{"type": "unsupported"}') == Declined("(no reason)")
    with pytest.raises(ProtocolViolation, match="unsupported"):
        parse_line('{"type": "unsuported"}')  # the list of types names it


def test_a_process_engine_that_declines_is_no_fault() -> None:
    actual = run_fake("decline")
    assert actual.unsupported == "no sliding windows here"
    assert actual.error is None and actual.faults == []
    assert actual.events_sent == 0 and actual.received == []


DECLINES = """
from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Unsupported


class Declines(ReferenceEngine):
    name = "declines"

    def open(self, registration, emit):
        if "STEP 2000" in registration.query:
            raise Unsupported("sliding windows are not implemented")
        super().open(registration, emit)
"""


def test_a_declined_case_is_skipped_with_the_engines_reason(
    spec_project: Any, pytester: pytest.Pytester
) -> None:
    """``[range=4000, step=2000]`` is declined (skipped before any oracle
    runs: no Spark is started); ``step=4000`` is deselected."""
    from helpers.project import engine_yaml

    pytester.syspathinsert()
    pytester.makepyfile(declining=DECLINES)
    pytester.makefile(".yaml", declines=engine_yaml("declines", "declining:Declines"))
    spec_project("declines.yaml", steps="[2000, 4000]")
    result = pytester.runpytest("-rs", "--rspbench-oracle-ahead", "0", "-k", "step:2000")
    result.assert_outcomes(skipped=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["*SKIPPED*declines does not run this query: sliding windows are not implemented*"]
    )
