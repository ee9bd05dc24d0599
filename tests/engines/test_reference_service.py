"""The reference engine makes no network requests: a query with SERVICE is refused.

pyoxigraph answers ``SERVICE <url>`` by sending the query to ``url``, so
unguarded, the reference engine would send HTTP requests from a test run. An
endpoint on loopback counts the requests it gets: none may arrive, and the
engine error says what to do instead. (The oracle's side: tests/oracle/test_service.py.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rspbench_engines.reference.evaluation import WindowStore
from rspbench_engines.reference.query import service_calls

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration, Semantics
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.stream.model import Event, Stream

from helpers.endpoint import Endpoint, serving
from helpers.reference import EX, query, run, triple

TUMBLING = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]"
EVENTS = [(1, [triple("a", "p", "b")]), (12, [triple("b", "p", "c")])]


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serving() as found:
        yield found


def test_the_endpoint_answers_when_asked(endpoint: Endpoint) -> None:
    """The control: without the guard, pyoxigraph would reach this endpoint."""
    import pyoxigraph as ox

    list(ox.Store().query(f"SELECT * WHERE {{ SERVICE <{endpoint.url}> {{ ?s ?p ?o }} }}"))
    assert len(endpoint.requests) == 1


@pytest.mark.parametrize(
    "where",
    [
        "WINDOW :w { ?x :p ?y } SERVICE <URL> { ?y :q ?z }",
        "WINDOW :w { ?x :p ?y } service silent <URL> { ?y :q ?z }",
        "WINDOW :w { ?x :p ?y } OPTIONAL { SERVICE <URL> { ?y :q ?z } }",
        "WINDOW :w { ?x :p ?y } FILTER EXISTS { SERVICE <URL> { ?y :q ?z } }",
        "BIND(<URL> AS ?e) WINDOW :w { ?x :p ?y } SERVICE ?e { ?y :q ?z }",
        "WINDOW :w { ?x :p ?y } # a comment\nSERVICE<URL>{ ?y :q ?z }",
    ],
)
def test_a_query_with_service_is_refused_and_sends_nothing(endpoint: Endpoint, where: str) -> None:
    text = query("RStream", TUMBLING, where.replace("URL", endpoint.url))
    with pytest.raises(ValueError) as info:
        run(text, EVENTS, end=20)
    message = str(info.value)
    assert message.startswith("the query calls SERVICE ")
    assert "the reference engine makes no network requests" in message
    assert "HINT: put the data the query needs from the endpoint into a file" in message
    assert endpoint.requests == []


def test_the_error_names_the_endpoint(endpoint: Endpoint) -> None:
    text = query("RStream", TUMBLING, f"SERVICE <{endpoint.url}> {{ ?s ?p ?o }}")
    with pytest.raises(ValueError, match=f"calls SERVICE <{endpoint.url}>;"):
        run(text, EVENTS, end=20)


def test_a_window_store_refuses_service_too(endpoint: Endpoint) -> None:
    with pytest.raises(ValueError, match="makes no network requests"):
        WindowStore(f"SELECT * WHERE {{ SERVICE <{endpoint.url}> {{ ?s ?p ?o }} }}")
    assert endpoint.requests == []


def test_through_the_harness_it_is_an_engine_error(endpoint: Endpoint) -> None:
    """As the plugin runs it: one clear engine error, no request, no traceback."""
    text = query("RStream", TUMBLING, f"SERVICE <{endpoint.url}> {{ ?s ?p ?o }}")
    profile = resolve("reference", None)
    stream = Stream(EX + "s", lambda: iter([Event(1, (triple("a", "p", "b"),))]), "memory")
    registration = Registration(text, (EX + "s",), 0, Semantics())
    actual = harness.run(profile.create(None), registration, [stream], 20)
    assert actual.error is not None
    assert "calls SERVICE" in actual.error and "Traceback" not in actual.error
    assert endpoint.requests == []


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT * WHERE { ?s <http://x/SERVICE> 'SERVICE <http://x>' }",
        'SELECT * WHERE { ?s ?p """SERVICE "quoted" <http://x> { }""" }',
        "SELECT * WHERE { ?s ?p 'it\\'s SERVICE <http://x> {}' }",
        "PREFIX service: <http://x/> SELECT * WHERE { ?s service:SERVICE ?service }",
        "PREFIX : <http://x/> SELECT * { _:SERVICE ?p ?o . ?s :SERVICE ?o } # SERVICE <x> {}",
    ],
)
def test_the_word_service_elsewhere_is_no_call(sparql: str) -> None:
    assert service_calls(sparql) == []
    WindowStore(sparql)  # and the engine takes it


def test_the_word_service_elsewhere_runs_normally(endpoint: Endpoint) -> None:
    text = query(
        "RStream",
        TUMBLING,
        "WINDOW :w { ?x :p ?y } BIND('SERVICE <URL> {}' AS ?note)".replace("URL", endpoint.url),
    )
    out = run(text, EVENTS, end=20)
    assert [len(r.bindings) for r in out] == [1, 1]
    assert endpoint.requests == []
