"""Run one case end to end: streams -> engine -> oracle -> verdict.

The pytest item only calls :func:`run_case`; each step lives in its own
module (DESIGN §3).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.profiles import EngineProfile, resolve
from pytest_rspbench.engine.sampling import resolve_interval
from pytest_rspbench.spec.model import Case
from pytest_rspbench.oracle.streamcache import StreamCache
from pytest_rspbench.stream.model import Stream
from pytest_rspbench.report.record import CaseRun, case_record
from pytest_rspbench.verdict.strict import assess, combine


def open_streams(case: Case) -> list[Stream]:
    """The case's input streams, ready to be read (lazily)."""
    from dataclasses import replace

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


def run_case(
    case: Case,
    spark: Any,
    artifacts: Path | None = None,
    progress: Any = None,
    cache: StreamCache | None = None,
) -> CaseRun:
    """Replay, compute expectations, assess. Raises RspbenchError subclasses
    for user-fixable problems; engine faults end up in the assessment.
    ``progress`` goes to :func:`harness.run` (the live progress line);
    ``cache`` holds the streams as Parquet for the oracle (None: in memory)."""
    from pytest_rspbench.oracle.narrowing import Reported
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.report.progress import stage

    profile = resolve(case.engine, case.base_dir).with_semantics(case.semantics)
    streams = open_streams(case)
    static = static_triples(case)
    end = end_time(streams, cache)
    starts = {d.iri: d.start for d in case.streams}
    registration = Registration(
        case.query.text,
        tuple(s.iri for s in streams),
        min(starts.values(), default=0),
        profile.semantics,
        case.static,
    )
    if artifacts is not None:
        artifacts.mkdir(parents=True, exist_ok=True)
        _write_stream(streams, artifacts / "stream.jsonl")
    interval = resolve_interval(profile.sample_interval)
    disorder = {d.iri: d.disorder for d in case.streams if d.disorder}
    actuals = []
    for number in range(case.repeat):
        # The first replay keeps its files at the top of the item's folder.
        folder = artifacts if artifacts is None or number == 0 else (
            artifacts / f"repeat-{number + 1}"
        )
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        engine = _create_engine(profile, case, folder)
        record = (folder / "results.jsonl").open("w", encoding="utf-8") if folder else None
        try:
            actuals.append(
                harness.run(
                    engine,
                    registration,
                    streams,
                    end,
                    case.speed,
                    case.timeout,
                    record,
                    artifacts=folder,
                    sample_interval=interval,
                    progress=progress,
                    disorder=disorder,
                )
            )
        finally:
            if record is not None:
                record.close()
    reported = Reported.of(r.result for a in actuals for r in a.received)
    with stage(progress, "oracle: computing the expected output"):
        expected = expected_output(
            spark, case.query, streams, profile.semantics, static, starts, cache=cache,
            keep=True, reported=reported,
        )
    gracious = None
    if case.comparison.gracious_shift is not None:
        from pytest_rspbench.verdict.gracious import explainer

        gracious = explainer(spark, case, streams, profile.semantics, static, cache)
    assessments = [assess(expected, a, profile.semantics, case, gracious) for a in actuals]
    assessment, shown = assessments[0], 0
    if len(actuals) > 1:
        assessment, shown = combine(assessments, actuals, case)
    actual = actuals[shown]
    run = CaseRun(case, profile, actual, expected, assessment, artifacts)
    if artifacts is not None:
        (artifacts / "metrics.json").write_text(
            json.dumps(case_record(run), indent=2, sort_keys=True)
        )
        if actual.error:
            (artifacts / "engine-error.txt").write_text(actual.error + "\n")
    return run


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
                    json.dumps(
                        {"stream": iri, "time": event.time, "s": s, "p": p, "o": o}
                    )
                    + "\n"
                )


def safe_name(nodeid: str) -> str:
    """A file-system safe folder name for an item."""
    return re.sub(r"[^A-Za-z0-9_.=,-]+", "_", nodeid).strip("_")[:150]
