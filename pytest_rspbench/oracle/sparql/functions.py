"""SPARQL built-in functions (SPARQL 1.1 §17.4) as Spark column expressions.

Each handler takes rdflib's expression node and the variable scope and
returns an :class:`~pytest_rspbench.oracle.sparql.expressions.Expr`. String
functions work on the unescaped lexical form and print their result with the
canonical escapes again; argument compatibility (SPARQL 1.1 §17.4.3.1.2) is
checked per row and gives an error (NULL) when violated.

REGEX is compiled only for a constant pattern in the part of the XPath
regular expression syntax that means the same in Java (Spark) and in Rust
(the reference evaluator); anything else raises UnsupportedQueryError.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.sparql import literals as L
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.expressions import Env, Expr, compile_expr


def _arg(expr: Any, env: Env, name: str = "arg") -> Expr:
    return compile_expr(getattr(expr, name), env)


def _is_string(e: Expr) -> Any:
    return e.cls.isin(L.STRING, L.LANG)


def _bound(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    column = env.scope.get(str(expr.arg))
    return Expr(env, boolean=F.lit(False) if column is None else column.isNotNull())


def _if(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    condition = _arg(expr, env, "arg1").ebv()
    yes, no = _arg(expr, env, "arg2"), _arg(expr, env, "arg3")
    if yes.boolean is not None and no.boolean is not None:
        return Expr(env, boolean=F.when(condition, yes.boolean).when(~condition, no.boolean))
    return Expr(
        env,
        F.when(condition, yes.term).when(~condition, no.term),
        ranks=yes.ranks | no.ranks,
    )


def _coalesce(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    exprs = [compile_expr(e, env) for e in _args(expr)]
    terms = [e.term for e in exprs]
    return Expr(
        env,
        F.coalesce(*terms) if terms else F.lit(None).cast("string"),
        ranks=frozenset().union(*(e.ranks for e in exprs)),
    )


def _args(expr: Any) -> list[Any]:
    # rdflib's CompValue answers a missing key with the key's name.
    return list(expr["arg"]) if "arg" in expr and isinstance(expr["arg"], list) else []


def _str(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    term = _arg(expr, env).term
    # Between the brackets, as a substring: a regular expression's "." does not
    # match a line separator (U+2028), which an IRI may hold.
    inside = F.when(term.endswith(">"), term.substr(F.lit(2), F.length(term) - 2))
    iri = L.simple_literal(L.escape(inside))
    return Expr(
        env,
        F.when(L.is_iri(term), iri).when(L.is_literal(term), L.simple_literal(L.lexical(term))),
    )


def _lang(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    term = _arg(expr, env).term
    return Expr(env, F.when(L.is_literal(term), L.simple_literal(L.language(term))))


def _datatype(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    term = _arg(expr, env).term
    return Expr(
        env,
        F.when(L.is_literal(term), F.concat(F.lit("<"), L.datatype_iri(term), F.lit(">"))),
    )


def _test(predicate: Any) -> Any:
    def handler(expr: Any, env: Env) -> Expr:
        return Expr(env, boolean=predicate(_arg(expr, env)))

    return handler


def _is_numeric(e: Expr) -> Any:
    from pyspark.sql import functions as F

    return F.when(e.cls.isNotNull(), e.cls == L.NUMERIC)


def _same_term(expr: Any, env: Env) -> Expr:
    return Expr(env, boolean=_arg(expr, env, "arg1").term == _arg(expr, env, "arg2").term)


def _strlen(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    e = _arg(expr, env)
    length = F.length(L.unescape(L.lexical(e.term))).cast("long")
    number = N.build(
        F.lit(N.INTEGER), i=F.when(_is_string(e), length), ranks=frozenset((N.INTEGER,))
    )
    return Expr(env, number=env.num(number))


def _case(upper: bool) -> Any:
    def handler(expr: Any, env: Env) -> Expr:
        from pyspark.sql import functions as F

        e = _arg(expr, env)
        text = env.let(L.unescape(L.lexical(e.term)))
        changed = env.let(L.escape(F.upper(text) if upper else F.lower(text)))
        return Expr(env, F.when(_is_string(e), L.lang_literal(changed, L.language(e.term))))

    return handler


def _string_test(kind: str) -> Any:
    def handler(expr: Any, env: Env) -> Expr:
        from pyspark.sql import functions as F

        a, b = _arg(expr, env, "arg1"), _arg(expr, env, "arg2")
        lang_a, lang_b = L.language(a.term), L.language(b.term)
        compatible = ((a.cls == L.STRING) & (b.cls == L.STRING)) | (
            (a.cls == L.LANG) & ((b.cls == L.STRING) | ((b.cls == L.LANG) & (lang_a == lang_b)))
        )
        text_a = env.let(L.unescape(L.lexical(a.term)))
        text_b = env.let(L.unescape(L.lexical(b.term)))
        test = {
            "contains": lambda: text_a.contains(text_b),
            "starts": lambda: text_a.startswith(text_b),
            "ends": lambda: text_a.endswith(text_b),
        }[kind]()
        return Expr(env, boolean=F.when(compatible, test))

    return handler


def _concat(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    args = [compile_expr(e, env) for e in _args(expr)]
    if not args:
        return Expr(env, F.lit('""'))
    all_strings = F.lit(True)
    for a in args:
        all_strings = all_strings & _is_string(a)
    langs = [L.language(a.term) for a in args]
    same_lang = F.lit(True)
    for lang in langs[1:]:
        same_lang = same_lang & (lang == langs[0])
    # Escaping is per character, so concatenating escaped forms is exact.
    text = F.concat(*[L.lexical(a.term) for a in args])
    lang = F.when(same_lang, langs[0]).otherwise(F.lit(""))
    return Expr(env, F.when(all_strings, L.lang_literal(text, lang)))


def _langmatches(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    a, b = _arg(expr, env, "arg1"), _arg(expr, env, "arg2")
    tag = F.lower(L.string_lexical(a.term))
    ranges = F.lower(L.string_lexical(b.term))
    matches = F.when(ranges == "*", tag != "").otherwise(
        (tag == ranges) | tag.startswith(F.concat(ranges, F.lit("-")))
    )
    return Expr(env, boolean=F.when(tag.isNotNull() & ranges.isNotNull(), matches))


def _regex(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    text = _arg(expr, env, "text")
    pattern = _constant_string(expr.pattern, "the REGEX pattern")
    flags = _constant_string(expr.flags, "the REGEX flags") if expr.flags is not None else ""
    java = java_regex(pattern, flags)
    subject = L.unescape(L.lexical(text.term))
    return Expr(env, boolean=F.when(_is_string(text), subject.rlike(java)))


def _constant_string(term: Any, what: str) -> str:
    if not _plain(term):
        raise UnsupportedQueryError(f"{what} is not a constant simple literal")
    return str(term)


def _plain(term: Any) -> bool:
    from rdflib.term import Literal

    xsd_string = "http://www.w3.org/2001/XMLSchema#string"
    return (
        isinstance(term, Literal)
        and not term.language
        and (term.datatype is None or str(term.datatype) == xsd_string)
    )


_META = set(".*+?()[]{}|^$\\-/")


def java_regex(pattern: str, flags: str) -> str:
    """Translate a SPARQL (XPath) regex to a Java regex with the reference's meaning.

    >>> java_regex("^a.c$", "i")
    '(?d)(?iu)^a.c\\\\z'
    """
    if set(flags) - set("imsq"):
        raise UnsupportedQueryError(f"REGEX flags {flags!r} (supported: i, m, s, q)")
    prefix = "(?d)" + ("(?iu)" if "i" in flags else "") + ("(?m)" if "m" in flags else "")
    prefix += "(?s)" if "s" in flags else ""
    if "q" in flags:
        return prefix + re.escape(pattern).replace("\\ ", " ")
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt in _META or nxt in ("n", "t", "r"):
                out.append(c + nxt)
                i += 2
                continue
            raise UnsupportedQueryError(
                f"REGEX escape \\{nxt} (character classes differ in Java and Rust)"
            )
        if in_class:
            if c == "[" or pattern.startswith("&&", i):
                raise UnsupportedQueryError("REGEX nested character classes")
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(" and pattern.startswith("(?", i):
            raise UnsupportedQueryError("REGEX group modifiers (?...)")
        elif c == "{" and not re.match(r"\{[0-9]+(,[0-9]*)?\}", pattern[i:]):
            raise UnsupportedQueryError("REGEX braces that are not a repetition")
        elif c == "$" and "m" not in flags:
            c = "\\z"  # Java's $ also matches before a final line break.
        out.append(c)
        i += 1
    java = prefix + "".join(out)
    try:
        re.compile("".join(out).replace("\\z", "\\Z"))
    except re.error as exc:
        raise UnsupportedQueryError(f"REGEX pattern {pattern!r} is invalid: {exc}") from None
    return java


def _unsupported_here(expr: Any, env: Env) -> Expr:
    raise UnsupportedQueryError(f"{expr.name} outside a top-level FILTER")


FUNCTIONS = {
    "Builtin_BOUND": _bound,
    "Builtin_IF": _if,
    "Builtin_COALESCE": _coalesce,
    "Builtin_STR": _str,
    "Builtin_LANG": _lang,
    "Builtin_DATATYPE": _datatype,
    "Builtin_isIRI": _test(lambda e: L.is_iri(e.term)),
    "Builtin_isURI": _test(lambda e: L.is_iri(e.term)),
    "Builtin_isBLANK": _test(lambda e: L.is_blank(e.term)),
    "Builtin_isLITERAL": _test(lambda e: L.is_literal(e.term)),
    "Builtin_isNUMERIC": _test(_is_numeric),
    "Builtin_sameTerm": _same_term,
    "Builtin_STRLEN": _strlen,
    "Builtin_UCASE": _case(upper=True),
    "Builtin_LCASE": _case(upper=False),
    "Builtin_CONTAINS": _string_test("contains"),
    "Builtin_STRSTARTS": _string_test("starts"),
    "Builtin_STRENDS": _string_test("ends"),
    "Builtin_CONCAT": _concat,
    "Builtin_LANGMATCHES": _langmatches,
    "Builtin_REGEX": _regex,
    "Builtin_EXISTS": _unsupported_here,
    "Builtin_NOTEXISTS": _unsupported_here,
}
