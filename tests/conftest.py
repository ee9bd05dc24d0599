"""Shared fixtures for the project's tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# PyYAML's C extension cannot be imported twice: import it once here so
# pytester's module cleanup after in-process runs never drops it.
import yaml  # noqa: F401
from hypothesis import settings

# Property tests explore new examples on developers' machines; in CI they are
# derandomized, so a red build is reproducible and never a coin toss.
settings.register_profile("ci", derandomize=True, print_blob=True)
# A bug hunt (tests/helpers/properties.py): random, and many more examples.
settings.register_profile("hunt", derandomize=False, print_blob=True, max_examples=1000)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The tests start a few hundred short-lived Spark JVMs in subprocesses (pytest,
# rspbench and Spark Connect servers, run as a user runs them). Each job of
# theirs is small and run once, so HotSpot's optimising compiler (C2) costs
# them more CPU than it saves: such a JVM gets C1 alone (a fresh `rspbench
# oracle` of a CSRBench query: 8-9 CPU s against 14-17 s). The JVM of this
# process runs thousands of jobs for the property tests and keeps C2 (with C1
# alone the whole suite was slower): _own_jvm_with_c2 launches it without.
# SPARK_SUBMIT_OPTS=... in the environment keeps the user's setting.
_C1_ONLY = "-XX:TieredStopAtLevel=1"
os.environ.setdefault("SPARK_SUBMIT_OPTS", _C1_ONLY)


def _own_jvm_with_c2() -> None:
    from pyspark import java_gateway

    launch = java_gateway.launch_gateway
    if getattr(launch, "_rspbench_c2", False):
        return

    def launch_gateway(*args: Any, **kwargs: Any) -> Any:
        saved = os.environ.get("SPARK_SUBMIT_OPTS")
        if saved == _C1_ONLY:
            del os.environ["SPARK_SUBMIT_OPTS"]
        try:
            return launch(*args, **kwargs)
        finally:
            if saved == _C1_ONLY:
                os.environ["SPARK_SUBMIT_OPTS"] = saved

    launch_gateway._rspbench_c2 = True  # type: ignore[attr-defined]
    java_gateway.launch_gateway = launch_gateway


_own_jvm_with_c2()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every Hypothesis test is marked ``property``: ``-m property`` selects
    them, e.g. for a hunt (``--hypothesis-profile=hunt``)."""
    for item in items:
        if hasattr(getattr(item, "function", None), "hypothesis"):
            item.add_marker(pytest.mark.property)


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """``conftest.py`` files hold fixtures, not doctests: --doctest-modules skips them.

    It would import each one again as the module ``conftest``; when several
    folders run together (``pytest tests/plugin tests/report``) that name is
    already another folder's conftest, and collection stops with "import file
    mismatch". The fixtures still load: pytest reads conftests on its own.
    """
    return True if collection_path.name == "conftest.py" else None


@pytest.fixture(scope="session", autouse=True)
def _stream_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Specs run by the tests keep their Parquet streams in a temporary folder.

    Not in the user's ``~/.cache`` (CI runs with ``-p no:cacheprovider``);
    inner pytest sessions see the variable too, and share the folder.
    """
    from pytest_rspbench.oracle.store.streamcache import ENV

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(tmp_path_factory.mktemp("rspbench-streams")))
        yield


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One SparkSession for the whole test run.

    Inner pytest sessions run by ``pytester.runpytest`` (in-process) find it
    active, reuse it and leave it running, so Spark starts once.
    """
    from pytest_rspbench.oracle.spark import SparkProvider

    # RSPBENCH_TEST_SPARK_CONF="key=value,key=value" tries Spark settings.
    raw = os.environ.get("RSPBENCH_TEST_SPARK_CONF", "")
    conf = dict(item.split("=", 1) for item in raw.split(",") if item)
    provider = SparkProvider("local[2]", conf=conf)
    yield provider.get()
    provider.stop()
