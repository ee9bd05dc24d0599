"""RSP-QL query text: the REGISTER form, named windows and the static query.

Queries are written in the W3C RSP community syntax that RSP-JS and RSP4J
accept (docs/spec-format.md, "The query")::

    PREFIX : <http://example.org/>
    REGISTER RStream <out> AS
    SELECT ?s
    FROM NAMED WINDOW :w ON STREAM :stream [RANGE 10000 STEP 2000]
    WHERE { WINDOW :w { ?s ?p ?o } }

``RANGE``/``STEP`` take milliseconds or ISO 8601 durations (``PT10S``).
Count-based and session windows (``[ROWS n STEP m]``, ``[TRIPLES n]``,
``[SESSION gap]``, docs/count-and-session-windows.md) may be declared beside
time windows. :func:`parse` extracts the R2S operator and the windows and derives the static
SPARQL 1.1 query that is evaluated once per window, with each ``WINDOW w``
block turned into ``GRAPH w`` (RSP-QL Def. 14: a window is a named graph).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.rsp.counting import MAX_COUNT, CountWindow
from pytest_rspbench.rsp.parsing import RDFLIB_PARSER
from pytest_rspbench.rsp.sessions import SessionWindow


class QuerySyntaxError(RspbenchError, ValueError):
    """The RSP-QL text is malformed. ``line`` and ``column`` (when known) are
    1-based within the query text."""

    def __init__(
        self, message: str, line: int = 1, hint: str = "", column: int | None = None
    ) -> None:
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
    kind: ClassVar[str] = "time"


@dataclass(frozen=True)
class CountWindowDecl:
    """``FROM NAMED WINDOW <name> ON STREAM <stream> [ROWS n STEP m]`` (or ``TRIPLES``)."""

    name: str
    stream: str
    window: CountWindow

    @property
    def kind(self) -> str:
        """The count window's kind: "rows" or "triples"."""
        return self.window.kind


@dataclass(frozen=True)
class SessionWindowDecl:
    """``FROM NAMED WINDOW <name> ON STREAM <stream> [SESSION gap]``."""

    name: str
    stream: str
    window: SessionWindow
    kind: ClassVar[str] = "session"


Declaration = WindowDecl | CountWindowDecl | SessionWindowDecl
"""Any ``FROM NAMED WINDOW`` clause; dispatch on its ``kind``."""
WINDOW_FORMS = (
    "[RANGE r STEP s], [ROWS n], [ROWS n STEP m], [TRIPLES n], [TRIPLES n STEP m], [SESSION gap]"
)


@dataclass(frozen=True)
class RspqlQuery:
    """A parsed continuous query.

    Attributes:
        r2s: "RStream", "IStream" or "DStream".
        output: IRI of the output stream.
        windows: the time-based windows (``[RANGE r STEP s]``), in
            declaration order: what code that knows only time windows reads.
        static_sparql: the per-window SPARQL 1.1 query (windows as GRAPHs).
        text: the original RSP-QL text.
        declared: every named window of any kind, in declaration order
            (default: ``windows``).
    """

    r2s: str
    output: str
    windows: tuple[WindowDecl, ...]
    static_sparql: str
    text: str
    declared: tuple[Declaration, ...] = ()

    def __post_init__(self) -> None:
        if not self.declared:
            object.__setattr__(self, "declared", self.windows)

    @property
    def kinds(self) -> frozenset[str]:
        """The window kinds the query uses: "time", "rows", "triples", "session".

        >>> sorted(parse('''REGISTER RStream <o> AS SELECT * FROM NAMED WINDOW <w>
        ... ON STREAM <s> [ROWS 3] WHERE { WINDOW <w> { ?s ?p ?o } }''').kinds)
        ['rows']
        """
        return frozenset(d.kind for d in self.declared)


_PREFIX = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.IGNORECASE)
_TERM = r"(<[^>]*>|[A-Za-z][\w.-]*:[\w.-]*|:[\w.-]*)"
_REGISTER = re.compile(r"REGISTER\s+(\w+)\s+" + _TERM + r"\s+AS\s+", re.IGNORECASE)
_WINDOW_DECL = re.compile(
    r"FROM\s+NAMED\s+WINDOW\s+" + _TERM + r"\s+ON\s+(?:STREAM\s+)?" + _TERM + r"\s*\[([^\]]*)\]",
    re.IGNORECASE,
)
_COUNT_OF = r"\s+([^\]\s]+)(?:\s+(?:STEP|SLIDE)\s+([^\]\s]+))?\s*"
_TIME_BODY = re.compile(r"\s*RANGE\s+(\S+)\s+(?:STEP|SLIDE)\s+(\S+)\s*", re.IGNORECASE)
_ROWS_BODY = re.compile(r"\s*(?:ROWS|ELEMENTS)" + _COUNT_OF, re.IGNORECASE)
_TRIPLES_BODY = re.compile(r"\s*(?:RANGE\s+)?TRIPLES" + _COUNT_OF, re.IGNORECASE)
_SESSION_BODY = re.compile(r"\s*SESSION\s+(\S+)\s*", re.IGNORECASE)
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
    declared = tuple(_windows(text, prefixes))
    _check_windows_used(text, declared, prefixes)
    static = _static_query(text, register)
    windows = tuple(d for d in declared if isinstance(d, WindowDecl))
    return RspqlQuery(r2s, output, windows, static, text, declared)


def _r2s(word: str, line: int) -> str:
    for op in R2S_OPERATORS:
        if word.lower() == op.lower():
            return op
    raise QuerySyntaxError(
        f"unknown stream operator {word!r} after REGISTER",
        line,
        hint="use one of RStream, IStream, DStream",
    )


def _windows(text: str, prefixes: dict[str, str]) -> list[Declaration]:
    decls: list[Declaration] = []
    for match in _WINDOW_DECL.finditer(text):
        line = _line_of(text, match.start())
        name = _expand(match.group(1), prefixes, line)
        if any(d.name == name for d in decls):
            raise QuerySyntaxError(f"window <{name}> is declared twice", line)
        stream = _expand(match.group(2), prefixes, line)
        decls.append(_declaration(name, stream, match.group(3), line))
    if not decls:
        raise QuerySyntaxError(
            "the query declares no window",
            hint="add 'FROM NAMED WINDOW <w> ON STREAM <s> [RANGE 10000 STEP 10000]'",
        )
    return decls


def _declaration(name: str, stream: str, body: str, line: int) -> Declaration:
    """The window between the brackets of a ``FROM NAMED WINDOW`` clause."""
    if match := _TIME_BODY.fullmatch(body):
        return WindowDecl(name, stream, duration_ms(match[1], line), duration_ms(match[2], line))
    for kind, form in (("triples", _TRIPLES_BODY), ("rows", _ROWS_BODY)):
        if match := form.fullmatch(body):
            size = _count(match[1], name, body, line)
            step = _count(match[2], name, body, line) if match[2] else 1
            return CountWindowDecl(name, stream, CountWindow(kind, size, step))
    if match := _SESSION_BODY.fullmatch(body):
        gap = duration_ms(match[1], line)
        if not 0 < gap <= MAX_COUNT:
            raise QuerySyntaxError(
                f"window <{name}> has a SESSION gap of {gap} ms; it must be from 1 to "
                f"{MAX_COUNT:,} ms",
                line,
                hint="give the gap as a duration above 0, e.g. SESSION 30s or SESSION PT30S",
            )
        return SessionWindowDecl(name, stream, SessionWindow(gap))
    tumbling = " (a tumbling window has STEP = RANGE)" if _RANGE_ONLY.fullmatch(body) else ""
    raise QuerySyntaxError(
        f"cannot read the window [{body.strip()}] of <{name}>",
        line,
        hint=f"write one of {WINDOW_FORMS}{tumbling}; STEP may be written SLIDE, ROWS ELEMENTS",
    )


_RANGE_ONLY = re.compile(r"\s*RANGE\s+\S+\s*", re.IGNORECASE)


def _count(value: str, name: str, body: str, line: int) -> int:
    """A number of elements in ROWS/TRIPLES n STEP m: 1 to MAX_COUNT, digits only."""
    hint = (
        f"ROWS, TRIPLES and their STEP count elements: write whole numbers from 1 to "
        f"{MAX_COUNT:,}, e.g. [ROWS 10 STEP 2]; durations are for RANGE and SESSION"
    )
    if not (value.isascii() and value.isdigit()):
        raise QuerySyntaxError(
            f"window <{name}>: cannot read {value!r} as a number of elements", line, hint=hint
        )
    if not 0 < int(value) <= MAX_COUNT:
        raise QuerySyntaxError(
            f"window <{name}> has [{' '.join(body.split())}]; counts must be from 1 to "
            f"{MAX_COUNT:,}",
            line,
            hint=hint,
        )
    return int(value)


def _check_windows_used(
    text: str, windows: tuple[Declaration, ...], prefixes: dict[str, str]
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
