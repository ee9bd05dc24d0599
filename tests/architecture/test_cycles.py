"""No import cycle at any depth, but the oracle compiler's handler registry.

import-linter's acyclic contract compares the siblings of each package; here
the module graph itself is walked: every import grimp sees in the package
(``if TYPE_CHECKING:`` ones and those inside functions included) and the
imports of the ``benchmarks/`` scripts of each other. Once the registry's
edges (``ignore_imports`` in pyproject.toml, so the list lives in one place)
are set aside, every strongly connected component of more than one module is
a cycle, and the test names its modules in the order they import each other.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections import deque
from collections.abc import Iterable, Mapping, Set
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_rspbench"
BENCHMARKS = ROOT / "benchmarks"

Graph = Mapping[str, Set[str]]
"""Module -> the modules it imports directly."""

_GRAPH = """\
import json, grimp
graph = grimp.build_graph("pytest_rspbench", exclude_type_checking_imports=False, cache_dir=None)
print(json.dumps({m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}))
"""


def allowed() -> set[tuple[str, str]]:
    """The registry's edges: every contract's ``ignore_imports`` in pyproject.toml."""
    import tomllib  # Python 3.11

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    edges = set()
    for contract in config["tool"]["importlinter"]["contracts"]:
        for line in contract.get("ignore_imports", ()):
            importer, _, imported = line.partition("->")
            edges.add((importer.strip(), imported.strip()))
    return edges


def package_graph(where: Path) -> dict[str, set[str]]:
    """The import graph of the ``pytest_rspbench`` found first under ``where``.

    grimp runs in a child process: in this one the package is imported
    already, and grimp would find that one rather than a copy.
    """
    env = {**os.environ, "PYTHONPATH": str(where)}
    command = [sys.executable, "-c", _GRAPH]
    done = subprocess.run(
        command, cwd=where, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return {module: set(imported) for module, imported in json.loads(done.stdout).items()}


def script_graph(folder: Path) -> dict[str, set[str]]:
    """The scripts of ``folder`` (run with it on ``sys.path``) and which of
    them each imports, anywhere in its text, as ``benchmarks.<name>``."""
    scripts = {path.stem: path for path in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in scripts.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.partition(".")[0])
        graph[f"{folder.name}.{name}"] = {f"{folder.name}.{m}" for m in imported & set(scripts)}
    return graph


def components(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, without recursion), each sorted.

    >>> components({"a": {"b"}, "b": {"a", "c"}, "c": set()})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, edges = work[-1]
            following = next((m for m in edges if m in graph), None)
            if following is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while not component or component[-1] != module:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    if len(component) > 1:
                        found.append(sorted(component))
            elif following not in index:
                index[following] = low[following] = len(index)
                stack.append(following)
                on_stack.add(following)
                work.append((following, iter(sorted(graph[following]))))
            elif following in on_stack:
                low[module] = min(low[module], index[following])
    return sorted(found)


def cycle(component: Iterable[str], graph: Graph) -> list[str]:
    """The shortest cycle through the component's first module, in import
    order, that module at both ends.

    >>> cycle(["a", "b", "c"], {"a": {"b"}, "b": {"c"}, "c": {"a"}})
    ['a', 'b', 'c', 'a']
    """
    members = sorted(component)
    start = members[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for following in sorted(graph[module]):
            if following == start:
                path = [module]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if following in members and following not in came_from:
                came_from[following] = module
                queue.append(following)
    raise AssertionError(f"{members} is no strongly connected component")


def cycles(graph: Graph, allowed: Set[tuple[str, str]] = frozenset()) -> list[str]:
    """Each cycle of ``graph`` but the ``allowed`` edges, as a line of text."""
    kept = {m: {n for n in imported if (m, n) not in allowed} for m, imported in graph.items()}
    lines = []
    for component in components(kept):
        path = cycle(component, kept)
        line = " -> ".join(path)
        if len(component) > len(path) - 1:
            line += f" (and around: {', '.join(component)})"
        lines.append(line)
    return lines


def add_import(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    pytest.importorskip("grimp")
    shutil.copytree(
        PACKAGE, tmp_path / "pytest_rspbench", ignore=shutil.ignore_patterns("data", "__pycache__")
    )
    return tmp_path


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    pytest.importorskip("grimp")
    return package_graph(ROOT)


def test_the_package_has_no_import_cycle(graph: Graph) -> None:
    found = cycles(graph, allowed())
    assert not found, "import cycles (TYPE_CHECKING imports count):\n" + "\n".join(found)


def test_every_allowed_edge_is_an_import_on_a_cycle(graph: Graph) -> None:
    registry = allowed()
    stale = sorted(edge for edge in registry if edge[1] not in graph.get(edge[0], ()))
    assert not stale, f"pyproject.toml allows imports that are gone: {stale}"
    on_cycles = {m for component in components(graph) for m in component}
    assert {m for edge in registry for m in edge} <= on_cycles


def test_the_benchmarks_have_no_import_cycle() -> None:
    found = cycles(script_graph(BENCHMARKS))
    assert not found, "import cycles between benchmarks:\n" + "\n".join(found)


def test_a_type_checking_back_import_is_reported_as_a_cycle(copy: Path) -> None:
    narrowed = copy / "pytest_rspbench" / "oracle" / "t0" / "narrowed.py"
    add_import(narrowed, "from typing import TYPE_CHECKING")
    add_import(
        narrowed, "if TYPE_CHECKING:\n    from pytest_rspbench.oracle.t0.planning import Layout"
    )
    assert cycles(package_graph(copy), allowed()) == [
        "pytest_rspbench.oracle.t0.narrowed -> pytest_rspbench.oracle.t0.planning"
        " -> pytest_rspbench.oracle.t0.narrowed"
    ]


def test_a_back_import_between_benchmarks_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "benchmarks"
    shutil.copytree(BENCHMARKS, folder, ignore=shutil.ignore_patterns("results", "__pycache__"))
    add_import(folder / "workloads.py", "def main():\n    from oracle_e2e import main")
    assert cycles(script_graph(folder)) == [
        "benchmarks.oracle_e2e -> benchmarks.workloads -> benchmarks.oracle_e2e"
    ]
