"""The oracle makes no network requests: a query with SERVICE is refused.

The compiled plan does not handle SERVICE, so such a query would fall back
to pyoxigraph, which sends the query to the endpoint, from inside a test run. An endpoint on loopback counts the requests it gets: none may arrive,
and the error says what to do instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.oracle.sparql.fallback import evaluate_window, refuse_service
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream

from helpers.endpoint import Endpoint, serving

IRI = "http://ex/s"
TRIPLE = ("<http://ex/a>", "<http://ex/p>", "<http://ex/b>")


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serving() as found:
        yield found


def query(url: str) -> Any:
    return parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x ?z\n"
        f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 10 STEP 10]\n"
        f"WHERE {{ WINDOW :w {{ ?x :p ?y }} SERVICE <{url}> {{ ?y :q ?z }} }}"
    )


def no_spark() -> Any:
    raise AssertionError("Spark was started for a query the oracle refuses")


def test_the_oracle_refuses_service_before_starting_spark(endpoint: Endpoint) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    stream = Stream(IRI, lambda: iter([Event(1, (TRIPLE,))]), "in memory", end=10)
    with pytest.raises(OracleError) as info:
        expected_output(no_spark, query(endpoint.url), [stream], Semantics(t0=0))
    assert not isinstance(info.value, UnsupportedQueryError)  # no fallback either
    assert str(info.value).startswith(f"the query calls SERVICE <{endpoint.url}>")
    assert "HINT: put the data" in str(info.value)
    assert endpoint.requests == []


def test_the_fallback_refuses_service(endpoint: Endpoint) -> None:
    sparql = f"SELECT * WHERE {{ SERVICE <{endpoint.url}> {{ ?s ?p ?o }} }}"
    with pytest.raises(OracleError, match="makes no network requests"):
        evaluate_window(sparql, [("http://ex/w", *TRIPLE)])
    assert endpoint.requests == []


def test_gracious_mode_refuses_service(endpoint: Endpoint) -> None:
    from pytest_rspbench.oracle.borders import evaluate_borders

    q = query(endpoint.url)
    (window,) = q.windows
    rows = [(IRI, *TRIPLE, 1)]
    with pytest.raises(OracleError, match="SERVICE"):
        evaluate_borders(object(), q, window, rows, [], [(0, 0, 0, 9)])
    assert endpoint.requests == []


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT * WHERE { SERVICE <http://x/sparql> { ?s ?p ?o } }",
        "SELECT * WHERE { SERVICE SILENT <http://x/sparql> { ?s ?p ?o } }",
        "SELECT * WHERE { ?s ?p ?o SERVICE ?endpoint { ?o ?q ?r } }",
        "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <http://x> { ?s ?p ?o } } }",
        "SELECT * WHERE { OPTIONAL { SERVICE <http://x> { ?s ?p ?o } } }",
        "SELECT * WHERE { { SELECT ?s { SERVICE <http://x> { ?s ?p ?o } } } }",
        "PREFIX e: <http://x/> SELECT * WHERE { SERVICE e:sparql { ?s ?p ?o } }",
        "not SPARQL rdflib can parse, SERVICE <http://x> {",
    ],
)
def test_every_place_service_can_hide_is_found(sparql: str) -> None:
    with pytest.raises(OracleError, match="the query calls SERVICE"):
        refuse_service(sparql)


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT * WHERE { ?s <http://x/SERVICE> 'SERVICE <http://x>' }",
        "PREFIX service: <http://x/> SELECT * WHERE { ?s service:p ?o }",
    ],
)
def test_the_word_service_elsewhere_is_fine(sparql: str) -> None:
    refuse_service(sparql)
