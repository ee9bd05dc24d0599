"""The conformance suite through each transport: the same verdict per item as on stdin/stdout.

One spec of every family under specs/ runs against the
reference engine over stdin/stdout and behind each service; every item must
end the same way. A faulty engine behind a transport fails as it does in-process.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]
pytest.importorskip("websockets")
pytest.importorskip("paho.mqtt")

SPECS = Path(__file__).resolve().parents[2] / "specs"
FAMILIES = {  # family: its spec here
    "csrbench": "csrbench/q2.rspbench.yaml",
    "lsbench": "lsbench/l01-filter.rspbench.yaml",
    "rspql": "rspql/bounds-co.rspbench.yaml",
    "shapes": "shapes/gaps.rspbench.yaml",
    "windows": "windows/rows-step.rspbench.yaml",
    "yabench": "yabench/e1-q1-filter.rspbench.yaml",
    "workloads": "workloads/two-stream-join.rspbench.yaml",
}
STDIO = """\
name: reference-stdio
adapter:
  command: ["{python}", -m, pytest_rspbench.engine.server, "rspbench_engines.reference.engine:ReferenceEngine"]
"""
# The workload family's spec replays 15 s twice; here one case, its burst in it.
SHORTER = {
    "workloads": (("burst: [0, 2000]", "burst: [2000]"), ("duration: [15000]", "duration: [11000]"))
}
ITEM = re.compile(r"^(\S+)\[(.*)engine=([\w.-]+)\] (PASSED|FAILED|SKIPPED|ERROR)", re.M)


def _stdio(pytester: pytest.Pytester) -> Path:
    reference = (Path(__file__).resolve().parents[2] / "engines/reference/engine.yaml").read_text()
    semantics = reference[reference.index("semantics:") :]
    path = pytester.path / "stdio" / "engine.yaml"
    path.parent.mkdir()
    path.write_text(STDIO + semantics)
    return path


def _spec(pytester: pytest.Pytester, family: str) -> str:
    """The family's spec: the bundled file, or a copy with a shorter matrix."""
    path = SPECS / FAMILIES[family]
    if family not in SHORTER:
        return str(path)
    text = path.read_text(encoding="utf-8")
    for old, new in SHORTER[family]:
        assert old in text, (path, old)
        text = text.replace(old, new)
    copy = pytester.path / path.name
    copy.write_text(text, encoding="utf-8")
    return str(copy)


def _outcomes(pytester: pytest.Pytester, engines: list[str], families: list[str]):
    specs = [_spec(pytester, f) for f in families]
    result = pytester.runpytest_subprocess(
        *specs, "-v", "-p", "no:cacheprovider", "--rspbench-engine", ",".join(engines)
    )
    by_case: dict[str, dict[str, str]] = defaultdict(dict)
    for item, params, engine, outcome in ITEM.findall(result.stdout.str()):
        by_case[f"{item}[{params}]"][engine] = outcome
    return by_case, result


def test_every_family_ends_the_same_over_every_transport(pytester):
    engines = [str(_stdio(pytester)), "reference-http", "reference-websocket", "reference-mqtt"]
    by_case, result = _outcomes(pytester, engines, list(FAMILIES))
    assert len(by_case) >= len(FAMILIES), result.stdout.str()
    for case, outcomes in by_case.items():
        assert set(outcomes) == {"reference-stdio", *engines[1:]}, (case, outcomes)
        assert len(set(outcomes.values())) == 1, (case, outcomes)
    assert "PASSED" in {o for outcomes in by_case.values() for o in outcomes.values()}


def test_the_other_http_forms_end_the_same(pytester):
    engines = [str(_stdio(pytester)), "reference-http-sse", "reference-rsp-services"]
    by_case, result = _outcomes(pytester, engines, ["rspql", "shapes"])
    assert by_case, result.stdout.str()
    for case, outcomes in by_case.items():
        assert outcomes["reference-stdio"] == outcomes["reference-http-sse"], (case, outcomes)
        # The mapped API carries no semantics: it is skipped where a spec pins others.
        assert outcomes["reference-rsp-services"] in (outcomes["reference-stdio"], "SKIPPED")


def test_a_faulty_engine_behind_a_transport_fails_the_same_way(pytester):
    faulty = (
        Path(__file__).resolve().parents[2] / "engines/faulty/wrong-bounds/engine.yaml"
    ).read_text()
    semantics = faulty[faulty.index("semantics:") :]
    path = pytester.path / "faulty-http" / "engine.yaml"
    path.parent.mkdir()
    path.write_text(
        "name: faulty-wrong-bounds-http\nadapter:\n  http:\n"
        '    command: ["{python}", -m, rspbench_engines.services.http, --port, "{port}", --once,'
        ' --engine, "rspbench_engines.faulty.engines:WrongBounds"]\n'
        "    url: http://127.0.0.1:{port}\n" + semantics
    )
    spec = str(SPECS / "csrbench-q1.rspbench.yaml")
    result = pytester.runpytest_subprocess(
        spec, "-p", "no:cacheprovider", "-rf", "--rspbench-engine", f"faulty-wrong-bounds,{path}"
    )
    result.assert_outcomes(failed=2)
    verdicts = [line for line in result.stdout.lines if line.startswith("strict: FAIL")]
    assert len(verdicts) == 2, result.stdout.str()
    assert verdicts[0] == verdicts[1]  # in-process and over HTTP: the same first line
    assert verdicts[0].startswith("strict: FAIL — window bounds")
