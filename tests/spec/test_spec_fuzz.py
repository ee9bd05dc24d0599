"""Property: ``load_spec`` returns a Spec or raises SpecError, never anything else.

Whatever a spec author writes (random text, random YAML data, or the example
spec with lines deleted and characters swapped), the loader answers with a
located SpecError, so pytest shows a message and not a Python traceback.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.spec.model import Spec

EXAMPLE = Path(__file__).resolve().parents[2] / "specs" / "csrbench-q1.rspbench.yaml"
EXAMPLE_TEXT = EXAMPLE.read_text(encoding="utf-8")
EXAMPLE_LINES = EXAMPLE_TEXT.splitlines(keepends=True)
FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Spec keys and fragments, so random data sometimes gets past the first checks.
KEYS = st.sampled_from(
    [
        "rspbench",
        "name",
        "streams",
        "query",
        "engines",
        "matrix",
        "thresholds",
        "comparison",
        "mode",
        "source",
        "kind",
        "path",
        "interval",
        "iri",
        "replay",
        "semantics",
        "static",
        "mostly",
        "marks",
        "engine",
        "range",
        "<<",
        "x",
    ]
)
# Values that once crashed the loader: unicode digits (int('²') fails), a home
# folder that does not exist, NUL bytes and names too long for the file system.
TRICKY = st.sampled_from(
    [
        "²",
        "٣",
        "~no-such-user-rspbench/x_*.ttl",
        "a\0b",
        "x" * 5000,
        "",
        "0",
        "-1",
        "PT" + "9" * 400 + "S",
        "${range}",
        "${nope}",
        "p²(recall) >= 1",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | TRICKY
    | st.sampled_from(
        [
            "files",
            "reference",
            "${range}",
            "${x}",
            "1",
            "strict",
            "recall >= 1",
            "rspbench-data:csrbench/stream/data_*.ttl",
        ]
    )
)
YAML_DATA = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(KEYS | st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)


def check(text: str) -> None:
    """Write ``text`` as a spec next to a temporary folder and load it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.rspbench.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            spec = load_spec(path, check_engine=None)
        except SpecError as exc:
            assert str(exc).startswith(str(path)), str(exc)
        else:
            assert isinstance(spec, Spec)


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    check(text)


@FUZZ
@given(YAML_DATA)
def test_arbitrary_yaml_data(data: object) -> None:
    check(yaml.safe_dump(data, allow_unicode=True))


@FUZZ
@given(
    YAML_DATA,
    st.sampled_from(
        [
            "rspbench",
            "name",
            "streams",
            "query",
            "engines",
            "matrix",
            "thresholds",
            "comparison",
        ]
    ),
)
def test_example_with_one_value_replaced(value: object, key: str) -> None:
    data = yaml.safe_load(EXAMPLE_TEXT)
    data[key] = value
    check(yaml.safe_dump(data, allow_unicode=True))


@FUZZ
@given(st.lists(SCALARS, min_size=1, max_size=3), SCALARS)
def test_example_with_other_matrix_values(values: list[object], path: object) -> None:
    data = yaml.safe_load(EXAMPLE_TEXT)
    data["matrix"]["range"] = values
    data["streams"][0]["source"]["path"] = path
    check(yaml.safe_dump(data, allow_unicode=True))


@FUZZ
@given(st.data())
def test_example_with_a_word_replaced(data: st.DataObject) -> None:
    words = re.split(r"(\s+)", EXAMPLE_TEXT)
    index = data.draw(st.integers(0, len(words) - 1))
    words[index] = data.draw(TRICKY | st.text(max_size=12))
    check("".join(words))


@FUZZ
@given(st.lists(st.integers(0, len(EXAMPLE_LINES) - 1), max_size=4, unique=True))
def test_example_with_lines_deleted(deleted: list[int]) -> None:
    check("".join(line for i, line in enumerate(EXAMPLE_LINES) if i not in deleted))


@FUZZ
@given(st.data())
def test_example_with_characters_swapped(data: st.DataObject) -> None:
    chars = list(EXAMPLE_TEXT)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(chars) - 2))
        if data.draw(st.booleans()):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars[i] = data.draw(st.sampled_from(list(" \t:-[]{}'\"#&*!|>$\n0x")))
    check("".join(chars))


def test_example_loads() -> None:
    spec = load_spec(EXAMPLE, check_engine=None)
    assert [c.case_id for c in spec.cases] == ["range=10000,step=10000,engine=reference"]
