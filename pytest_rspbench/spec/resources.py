"""Paths in specs: relative to the spec file, or data shipped with the package.

``rspbench-data:csrbench/stream/data_*.ttl`` names files inside the installed
package (``pytest_rspbench/data``), so the bundled specs and engine
repositories can use the benchmarks' data without copying it.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DATA = "rspbench-data:"


def data_dir() -> Path:
    """The folder holding the data shipped with pytest-rspbench."""
    return Path(__file__).resolve().parent.parent / "data"


def resolve_path(value: str, base_dir: Path) -> Path:
    """Resolve a spec path.

    >>> resolve_path("x.ttl", Path("/specs"))
    PosixPath('/specs/x.ttl')
    """
    if value.startswith(PACKAGE_DATA):
        return data_dir() / value[len(PACKAGE_DATA) :]
    path = Path(value).expanduser()
    return path if path.is_absolute() else base_dir / path
