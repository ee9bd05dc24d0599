"""The spec's streams: their sources, spans and disorder, checked where written."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pytest_rspbench.errors import StreamError
from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.located import Document, Path_
from pytest_rspbench.spec.model import (
    StreamDecl,
)
from pytest_rspbench.spec.queries import decl_line, query_line
from pytest_rspbench.spec.replay import read_duration, short
from pytest_rspbench.spec.templates import PLACEHOLDER, substitute
from pytest_rspbench.stream.parameters import MAX_TIME, ParameterError
from pytest_rspbench.stream.workloads import Disorder


def read_stream(
    raw: Mapping[str, Any],
    index: int,
    params: Mapping[str, Any],
    path: Path,
    document: Document,
) -> StreamDecl:
    for key, value in raw["source"].items():
        text = value if isinstance(value, str) else ""
        missing = [m for m in PLACEHOLDER.findall(text) if m not in params]
        if missing:
            raise spec_error(
                str(path),
                document,
                ("streams", index, "source", key),
                f"placeholder ${{{missing[0]}}} has no value in the matrix.",
                f"add '{missing[0]}: [...]' under 'matrix:', or fix the name."
                + did_you_mean(missing[0], params),
            )
    source = {k: substitute(v, params) for k, v in raw["source"].items()}
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
        existing_path(source["path"], where, path, document, glob=True)
    start, end = read_span(raw, ("streams", index), document, str(path))
    check_source(raw, source, index, path, document)
    return StreamDecl(
        raw["iri"],
        MappingProxyType(source),
        start,
        end,
        read_disorder(raw.get("disorder"), ("streams", index, "disorder"), document, str(path)),
    )


def read_span(
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
                f"{MAX_TIME:,}, got {short(value)}.",
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


def check_source(
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
            if isinstance(written, str) and PLACEHOLDER.fullmatch(written):
                value = short(source.get(exc.parameter))
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


def read_disorder(
    raw: Mapping[str, Any] | None, where: Path_, document: Document, filename: str
) -> Disorder | None:
    """A stream's ``disorder:`` (late and duplicated deliveries), checked."""
    if raw is None:
        return None
    delay = read_duration(raw["max_delay"], (*where, "max_delay"), document, filename)
    try:
        return Disorder(raw.get("late", 0.0), delay, raw.get("duplicates", 0.0), raw.get("seed", 0))
    except ParameterError as exc:
        raise spec_error(
            filename, document, (*where, exc.parameter), exc.problem, exc.hint
        ) from None


def check_streams(
    query: rspql.RspqlQuery,
    streams: tuple[StreamDecl, ...],
    document: Document,
    template: str,
    filename: str,
) -> None:
    declared = [s.iri for s in streams]
    for index, window in enumerate(query.declared):
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
                line=query_line(document, decl_line(template, index), template),
            )


def existing_path(
    value: str, where: Path_, path: Path, document: Document, glob: bool = False
) -> Path:
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
