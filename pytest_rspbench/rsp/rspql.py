"""RSP-QL query text: the REGISTER form, named windows and the static query.

Queries are written in the W3C RSP community syntax that RSP-JS and RSP4J
accept (DESIGN §4)::

    PREFIX : <http://example.org/>
    REGISTER RStream <out> AS
    SELECT ?s
    FROM NAMED WINDOW :w ON STREAM :stream [RANGE 10000 STEP 2000]
    WHERE { WINDOW :w { ?s ?p ?o } }

``RANGE``/``STEP`` take milliseconds or ISO 8601 durations (``PT10S``).
:func:`parse` extracts the R2S operator and the windows and derives the static
SPARQL 1.1 query that is evaluated once per window, with each ``WINDOW w``
block turned into ``GRAPH w`` (RSP-QL Def. 14: a window is a named graph).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.rsp.parsing import RDFLIB_PARSER


class QuerySyntaxError(RspbenchError, ValueError):
    """The RSP-QL text is malformed. ``line`` and ``column`` (when known) are
    1-based within the query text."""

    def __init__(self, message: str, line: int = 1, hint: str = "", column: int | None = None):
        super().__init__(message)
        self.line = line
        self.hint = hint
        self.column = column


R2S_OPERATORS = ("RStream", "IStream", "DStream")


@dataclass(frozen=True)
class WindowDecl:
    """``FROM NAMED WINDOW <name> ON STREAM <stream> [RANGE width STEP slide]``."""

    name: str
    stream: str
    width: int
    slide: int


@dataclass(frozen=True)
class RspqlQuery:
    """A parsed continuous query.

    Attributes:
        r2s: "RStream", "IStream" or "DStream".
        output: IRI of the output stream.
        windows: the named windows, in declaration order.
        static_sparql: the per-window SPARQL 1.1 query (windows as GRAPHs).
        text: the original RSP-QL text.
    """

    r2s: str
    output: str
    windows: tuple[WindowDecl, ...]
    static_sparql: str
    text: str


_PREFIX = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.IGNORECASE)
_TERM = r"(<[^>]*>|[A-Za-z][\w.-]*:[\w.-]*|:[\w.-]*)"
_REGISTER = re.compile(r"REGISTER\s+(\w+)\s+" + _TERM + r"\s+AS\s+", re.IGNORECASE)
_WINDOW_DECL = re.compile(
    r"FROM\s+NAMED\s+WINDOW\s+"
    + _TERM
    + r"\s+ON\s+(?:STREAM\s+)?"
    + _TERM
    + r"\s*\[\s*RANGE\s+(\S+)\s+(?:STEP|SLIDE)\s+([^\]\s]+)\s*\]",
    re.IGNORECASE,
)
_WINDOW_USE = re.compile(r"\bWINDOW\s+" + _TERM + r"\s*\{", re.IGNORECASE)
_DURATION = re.compile(
    r"^P(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)$", re.IGNORECASE
)


def parse(text: str) -> RspqlQuery:
    """Parse an RSP-QL query.

    >>> q = parse('''PREFIX : <http://ex/>
    ... REGISTER RStream :out AS SELECT ?s
    ... FROM NAMED WINDOW :w ON STREAM :s [RANGE PT10S STEP 2000]
    ... WHERE { WINDOW :w { ?s ?p ?o } }''')
    >>> q.r2s, q.windows[0].width, q.windows[0].slide, q.windows[0].stream
    ('RStream', 10000, 2000, 'http://ex/s')
    """
    prefixes = {m.group(1) or "": m.group(2) for m in _PREFIX.finditer(text)}
    register = _REGISTER.search(text)
    if register is None:
        raise QuerySyntaxError(
            "the query does not start with REGISTER RStream|IStream|DStream <out> AS",
            hint="write e.g. 'REGISTER RStream <http://example.org/out> AS SELECT ...'",
        )
    r2s = _r2s(register.group(1), _line_of(text, register.start()))
    output = _expand(register.group(2), prefixes, _line_of(text, register.start()))
    windows = tuple(_windows(text, prefixes))
    _check_windows_used(text, windows, prefixes)
    static = _static_query(text, register)
    return RspqlQuery(r2s, output, windows, static, text)


def _r2s(word: str, line: int) -> str:
    for op in R2S_OPERATORS:
        if word.lower() == op.lower():
            return op
    raise QuerySyntaxError(
        f"unknown stream operator {word!r} after REGISTER",
        line,
        hint="use one of RStream, IStream, DStream",
    )


def _windows(text: str, prefixes: dict[str, str]) -> list[WindowDecl]:
    decls: list[WindowDecl] = []
    for match in _WINDOW_DECL.finditer(text):
        line = _line_of(text, match.start())
        name = _expand(match.group(1), prefixes, line)
        if any(d.name == name for d in decls):
            raise QuerySyntaxError(f"window <{name}> is declared twice", line)
        width = duration_ms(match.group(3), line)
        slide = duration_ms(match.group(4), line)
        decls.append(WindowDecl(name, _expand(match.group(2), prefixes, line), width, slide))
    if not decls:
        raise QuerySyntaxError(
            "the query declares no window",
            hint="add 'FROM NAMED WINDOW <w> ON STREAM <s> [RANGE 10000 STEP 10000]'",
        )
    return decls


def _check_windows_used(
    text: str, windows: tuple[WindowDecl, ...], prefixes: dict[str, str]
) -> None:
    declared = {w.name for w in windows}
    for match in _WINDOW_USE.finditer(text):
        line = _line_of(text, match.start())
        name = _expand(match.group(1), prefixes, line)
        if name not in declared:
            raise QuerySyntaxError(
                f"WINDOW <{name}> is used in WHERE but not declared",
                line,
                hint="declare it with FROM NAMED WINDOW, or fix the name: declared are "
                + ", ".join(f"<{n}>" for n in sorted(declared)),
            )


def _static_query(text: str, register: re.Match[str], same_columns: bool = False) -> str:
    # Keep line structure so SPARQL syntax errors point at the user's line;
    # with same_columns, every character stays where the user wrote it.
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    static = text[: register.start()] + blank(register) + text[register.end() :]
    static = _WINDOW_DECL.sub(blank, static)
    if same_columns:
        return _WINDOW_USE.sub(lambda m: "GRAPH " + m.group(0)[6:], static)
    return _WINDOW_USE.sub(lambda m: "GRAPH " + m.group(1) + " {", static)


def check_sparql(query: RspqlQuery) -> None:
    """Parse the per-window query as the oracle will, before anything runs.

    Raises QuerySyntaxError with the line and column in the user's RSP-QL
    text (not in the rewritten query): an unclosed or stray bracket, a prefix
    that is not declared, an expression that does not parse (at the place in
    the expression), any other SPARQL syntax error, and ``FROM``/``FROM NAMED``
    clauses other than windows.
    """
    from pyparsing import ParseBaseException
    from rdflib.plugins.sparql import parser
    from rdflib.plugins.sparql.algebra import translateQuery

    register = _REGISTER.search(query.text)
    text = _static_query(query.text, register, same_columns=True)  # type: ignore[arg-type]
    pairs = _brackets(text)
    _check_prefixes(text)
    _check_declarations(query.text, min((o for o in pairs if text[o] == "{"), default=len(text)))
    try:
        with RDFLIB_PARSER:
            tree = parser.parseQuery(text)
    except ParseBaseException as exc:
        raise (_inner_error(text, pairs) or _parse_error(query.text, text, exc.loc, exc)) from None
    except RecursionError:
        raise QuerySyntaxError(
            "the SPARQL query is nested too deeply to parse",
            hint="write the query with fewer nested brackets",
        ) from None
    try:
        with RDFLIB_PARSER:
            algebra = translateQuery(tree).algebra
    except Exception as exc:  # rdflib raises plain Exceptions with a message
        raise QuerySyntaxError(
            f"the SPARQL query is not valid: {exc}", hint="see docs/spec-format.md#query"
        ) from None
    dataset = re.search(r"\bFROM\b", text, re.IGNORECASE)
    if algebra.get("datasetClause") and dataset:
        raise _error_at(
            text,
            dataset.start(),
            "FROM and FROM NAMED take windows only: FROM NAMED WINDOW <w> ON STREAM <s> [...]",
            "declare each window with FROM NAMED WINDOW; static data goes under "
            "'static:' in the spec",
        )


_LEXICAL = re.compile(
    # What holds no brackets and no names: IRIs, strings (long ones first), comments.
    r"""(?P<skip><[^<>"{}|^`\\\s]*>|"{3}(?:[^"\\]|\\.|"(?!""))*"{3}|'{3}(?:[^'\\]|\\.|'(?!''))*'{3}"""
    r"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\#[^\n]*)"""
    r"""|(?P<pname>(?<![\w.\-?$:])(?:[A-Za-z][\w.\-]*)?:)"""
    r"""|(?P<open>[{(\[])|(?P<close>[})\]])"""
)
_CLOSING = {"{": "}", "(": ")", "[": "]"}


def _brackets(text: str) -> dict[int, int]:
    """Positions of matching brackets, opening -> closing; QuerySyntaxError if
    one is not closed or closes nothing."""
    stack: list[tuple[str, int]] = []
    pairs: dict[int, int] = {}
    for match in _LEXICAL.finditer(text):
        char, at = match.group(), match.start()
        if match.lastgroup == "open":
            stack.append((char, at))
        elif match.lastgroup == "close":
            if not stack or _CLOSING[stack[-1][0]] != char:
                opened = f"; the innermost open one is {stack[-1][0]!r}" if stack else ""
                raise _error_at(
                    text,
                    at,
                    f"{char!r} closes no bracket{opened}",
                    "remove it, or add the bracket it should close",
                )
            pairs[stack.pop()[1]] = at
    if stack:
        char, at = stack[-1]
        raise _error_at(
            text,
            at,
            f"the {char!r} opened here is never closed",
            f"add the missing {_CLOSING[char]!r}",
        )
    return pairs


def _check_prefixes(text: str) -> None:
    declared = {m.group(1) or "" for m in _PREFIX.finditer(text)}
    for match in _LEXICAL.finditer(text):
        prefix = match.group("pname")
        if prefix is not None and prefix[:-1] not in declared:
            raise _error_at(
                text,
                match.start(),
                f"prefix {prefix!r} is not declared",
                f"add 'PREFIX {prefix} <...>' at the top of the query",
            )


def _check_declarations(text: str, body: int) -> None:
    """Windows are declared between the query form (SELECT ...) and its body."""
    form = re.search(r"\b(?:SELECT|CONSTRUCT|ASK|DESCRIBE)\b", text, re.IGNORECASE)
    for match in _WINDOW_DECL.finditer(text):
        if match.start() > body or (form and match.start() < form.start()):
            raise _error_at(
                text,
                match.start(),
                "FROM NAMED WINDOW is misplaced",
                "declare windows after 'SELECT ...' and before 'WHERE {', as in "
                "SELECT ?s FROM NAMED WINDOW <w> ON STREAM <s> [RANGE ...] WHERE {...}",
            )


def _inner_error(text: str, pairs: dict[int, int]) -> QuerySyntaxError | None:
    """The error inside the first FILTER or HAVING expression, else inside the
    innermost ``{ ... }`` group, that does not parse on its own: pyparsing
    reports the start of the outermost alternative that failed, far too early."""
    from pyparsing import ParseBaseException
    from rdflib.plugins.sparql import parser

    parts = [
        (parser.BrackettedExpression, m.end() - 1, "in the expression: ")
        for m in re.finditer(r"\b(?:FILTER|HAVING)\s*\(", text, re.IGNORECASE)
        if m.end() - 1 in pairs  # not in a string or a comment
    ]
    groups = [o for o in pairs if text[o] == "{" and not _VALUES.search(text, 0, o)]
    parts += [(parser.GroupGraphPattern, o, "") for o in sorted(groups, key=lambda o: pairs[o] - o)]
    for element, start, where in parts:
        try:
            element.parse_string(text[start : pairs[start] + 1], parse_all=True)
        except ParseBaseException as exc:
            return _parse_error(text, text, start + exc.loc, exc, where)
        except RecursionError:
            return None
    return None


_VALUES = re.compile(r"\bVALUES\s*(?:[?$]\w+|\([^)]*\))\s*$", re.IGNORECASE)


def _parse_error(
    written: str, text: str, at: int, exc: Exception, where: str = ""
) -> QuerySyntaxError:
    # pyparsing: "Expected ')', found '>'  (at char 4), (line:1, col:5)"
    said = str(exc).split("  (at char")[0]
    if written[at : at + 6].upper() == "WINDOW":  # the user wrote WINDOW, not GRAPH
        said = said.replace("found 'GRAPH'", "found 'WINDOW'")
    if re.match(r"FROM\b", text[at:], re.IGNORECASE):
        return _error_at(
            text,
            at,
            "FROM NAMED is misplaced: it comes before WHERE, and names windows only",
            "declare windows after 'SELECT ...' and before 'WHERE {' with "
            "FROM NAMED WINDOW <w> ON STREAM <s> [RANGE ...]",
        )
    return _error_at(
        text,
        at,
        where + said[:1].lower() + said[1:],
        "check the SPARQL near this place: brackets, '.' between triple patterns, "
        "a value on both sides of each operator",
    )


def _error_at(text: str, offset: int, problem: str, hint: str) -> QuerySyntaxError:
    line = _line_of(text, offset)
    column = offset - text.rfind("\n", 0, offset)
    return QuerySyntaxError(
        f"SPARQL syntax error at query line {line}, column {column}: {problem}",
        line,
        hint,
        column,
    )


def duration_ms(value: str, line: int = 1) -> int:
    """Milliseconds from ``10000`` (ms), ``10s``/``500ms`` or ISO ``PT10S``.

    >>> duration_ms("PT1M"), duration_ms("2500"), duration_ms("10s")
    (60000, 2500, 10000)
    """
    if value.isascii() and value.isdigit():
        return int(value)
    short = re.fullmatch(r"(\d+)(ms|s|m|h)", value)
    if short:
        factor = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[short.group(2)]
        return int(short.group(1)) * factor
    match = _DURATION.match(value)
    if match and any(match.groupdict().values()):
        hours, minutes = int(match["h"] or 0), int(match["m"] or 0)
        seconds = float(match["s"] or 0)
        return round((hours * 3600 + minutes * 60 + seconds) * 1000)
    raise QuerySyntaxError(
        f"cannot read {value!r} as a duration",
        line,
        hint="write milliseconds (10000), or an ISO 8601 duration (PT10S)",
    )


def _expand(term: str, prefixes: dict[str, str], line: int) -> str:
    if term.startswith("<"):
        return term[1:-1]
    prefix, _, local = term.partition(":")
    if prefix not in prefixes:
        raise QuerySyntaxError(
            f"prefix {prefix + ':'!r} in {term!r} is not declared",
            line,
            hint=f"add 'PREFIX {prefix}: <...>' at the top of the query",
        )
    return prefixes[prefix] + local


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
