"""Verdicts through pytest: faulty engines, gracious mode, mismatch and sweep items.

Each test writes a small spec into a pytester folder and runs it against the
in-repo reference and faulty engines (engines/faulty). The faulty engines
count load in application time, so every outcome here is deterministic.
"""

from __future__ import annotations

import json
import re

import pytest

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.usefixtures("spark")]

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"

# Readings once per second, values alternating around 80.
TINY = "\n".join(
    f'<{EX}obs{t}> <{EX}value> "{v}"^^<{INT}> "{t * 1000}" .'
    for t, v in enumerate([70, 85, 90, 60, 95, 81, 79, 99, 100, 50, 88, 83])
)
# A burst of 900 readings at t=0 (3 s of work at the faulty engines' 300
# triples/s), then one reading per second.
BURST = "\n".join(
    [f'<{EX}b{n}> <{EX}value> "{n}"^^<{INT}> "0" .' for n in range(900)]
    + [f'<{EX}o{t}> <{EX}value> "{t}"^^<{INT}> "{t * 1000}" .' for t in range(1, 12)]
)


def spec(name: str, data: str, window: str, engines: str, extra: str, where: str = "") -> str:
    return f"""\
rspbench: 1
name: {name}
streams:
  - iri: http://example.org/s
    end: 12000
    source: {{kind: lines, path: {data}.nt, format: ntriples-ts}}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [{window}]
  WHERE {{ WINDOW :w {{ ?obs :value ?v . {where} }} }}
engines: [{engines}]
{extra}"""


def test_each_faulty_engine_fails_the_right_metric(pytester: pytest.Pytester) -> None:
    pytester.makefile(".nt", tiny=TINY)
    pytester.makefile(
        ".rspbench.yaml",
        faults=spec(
            "faults",
            "tiny",
            "RANGE 4000 STEP 2000",
            "reference, faulty-no-purge, faulty-misses-last, faulty-duplicates",
            "comparison: {mode: graded}\n"
            "thresholds:\n"
            "  - precision >= 1 in every window\n"
            "  - recall >= 1 in every window\n",
            "FILTER(?v > 80)",
        ),
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    # Each failure's text follows its "____ spec faults[engine=...] ____" header.
    sections = {
        name: out[out.index(f" faults[engine={name}] ") :]
        for name in ("faulty-no-purge", "faulty-misses-last", "faulty-duplicates")
    }

    def failed(name: str) -> set[str]:
        # A failure's text ends at the next failure's header or at the next
        # "=== ... ===" section (the short summary repeats messages under -v).
        text = re.split(r"\n(?:____|====)", sections[name].split("\n", 1)[1])[0]
        return {
            m
            for m in ("precision", "recall")
            if f"threshold '{m} >= 1 in every window' failed" in text
        }

    # Expired triples stay: extra bindings. The last window is lost: missing
    # bindings. Every relation twice: the bag has extra copies.
    assert failed("faulty-no-purge") == {"precision"}
    assert failed("faulty-misses-last") == {"recall"}
    assert failed("faulty-duplicates") == {"precision"}
    assert "results aligned by window: the profile trusts" in out
    assert "Traceback" not in out


def test_gracious_mode_reconstructs_the_delayed_windows(
    pytester: pytest.Pytester,
) -> None:
    """faulty-delayed-windows sees the burst at t=0 as late as its backlog
    (3000 ms), so it reports it in [2000,4000). Gracious mode finds the
    borders that explain that result exactly: [0,4000).

    ::

        time      0        1000     2000     3000     4000
        ideal     [-- burst, o1 ---)[--- o2, o3 ------)
        engine                      [ burst o1 o2 o3  )   (its [2000,4000))
        gracious  [0 .................................)   shift -2000/+0
    """
    pytester.makefile(".nt", burst=BURST)
    pytester.makefile(
        ".rspbench.yaml",
        delayed=spec(
            "delayed",
            "burst",
            "RANGE 2000 STEP 2000",
            "faulty-delayed-windows",
            "comparison: {mode: graded, gracious: {max_shift: 2000ms}}\n"
            "thresholds:\n"
            "  - gracious_recall >= 1 in every window\n"
            "  - gracious_precision >= 1 in every window\n"
            "  - recall >= 1 in every window\n"
            "  - precision >= 1 in every window\n",
        ),
    )
    result = pytester.runpytest("--rspbench-artifacts", "art")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "threshold 'gracious_recall >= 1 in every window'" not in out
    assert "threshold 'gracious_precision >= 1 in every window'" not in out
    assert "threshold 'recall >= 1 in every window' failed" in out
    result.stdout.fnmatch_lines(
        [
            "*gracious: borders [[]0,4000) (shift -2000/+0 ms; "
            "o in 0..0, c in 3001..4000) "
            "precision 1.000 recall 1.000",
        ]
    )
    (folder,) = (pytester.path / "art").iterdir()
    windows = json.loads((folder / "metrics.json").read_text())["windows"]
    shifted = [w for w in windows if w.get("gracious") and w["gracious"]["shift_start"]]
    assert [(w["window"], w["gracious"]["window"]) for w in shifted] == [([2000, 4000], [0, 4000])]
    # Every other reported window is explained by its ideal borders.
    others = [w["gracious"] for w in windows if w.get("gracious") and w not in shifted]
    assert others and all(g["shift_start"] == g["shift_end"] == 0 for g in others)


def test_mismatch_item(pytester: pytest.Pytester) -> None:
    pytester.makefile(".nt", tiny=TINY)
    pytester.makefile(
        ".rspbench.yaml",
        mm=spec(
            "mm",
            "tiny",
            "RANGE 4000 STEP 4000",
            "reference, faulty-duplicates, faulty-misses-last",
            "comparison: {mode: graded}\n"
            "thresholds:\n"
            "  - mismatch(faulty-duplicates, reference) <= 0\n"
            "  - mismatch(reference, faulty-duplicates) <= 0\n"
            "  - mismatch(reference, faulty-misses-last) <= 0\n"
            "mismatch: {epsilon: 0.5}\n",
            "FILTER(?v > 80)",
        ),
    )
    result = pytester.runpytest("-v", "-p", "no:randomly")
    out = result.stdout.str()
    lines = [line for line in out.splitlines() if "mm.rspbench.yaml::mm[" in line and "%]" in line]
    assert [line.split("::")[1].split(" ")[0] for line in lines] == [
        "mm[engine=reference]",
        "mm[engine=faulty-duplicates]",
        "mm[engine=faulty-misses-last]",
        "mm[mismatch]",
    ]
    assert "mm[mismatch] FAILED" in out
    # Duplicates are tolerated both ways (LSBench); the lost last window is not.
    assert "threshold 'mismatch(faulty-duplicates, reference) <= 0' failed" not in out
    assert "threshold 'mismatch(reference, faulty-duplicates) <= 0' failed" not in out
    result.stdout.fnmatch_lines(
        [
            "*threshold 'mismatch(reference, faulty-misses-last) <= 0' failed: mismatch = 0.*",
            "*comparable with epsilon 50.00%*",
            "*rspbench mismatch and sweeps*",
            "mm.rspbench.yaml::mm[mismatch]:",
        ]
    )


def test_mismatch_item_skips_when_an_engine_did_not_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".nt", tiny=TINY)
    pytester.makefile(
        ".rspbench.yaml",
        mm=spec(
            "mm",
            "tiny",
            "RANGE 4000 STEP 4000",
            "reference, faulty-duplicates",
            "mismatch: {epsilon: 0}\n",
        ),
    )
    result = pytester.runpytest("-rs", "-k", "mismatch or reference")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*the mismatch needs the outputs of faulty-duplicates*"])


def test_sweep_over_stations_finds_the_highest_comparable_load(
    pytester: pytest.Pytester,
) -> None:
    """yabench-sg1 with 7 triples per observation, one per station per second:
    2 stations are far below the faulty engines' 300 triples/s, 100 far above.
    faulty-drops-under-load loses results at 100 stations; the reference never.
    """
    pytester.makefile(
        ".rspbench.yaml",
        load=f"""\
rspbench: 1
name: load
streams:
  - iri: http://example.org/s
    source:
      kind: generator
      name: yabench-sg1
      stations: "${{stations}}"
      interval: 1000
      duration: 6000
query: |
  PREFIX weather: <http://knoesis.wright.edu/ssw/ont/weather.owl#>
  REGISTER RStream <{EX}out> AS
  SELECT ?obs
  FROM NAMED WINDOW <{EX}w> ON STREAM <http://example.org/s> [RANGE 2000 STEP 2000]
  WHERE {{ WINDOW <{EX}w> {{ ?obs a weather:TemperatureObservation }} }}
matrix:
  stations: [2, 100]
engines: [reference, faulty-drops-under-load]
comparison: {{mode: graded}}
sweep: {{over: stations, at_least: 100}}
""",
    )
    result = pytester.runpytest("-v", "--rspbench-artifacts", "art")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*load[[]stations=100,engine=faulty-drops-under-load[]] FAILED*",
            "*load[[]sweep[]] FAILED*",
            "*highest comparable stations below the required 100: faulty-drops-under-load (2)*",
        ]
    )
    folders = [p for p in (pytester.path / "art").iterdir() if (p / "sweep.json").exists()]
    data = json.loads((folders[0] / "sweep.json").read_text())
    comparable = {line["engine"]: line["highest_comparable"] for line in data["lines"]}
    assert comparable == {"reference": 100.0, "faulty-drops-under-load": 2.0}
