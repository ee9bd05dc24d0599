"""Numbers are read only from the lexical forms their datatype admits.

Python's ``Decimal`` and ``float`` accept more than XSD does: ``sNaN``,
``Infinity``, ``1_000``, Unicode digits, white space around the number,
exponents in an ``xsd:decimal``. An engine that sends such a literal must
get a verdict (its term compared as a term), never a ``ValueError`` from deep
inside value equality (``float(Decimal("sNaN"))`` raises).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.rsp import bags
from pytest_rspbench.rsp.terms import XSD, numeric_value

INTEGERS = ["integer", "long", "int", "short", "byte", "nonNegativeInteger", "unsignedLong"]
MALFORMED = {
    "integer": [
        "sNaN",
        "-sNaN",
        "NaN",
        "Infinity",
        "1.5",
        "1e5",
        "1_000",
        " 1",
        "1 ",
        "+-1",
        "",
        "١٢",
        "0x10",
        "INF",
        "-INF",
        "+Infinity",
        "infinity",
        "snan",
        "+",
        "-",
        "++1",
        "1+",
        "\t1",
        "1\n",
        " ",
    ],
    "decimal": [
        "sNaN",
        "NaN",
        "-Infinity",
        "inf",
        "1e5",
        "1E-2",
        "1_0.5",
        " 1.5",
        "1.5 ",
        "٣.٥",
        "",
        ".",
        "-sNaN",
        "nan",
        "INF",
        "+INF",
        "Infinity",
        "+Infinity",
        "1.5e3",
        "1e",
        "1.2.3",
        "+",
        "-",
        "+-1.5",
        "\t1.5",
        " ",
    ],
    "float": [
        "sNaN",
        "nan",
        "-NaN",
        "Infinity",
        "inf",
        "+inf",
        "1_0.5",
        " 1.0",
        "1.0e",
        "e5",
        "",
        "٣",
    ],
    "double": [
        "sNaN",
        "nan",
        "infinity",
        "-Infinity",
        "+Infinity",
        "INFINITY",
        "+NaN",
        "-NaN",
        "NaN ",
        " INF",
        "1__0",
        "1.0 ",
        "1e5.0",
        "1e",
        "e",
        "+",
        "++1",
        "",
        ".",
    ],
}
WELL_FORMED = {
    "integer": ["0", "-12", "+7", "0012"],
    "decimal": ["1.5", "-.5", "+1.", "3", "007.100"],
    "float": ["1.5e3", "-INF", "INF", "+INF", "NaN", ".5E-2", "7"],
    "double": ["1E0", "-0.0", "NaN", "INF"],
}


def literal(lex: str, datatype: str) -> str:
    return f'"{lex}"^^<{XSD}{datatype}>'


@pytest.mark.parametrize(
    ("lex", "datatype"),
    [(lex, dt) for dt, forms in MALFORMED.items() for lex in forms]
    + [(lex, dt) for dt in INTEGERS[1:] for lex in MALFORMED["integer"]],
)
def test_a_malformed_number_is_no_number_and_value_equality_compares_it_as_a_term(
    lex: str, datatype: str
) -> None:
    term = literal(lex, datatype)
    assert numeric_value(term) is None
    sent = Counter({(("v", term),): 1})
    expected = Counter({(("v", literal("1", "integer")),): 1})
    for tolerance in (0.0, 0.5):
        matched = bags.match(sent, expected, "value", tolerance)
        assert matched.common == 0 and matched.unexpected == ((("v", term),),)
        assert bags.match(sent, Counter(sent), "value", tolerance).common == 1


@pytest.mark.parametrize(
    ("lex", "datatype"), [(lex, dt) for dt, forms in WELL_FORMED.items() for lex in forms]
)
def test_every_form_the_datatype_admits_is_a_number(lex: str, datatype: str) -> None:
    assert numeric_value(literal(lex, datatype)) is not None


@given(lex=st.text(max_size=12), datatype=st.sampled_from(sorted(MALFORMED) + INTEGERS))
def test_no_lexical_form_makes_value_equality_raise(lex: str, datatype: str) -> None:
    term = literal(lex.replace("\\", "").replace('"', ""), datatype)
    other = literal("1", "decimal")
    bags.match(Counter({(("v", term),): 1}), Counter({(("v", other),): 1}), "value", 0.1)
    bags.match(Counter({(("v", term),): 1}), Counter({(("v", other),): 1}), "value", 0.0)
