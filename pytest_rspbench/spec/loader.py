"""Load a spec file: YAML -> schema check -> cross-field checks -> Cases.

Every user mistake becomes a :class:`SpecError` naming ``file:line``; nothing
here lets a Python traceback through.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_rspbench.errors import EngineConfigError, SpecError
from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec import thresholds
from pytest_rspbench.spec.diagnostics import spec_error
from pytest_rspbench.spec.document import parse_document
from pytest_rspbench.spec.judging import (
    check_gracious,
    check_thresholds,
    read_comparison,
    read_known_failures,
    read_mismatch,
    read_sweep,
    read_threshold,
)
from pytest_rspbench.spec.located import Document, Path_
from pytest_rspbench.spec.model import (
    Case,
    Comparison,
    KnownFailure,
    Mismatch,
    Spec,
    StreamDecl,
    Sweep,
    param_text,
)
from pytest_rspbench.spec.queries import read_query
from pytest_rspbench.spec.replay import read_speed, read_timeout
from pytest_rspbench.spec.sources import check_streams, existing_path, read_stream
from pytest_rspbench.spec.validation import validate

EngineCheck = Callable[[str, Path], object]


def load_spec(
    path: Path,
    engines: Sequence[str] | None = None,
    check_engine: EngineCheck | None = None,
) -> Spec:
    """Load and validate ``path``; expand its matrix into cases.

    Args:
        path: the spec file.
        engines: if given, replaces the spec's own engine list
            (``--rspbench-engine``).
        check_engine: called with (engine name, spec folder) for each engine;
            raises EngineConfigError when it cannot be resolved.
    """
    # Absolute, so files the spec names resolve from its folder wherever
    # the caller runs (`rspbench oracle --spec specs/x.rspbench.yaml`).
    path = Path(path).absolute()
    filename = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{filename}:1: cannot read the spec: {exc}", filename, 1) from None
    document = parse_document(text, filename)
    if not isinstance(document.data, dict):
        found = {list: "a list", type(None): "an empty document"}.get(
            type(document.data), "a single value"
        )
        raise spec_error(
            filename,
            document,
            (),
            f"a spec must be a YAML mapping of 'key: value' lines, found {found}.",
            "start from the example in docs/spec-format.md: 'rspbench: 1', 'name:', "
            "'streams:', 'query:' and 'engines:' at the left margin, without '- '.",
            line=document.line_of(()),
        )
    validate(document, filename)
    listed = list(engines or document.data["engines"])
    return _build(document, path, listed, check_engine, overridden=bool(engines))


def _build(
    document: Document,
    path: Path,
    engines: list[str],
    check_engine: EngineCheck | None,
    overridden: bool = False,
) -> Spec:
    data = document.data
    filename = str(path)
    # An engine's one identity (ids, messages, known_failures) is its profile's
    # name when the check can read the profile; else the name or path as given.
    names = {e: _engine_id(e) for e in engines}
    if check_engine is not None:
        for index, engine in enumerate(engines):
            found = _check_engine(engine, path, document, index, check_engine, overridden)
            names[engine] = found if isinstance(found, str) else names[engine]
    matrix: dict[str, list[Any]] = data.get("matrix", {})
    limits = [
        read_threshold(t, i, document, filename) for i, t in enumerate(data.get("thresholds", []))
    ]
    comparison = read_comparison(data.get("comparison", {}), document, filename)
    ids = [names[e] for e in engines]
    check_thresholds(limits, comparison, ids, overridden, document, filename)
    mismatch = read_mismatch(data, limits, ids, document, filename)
    sweep = read_sweep(data, matrix, document, filename)
    known = read_known_failures(data, matrix, document, filename)
    static = tuple(
        existing_path(p, ("static", i), path, document)
        for i, p in enumerate(data.get("static", []))
    )
    shared = _Shared(document, path, static, tuple(limits), comparison, mismatch, sweep, known)
    cases = []
    for values in itertools.product(*matrix.values()):
        params = dict(zip(matrix, values, strict=True))
        query = read_query(data["query"], params, document, filename)
        streams = tuple(
            read_stream(s, i, params, path, document) for i, s in enumerate(data["streams"])
        )
        check_streams(query, streams, document, data["query"], filename)
        check_gracious(query, comparison, document, filename)
        speed = read_speed(data.get("replay", {}), params, document, filename)
        point = _Point(params, query, streams, speed)
        cases += [_case(shared, point, engine, names[engine]) for engine in engines]
    return Spec(data["name"], path, data.get("description", ""), tuple(cases))


@dataclass(frozen=True)
class _Shared:
    """What every case of a spec shares, checked once per spec."""

    document: Document
    path: Path
    static: tuple[Path, ...]
    limits: tuple[thresholds.Threshold, ...]
    comparison: Comparison
    mismatch: Mismatch | None
    sweep: Sweep | None
    known: tuple[KnownFailure, ...]


@dataclass(frozen=True)
class _Point:
    """One combination of matrix values, and what it makes of the spec."""

    params: Mapping[str, Any]
    query: rspql.RspqlQuery
    streams: tuple[StreamDecl, ...]
    speed: float


def _case(shared: _Shared, point: _Point, engine: str, engine_id: str) -> Case:
    """The case of one matrix point with one engine (``engine_id``: its identity)."""
    data = shared.document.data
    ids = [f"{k}={param_text(v)}" for k, v in point.params.items()]
    ids.append(f"engine={engine_id}")
    replay = data.get("replay", {})
    return Case(
        engine_id=engine_id,
        spec_name=data["name"],
        spec_path=shared.path,
        case_id=",".join(ids),
        params=tuple(point.params.items()),
        engine=engine,
        query=point.query,
        streams=point.streams,
        static=shared.static,
        semantics=MappingProxyType(dict(data.get("semantics", {}))),
        speed=point.speed,
        timeout=read_timeout(replay, shared.document, str(shared.path)),
        repeat=int(replay.get("repeat", 1)),
        comparison=shared.comparison,
        thresholds=shared.limits,
        mostly=float(data.get("mostly", 1.0)),
        warmup_windows=int(data.get("warmup_windows", 0)),
        marks=tuple(data.get("marks", [])),
        line=shared.document.key_lines.get(("name",), 1),
        mismatch=shared.mismatch,
        sweep=shared.sweep,
        known_failures=shared.known,
    )


def _engine_id(engine: str) -> str:
    """``reference`` -> ``reference``; ``engines/foo/engine.yaml`` -> ``foo``."""
    if not engine.endswith((".yaml", ".yml")):
        return engine
    profile = Path(engine)
    # Profiles are usually all called engine.yaml: their folder tells them apart.
    return profile.parent.name if profile.stem == "engine" and profile.parent.name else profile.stem


def _check_engine(
    engine: str,
    path: Path,
    document: Document,
    index: int,
    check: EngineCheck,
    overridden: bool,
) -> object:
    try:
        return check(engine, path.parent)
    except (OSError, ValueError) as exc:
        problem, _, hint = str(exc).partition("\nHINT: ")
        if not isinstance(exc, EngineConfigError):  # e.g. a path too long to look at
            problem = f"cannot look up engine {engine!r}: {exc}."
        where: Path_ = ("engines", index)
        profile = getattr(exc, "path", None)
        if profile is not None:
            # The profile's own error already says where: name it here, show it below.
            line = getattr(exc, "line", None)
            problem = f"engine {engine!r} has an invalid profile ({profile}:{line})."
        if overridden:
            # Not the spec's own list: point at it, but say where the name came from.
            problem += " (given with --rspbench-engine)"
            where = ("engines",)
        error = spec_error(
            str(path),
            document,
            where,
            problem,
            hint or "use a registered engine name or a path to an engine.yaml.",
        )
        if profile is not None:
            head, _, tail = str(error).rpartition("\nHINT: ")
            located = str(exc).partition("\nHINT: ")[0]
            error = SpecError(f"{head}\n{located}\nHINT: {tail}", error.path, error.line)
        raise error from None


# -- comparison, mismatch and sweep keys ---------------------------------------
