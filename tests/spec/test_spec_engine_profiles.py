"""A bad engine.yaml is refused the same way everywhere.

A spec whose engine.yaml has a ``!!python`` tag, a string ``command`` or a
duplicate key is refused by ``rspbench validate`` as by ``pytest --co``: both
read profiles through ``engine.profiles.load_profile``
(``identify`` for a spec's engines): every mistake names the profile's
``file:line``, quotes it and gives a HINT; a spec naming the profile points at
its own ``engines:`` line and shows the profile's error below. No mistake in a
profile gives a traceback, a periodic report without a period and bytes that
are not UTF-8 included.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_rspbench.engine.profiles import identify, load_profile
from pytest_rspbench.errors import EngineConfigError, SpecError
from pytest_rspbench.spec.loader import load_spec

pytest_plugins = ["pytester"]

GOOD = """\
name: mine
adapter:
  command: ["{python}", "engine.py"]
semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close]
  tick: time-driven
  r2s: [RStream]
"""
SPEC = """\
rspbench: 1
name: uses-mine
streams:
  - iri: http://example.org/s
    source: {kind: generator, name: workload, duration: 1000}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE { WINDOW :w { ?s ?p ?o } }
engines: [mine/engine.yaml]
"""
ENGINES_LINE = 11

BAD = [
    # id, old, new, line in engine.yaml, problem
    (
        "python-tag",
        '  command: ["{python}", "engine.py"]',
        '  command: !!python/object/apply:os.system ["echo pwned"]',
        3,
        "$.adapter.command: the YAML tag '!!python/object/apply:os.system' is not allowed",
    ),
    (
        "string-command",
        '  command: ["{python}", "engine.py"]',
        '  command: "python engine.py"',
        3,
        "$.adapter.command: expected a list, got a string 'python engine.py'.",
    ),
    (
        "duplicate-key",
        "  tick: time-driven\n",
        "  tick: time-driven\n  tick: tuple-driven\n",
        9,
        "$.semantics.tick: key 'tick' appears twice in the same mapping (first on line 8).",
    ),
    (
        "periodic-without-period",
        "report: [window-close]",
        "report: [periodic]",
        4,
        "$.semantics: the periodic report policy needs a period (ms).",
    ),
    (
        "handshake-huge",
        '  command: ["{python}", "engine.py"]',
        '  command: ["{python}", "engine.py"]\n  handshake_timeout: 1.0e+300',
        4,
        "$.adapter.handshake_timeout: 1e+300 is out of range: expected a number above 0 "
        "and at most 604,800.",
    ),
    (
        "sampling-inf",
        "semantics:",
        "sampling: {interval: .inf}\nsemantics:",
        4,
        "$.sampling.interval: .inf is not a finite number.",
    ),
    (
        "windows-without-their-fields",
        "  r2s: [RStream]\n",
        "  r2s: [RStream]\n  windows: [time, rows, session]\n  session_gap: split\n",
        10,
        "$.semantics.windows: windows lists rows, session, but the profile does not declare "
        "count_order, count_ties, count_rampup, count_tick, count_bounds, session_bounds.",
    ),
    (
        "count-ties-unknown",
        "  r2s: [RStream]\n",
        "  r2s: [RStream]\n  count_ties: random\n",
        10,
        "$.semantics.count_ties: ",
    ),
    (
        "period-inf",
        "tick: time-driven",
        "tick: time-driven\n  period: .inf",
        9,
        "$.semantics.period:",
    ),
]


def write(folder: Path, old: str = "", new: str = "") -> Path:
    (folder / "mine").mkdir(exist_ok=True)
    assert old in GOOD
    profile = folder / "mine" / "engine.yaml"
    profile.write_text(GOOD.replace(old, new, 1), encoding="utf-8")
    (folder / "q.rspbench.yaml").write_text(SPEC, encoding="utf-8")
    return profile


CASES = [pytest.param(*case[1:], id=case[0]) for case in BAD]


@pytest.mark.parametrize(("old", "new", "line", "problem"), CASES)
def test_profile_loader_names_the_profile_line(
    tmp_path: Path, old: str, new: str, line: int, problem: str
) -> None:
    profile = write(tmp_path, old, new)
    with pytest.raises(EngineConfigError) as caught:
        load_profile(profile)
    text = str(caught.value)
    assert text.startswith(f"{profile}:{line}: {problem}"), text
    assert caught.value.line == line  # type: ignore[attr-defined]
    assert re.search(rf"^  > +{line} \| ", text, re.MULTILINE) and "\nHINT: " in text


@pytest.mark.parametrize(("old", "new", "line", "problem"), CASES)
def test_spec_naming_the_profile_shows_both_places(
    tmp_path: Path, old: str, new: str, line: int, problem: str
) -> None:
    profile = write(tmp_path, old, new)
    spec = tmp_path / "q.rspbench.yaml"
    with pytest.raises(SpecError) as caught:
        load_spec(spec, check_engine=identify)
    text = str(caught.value)
    assert text.startswith(
        f"{spec}:{ENGINES_LINE}: $.engines[0]: engine 'mine/engine.yaml' has an invalid "
        f"profile ({profile}:{line})."
    ), text
    assert f"\n{profile}:{line}: {problem}" in text
    assert caught.value.line == ENGINES_LINE and text.count("\nHINT: ") == 1


@pytest.mark.parametrize(("old", "new", "line", "problem"), CASES)
def test_validate_and_collection_refuse_it_alike(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    line: int,
    problem: str,
) -> None:
    from pytest_rspbench.cli import main

    profile = write(pytester.path, old, new)
    assert main(["validate", str(pytester.path / "q.rspbench.yaml")]) == 1
    validated = capsys.readouterr().err
    result = pytester.runpytest("--co", "-p", "no:cacheprovider")
    assert result.ret != 0
    expected = f"{profile}:{line}: {problem}"
    assert expected in validated and expected in result.stdout.str()
    assert "Traceback" not in validated + result.stdout.str()


def test_undecodable_profile_is_located(tmp_path: Path) -> None:
    profile = write(tmp_path)
    profile.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(EngineConfigError, match=rf"^{profile}:1: cannot read the engine"):
        load_profile(profile)


def test_a_good_profile_loads(tmp_path: Path) -> None:
    profile = write(tmp_path)
    assert load_profile(profile).name == "mine"
    (case,) = load_spec(tmp_path / "q.rspbench.yaml", check_engine=identify).cases
    assert case.engine_id == "mine"


def test_pinned_semantics_the_profile_cannot_complete_skip_the_engine(
    tmp_path: Path,
) -> None:
    # A spec pinning the periodic report without a period, for an engine that
    # has none: a skip with the reason, once a ValueError at collection.
    profile = load_profile(write(tmp_path))
    (reason,) = profile.departures({"report": ["periodic"]})
    assert reason == (
        "the semantics the spec pins do not fit mine's profile: "
        "the periodic report policy needs a period (ms)."
    )
    assert profile.departures({"report": ["periodic"], "period": 1000}) == [
        "period: the spec pins 1000, mine has None",
        "report: the spec pins [periodic], mine has [window-close]",
    ]
    with pytest.raises(EngineConfigError, match="\nHINT: pin the missing part"):
        profile.with_semantics({"report": ["periodic"]})


WINDOWS = """\
  windows: [time, rows, triples]
  count_order: time
  count_ties: any
  count_rampup: report
  count_tick: tuple-driven
  count_bounds: none
"""


def test_a_profile_lists_the_window_kinds_it_runs(tmp_path: Path) -> None:
    plain = load_profile(write(tmp_path))
    assert plain.semantics.windows == ("time",) and plain.semantics.count_ties is None
    assert plain.departures({}, "RStream", {"time", "session", "rows"}) == [
        "windows: the query uses rows and session windows, mine supports [time]"
    ]
    load_profile.cache_clear()
    counting = load_profile(write(tmp_path, "  r2s: [RStream]\n", "  r2s: [RStream]\n" + WINDOWS))
    assert counting.semantics.windows == ("time", "rows", "triples")
    assert counting.semantics.count_ties == "any"
    assert counting.departures({}, "RStream", {"time", "rows"}) == []


def test_pinned_count_fields_skip_a_fixed_engine_and_windows_pins_are_a_minimum(
    tmp_path: Path,
) -> None:
    profile = load_profile(write(tmp_path, "  r2s: [RStream]\n", "  r2s: [RStream]\n" + WINDOWS))
    assert profile.departures({"count_ties": "arrival"}) == [
        "count_ties: the spec pins 'arrival', mine has 'any'"
    ]
    assert profile.departures({"windows": ["rows"]}) == []
    (reason,) = profile.departures({"windows": ["session"]})
    assert "session" in reason and "session_gap" in reason
