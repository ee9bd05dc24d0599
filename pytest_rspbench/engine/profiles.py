"""Engine profiles (``engine.yaml``): how to run an engine and its semantics.

Engines are found by name through the ``rspbench.engines`` entry-point group
(an engine repository ships its own: ``myengine = "mypkg:engine_profile"``,
a callable returning the path of its engine.yaml), or by a path to an
engine.yaml. The core never imports an engine by name.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Engine, Semantics
from pytest_rspbench.errors import EngineConfigError, SpecError

GROUP = "rspbench.engines"


@dataclass(frozen=True)
class EngineProfile:
    """A validated engine.yaml."""

    name: str
    description: str
    adapter: str
    semantics: Semantics
    path: Path

    def with_semantics(self, overrides: Mapping[str, Any]) -> EngineProfile:
        """The same profile with some semantics fields replaced (spec ``semantics:``)."""
        if not overrides:
            return self
        return replace(self, semantics=replace(self.semantics, **_semantics_kwargs(overrides)))

    def create(self) -> Engine:
        """Instantiate the engine's in-process adapter."""
        module_name, _, attr = self.adapter.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise EngineConfigError(
                f"{self.path}: cannot load adapter {self.adapter!r} of engine "
                f"{self.name!r}: {exc}\nHINT: install the package that provides it."
            ) from None
        return factory()  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=1)
def registered() -> dict[str, Any]:
    """Engines registered through the ``rspbench.engines`` entry points."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP)}


def locate(name: str, base_dir: Path) -> Path:
    """The engine.yaml for an engine name or path; EngineConfigError if none."""
    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        if not path.is_file():
            raise EngineConfigError(
                f"engine profile {name!r} not found (looked at {path})."
                "\nHINT: paths to engine.yaml are relative to the spec's folder."
            )
        return path
    engines = registered()
    if name not in engines:
        known = ", ".join(sorted(engines)) or "none"
        raise EngineConfigError(
            f"unknown engine {name!r} (registered: {known})."
            "\nHINT: use a registered engine name or a path to an engine.yaml."
        )
    try:
        target = engines[name].load()
        return Path(target() if callable(target) else target)
    except Exception as exc:  # an engine package is third-party code
        raise EngineConfigError(
            f"engine {name!r}: its entry point {engines[name].value!r} failed: {exc!r}"
        ) from None


@functools.lru_cache(maxsize=64)
def load_profile(path: Path) -> EngineProfile:
    """Read and validate an engine.yaml."""
    from pytest_rspbench.spec.document import parse_document
    from pytest_rspbench.spec.validation import ENGINE_SCHEMA, validate

    try:
        text = path.read_text(encoding="utf-8")
        document = parse_document(text, str(path))
        validate(document, str(path), ENGINE_SCHEMA)
    except SpecError as exc:
        raise EngineConfigError(str(exc)) from None
    except OSError as exc:
        raise EngineConfigError(f"{path}: cannot read engine profile: {exc}") from None
    data = document.data
    return EngineProfile(
        name=data["name"],
        description=data.get("description", ""),
        adapter=data["adapter"]["python"],
        semantics=Semantics(**_semantics_kwargs(data["semantics"])),
        path=path,
    )


def resolve(name: str, base_dir: Path) -> EngineProfile:
    """Locate and load an engine profile by name or path."""
    return load_profile(locate(name, base_dir).resolve())


def _semantics_kwargs(raw: Mapping[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(Semantics)}
    out = {k: v for k, v in raw.items() if k in known}
    for key in ("report", "r2s"):
        if key in out:
            out[key] = tuple(out[key])
    return out
