"""Narrowing many t0 classes by the *content* of the engine's output.

A stream stamped at every millisecond has one t0 class per millisecond of
the slide (here 1,000). The oracle computes only the classes whose windows
can hold the engine's relations (solution spans against bindings), so the
verdict stays exact whatever the engine says about times and windows::

    engine (t0 = 500)   [500 ---- 1500) [1500 ---- 2500) [2500 ---- 3500)
    its relations       R1              R2               R3
    R1's bindings come from solutions that [o, o + 1000) holds for o in [492, 516]
    -> t0 in [492, 516]: 25 of 1,000 classes computed, compared exactly
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.api import Result, Semantics
from pytest_rspbench.engine.harness import ActualOutput, Received
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.oracle.t0 import narrowing
from pytest_rspbench.oracle.t0.narrowing import Reported, Told, arc, constraining
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.verdict.strict import assess

from helpers.verdict import case

IRI = "http://ex/s"
SLIDE = 1000
INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
# One event every millisecond for 4 s: with a 1 s slide, 1,000 t0 classes.
EVENTS = [
    Event(t, ((f"<http://ex/o{t}>", "<http://ex/v>", f'"{t % 97}"^^{INTEGER}'),))
    for t in range(0, 4000)
]
WALL_CLOCK = 1_764_000_000_000


def stream() -> Stream:
    return Stream(IRI, lambda: iter(EVENTS), "every ms", end=4000)


FILTER = """PREFIX : <http://ex/>
REGISTER RStream :out AS SELECT ?o ?x
FROM NAMED WINDOW :w ON STREAM <http://ex/s> [RANGE 1000 STEP 1000]
WHERE { WINDOW :w { ?o :v ?x FILTER(?x > 90) } }"""


def profile(t0: Any = "any", report: Sequence[str] = ("window-close",), **more: Any) -> Semantics:
    return Semantics(bounds="[o,c)", t0=t0, report=tuple(report), **more)


# --- interval arithmetic (no Spark) ----------------------------------------------


def test_an_arc_is_the_t0s_of_windows_opening_in_an_interval() -> None:
    # A window opening at o = 2345 has t0 = 345 (slide 1000, t0 in [0, 1000)).
    assert arc(2345, 2345, SLIDE, 0) == [(345, 345)]
    assert arc(2990, 3010, SLIDE, 0) == [(0, 10), (990, 999)]
    assert arc(2990, 3010, SLIDE, 1234) == [(1990, 2010)]  # t0 in [1234, 2234)
    assert arc(-5, 2000, SLIDE, 0) == [(0, 999)]


def test_only_a_leading_transient_is_left_out() -> None:
    out = [
        Told(({"x": "<a>"},), 10),  # before t_s = 999: transient
        Told(({"x": "<b>"},), 1500),
        Told(({"x": "<c>"},), 0),  # before t_s, after a later one: compared
        Told((), 2500),  # no bindings: nothing to place
    ]
    assert constraining(out, stable_from=999, transient=0) == [1, 2]
    # Untimed (or wall-clock) output: as many leading relations as a class
    # can have before t_s may be transient.
    assert constraining([Told(({"x": "<a>"},))] * 3, 999, transient=1) == [1, 2]


def test_reported_is_read_from_results() -> None:
    results = [Result(({"x": "<a>"},), 10, (0, 10)), Result((), None, None)]
    reported = Reported.of(results)
    assert reported.outputs == ((Told(({"x": "<a>"},), 10, (0, 10)), Told()),)
    assert reported and not Reported.of([Result(())])


# --- the oracle and the verdict on 1,000 classes -------------------------------------

Mode = Callable[[Any], Result]
MODES: dict[str, Mode] = {
    "exact times and windows": lambda r: Result(r.bindings, r.time, r.window),
    "times +1 ms, no windows": lambda r: Result(r.bindings, r.time + 1),
    "times -1 ms, no windows": lambda r: Result(r.bindings, r.time - 1),
    "wall-clock times": lambda r: Result(r.bindings, WALL_CLOCK + r.time),
    "times in seconds": lambda r: Result(r.bindings, r.time // 1000),
    "no times, windows": lambda r: Result(r.bindings, None, r.window),
    "no times, no windows": lambda r: Result(r.bindings),
}


def wrong(kind: str, results: list[Result]) -> list[Result]:
    """A wrong engine: one binding lost, one changed, or a stale relation at the end."""
    out = list(results)
    second = out[1]
    if kind == "lost binding":
        out[1] = Result(second.bindings[1:], second.time, second.window)
    elif kind == "changed binding":
        first = dict(second.bindings[0], x=f'"1"^^{INTEGER}')
        out[1] = Result((first, *second.bindings[1:]), second.time, second.window)
    else:  # the first relation again, stamped 0, after the others
        out.append(Result(out[0].bindings, None if out[0].time is None else 0))
    return out


@pytest.fixture(scope="module")
def engine_output(spark: Any) -> dict[tuple[str, ...], list[Any]]:
    """What an engine with t0 = 500 must output, per report policy."""
    from pytest_rspbench.oracle.oracle import expected_output

    out = {}
    for report, more in (
        (("window-close",), {}),
        (("window-close", "non-empty-content"), {}),
        (("periodic",), {"period": 500}),
    ):
        fixed = expected_output(spark, parse(FILTER), [stream()], profile(500, report, **more))
        (cls,) = fixed.classes
        out[report] = list(cls.relations)
    return out


def judge(spark: Any, results: list[Result], cache: StreamCache, semantics: Semantics) -> Any:
    from pytest_rspbench.oracle.oracle import expected_output

    expected = expected_output(
        spark, parse(FILTER), [stream()], semantics, cache=cache, keep=True,
        reported=Reported.of(results),
    )  # fmt: skip
    actual = ActualOutput("recorded", [Received(r, 0.0, None) for r in results])
    return expected, assess(expected, actual, semantics, case(mode="strict"))


@pytest.mark.spark
@pytest.mark.parametrize("mode", list(MODES))
def test_a_correct_engine_passes_however_it_reports_times(
    spark: Any, engine_output: Any, tmp_path_factory: Any, mode: str
) -> None:
    """Times and windows decide nothing: the content picks the classes."""
    cache = StreamCache(tmp_path_factory.getbasetemp() / "narrowing-cache")
    semantics = profile(reports_window="windows" in mode and "no windows" not in mode)
    results = [MODES[mode](r) for r in engine_output[("window-close",)]]
    expected, verdict = judge(spark, results, cache, semantics)
    assert expected.total_classes == 1000
    assert verdict.passed, verdict.difference
    assert expected.narrowing.startswith("25 of 1,000 t0 classes computed")
    if semantics.reports_window:  # only t0 = 500 has the windows it reported
        assert verdict.narrowing.startswith("t0 = 500; 25 of")
    else:  # every t0 in [492, 516] puts the same solutions in the windows
        assert verdict.narrowing.startswith("t0 in [492, 517): 25 equivalent starts")


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["lost binding", "changed binding", "stale relation"])
@pytest.mark.parametrize(
    "mode", ["exact times and windows", "wall-clock times", "no times, no windows"]
)
def test_a_wrong_engine_fails_however_it_reports_times(
    spark: Any, engine_output: Any, tmp_path_factory: Any, mode: str, kind: str
) -> None:
    cache = StreamCache(tmp_path_factory.getbasetemp() / "narrowing-cache")
    results = wrong(kind, [MODES[mode](r) for r in engine_output[("window-close",)]])
    expected, verdict = judge(spark, results, cache, profile())
    assert not verdict.passed
    assert len(expected.classes) < 50
    if kind == "changed binding":  # "1" is no ?x > 90: no solution gives it
        assert "no t0 reproduces the output: relation 2 of the engine's output" in (
            expected.narrowing
        )
        assert "which no solution of the query gives" in expected.narrowing


@pytest.mark.spark
@pytest.mark.parametrize("report", [("window-close", "non-empty-content"), ("periodic",)], ids=str)
@pytest.mark.parametrize("mode", ["exact times and windows", "no times, no windows"])
def test_every_report_policy(
    spark: Any, engine_output: Any, tmp_path_factory: Any, report: Any, mode: str
) -> None:
    cache = StreamCache(tmp_path_factory.getbasetemp() / "narrowing-cache")
    more = {"period": 500} if "periodic" in report else {}
    semantics = profile(report=report, **more)
    results = [MODES[mode](r) for r in engine_output[report]]
    expected, verdict = judge(spark, results, cache, semantics)
    # Partial windows (periodic) hold few bindings: they allow more t0.
    assert expected.total_classes == 1000 and len(expected.classes) < 1000
    assert verdict.passed, verdict.difference
    _, bad = judge(spark, wrong("lost binding", results), cache, semantics)
    assert not bad.passed


@pytest.mark.spark
def test_a_wrong_windowed_report_fails_when_the_profile_reports_windows(
    spark: Any, engine_output: Any, tmp_path_factory: Any
) -> None:
    """The content matches t0 = 500, but the engine says its windows opened at 0."""
    cache = StreamCache(tmp_path_factory.getbasetemp() / "narrowing-cache")
    results = [
        Result(r.bindings, r.time, (r.window[0] - 500, r.window[1] - 500))
        for r in engine_output[("window-close",)]
    ]
    _, trusted = judge(spark, results, cache, profile(reports_window=True))
    assert not trusted.passed
    assert "reported windows differ" in (trusted.difference or "")
    _, untrusted = judge(spark, results, cache, profile())
    assert untrusted.passed
    assert "reported windows differ" in untrusted.narrowing


@pytest.mark.spark
def test_reported_times_that_differ_are_a_finding(
    spark: Any, engine_output: Any, tmp_path_factory: Any
) -> None:
    cache = StreamCache(tmp_path_factory.getbasetemp() / "narrowing-cache")
    results = [MODES["wall-clock times"](r) for r in engine_output[("window-close",)]]
    _, verdict = judge(spark, results, cache, profile())
    assert verdict.passed
    assert "reported times differ from the evaluation times of t0 = " in verdict.narrowing


@pytest.mark.spark
def test_no_bindings_compute_every_class_and_say_so(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    query = parse(FILTER.replace("?x > 90", "?x > 1000"))
    got = expected_output(spark, query, [stream()], profile(), reported=Reported.of([Result(())]))
    assert len(got.classes) == 1000
    assert got.narrowing.startswith("t0 any: the content cannot decide")


@pytest.mark.spark
def test_two_windows_with_t0_any_are_judged(spark: Any, tmp_path: Path) -> None:
    """1,000 x 1,000 classes: each window's bindings place its own windows."""
    from pytest_rspbench.oracle.oracle import expected_output

    dense = stream()
    query = parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?o ?x\n"
        f"FROM NAMED WINDOW :w1 ON STREAM <{IRI}> [RANGE 1000 STEP 1000]\n"
        f"FROM NAMED WINDOW :w2 ON STREAM <{IRI}> [RANGE 1000 STEP 1000]\n"
        "WHERE { WINDOW :w1 { ?o :v ?x FILTER(?x > 90) } WINDOW :w2 { ?o :v ?x } }"
    )
    fixed = expected_output(spark, query, [dense], profile(500))
    results = [Result(r.bindings, r.time) for r in fixed.classes[0].relations]
    expected = expected_output(spark, query, [dense], profile(), reported=Reported.of(results))
    assert expected.total_classes == 1_000_000
    assert len(expected.classes) == 25 * 25, expected.narrowing
    actual = ActualOutput("recorded", [Received(r, 0.0, None) for r in results])
    assert assess(expected, actual, profile(), case(mode="strict")).passed


SELF_JOIN = """PREFIX : <http://ex/>
REGISTER RStream :out AS SELECT ?o ?p ?x
FROM NAMED WINDOW :w ON STREAM <http://ex/s> [RANGE 1000 STEP 1000]
WHERE { WINDOW :w { ?o :v ?x . ?p :v ?x FILTER(?x > 90 && ?o != ?p) } }"""


@pytest.mark.spark
def test_a_self_join_is_placed_side_by_side(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each observation of a pair is placed on its own (no self-join in the
    narrowing), and the classes are those the joined pattern allows."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0 import spans

    query = parse(SELF_JOIN)
    (cls,) = expected_output(spark, query, [stream()], profile(500)).classes
    correct = [Result(r.bindings) for r in cls.relations]
    split, sides = [], spans.sides

    def judged(answer: list[Result]) -> tuple[Any, Any]:
        expected = expected_output(
            spark, query, [stream()], profile(), reported=Reported.of(answer)
        )
        actual = ActualOutput("recorded", [Received(r, 0.0, None) for r in answer])
        return expected, assess(expected, actual, profile(), case(mode="strict"))

    monkeypatch.setattr(spans, "sides", lambda *a: split.append(r := sides(*a)) or r)
    expected, verdict = judged(correct)
    assert [len(s) for s in split] == [2]  # ?o's side and ?p's side
    # ?p's side was ?o's, renamed and kept in memory for the narrowing only.
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
    assert verdict.passed, verdict.difference
    assert not judged(wrong("lost binding", correct))[1].passed
    # ?o from the first window and ?p from the third: each side is placed,
    # but no window holds both, and the report names the two.
    first = correct[0].bindings[0]
    third = next(b for b in correct[2].bindings if b["x"] == first["x"])
    cross = {"o": first["o"], "p": third["p"], "x": first["x"]}
    crossed, crossed_verdict = judged([correct[0], Result((cross,)), *correct[2:]])
    assert not crossed_verdict.passed
    said = crossed.narrowing
    assert "relation 2 of the engine's output" in said and "are never in one window" in said
    assert f"?o={first['o']}" in said and f"?p={third['p']}" in said, said
    monkeypatch.setattr(spans, "sides", lambda triples, output: [list(triples)])
    joined, _ = judged(correct)
    assert expected.narrowing == joined.narrowing
    assert len(expected.classes) == len(joined.classes) < 50


STAR_JOIN = """PREFIX : <http://ex/>
REGISTER RStream :out AS SELECT ?o ?p ?x
FROM NAMED WINDOW :w ON STREAM <http://ex/s> [RANGE 1000 STEP 1000]
WHERE { WINDOW :w { ?o :v ?x ; :w ?y . ?p :v ?x ; :w ?z FILTER(?o != ?p) } }"""


def star_stream(late: int) -> Stream:
    """Observation ``o<t>``: ``:v`` at ``t``, ``:w`` ``late`` ms after it."""
    at: dict[int, list[tuple[str, str, str]]] = {}
    for t in range(0, 4000):
        at.setdefault(t, []).append(
            (f"<http://ex/o{t}>", "<http://ex/v>", f'"{t % 97}"^^{INTEGER}')
        )
        at.setdefault(t + late, []).append((f"<http://ex/o{t}>", "<http://ex/w>", '"1"'))
    events = [Event(t, tuple(triples)) for t, triples in sorted(at.items()) if t < 4000]
    return Stream(IRI, lambda: iter(events), f"star, late {late}", end=4000)


@pytest.mark.spark
@pytest.mark.parametrize("late", [0, 300])
def test_a_star_is_placed_by_one_pattern_first(
    spark: Any, late: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each side placed by its subject's one pattern (no star joined) when
    that leaves one class per window; else by the whole pattern, with the
    same classes as the whole pattern alone gives."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0 import sides

    query = parse(STAR_JOIN)
    (cls,) = expected_output(spark, query, [star_stream(late)], profile(500)).classes
    correct = [Result(r.bindings) for r in cls.relations]
    passes: list[bool] = []
    placed = narrowing._opens

    kept: dict[int, bool] = {}  # a side's triple patterns -> its solutions kept in memory

    def opens(spark: Any, algebra: Any, ctx: Any, *more: Any) -> Any:
        passes.append(ctx.relaxed)
        found = placed(spark, algebra, ctx, *more)
        kept.update({len(form): f.df.is_cached for (_, form), (f, _) in ctx.kept.items()})
        return found

    monkeypatch.setattr(narrowing, "_opens", opens)

    def judged(answer: list[Result]) -> tuple[Any, Any]:
        expected = expected_output(
            spark, query, [star_stream(late)], profile(), reported=Reported.of(answer)
        )
        actual = ActualOutput("recorded", [Received(r, 0.0, None) for r in answer])
        return expected, assess(expected, actual, profile(), case(mode="strict"))

    expected, verdict = judged(correct)
    assert verdict.passed, verdict.difference
    # Same times: the one pattern decides. 300 ms apart: it allows 300
    # classes a window, so the whole star places the relations.
    assert passes == ([True] if late == 0 else [True, False]), expected.narrowing
    # The second side reads the first's solutions: a star's join is kept in
    # memory for it, a single pattern's scan is read again.
    assert kept == ({1: False} if late == 0 else {1: False, 2: True})
    assert not judged(wrong("lost binding", correct))[1].passed
    monkeypatch.setattr(sides, "relaxable", lambda node: False)
    whole, _ = judged(correct)
    assert expected.narrowing == whole.narrowing
    assert len(expected.classes) == len(whole.classes) == 1


@pytest.mark.spark
@pytest.mark.parametrize("late", [0, 300])
def test_the_star_layout_places_a_star_from_its_property_table(
    spark: Any, late: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``RSPBENCH_STAR_LAYOUT=on`` the narrowing reads a side's subject
    star from the property table, as the compiler does: the same classes,
    the same output. 300 ms apart, the whole star places the relations
    (above), and it is read from the table."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.sparql import patterns, stars

    query = parse(STAR_JOIN)
    (cls,) = expected_output(spark, query, [star_stream(late)], profile(500)).classes
    answer = Reported.of([Result(r.bindings) for r in cls.relations])
    real, placing, read = patterns.star_relation, narrowing._opens, []
    inside: list[bool] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        if inside:  # the narrowing's stars, not the compiler's
            read.append(len(args[1]))
        return real(*args, **kwargs)

    def opens(*args: Any) -> Any:
        inside.append(True)
        try:
            return placing(*args)
        finally:
            inside.pop()

    found = {}
    for setting in ("off", "on"):
        with monkeypatch.context() as patch:
            patch.setenv(stars.ENV, setting)
            patch.setattr(patterns, "star_relation", counted)
            patch.setattr(narrowing, "_opens", opens)
            found[setting] = expected_output(
                spark, query, [star_stream(late)], profile(), reported=answer
            )
    on, off = found["on"], found["off"]
    assert on.narrowing == off.narrowing
    assert len(on.classes) == len(off.classes) == 1
    assert [r.bindings for r in on.classes[0].relations] == [
        r.bindings for r in off.classes[0].relations
    ]
    # One star of :v and :w read (the second side is the first's solutions
    # renamed); with late 0, one pattern places each side.
    assert read == ([] if late == 0 else [2]), read


@pytest.mark.spark
def test_narrowed_output_is_stored_under_its_classes(spark: Any, tmp_path: Path) -> None:
    """The narrowing is kept too: the same engine output again needs no Spark."""
    from pytest_rspbench.oracle.oracle import expected_output

    fixed = expected_output(spark, parse(FILTER), [stream()], profile(500))
    results = [Result(r.bindings) for r in fixed.classes[0].relations]
    cache = StreamCache(tmp_path)

    def run(output: list[Result], session: Any = spark) -> Any:
        # A fingerprint keys the stream by its source: the cache knows its
        # timeline before Spark starts.
        keyed = Stream(IRI, lambda: iter(EVENTS), "every ms", end=4000, fingerprint=lambda: "1")
        return expected_output(
            session, parse(FILTER), [keyed], profile(), cache=cache, keep=True,
            reported=Reported.of(output),
        )  # fmt: skip

    def no_spark() -> Any:
        raise AssertionError("Spark was started for a stored output")

    first, again = run(results), run(results, no_spark)
    assert not first.stored and again.stored
    assert again.narrowing == first.narrowing and again.total_classes == 1000
    other = run(results[1:])  # another output: narrowed again (maybe alike)
    assert other.total_classes == 1000


def test_the_stored_narrowing_is_keyed_by_each_relations_bag() -> None:
    """Alike outputs share a key (order within a relation is not content);
    any other bag, or the same bindings cut differently, gets its own."""
    from types import SimpleNamespace

    lay: Any = SimpleNamespace(stable_from=0, transient=0)

    def key(*relations: tuple[dict[str, str], ...], by_value: bool = False) -> str:
        outputs = [Result(r, 1000 * (j + 1)) for j, r in enumerate(relations)]
        return narrowing.digest(Reported.of(outputs, by_value=by_value), lay)

    a, b = {"x": "<a>", "y": "<b>"}, {"x": "<c>"}
    assert key((a, b)) == key((b, a))
    assert key((a, b)) != key((a, b, b))  # a bag: a duplicate counts
    assert key((a, b)) != key((a,), (b,))
    assert key((a, b)) != key((a, b), by_value=True)
    # Texts that would run together without their lengths.
    assert key(({"x": "<ab>", "y": "<c>"},)) != key(({"x": "<a>", "y": "<bc>"},))
    assert key(({"x": "<a>"},)) != key(({"y": "<a>"},))


def test_few_classes_are_all_computed() -> None:
    assert narrowing.NARROW_ABOVE <= 16


def test_too_many_classes_left_are_refused_saying_why() -> None:
    """Two windows over a 1 ms stream, nothing to narrow them: 300 x 300."""
    from pytest_rspbench.errors import OracleError
    from pytest_rspbench.oracle.t0.planning import Timeline, layout, plan_classes

    query = parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?o\n"
        f"FROM NAMED WINDOW :w1 ON STREAM <{IRI}> [RANGE 300 STEP 300]\n"
        f"FROM NAMED WINDOW :w2 ON STREAM <{IRI}> [RANGE 300 STEP 300]\n"
        "WHERE { WINDOW :w1 { ?o :v ?x } WINDOW :w2 { ?o :v ?y } }"
    )
    lay = layout(query, profile(), {IRI: Timeline(0, 900, tuple(range(900)))})
    assert lay.total == 90_000
    with pytest.raises(
        OracleError,
        match=r"90,000 t0 classes to compute over 2 window\(s\) "
        r"\(no engine output to narrow them by its content\); the limit",
    ):
        plan_classes(lay, profile())
