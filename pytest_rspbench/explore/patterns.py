"""Graph patterns of explored queries, and the expressions over their variables.

A :class:`Var` knows the kind of term it is bound to (:mod:`.data`): what
the generator may compare it with, aggregate it by or order it by. Each
function draws one part of a WHERE clause from its own ``random.Random``,
so a query without one construct keeps every other part as it was (the
reduction in :mod:`.queries` relies on it)::

    base        ?x :n ?v1 . ?x :t ?l1             (a star; or a chain, one triple, ?x ?p ?o)
    optional    OPTIONAL { ?x :a ?o1 }
    union       { ?x :n ?u1 } UNION { ?x :t ?u1 }
    minus       MINUS { ?x :a :B }
    static      ?x :group ?g . ?g :weight ?k      (outside every window)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from pytest_rspbench.explore.data import CLASSES, KIND_OF_OBJECT, WORDS

ORDERABLE = frozenset({"number", "iri", "class"})
"""Kinds SPARQL orders totally among themselves (§15.1): numbers by value,
IRIs by their text. Literals of other kinds and blank nodes it leaves to the
implementation, so a LIMIT after ORDER BY over them has no one answer."""


@dataclass(frozen=True)
class Var:
    """A variable and the kind of term it is bound to.

    ``maybe`` is True when it may be unbound (OPTIONAL's right side, one
    branch of a UNION, a BIND whose expression can fail).
    """

    name: str
    kind: str
    maybe: bool = False

    def __str__(self) -> str:
        return "?" + self.name


@dataclass(frozen=True)
class Part:
    """A piece of a WHERE clause: its text and the variables it binds."""

    text: str
    binds: tuple[Var, ...] = ()
    predicates: frozenset[str] = frozenset()


def base(rng: random.Random, suffix: str, size: int) -> Part:
    """The basic graph pattern of a window: a star, a chain, one triple or ``?x ?p ?o``."""
    shape = rng.choice(("star", "star", "chain", "single", "any" if size > 1 else "single"))
    if shape == "any":
        return Part(
            f"?x ?p{suffix} ?o{suffix} .",
            (Var("x", "node"), Var(f"p{suffix}", "iri"), Var(f"o{suffix}", "any")),
            frozenset("ntar"),
        )
    if shape == "chain":
        tail = rng.choice("na")
        obj = Var(f"v{suffix}", KIND_OF_OBJECT[tail])
        return Part(
            f"?x :r ?y{suffix} . ?y{suffix} :{tail} {obj} .",
            (Var("x", "iri"), Var(f"y{suffix}", "node"), obj),
            frozenset({"r", tail}),
        )
    count = 1 if shape == "single" else rng.randint(2, min(3, 1 + size))
    predicates = rng.sample("ntar", count)
    subject = "node" if predicates == ["n"] else "iri"
    objects = [Var(f"{p}{suffix}", KIND_OF_OBJECT[p]) for p in predicates]
    text = " ".join(f"?x :{p} {v} ." for p, v in zip(predicates, objects, strict=True))
    return Part(text, (Var("x", subject), *objects), frozenset(predicates))


def optional(rng: random.Random, suffix: str, filtered: bool) -> Part:
    """``OPTIONAL { ?x :p ?o }``, with a FILTER on ``?o`` inside when ``filtered``."""
    predicate = rng.choice("tan")
    var = Var(f"o{suffix}", KIND_OF_OBJECT[predicate], maybe=True)
    inner = f" FILTER({_test(rng, replace(var, maybe=False))})" if filtered else ""
    return Part(f"OPTIONAL {{ ?x :{predicate} {var} .{inner} }}", (var,), frozenset(predicate))


def union(rng: random.Random, suffix: str) -> Part:
    """Two branches over ?x: one variable bound by both, or one by each."""
    left, right = rng.sample("nta", 2)
    if rng.random() < 0.5:
        var = Var(f"u{suffix}", "any")
        text = f"{{ ?x :{left} {var} . }} UNION {{ ?x :{right} {var} . }}"
        binds: tuple[Var, ...] = (var,)
    else:
        a = Var(f"u{suffix}", KIND_OF_OBJECT[left], maybe=True)
        b = Var(f"e{suffix}", KIND_OF_OBJECT[right], maybe=True)
        text = f"{{ ?x :{left} {a} . }} UNION {{ ?x :{right} {b} . }}"
        binds = (a, b)
    return Part(text, binds, frozenset({left, right}))


def minus(rng: random.Random) -> Part:
    """``MINUS {...}``: sharing ?x, or sharing no variable (then it removes nothing)."""
    form = rng.choice(("class", "text", "none"))
    if form == "class":
        return Part(f"MINUS {{ ?x :a :{rng.choice(CLASSES)} . }}", (), frozenset("a"))
    if form == "text":
        return Part("MINUS { ?x :t ?m . }", (), frozenset("t"))
    return Part("MINUS { ?z :a :A . }", (), frozenset("a"))


def static(rng: random.Random) -> Part:
    """A join with the static data on ?x."""
    if rng.random() < 0.5:
        return Part("?x :label ?label .", (Var("label", "text"),))
    return Part("?x :group ?g . ?g :weight ?k .", (Var("g", "iri"), Var("k", "number")))


def condition(rng: random.Random, var: Var, size: int) -> str:
    """A FILTER condition on ``var``; larger sizes combine two with && or ||."""
    first = _test(rng, var)
    if size >= 3 and rng.random() < 0.3:
        other = _test(rng, var)
        return f"({first}) {rng.choice(('&&', '||'))} !({other})"
    return first


def _test(rng: random.Random, var: Var) -> str:
    v = str(var)
    k = rng.randint(-1, 8)
    word = rng.choice(WORDS[:5])
    tests = {
        "number": (
            f"{v} > {k}",
            f"{v} <= {k}.5",
            f"{v} != {k}",
            f"{v} * 2 >= {k}",
            f"datatype({v}) = xsd:integer",
            f"isNumeric({v})",
        ),
        "text": (
            f'lang({v}) = "en"',
            f'langMatches(lang({v}), "en")',
            f'str({v}) = "{word}"',
            f'regex(str({v}), "^r")',
            f"strlen(str({v})) > 3",
            f'contains(lcase(str({v})), "e")',
        ),
        "class": (f"{v} = :{rng.choice(CLASSES)}", f"{v} != :A"),
        "iri": (f"{v} != :s1", f"sameTerm({v}, :s{rng.randrange(3)})", f"isIRI({v})"),
        "node": (f"isBlank({v})", f"isIRI({v})", f"{v} != :s0"),
        "any": (f"isLiteral({v})", f"{v} > {k}", f"isNumeric({v})"),
    }
    choices = list(tests.get(var.kind, tests["any"]))
    if var.maybe:
        choices += [f"bound({v})", f"!bound({v})"]
    return rng.choice(choices)


def expression(rng: random.Random, var: Var) -> tuple[str, str]:
    """A BIND expression over ``var`` and the kind of its value."""
    v = str(var)
    numeric = (f"{v} + 1", f"{v} * 2", f"-{v}", f"{v} / 2")
    if var.kind == "number":
        if rng.random() < 0.2:
            return f'IF({v} > 3, "big", "small")', "text"
        return rng.choice(numeric), "number"
    if var.kind == "text":
        return rng.choice(
            (f"STR({v})", f"LANG({v})", f"UCASE(STR({v}))", f'CONCAT(STR({v}), "!")')
        ), "text"
    if var.kind == "any":
        return rng.choice((f"{v} + 1", f"STR({v})", f"DATATYPE({v})")), "any"
    if var.maybe:
        return f'COALESCE({v}, "none")', "any"
    return rng.choice((f"isBlank({v})", f"STR({v})")), "any"
