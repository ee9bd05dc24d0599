"""The end-to-end benchmark's table (benchmarks/e2e_report.py): the warm server's cells."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from helpers.benchmarks import benchmarks


@pytest.fixture(scope="module")
def report() -> Iterator[ModuleType]:
    with benchmarks("e2e_report") as (module,):
        yield module


def run(seconds: float, **more: float) -> dict[str, object]:
    return {"status": "ok", "seconds": seconds, **more}


def test_a_row_shows_the_first_and_the_second_call_on_the_server(report: ModuleType) -> None:
    loop = run(8.0)
    first = run(8.4, client_cpu=2.0, server_cpu=12.0, server_mb=1635.0)
    cells = report.server_cells(first, run(4.0), loop)
    assert cells == " 8.4 / 4.0 | 1.05x / 0.50x | 2 + 12 / 1,635 |"


def test_a_row_of_a_run_with_one_call_keeps_its_columns(report: ModuleType) -> None:
    loop = run(10.0)
    first = run(5.0, client_cpu=1.0, server_cpu=3.0, server_mb=900.0)
    assert report.server_cells(first, None, loop) == " 5.0 | 0.50x | 1 + 3 / 900 |"
    assert report.server_cells(None, None, loop) == " - | - | - |"
