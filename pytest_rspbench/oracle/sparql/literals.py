"""RDF terms in Spark string columns: kinds, lexical forms, escapes.

Terms travel as N-Triples strings in the canonical form pyoxigraph prints
(:mod:`pytest_rspbench.rsp.terms`): ``<iri>``, ``_:b0``, ``"lex"``, ``"lex"@en``,
``"lex"^^<datatype>``; lexical forms use the short escapes
(``\\t \\b \\n \\r \\f \\" \\\\``) and ``\\uXXXX`` for other control characters.
These helpers take and return Spark Columns, so the same code runs inside
higher-order functions (lambdas over arrays) and plain projections.

The *class* of a term decides how SPARQL operators treat it (SPARQL 1.1
§17.3, and what pyoxigraph, our per-window reference, does): IRIs, blank
nodes and language-tagged strings compare as terms, simple strings by value,
booleans/numbers/dateTimes by value, any other literal only as the same term.
"""

from __future__ import annotations

from typing import Any

from pytest_rspbench.rsp.terms import XSD

RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
TRUE = f'"true"^^<{XSD}boolean>'
FALSE = f'"false"^^<{XSD}boolean>'
MARK = "rspbench-unsupported: "
"""Prefix of the Spark error raised at run time for a value the compiled plan
cannot evaluate the way the reference does (see :func:`unsupported`)."""

# Term classes (small ints so they are cheap to compare in a plan).
IRI, BNODE, LANG, STRING, BOOLEAN, NUMERIC, DATETIME, OTHER, UNKNOWN = range(1, 10)

# Literals of these types have a value the reference evaluator compares, but
# this compiler does not model them: meeting one raises "unsupported".
VALUED_UNMODELLED = (
    "date time duration dayTimeDuration yearMonthDuration gYear gYearMonth gMonth gMonthDay gDay"
).split()

_XSD_TAIL = f"^^<{XSD}"


def _suffix(term: Any) -> Any:
    """What follows a literal's closing quote: ``""``, ``@tag`` or ``^^<iri>``.

    In the canonical form a quote inside the lexical form is escaped but
    still a quote character, and neither suffix holds one, so the closing
    quote is the term's last. Plain string functions, no regular
    expression: on YABench's 300,000 float values each regular expression
    cost about 0.5 s of a warm two-core job (measured on 2026-11-28).
    """
    from pyspark.sql import functions as F

    return F.substring_index(term, '"', -1)


def _inside(term: Any, suffix: Any) -> Any:
    """The text between a literal's quotes, given its :func:`_suffix`."""
    from pyspark.sql import functions as F

    return term.substr(F.lit(2), F.length(term) - F.length(suffix) - 2)


def _quoted(term: Any, suffix: Any) -> Any:
    """Is ``term`` a literal with both quotes (its suffix aside)?"""
    from pyspark.sql import functions as F

    return is_literal(term) & (F.length(term) - F.length(suffix) >= 2)


def unsupported(reason: str) -> Any:
    """A Column that fails the Spark job with a marked message when evaluated.

    Used in branches for values the plan cannot handle exactly; the caller of
    the plan turns the failure into :class:`UnsupportedQueryError` and the
    oracle evaluates per window instead (slower, but never wrong).
    """
    from pyspark.sql import functions as F

    return F.raise_error(F.lit(MARK + reason))


def is_iri(term: Any) -> Any:
    return term.startswith("<")


def is_blank(term: Any) -> Any:
    return term.startswith("_:")


def is_literal(term: Any) -> Any:
    return term.startswith('"')


def lexical(term: Any) -> Any:
    """The (still escaped) lexical form of a literal; NULL for other terms."""
    from pyspark.sql import functions as F

    suffix = _suffix(term)
    inside = F.when(_quoted(term, suffix), _inside(term, suffix)).otherwise(F.lit(""))
    return F.when(is_literal(term), inside)


def language(term: Any) -> Any:
    """The language tag of a literal ("" for none); NULL for other terms."""
    from pyspark.sql import functions as F

    suffix = _suffix(term)
    tag = F.when(suffix.startswith("@") & _quoted(term, suffix), _tail(suffix, 2))
    tag = tag.otherwise(F.lit(""))
    return F.when(is_literal(term), tag)


def _tail(text: Any, start: int) -> Any:
    from pyspark.sql import functions as F

    return F.substring(text, start, 1 << 30)


def datatype_iri(term: Any) -> Any:
    """The datatype IRI (without brackets) of a literal; NULL for other terms."""
    from pyspark.sql import functions as F

    suffix = _suffix(term)
    return F.when(
        is_literal(term),
        F.when(
            suffix.startswith("^^<") & suffix.endswith(">"),
            suffix.substr(F.lit(4), F.length(suffix) - 4),
        )
        .when(suffix.startswith("@"), F.lit(RDF_LANG_STRING))
        .otherwise(F.lit(XSD + "string")),
    )


def xsd_type(term: Any) -> Any:
    """The local name of an XSD datatype ("" when the datatype is not XSD)."""
    from pyspark.sql import functions as F

    suffix = _suffix(term)
    typed = _quoted(term, suffix) & suffix.startswith(_XSD_TAIL) & suffix.endswith(">")
    name = suffix.substr(F.lit(len(_XSD_TAIL) + 1), F.length(suffix) - len(_XSD_TAIL) - 1)
    return F.when(typed, name).otherwise(F.lit(""))


def string_lexical(term: Any) -> Any:
    """Escaped lexical form of a simple or xsd:string literal; NULL otherwise."""
    from pyspark.sql import functions as F

    suffix = _suffix(term)
    quoted = _quoted(term, suffix)
    plain = quoted & (suffix == "")
    typed = quoted & (suffix == f"^^<{XSD}string>")
    return F.when(plain | typed, _inside(term, suffix))


def boolean_value(term: Any) -> Any:
    """The value of a valid xsd:boolean literal; NULL otherwise."""
    from pyspark.sql import functions as F

    lex = F.when(xsd_type(term) == "boolean", lexical(term))
    return F.when(lex.isin("true", "1"), True).when(lex.isin("false", "0"), False)


def boolean_term(value: Any) -> Any:
    """The xsd:boolean term for a boolean Column (NULL stays NULL)."""
    from pyspark.sql import functions as F

    return F.when(value, F.lit(TRUE)).when(~value, F.lit(FALSE))


def unescape(text: Any) -> Any:
    """N-Triples lexical escapes to characters (only when there is a backslash).

    Splitting at escaped backslashes first leaves pieces in which every
    backslash starts an escape; those are replaced, and the pieces joined with
    a plain backslash. Canonical forms escape only the characters listed in
    :data:`_ESCAPES`.
    """
    from pyspark.sql import functions as F

    pieces = F.transform(F.split(text, r"\\\\"), lambda p: _replaced(p, _ESCAPES))
    return F.when(text.contains("\\"), F.array_join(pieces, "\\")).otherwise(text)


_CONTROL = [c for c in range(0x20) if c not in (0x08, 0x09, 0x0A, 0x0C, 0x0D)] + [0x7F]
_SHORT = [
    ('\\"', '"'),
    ("\\'", "'"),
    ("\\n", "\n"),
    ("\\r", "\r"),
    ("\\t", "\t"),
    ("\\b", "\b"),
    ("\\f", "\f"),
]
_ESCAPES = _SHORT + [(f"\\u{c:04X}", chr(c)) for c in [*_CONTROL, 0xFFFE, 0xFFFF]]


def escape(text: Any) -> Any:
    """Characters to canonical N-Triples lexical escapes (pyoxigraph's choice)."""
    from pyspark.sql import functions as F

    out = F.replace(text, F.lit("\\"), F.lit("\\\\"))
    for raw, escaped in (
        ('"', '\\"'),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
        ("\b", "\\b"),
        ("\f", "\\f"),
    ):
        out = F.replace(out, F.lit(raw), F.lit(escaped))
    rare = _replaced(out, [(chr(code), f"\\u{code:04X}") for code in [*_CONTROL, 0xFFFE, 0xFFFF]])
    return F.when(out.rlike("[\\x00-\\x1F\\x7F\\uFFFE\\uFFFF]"), rare).otherwise(out)


def _replaced(text: Any, pairs: list[tuple[str, str]]) -> Any:
    """``text`` with each ``(old, new)`` of ``pairs`` replaced in turn.

    One ``aggregate`` over a literal array of the pairs, not a chain of
    ``replace`` calls: a chain of 40 is an expression 40 calls deep, past
    the nesting Spark Connect's protocol decodes (``Exceeded
    upb_DecodeOptions_MaxDepth``), and Java code past 64 KB where Spark
    generates code for it. The array keeps the depth constant.
    """
    from pyspark.sql import functions as F

    table = F.array(
        *[F.struct(F.lit(old).alias("old"), F.lit(new).alias("new")) for old, new in pairs]
    )
    return F.aggregate(table, text, lambda done, pair: F.replace(done, pair["old"], pair["new"]))


def simple_literal(escaped_lexical: Any) -> Any:
    """``"lex"`` from an escaped lexical form."""
    from pyspark.sql import functions as F

    return F.concat(F.lit('"'), escaped_lexical, F.lit('"'))


def typed_literal(escaped_lexical: Any, datatype: str) -> Any:
    from pyspark.sql import functions as F

    return F.concat(F.lit('"'), escaped_lexical, F.lit(f'"^^<{datatype}>'))


def lang_literal(escaped_lexical: Any, lang: Any) -> Any:
    """``"lex"@lang``, or a simple literal when ``lang`` is ""."""
    from pyspark.sql import functions as F

    return F.when(lang == "", simple_literal(escaped_lexical)).otherwise(
        F.concat(F.lit('"'), escaped_lexical, F.lit('"@'), lang)
    )
