"""Generation stays within the profile, and every query it writes parses and compiles.

Properties over the run's seed, the case number and the profile: the query
parses as RSP-QL (``rsp/rspql.py``), its per-window SPARQL is translated by
the oracle's compiler (``oracle/sparql/compiler.translate``) into operators
the compiler has a handler for, and it uses no construct, R2S operator or
window kind the profile leaves out; streams are late only within the
profile's lateness; count and session windows only where the profile lists
them, the oracle computes them and the report is on window close. The
compiled plan itself is checked on Spark in
``test_compiled.py``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rspbench.engine.profiles import EngineProfile, resolve
from pytest_rspbench.explore.cases import from_json, generate, materialize, size_of, to_json
from pytest_rspbench.explore.queries import GRID
from pytest_rspbench.explore.scope import GENERATED, oracle_computes, scope_of
from pytest_rspbench.oracle.sparql.compiler import translate
from pytest_rspbench.rsp.constructs import used
from pytest_rspbench.rsp.rspql import check_sparql, parse
from pytest_rspbench.rsp.semantics import Semantics

REFERENCE = resolve("reference", Path.cwd())
# A fixed engine: nothing configurable, RStream only, in-order streams.
FIXED = replace(REFERENCE, configurable=frozenset(), semantics=Semantics(bounds="[o,c)"))

seeds = st.integers(0, 2**31 - 1)
numbers = st.integers(0, 150)
lacking = st.frozensets(st.sampled_from(GENERATED))


def profile_lacking(base: EngineProfile, unsupported: frozenset[str]) -> EngineProfile:
    return replace(base, unsupported=unsupported)


def pattern_nodes(node: Any) -> list[str]:
    """The algebra operators the compiler dispatches (the pattern tree, not
    expressions; AggregateJoin's handler takes its Group itself)."""
    names = [] if node.name == "Group" else [node.name]
    for key in ("p", "p1", "p2"):
        child = node.get(key) if isinstance(node, dict) else None
        if child is not None and hasattr(child, "name"):
            names += pattern_nodes(child)
    return names


@settings(max_examples=150, deadline=None)
@given(seeds, numbers, lacking)
def test_every_query_parses_and_the_compiler_handles_its_operators(
    seed: int, number: int, unsupported: frozenset[str]
) -> None:
    from pytest_rspbench.oracle.sparql.compiler import _handlers

    generated = generate(seed, number, scope_of(profile_lacking(REFERENCE, unsupported)))
    query = parse(generated.query.text)
    check_sparql(query)
    algebra = translate(query.static_sparql)
    assert algebra.name == "SelectQuery"
    unhandled = set(pattern_nodes(algebra.p)) - set(_handlers())
    assert not unhandled, generated.query.text


@settings(max_examples=200, deadline=None)
@given(seeds, numbers, lacking)
def test_a_profiles_unsupported_constructs_never_appear(
    seed: int, number: int, unsupported: frozenset[str]
) -> None:
    generated = generate(seed, number, scope_of(profile_lacking(REFERENCE, unsupported)))
    found = used(parse(generated.query.text))
    assert not found & unsupported, generated.query.text
    assert found <= frozenset(GENERATED)


@settings(max_examples=100, deadline=None)
@given(seeds, numbers)
def test_a_fixed_engine_runs_its_own_semantics_r2s_and_order(seed: int, number: int) -> None:
    generated = generate(seed, number, scope_of(FIXED))
    assert generated.semantics == FIXED.semantics
    assert parse(generated.query.text).r2s == "RStream"
    assert all(s.disorder is None for s in generated.streams)


@settings(max_examples=100, deadline=None)
@given(seeds, numbers)
def test_streams_are_late_within_the_lateness_pinned(seed: int, number: int) -> None:
    generated = generate(seed, number, scope_of(REFERENCE))
    for stream in generated.streams:
        times = [e.time for e in stream.events]
        assert times == sorted(set(times)) and all(t % GRID == 0 for t in times)
        assert all(t >= stream.start for t in times)
        if stream.disorder is not None:
            assert stream.disorder.max_delay <= generated.semantics.lateness


@settings(max_examples=100, deadline=None)
@given(seeds, numbers)
def test_only_window_kinds_the_profile_lists_and_the_oracle_computes(
    seed: int, number: int
) -> None:
    generated = generate(seed, number, scope_of(REFERENCE))  # lists every kind
    kinds = parse(generated.query.text).kinds
    assert all(oracle_computes(k) for k in kinds)
    assert kinds <= set(REFERENCE.semantics.windows)
    if "window-close" not in generated.semantics.report:  # count/session: window-close only
        assert kinds == {"time"}
    time_only = replace(REFERENCE, semantics=replace(REFERENCE.semantics, windows=("time",)))
    assert parse(generate(seed, number, scope_of(time_only)).query.text).kinds == {"time"}


@settings(max_examples=60, deadline=None)
@given(seeds, numbers)
def test_without_a_construct_the_query_no_longer_uses_it(seed: int, number: int) -> None:
    generated = generate(seed, number, scope_of(REFERENCE))
    for construct in generated.plan.constructs:
        smaller = generated.without(construct)
        assert construct not in used(parse(smaller.query.text))
        read = {d.stream for d in parse(smaller.query.text).declared}
        assert {s.iri for s in smaller.streams} == read


@settings(max_examples=60, deadline=None)
@given(seeds, numbers)
def test_a_case_is_its_seed_and_number_and_survives_json(seed: int, number: int) -> None:
    scope = scope_of(REFERENCE)
    generated = generate(seed, number, scope)
    assert generate(seed, number, scope) == generated
    assert from_json(to_json(generated)) == generated


def test_sizes_start_tiny_and_grow() -> None:
    scope = scope_of(REFERENCE)
    first = [generate(1, n, scope) for n in range(10)]
    later = [generate(1, n, scope) for n in range(120, 130)]
    assert {size_of(n) for n in range(10)} == {1}
    assert max(len(s.events) for g in first for s in g.streams) <= 4
    mean = sum(len(g.plan.constructs) for g in later) / len(later)
    assert mean > sum(len(g.plan.constructs) for g in first) / len(first)


def test_a_materialized_case_reads_back_its_streams(tmp_path: Path) -> None:
    from pytest_rspbench.runner import open_streams, static_triples

    scope = scope_of(REFERENCE)
    generated = next(g for n in range(200) if (g := generate(3, n, scope)).static)
    case = materialize(generated, tmp_path, "reference")
    streams = open_streams(case)
    assert [list(s.events()) for s in streams] == [list(s.events) for s in generated.streams]
    assert sorted(static_triples(case)) == sorted(generated.static)


def test_count_and_session_windows_are_generated() -> None:
    kinds: set[str] = set()
    for number in range(80):
        query = parse(generate(4, number, scope_of(REFERENCE)).query.text)
        check_sparql(query)
        kinds |= query.kinds
    assert kinds == {"time", "rows", "triples", "session"}


def test_a_kind_the_oracle_does_not_compute_is_never_generated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_rspbench.explore import scope

    monkeypatch.setattr(scope, "oracle_computes", lambda kind: kind == "time")
    for number in range(80):
        assert parse(generate(4, number, scope_of(REFERENCE)).query.text).kinds == {"time"}
