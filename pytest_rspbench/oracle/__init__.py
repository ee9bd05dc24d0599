"""The oracle: what an engine with a given profile must output, on Spark.

Its face is :mod:`.oracle` (``expected_output``, ``OracleRequest``),
:mod:`.r2s` (R2S applied to per-window relations, on the oracle's columns,
as :mod:`pytest_rspbench.rsp.policy` decides), :mod:`.sequenced` (the output
of a query with count or session windows) and :mod:`.borders` (gracious
mode's windows with any borders). What it returns is a value of the model
layer, :class:`pytest_rspbench.rsp.outputs.ExpectedOutput`. Behind the face,
four rooms, each importing only the ones after it (an import-linter contract
in ``pyproject.toml``):

- ``t0/``: windows, evaluations and t0 classes, and the content narrowing;
- ``store/``: streams as Parquet, stored expected outputs, the cache folder;
- ``sparql/``: the SPARQL compiler to Spark DataFrame plans, and its fallback;
- ``spark/``: the Spark runtime (session, JVM, Java, Spark Connect server),
  the only room that starts Spark or talks to its JVM.

Modules that sat directly in ``oracle/`` before the rooms existed are still
importable by their old names for one release (``pytest_rspbench.oracle.java``
is ``pytest_rspbench.oracle.spark.java``), with a ``DeprecationWarning``;
so is one that left the oracle (``pytest_rspbench.oracle.expected`` is
``pytest_rspbench.rsp.outputs``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

MOVED = {
    **{
        name: f"sparql.{name}"
        for name in (
            "aggregates compiler datatypes expressions fallback functions joins literals "
            "modifiers numerics ordering patterns"
        ).split()
    },
    **{
        name: f"t0.{name}"
        for name in (
            "aggregated assignment evaluations factors frames narrowing placing planning "
            "sides solutions spans"
        ).split()
    },
    **{name: f"spark.{name}" for name in "cds cdsbuild cdslock java jvm local server".split()},
    **{name: f"store.{name}" for name in "columns housekeeping streamcache".split()},
}
"""Old module name (directly in ``oracle/``) to its place in a room, kept for one release."""

LEFT = {"expected": "pytest_rspbench.rsp.outputs"}
"""Old module name (directly in ``oracle/``) to the module outside the oracle it
moved to (its values are the verdict's as much as the oracle's), kept for one
release."""


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import an old module name as a stand-in that forwards to the new module."""

    prefix = f"{__name__}."

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        old = fullname.removeprefix(self.prefix)
        if not fullname.startswith(self.prefix) or (old not in MOVED and old not in LEFT):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__.removeprefix(self.prefix)
        new = LEFT[old] if old in LEFT else f"{self.prefix}{MOVED[old]}"
        warnings.warn(
            f"{module.__name__} moved to {new}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        target = importlib.import_module(new)
        module.__getattr__ = lambda name: getattr(target, name)  # type: ignore[method-assign]
        module.__doc__ = f"Moved to :mod:`{new}`."


if not any(isinstance(finder, _Moved) for finder in sys.meta_path):
    sys.meta_path.append(_Moved())
