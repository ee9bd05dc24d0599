"""The machine's load during an item: sampled, recorded, and named in the
failure of an item judged on delay, memory or CPU (``report/load.py``).

The load average is faked (``os.getloadavg``), so what the machine really
does during the test changes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from pytest_rspbench.report import load
from pytest_rspbench.report.load import Load, overload_note, watching

TINY = """\
rspbench: 1
name: busy
streams:
  - iri: http://example.org/s
    source: {kind: lines, path: stream.nt, format: ntriples-ts}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE { WINDOW :w { ?s :p ?o } }
engines: [reference]
thresholds: [THRESHOLD]
"""
STREAM = "\n".join(
    f'<http://example.org/s{t}> <http://example.org/p> "{t}" "{t}" .' for t in range(0, 5000, 500)
)


def test_the_samples_of_a_watch_make_its_load() -> None:
    values = iter([1.0, 5.0, 3.0, 3.0, 3.0, 3.0])
    with watching(interval=0.001, sample=lambda: next(values, 3.0)) as watch:
        while len(watch.samples) < 3:
            pass
    assert watch.load is not None
    assert watch.load.peak == 5.0 and watch.load.samples == len(watch.samples) >= 4
    assert watch.load.cores == load.cores()


def test_a_system_without_a_load_average_records_none() -> None:
    with watching(interval=0.001, sample=lambda: None) as watch:
        pass
    assert watch.load is None


@pytest.mark.parametrize(
    ("peak", "cores", "metrics", "noted"),
    [
        (7.9, 2, ["delay"], True),
        (7.9, 2, ["recall", "peak_rss"], True),
        (3.0, 2, ["mean_cpu"], False),  # 1.5 per core: busy, not overloaded
        (7.9, 2, ["recall"], False),  # correctness does not depend on the load
    ],
)
def test_only_machine_figures_measured_overloaded_are_noted(
    peak: float, cores: int, metrics: list[str], noted: bool
) -> None:
    note = overload_note(Load(peak, peak, cores, 3), metrics)
    assert (note is not None) == noted
    if noted:
        assert note == f"measured while the machine was overloaded (load {peak:.1f} on 2 cores)"


@pytest.fixture
def overloaded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine whose load average reads 7.9 (4 per core on 2 cores)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (7.9, 7.0, 6.0))
    monkeypatch.setattr(load, "cores", lambda: 2)
    yield


@pytest.mark.spark
@pytest.mark.usefixtures("spark", "overloaded")
@pytest.mark.parametrize(
    ("threshold", "noted"),
    [('"peak_rss <= 1KB"', True), ('"recall >= 1 in every window"', False)],
)
def test_an_overloaded_item_failing_on_memory_says_so(
    pytester: pytest.Pytester, threshold: str, noted: bool
) -> None:
    pytester.makefile(".nt", stream=STREAM)
    spec = TINY.replace("THRESHOLD", threshold)
    if not noted:  # a wrong engine fails its correctness threshold
        spec = spec.replace("[reference]", "[faulty-no-purge]")
    pytester.makefile(".rspbench.yaml", busy=spec)
    result = pytester.runpytest("--rspbench-json", "out.json", "-rf")
    result.assert_outcomes(failed=1)
    text = "measured while the machine was overloaded (load 7.9 on 2 cores)"
    assert (text in result.stdout.str()) == noted
    assert ("overloaded machine: its delay, memory and CPU" in result.stdout.str()) == noted
    (item,) = json.loads((pytester.path / "out.json").read_text())["items"]
    assert item["load"]["peak"] == 7.9 and item["load"]["overloaded"] is True
    assert item["load"]["cores"] == 2
