"""SPARQL errors are spec errors at the user's YAML line and column.

The per-window query the oracle derives from the RSP-QL text is parsed when
the spec loads (``pytest --co``, ``rspbench validate``), not after Spark has
started; the error points at the place in the ``query: |`` block the user
wrote, with a ``^`` under the column, not at a char offset of the rewritten
query ("Expected SelectQuery, found 'GRAPH' (at char 134)").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from pytest_rspbench.errors import SpecError
from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec.loader import load_spec

SPEC = """\
rspbench: 1
name: sparql
streams:
  - iri: http://example.org/s
    source: {kind: generator, name: workload, duration: 1000}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP 1000]
  WHERE {
    WINDOW :w { ?s ?p ?o .
      FILTER(?o > 3) }
  }
matrix:
  range: [1000, 2000]
engines: [reference]
"""
#  line 12: '    WINDOW :w { ?s ?p ?o .'     line 13: '      FILTER(?o > 3) }'

CASES = [
    # id, old, new, YAML line, column, problem
    (
        "filter-without-operand",
        "FILTER(?o > 3)",
        "FILTER(?o > )",
        13,
        17,
        "in the expression: expected ')', found '>'",
    ),
    (
        "unclosed-brace",
        "FILTER(?o > 3) }",
        "FILTER(?o > 3)",
        11,
        9,
        "the '{' opened here is never closed",
    ),
    (
        "stray-brace",
        "  }\nmatrix:",
        "  }\n  }\nmatrix:",
        15,
        3,
        "'}' closes no bracket",
    ),
    (
        "misplaced-from-named",
        "  }\nmatrix:",
        "  }\n  FROM NAMED <http://example.org/g>\nmatrix:",
        15,
        3,
        "FROM NAMED is misplaced",
    ),
    (
        "from-named-graph",
        "  WHERE {",
        "  FROM NAMED <http://example.org/g>\n  WHERE {",
        11,
        3,
        "FROM and FROM NAMED take windows only",
    ),
    (
        "window-declared-after-where",
        "  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP 1000]\n",
        "",
        14,
        3,
        "FROM NAMED WINDOW is misplaced",
    ),
    (
        "undeclared-prefix",
        "?s ?p ?o",
        "?s foo:p ?o",
        12,
        20,
        "prefix 'foo:' is not declared",
    ),
    (
        "undeclared-datatype-prefix",
        "?o > 3",
        '?o > "3"^^xsd:int',
        13,
        24,
        "prefix 'xsd:' is not declared",
    ),
    (
        "missing-dot",
        "?s ?p ?o .",
        "?s ?p ?o ?x ?y",
        12,
        26,
        "expected '}', found '?'",
    ),
]


def write(folder: Path, old: str, new: str) -> Path:
    text = SPEC.replace(old, new, 1)
    if not new:  # the window moved below the query body
        text = text.replace(
            "  }\nmatrix:",
            "  }\n  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]\nmatrix:",
        )
    assert text != SPEC
    path = folder / "sparql.rspbench.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "line", "column", "problem"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_sparql_error_at_the_yaml_line_and_column(
    tmp_path: Path, old: str, new: str, line: int, column: int, problem: str
) -> None:
    path = write(tmp_path, old, new)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    text = str(caught.value)
    first = text.splitlines()[0]
    assert first.startswith(f"{path}:{line}:{column}: $.query: SPARQL syntax error"), text
    assert problem in first, text
    marked = text.splitlines().index(next(s for s in text.splitlines() if s.startswith("  >")))
    caret = text.splitlines()[marked + 1]
    assert caret.endswith("^") and caret.index("^") - caret.index("|") - 1 == column, text
    assert caught.value.line == line and "\nHINT: " in text


def test_column_maps_back_over_a_placeholder(tmp_path: Path) -> None:
    #   FILTER(?o > ${low} && )   with low = 123456: the error column in the
    #   query after substitution is 6 characters right of the written one.
    path = write(tmp_path, "FILTER(?o > 3)", "FILTER(?o > ${low} && )")
    path.write_text(path.read_text().replace("matrix:\n", "matrix:\n  low: [123456]\n"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    written = "      FILTER(?o > ${low} && )"
    assert str(caught.value).startswith(f"{path}:13:{written.index('&&') + 1}: "), caught.value


def test_folded_query_still_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "FILTER(?o > 3)", "FILTER(?o > )")
    path.write_text(path.read_text().replace("query: |", "query: >"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.line == 13
    assert "in the expression: expected ')', found '>'" in str(caught.value)


def test_validate_reports_it_without_spark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_rspbench.cli import main

    path = write(tmp_path, "FILTER(?o > 3)", "FILTER(?o > )")
    assert main(["validate", str(path)]) == 1
    assert f"{path}:13:17: $.query: SPARQL syntax error" in capsys.readouterr().err


def test_every_bundled_spec_query_passes_the_check() -> None:
    specs = sorted((Path(__file__).parents[2] / "specs").rglob("*.rspbench.yaml"))
    assert len(specs) > 20
    for spec in specs:
        load_spec(spec)


@pytest.mark.parametrize(
    "where",
    [
        "WINDOW :w { ?s ?p ?o . FILTER(?o < 3 && ?o > 1) }",
        'WINDOW :w { ?s ?p "a { b ( [" . FILTER(?o != """x }\n""") }',
        "WINDOW :w { _:b ?p ?o . FILTER(?o != '''y ) ''') } # a comment with { (\n",
        "WINDOW :w { ?s ?p ?o } VALUES ?o { 1 2 }",
        "WINDOW :w { ?s <http://example.org/p:q> ?o }",
    ],
)
def test_valid_queries_pass(where: str) -> None:
    query = rspql.parse(
        "PREFIX : <http://example.org/>\nREGISTER RStream :out AS SELECT ?s\n"
        "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]\nWHERE { " + where + " }"
    )
    rspql.check_sparql(query)


BLOCK = SPEC.split("query: |\n")[1].split("matrix:")[0]
QUERY = "\n".join(line[2:] for line in BLOCK.splitlines()).replace("${range}", "1000")
PIECES = ["{", "}", "(", ")", "[", "]", ".", '"', "'", "<", ">", "#", ":", "?", "FROM NAMED "]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_edit_of_a_query_gives_a_located_error_or_passes(data: st.DataObject) -> None:
    text = QUERY
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()):
            text = text[:at] + data.draw(st.sampled_from(PIECES)) + text[at:]
        else:
            text = text[:at] + text[at + data.draw(st.integers(1, 4)) :]
    try:
        query = rspql.parse(text)
    except (rspql.QuerySyntaxError, ValueError, OverflowError):
        return  # refused before the SPARQL check, as the loader does
    try:
        rspql.check_sparql(query)
        event("passed the check")
    except rspql.QuerySyntaxError as exc:
        event("refused by the check")
        lines = text.splitlines() or [""]
        assert 1 <= exc.line <= len(lines) + 1
        if exc.column is not None:
            assert 1 <= exc.column <= len(lines[exc.line - 1]) + 1
