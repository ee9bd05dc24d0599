"""Recorded answers: our JSON lines and the CSRBench answer format, read offline."""

from __future__ import annotations

import json

import pytest
from engine_helpers import END, registration, tiny_stream

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Result
from pytest_rspbench.engine.recorded import RecordedEngine, regroup, sparql_json_term

XSD = "http://www.w3.org/2001/XMLSchema#"
OBS1 = "http://example.org/obs1"


def replay(engine: RecordedEngine) -> harness.ActualOutput:
    return harness.run(engine, registration(), [tiny_stream()], END, sample_interval=None)


def csrbench_relation(time, *bindings):
    return {
        "head": {"vars": ["obs", "v"]},
        "timestamp": time,
        "results": {"bindings": [{"timestamp": time, "binding": b} for b in bindings]},
    }


OBS1_85 = {
    "obs": {"type": "uri", "value": OBS1},
    "v": {"type": "literal", "value": "85", "datatype": XSD + "double"},
}
OBS2_90 = {
    "obs": {"type": "uri", "value": "http://example.org/obs2"},
    "v": {"type": "literal", "value": "90", "datatype": XSD + "double"},
}


def test_protocol_lines_and_results_jsonl_lines_are_read(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"type": "hello", "protocol": 1, "name": "x"}\n'
        f'{{"type": "result", "bindings": [{{"obs": "<{OBS1}>"}}], "time": 4000,'
        ' "window": [0, 4000]}\n'
        "\n"
        '{"arrival": 0.5, "app_time": null, "bindings": [], "time": 6000,'
        ' "window": null}\n'
        '{"type": "done"}\n'
    )
    actual = replay(RecordedEngine("rec", path))
    assert actual.error is None
    assert [r.result for r in actual.received] == [
        Result(({"obs": f"<{OBS1}>"},), 4000, (0, 4000)),
        Result((), 6000),
    ]


def test_bad_recorded_lines_are_faults_with_line_numbers(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"type": "result", "bindings": []}\nnot json\n[1]\n'
        '{"bindings": [{"v": "85"}]}\n'
        '{"bindings": [], "time": NaN}\n{"bindings": [], "time": 1e400}\n'
        + "[" * 100_000
        + "]" * 100_000
        + "\n"
    )
    actual = replay(RecordedEngine("rec", path))
    assert actual.faults == [
        "answers.jsonl line 2: not JSON (Expecting value)",
        "answers.jsonl line 3: not a JSON object",
        "answers.jsonl line 4: binding ?v = '85' is not an N-Triples term "
        "(IRIs as <...>, "
        'literals as "..."^^<datatype> or "..."@lang, blank nodes as _:b)',
        "answers.jsonl line 5: not JSON (NaN is not a JSON number)",
        "answers.jsonl line 6: 'time' must be an integer (ms) below 2^63, got inf",
        "answers.jsonl line 7: not JSON (nested too deeply)",
    ]
    assert actual.error is not None and "broke the engine protocol" in actual.error
    assert len(actual.received) == 1


def test_csrbench_answers_become_n_triples_bindings(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(
        json.dumps(
            {
                "relations": [
                    csrbench_relation(4000, OBS1_85, OBS2_90),
                    csrbench_relation(8000),  # C-SPARQL writes empty relations
                ]
            }
        )
    )
    actual = replay(RecordedEngine("csparql", path, "csrbench"))
    assert actual.error is None
    assert [r.result for r in actual.received] == [
        Result(
            (
                {"obs": f"<{OBS1}>", "v": f'"85"^^<{XSD}double>'},
                {"obs": "<http://example.org/obs2>", "v": f'"90"^^<{XSD}double>'},
            ),
            4000,
        ),
        Result((), 8000),
    ]


def test_one_binding_per_relation_is_regrouped_by_timestamp(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(
        json.dumps(
            {
                "relations": [
                    csrbench_relation(4000, OBS1_85),
                    csrbench_relation(4000, OBS2_90),
                    csrbench_relation(8000, OBS1_85),
                ]
            }
        )
    )
    as_written = replay(RecordedEngine("cqels", path, "csrbench"))
    assert [len(r.result.bindings) for r in as_written.received] == [1, 1, 1]
    regrouped = replay(RecordedEngine("cqels", path, "csrbench", regroup=True))
    assert [(r.result.time, len(r.result.bindings)) for r in regrouped.received] == [
        (4000, 2),
        (8000, 1),
    ]


def test_regroup_keeps_order_of_first_appearance_and_duplicates():
    a, b = {"x": "<a>"}, {"x": "<b>"}
    grouped = regroup([Result((a,), 5), Result((b,), 3), Result((a,), 5)])
    assert grouped == [Result((a, a), 5), Result((b,), 3)]


def test_broken_csrbench_document_is_an_engine_error(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text('{"relations": [{"results": {"bindings": [{"nobinding": 1}]}}]}')
    actual = replay(RecordedEngine("rec", path, "csrbench"))
    assert actual.error is not None
    assert actual.error.startswith(
        f"engine 'rec': {path} is not a CSRBench answer document: KeyError: 'binding'"
    )


def test_an_infinite_csrbench_timestamp_is_an_engine_error(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"relations": [csrbench_relation(1e400, OBS1_85)]}))
    actual = replay(RecordedEngine("rec", path, "csrbench"))
    assert actual.error is not None
    assert actual.error.startswith(
        f"engine 'rec': {path} is not a CSRBench answer document: OverflowError: "
    )


def test_missing_answer_file_says_where_it_looked(tmp_path):
    actual = replay(RecordedEngine("rec", tmp_path / "nope.jsonl"))
    assert actual.error is not None
    assert actual.error.startswith(f"engine 'rec': no recorded answers at {tmp_path}/nope.jsonl.")
    assert "HINT: adapter.recorded.path is relative to the engine.yaml" in actual.error


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ({"type": "uri", "value": "http://ex/a"}, "<http://ex/a>"),
        ({"type": "bnode", "value": "b0"}, "_:b0"),
        ({"type": "literal", "value": "hi", "xml:lang": "en"}, '"hi"@en'),
        ({"type": "literal", "value": 'say "hi"\n'}, '"say \\"hi\\"\\n"'),
        (
            {"type": "typed-literal", "value": "1", "datatype": XSD + "int"},
            f'"1"^^<{XSD}int>',
        ),
    ],
)
def test_sparql_json_terms(term, expected):
    assert sparql_json_term(term) == expected
