"""PySpark's one private function that the oracle patches, checked against the
installed PySpark.

``pytest_rspbench.oracle.spark.patch`` wraps
``pyspark.sql.functions.builtin._get_jvm_function`` so that each SQL
function is looked up once per SparkContext. It is private API: when a
PySpark upgrade renames it or changes its arguments, the patch silently does
nothing, and the oracle is slower. These tests fail first, and say what to
look at.
"""

from __future__ import annotations

import inspect

import pytest

from pytest_rspbench.oracle.spark import patch

builtin = pytest.importorskip("pyspark.sql.functions.builtin")

UPGRADE = (
    "PySpark {version} changed its private `pyspark.sql.functions.builtin._get_jvm_function` "
    "({what}); update pytest_rspbench/oracle/spark/patch.py to the new lookup, or drop the patch"
)


def _say(what: str) -> str:
    import pyspark

    return UPGRADE.format(version=pyspark.__version__, what=what)


def test_the_patched_function_is_still_there_with_its_two_arguments() -> None:
    original = getattr(builtin, "_get_jvm_function", None)
    assert original is not None, _say("it is gone")
    if getattr(original, "rspbench_cached", False):  # another test patched it already
        return
    names = list(inspect.signature(original).parameters)
    assert names == ["name", "sc"], _say(f"its parameters are now {names}")


def test_the_functions_module_still_calls_it_by_its_name() -> None:
    source = inspect.getsource(builtin)
    assert "_get_jvm_function(" in source, _say("no SQL function calls it any more")


def test_the_patch_looks_each_function_up_once_per_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked_up = []

    def lookup(name: str, sc: object) -> str:
        looked_up.append(name)
        return f"jvm:{name}"

    monkeypatch.setattr(builtin, "_get_jvm_function", lookup)
    patch.cache_function_lookups()
    cached = builtin._get_jvm_function
    assert cached is not lookup and getattr(cached, "rspbench_cached", False)

    class Context:  # a SparkContext stands in: only its __dict__ is used
        pass

    first, second = Context(), Context()
    assert [cached("when", first), cached("when", first), cached("col", first)] == [
        "jvm:when",
        "jvm:when",
        "jvm:col",
    ]
    assert cached("when", second) == "jvm:when"
    assert looked_up == ["when", "col", "when"]
    patch.cache_function_lookups()  # twice: not wrapped again
    assert builtin._get_jvm_function is cached
