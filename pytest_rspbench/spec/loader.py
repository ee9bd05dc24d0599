"""Load a spec file: YAML -> schema check -> cross-field checks -> Cases.

Every user mistake becomes a :class:`SpecError` naming ``file:line``; nothing
here lets a Python traceback through.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_rspbench.errors import EngineConfigError, SpecError, StreamError
from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec import thresholds
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.document import Document, Path_, parse_document
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
from pytest_rspbench.spec.validation import validate
from pytest_rspbench.stream.parameters import MAX_TIME, ParameterError
from pytest_rspbench.stream.workloads import Disorder

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_]\w*)\}")
_LITERAL_BLOCK = re.compile(r"\|[-+0-9]*\s*(#.*)?$")
_WINDOW_DECL = re.compile(r"FROM\s+NAMED\s+WINDOW\b", re.IGNORECASE)
DEFAULT_TIMEOUT = 300.0
MAX_TIMEOUT = 7 * 24 * 3600.0
"""The longest ``replay.timeout``, seconds (a week)."""
MAX_SPEED = 1_000_000.0
"""The highest ``replay.speed``: a million times faster than real time."""
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
        _threshold(t, i, document, filename) for i, t in enumerate(data.get("thresholds", []))
    ]
    comparison = _comparison(data.get("comparison", {}), document, filename)
    ids = [names[e] for e in engines]
    _check_thresholds(limits, comparison, ids, overridden, document, filename)
    mismatch = _mismatch(data, limits, ids, document, filename)
    sweep = _sweep(data, matrix, document, filename)
    known = _known_failures(data, matrix, document, filename)
    static = tuple(
        _existing(p, ("static", i), path, document) for i, p in enumerate(data.get("static", []))
    )
    cases = []
    for values in itertools.product(*matrix.values()):
        params = dict(zip(matrix, values, strict=True))
        query = _query(data["query"], params, document, filename)
        streams = tuple(
            _stream(s, i, params, path, document) for i, s in enumerate(data["streams"])
        )
        _check_streams(query, streams, document, data["query"], filename)
        _check_gracious(query, comparison, document, filename)
        speed = _speed(data.get("replay", {}), params, document, filename)
        for engine in engines:
            case = _case(
                data,
                path,
                params,
                engine,
                query,
                streams,
                static,
                limits,
                document,
                engine_id=names[engine],
            )
            cases.append(
                replace(
                    case,
                    comparison=comparison,
                    speed=speed,
                    mismatch=mismatch,
                    sweep=sweep,
                    known_failures=known,
                )
            )
    return Spec(data["name"], path, data.get("description", ""), tuple(cases))


def _case(data, path, params, engine, query, streams, static, limits, document, engine_id) -> Case:
    ids = [f"{k}={_text(v)}" for k, v in params.items()]
    ids.append(f"engine={engine_id}")
    replay = data.get("replay", {})
    return Case(
        engine_id=engine_id,
        spec_name=data["name"],
        spec_path=path,
        case_id=",".join(ids),
        params=tuple(params.items()),
        engine=engine,
        query=query,
        streams=streams,
        static=static,
        semantics=MappingProxyType(dict(data.get("semantics", {}))),
        speed=0.0,
        timeout=_timeout(replay, document, str(path)),
        repeat=int(replay.get("repeat", 1)),
        comparison=Comparison(),
        thresholds=tuple(limits),
        mostly=float(data.get("mostly", 1.0)),
        warmup_windows=int(data.get("warmup_windows", 0)),
        marks=tuple(data.get("marks", [])),
        line=document.key_lines.get(("name",), 1),
    )


def _engine_id(engine: str) -> str:
    """``reference`` -> ``reference``; ``engines/foo/engine.yaml`` -> ``foo``."""
    if not engine.endswith((".yaml", ".yml")):
        return engine
    profile = Path(engine)
    # Profiles are usually all called engine.yaml: their folder tells them apart.
    return profile.parent.name if profile.stem == "engine" and profile.parent.name else profile.stem


def _query(
    template: str, params: Mapping[str, Any], document: Document, filename: str
) -> rspql.RspqlQuery:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            line = _query_line(
                document,
                template.count("\n", 0, match.start()) + 1,
                template,
                match.group(0),
            )
            raise spec_error(
                filename,
                document,
                ("query",),
                f"placeholder ${{{name}}} has no value in the matrix.",
                f"add '{name}: [...]' under 'matrix:'"
                + (
                    f", or fix the name (matrix has: {', '.join(params)})."
                    + did_you_mean(name, params)
                    if params
                    else "."
                ),
                line=line,
            )
        return _text(params[name])

    text = _PLACEHOLDER.sub(replace, template)
    try:
        query = rspql.parse(text)
    except rspql.QuerySyntaxError as exc:
        raise spec_error(
            filename,
            document,
            ("query",),
            f"invalid RSP-QL query: {exc}",
            exc.hint or "see docs/spec-format.md#query",
            line=_query_line(document, exc.line, template),
        ) from None
    except (OverflowError, ValueError) as exc:  # e.g. RANGE PT1000...000S or RANGE ²
        raise spec_error(
            filename,
            document,
            ("query",),
            f"cannot read the query: {exc}.",
            "RANGE and STEP take milliseconds written with the digits 0-9 "
            "(RANGE 10000) or ISO 8601 durations (PT10S).",
        ) from None
    _check_window_sizes(query, template, document, filename)
    problem = _sparql_problem(query)
    if problem is not None:
        line = _query_line(document, problem.line, template)
        raise spec_error(
            filename,
            document,
            ("query",),
            f"{problem}.",
            problem.hint,
            line=line,
            column=_query_column(document, line, template, problem, params),
        )
    return query


@functools.lru_cache(maxsize=256)
def _sparql_problem(query: rspql.RspqlQuery) -> rspql.QuerySyntaxError | None:
    """The query's SPARQL error, if any (cached: a matrix repeats the query)."""
    try:
        rspql.check_sparql(query)
    except rspql.QuerySyntaxError as exc:
        return exc
    return None


def _query_column(
    document: Document,
    line: int,
    template: str,
    problem: rspql.QuerySyntaxError,
    params: Mapping[str, Any],
) -> int | None:
    """The YAML column of ``problem.column`` of the query, None if unsure.

    The query line is found in the YAML line (after a block's indentation);
    placeholders before the column are mapped back to where they are written.
    """
    lines = template.splitlines()
    if problem.column is None or not 0 < problem.line <= len(lines):
        return None
    written = lines[problem.line - 1]
    column = problem.column
    for match in _PLACEHOLDER.finditer(written):  # substituted text -> template
        value = _text(params.get(match.group(1), match.group(0)))
        if column - 1 < match.start():
            break
        if column - 1 < match.start() + len(value):
            column = match.start() + 1
            break
        column -= len(value) - len(match.group(0))
    yaml_line = document.text.splitlines()[line - 1]
    stripped = written.lstrip()
    start = yaml_line.find(stripped) if stripped else -1
    if start < 0:
        return None
    return start + max(column - (len(written) - len(stripped)), 1)


def _check_window_sizes(
    query: rspql.RspqlQuery, template: str, document: Document, filename: str
) -> None:
    # RSP-QL Def. 13: width and slide are positive; zero would never advance.
    for index, window in enumerate(query.windows):
        if not (0 < window.width <= MAX_TIME and 0 < window.slide <= MAX_TIME):
            raise spec_error(
                filename,
                document,
                ("query",),
                f"window <{window.name}> has RANGE {window.width} STEP {window.slide}; "
                f"both must be from 1 to {MAX_TIME:,} ms.",
                "give RANGE and STEP in milliseconds above 0 (or as durations such as PT10S).",
                line=_query_line(document, _decl_line(template, index), template),
            )


def _decl_line(template: str, index: int) -> int:
    """The query line of the ``index``-th FROM NAMED WINDOW (1 if not found)."""
    found = list(_WINDOW_DECL.finditer(template))
    return template.count("\n", 0, found[index].start()) + 1 if index < len(found) else 1


def _query_line(document: Document, query_line: int, template: str, needle: str = "") -> int:
    """Map a line inside the query text to a line of the YAML file.

    In a literal block (``query: |``) query line n is YAML line start + n.
    Folded, quoted and plain scalars join lines, so there the YAML line holding
    ``needle`` (or else the start of the query line's text) is searched for.
    """
    start = document.lines.get(("query",), 1)
    yaml_lines = document.text.splitlines()
    header = yaml_lines[start - 1] if start <= len(yaml_lines) else ""
    if _LITERAL_BLOCK.search(header):
        return start + query_line
    lines = template.splitlines()
    wanted = lines[query_line - 1].strip() if 0 < query_line <= len(lines) else ""
    for number in range(start, len(yaml_lines) + 1):
        text = yaml_lines[number - 1].strip()
        if number == start:
            text = text.partition(":")[2].strip().lstrip("\"'>|-+ ")
        if (needle and needle in text) or (
            not needle and wanted and text and wanted.startswith(text[:40])
        ):
            return number
    return start


def _stream(
    raw: Mapping[str, Any],
    index: int,
    params: Mapping[str, Any],
    path: Path,
    document: Document,
) -> StreamDecl:
    for key, value in raw["source"].items():
        text = value if isinstance(value, str) else ""
        missing = [m for m in _PLACEHOLDER.findall(text) if m not in params]
        if missing:
            raise spec_error(
                str(path),
                document,
                ("streams", index, "source", key),
                f"placeholder ${{{missing[0]}}} has no value in the matrix.",
                f"add '{missing[0]}: [...]' under 'matrix:', or fix the name."
                + did_you_mean(missing[0], params),
            )
    source = {k: _substitute(v, params) for k, v in raw["source"].items()}
    if source["kind"] in ("files", "lines"):
        where = ("streams", index, "source", "path")
        if not isinstance(source["path"], str):
            raise spec_error(
                str(path),
                document,
                where,
                f"the path became {source['path']!r} after the matrix was applied; "
                "a path must be a string.",
                "use string values in the matrix for this placeholder, or write the path.",
            )
        _existing(source["path"], where, path, document, glob=True)
    start, end = _span(raw, ("streams", index), document, str(path))
    _check_source(raw, source, index, path, document)
    return StreamDecl(
        raw["iri"],
        MappingProxyType(source),
        start,
        end,
        _disorder(raw.get("disorder"), ("streams", index, "disorder"), document, str(path)),
    )


def _span(
    raw: Mapping[str, Any], where: Path_, document: Document, filename: str
) -> tuple[int, int | None]:
    """A stream's ``start`` and ``end`` (ms): whole numbers in range, in order."""
    start, end = raw.get("start", 0), raw.get("end")
    for key, value in (("start", start), ("end", end)):
        if value is not None and (type(value) is not int or not -MAX_TIME <= value <= MAX_TIME):
            raise spec_error(
                filename,
                document,
                (*where, key),
                f"{key} must be a whole number of ms from {-MAX_TIME:,} to "
                f"{MAX_TIME:,}, got {_short(value)}.",
                "write the time in milliseconds, e.g. 0 or 1714557600000.",
            )
    if end is not None and end < start:
        raise spec_error(
            filename,
            document,
            (*where, "end"),
            f"the stream ends at {end} ms, before it starts at {start} ms.",
            "make end at least start, or remove end to use the source's own end.",
        )
    return start, end


def _check_source(
    raw: Mapping[str, Any],
    source: Mapping[str, Any],
    index: int,
    path: Path,
    document: Document,
) -> None:
    """Open the stream as the run will (without reading it): every setting and
    generator parameter is checked now, not when the engine runs."""
    from pytest_rspbench.spec.resources import resolve_path
    from pytest_rspbench.stream.sources import open_source

    config = dict(source)
    where: Path_ = ("streams", index, "source")
    try:
        if isinstance(config.get("path"), str):
            config["path"] = str(resolve_path(config["path"], path.parent))
        open_source(config, path.parent, raw["iri"])
    except StreamError as exc:
        problem, _, hint = str(exc).partition("\nHINT: ")
        if isinstance(exc, ParameterError):
            problem, hint = exc.problem, exc.hint
            written = raw["source"].get(exc.parameter)
            if isinstance(written, str) and _PLACEHOLDER.fullmatch(written):
                value = _short(source.get(exc.parameter))
                problem = f"{problem.rstrip('.')} ({exc.parameter}: {written} is {value} "
                problem += "from the matrix)."
            where = (*where, exc.parameter)
        else:
            problem = problem.removeprefix(f"stream {raw['iri']}: ")
        raise spec_error(
            str(path),
            document,
            where,
            problem,
            hint or "see 'streams' in docs/spec-format.md.",
        ) from None
    except (OSError, ValueError, RuntimeError) as exc:  # a path the OS refuses
        raise spec_error(
            str(path),
            document,
            where,
            f"cannot open the stream: {exc}.",
            "check the path and the source's settings.",
        ) from None


def _disorder(
    raw: Mapping[str, Any] | None, where: Path_, document: Document, filename: str
) -> Disorder | None:
    """A stream's ``disorder:`` (late and duplicated deliveries), checked."""
    if raw is None:
        return None
    delay = _duration(raw["max_delay"], (*where, "max_delay"), document, filename)
    try:
        return Disorder(raw.get("late", 0.0), delay, raw.get("duplicates", 0.0), raw.get("seed", 0))
    except ParameterError as exc:
        raise spec_error(
            filename, document, (*where, exc.parameter), exc.problem, exc.hint
        ) from None


def _substitute(value: Any, params: Mapping[str, Any]) -> Any:
    """Fill in placeholders; a value that is only ``${x}`` keeps x's type."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole:
            return params[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: _text(params[m.group(1)]), value)
    return value


_text = param_text


def _check_streams(
    query: rspql.RspqlQuery,
    streams: tuple[StreamDecl, ...],
    document: Document,
    template: str,
    filename: str,
) -> None:
    declared = [s.iri for s in streams]
    for index, window in enumerate(query.windows):
        if window.stream not in declared:
            raise spec_error(
                filename,
                document,
                ("query",),
                f"window <{window.name}> reads stream <{window.stream}>, "
                "which is not under 'streams:'.",
                "declare it with '- iri: " + window.stream + "' under streams:, or fix the IRI; "
                "declared: "
                + ", ".join(f"<{d}>" for d in declared)
                + "."
                + did_you_mean(window.stream, declared),
                line=_query_line(document, _decl_line(template, index), template),
            )


def _threshold(text: str, index: int, document: Document, filename: str) -> thresholds.Threshold:
    try:
        return thresholds.parse(text)
    except thresholds.ThresholdSyntaxError as exc:
        raise spec_error(
            filename, document, ("thresholds", index), str(exc) + ".", exc.hint
        ) from None


def _existing(value: str, where: Path_, path: Path, document: Document, glob: bool = False) -> Path:
    from pytest_rspbench.spec.resources import resolve_path

    resolved = Path(value)
    try:
        resolved = resolve_path(value, path.parent)
        found = any(resolved.parent.glob(resolved.name)) if glob else resolved.is_file()
    except (OSError, ValueError, RuntimeError):
        # An empty pattern, a NUL byte, a name too long, '~user' with no home.
        found = False
    if not found:
        raise spec_error(
            str(path),
            document,
            where,
            f"{value!r} {'matches no file' if glob else 'is not a file'} (resolved to {resolved}).",
            "paths are relative to the spec file's folder; "
            "'rspbench-data:' names data shipped with pytest-rspbench.",
        )
    return resolved


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


def _comparison(raw: Mapping[str, Any], document: Document, filename: str) -> Comparison:
    where = ("comparison",)
    gracious = raw.get("gracious")
    shift = None
    if gracious is not None:
        shift = _duration(
            gracious["max_shift"], (*where, "gracious", "max_shift"), document, filename
        )
    tolerance = raw.get("arrival_tolerance")
    return Comparison(
        mode=raw.get("mode", "strict"),
        literal_equality=raw.get("literal_equality", "term"),
        tolerance=float(raw.get("tolerance", 0.0)),
        alignment=raw.get("alignment", "auto"),
        arrival_tolerance=None
        if tolerance is None
        else _duration(tolerance, (*where, "arrival_tolerance"), document, filename),
        gracious_shift=shift,
    )


def _duration(value: Any, where: Path_, document: Document, filename: str) -> int:
    """Milliseconds from ``2000``, ``2000ms``, ``2s`` or ``PT2S``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return rspql.duration_ms(str(value).strip())
    except (rspql.QuerySyntaxError, OverflowError, ValueError):
        raise spec_error(
            filename,
            document,
            where,
            f"cannot read {value!r} as a duration.",
            "write milliseconds (2000), a number with a unit (2000ms, 2s) "
            "or an ISO 8601 duration (PT2S).",
        ) from None


def _speed(
    replay: Mapping[str, Any],
    params: Mapping[str, Any],
    document: Document,
    filename: str,
) -> float:
    value = replay.get("speed", 0)
    where = ("replay", "speed")
    if not isinstance(value, str):
        return _check_speed(value, str(value), document, filename)
    whole = _PLACEHOLDER.fullmatch(value.strip())
    if whole is None or whole.group(1) not in params:
        name = whole.group(1) if whole else None
        raise spec_error(
            filename,
            document,
            where,
            f"replay speed {value!r} is neither a number nor a placeholder of a matrix parameter.",
            "write a number (0: as fast as possible, 1: real time) or '${speed}' "
            "with 'speed: [1, 2, 4]' under 'matrix:'."
            + (did_you_mean(name, params) if name else ""),
        )
    return _check_speed(params[whole.group(1)], value, document, filename)


def _check_speed(speed: Any, written: str, document: Document, filename: str) -> float:
    if (
        isinstance(speed, bool)
        or not isinstance(speed, (int, float))
        or not 0 <= speed <= MAX_SPEED  # also false for .nan
    ):
        became = "" if written == str(speed) else f" (from {written})"
        number = isinstance(speed, (int, float)) and not isinstance(speed, bool)
        raise spec_error(
            filename,
            document,
            ("replay", "speed"),
            f"replay speed {_short(speed)}{became} is "
            f"{'out of range' if number else 'not a number'}; a speed is a "
            f"number from 0 to {MAX_SPEED:,.0f}.",
            "write 0 (as fast as possible), 1 (real time) or a speed-up such as 10"
            + (
                f"; list such numbers under 'matrix: {written[2:-1]}:'."
                if written.startswith("${")
                else "."
            ),
        )
    return float(speed)


def _timeout(replay: Mapping[str, Any], document: Document, filename: str) -> float:
    value = replay.get("timeout", DEFAULT_TIMEOUT)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 < value <= MAX_TIMEOUT  # also false for .nan
    ):
        raise spec_error(
            filename,
            document,
            ("replay", "timeout"),
            f"replay timeout {_short(value)} is out of range; it is a number of "
            f"seconds above 0 and at most {MAX_TIMEOUT:,.0f} (a week).",
            f"write the seconds an engine may take, e.g. {DEFAULT_TIMEOUT:.0f}.",
        )
    return float(value)


def _short(value: Any) -> str:
    """A value as YAML writes it: ``.inf``, ``.nan``, ``'fast'``, ``12``."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    text = repr(value)
    return text if len(text) <= 40 else text[:36] + " ..."


def _check_thresholds(
    limits: Sequence[thresholds.Threshold],
    comparison: Comparison,
    engine_ids: Sequence[str],
    overridden: bool,
    document: Document,
    filename: str,
) -> None:
    for index, limit in enumerate(limits):
        where = ("thresholds", index)
        if limit.metric in thresholds.GRACIOUS_METRICS and comparison.gracious_shift is None:
            raise spec_error(
                filename,
                document,
                where,
                f"{limit.metric!r} is measured in gracious mode only, which is off.",
                "turn it on with 'comparison: {gracious: {max_shift: 2000ms}}', "
                "or use precision, recall or f1.",
            )
        if limit.scope == "pair" and limit.engines[0] == limit.engines[1]:
            raise spec_error(
                filename,
                document,
                where,
                f"{limit.text!r} compares engine {limit.engines[0]!r} with itself.",
                "name two different engines: mismatch(<engine>, <other engine>).",
            )
        if limit.scope == "pair" and not overridden:
            for name in limit.engines:
                if name not in engine_ids:
                    raise spec_error(
                        filename,
                        document,
                        where,
                        f"mismatch({', '.join(limit.engines)}) names engine {name!r}, "
                        "which the spec does not run.",
                        "name engines as they appear in the item ids (engine=...): "
                        + ", ".join(engine_ids)
                        + "."
                        + did_you_mean(name, engine_ids),
                    )


def _mismatch(
    data: Mapping[str, Any],
    limits: Sequence[thresholds.Threshold],
    engine_ids: Sequence[str],
    document: Document,
    filename: str,
) -> Mismatch | None:
    raw = data.get("mismatch")
    pairs = [t for t in limits if t.scope == "pair"]
    if raw is None and not pairs:
        return None
    if len(set(data["engines"])) < 2:
        where: Path_ = ("mismatch",) if raw is not None else ("engines",)
        raise spec_error(
            filename,
            document,
            where,
            "a mismatch compares engines, but the spec runs only one.",
            "list two or more engines under 'engines:', or remove the mismatch "
            "key and the mismatch(...) thresholds.",
        )
    raw = raw or {}
    return Mismatch(raw.get("partition", "auto"), raw.get("epsilon"))


def _known_failures(
    data: Mapping[str, Any],
    matrix: Mapping[str, Sequence[Any]],
    document: Document,
    filename: str,
) -> tuple[KnownFailure, ...]:
    known = []
    for i, raw in enumerate(data.get("known_failures", [])):
        params = raw.get("params", {})
        for name, value in params.items():
            if name not in matrix:
                raise spec_error(
                    filename,
                    document,
                    ("known_failures", i, "params", name),
                    f"{name!r} is not a matrix parameter.",
                    "use one of the names under 'matrix:'." + did_you_mean(name, list(matrix)),
                )
            if str(value) not in {str(v) for v in matrix[name]}:
                raise spec_error(
                    filename,
                    document,
                    ("known_failures", i, "params", name),
                    f"{value!r} is not one of the values of {name!r} in the matrix.",
                    "use one of: " + ", ".join(str(v) for v in matrix[name]),
                )
        # departures: names checked by the schema (enum); windows: [o, c] pairs
        windows = tuple((int(w[0]), int(w[1])) for w in raw.get("windows", ()))
        known.append(
            KnownFailure(
                raw["engine"],
                raw["reason"],
                tuple(params.items()),
                tuple(raw.get("departures", ())),
                windows,
            )
        )
    return tuple(known)


def _sweep(
    data: Mapping[str, Any],
    matrix: Mapping[str, Any],
    document: Document,
    filename: str,
) -> Sweep | None:
    raw = data.get("sweep")
    if raw is None:
        return None
    over = raw["over"]
    if over not in matrix:
        raise spec_error(
            filename,
            document,
            ("sweep", "over"),
            f"sweep over {over!r}, which is not a matrix parameter.",
            f"add '{over}: [...]' under 'matrix:' (e.g. speed with "
            "'replay: {speed: ${speed}}')"
            + (f", or use one of: {', '.join(matrix)}." if matrix else ".")
            + did_you_mean(over, matrix),
        )
    values = matrix[over]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise spec_error(
            filename,
            document,
            ("matrix", over),
            f"the sweep needs numbers for {over!r}, got {values!r}.",
            "list the load levels as numbers, e.g. [1, 2, 4, 8].",
        )
    return Sweep(over, raw.get("at_least"))


def _check_gracious(
    query: rspql.RspqlQuery, comparison: Comparison, document: Document, filename: str
) -> None:
    if comparison.gracious_shift is not None and len(query.windows) != 1:
        raise spec_error(
            filename,
            document,
            ("comparison", "gracious"),
            f"gracious mode shifts the borders of one window; the query declares "
            f"{len(query.windows)}.",
            "remove 'gracious:' for this spec, or split the query.",
        )
    if comparison.gracious_shift is not None and query.r2s != "RStream":
        raise spec_error(
            filename,
            document,
            ("comparison", "gracious"),
            f"gracious mode explains whole window contents; the query streams out "
            f"with {query.r2s}, which reports differences between evaluations.",
            "use REGISTER RStream for gracious mode, or remove 'gracious:'.",
        )
