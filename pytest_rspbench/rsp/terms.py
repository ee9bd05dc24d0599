"""RDF terms as N-Triples strings.

The whole tool passes RDF terms around in their N-Triples form
(``<http://ex/a>``, ``"54"^^<http://www.w3.org/2001/XMLSchema#double>``,
``"hi"@en``, ``_:b0``): hashable, compact, comparable by RDF term equality
and directly usable as Spark string columns.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal, InvalidOperation

XSD = "http://www.w3.org/2001/XMLSchema#"

NUMERIC_TYPES = frozenset(
    XSD + name
    for name in (
        "integer decimal float double nonPositiveInteger negativeInteger long int "
        "short byte nonNegativeInteger unsignedLong unsignedInt unsignedShort "
        "unsignedByte positiveInteger"
    ).split()
)

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|INF)|NaN")
"""The lexical spaces of XSD's numbers (XSD 1.1 Part 2, §3.3.3, §3.3.5, §3.3.6,
§3.4.13): what ``Decimal`` and ``float`` accept beyond them (``sNaN``,
``Infinity``, ``1_000``, exponents in a decimal, white space) is no number."""

_LITERAL = re.compile(r'^"(?P<lex>(?:[^"\\]|\\.)*)"(?:\^\^<(?P<dt>[^>]*)>|@(?P<lang>[^ ]+))?$')


def literal_parts(term: str) -> tuple[str, str | None, str | None] | None:
    """Split a literal term into (lexical form, datatype IRI, language tag).

    >>> literal_parts('"54"^^<http://www.w3.org/2001/XMLSchema#double>')
    ('54', 'http://www.w3.org/2001/XMLSchema#double', None)
    >>> literal_parts('<http://ex/a>') is None
    True
    """
    match = _LITERAL.match(term)
    if match is None:
        return None
    return match["lex"], match["dt"], match["lang"]


def numeric_value(term: str) -> Decimal | float | None:
    """The numeric value of a numeric literal, or None for any other term.

    Only lexical forms the datatype admits are numbers: a malformed one (a
    signalling ``sNaN``, ``1e5`` as an ``xsd:decimal``) is compared as a term.

    >>> numeric_value('"42.0"^^<http://www.w3.org/2001/XMLSchema#float>')
    42.0
    >>> numeric_value('"sNaN"^^<http://www.w3.org/2001/XMLSchema#decimal>') is None
    True
    """
    if not term.startswith('"'):
        return None  # an IRI or a blank node
    return _literal_value(term)


@functools.lru_cache(maxsize=1 << 16)
def _literal_value(term: str) -> Decimal | float | None:
    """:func:`numeric_value` of a literal, remembered: a verdict reads the same
    values again and again (every binding of a window, in several passes)."""
    parts = literal_parts(term)
    if parts is None or parts[1] not in NUMERIC_TYPES:
        return None
    lex, datatype, _ = parts
    floating = datatype in (XSD + "float", XSD + "double")
    lexical = _FLOAT if floating else _DECIMAL if datatype == XSD + "decimal" else _INTEGER
    if not lexical.fullmatch(lex):
        return None  # not a number of its datatype: compared as a term
    try:
        return float(lex) if floating else Decimal(lex)
    except (ValueError, InvalidOperation):  # pragma: no cover - the patterns admit none
        return None


def iri(value: str) -> str:
    """An IRI term. ``iri('http://ex/a') == '<http://ex/a>'``."""
    return f"<{value}>"


def is_iri(term: str) -> bool:
    return term.startswith("<")
