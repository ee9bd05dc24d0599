"""Spark's session and JVM are started, configured and stopped in one room.

import-linter sees external packages only as wholes: it can say that
``pyspark`` and ``py4j`` are imported only inside the oracle, and ``py4j``
only in its runtime room (pyproject.toml), but not which part of PySpark.
The SPARQL compiler builds column expressions (``pyspark.sql.functions``)
and needs them; what starts or stops Spark (``SparkSession``,
``SparkContext``, ``SparkConf``, PySpark's gateway) must stay in
``pytest_rspbench/oracle/spark/``. This test reads every module's imports,
``TYPE_CHECKING`` ones included, and names each that breaks the rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "pytest_rspbench"
ROOM = ROOT / "oracle" / "spark"
LIFECYCLE = {"SparkSession", "SparkContext", "SparkConf"}
LIFECYCLE_MODULES = {"pyspark.java_gateway", "pyspark.context", "pyspark.sql.session", "py4j"}


def lifecycle_imports(path: Path) -> list[str]:
    """``line: statement`` of each import of Spark's lifecycle in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            top = node.module.split(".")[0]
            if (top == "pyspark" and names & LIFECYCLE) or any(
                node.module == m or node.module.startswith(f"{m}.") for m in LIFECYCLE_MODULES
            ):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(sorted(names))}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(
                    alias.name == m or alias.name.startswith(f"{m}.") for m in LIFECYCLE_MODULES
                ):
                    found.append(f"{node.lineno}: import {alias.name}")
    return sorted(found, key=lambda text: int(text.split(":")[0]))


def test_only_the_runtime_room_starts_or_stops_spark() -> None:
    breaches = [
        f"{path.relative_to(ROOT.parent)}:{line}"
        for path in sorted(ROOT.rglob("*.py"))
        if ROOM not in path.parents
        for line in lifecycle_imports(path)
    ]
    assert not breaches, "Spark's lifecycle outside pytest_rspbench/oracle/spark/:\n" + "\n".join(
        breaches
    )


def test_the_check_sees_each_kind_of_lifecycle_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from pyspark.sql import functions as F\n"  # allowed: column expressions
        "if TYPE_CHECKING:\n"
        "    from pyspark.sql import SparkSession\n"
        "import py4j.protocol\n"
        "def f():\n"
        "    from pyspark import SparkContext\n"
    )
    assert lifecycle_imports(module) == [
        "4: from pyspark.sql import SparkSession",
        "5: import py4j.protocol",
        "7: from pyspark import SparkContext",
    ]


def test_the_runtime_room_does_hold_them() -> None:
    assert any(lifecycle_imports(path) for path in ROOM.glob("*.py"))
