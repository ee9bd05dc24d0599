"""The oracle's modules that moved into rooms stay importable by their old
names for one release, with a DeprecationWarning that names the new place."""

from __future__ import annotations

import importlib
import sys

import pytest

from pytest_rspbench.oracle import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_warns_and_forwards_to_the_module_in_its_room(old: str) -> None:
    name = f"pytest_rspbench.oracle.{old}"
    sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match=f"moved to pytest_rspbench.oracle.{MOVED[old]}"):
        module = importlib.import_module(name)
    new = importlib.import_module(f"pytest_rspbench.oracle.{MOVED[old]}")
    public = [n for n in vars(new) if not n.startswith("_")]
    assert public and all(getattr(module, n) is getattr(new, n) for n in public)
    sys.modules.pop(name, None)


def test_every_module_in_a_room_that_was_directly_in_the_oracle_is_listed() -> None:
    from pathlib import Path

    import pytest_rspbench.oracle as oracle

    root = Path(oracle.__file__).parent
    for old, new in MOVED.items():
        assert (root / (new.replace(".", "/") + ".py")).is_file(), f"{old} -> {new}"
        assert not (root / f"{old}.py").exists(), f"{old}.py is back directly in oracle/"


def test_a_name_that_never_existed_is_not_made_up() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pytest_rspbench.oracle.nothing_here")


def test_the_expected_output_store_s_names_are_forwarded_from_its_old_module_name() -> None:
    from pytest_rspbench.oracle import store
    from pytest_rspbench.oracle.store import outputs

    with pytest.warns(DeprecationWarning, match="moved to pytest_rspbench.oracle.store.outputs"):
        assert store.code_digest is outputs.code_digest
    with pytest.raises(AttributeError):
        store.nothing_here  # noqa: B018


def test_a_module_that_left_the_oracle_warns_and_forwards_to_its_new_layer() -> None:
    from pytest_rspbench.oracle import LEFT
    from pytest_rspbench.rsp import outputs

    assert LEFT == {"expected": "pytest_rspbench.rsp.outputs"}
    sys.modules.pop("pytest_rspbench.oracle.expected", None)
    with pytest.warns(DeprecationWarning, match="moved to pytest_rspbench.rsp.outputs"):
        from pytest_rspbench.oracle.expected import ExpectedOutput, ExpectedRelation, T0Class
    assert (ExpectedOutput, ExpectedRelation, T0Class) == (
        outputs.ExpectedOutput,
        outputs.ExpectedRelation,
        outputs.T0Class,
    )
    sys.modules.pop("pytest_rspbench.oracle.expected", None)
