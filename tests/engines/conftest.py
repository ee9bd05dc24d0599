"""Make the in-repo engines importable when the project is not pip-installed.

``pyproject.toml`` installs the ``engines/`` folder as ``rspbench_engines``;
in a bare checkout that name does not exist yet, so map it here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ensure_importable() -> None:
    if importlib.util.find_spec("pytest_rspbench") is None:
        sys.path.insert(0, str(ROOT))
    if importlib.util.find_spec("rspbench_engines") is None:
        spec = importlib.util.spec_from_file_location(
            "rspbench_engines",
            ROOT / "engines" / "__init__.py",
            submodule_search_locations=[str(ROOT / "engines")],
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["rspbench_engines"] = module
        spec.loader.exec_module(module)


_ensure_importable()
