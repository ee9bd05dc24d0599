"""Named suites of specs: ``pytest --rspbench-suite conformance``.

A suite is a folder of spec files shipped in a Python package. The bundled
``conformance`` suite is the repository's ``specs/`` folder, installed as the
package ``rspbench_specs``; other packages can register their own suites
under the ``rspbench.suites`` entry-point group (``name = "package"``, the
package's folder holds the specs). ``NAME/PART`` selects a subfolder or a
file of a suite, e.g. ``conformance/rspql``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from pathlib import Path

BUILTIN = {"conformance": "rspbench_specs"}


class SuiteError(Exception):
    """A suite name or part that does not exist (a usage error)."""


def available() -> dict[str, str]:
    """Suite name -> the package that holds its specs."""
    from importlib.metadata import entry_points

    suites = dict(BUILTIN)
    for entry in entry_points(group="rspbench.suites"):
        suites.setdefault(entry.name, entry.value)
    return suites


def folder(package: str) -> Path | None:
    """The folder of ``package``, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None


def paths(names: Iterable[str]) -> list[Path]:
    """The folders (or files) to collect for ``--rspbench-suite`` values.

    Raises:
        SuiteError: an unknown suite, a package that is not installed, or a
            part that is not in the suite.
    """
    suites = available()
    out = []
    for value in names:
        name, _, part = value.partition("/")
        if name not in suites:
            known = ", ".join(sorted(suites))
            raise SuiteError(
                f"--rspbench-suite {value}: no suite named {name!r} (available: {known})."
            )
        root = folder(suites[name])
        if root is None:
            raise SuiteError(
                f"--rspbench-suite {value}: the package {suites[name]!r} that holds it "
                "is not installed.\nHINT: reinstall pytest-rspbench (pip install pytest-rspbench)."
            )
        target = root / part if part else root
        if not target.exists():
            parts = sorted(
                p.name
                for p in root.iterdir()
                if not p.name.startswith(("_", ".")) and p.name != "data"
            )
            raise SuiteError(
                f"--rspbench-suite {value}: {part!r} is not part of the suite "
                f"(its parts: {', '.join(parts)})."
            )
        out.append(target)
    return out
