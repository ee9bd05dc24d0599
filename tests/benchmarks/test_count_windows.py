"""The count-window benchmark: the loop's own count windows follow the
contract (docs/count-and-session-windows.md), and its spec is what the loop runs.

The loop's arithmetic (``pyoxigraph_loop.counted``) is written apart from the
package's; here it is checked against ``rsp.counting.slides`` on small
streams. ``[ROWS 3 STEP 2]`` over six one-triple events::

    element   1    2    3    4    5    6
    slides         ^         ^         ^      holds 1..2, 2..4, 4..6
"""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pytest_rspbench.rsp.counting import CountWindow, slides
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.spec.loader import load_spec

from helpers.benchmarks import benchmarks


@pytest.fixture(scope="module")
def bench() -> Iterator[tuple[ModuleType, ...]]:
    with benchmarks("pyoxigraph_loop", "count_windows") as modules:
        yield modules


def _chunks(sizes: list[int]) -> list[tuple[int, int, bytes]]:
    """One chunk (event) per size, at times 1000, 2000, ...; lines named by event."""
    out = []
    for n, size in enumerate(sizes):
        lines = b"".join(b"<e%d-%d> <p> <o> .\n" % (n, k) for k in range(size))
        out.append((1000 * (n + 1), size, lines))
    return out


@pytest.mark.parametrize("per_line", [False, True], ids=["rows", "triples"])
@pytest.mark.parametrize(
    ("sizes", "n", "m"),
    [([1] * 6, 3, 2), ([2, 1, 3, 2], 3, 2), ([3, 3, 3], 2, 3), ([1, 4, 2, 5, 1], 4, 1)],
)
def test_the_loop_slides_as_the_contract_says(
    bench: tuple[ModuleType, ModuleType], sizes: list[int], n: int, m: int, per_line: bool
) -> None:
    loop, _ = bench
    kind = "triples" if per_line else "rows"
    got = list(loop.counted(iter(_chunks(sizes)), n, m, per_line))
    units = sizes if per_line else [1] * len(sizes)
    times = [1000 * (e + 1) for e, size in enumerate(units) for _ in range(size)]
    want = slides(units, CountWindow(kind, n, m), "tuple-driven", "report")
    assert [(t, first, last) for t, first, last, _, _ in got] == [
        (times[s.last - 1], times[s.first - 1], times[s.last - 1]) for s in want
    ]
    for (_, _, _, triples, data), s in zip(got, want, strict=True):
        held = sum(sizes[times[k] // 1000 - 1] if not per_line else 1
                   for k in range(s.first - 1, s.last))  # fmt: skip
        assert triples == held == data.count(b"\n")


def test_the_benchmark_spec_runs_the_loop_s_window(bench: tuple[ModuleType, ModuleType]) -> None:
    _, count = bench
    for window, (label, kind, n, m) in count.WINDOWS.items():
        query = parse(count.query_text("q1", window))
        (decl,) = query.declared
        assert (decl.kind, decl.window.size, decl.window.step) == (kind, n, m)
        assert label in count.spec_text("100k", "q1", window)


def test_the_benchmark_spec_loads(bench: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    _, count = bench
    path = tmp_path / "count.rspbench.yaml"
    path.write_text(count.spec_text("100k", "q4", "rows-sliding"), encoding="utf-8")
    (case,) = load_spec(path).cases
    assert case.semantics["count_rampup"] == "report"
    assert case.query.kinds == {"rows"}


def test_its_examples_hold(bench: tuple[ModuleType, ModuleType]) -> None:
    loop, count = bench
    assert doctest.testmod(count).failed == 0
    assert doctest.testmod(loop).failed == 0
