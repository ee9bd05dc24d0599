"""benchmarks/cluster.py compares the cluster's output with local mode's as
bags: the order of lines and of solutions within a line is Spark's, not the
answer's; a solution changed is a difference, named with an example."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from helpers.benchmarks import benchmarks


@pytest.fixture(scope="module")
def cluster() -> Iterator[ModuleType]:
    with benchmarks("cluster") as (cluster,):
        yield cluster


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


A = {"index": 0, "t0": 0, "bindings": [{"x": "<a>"}, {"x": "<b>"}]}
B = {"index": 1, "t0": 0, "bindings": [{"x": "<c>"}]}


def test_lines_and_solutions_in_another_order_are_the_same_output(
    cluster: ModuleType, tmp_path: Path
) -> None:
    local = write(tmp_path / "local.jsonl", [A, B])
    shuffled = {"t0": 0, "index": 0, "bindings": [{"x": "<b>"}, {"x": "<a>"}]}
    other = write(tmp_path / "cluster.jsonl", [B, shuffled])
    found = cluster.compare(local, other)
    assert found["same"] and not found["identical_bytes"]
    assert (found["solutions"], found["windows"]) == (3, 2)


def test_a_changed_solution_differs_and_is_shown(cluster: ModuleType, tmp_path: Path) -> None:
    local = write(tmp_path / "local.jsonl", [A, B])
    changed = {"index": 0, "t0": 0, "bindings": [{"x": "<a>"}, {"x": "<z>"}]}
    other = write(tmp_path / "cluster.jsonl", [changed, B])
    found = cluster.compare(local, other)
    assert not found["same"]
    assert (found["lines_only_local"], found["lines_only_cluster"]) == (1, 1)
    assert "only local (1)" in found["example"] and '"<b>"' in found["example"]
    assert "only the other (1)" in found["example"] and '"<z>"' in found["example"]
