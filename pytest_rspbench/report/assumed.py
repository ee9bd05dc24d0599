"""What a run assumed, as its results file records it.

Two runs can be compared honestly only when each says what it was judged
against: the engine's profile as its ``engine.yaml`` declares it and as the
spec pins parts of it (``semantics:``), the suite of specs (its name, its
version and a digest of the spec files that ran) and the plugin's version
(the results file's ``tool``). :func:`profile_record` is an item's
``profile``; :func:`suite_record` is the document's ``suite``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.profiles import EngineProfile, resolve
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.spec.model import Case


def semantics_record(semantics: Semantics) -> dict[str, Any]:
    """A profile's semantics, JSON-ready (bounds as their label)."""
    return semantics.__dict__ | {
        "bounds": str(semantics.bounds),
        "report": list(semantics.report),
        "r2s": list(semantics.r2s),
    }


def profile_record(case: Case, profile: EngineProfile | None = None) -> dict[str, Any]:
    """The engine as the case assumed it: who it is, its semantics as its
    ``engine.yaml`` declares them (``declared``) and what the spec pins
    (``pinned``, the spec's ``semantics:``; the item's ``semantics`` is the
    two merged). ``profile`` is the declared one when known; otherwise it is
    resolved from the case, and an engine that cannot be resolved (the item
    then errors and says why) has only its name and the pinned part."""
    pinned = {k: _plain(v) for k, v in sorted(case.semantics.items())}
    if profile is None:
        try:
            profile = resolve(case.engine, case.base_dir)
        except RspbenchError:
            return {"name": case.engine, "declared": None, "pinned": pinned}
    return {
        "name": profile.name,
        "description": profile.description,
        "adapter": profile.adapter,
        "version": profile.version or None,
        "homepage": profile.homepage or None,
        "declared": semantics_record(profile.semantics),
        "pinned": pinned,
    }


def suite_record(spec_paths: Iterable[str | Path]) -> dict[str, Any]:
    """The suite the specs belong to: its name and version when they are all
    in one registered suite (``--rspbench-suite``; the bundled ``conformance``
    suite is the repository's ``specs/``), the number of spec files and a
    SHA-256 digest over their paths (relative to the suite's folder) and
    contents, which changes with any edit to a spec that ran.

    >>> suite_record([])
    {'name': None, 'version': None, 'specs': 0, 'digest': None}
    """
    files = sorted({Path(p).resolve() for p in spec_paths if p})
    name, root = _suite_of(files)
    version = _version(name) if name else None
    digest = hashlib.sha256()
    for path in files:
        shown = path.relative_to(root) if root else Path(path.name)
        digest.update(shown.as_posix().encode() + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:  # moved since the run: its name still counts
            digest.update(b"?")
    return {
        "name": name,
        "version": version,
        "specs": len(files),
        "digest": f"sha256:{digest.hexdigest()}" if files else None,
    }


def _suite_of(files: list[Path]) -> tuple[str | None, Path | None]:
    """The registered suite holding every file, and its folder."""
    if not files:
        return None, None
    from pytest_rspbench.spec.suites import available, folder

    for name, package in sorted(available().items()):
        root = folder(package)
        if root is not None and all(f.is_relative_to(root.resolve()) for f in files):
            return name, root.resolve()
    return None, None


def _version(suite: str) -> str | None:
    """The version of the distribution that ships the suite's package."""
    from importlib import metadata

    from pytest_rspbench.spec.suites import available

    package = available().get(suite, "")
    for dist in metadata.packages_distributions().get(package.split(".")[0], ()):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def _plain(value: Any) -> Any:
    """A pinned value as JSON holds it (tuples as lists)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
