"""A small RSP-QL parser: enough of the W3C RSP community syntax to run queries.

It understands::

    PREFIX : <http://example.org/>
    REGISTER RStream <out> AS
    SELECT ?x
    FROM NAMED WINDOW :w ON STREAM :s [RANGE PT10S STEP PT2S]
    WHERE { WINDOW :w { ?x ?p ?o } }

and turns it into the *static* SPARQL query evaluated on every window
(RSP-QL Def. 17: once the evaluation time is fixed, evaluation is plain
SPARQL): the ``REGISTER ... AS`` and ``FROM NAMED WINDOW`` clauses are
dropped and ``WINDOW <w> {`` becomes ``GRAPH <w> {``. Deliberately written
without the project's own parser (``pytest_rspbench.rsp.rspql``).

Besides time windows it reads count windows (``[ROWS n STEP m]``,
``[ELEMENTS n]``, ``[TRIPLES n STEP m]``, ``[RANGE TRIPLES n]``) and session
windows (``[SESSION gap]``), docs/count-and-session-windows.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

R2S_OPERATORS = ("RStream", "IStream", "DStream")

_IRI = r"<[^<>\s]*>"
_PNAME = r"[A-Za-z][\w.-]*:[\w.:%-]*|:[\w.:%-]*"
_TERM = rf"(?:{_IRI}|{_PNAME})"
_PREFIX = re.compile(r"\bPREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^<>\s]*)>", re.I)
_REGISTER = re.compile(rf"\bREGISTER\s+(\w+)\s+({_TERM})\s+AS\b", re.I)
_FROM_WINDOW = re.compile(
    rf"\bFROM\s+NAMED\s+WINDOW\s+({_TERM})\s+ON\s+(?:STREAM\s+)?({_TERM})\s*\[([^\]]*)\]",
    re.I,
)
_STEPPED = r"\s+(\d+)(?:\s+(?:STEP|SLIDE)\s+(\d+))?\s*"
_BODIES = (
    ("triples", re.compile(r"\s*(?:RANGE\s+)?TRIPLES" + _STEPPED, re.I)),
    ("rows", re.compile(r"\s*(?:ROWS|ELEMENTS)" + _STEPPED, re.I)),
    ("session", re.compile(r"\s*SESSION\s+(\S+)\s*", re.I)),
    ("time", re.compile(r"\s*RANGE\s+(\S+?)(?:\s+(?:STEP|SLIDE)\s+(\S+?))?\s*", re.I)),
)
_WINDOW_PATTERN = re.compile(rf"\bWINDOW\s+({_TERM})\s*\{{", re.I)
_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", re.I)
# As much of the SPARQL 1.1 lexer (§19.8) as it takes to tell the keyword
# SERVICE from the same letters in a string, an IRI, a comment, a variable or
# a prefixed name.
SPARQL_TOKEN = re.compile(
    r"'''(?:'{0,2}(?:[^'\\]|\\.))*'''"
    r'|"""(?:"{0,2}(?:[^"\\]|\\.))*"""'
    r"|'(?:[^'\\\n\r]|\\.)*'"
    r'|"(?:[^"\\\n\r]|\\.)*"'
    r'|<[^<>"{}|^`\\\x00-\x20]*>'  # IRIREF
    r"|#[^\n]*"  # a comment
    r"|[?$]\w+"  # a variable
    r"|(?:[A-Za-z_][\w.-]*)?:(?:[\w.:%-]|\\.)*"  # a prefixed name or blank node
    r"|(?P<word>[A-Za-z_]\w*)"
    r"|\S",
    re.S,
)


@dataclass(frozen=True)
class WindowDecl:
    """One time-based ``FROM NAMED WINDOW`` clause (RSP-QL Def. 13: width, slide).

    Attributes:
        name: the window IRI (no angle brackets); also its graph name.
        stream: the stream IRI (no angle brackets).
        width: alpha, in ms.
        slide: beta, in ms.
    """

    name: str
    stream: str
    width: int
    slide: int
    kind: ClassVar[str] = "time"

    def __post_init__(self) -> None:
        if self.width <= 0 or self.slide <= 0:
            raise ValueError(
                f"window <{self.name}>: RANGE and STEP must be positive, got "
                f"RANGE {self.width} ms STEP {self.slide} ms"
            )


@dataclass(frozen=True)
class CountDecl:
    """``[ROWS size STEP step]`` (kind "rows") or ``[TRIPLES size STEP step]`` ("triples")."""

    name: str
    stream: str
    kind: str
    size: int
    step: int = 1

    def __post_init__(self) -> None:
        if self.size <= 0 or self.step <= 0:
            raise ValueError(
                f"window <{self.name}>: {self.kind.upper()} and STEP must be positive, got "
                f"{self.size} and {self.step}"
            )


@dataclass(frozen=True)
class SessionDecl:
    """``[SESSION gap]`` (gap in ms)."""

    name: str
    stream: str
    gap: int
    kind: ClassVar[str] = "session"

    def __post_init__(self) -> None:
        if self.gap <= 0:
            raise ValueError(f"window <{self.name}>: the SESSION gap must be positive")


Decl = WindowDecl | CountDecl | SessionDecl


@dataclass(frozen=True)
class ParsedQuery:
    """What the engine needs from an RSP-QL query.

    Attributes:
        r2s: "RStream", "IStream" or "DStream".
        output: the IRI after REGISTER (the output stream name).
        windows: the named windows, in declaration order.
        sparql: the static SPARQL query run on each evaluation.
    """

    r2s: str
    output: str
    windows: tuple[Decl, ...]
    sparql: str

    @property
    def time_only(self) -> bool:
        """Does the query have time-based windows only (RSP-QL Def. 13)?"""
        return all(isinstance(w, WindowDecl) for w in self.windows)


def parse_query(text: str) -> ParsedQuery:
    """Parse an RSP-QL ``REGISTER ... AS SELECT`` query.

    >>> q = parse_query('''PREFIX : <http://e/>
    ... REGISTER IStream :out AS SELECT ?s
    ... FROM NAMED WINDOW :w ON STREAM :s [RANGE PT5S STEP 1000]
    ... WHERE { WINDOW :w { ?s ?p ?o } }''')
    >>> q.r2s, q.output, q.windows[0].width, q.windows[0].slide
    ('IStream', 'http://e/out', 5000, 1000)
    >>> "GRAPH <http://e/w> {" in q.sparql
    True
    """
    prefixes = {m.group(1) or "": m.group(2) for m in _PREFIX.finditer(text)}
    r2s, output, text = _take_register(text, prefixes)
    windows = tuple(_window(m, prefixes) for m in _FROM_WINDOW.finditer(text))
    if not windows:
        raise ValueError(
            "the query declares no window; expected a clause like "
            "'FROM NAMED WINDOW <w> ON STREAM <s> [RANGE 10000 STEP 2000]'"
        )
    _check_unique(windows)
    sparql = _FROM_WINDOW.sub(" ", text)
    sparql = _rewrite_window_patterns(sparql, prefixes, {w.name for w in windows})
    return ParsedQuery(r2s, output, windows, sparql)


def service_calls(sparql: str) -> list[str]:
    """The endpoints that ``sparql`` calls with ``SERVICE``, as written.

    pyoxigraph answers ``SERVICE <url> { ... }`` by sending the query to
    ``url``. The word counts as the keyword only, not inside a string, an
    IRI, a comment, a variable or a prefixed name.

    >>> service_calls("SELECT * { ?s ?p 'SERVICE <x>' SERVICE SILENT <http://e/q> {} }")
    ['<http://e/q>']
    >>> service_calls("PREFIX service: <http://e/> SELECT * { ?service service:SERVICE ?o }")
    []
    """
    tokens = [m for m in SPARQL_TOKEN.finditer(sparql) if not m.group().startswith("#")]
    found = []
    for k, token in enumerate(tokens):
        if token.lastgroup == "word" and token.group().upper() == "SERVICE":
            after = [m.group() for m in tokens[k + 1 : k + 3]]
            if after and after[0].upper() == "SILENT":
                after = after[1:]
            found.append(after[0] if after else "")
    return found


def parse_duration(text: str) -> int:
    """A RANGE/STEP/SESSION value in ms: an integer (ms), a number with a
    unit (ms, s, m, h) or an ISO-8601 duration.

    >>> parse_duration("2500"), parse_duration("PT10S"), parse_duration("PT1M0.5S")
    (2500, 10000, 60500)
    >>> parse_duration("30s"), parse_duration("250ms")
    (30000, 250)
    """
    if text.isdigit():
        return int(text)
    unit = re.fullmatch(r"(\d+)(ms|s|m|h)", text)
    if unit:
        return int(unit.group(1)) * {"ms": 1, "s": 1000, "m": 60000, "h": 3600000}[unit.group(2)]
    match = _DURATION.fullmatch(text)
    if match is None or not any(match.groups()):
        raise ValueError(
            f"cannot read the duration {text!r}; write integer milliseconds "
            "(10000), a number with a unit (10s) or an ISO-8601 duration (PT10S)"
        )
    days, hours, minutes, seconds = match.groups()
    total = int(days or 0) * 86400 + int(hours or 0) * 3600 + int(minutes or 0) * 60
    return round((total + float(seconds or 0)) * 1000)


def expand(term: str, prefixes: dict[str, str]) -> str:
    """An IRI without angle brackets from ``<iri>`` or a prefixed name.

    >>> expand(":w", {"": "http://e/"}), expand("<http://x>", {})
    ('http://e/w', 'http://x')
    """
    if term.startswith("<"):
        return term[1:-1]
    prefix, _, local = term.partition(":")
    if prefix not in prefixes:
        raise ValueError(f"the prefix {prefix + ':'!r} of {term!r} is not declared")
    return prefixes[prefix] + local


def _take_register(text: str, prefixes: dict[str, str]) -> tuple[str, str, str]:
    """Read and remove the ``REGISTER <op> <out> AS`` clause."""
    match = _REGISTER.search(text)
    if match is None:
        raise ValueError("the query has no 'REGISTER RStream|IStream|DStream <out> AS' clause")
    operator = {op.lower(): op for op in R2S_OPERATORS}.get(match.group(1).lower())
    if operator is None:
        raise ValueError(
            f"unknown R2S operator {match.group(1)!r}; expected one of {', '.join(R2S_OPERATORS)}"
        )
    rest = text[: match.start()] + " " + text[match.end() :]
    return operator, expand(match.group(2), prefixes), rest


def _window(match: re.Match[str], prefixes: dict[str, str]) -> Decl:
    """A declaration from one FROM NAMED WINDOW match; STEP defaults to RANGE
    for time windows and to 1 for count windows."""
    name, stream = expand(match.group(1), prefixes), expand(match.group(2), prefixes)
    for kind, body in _BODIES:
        found = body.fullmatch(match.group(3))
        if found is None:
            continue
        if kind == "time":
            width = parse_duration(found.group(1))
            slide = parse_duration(found.group(2)) if found.group(2) else width
            return WindowDecl(name, stream, width, slide)
        if kind == "session":
            return SessionDecl(name, stream, parse_duration(found.group(1)))
        return CountDecl(name, stream, kind, int(found.group(1)), int(found.group(2) or 1))
    raise ValueError(
        f"cannot read the window [{match.group(3).strip()}] of <{name}>; expected "
        "RANGE r STEP s, ROWS n [STEP m], TRIPLES n [STEP m] or SESSION gap"
    )


def _check_unique(windows: tuple[Decl, ...]) -> None:
    names = [w.name for w in windows]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"the window <{name}> is declared twice")


def _rewrite_window_patterns(sparql: str, prefixes: dict[str, str], names: set[str]) -> str:
    """``WINDOW <w> {`` -> ``GRAPH <w> {`` (a window is a named graph, Def. 14)."""

    def graph(match: re.Match[str]) -> str:
        name = expand(match.group(1), prefixes)
        if name not in names:
            raise ValueError(
                f"the WHERE clause reads WINDOW <{name}>, which no "
                "FROM NAMED WINDOW clause declares"
            )
        return f"GRAPH <{name}> {{"

    return _WINDOW_PATTERN.sub(graph, sparql)
