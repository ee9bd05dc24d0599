"""Load a spec file: YAML -> schema check -> cross-field checks -> Cases.

Every user mistake becomes a :class:`SpecError` naming ``file:line``; nothing
here lets a Python traceback through.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_rspbench import rspql, thresholds
from pytest_rspbench.errors import EngineConfigError, SpecError
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.document import Document, parse_document
from pytest_rspbench.spec.model import Case, Comparison, Spec, StreamDecl
from pytest_rspbench.spec.validation import validate

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_]\w*)\}")
_LITERAL_BLOCK = re.compile(r"\|[-+0-9]*\s*(#.*)?$")
_WINDOW_DECL = re.compile(r"FROM\s+NAMED\s+WINDOW\b", re.IGNORECASE)
DEFAULT_TIMEOUT = 300.0
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
    filename = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{filename}:1: cannot read the spec: {exc}", filename, 1) from None
    document = parse_document(text, filename)
    if not isinstance(document.data, dict):
        raise spec_error(
            filename, document, (), "a spec must be a YAML mapping of keys.",
            "start from the example in docs/spec-format.md", line=1,
        )
    validate(document, filename)
    return _build(document, path, list(engines or document.data["engines"]), check_engine)


def _build(
    document: Document, path: Path, engines: list[str], check_engine: EngineCheck | None
) -> Spec:
    data = document.data
    filename = str(path)
    if check_engine is not None:
        for index, engine in enumerate(engines):
            _check_engine(engine, path, document, index, check_engine)
    matrix: dict[str, list[Any]] = data.get("matrix", {})
    limits = [_threshold(t, i, document, filename) for i, t in enumerate(data.get("thresholds", []))]
    static = tuple(_existing(p, ("static", i), path, document) for i, p in enumerate(data.get("static", [])))
    cases = []
    for values in itertools.product(*matrix.values()):
        params = dict(zip(matrix, values, strict=True))
        query = _query(data["query"], params, document, filename)
        streams = tuple(_stream(s, i, params, path, document) for i, s in enumerate(data["streams"]))
        _check_streams(query, streams, document, data["query"], filename)
        for engine in engines:
            cases.append(_case(data, path, params, engine, query, streams, static, limits, document))
    return Spec(data["name"], path, data.get("description", ""), tuple(cases))


def _case(data, path, params, engine, query, streams, static, limits, document) -> Case:  # type: ignore[no-untyped-def]
    ids = [f"{k}={v}" for k, v in params.items()] + [f"engine={Path(engine).stem if engine.endswith('.yaml') else engine}"]
    replay = data.get("replay", {})
    return Case(
        spec_name=data["name"],
        spec_path=path,
        case_id=",".join(ids),
        params=tuple(params.items()),
        engine=engine,
        query=query,
        streams=streams,
        static=static,
        semantics=MappingProxyType(dict(data.get("semantics", {}))),
        speed=float(replay.get("speed", 0)),
        timeout=float(replay.get("timeout", DEFAULT_TIMEOUT)),
        comparison=Comparison(**data.get("comparison", {})),
        thresholds=tuple(limits),
        mostly=float(data.get("mostly", 1.0)),
        warmup_windows=int(data.get("warmup_windows", 0)),
        marks=tuple(data.get("marks", [])),
        line=document.key_lines.get(("name",), 1),
    )


def _query(template: str, params: Mapping[str, Any], document: Document, filename: str) -> rspql.RspqlQuery:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            line = _query_line(document, template.count("\n", 0, match.start()) + 1, template)
            raise spec_error(
                filename, document, ("query",),
                f"placeholder ${{{name}}} has no value in the matrix.",
                f"add '{name}: [...]' under 'matrix:'" + (f", or fix the name (matrix has: {', '.join(params)}).{did_you_mean(name, params)}" if params else "."),
                line=line,
            )
        return str(params[name])

    text = _PLACEHOLDER.sub(replace, template)
    try:
        query = rspql.parse(text)
    except rspql.QuerySyntaxError as exc:
        raise spec_error(
            filename, document, ("query",), f"invalid RSP-QL query: {exc}",
            exc.hint or "see docs/spec-format.md#query",
            line=_query_line(document, exc.line, template),
        ) from None
    except OverflowError:  # a duration such as PT1e400S
        raise spec_error(
            filename, document, ("query",), "a RANGE or STEP in the query is too large.",
            "write the duration in milliseconds, e.g. RANGE 10000.",
        ) from None
    _check_window_sizes(query, template, document, filename)
    return query


def _check_window_sizes(query: rspql.RspqlQuery, template: str, document: Document, filename: str) -> None:
    # RSP-QL Def. 13: width and slide are positive; zero would never advance.
    for index, window in enumerate(query.windows):
        if window.width <= 0 or window.slide <= 0:
            raise spec_error(
                filename, document, ("query",),
                f"window <{window.name}> has RANGE {window.width} STEP {window.slide}; "
                "both must be positive.",
                "give RANGE and STEP in milliseconds above 0 (or as durations such as PT10S).",
                line=_query_line(document, _decl_line(template, index), template),
            )


def _decl_line(template: str, index: int) -> int:
    """The query line of the ``index``-th FROM NAMED WINDOW (1 if not found)."""
    found = list(_WINDOW_DECL.finditer(template))
    return template.count("\n", 0, found[index].start()) + 1 if index < len(found) else 1


def _query_line(document: Document, query_line: int, template: str) -> int:
    """Map a line inside the query text to a line of the YAML file."""
    start = document.lines.get(("query",), 1)
    yaml_lines = document.text.splitlines()
    header = yaml_lines[start - 1] if start <= len(yaml_lines) else ""
    if _LITERAL_BLOCK.search(header):  # 'query: |': query line n is YAML line start + n
        return start + query_line
    # Folded, quoted or plain: find the YAML line that starts the query line's text.
    wanted = template.splitlines()[query_line - 1].strip() if query_line <= len(template.splitlines()) else ""
    for number in range(start, min(len(yaml_lines), start + template.count("\n") + 50) + 1):
        text = yaml_lines[number - 1].strip()
        if number == start:
            text = text.partition(":")[2].strip().lstrip("\"'>|-+ ")
        if wanted and text and wanted.startswith(text[:40]):
            return number
    return start


def _stream(raw: Mapping[str, Any], index: int, params: Mapping[str, Any], path: Path, document: Document) -> StreamDecl:
    source = {k: _substitute(v, params) for k, v in raw["source"].items()}
    if source["kind"] in ("files", "lines"):
        where = ("streams", index, "source", "path")
        if not isinstance(source["path"], str):
            raise spec_error(
                str(path), document, where,
                f"the path became {source['path']!r} after the matrix was applied; "
                "a path must be a string.",
                "use string values in the matrix for this placeholder, or write the path.",
            )
        _existing(source["path"], where, path, document, glob=True)
    return StreamDecl(raw["iri"], MappingProxyType(source), raw.get("start", 0), raw.get("end"))


def _substitute(value: Any, params: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole and whole.group(1) in params:
            return params[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), value)
    return value


def _check_streams(query: rspql.RspqlQuery, streams: tuple[StreamDecl, ...], document: Document, template: str, filename: str) -> None:
    declared = [s.iri for s in streams]
    for index, window in enumerate(query.windows):
        if window.stream not in declared:
            raise spec_error(
                filename, document, ("query",),
                f"window <{window.name}> reads stream <{window.stream}>, which is not under 'streams:'.",
                "declare it with '- iri: " + window.stream + "' under streams:, or fix the IRI; "
                "declared: " + ", ".join(f"<{d}>" for d in declared) + "." + did_you_mean(window.stream, declared),
                line=_query_line(document, _decl_line(template, index), template),
            )


def _threshold(text: str, index: int, document: Document, filename: str) -> thresholds.Threshold:
    try:
        return thresholds.parse(text)
    except thresholds.ThresholdSyntaxError as exc:
        raise spec_error(filename, document, ("thresholds", index), str(exc) + ".", exc.hint) from None


def _existing(value: str, where: tuple, path: Path, document: Document, glob: bool = False) -> Path:  # type: ignore[type-arg]
    from pytest_rspbench.resources import resolve_path

    resolved = resolve_path(value, path.parent)
    try:
        found = any(resolved.parent.glob(resolved.name)) if glob else resolved.is_file()
    except (OSError, ValueError):  # an empty pattern, a NUL byte, a name too long
        found = False
    if not found:
        raise spec_error(
            str(path), document, where,
            f"{value!r} matches no file (resolved to {resolved}).",
            "paths are relative to the spec file's folder; "
            "'rspbench-data:' names data shipped with pytest-rspbench.",
        )
    return resolved


def _check_engine(engine: str, path: Path, document: Document, index: int, check: EngineCheck) -> None:
    try:
        check(engine, path.parent)
    except EngineConfigError as exc:
        raise spec_error(
            str(path), document, ("engines", index), str(exc).split("\nHINT:")[0],
            str(exc).split("HINT: ")[-1] if "HINT:" in str(exc) else "run 'rspbench engines' to list them.",
        ) from None
