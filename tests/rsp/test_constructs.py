"""The query constructs a query uses, read off its SPARQL algebra."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_rspbench.rsp.constructs import NAMES, shown, used
from pytest_rspbench.rsp.rspql import parse

HEAD = """PREFIX : <http://ex/>
REGISTER RStream :o AS SELECT {select}
FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 5]
{more}WHERE {{ {where} }} {tail}"""


def constructs(where: str, select: str = "*", tail: str = "", more: str = "") -> list[str]:
    text = HEAD.format(select=select, where=where, tail=tail, more=more)
    return sorted(used(parse(text)))


@pytest.mark.parametrize(
    ("where", "select", "tail", "expected"),
    [
        ("WINDOW :w { ?x :p ?v }", "*", "", []),
        ("WINDOW :w { ?x :p ?v FILTER(?v > 1) }", "*", "", ["filter"]),
        ("WINDOW :w { ?x :p ?v OPTIONAL { ?x :q ?l } }", "*", "", ["optional"]),
        (
            'WINDOW :w { ?x :p ?v OPTIONAL { ?x :q ?l FILTER(lang(?l) = "en") } }',
            "*",
            "",
            ["filter", "optional"],
        ),
        ("WINDOW :w { { ?x :p ?v } UNION { ?x :q ?v } }", "*", "", ["union"]),
        ("WINDOW :w { ?x :p ?v MINUS { ?x :q 1 } }", "*", "", ["minus"]),
        ("WINDOW :w { ?x :p ?v BIND(?v + 1 AS ?b) }", "*", "", ["bind"]),
        ("WINDOW :w { ?x :p ?v }", "?x (?v * 2 AS ?d)", "", ["bind"]),
        ("WINDOW :w { ?x :p ?v }", "?x (SUM(?v) AS ?s)", "GROUP BY ?x", ["aggregates"]),
        ("WINDOW :w { ?x :p ?v }", "(COUNT(*) AS ?n)", "", ["aggregates"]),
        ("WINDOW :w { ?x :p ?v }", "DISTINCT ?x", "", ["distinct"]),
        ("WINDOW :w { ?x :p ?v }", "?x", "ORDER BY ?x", ["order-by"]),
        ("WINDOW :w { ?x :p ?v }", "?x", "ORDER BY ?x LIMIT 2", ["limit", "order-by"]),
        ("WINDOW :w { ?x :p ?v } ?x :label ?l", "*", "", ["static-data"]),
        ("WINDOW :w { ?x :p ?v FILTER NOT EXISTS { ?x :q 1 } }", "*", "", ["exists", "filter"]),
        ("WINDOW :w { ?x :p ?v VALUES ?v { 1 2 } }", "*", "", ["values"]),
        ("WINDOW :w { ?x :p ?v { SELECT ?x WHERE { ?x :q 1 } } }", "*", "", ["subquery"]),
    ],
)
def test_each_construct_is_found(where: str, select: str, tail: str, expected: list[str]) -> None:
    assert constructs(where, select, tail) == expected


def test_two_windows_count_as_one_construct() -> None:
    more = "FROM NAMED WINDOW :w2 ON STREAM :s [RANGE 20 STEP 5]\n"
    assert constructs("WINDOW :w { ?x :p ?v } WINDOW :w2 { ?x :q ?u }", more=more) == [
        "two-windows"
    ]


def test_a_keyword_in_a_string_or_an_iri_is_no_construct() -> None:
    where = 'WINDOW :w { ?x <http://ex/OPTIONAL> "FILTER MINUS UNION" }'
    assert constructs(where) == []


def test_shown_follows_the_vocabulary_order() -> None:
    assert shown(frozenset({"limit", "optional"})) == "optional, limit"
    assert shown(frozenset()) == "plain pattern"


def test_the_engine_schema_lists_the_vocabulary() -> None:
    import pytest_rspbench

    schema = Path(pytest_rspbench.__file__).parent / "schemas" / "engine-v1.schema.json"
    listed = json.loads(schema.read_text())["properties"]["unsupported"]["items"]["enum"]
    assert tuple(listed) == NAMES
