"""The pytest nodes of a spec: :class:`SpecFile` and one :class:`CaseItem` per case.

A spec file is collected by :class:`SpecFile` (pytest's documented YAML
example; tavern does the same), which loads and validates it and yields one
:class:`CaseItem` per combination of matrix values and engine, plus the
mismatch and sweep items of :mod:`pytest_rspbench.comparisons`. An item's
``runtest`` only orchestrates: :func:`pytest_rspbench.runner.run_case` does
the work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import ReprFileLocation, TerminalRepr

from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.report.record import RUN_KEY, CaseRun
from pytest_rspbench.session import SESSION_KEY
from pytest_rspbench.spec.model import Case, KnownFailure, param_text


class VerdictRepr(TerminalRepr):
    """A failed case's text, whose first line (the verdict) is its one-line message.

    pytest's ``-r`` summary and JUnit's ``message`` read ``reprcrash.message``;
    a plain string would put the whole text there on CI (pytest does not trim
    the summary line when ``CI`` is set), stderr tails and tables included.
    """

    def __init__(self, text: str, path: str, line: int) -> None:
        self.text = text
        self.reprcrash = ReprFileLocation(path, line, text.split("\n", 1)[0])

    def toterminal(self, tw: Any) -> None:
        for line in self.text.splitlines():
            tw.line(line)


class SpecFile(pytest.File):
    """One spec file; each of its cases becomes a :class:`CaseItem`."""

    @classmethod
    def from_parent(cls, parent: Any, *, path: Path, **kw: Any) -> Any:  # type: ignore[override]
        """The spec's node; its id is :func:`outside_id` when it lies outside
        the rootdir (pytest would give it an id without its folder)."""
        if kw.get("nodeid") is None:
            kw["nodeid"] = outside_id(parent.config.rootpath, path)
        return super().from_parent(parent, path=path, **kw)

    def collect(self) -> Any:
        from pytest_rspbench.engine.profiles import identify
        from pytest_rspbench.spec.loader import load_spec

        session = self.config.stash[SESSION_KEY]
        spec = load_spec(self.path, session.engines, check_engine=identify)
        if spec.cases:
            self._check_marks(spec.cases[0].marks)
            if any(not known.departures for known in spec.cases[0].known_failures):
                from pytest_rspbench.spec.judging import vague_known_failures

                for text in vague_known_failures(self.path):
                    self.warn(pytest.PytestWarning(text))
        items = []
        for case in spec.cases:
            name = f"{spec.name}[{case.case_id}]"
            item = CaseItem.from_parent(self, name=name, nodeid=child_id(self, name), case=case)
            item.add_marker("rspbench")
            item.extra_keyword_matches.update(keywords(case))
            for mark in case.marks:
                item.add_marker(mark)
            _select(item, case)
            items.append(item)
            yield item
        if spec.cases and (spec.cases[0].mismatch or spec.cases[0].sweep):
            from pytest_rspbench.comparisons import group_items

            yield from group_items(self, spec, items)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RspbenchError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)  # a Collector's takes no style

    def _check_marks(self, marks: tuple[str, ...]) -> None:
        """Under --strict-markers, a spec's unregistered mark is a spec error."""
        config = self.config
        if not (config.option.strict_markers or config.getini("strict_markers")):
            return
        known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
        for index, mark in enumerate(marks):
            if mark not in known:
                from pytest_rspbench.spec.diagnostics import spec_error
                from pytest_rspbench.spec.document import parse_document

                document = parse_document(self.path.read_text(encoding="utf-8"), str(self.path))
                raise spec_error(
                    str(self.path),
                    document,
                    ("marks", index),
                    f"mark {mark!r} is not registered and --strict-markers is on.",
                    f"register it in your pytest configuration (markers = {mark}: ...) "
                    "or remove it from marks:",
                )


def outside_id(rootpath: Path, path: Path) -> str | None:
    """The node id of a spec outside ``rootpath``: its path relative to the
    rootdir (``../specs/q.rspbench.yaml``), so that the id pytest prints can
    be pasted back on a command line run from the rootdir; None inside it
    (pytest's own id). Where no relative path exists (another drive), the
    absolute path.

    >>> outside_id(Path("/w/main"), Path("/w/specs/q.rspbench.yaml"))
    '../specs/q.rspbench.yaml'
    >>> outside_id(Path("/w/main"), Path("/w/main/specs/q.rspbench.yaml")) is None
    True
    """
    import os

    try:
        path.relative_to(rootpath)
        return None
    except ValueError:
        pass
    try:
        return Path(os.path.relpath(path, rootpath)).as_posix()
    except ValueError:
        return path.as_posix()


def child_id(parent: pytest.Collector, name: str) -> str:
    """The node id of ``parent``'s child ``name`` (``spec[params]``).

    Given as text, pytest parses it itself: ``[params]`` become the id's
    parameters, as for a parametrized test function, so the ids that
    ``--lf``, ``--ff`` and ``--sw`` keep match the items again.
    """
    return f"{parent.nodeid}::{name}"


def keywords(case: Case) -> set[str]:
    """Extra ``-k`` keywords: ``name:value`` per matrix value, and the engine.

    ``-k`` expressions cannot hold ``=`` or ``,``, so ``-k "step:4000"`` (or
    ``-k "step and 4000"``, matching the id) selects by a parameter value.
    """
    pairs = [*case.params, ("engine", case.engine_id)]
    return {f"{name}:{param_text(value)}" for name, value in pairs}


class CaseFailed(Exception):
    """A case ran but did not meet its verdict or thresholds."""


class NewDeparture(Exception):
    """A known failure that also shows a departure it does not declare: not
    a :class:`CaseFailed`, so the strict xfail does not take it."""


class CaseItem(pytest.Item):
    """One case: one combination of matrix values and one engine."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.known: KnownFailure | None = None  # the known_failures entry, if any

    def runtest(self) -> None:
        from pytest_rspbench.report.counterexample import shown_counterexample
        from pytest_rspbench.report.progress import live_progress
        from pytest_rspbench.report.text import failure_text
        from pytest_rspbench.runner import run_case

        session = self.config.stash[SESSION_KEY]
        progress = live_progress(self.config)
        try:
            artifacts = session.artifacts_for(self)
            cache = session.stream_cache()
            spark = _announced(session, progress)
            ahead = session.ahead.take(self.nodeid, self.case)
            # A Spark job failing comes out of the runner as an OracleError
            # saying what happened (runner._oracle_failure: the one place).
            run = run_case(
                self.case, spark, artifacts, progress, cache, ahead, record=session.record_dir
            )
            run = self._shrunk(run, spark, progress)
        finally:
            if progress is not None:
                progress.close()
        self.stash[RUN_KEY] = run
        session.record(self.nodeid, run)
        if expects_nothing(run):
            _warn_empty(self)
        for key, value in _properties(run):
            self.user_properties.append((key, value))
        if not run.assessment.passed:
            from pytest_rspbench.rsp.windows import Bounds
            from pytest_rspbench.verdict.variants import labels

            semantics = run.profile.semantics
            # Count and session windows are written with their own brackets.
            bounds = Bounds(labels(self.case.query.declared, semantics) or semantics.bounds)
            text = failure_text(run.assessment, bounds, run.actual.error, run.load)
            if run.counterexample is not None:
                text += "\n\n" + shown_counterexample(run.counterexample)
            known = self.known
            new = known.unknown(run.assessment.departures) if known else []
            if new and known is not None:
                raise NewDeparture(_new_departures(run, new, known) + "\n" + text)
            raise CaseFailed(text)

    def _shrunk(self, run: CaseRun, spark: Any, progress: Any) -> CaseRun:
        """``run`` with a minimal counterexample, when asked for and it fails.

        Not for a known failure (its departures are expected) unless it shows
        a new one, which is then the one kept while shrinking.
        """
        session = self.config.stash[SESSION_KEY]
        departures = run.assessment.departures
        if session.shrink is None or run.assessment.passed or not departures:
            return run
        new = self.known.unknown(departures) if self.known else []
        if self.known is not None and not new:
            return run
        from dataclasses import replace

        from pytest_rspbench.report.counterexample import Counterexample
        from pytest_rspbench.report.progress import stage
        from pytest_rspbench.runner import keep
        from pytest_rspbench.shrink import shrink

        target = new[0][0] if new else departures[0].name
        folder = session.counterexample_folder(self)
        with stage(progress, f"shrinking the input ({target}, at most {session.shrink:g} s)"):
            try:
                found = shrink(run, target, spark, folder, session.shrink)
            except Exception as exc:  # the verdict stands without a counterexample
                note = f"shrinking stopped: {type(exc).__name__}: {exc}"
                found = Counterexample(target, "not-shrunk", note)
        run = replace(run, counterexample=found)
        if run.artifacts is not None:
            keep(run, run.artifacts)  # metrics.json with the counterexample
        return run

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # The first line is the verdict: pytest's -r line and JUnit's message.
        if isinstance(excinfo.value, (CaseFailed, NewDeparture)):
            return VerdictRepr(str(excinfo.value), str(self.path), self.case.line)
        if isinstance(excinfo.value, RspbenchError):
            return f"{self.name}: " + str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"spec {self.name}"


def expects_nothing(run: CaseRun) -> bool:
    """Is the expected output empty in every window of every t0 class? Then
    the case passes for an engine that sends nothing: it tests nothing.

    Not when the profile streams out empty relations and some are due (their
    times are checked), nor when the t0 classes were narrowed (those not
    computed may hold solutions).
    """
    expected = run.expected
    if expected.narrowing or any(r.bindings for c in expected.classes for r in c.relations):
        return False
    due = any(c.relations for c in expected.classes)
    return not (due and run.profile.semantics.empty_relations)


def _warn_empty(item: CaseItem) -> None:
    import warnings

    from pytest_rspbench.spec.diagnostics import SpecWarning

    params = " ".join(f"--param {k}={param_text(v)}" for k, v in item.case.params)
    message = (
        f"{item.path}:{item.case.line}: {item.name}: the expected output is empty in every "
        "window and every t0 class, so this case passes for an engine that sends nothing. "
        'A FILTER that is never true (FILTER(?v > "80") compares a number with a string), '
        "a pattern that matches no triple of the stream or a window that holds no event "
        f"do this.\nHINT: `rspbench oracle {item.path} {params}` prints the expected output; "
        "check the query against the stream."
    )
    warnings.warn_explicit(SpecWarning(message), SpecWarning, str(item.path), item.case.line)


def will_run(item: pytest.Item) -> bool:
    """Is ``item`` a case that will run its engine and oracle (not marked
    to be skipped)? Only those are worth computing ahead."""
    if not isinstance(item, CaseItem):
        return False
    if item.get_closest_marker("skip") is not None:
        return False
    return not any(mark.args and mark.args[0] is True for mark in item.iter_markers("skipif"))


def _announced(session: Any, progress: Any) -> Any:
    """``session.spark``, showing a progress stage while Spark starts."""
    from pytest_rspbench.report.progress import stage

    def spark() -> Any:
        if session.spark_started:
            return session.spark()
        with stage(progress, "starting Spark for the oracle"):
            return session.spark()

    return spark


def _select(item: CaseItem, case: Case) -> None:
    """Skip a case the engine's profile cannot run; mark its known failures.

    A spec that pins semantics (``semantics:``) means the same on every
    engine, so an engine that has other values and cannot be configured
    (``configurable:`` in engine.yaml) is skipped, with the reason; so is
    one whose ``windows:`` lacks a window kind the query uses, or whose
    ``unsupported:`` lists a construct the query uses. A known
    failure (``known_failures:``, or an entry of ``known-failures.yaml``
    beside the engine's profile: :mod:`pytest_rspbench.spec.known`) becomes
    a strict xfail: green while the departure holds, red the day the engine
    is fixed; an ``intermittent`` one (a race inside the engine) a non-strict
    xfail, whose runs without the departure are XPASS.
    """
    from pytest_rspbench.engine.profiles import resolve
    from pytest_rspbench.rsp.constructs import used

    profile = resolve(case.engine, case.base_dir)
    # The query's constructs are read (rdflib's algebra) only for a profile
    # that lacks some.
    constructs = used(case.query) if profile.unsupported else ()
    departures = profile.departures(case.semantics, case.query.r2s, case.query.kinds, constructs)
    if departures:
        reason = f"{profile.name}'s profile cannot run this case: " + "; ".join(departures)
        item.add_marker(pytest.mark.skip(reason=reason))
        return
    params = dict(case.params)
    for known in (*case.known_failures, *_known_beside(profile, case)):
        if known.matches(profile.name, params):
            named = f" ({', '.join(known.departures)})" if known.departures else ""
            some_runs = ", on some runs" if known.intermittent else ""
            item.known = known
            item.add_marker(
                pytest.mark.xfail(
                    reason=f"known departure of {profile.name}{named}{some_runs}: {known.reason}",
                    # An intermittent one may not show: XPASS then, not a failure.
                    strict=not known.intermittent,
                    raises=CaseFailed,
                )
            )
            return


def _known_beside(profile: Any, case: Case) -> list[KnownFailure]:
    """The entries of the engine's ``known-failures.yaml`` naming this case."""
    from pytest_rspbench.spec.known import known_cases

    shown = [(k, param_text(v)) for k, v in case.params]
    return [
        k.failure(profile.name)
        for k in known_cases(profile.path)
        if k.matches(case.spec_name, shown)
    ]


def _new_departures(run: CaseRun, new: list[Any], known: KnownFailure) -> str:
    """The verdict line of a known failure that shows a new departure.

    ``known_failures`` names what an engine is known to get wrong; anything
    else is a regression and fails the item, named first.
    """
    from pytest_rspbench.verdict.departures import Departure, summary

    bounds = run.profile.semantics.bounds
    shown = summary([Departure(name, windows, len(windows) or 1) for name, windows in new], bounds)
    return (
        f"{run.assessment.mode}: FAIL — new departure: {shown} "
        f"(known_failures for {known.engine} names {', '.join(known.departures)})"
    )


def _properties(run: CaseRun) -> list[tuple[str, Any]]:
    from pytest_rspbench.report.junit import properties

    a = run.assessment
    return [
        *properties(run),
        ("rspbench.alignment", a.alignment.rule if a.alignment else None),
    ]
