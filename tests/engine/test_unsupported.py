"""``unsupported:`` in engine.yaml: query constructs an engine does not run.

A misspelt name is refused with the profile's ``file:line`` and the closest
name; a case whose query uses an unsupported construct is skipped for the
engine, with the reason, and never run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.errors import EngineConfigError

pytest_plugins = ["pytester"]

PROFILE = """\
name: lacks
adapter:
  python: rspbench_engines.reference.engine:ReferenceEngine
semantics:
  bounds: "[o,c)"
  t0: registration
  r2s: [RStream]
unsupported: UNSUPPORTED
"""
SPEC = """\
rspbench: 1
name: uses-optional
streams:
  - iri: http://ex/s
    source: {kind: lines, path: s.nt, format: ntriples-ts}
query: |
  PREFIX : <http://ex/>
  REGISTER RStream :out AS SELECT ?x ?l
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE { WINDOW :w { ?x :p ?v OPTIONAL { ?x :q ?l } } }
engines: [lacks.yaml]
"""


def profile(tmp_path: Path, unsupported: str) -> Path:
    path = tmp_path / "engine.yaml"
    path.write_text(PROFILE.replace("UNSUPPORTED", unsupported))
    return path


def test_the_constructs_are_read_and_explain_a_skip(tmp_path: Path) -> None:
    loaded = load_profile(profile(tmp_path, "[optional, two-windows]"))
    assert loaded.unsupported == {"optional", "two-windows"}
    reasons = loaded.departures({}, "RStream", ["time"], {"optional", "filter"})
    assert reasons == ["unsupported: the query uses optional, which lacks does not run"]
    assert loaded.departures({}, "RStream", ["time"], {"filter"}) == []


@pytest.mark.parametrize(
    ("unsupported", "said"),
    [
        ("[optinal]", "Did you mean 'optional'?"),
        ("[minus, minus]", "non-unique"),
        ("optional", "expected a list, got a s"),
    ],
)
def test_a_bad_list_names_the_line_and_what_to_write(
    tmp_path: Path, unsupported: str, said: str
) -> None:
    with pytest.raises(EngineConfigError) as raised:
        load_profile(profile(tmp_path, unsupported))
    message = str(raised.value)
    assert f"{tmp_path / 'engine.yaml'}:8:" in message and said in message
    assert "HINT:" in message


def test_a_case_using_an_unsupported_construct_is_skipped_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".yaml", lacks=PROFILE.replace("UNSUPPORTED", "[optional]"))
    pytester.makefile(".nt", s='<http://ex/a> <http://ex/p> "1" "0" .\n')
    pytester.makefile(".rspbench.yaml", **{"uses-optional": SPEC})
    result = pytester.runpytest("-rs", "-p", "no:randomly")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*lacks's profile cannot run this case: unsupported: the query uses optional, "
            "which lacks does not run*"
        ]
    )
