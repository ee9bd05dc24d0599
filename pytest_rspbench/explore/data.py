"""The RDF vocabulary of explored streams: predicates whose objects have one kind.

Each predicate's objects are of one kind, so the query generator knows what a
variable can be bound to and never writes a query whose answer is left to the
implementation (an ORDER BY ... LIMIT cut between terms SPARQL does not order,
a MIN between equal values of two datatypes)::

    :n  subject: IRI or blank node   object: a number (integer, decimal, double)
    :t  subject: IRI                 object: text (plain, xsd:string, language-tagged)
    :a  subject: IRI                 object: a class IRI (:A, :B, :C)
    :r  subject: IRI                 object: IRI or blank node (a link)

Numbers never tie across datatypes: integers are whole, decimals end in .5
and doubles in .25 (both exact in binary, so sums and averages of doubles do
not depend on the order they are added in). Static data gives subjects a
``:label`` (text) and a ``:group`` whose ``:weight`` is a number.
"""

from __future__ import annotations

import random

from pytest_rspbench.stream.model import Triple

EX = "http://example.org/explore/"
XSD = "http://www.w3.org/2001/XMLSchema#"
SUBJECTS = 5  # :s0 .. :s4
BLANKS = 3  # _:b0 .. _:b2
CLASSES = ("A", "B", "C")
WORDS = ("red", "rouge", "blue", "Bleu", "été", 'say "hi"')
TAGS = ("en", "fr", "en-GB")
GROUPS = 3  # :g0 .. :g2

# What a variable bound by a pattern can be (the generator's kinds).
KIND_OF_OBJECT = {"n": "number", "t": "text", "a": "class", "r": "node"}


def iri(local: str) -> str:
    """An N-Triples IRI in the explore namespace.

    >>> iri("s0")
    '<http://example.org/explore/s0>'
    """
    return f"<{EX}{local}>"


def subject(rng: random.Random, blank: bool) -> str:
    """An IRI subject, or a blank node when ``blank`` and a coin says so."""
    if blank and rng.random() < 0.3:
        return f"_:b{rng.randrange(BLANKS)}"
    return iri(f"s{rng.randrange(SUBJECTS)}")


def number(rng: random.Random, odd_forms: bool = False) -> str:
    """A numeric literal: an integer, a decimal ending in .5 or a double ending in .25.

    With ``odd_forms``, now and then a non-canonical lexical form ("+3",
    "03", "2.50"): the same value, another term.
    """
    whole = rng.randint(-2, 9)
    kind = rng.choice(("integer", "integer", "decimal", "double"))
    if kind == "integer":
        text = str(whole)
        if odd_forms and rng.random() < 0.2:
            text = rng.choice((f"+{abs(whole)}", f"0{abs(whole)}"))
    elif kind == "decimal":
        text = f"{whole}.5" if whole >= 0 else f"-{abs(whole) - 1}.5"
        if odd_forms and rng.random() < 0.2:
            text += "0"
    else:
        text = f"{whole}.25E0" if whole >= 0 else f"-{abs(whole) - 1}.75E0"
    return f'"{text}"^^<{XSD}{kind}>'


def text(rng: random.Random) -> str:
    """A text literal: plain, typed xsd:string or language-tagged."""
    word = rng.choice(WORDS).replace('"', '\\"')
    form = rng.random()
    if form < 0.4:
        return f'"{word}"'
    if form < 0.5:
        return f'"{word}"^^<{XSD}string>'
    return f'"{word}"@{rng.choice(TAGS)}'


def triple(rng: random.Random, predicate: str, blank: bool, odd_forms: bool = False) -> Triple:
    """One stream triple with ``predicate`` (``n``, ``t``, ``a`` or ``r``)."""
    if predicate == "n":
        return (subject(rng, blank), iri("n"), number(rng, odd_forms))
    if predicate == "t":
        return (subject(rng, False), iri("t"), text(rng))
    if predicate == "a":
        return (subject(rng, False), iri("a"), iri(rng.choice(CLASSES)))
    return (subject(rng, False), iri("r"), subject(rng, blank))


def static_triples(rng: random.Random) -> tuple[Triple, ...]:
    """Background data: labels, groups and the groups' weights."""
    out: list[Triple] = []
    for k in range(SUBJECTS):
        if rng.random() < 0.7:
            out.append((iri(f"s{k}"), iri("label"), text(rng)))
        if rng.random() < 0.7:
            out.append((iri(f"s{k}"), iri("group"), iri(f"g{rng.randrange(GROUPS)}")))
    for g in range(GROUPS):
        out.append((iri(f"g{g}"), iri("weight"), number(rng)))
    return tuple(out)
