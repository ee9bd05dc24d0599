"""Every number a spec takes is finite and in range, checked when the spec loads.

Unchecked, ``replay: {speed: .inf}`` would break the report, ``rate: .inf``
grow memory without bound, and ``timeout: .nan``, a ``start`` above 2^63,
``skew: .inf`` or a RANGE above 2^63 give tracebacks or Spark errors at run
time; generator parameters would be checked only when the stream is read. Each
is a SpecError at the line of the value, with a HINT, raised by ``load_spec``
(so also by ``pytest --co`` and ``rspbench validate``).

The JSON Schema editors use rejects what the loader rejects.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec import replay as replay_settings
from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.spec.validation import SPEC_SCHEMA, schema
from pytest_rspbench.stream import lsbench, parameters, workloads, yabench

pytest_plugins = ["pytester"]

INF, NAN = math.inf, math.nan
HUGE_INT, HUGE_FLOAT = 2**64, 1e300

SPEC = """\
rspbench: 1
name: bounds
streams:
  - iri: http://example.org/s
    source:
      kind: generator
      name: {generator}
      {param}: {value}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?s
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE {{ WINDOW :w {{ ?s ?p ?o }} }}
{matrix}engines: [reference]
"""
PARAM_LINE = 8  # the line of '{param}: {value}' above

# Every numeric parameter of every generator: (generator, parameter, whole
# numbers only, negative values allowed). Their bad values are below.
PARAMETERS = [
    ("workload", "duration", True, False),
    ("workload", "rate", False, False),
    ("workload", "rate_after", False, False),
    ("workload", "at", True, False),
    ("workload", "burst", True, False),
    ("workload", "period", True, False),
    ("workload", "burst_length", True, False),
    ("workload", "seed", True, True),
    ("workload", "sensors", True, False),
    ("yabench-sg1", "stations", True, False),
    ("yabench-sg1", "interval", True, False),
    ("yabench-sg1", "duration", True, False),
    ("yabench-sg1", "seed", True, True),
    ("yabench-sg1", "min_temp", True, True),
    ("yabench-sg1", "max_temp", True, False),
    ("lsbench-social", "users", True, False),
    ("lsbench-social", "duration", True, False),
    ("lsbench-social", "seed", True, True),
    ("lsbench-social", "gps_per_minute", False, False),
    ("lsbench-social", "posts_per_minute", False, False),
    ("lsbench-social", "comments_per_minute", False, False),
    ("lsbench-social", "likes_per_minute", False, False),
    ("lsbench-social", "photos_per_minute", False, False),
    ("lsbench-social", "photo_likes_per_minute", False, False),
    ("lsbench-social", "friends", True, False),
    ("lsbench-social", "same_city", False, False),
    ("lsbench-social", "skew", False, False),
    ("lsbench-social", "events_per_city", True, False),
]
YAML = {INF: ".inf", -INF: "-.inf"}


def bad_values(whole: bool, negative_ok: bool) -> list[Any]:
    values: list[Any] = [INF, -INF, NAN, HUGE_INT, -HUGE_INT if negative_ok else -1]
    values.append(2.5 if whole else HUGE_FLOAT)
    return values


def yaml_number(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ".nan"
    return YAML.get(value, repr(value))


BAD = [
    pytest.param(g, p, v, id=f"{g}-{p}={yaml_number(v)}")
    for g, p, whole, negative in PARAMETERS
    for v in bad_values(whole, negative)
]


def write(folder: Path, generator: str, param: str, value: str, matrix: str = "") -> Path:
    path = folder / "bounds.rspbench.yaml"
    text = SPEC.format(generator=generator, param=param, value=value, matrix=matrix)
    if generator == "workload" and param == "rate_after":
        text = text.replace("      rate_after:", "      shape: ramp\n      rate_after:")
    path.write_text(text, encoding="utf-8")
    return path


def first_line(error: SpecError) -> str:
    return str(error).splitlines()[0]


def assert_located(error: SpecError, path: Path, line: int, where: str) -> None:
    """file:line, the JSON path, the quoted line and a HINT (STYLE.md)."""
    text = str(error)
    assert first_line(error).startswith(f"{path}:{line}: {where}"), text
    assert error.line == line
    assert re.search(rf"^  > +{line} \| ", text, re.MULTILINE), text
    assert "\nHINT: " in text and "Traceback" not in text


@pytest.mark.parametrize(("generator", "param", "value"), BAD)
def test_bad_generator_parameter_is_a_spec_error_at_its_line(
    tmp_path: Path, generator: str, param: str, value: Any
) -> None:
    path = write(tmp_path, generator, param, yaml_number(value))
    if generator == "workload" and param == "rate_after":
        line = PARAM_LINE + 1
    else:
        line = PARAM_LINE
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert_located(caught.value, path, line, f"$.streams[0].source.{param}")


FINITE_BAD = [
    pytest.param(g, p, v, id=f"{g}-{p}={yaml_number(v)}")
    for g, p, whole, negative in PARAMETERS
    for v in bad_values(whole, negative)
    if isinstance(v, int) or math.isfinite(v)
]


@pytest.mark.parametrize(("generator", "param", "value"), FINITE_BAD)
def test_bad_parameter_from_the_matrix_is_checked_by_the_generator_at_load(
    tmp_path: Path, generator: str, param: str, value: Any
) -> None:
    # The schema sees only '${x}': the generator's own check finds the value.
    path = write(tmp_path, generator, param, "${x}", f"matrix:\n  x: [{value!r}]\n")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    line = PARAM_LINE + (generator == "workload" and param == "rate_after")
    assert_located(caught.value, path, line, f"$.streams[0].source.{param}")
    assert f"({param}: ${{x}} is " in first_line(caught.value)
    assert first_line(caught.value).endswith(" from the matrix).")


@pytest.mark.parametrize(
    ("config", "params"),
    [
        (workloads.Workload, {"rate": INF}),
        (workloads.Workload, {"shape": "step", "rate_after": INF}),
        (workloads.Workload, {"shape": "poisson", "rate": NAN}),
        (workloads.Workload, {"duration": 2**63}),
        (workloads.Workload, {"shape": "periodic-burst", "burst": 10**9}),
        (workloads.Workload, {"rate": 10**7, "duration": 10**9}),
        (yabench.SG1Config, {"stations": 2**31 - 1}),
        (yabench.SG1Config, {"stations": 10**6, "interval": 1, "duration": 10**6}),
        (lsbench.LSBenchConfig, {"skew": INF}),
        (lsbench.LSBenchConfig, {"same_city": NAN}),
        (lsbench.LSBenchConfig, {"users": 10**6, "duration": 10**9}),
        (workloads.Disorder, {"late": NAN, "max_delay": 10}),
        (workloads.Disorder, {"max_delay": 2**64}),
    ],
)
def test_generators_check_their_own_parameters(config: type, params: dict) -> None:
    # Each would have grown memory without bound, run for days or failed late.
    with pytest.raises(parameters.ParameterError) as caught:
        config(**params)
    assert caught.value.parameter in {*params, "rate", "users", "stations"}
    assert caught.value.hint


def test_unknown_generator_parameter_names_itself() -> None:
    from pytest_rspbench.stream.sources import open_source

    config = {"kind": "generator", "name": "workload", "rat": 5}
    with pytest.raises(parameters.ParameterError, match="unknown parameter 'rat'") as caught:
        open_source(config, Path("."), "http://ex/s")
    assert caught.value.parameter == "rat" and "Did you mean 'rate'?" in caught.value.hint


# -- spec keys outside the generators -----------------------------------------

BASE = SPEC.format(generator="workload", param="duration", value="1000", matrix="")


def spec_with(folder: Path, old: str, new: str) -> Path:
    assert old in BASE
    path = folder / "bounds.rspbench.yaml"
    path.write_text(BASE.replace(old, new, 1), encoding="utf-8")
    return path


STREAM = "  - iri: http://example.org/s\n"
ENGINES = "engines: [reference]\n"
SPEC_KEYS = [
    # id, old, new, line, JSON path
    ("speed-inf", ENGINES, ENGINES + "replay: {speed: .inf}\n", 16, "$.replay.speed"),
    ("speed-nan", ENGINES, ENGINES + "replay: {speed: .nan}\n", 16, "$.replay.speed"),
    ("speed-negative", ENGINES, ENGINES + "replay: {speed: -1}\n", 16, "$.replay.speed"),
    ("speed-huge", ENGINES, ENGINES + "replay: {speed: 1.0e+300}\n", 16, "$.replay.speed"),
    ("speed-word", ENGINES, ENGINES + "replay: {speed: fast}\n", 16, "$.replay.speed"),
    ("timeout-inf", ENGINES, ENGINES + "replay: {timeout: .inf}\n", 16, "$.replay.timeout"),
    ("timeout-nan", ENGINES, ENGINES + "replay: {timeout: .nan}\n", 16, "$.replay.timeout"),
    ("timeout-zero", ENGINES, ENGINES + "replay: {timeout: 0}\n", 16, "$.replay.timeout"),
    ("timeout-huge", ENGINES, ENGINES + "replay: {timeout: 1.0e+300}\n", 16, "$.replay.timeout"),
    ("start-2^63", STREAM, STREAM + "    start: 9223372036854775808\n", 5, "$.streams[0].start"),
    ("start-2^64", STREAM, STREAM + "    start: 18446744073709551616\n", 5, "$.streams[0].start"),
    ("start-inf", STREAM, STREAM + "    start: .inf\n", 5, "$.streams[0].start"),
    ("start-float", STREAM, STREAM + "    start: 2.5\n", 5, "$.streams[0].start"),
    ("end-huge", STREAM, STREAM + "    end: -18446744073709551616\n", 5, "$.streams[0].end"),
    (
        "end-before-start",
        STREAM,
        STREAM + "    start: 5000\n    end: 1000\n",
        6,
        "$.streams[0].end: the stream ends at 1000 ms, before it starts at 5000 ms.",
    ),
    ("range-2^63", "RANGE 1000", "RANGE 9223372036854775808", 13, "$.query: window"),
    ("step-2^53", "STEP 1000", "STEP 9007199254740992", 13, "$.query: window"),
    ("range-huge-duration", "RANGE 1000", "RANGE PT9999999999999999S", 13, "$.query: window"),
    (
        "disorder-late-nan",
        STREAM,
        STREAM + "    disorder: {late: .nan, max_delay: 10}\n",
        5,
        "$.streams[0].disorder.late",
    ),
    (
        "disorder-delay-huge",
        STREAM,
        STREAM + "    disorder: {late: 0.5, max_delay: 18446744073709551616}\n",
        5,
        "$.streams[0].disorder.max_delay",
    ),
    ("mostly-nan", ENGINES, ENGINES + "mostly: .nan\n", 16, "$.mostly"),
    ("matrix-inf", ENGINES, "matrix:\n  x: [1, .inf]\n" + ENGINES, 16, "$.matrix.x[1]"),
    (
        "tolerance-inf",
        ENGINES,
        ENGINES + "comparison: {literal_equality: value, tolerance: .inf}\n",
        16,
        "$.comparison.tolerance",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "line", "where"), [pytest.param(*c[1:], id=c[0]) for c in SPEC_KEYS]
)
def test_bad_spec_value_is_a_spec_error_at_its_line(
    tmp_path: Path, old: str, new: str, line: int, where: str
) -> None:
    path = spec_with(tmp_path, old, new)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert_located(caught.value, path, line, where)


def test_speed_from_the_matrix_must_be_finite(tmp_path: Path) -> None:
    path = spec_with(tmp_path, ENGINES, "matrix:\n  s: [1, 1.0e+300]\n" + ENGINES)
    path.write_text(path.read_text() + "replay: {speed: '${s}'}\n")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert_located(caught.value, path, 18, "$.replay.speed: replay speed 1e+300 (from ${s})")


def test_valid_bounds_still_load(tmp_path: Path) -> None:
    path = spec_with(
        tmp_path,
        STREAM,
        STREAM + "    start: -9007199254740991\n    end: 9007199254740991\n",
    )
    path.write_text(path.read_text() + "replay: {speed: 1000000, timeout: 604800}\n")
    (case,) = load_spec(path).cases
    assert case.speed == 1e6 and case.timeout == 604800.0
    assert case.streams[0].start == -(2**53 - 1)


def test_pytest_collection_shows_the_error_without_a_traceback(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(
        ".rspbench.yaml",
        bounds=SPEC.format(generator="workload", param="rate", value=".inf", matrix=""),
    )
    result = pytester.runpytest("--co", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            f"*bounds.rspbench.yaml:{PARAM_LINE}: $.streams[[]0].source.rate: *",
            "HINT: *",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str()


# -- the schema rejects what the loader rejects -----------------------------


def schema_accepts(data: Any) -> bool:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(SPEC_SCHEMA)).is_valid(data)


LOADER_REJECTS: dict[str, list[Any]] = {
    "replay.speed": [INF, -INF, NAN, -1, 1e300, 1_000_001, "fast", "1${x}", True],
    "replay.timeout": [INF, NAN, 0, -5, 1e300, 604_801, "300", True],
    "streams.0.start": [2**63, 2**64, -(2**64), 2**53, 2.5, INF, NAN, "0"],
    "streams.0.source.rate": [INF, NAN, -1, 1e300, 10_000_001, "fast", True],
}
LOADER_ACCEPTS: dict[str, list[Any]] = {
    "replay.speed": [0, 1, 2.5, 1_000_000, "${x}"],
    "replay.timeout": [0.5, 300, 604_800],
    "streams.0.start": [0, -5, 2**53 - 1, -(2**53 - 1)],
    "streams.0.source.rate": [0, 0.5, 10_000_000, "${x}"],
}


def data_with(key: str, value: Any) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(BASE + "matrix:\n  x: [1]\n")
    target = data
    parts = key.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
    target[parts[-1]] = value
    return data


def load_data(tmp_path: Path, data: dict[str, Any]) -> None:
    import yaml

    path = tmp_path / "data.rspbench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    load_spec(path)


@pytest.mark.parametrize(
    ("key", "value"),
    [(k, v) for k, values in LOADER_REJECTS.items() for v in values],
    ids=lambda v: yaml_number(v) if isinstance(v, float) else str(v),
)
def test_schema_rejects_what_the_loader_rejects(tmp_path: Path, key: str, value: Any) -> None:
    data = data_with(key, value)
    with pytest.raises(SpecError):
        load_data(tmp_path, data)
    assert not schema_accepts(data)


@pytest.mark.parametrize(
    ("key", "value"),
    [(k, v) for k, values in LOADER_ACCEPTS.items() for v in values],
    ids=str,
)
def test_schema_and_loader_accept_the_same_good_values(
    tmp_path: Path, key: str, value: Any
) -> None:
    data = data_with(key, value)
    load_data(tmp_path, data)
    assert schema_accepts(data)


def test_schema_bounds_are_the_loaders() -> None:
    spec = schema(SPEC_SCHEMA)
    defs, replay = spec["$defs"], spec["properties"]["replay"]["properties"]
    assert defs["time"]["maximum"] == parameters.MAX_TIME == -defs["time"]["minimum"]
    assert replay["timeout"]["maximum"] == replay_settings.MAX_TIMEOUT
    assert replay["speed"]["anyOf"][0]["maximum"] == replay_settings.MAX_SPEED
    generators = {
        branch["if"]["properties"]["name"]["const"]: branch["then"]["properties"]
        for branch in defs["source"]["allOf"]
        if "name" in branch["if"]["properties"]
    }
    workload = generators["workload"]
    assert workload["rate"]["anyOf"][0]["maximum"] == workloads.MAX_RATE
    assert workload["burst"]["anyOf"][0]["maximum"] == parameters.MAX_RECORDS
    assert generators["yabench-sg1"]["stations"]["anyOf"][0]["maximum"] == (yabench.MAX_STATIONS)
    ls = generators["lsbench-social"]
    assert ls["skew"]["anyOf"][0]["maximum"] == lsbench.MAX_SKEW
    assert ls["gps_per_minute"]["anyOf"][0]["maximum"] == lsbench.MAX_PER_MINUTE
    for name, (low, high) in lsbench._INTEGERS.items():
        bounds = ls[name]["anyOf"][0]
        assert (bounds["minimum"], bounds["maximum"]) == (low, high), name
    # Every generator parameter is in the schema, and only those.
    fields: dict[str, Any] = {
        "workload": workloads.Workload,
        "yabench-sg1": yabench.SG1Config,
        "lsbench-social": lsbench.LSBenchConfig,
    }
    for name, config in fields.items():
        declared = set(generators[name]) - {"kind", "name"}
        assert declared == set(config.__dataclass_fields__), name


def test_the_schema_file_is_valid_json_schema() -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(json.loads(json.dumps(schema(SPEC_SCHEMA))))
