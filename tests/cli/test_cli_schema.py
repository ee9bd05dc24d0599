"""``rspbench schema``: the packaged JSON Schemas, for editors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pytest_rspbench
from pytest_rspbench.cli import main

PACKAGE = Path(pytest_rspbench.__file__).resolve().parent


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        ([], "spec-v1.schema.json"),
        (["spec"], "spec-v1.schema.json"),
        (["engine"], "engine-v1.schema.json"),
    ],
)
def test_the_path_of_the_installed_schema(
    argv: list[str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", *argv]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == PACKAGE / "schemas" / name
    assert printed.is_absolute() and printed.is_file()


def test_print_writes_the_schema_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "engine", "--print"]) == 0
    text = capsys.readouterr().out
    assert text == (PACKAGE / "schemas" / "engine-v1.schema.json").read_text("utf-8")
    assert json.loads(text)["$schema"].startswith("https://json-schema.org/")


def test_an_unknown_kind_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["schema", "specs"])
    assert exited.value.code == 2
    assert "invalid choice: 'specs'" in capsys.readouterr().err
