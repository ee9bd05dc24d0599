"""How a spec judges: its comparison, thresholds, mismatch, known failures,
sweep and gracious mode, each checked against the spec's own lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec import thresholds
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.located import Document, Path_
from pytest_rspbench.spec.model import (
    Comparison,
    KnownFailure,
    Mismatch,
    Sweep,
)
from pytest_rspbench.spec.replay import read_duration


def read_comparison(raw: Mapping[str, Any], document: Document, filename: str) -> Comparison:
    where = ("comparison",)
    gracious = raw.get("gracious")
    shift = None
    if gracious is not None:
        shift = read_duration(
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
        else read_duration(tolerance, (*where, "arrival_tolerance"), document, filename),
        gracious_shift=shift,
    )


def read_threshold(
    text: str, index: int, document: Document, filename: str
) -> thresholds.Threshold:
    try:
        return thresholds.parse(text)
    except thresholds.ThresholdSyntaxError as exc:
        raise spec_error(
            filename, document, ("thresholds", index), str(exc) + ".", exc.hint
        ) from None


def check_thresholds(
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


def read_mismatch(
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


def read_known_failures(
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
                bool(raw.get("intermittent", False)),
            )
        )
    return tuple(known)


def read_sweep(
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


def check_gracious(
    query: rspql.RspqlQuery, comparison: Comparison, document: Document, filename: str
) -> None:
    if comparison.gracious_shift is not None and len(query.declared) != 1:
        raise spec_error(
            filename,
            document,
            ("comparison", "gracious"),
            f"gracious mode shifts the borders of one window; the query declares "
            f"{len(query.declared)}.",
            "remove 'gracious:' for this spec, or split the query.",
        )
    if comparison.gracious_shift is not None and not query.windows:
        raise spec_error(
            filename,
            document,
            ("comparison", "gracious"),
            f"gracious mode shifts the borders of a time window; the query's window is "
            f"a {query.declared[0].kind} window.",
            "remove 'gracious:' for this spec, or use a [RANGE r STEP s] window.",
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


def vague_known_failures(path: Path) -> list[str]:
    """A warning per ``known_failures`` entry that names no departures, at its
    line: it expects any failure of its items, so a new bug in them would
    hide. ``rspbench validate`` prints them; a pytest run warns with them."""
    from pytest_rspbench.spec.document import parse_document

    document = parse_document(path.read_text(encoding="utf-8"), str(path))
    entries = (document.data or {}).get("known_failures") or []
    return [
        f"{path}:{document.key_lines.get(('known_failures', i, 'engine'), 1)}: warning: "
        f"known_failures[{i}] ({entry.get('engine')}) names no departures: any failure "
        "of its items is expected, so a new bug in them would hide.\n"
        "HINT: add 'departures: [...]' with the classes its failures show "
        "(docs/reading-a-failure.md)."
        for i, entry in enumerate(entries)
        if isinstance(entry, dict) and not entry.get("departures")
    ]
