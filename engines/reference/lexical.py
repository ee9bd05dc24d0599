"""Literals kept as written: RDF term identity despite pyoxigraph's store.

pyoxigraph's store keeps a number, boolean or date by its value: the data's
``"+8"^^xsd:integer`` comes back as ``"8"``, and ``"+8"`` and ``"8"``
become one term (even ``sameTerm`` says so). In RDF they are two terms with
one value: a SELECT of ``?v`` returns ``"+8"``, DISTINCT and GROUP BY keep
both apart, ``?v = 8`` holds for both and ``STR(?v)`` is ``"+8"``.

So a literal the store would rewrite is stored as a *surrogate*, a literal
of a datatype the store does not know (``"+8"^^<urn:rspbench:lexical:...#integer>``),
which it keeps as written and tells apart from every other term: patterns,
joins, DISTINCT, GROUP BY, COUNT and ``sameTerm`` then work on the terms as
written. Where a value is needed the query reads it through a function that
turns a surrogate back into its literal (:func:`rewrite`)::

    FILTER(?v > 3)             ->  FILTER(<urn:rspbench:value>(?v) > 3)
    BIND(?v AS ?w)                 (unchanged: the term itself is passed on)
    STR(?v), MIN(?v), MAX(?v)  ->  <urn:rspbench:str>(?v), <urn:rspbench:min>(?v), ...

and every answer is turned back into the literals as written
(:func:`original`). A query over data without such literals runs as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pyoxigraph as ox

from .query import SPARQL_TOKEN

SURROGATE = "urn:rspbench:lexical:"
VALUE = ox.NamedNode("urn:rspbench:value")
STR = ox.NamedNode("urn:rspbench:str")
MIN = ox.NamedNode("urn:rspbench:min")
MAX = ox.NamedNode("urn:rspbench:max")
_AS_WRITTEN = frozenset(
    {
        "http://www.w3.org/2001/XMLSchema#string",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString",
    }
)


def surrogate(quad: ox.Quad) -> ox.Quad:
    """``quad`` with its object replaced by a surrogate if the store would rewrite it."""
    term = quad.object
    if not isinstance(term, ox.Literal) or term.datatype.value in _AS_WRITTEN:
        return quad
    if _stored_as(term.value, term.datatype.value) == term.value:
        return quad
    stand_in = ox.Literal(term.value, datatype=ox.NamedNode(SURROGATE + term.datatype.value))
    return ox.Quad(quad.subject, quad.predicate, stand_in, quad.graph_name)


def is_surrogate(term: Any) -> bool:
    return isinstance(term, ox.Literal) and term.datatype.value.startswith(SURROGATE)


def original(term: Any) -> Any:
    """The literal a surrogate stands for; any other term as it is."""
    if is_surrogate(term):
        return ox.Literal(term.value, datatype=ox.NamedNode(term.datatype.value[len(SURROGATE) :]))
    return term


_SCRATCH = ox.Store()
_S, _P = ox.NamedNode("urn:rspbench:s"), ox.NamedNode("urn:rspbench:p")


@lru_cache(maxsize=65536)
def _stored_as(lexical: str, datatype: str) -> str:
    """The lexical form the store gives back for this literal."""
    quad = ox.Quad(_S, _P, ox.Literal(lexical, datatype=ox.NamedNode(datatype)))
    _SCRATCH.add(quad)
    try:
        stored = next(iter(_SCRATCH.quads_for_pattern(_S, _P, None))).object
        return stored.value if isinstance(stored, ox.Literal) else lexical
    finally:
        _SCRATCH.clear()


def _value(term: Any) -> Any:
    return original(term)


def _str(term: Any) -> Any:
    """SPARQL STR: an IRI's text, a literal's lexical form as written."""
    if isinstance(term, ox.NamedNode):
        return ox.Literal(term.value)
    if isinstance(term, ox.Literal):
        return ox.Literal(original(term).value)
    return None  # a blank node: an error


class _Extreme:
    """MIN or MAX in the order of ORDER BY, returning the term as written."""

    descending = False

    def __init__(self) -> None:
        self.terms: list[Any] = []

    def accumulate(self, term: Any) -> None:
        if term is not None:
            self.terms.append(term)

    def finish(self) -> Any:
        if not self.terms:
            return None
        store = ox.Store()
        key = ox.NamedNode("urn:rspbench:o")
        for k, term in enumerate(self.terms):
            subject = ox.NamedNode(f"urn:rspbench:k{k:09d}")
            store.add(ox.Quad(subject, key, original(term)))
        order = "DESC(?o)" if self.descending else "?o"
        query = f"SELECT ?k WHERE {{ ?k <{key.value}> ?o }} ORDER BY {order} ?k LIMIT 1"
        for row in store.query(query):  # type: ignore[union-attr]
            return self.terms[int(row["k"].value.rsplit("k", 1)[1])]
        return None


class _Max(_Extreme):
    descending = True


FUNCTIONS: dict[ox.NamedNode, Callable[..., Any]] = {VALUE: _value, STR: _str}
AGGREGATES: dict[ox.NamedNode, Callable[[], Any]] = {MIN: _Extreme, MAX: _Max}


# --- the query, rewritten ----------------------------------------------------------

_KEEP = {"BOUND", "SAMETERM", "COALESCE", "COUNT", "SAMPLE", "IF"}
"""Calls that pass a variable's term on (or test it as a term): a variable
that is a whole argument of one is left as it is (IF: its 2nd and 3rd)."""
_RENAMED = {"STR": f"<{STR.value}>", "MIN": f"<{MIN.value}>", "MAX": f"<{MAX.value}>"}
_NOT_CALLS = {"FILTER", "HAVING", "ASC", "DESC", "BIND", "SELECT", "DISTINCT", "REDUCED", "BY"}
_NOT_CALLS |= {"AS", "WHERE", "VALUES", "GROUP", "ORDER"}
_CLAUSES = {"SELECT": "select", "WHERE": "pattern", "GROUP": "group", "ORDER": "order"}
_CLAUSES |= {"HAVING": "having", "LIMIT": "pattern", "OFFSET": "pattern", "VALUES": "pattern"}


@dataclass
class _Frame:
    """An open bracket: ``(`` of an expression or call, ``{`` of a group."""

    kind: str  # "expr", "bind" (the term of a whole variable passes on), "group", "paren"
    call: str = ""
    commas: int = 0


@dataclass
class _Rewriter:
    tokens: list[re.Match[str]]
    out: list[tuple[int, int, str]] = field(default_factory=list)
    frames: list[_Frame] = field(default_factory=list)
    mode: str = "pattern"

    def run(self) -> None:
        for k, token in enumerate(self.tokens):
            text = token.group()
            if text.startswith("#"):
                continue
            if text == "(":
                self._open(k)
            elif text == ")":
                if self.frames and self.frames[-1].kind != "group":
                    self.frames.pop()
            elif text == "{":
                self.frames.append(_Frame("group"))
                self.mode = "pattern"
            elif text == "}":
                while self.frames and self.frames.pop().kind != "group":
                    pass
                self.mode = "pattern"
            elif text == "," and self.frames:
                self.frames[-1].commas += 1
            elif text[0] in "?$":
                self._variable(k, token)
            elif token.group("word") and not self._in_expression():
                self.mode = _CLAUSES.get(text.upper(), self.mode)
            self._rename(k, token)

    def _previous(self, k: int) -> str:
        for token in reversed(self.tokens[:k]):
            if not token.group().startswith("#"):
                return token.group()
        return ""

    def _next(self, k: int) -> str:
        for token in self.tokens[k + 1 :]:
            if not token.group().startswith("#"):
                return token.group()
        return ""

    def _in_expression(self) -> bool:
        return bool(self.frames) and self.frames[-1].kind in ("expr", "bind")

    def _open(self, k: int) -> None:
        before = self._previous(k)
        upper = before.upper()
        named = bool(before) and (
            before[0] == "<" or ":" in before or (before[0].isalpha() and upper not in _NOT_CALLS)
        )
        call = upper if named else ""
        if self._in_expression():
            self.frames.append(_Frame("expr", call))
        elif upper in ("FILTER", "HAVING", "ASC", "DESC") or self.mode in ("order", "having"):
            self.frames.append(_Frame("expr", call))
        elif upper == "BIND" or (self.mode in ("select", "group") and not named):
            self.frames.append(_Frame("bind"))
        elif named and (self.mode in ("select", "group") or self._after_filter(k)):
            self.frames.append(_Frame("expr", call))  # GROUP BY str(?v), FILTER regex(...)
        else:
            self.frames.append(_Frame("paren"))

    def _after_filter(self, k: int) -> bool:
        """Is the name before the ``(`` at ``k`` right after FILTER?"""
        return self._previous(k - 1).upper() == "FILTER"

    def _rename(self, k: int, token: re.Match[str]) -> None:
        name = token.group().upper()
        if name in _RENAMED and self._next(k) == "(" and self._in_call_position():
            self.out.append((token.start(), token.end(), _RENAMED[name]))

    def _in_call_position(self) -> bool:
        return self._in_expression() or self.mode in ("select", "group", "order", "having")

    def _variable(self, k: int, token: re.Match[str]) -> None:
        frame = self.frames[-1] if self.frames else None
        before, after = self._previous(k), self._next(k)
        if before.upper() == "AS":
            return
        whole = before in ("(", ",") or before.upper() == "DISTINCT"
        whole = whole and (after in (")", ",", ";") or after.upper() == "AS")
        if frame is None or frame.kind not in ("expr", "bind"):
            if self.mode == "order" and (frame is None or frame.kind == "group"):
                self._wrap(token, VALUE)
            return
        if whole and frame.kind == "bind":
            return
        if whole and frame.call in _KEEP and not (frame.call == "IF" and frame.commas == 0):
            return
        if whole and frame.call == "GROUP_CONCAT":
            self._wrap(token, STR)
            return
        if whole and frame.call in _RENAMED:
            return  # read by the renamed function itself
        self._wrap(token, VALUE)

    def _wrap(self, token: re.Match[str], function: ox.NamedNode) -> None:
        self.out.append((token.start(), token.end(), f"<{function.value}>({token.group()})"))


def rewrite(sparql: str) -> str:
    """``sparql`` reading values through :data:`VALUE` (see the module's text).

    >>> rewrite("SELECT (STR(?v) AS ?s) WHERE { ?x <p> ?v FILTER(?v > 3) }")
    'SELECT (<urn:rspbench:str>(?v) AS ?s) WHERE { ?x <p> ?v FILTER(<urn:rspbench:value>(?v) > 3) }'
    >>> rewrite("SELECT ?v WHERE { ?x <p> ?v } ORDER BY ?v")
    'SELECT ?v WHERE { ?x <p> ?v } ORDER BY <urn:rspbench:value>(?v)'
    """
    rewriter = _Rewriter(list(SPARQL_TOKEN.finditer(sparql)))
    rewriter.run()
    out, last = [], 0
    for start, end, text in sorted(rewriter.out):
        out += [sparql[last:start], text]
        last = end
    return "".join([*out, sparql[last:]])


def odd(quads: Iterator[ox.Quad]) -> bool:
    """Does any of ``quads`` hold a surrogate?"""
    return any(is_surrogate(q.object) for q in quads)
