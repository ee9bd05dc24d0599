"""Bad specs give messages people can act on, never a Python traceback.

Every message names ``file:line`` (the line to change), the JSON path, what is
wrong, quotes the YAML around the line with a ``>`` marker and ends with a
``HINT:``. Each case below changes one thing in :data:`VALID`; the line
numbers in the expectations refer to that text::

     1 rspbench: 1
     2 name: demo
     3 streams:
     4   - iri: http://example.org/s
     5     source:
     6       kind: files
     7       path: rspbench-data:csrbench/stream/data_*.ttl
     8       interval: 1000
     9 query: |
    10   PREFIX : <http://example.org/>
    11   REGISTER RStream :out AS
    12   SELECT ?s
    13   FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP 1000]
    14   WHERE { WINDOW :w { ?s ?p ?o } }
    15 matrix:
    16   range: [1000, 2000]
    17 engines: [reference]
    18 comparison:
    19   mode: strict
    20 thresholds:
    21   - recall >= 0.9 in every window
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

pytest_plugins = ["pytester"]

VALID = """\
rspbench: 1
name: demo
streams:
  - iri: http://example.org/s
    source:
      kind: files
      path: rspbench-data:csrbench/stream/data_*.ttl
      interval: 1000
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP 1000]
  WHERE { WINDOW :w { ?s ?p ?o } }
matrix:
  range: [1000, 2000]
engines: [reference]
comparison:
  mode: strict
thresholds:
  - recall >= 0.9 in every window
"""


@dataclass(frozen=True)
class Bad:
    """One bad spec: ``old`` replaced by ``new`` in VALID, and what it must say.

    ``where`` is the JSON path and the problem as printed after ``file:line:``;
    ``hint`` is the text after ``HINT:``. Both are fnmatch patterns in which
    only ``*`` is a wildcard.
    """

    id: str
    old: str
    new: str
    line: int
    where: str
    hint: str

    def text(self) -> str:
        assert self.old in VALID, self.old
        return VALID.replace(self.old, self.new, 1)


CASES = [
    Bad(
        "disorder-without-delay",
        "  - iri: http://example.org/s\n",
        "  - iri: http://example.org/s\n    disorder: {late: 0.5, max_delay: 0}\n",
        5,
        "$.streams[0].disorder.max_delay: late or duplicated events need max_delay > 0.",
        "set max_delay, e.g. max_delay: 2s.",
    ),
    Bad(
        "disorder-delay-not-a-duration",
        "  - iri: http://example.org/s\n",
        "  - iri: http://example.org/s\n    disorder: {late: 0.5, max_delay: soon}\n",
        5,
        "$.streams[0].disorder.max_delay: cannot read 'soon' as a duration.",
        "write milliseconds (2000), *",
    ),
    Bad(
        "yaml-indentation",
        "    source:",
        "   source:",
        5,
        "YAML syntax error: *",  # PyYAML and libyaml word it differently
        "check the indentation: keys of one mapping start in the same column*",
    ),
    Bad(
        "yaml-unclosed-bracket",
        "[1000, 2000]",
        "[1000, 2000",
        16,
        "YAML syntax error: the '[' opened on this line is not closed "
        "(line 17: *expected ',' or ']'*)",
        "close it on the same line (']' or '}'), or write one '- item' per line.",
    ),
    Bad(
        "yaml-tab",
        "  range: [1000",
        "\trange: [1000",
        16,
        "YAML syntax error: found character *that cannot start any token",
        "indent with spaces; YAML does not allow tabs.",
    ),
    Bad(
        "missing-query",
        VALID[VALID.index("query:") : VALID.index("matrix:")],
        "",
        1,
        "$: required key 'query' is missing.",
        "add 'query: ...' (The continuous query in RSP-QL syntax;*",
    ),
    Bad(
        "typo-in-top-level-key",
        "thresholds:",
        "thresholdz:",
        20,
        "$.thresholdz: unknown key 'thresholdz'.",
        "remove it or use one of: comparison, *. Did you mean 'thresholds'?",
    ),
    Bad(
        "wrong-type",
        "interval: 1000",
        "interval: ten",
        8,
        "$.streams[0].source.interval: expected an integer, got a string 'ten'.",
        "write a whole number without quotes*(Milliseconds between*",
    ),
    Bad(
        "enum",
        "mode: strict",
        "mode: exact",
        19,
        "$.comparison.mode: 'exact' is not allowed here.",
        "use one of: strict, containment, graded.",
    ),
    Bad(
        "format-version",
        "rspbench: 1",
        "rspbench: 2",
        1,
        "$.rspbench: spec format 2 is not supported by this version.",
        "set 'rspbench: 1' (this version of pytest-rspbench reads format 1).",
    ),
    Bad(
        "duplicate-key",
        "name: demo\n",
        "name: demo\nname: again\n",
        3,
        "$.name: key 'name' appears twice in the same mapping (first on line 2).",
        "remove one of them; YAML would silently keep only the last.",
    ),
    Bad(
        "missing-source-kind",
        "      kind: files\n",
        "",
        5,
        "$.streams[0].source: required key 'kind' is missing.",
        "add 'kind: ...' (Where the events come from: files*",
    ),
    Bad(
        "placeholder-not-in-matrix",
        "${range}",
        "${rnage}",
        13,
        "$.query: placeholder ${rnage} has no value in the matrix.",
        "add 'rnage: [...]' under 'matrix:', or fix the name (matrix has: range)."
        " Did you mean 'range'?",
    ),
    Bad(
        "missing-register",
        "  REGISTER RStream :out AS\n",
        "",
        10,
        "$.query: invalid RSP-QL query: the query does not start with "
        "REGISTER RStream|IStream|DStream <out> AS",
        "write e.g. 'REGISTER RStream <http://example.org/out> AS SELECT ...'",
    ),
    Bad(
        "unknown-r2s-operator",
        "RStream",
        "XStream",
        11,
        "$.query: invalid RSP-QL query: unknown stream operator 'XStream' after REGISTER",
        "use one of RStream, IStream, DStream",
    ),
    Bad(
        "undeclared-prefix",
        "WHERE { WINDOW :w",
        "WHERE { WINDOW ex:w",
        14,
        "$.query: invalid RSP-QL query: prefix 'ex:' in 'ex:w' is not declared",
        "add 'PREFIX ex: <...>' at the top of the query",
    ),
    Bad(
        "window-not-declared",
        "WHERE { WINDOW :w",
        "WHERE { WINDOW :v",
        14,
        "$.query: invalid RSP-QL query: WINDOW <http://example.org/v> is used in "
        "WHERE but not declared",
        "declare it with FROM NAMED WINDOW, or fix the name: declared are <http://example.org/w>",
    ),
    Bad(
        "window-stream-not-declared",
        "ON STREAM :s",
        "ON STREAM :t",
        13,
        "$.query: window <http://example.org/w> reads stream <http://example.org/t>,"
        " which is not under 'streams:'.",
        "declare it with '- iri: http://example.org/t' under streams:, or fix the "
        "IRI; declared: <http://example.org/s>. Did you mean 'http://example.org/s'?",
    ),
    Bad(
        "bad-duration",
        "STEP 1000",
        "STEP ten",
        13,
        "$.query: invalid RSP-QL query: cannot read 'ten' as a duration",
        "write milliseconds (10000), or an ISO 8601 duration (PT10S)",
    ),
    Bad(
        "zero-step",
        "STEP 1000",
        "STEP 0",
        13,
        "$.query: window <http://example.org/w> has RANGE 1000 STEP 0; "
        "both must be from 1 to 9,007,199,254,740,991 ms.",
        "give RANGE and STEP in milliseconds above 0*",
    ),
    Bad(
        "rows-zero",
        "[RANGE ${range} STEP 1000]",
        "[ROWS 0]",
        13,
        "$.query: invalid RSP-QL query: window <http://example.org/w> has [ROWS 0]; "
        "counts must be from 1 to 9,007,199,254,740,991",
        "ROWS, TRIPLES and their STEP count elements: write whole numbers*",
    ),
    Bad(
        "triples-step-a-duration",
        "[RANGE ${range} STEP 1000]",
        "[TRIPLES 10 STEP 1s]",
        13,
        "$.query: invalid RSP-QL query: window <http://example.org/w>: cannot read '1s' "
        "as a number of elements",
        "*durations are for RANGE and SESSION",
    ),
    Bad(
        "session-gap-unreadable",
        "[RANGE ${range} STEP 1000]",
        "[SESSION 3s 5s]",
        13,
        "$.query: invalid RSP-QL query: cannot read the window [SESSION 3s 5s] of "
        "<http://example.org/w>",
        "write one of [RANGE r STEP s], [ROWS n], *[SESSION gap]; STEP may be written SLIDE*",
    ),
    Bad(
        "unreadable-threshold",
        "recall >= 0.9 in every window",
        "recall is high",
        21,
        "$.thresholds[0]: cannot read threshold 'recall is high'.",
        "write '<metric> <op> <number> [in every window]' or*",
    ),
    Bad(
        "unknown-metric",
        "recall >= 0.9 in every window",
        "recal >= 0.9",
        21,
        "$.thresholds[0]: unknown metric 'recal' in threshold 'recal >= 0.9'.",
        "metrics are: precision, recall, f1, delay, expected, actual, triples, *"
        "Did you mean 'recall'?",
    ),
    Bad(
        "glob-matches-nothing",
        "data_*.ttl",
        "nothing_*.ttl",
        7,
        "$.streams[0].source.path: 'rspbench-data:csrbench/stream/nothing_*.ttl' "
        "matches no file (resolved to */csrbench/stream/nothing_*.ttl).",
        "paths are relative to the spec file's folder; 'rspbench-data:' names data*",
    ),
    Bad(
        "unknown-engine",
        "[reference]",
        "[referense]",
        17,
        "$.engines[0]: unknown engine 'referense' (registered: *reference*).",
        "use a registered engine name or a path to an engine.yaml.",
    ),
    Bad(
        "engine-as-matrix-key",
        "  range: [1000, 2000]\n",
        "  range: [1000, 2000]\n  engine: [a, b]\n",
        17,
        "$.matrix.engine: 'engine' cannot be a matrix parameter: every case already "
        "runs once per engine.",
        "list the engines under 'engines:' (or use --rspbench-engine) and remove*",
    ),
    Bad(
        "bad-matrix-name",
        "  range: [1000, 2000]\n",
        "  range: [1000, 2000]\n  my-size: [1]\n",
        17,
        "$.matrix.my-size: 'my-size' is not allowed as a name here*",
        "start with a letter or '_' and use only letters, digits and '_'*",
    ),
    Bad(
        "empty-matrix-list",
        "range: [1000, 2000]",
        "range: []",
        16,
        "$.matrix.range: expected a list of at least 1 item(s), got an empty list.",
        "give the parameter at least one value, e.g. '[10000]', or remove it.*",
    ),
    Bad(
        "python-tag",
        "name: demo",
        "name: !!python/object/apply:os.system ['touch pwned']",
        2,
        "$.name: the YAML tag '!!python/object/apply:os.system' is not allowed: "
        "a spec holds plain data.",
        "remove the tag; specs never create Python objects.",
    ),
    Bad(
        "unquoted-boolean-key",
        "  mode: strict",
        "  on: strict",
        19,
        "$.comparison: key True is not a string.",
        "quote it, e.g. '\"on\": ...': YAML reads unquoted numbers and "
        "yes/no/on/off/true/false as numbers and booleans.",
    ),
    Bad(
        "none-of-the-alternatives",
        "comparison:\n  mode: strict",
        "semantics:\n  t0: sometimes",
        19,
        "$.semantics.t0: 'sometimes' is not allowed here.",
        "use one of: any, registration, first-event, aligned, an integer.",
    ),
    Bad(
        "list-instead-of-value",
        "[1000, 2000]",
        "[[1000], 2000]",
        16,
        "$.matrix.range[0]: expected a string or a number or a boolean, got a list [1000].",
        "write a string or a number or a boolean here.*",
    ),
    Bad(
        "control-character",
        "SELECT ?s",
        "SELECT ?s\x07",
        12,
        "YAML syntax error: the control character 0x0007 is not allowed in YAML.",
        "delete it (it may come from a copy and paste)*",
    ),
    Bad(
        "placeholder-in-typed-value",
        "interval: 1000",
        "interval: ${range}",
        8,
        "$.streams[0].source.interval: expected an integer, got a string '${range}'.",
        "write an integer here: a ${...} placeholder works only in the query*",
    ),
]


@pytest.fixture(scope="module", autouse=True)
def _warm_imports(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Load one spec before the in-process runs.

    pytester drops the modules an inner run imported, so without this every
    run would import jsonschema, the loader and the reference engine again.
    """
    from pytest_rspbench.engine.profiles import locate
    from pytest_rspbench.spec.loader import load_spec

    path = tmp_path_factory.mktemp("warm") / "warm.rspbench.yaml"
    path.write_text(VALID, encoding="utf-8")
    load_spec(path, check_engine=locate)


def lit(text: str) -> str:
    """``text`` as an fnmatch pattern in which only ``*`` is a wildcard."""
    return text.replace("[", "[[]").replace("?", "[?]")


def quoted(text: str, line: int) -> str:
    """The ``>`` line that diagnostics.quote prints for ``line`` of ``text``."""
    lines = text.splitlines()
    width = len(str(min(len(lines), line + 2)))
    return lit(f"  > {line:>{width}} | {lines[line - 1]}")


def collect(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Collect only, so no Spark is needed.

    The plugin is imported already, so the inner run cannot rewrite it (pytest
    warns); hypothesis' plugin would import hypothesis again in every run.
    """
    return pytester.runpytest(
        "--collect-only",
        "-p",
        "no:hypothesispytest",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *args,
    )


def assert_clean(result: pytest.RunResult) -> None:
    """A collection error with our message only: no traceback, no .py frames,
    and the message's last line is its HINT."""
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "Traceback" not in result.stdout.str()
    result.stdout.no_re_match_line(r".*\.py:\d+")
    result.assert_outcomes(errors=1)
    lines = result.outlines
    hint = next(i for i, line in enumerate(lines) if line.startswith("HINT: "))
    assert lines[hint + 1].startswith("==="), lines[hint + 1]


def test_valid_spec_collects(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", good=VALID)
    result = collect(pytester, "-q")
    result.stdout.fnmatch_lines(
        [
            "good.rspbench.yaml::demo[[]range=1000,engine=reference]",
            "good.rspbench.yaml::demo[[]range=2000,engine=reference]",
            "2 tests collected*",
        ]
    )
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize("bad", CASES, ids=lambda bad: bad.id)
def test_bad_spec_is_located_and_hinted(pytester: pytest.Pytester, bad: Bad) -> None:
    text = bad.text()
    pytester.makefile(".rspbench.yaml", bad=text)
    result = collect(pytester)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting bad.rspbench.yaml*",
            "*bad.rspbench.yaml:" + lit(f"{bad.line}: {bad.where}"),
            quoted(text, bad.line),
            "HINT: " + lit(bad.hint),
            "*short test summary info*",
        ]
    )
    assert_clean(result)


def test_python_tag_is_refused_without_running_it(pytester: pytest.Pytester) -> None:
    text = VALID.replace("name: demo", "name: !!python/object/apply:os.system ['touch pwned']")
    pytester.makefile(".rspbench.yaml", bad=text)
    result = collect(pytester)
    assert_clean(result)
    assert not (pytester.path / "pwned").exists()


def test_not_a_mapping(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", bad="- rspbench: 1\n- name: demo\n")
    result = collect(pytester)
    result.stdout.fnmatch_lines(
        [
            "*bad.rspbench.yaml:1: $: a spec must be a YAML mapping of "
            "'key: value' lines, found a list.",
            "  > 1 | - rspbench: 1",
            "HINT: start from the example in docs/spec-format.md*without '- '.",
        ]
    )
    assert_clean(result)


def test_empty_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", bad="# nothing yet\n")
    result = collect(pytester)
    result.stdout.fnmatch_lines(
        [
            "*bad.rspbench.yaml:1: $: a spec must be a YAML mapping*found an empty document.",
            "HINT: start from the example in docs/spec-format.md*",
        ]
    )
    assert_clean(result)


def test_placeholder_line_in_folded_query(pytester: pytest.Pytester) -> None:
    # '>' folds the query into one line; the message still names the YAML line.
    text = VALID.replace("query: |", "query: >").replace("${range}", "${rnage}")
    pytester.makefile(".rspbench.yaml", bad=text)
    result = collect(pytester)
    result.stdout.fnmatch_lines(
        [
            "*bad.rspbench.yaml:13: $.query: placeholder ${rnage} has no value*",
            quoted(text, 13),
        ]
    )
    assert_clean(result)


def test_rsp_ql_error_line_with_comment_after_block_indicator(
    pytester: pytest.Pytester,
) -> None:
    text = VALID.replace("query: |", "query: |  # the continuous query").replace(
        "WINDOW :w {", "WINDOW ex:w {"
    )
    pytester.makefile(".rspbench.yaml", bad=text)
    result = collect(pytester)
    result.stdout.fnmatch_lines(["*bad.rspbench.yaml:14: $.query: *'ex:'*", quoted(text, 14)])
    assert_clean(result)


def test_engine_from_command_line_is_checked(pytester: pytest.Pytester) -> None:
    # One usage error for the option, not one per spec.
    pytester.makefile(".rspbench.yaml", good=VALID, other=VALID.replace("demo", "other"))
    result = collect(pytester, "--rspbench-engine=nosuch")
    result.stderr.fnmatch_lines(
        [
            "ERROR: --rspbench-engine nosuch: unknown engine 'nosuch'*",
            "HINT: use a registered engine name or a path to an engine.yaml.",
        ]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_every_bad_spec_in_one_run(pytester: pytest.Pytester) -> None:
    """All errors are reported together: one bad spec does not hide the next."""
    for bad in CASES[:5]:
        pytester.makefile(".rspbench.yaml", **{bad.id: bad.text()})
    result = collect(pytester)
    result.assert_outcomes(errors=5)
    assert "Traceback" not in result.stdout.str()


def test_unregistered_mark_under_strict_markers(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", bad=VALID + "marks: [nosuchmark]\n")
    result = collect(pytester, "--strict-markers")
    result.stdout.fnmatch_lines(["*bad.rspbench.yaml:22: $.marks[[]0]: *nosuchmark*"])
    assert_clean(result)
