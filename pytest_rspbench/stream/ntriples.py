"""N-Triples terms: a regex tokenizer, canonical form and exact error positions.

Every line format of :mod:`pytest_rspbench.stream.lines` is "N-Triples terms
plus a timestamp". Lines are read in three tiers, each one only for the lines
the one before refused, so diagnostics cost nothing on good input:

1. the fast path: terms that are already canonical (``CANONICAL_*`` below:
   no escapes, nothing that prints escaped, lower-case language tags, no
   ``^^xsd:string``) and an integer timestamp, matched a block of lines at a
   time;
2. one compiled regular expression for any well-formed line (the ``IRI``,
   ``LITERAL``, ... patterns), whose terms are then made canonical;
3. a scan term by term (:func:`diagnose`) that says where the line went wrong
   and what was expected.

Terms come out in the canonical N-Triples form that pyoxigraph prints, so a
triple read here and the same triple read by :mod:`~pytest_rspbench.stream.files`
are equal strings: escapes in IRIs are resolved, literals use the short
escapes (``\\t \\b \\n \\r \\f \\" \\\\``) and ``\\uXXXX`` for other control
characters, language tags are lower case, ``^^xsd:string`` is dropped.

YABench writes numeric literals unquoted (``42.0^^<...#float>``); they are read
as objects and normalised to ``"42.0"^^<...#float>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rspbench.rsp.terms import XSD

XSD_STRING = XSD + "string"

# Character classes are written as positive ranges: Python's regex engine
# tests those about a third faster than the equivalent negated sets
# (IRIREF excludes #x00-#x20 < > " { } | ^ ` \; a string excludes " \ LF CR).
_IRI_CHAR = "[!#-;=?-\\[\\]_a-z~\x7f-\U0010ffff]"
_UCHAR = r"\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"
IRI_CONTENT = rf"[A-Za-z][A-Za-z0-9+.\-]*:{_IRI_CHAR}*(?:{_UCHAR}{_IRI_CHAR}*)*"
IRI = f"<{IRI_CONTENT}>"
_BN_END = r"[\w\-\u00B7\u0300-\u036F\u203F\u2040]"
BNODE = rf"_:\w(?:[\w.\-\u00B7\u0300-\u036F\u203F\u2040]*{_BN_END})?"
_STRING_CHAR = "[\x00-\t\x0b\x0c\x0e-!#-\\[\\]-\U0010ffff]"
STRING = (
    rf"\"{_STRING_CHAR}*(?:\\(?:[tbnrf\"'\\]|u[0-9A-Fa-f]{{4}}|U[0-9A-Fa-f]{{8}})"
    rf"{_STRING_CHAR}*)*\""
)
LANG = r"@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*"
LITERAL = rf"{STRING}(?:\^\^{IRI}|{LANG})?"
# YABench's unquoted numeric literal: 42.0^^<http://www.w3.org/2001/XMLSchema#float>
NUMBER_LEXICAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
NUMBER = rf"{NUMBER_LEXICAL}\^\^{IRI}"
SUBJECT = f"{IRI}|{BNODE}"
OBJECT = f"{IRI}|{BNODE}|{LITERAL}|{NUMBER}"

# Terms that canonical() returns unchanged: an IRI without escapes; a literal
# without escapes or characters that print escaped, with a lower-case language
# tag or a datatype other than xsd:string. (Blank nodes are always canonical.)
CANONICAL_IRI = rf"<[A-Za-z][A-Za-z0-9+.\-]*:{_IRI_CHAR}*>"
_PLAIN_CHAR = "[ !#-\\[\\]-~\x80-\ufffd\U00010000-\U0010ffff]"
NOT_XSD_STRING = rf"(?!<{re.escape(XSD_STRING)}>)"
CANONICAL_LITERAL = (
    rf"\"{_PLAIN_CHAR}*\"(?:\^\^{NOT_XSD_STRING}{CANONICAL_IRI}|@[a-z]+(?:-[a-z0-9]+)*)?"
)

_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)
_SHORT = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f"}
_SHORT.update({c: c for c in "\"'\\"})
_QUOTE = {i: f"\\u{i:04X}" for i in [*range(0x20), 0x7F, 0xFFFE, 0xFFFF]}
_QUOTE.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"})
_QUOTE.update({ord('"'): '\\"', ord("\\"): "\\\\"})
# Characters that may appear raw in a literal but print escaped.
RAW_TO_ESCAPE = re.compile("[\x00-\x1f\x7f\ufffe\uffff]")
_BAD_IRI_CHAR = re.compile(r'[\x00-\x20<>"{}|^`\\]')


class TermError(Exception):
    """A malformed term: ``column`` (0-based offset in the line) and message.

    Internal to the stream readers, which turn it into a StreamError that
    names the file and line.
    """

    def __init__(self, column: int, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


def quote(lexical: str) -> str:
    """The canonical N-Triples string for a lexical form (pyoxigraph's escapes).

    >>> quote('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    """
    return '"' + lexical.translate(_QUOTE) + '"'


def unescape(text: str, column: int = 0) -> str:
    """Resolve N-Triples escapes; ``column`` is where ``text`` starts, for errors."""

    def one(match: re.Match[str]) -> str:
        code = match[1] or match[2]
        if code is None:
            return _SHORT[match[3]]
        value = int(code, 16)
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise TermError(
                column + match.start(),
                f"expected a Unicode scalar value, found escape {match[0]}",
            )
        return chr(value)

    return _ESCAPE.sub(one, text)


def canonical(term: str, column: int = 0) -> str:
    """The canonical form of one well-formed term (see the module docstring).

    >>> canonical('"7"^^<http://www.w3.org/2001/XMLSchema#string>')
    '"7"'
    >>> canonical('42.0^^<http://www.w3.org/2001/XMLSchema#float>')
    '"42.0"^^<http://www.w3.org/2001/XMLSchema#float>'
    """
    first = term[0]
    if first == "<":
        return canonical_iri(term, column)
    if first == "_":
        return term
    if first == '"':
        end = term.rindex('"')
        lexical, suffix = term[1:end], term[end + 1 :]
        if "\\" in lexical or RAW_TO_ESCAPE.search(lexical):
            head = quote(unescape(lexical, column + 1))
        else:
            head = term[: end + 1]
    else:  # unquoted YABench number: its lexical form needs no escapes
        lexical, _, datatype = term.partition("^^")
        head, suffix = quote(lexical), "^^" + datatype
    if not suffix:
        return head
    if suffix[0] == "@":
        return head + suffix.lower()
    datatype = canonical_iri(suffix[2:], column + len(term) - len(suffix) + 2)
    return head if datatype == f"<{XSD_STRING}>" else f"{head}^^{datatype}"


def needs_canonical(term: str) -> bool:
    """False when a well-formed term is surely canonical already (a quick test).

    >>> needs_canonical('"a"@en'), needs_canonical('"1"^^<http://ex/t>')
    (True, False)
    """
    first, last = term[0], term[-1]
    if "\\" in term:
        return True
    if first == '"':
        if last == '"':
            return RAW_TO_ESCAPE.search(term) is not None
        if last == ">":
            return term.endswith(f'"^^<{XSD_STRING}>') or bool(RAW_TO_ESCAPE.search(term))
        return True  # language tags are lower-cased
    return first != "<" and first != "_"  # an unquoted YABench number


def canonical_iri(term: str, column: int = 0) -> str:
    """Resolve ``\\u`` escapes in an IRI term, rejecting characters IRIs forbid."""
    if "\\" not in term:
        return term
    value = unescape(term[1:-1], column + 1)
    bad = _BAD_IRI_CHAR.search(value)
    if bad:
        raise TermError(column, f"expected an IRI, found escaped character {bad[0]!r} in it")
    return f"<{value}>"


def literal_split(term: str) -> tuple[str, str | None]:
    """(lexical form, datatype IRI or None) of a canonical literal term."""
    end = term.rindex('"')
    lexical = unescape(term[1:end])
    suffix = term[end + 1 :]
    return lexical, (suffix[3:-1] if suffix.startswith("^^") else None)


@dataclass(frozen=True)
class Role:
    """One position on a line: what it accepts and how to say so in an error."""

    pattern: re.Pattern[str]
    expected: str
    optional: bool = False


def role(pattern: str, expected: str, optional: bool = False) -> Role:
    return Role(re.compile(pattern), expected, optional)


SUBJECT_ROLE = role(SUBJECT, "an IRI or blank node as subject")
PREDICATE_ROLE = role(IRI, "an IRI as predicate")
OBJECT_ROLE = role(OBJECT, "an IRI, blank node or literal as object")
_WS = re.compile(r"[ \t\r]*")


def diagnose(line: str, roles: Sequence[Role]) -> TermError:
    """Find the first place where ``line`` breaks the sequence ``roles``.

    Called only for lines the fast regex rejected: scans term by term, then
    expects ``'.'`` and the end of the line (a ``#`` comment may follow).
    """
    pos = _WS.match(line).end()  # type: ignore[union-attr]
    for part in roles:
        match = part.pattern.match(line, pos)
        if match is None:
            if part.optional:
                continue
            return _explain(line, pos, part.expected)
        pos = _WS.match(line, match.end()).end()  # type: ignore[union-attr]
    if line[pos : pos + 1] != ".":
        return _explain(line, pos, "'.' at end of triple")
    pos = _WS.match(line, pos + 1).end()  # type: ignore[union-attr]
    if pos < len(line) and line[pos] != "#":
        return TermError(pos, f"expected end of line after '.', found {_near(line, pos)}")
    return TermError(0, "expected a triple and a timestamp on this line")


def diagnose_term(text: str, part: Role) -> TermError:
    """Why ``text`` is not exactly one term of ``part`` (e.g. a JSON string)."""
    match = part.pattern.match(text)
    if match is None:
        return _explain(text, 0, part.expected)
    return TermError(match.end(), f"expected end of term, found {_near(text, match.end())}")


def _explain(line: str, pos: int, expected: str) -> TermError:
    char = line[pos : pos + 1]
    if char in ("@", "^") and line[pos - 1 : pos] == '"':  # a literal's suffix
        if char == "@":
            return TermError(pos + 1, "expected a language tag after '@'")
        if not line.startswith("^^", pos):
            return TermError(pos, "expected '^^' and a datatype IRI")
        return _iri_problem(line, pos + 2) or TermError(
            pos + 2, "expected a datatype IRI after '^^'"
        )
    if char == "<" and "IRI" in expected:
        return _iri_problem(line, pos) or TermError(pos, f"expected {expected}")
    if char == '"' and "literal" in expected:
        return _literal_problem(line, pos) or TermError(pos, f"expected {expected}")
    return TermError(pos, f"expected {expected}, found {_near(line, pos)}")


def _near(line: str, pos: int) -> str:
    if pos >= len(line):
        return "end of line"
    snippet = line[pos : pos + 20]
    return repr(snippet + ("..." if len(line) > pos + 20 else ""))


def _iri_problem(line: str, start: int) -> TermError | None:
    if not re.match(r"<[A-Za-z][A-Za-z0-9+.\-]*:", line[start:]):
        return TermError(start, "expected an absolute IRI such as <http://...>")
    pos = start + 1
    while pos < len(line):
        char = line[pos]
        if char == ">":
            return None
        if char == "\\":
            if not re.match(_UCHAR, line[pos:]):
                return TermError(pos, "expected \\uXXXX or \\UXXXXXXXX in the IRI")
            pos += 6 if line[pos + 1] == "u" else 10
            continue
        if _BAD_IRI_CHAR.match(char):
            return TermError(pos, f"expected '>' to close the IRI, found {char!r}")
        pos += 1
    return TermError(pos, "expected '>' to close the IRI, found end of line")


def _literal_problem(line: str, start: int) -> TermError | None:
    pos = start + 1
    while pos < len(line) and line[pos] != '"':
        if line[pos] == "\\":
            if not re.match(r"\\(?:[tbnrf\"'\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})", line[pos:]):
                return TermError(
                    pos,
                    "expected an escape (\\t \\b \\n \\r \\f \\\" \\' \\\\ \\uXXXX)",
                )
            pos += 2
            continue
        pos += 1
    if pos >= len(line):
        return TermError(pos, "expected '\"' to close the literal, found end of line")
    pos += 1
    if line.startswith("^^", pos):
        if not re.match(IRI, line[pos + 2 :]):
            return _iri_problem(line, pos + 2) or TermError(
                pos + 2, "expected a datatype IRI after '^^'"
            )
    elif line.startswith("@", pos) and not re.match(LANG, line[pos:]):
        return TermError(pos + 1, "expected a language tag after '@'")
    elif line.startswith("^", pos):
        return TermError(pos, "expected '^^' and a datatype IRI")
    return None
