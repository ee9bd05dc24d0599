"""SPARQL's ORDER BY order of terms as Spark sort keys (used by ORDER BY, MIN, MAX).

SPARQL 1.1 §15.1: unbound < blank nodes < IRIs < literals; literals are
ordered by ``<`` where it is defined. The key below orders blank nodes by
label, IRIs by their text, numbers by value, strings (and language-tagged
strings of one tag) by code point. Between literals that ``<`` does not
compare (a number and a string, say) SPARQL leaves the order undefined; the
key is then deterministic but may differ from the reference evaluator's
(which falls back to comparing lexical forms). Ties (1 and 1.0) stay ties.
"""

from __future__ import annotations

from typing import Any

from pytest_rspbench.oracle.sparql import literals as L
from pytest_rspbench.oracle.sparql import numerics as N


def key_columns(term: Any, let: N.Let = N._same) -> list[Any]:
    """Ascending sort key columns for a term column (NULL = unbound first)."""
    from pyspark.sql import functions as F

    kind = F.when(term.isNull(), 0).when(L.is_blank(term), 1).when(L.is_iri(term), 2).otherwise(3)
    number = N.parse(term, let)
    iri = F.when(L.is_iri(term), term.substr(F.lit(2), F.length(term) - 2))
    literal = L.is_literal(term)
    return [
        kind,
        number.as_double(),
        number.as_decimal(),
        F.when(literal, L.language(term)),
        F.when(literal, L.unescape(L.lexical(term))),
        F.when(literal, L.datatype_iri(term)),
        F.coalesce(iri, F.when(L.is_blank(term), term)),
    ]


def sort_columns(term: Any, descending: bool = False, let: N.Let = N._same) -> list[Any]:
    """Sort expressions for ``ORDER BY [DESC] term``."""
    keys = [let(k) for k in key_columns(term, let)]
    return [k.desc_nulls_last() if descending else k.asc_nulls_first() for k in keys]


def key_struct(term: Any, let: N.Let = N._same) -> Any:
    """One comparable struct column (for ``min_by``/``max_by``)."""
    from pyspark.sql import functions as F

    return F.struct(*[k.alias(f"k{i}") for i, k in enumerate(key_columns(term, let))])
