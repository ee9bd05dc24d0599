"""R2S over per-window relations: bag semantics, and no copies of the solutions."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.oracle.r2s import stream_out
from pytest_rspbench.rsp.semantics import Semantics

A = {"x": "<a>"}
B = {"x": "<b>"}


def evaluations(*bags: list[dict[str, str | None]]) -> list[tuple]:
    return [(i, 1000 * (i + 1), 1000 * i, 1000 * (i + 1), 7, bag) for i, bag in enumerate(bags)]


def bindings(out: tuple) -> list[list[dict]]:
    return [list(r.bindings) for r in out]


def test_rstream_istream_dstream_are_bag_operations() -> None:
    semantics = Semantics(empty_relations=True)
    evs = evaluations([A, A, B], [A, B, B], [])
    assert bindings(stream_out(evs, "RStream", semantics)) == [[A, A, B], [A, B, B], []]
    assert bindings(stream_out(evs, "IStream", semantics)) == [[A, A, B], [B], []]
    assert bindings(stream_out(evs, "DStream", semantics)) == [[], [A], [A, B, B]]
    quiet = stream_out(evs, "IStream", Semantics(empty_relations=False))
    assert [r.index for r in quiet] == [0, 1]


def test_the_output_shares_the_evaluations_mappings() -> None:
    """5.6M solutions held twice cost gigabytes: the streamed-out relation
    holds the evaluation's own dicts, a duplicate as the same object."""
    a, a2, b = dict(A), dict(A), dict(B)
    (rel,) = stream_out(evaluations([b, a, a2]), "RStream", Semantics())
    assert rel.bindings == (A, A, B)
    assert rel.bindings[0] is a and rel.bindings[1] is a2 and rel.bindings[2] is b
    # IStream: a duplicate is the same object.
    (rel,) = stream_out(evaluations([b, a, a2]), "IStream", Semantics())
    assert rel.bindings[0] is a and rel.bindings[1] is a and rel.bindings[2] is b
    _, gone = stream_out(evaluations([b, a], [b]), "DStream", Semantics(empty_relations=True))
    assert gone.bindings == (A,) and gone.bindings[0] is a  # from the evaluation before


def test_an_unbound_value_is_left_out_of_the_streamed_mapping() -> None:
    partial = {"x": "<a>", "y": None}
    (rel,) = stream_out(evaluations([partial]), "RStream", Semantics())
    assert rel.bindings == ({"x": "<a>"},)
    assert partial == {"x": "<a>", "y": None}  # the evaluation's own is untouched


_TERMS = st.sampled_from(["<a>", "<b>", '"1"', '"1"^^<http://www.w3.org/2001/XMLSchema#int>'])


@given(
    st.lists(st.lists(st.fixed_dictionaries({"x": _TERMS, "y": _TERMS}), max_size=6), max_size=4),
    st.booleans(),
)
def test_rstream_of_plain_bindings_is_the_bag_sorted(
    bags: list[list[dict[str, str]]], empty: bool
) -> None:
    """The compiled plan's bindings (plain dicts over the same variables)
    take a path with no bag; it streams out what the general path does."""
    semantics = Semantics(empty_relations=empty)
    fast = stream_out(evaluations(*bags), "RStream", semantics)
    general = stream_out(
        evaluations(*[[MappingProxyType(b) for b in bag] for bag in bags]), "RStream", semantics
    )
    assert [(r.index, r.window, r.bindings) for r in fast] == [
        (r.index, r.window, r.bindings) for r in general
    ]
