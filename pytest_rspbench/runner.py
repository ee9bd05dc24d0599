"""Run one case end to end: streams -> engine -> oracle -> verdict.

The pytest item only calls :func:`run_case`; each step lives in its own
module (docs/architecture.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from _pytest.outcomes import Skipped

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.profiles import EngineProfile, resolve
from pytest_rspbench.engine.sampling import resolve_interval
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.report.load import watching
from pytest_rspbench.report.record import CaseRun, case_record, unjudged_record
from pytest_rspbench.rsp.outputs import ActualOutput, ExpectedOutput, regrouped
from pytest_rspbench.spec.model import Case
from pytest_rspbench.stream.model import Stream
from pytest_rspbench.stream.workloads import Disorder
from pytest_rspbench.verdict.departures import Evidence
from pytest_rspbench.verdict.strict import Gracious, assess, combine


def open_streams(case: Case) -> list[Stream]:
    """The case's input streams, ready to be read (lazily)."""
    from pytest_rspbench.spec.resources import resolve_path
    from pytest_rspbench.stream.sources import open_source

    streams = []
    for decl in case.streams:
        config = dict(decl.source)
        if isinstance(config.get("path"), str):
            config["path"] = str(resolve_path(config["path"], case.base_dir))
        stream = open_source(config, case.base_dir, decl.iri)
        if decl.end is not None:
            stream = replace(stream, end=decl.end)
        streams.append(stream)
    return streams


def static_triples(case: Case) -> list[tuple[str, str, str]]:
    """Triples of the case's static background files."""
    from pytest_rspbench.stream.files import read_rdf_file

    formats = {".ttl": "turtle", ".nt": "ntriples", ".rdf": "rdfxml", ".owl": "rdfxml"}
    out: list[tuple[str, str, str]] = []
    for path in case.static:
        out.extend(read_rdf_file(path, formats.get(path.suffix, "turtle")))
    return out


def end_time(streams: list[Stream], cache: StreamCache | None = None) -> int:
    """Application time at which the input is over: the latest stream end.

    A stream without a declared end ends at its last event: read from the
    stream cache's metadata when the stream is there, else by reading it.
    """
    ends = []
    for stream in streams:
        stored = cache.lookup(stream) if cache is not None else None
        if stream.end is not None:
            ends.append(stream.end)
        elif stored is not None:
            if stored.times:
                ends.append(stored.times[-1])
        else:
            last = None
            for event in stream.events():
                last = event.time
            if last is not None:
                ends.append(last)
    return max(ends, default=0)


@dataclass(frozen=True)
class Prepared:
    """What every replay of a case and its oracle share."""

    profile: EngineProfile
    streams: list[Stream]
    static: list[tuple[str, str, str]]
    starts: dict[str, int]
    end: int
    registration: Registration


def event_times(streams: list[Stream], cache: StreamCache | None = None) -> list[int]:
    """The distinct event times of all streams, ascending (for naming
    departures: an event on a window border, the end of the input).

    Read from the stream cache's metadata when the streams are there.
    """
    times: set[int] = set()
    for stream in streams:
        stored = cache.lookup(stream) if cache is not None else None
        if stored is not None:
            times.update(stored.times)
        else:
            times.update(event.time for event in stream.events())
    return sorted(times)


def stream_events(
    streams: list[Stream], cache: StreamCache | None = None
) -> dict[str, list[tuple[int, int]]]:
    """Per stream, each event's time and triple count in stream order (for
    naming the departures of count and session windows, so only for a
    failing item). Read from the stream cache's metadata when it has them."""
    out = {}
    for stream in streams:
        stored = cache.lookup(stream) if cache is not None else None
        if stored is not None and stored.events is not None and stored.event_sizes is not None:
            times = [t for t, n in zip(stored.times, stored.events, strict=True) for _ in range(n)]
            out[stream.iri] = list(zip(times, stored.event_sizes, strict=True))
        else:
            out[stream.iri] = [(e.time, len(e.triples)) for e in stream.events()]
    return out


def term_times(streams: list[Stream], terms: set[str]) -> dict[str, set[int]]:
    """When each of ``terms`` occurs in the streams as a subject or object
    (one pass; for naming departures, so only for a failing item)."""
    found: dict[str, set[int]] = {}
    for stream in streams:
        for event in stream.events():
            for s, _, o in event.triples:
                for term in (s, o):
                    if term in terms:
                        found.setdefault(term, set()).add(event.time)
    return found


class Ahead(Protocol):
    """The case's expected output, computed while its engine replays
    (:mod:`pytest_rspbench.ahead` in a pytest session)."""

    def replaying(self) -> AbstractContextManager[Any]:
        """Held around the replays (a spec judging performance pauses the
        background work)."""

    def result(self) -> ExpectedOutput | None:
        """The expected output; None when it needs the engine's output."""

    @property
    def note(self) -> str:
        """What the report says about it (see :attr:`CaseRun.oracle_note`)."""


def run_case(
    case: Case,
    spark: Any,
    artifacts: Path | None = None,
    progress: Any = None,
    cache: StreamCache | None = None,
    ahead: Ahead | None = None,
    record: Path | None = None,
) -> CaseRun:
    """Replay, compute expectations, assess. Raises RspbenchError subclasses
    for user-fixable problems; engine faults end up in the assessment.
    ``progress`` goes to :func:`harness.run` (the live progress line);
    ``cache`` holds the streams as Parquet for the oracle (None: in memory);
    ``ahead`` is the expected output computed during the replays, if any.
    When the oracle fails, ``metrics.json`` still keeps what the engine did,
    with the oracle's error (explained when Spark's JVM died). With
    ``record``, the first replay's answers are written there
    (:func:`record_answers`) before they are judged."""
    prepared = prepare(case, cache)
    if artifacts is not None:
        artifacts.mkdir(parents=True, exist_ok=True)
        _write_stream(prepared.streams, artifacts / "stream.jsonl")
    # The load average is sampled while the engine runs: a delay, memory or
    # CPU figure measured on an overloaded machine says so (report/load.py).
    with ahead.replaying() if ahead is not None else nullcontext(), watching() as watch:
        actuals = [
            replay(case, prepared, _folder(artifacts, number), progress)
            for number in range(case.repeat)
        ]
    if record is not None:
        record_answers(case, actuals[0], record)
    declined(prepared.profile.name, actuals)
    try:
        expected = _ahead_result(ahead, progress)
        if expected is None:
            expected = expect(case, prepared, actuals, spark, progress, cache)
        run = judge(case, prepared, actuals, expected, spark, cache, artifacts)
        run = replace(run, load=watch.load)
        if ahead is not None:
            run = replace(run, oracle_note=ahead.note)
    except Exception as exc:
        error = _oracle_failure(exc)
        if artifacts is not None:
            _keep_unjudged(case, prepared, actuals[0], error, artifacts)
        if error is exc:
            raise
        raise error from exc
    if artifacts is not None:
        keep(run, artifacts)
    return run


def record_answers(case: Case, actual: ActualOutput, folder: Path) -> Path:
    """Write what the engine streamed out to ``folder/<spec>/<case id>.jsonl``
    (``--rspbench-record``), one ``results.jsonl`` line per relation (an
    ``unsupported`` message first when the engine declined the query): the
    file an engine profile with ``adapter.recorded.path:
    folder/{spec}/{case}.jsonl`` and the engine's name reads back."""
    from pytest_rspbench.engine.harness import record_line

    path = folder / case.spec_name / f"{safe_name(case.case_id)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    with temporary.open("w", encoding="utf-8") as out:
        if actual.unsupported is not None:  # declined: the recorded engine declines too
            out.write(json.dumps({"type": "unsupported", "reason": actual.unsupported}) + "\n")
        for received in actual.received:
            out.write(record_line(received) + "\n")
    temporary.replace(path)
    return path


class Declined(Skipped):
    """The skip of a case whose engine declined its query at registration."""


def declined(engine: str, actuals: list[ActualOutput]) -> None:
    """Skip the case when the engine answered ``unsupported`` to its
    registration (docs/engine-protocol.md): not a mistake, so no verdict.

    Raises:
        Declined: a ``pytest.skip.Exception`` naming the engine's reason.
    """
    reason = next((a.unsupported for a in actuals if a.unsupported), None)
    if reason is not None:
        raise Declined(f"{engine} does not run this query: {reason}")


def _ahead_result(ahead: Ahead | None, progress: Any) -> ExpectedOutput | None:
    """The output computed ahead; None when there is none, or when it
    failed on something other than the user's input (computed again here,
    where such a failure is reported as before)."""
    if ahead is None:
        return None
    from pytest_rspbench.report.progress import stage

    with stage(progress, "oracle: computing the expected output (begun during the replay)"):
        try:
            return ahead.result()
        except RspbenchError:
            raise
        except Exception:
            return None


def expect_ahead(case: Case, spark: Any, cache: StreamCache | None = None) -> ExpectedOutput | None:
    """The expected output of ``case`` before its engine runs, or None where
    it depends on the engine's output (many t0 classes: :func:`.oracle.ahead`)."""
    from pytest_rspbench.oracle.oracle import OracleRequest, ahead

    prepared = prepare(case, cache)
    request = OracleRequest(
        case.query,
        tuple(prepared.streams),
        prepared.profile.semantics,
        tuple(prepared.static),
        dict(prepared.starts),
        cache=cache,
        keep=True,
        disorder=disorders(case),
    )
    return ahead(spark, request)


def disorders(case: Case) -> dict[str, Disorder]:
    """Per stream IRI, how the harness delivers it out of order (the spec's
    ``disorder:``): the engine receives it so, and count windows counting
    arrivals count it so (docs/count-and-session-windows.md)."""
    return {d.iri: d.disorder for d in case.streams if d.disorder}


def prepare(case: Case, cache: StreamCache | None = None) -> Prepared:
    """The case's profile, streams, static data, end time and registration."""
    profile = resolve(case.engine, case.base_dir).with_semantics(case.semantics)
    streams = open_streams(case)
    starts = {d.iri: d.start for d in case.streams}
    registration = Registration(
        case.query.text,
        tuple(s.iri for s in streams),
        min(starts.values(), default=0),
        profile.semantics,
        case.static,
    )
    return Prepared(
        profile, streams, static_triples(case), starts, end_time(streams, cache), registration
    )


def replay(
    case: Case, prepared: Prepared, folder: Path | None, progress: Any = None
) -> ActualOutput:
    """One replay of the streams into a new engine, its results kept in ``folder``."""
    engine = _create_engine(prepared.profile, case, folder)
    record = (folder / "results.jsonl").open("w", encoding="utf-8") if folder else None
    try:
        return harness.run(
            engine,
            prepared.registration,
            prepared.streams,
            prepared.end,
            case.speed,
            case.timeout,
            record,
            artifacts=folder,
            sample_interval=resolve_interval(prepared.profile.sample_interval),
            progress=progress,
            disorder=disorders(case),
        )
    finally:
        if record is not None:
            record.close()


def expect(
    case: Case,
    prepared: Prepared,
    actuals: list[ActualOutput],
    spark: Any,
    progress: Any = None,
    cache: StreamCache | None = None,
) -> ExpectedOutput:
    """The oracle's expected output for the case's profile."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0.narrowing import Reported
    from pytest_rspbench.report.progress import stage

    # With many t0 classes, the oracle computes those the content of each
    # replay's output allows (the verdict stays exact); times are not used.
    unit = regroup_unit(prepared.profile)
    reported = Reported.of_outputs(
        [[r.result for r in regrouped(a.received, unit)] for a in actuals],
        by_value=case.comparison.literal_equality == "value",
        exact=case.comparison.exact,
        tolerance=case.comparison.tolerance,
    )
    with stage(progress, "oracle: computing the expected output"):
        return expected_output(
            spark,
            case.query,
            prepared.streams,
            prepared.profile.semantics,
            prepared.static,
            prepared.starts,
            cache=cache,
            keep=True,
            reported=reported,
            disorder=disorders(case),
        )


def regroup_unit(profile: Any) -> int:
    """The time unit (ms) within which an engine's results are one relation:
    its ``time_unit`` when its adapter regroups them (``adapter.recorded.regroup``:
    an engine that wrote one binding per relation), else 1 (none merged)."""
    regroups = bool(getattr(profile.config, "regroup", False))
    return max(profile.semantics.time_unit, 1) if regroups else 1


def judge(
    case: Case,
    prepared: Prepared,
    actuals: list[ActualOutput],
    expected: ExpectedOutput,
    spark: Any,
    cache: StreamCache | None = None,
    artifacts: Path | None = None,
) -> CaseRun:
    """The verdict on each replay, folded into one run (median with ``repeat``)."""
    semantics = prepared.profile.semantics
    gracious = _gracious(case, prepared, spark, cache)
    evidence: Evidence | None = None

    def stream_times() -> Evidence:
        # Read once, and only for a failing replay (naming its departures).
        nonlocal evidence
        if evidence is None:
            evidence = Evidence(
                event_times(prepared.streams, cache),
                lambda terms: term_times(prepared.streams, terms),
                lambda: stream_events(prepared.streams, cache),
            )
        return evidence

    unit = regroup_unit(prepared.profile)
    assessments = [
        assess(expected, a, semantics, case, gracious, stream_times, regroup=unit) for a in actuals
    ]
    assessment, shown = assessments[0], 0
    if len(actuals) > 1:
        assessment, shown = combine(assessments, actuals, case)
    return CaseRun(case, prepared.profile, actuals[shown], expected, assessment, artifacts)


def _gracious(
    case: Case, prepared: Prepared, spark: Any, cache: StreamCache | None
) -> Gracious | None:
    """Gracious mode's step, when the case asks for it: the verdict's search
    over window borders, given the oracle's border evaluator
    (:func:`pytest_rspbench.oracle.borders.evaluator`), so judging starts no
    Spark job of its own."""
    if case.comparison.gracious_shift is None:
        return None
    from pytest_rspbench.oracle.borders import evaluator
    from pytest_rspbench.verdict.gracious import explainer

    borders = evaluator(spark, case.query, prepared.streams, prepared.static, cache)
    return explainer(borders, prepared.profile.semantics, case.comparison)


def _folder(artifacts: Path | None, number: int) -> Path | None:
    """Where replay ``number`` keeps its files: the first at the top of the item's folder."""
    if artifacts is None:
        return None
    folder = artifacts if number == 0 else artifacts / f"repeat-{number + 1}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keep(run: CaseRun, artifacts: Path) -> None:
    """Write the run's record (``metrics.json``) and engine error into ``artifacts``."""
    (artifacts / "metrics.json").write_text(json.dumps(case_record(run), indent=2, sort_keys=True))
    if run.actual.error:
        (artifacts / "engine-error.txt").write_text(run.actual.error + "\n")


def _oracle_failure(exc: Exception) -> Exception:
    """``exc``, or an OracleError saying what happened to Spark (its JVM died...).

    The one place a pytest run turns a Spark failure into a message: the
    oracle's Spark face (:func:`pytest_rspbench.oracle.spark.spark_failure`)
    words it; the item raises what comes out of :func:`run_case` as it is.
    """
    from pytest_rspbench.oracle.spark import spark_failure

    return spark_failure(exc) or exc


def _keep_unjudged(
    case: Case, prepared: Prepared, actual: ActualOutput, error: Exception, artifacts: Path
) -> None:
    """``metrics.json`` of a case without a verdict: the engine's side and the error."""
    record = unjudged_record(case, prepared.profile.name, actual, error)
    (artifacts / "metrics.json").write_text(json.dumps(record, indent=2, sort_keys=True))
    if actual.error:
        (artifacts / "engine-error.txt").write_text(actual.error + "\n")


def _create_engine(profile: EngineProfile, case: Case, artifacts: Path | None) -> Any:
    """The engine for this case; an engine that cannot run here skips the item."""
    import pytest

    from pytest_rspbench.engine.processes import EngineUnavailable

    names = {"spec": case.spec_name, "case": safe_name(case.case_id)}
    try:
        return profile.create(artifacts, names)
    except EngineUnavailable as exc:
        pytest.skip(str(exc))


def _write_stream(streams: list[Stream], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for iri, event in harness.merged(streams):
            for s, p, o in event.triples:
                out.write(
                    json.dumps({"stream": iri, "time": event.time, "s": s, "p": p, "o": o}) + "\n"
                )


SAFE = re.compile(r"[^A-Za-z0-9_.=,-]+")
"""What a folder name never holds: anything a shell would need quoted."""


def safe_name(nodeid: str) -> str:
    """A file-system and shell safe name for an item (cut to 150 characters):
    ``[A-Za-z0-9_.=,-]`` only, never starting with ``-`` or ``.``.

    >>> safe_name("../my specs/q.rspbench.yaml::q[engine=my-eng]")
    'my_specs_q.rspbench.yaml_q_engine=my-eng'
    """
    return SAFE.sub("_", nodeid).lstrip("_.-").rstrip("_")[:150]


def folder_name(nodeid: str, limit: int = 150) -> str:
    """:func:`safe_name`, but a cut name ends with a hash of the whole id.

    >>> folder_name("a.yaml::x[" + "p=1," * 50 + "]", limit=40)
    'a.yaml_x_p=1,p=1,p=1,p=1,p=1,-21304a92d1'
    """
    name = SAFE.sub("_", nodeid).lstrip("_.-").rstrip("_")
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:10]
    return f"{name[: limit - 11]}-{digest}"
