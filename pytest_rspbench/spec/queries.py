"""The spec's query: the template, its placeholders, and the RSP-QL it becomes.

Each matrix point's query is substituted, parsed (:mod:`pytest_rspbench.rsp.rspql`)
and checked; a mistake is a :class:`SpecError` at the line of the spec's
query where it was written, not of the rewritten text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.located import Document
from pytest_rspbench.spec.model import param_text
from pytest_rspbench.spec.templates import PLACEHOLDER
from pytest_rspbench.stream.parameters import MAX_TIME

_LITERAL_BLOCK = re.compile(r"\|[-+0-9]*\s*(#.*)?$")
_WINDOW_DECL = re.compile(r"FROM\s+NAMED\s+WINDOW\b", re.IGNORECASE)


def read_query(
    template: str, params: Mapping[str, Any], document: Document, filename: str
) -> rspql.RspqlQuery:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            line = query_line(
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
        return param_text(params[name])

    text = PLACEHOLDER.sub(replace, template)
    try:
        query = rspql.parse(text)
    except rspql.QuerySyntaxError as exc:
        raise spec_error(
            filename,
            document,
            ("query",),
            f"invalid RSP-QL query: {exc}",
            exc.hint or "see docs/spec-format.md#query",
            line=query_line(document, exc.line, template),
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
    check_window_sizes(query, template, document, filename)
    problem = sparql_problem(query)
    if problem is not None:
        line = query_line(document, problem.line, template)
        raise spec_error(
            filename,
            document,
            ("query",),
            f"{problem}.",
            problem.hint,
            line=line,
            column=query_column(document, line, template, problem, params),
        )
    return query


@functools.lru_cache(maxsize=256)
def sparql_problem(query: rspql.RspqlQuery) -> rspql.QuerySyntaxError | None:
    """The query's SPARQL error, if any (cached: a matrix repeats the query)."""
    try:
        rspql.check_sparql(query)
    except rspql.QuerySyntaxError as exc:
        return exc
    return None


def query_column(
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
    for match in PLACEHOLDER.finditer(written):  # substituted text -> template
        value = param_text(params.get(match.group(1), match.group(0)))
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


def check_window_sizes(
    query: rspql.RspqlQuery, template: str, document: Document, filename: str
) -> None:
    # RSP-QL Def. 13: width and slide are positive; zero would never advance.
    # (Counts and session gaps are checked as the query is parsed.)
    for index, window in enumerate(query.declared):
        if not isinstance(window, rspql.WindowDecl):
            continue
        if not (0 < window.width <= MAX_TIME and 0 < window.slide <= MAX_TIME):
            raise spec_error(
                filename,
                document,
                ("query",),
                f"window <{window.name}> has RANGE {window.width} STEP {window.slide}; "
                f"both must be from 1 to {MAX_TIME:,} ms.",
                "give RANGE and STEP in milliseconds above 0 (or as durations such as PT10S).",
                line=query_line(document, decl_line(template, index), template),
            )


def decl_line(template: str, index: int) -> int:
    """The query line of the ``index``-th FROM NAMED WINDOW (1 if not found)."""
    found = list(_WINDOW_DECL.finditer(template))
    return template.count("\n", 0, found[index].start()) + 1 if index < len(found) else 1


def query_line(document: Document, query_line: int, template: str, needle: str = "") -> int:
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
