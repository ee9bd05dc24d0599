"""``rspbench stream generators``: each generator's parameters, defaults and bounds."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_rspbench.cli import generators, main
from pytest_rspbench.stream.workloads import Workload


def test_every_generator_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "generators"]) == 0
    out = capsys.readouterr().out
    for name in ("yabench-sg1", "lsbench-social", "workload"):
        assert f"\n{name}: " in f"\n{out}"


def test_one_generator_with_defaults_and_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "generators", "yabench-sg1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("yabench-sg1: YABench's stream generator SG1")
    assert "  stations  default 10; whole number, 1 to 1,000,000" in lines
    assert "  interval  default 300,000; whole number, 1 to 2,147,483,647" in lines
    assert "            Weather stations." in lines


def test_every_parameter_of_the_settings_class_is_listed() -> None:
    """Names and defaults come from the dataclass that open_source builds."""
    listed = generators.parameters("workload")
    assert [p.name for p in listed] == [f.name for f in dataclasses.fields(Workload)]
    shape = next(p for p in listed if p.name == "shape")
    assert shape.default == "constant"
    assert shape.allowed.startswith("one of constant, periodic-burst")


@pytest.mark.parametrize("name", generators.generator_names())
def test_every_parameter_says_what_values_it_takes(name: str) -> None:
    """The spec schema describes every parameter, so the listing has no blanks."""
    for parameter in generators.parameters(name):
        assert parameter.allowed and parameter.description, (name, parameter)


def test_an_unknown_generator_suggests_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "generators", "yabench"]) == 1
    err = capsys.readouterr().err
    assert "unknown generator 'yabench'" in err and "did you mean 'yabench-sg1'?" in err
