"""Window clauses of every kind in RSP-QL (rsp/rspql.py), mixed in one query."""

from __future__ import annotations

import pytest

from pytest_rspbench.rsp import rspql
from pytest_rspbench.rsp.counting import CountWindow
from pytest_rspbench.rsp.sessions import SessionWindow


def query(*windows: str) -> str:
    declared = "\n".join(f"FROM NAMED WINDOW :w{i} ON STREAM :s {w}" for i, w in enumerate(windows))
    used = " ".join(f"WINDOW :w{i} {{ ?s ?p ?o }}" for i in range(len(windows)))
    return (
        f"PREFIX : <http://e/>\nREGISTER RStream :out AS\nSELECT *\n{declared}\nWHERE {{ {used} }}"
    )


@pytest.mark.parametrize(
    ("written", "model"),
    [
        ("[ROWS 3]", CountWindow("rows", 3, 1)),
        ("[ROWS 3 STEP 2]", CountWindow("rows", 3, 2)),
        ("[rows 3 slide 2]", CountWindow("rows", 3, 2)),
        ("[ELEMENTS 4 STEP 2]", CountWindow("rows", 4, 2)),
        ("[TRIPLES 10]", CountWindow("triples", 10, 1)),
        ("[TRIPLES 10 STEP 5]", CountWindow("triples", 10, 5)),
        ("[RANGE TRIPLES 10]", CountWindow("triples", 10, 1)),
        ("[ SESSION 30s ]", SessionWindow(30000)),
        ("[SESSION PT0.5S]", SessionWindow(500)),
        ("[SESSION 2000ms]", SessionWindow(2000)),
    ],
)
def test_each_form_reads_into_its_model(written, model) -> None:
    (decl,) = rspql.parse(query(written)).declared
    assert decl.window == model
    assert decl.kind == model.kind
    assert (decl.name, decl.stream) == ("http://e/w0", "http://e/s")


def test_mixed_kinds_keep_declaration_order_and_time_windows_apart() -> None:
    parsed = rspql.parse(query("[ROWS 2]", "[RANGE 10s STEP 5s]", "[SESSION 1m]"))
    assert [d.kind for d in parsed.declared] == ["rows", "time", "session"]
    assert parsed.kinds == {"rows", "time", "session"}
    # Code that knows only time windows sees only those, unchanged.
    (time,) = parsed.windows
    assert (time.name, time.width, time.slide) == ("http://e/w1", 10000, 5000)
    # Every window is a named graph of the per-window query.
    assert parsed.static_sparql.count("GRAPH :w") == 3
    assert "ROWS" not in parsed.static_sparql and "SESSION" not in parsed.static_sparql
    rspql.check_sparql(parsed)


def test_a_time_only_query_declares_what_it_did_before() -> None:
    parsed = rspql.parse(query("[RANGE 10 STEP 5]"))
    assert parsed.declared == parsed.windows and parsed.kinds == {"time"}


@pytest.mark.parametrize(
    ("written", "message", "hint"),
    [
        ("[ROWS 0]", "window <http://e/w1> has [ROWS 0]; counts must be from 1", "whole numbers"),
        ("[ROWS 3 STEP 0]", "has [ROWS 3 STEP 0]", "whole numbers"),
        ("[TRIPLES 2.5]", "cannot read '2.5' as a number of elements", "[ROWS 10 STEP 2]"),
        ("[TRIPLES 10s]", "cannot read '10s' as a number of elements", "durations are for"),
        ("[SESSION 0ms]", "has a SESSION gap of 0 ms; it must be from 1", "SESSION 30s"),
        ("[SESSION soon]", "cannot read 'soon' as a duration", "milliseconds"),
        ("[COUNT 3]", "cannot read the window [COUNT 3] of <http://e/w1>", "[SESSION gap]"),
        ("[RANGE 10]", "cannot read the window [RANGE 10]", "a tumbling window has STEP = RANGE"),
    ],
)
def test_errors_name_the_line_and_say_what_to_write(written, message, hint) -> None:
    with pytest.raises(rspql.QuerySyntaxError) as caught:
        rspql.parse(query("[RANGE 10 STEP 10]", written))
    assert message in str(caught.value)
    assert hint in caught.value.hint
    assert caught.value.line == 5  # the second FROM NAMED WINDOW
