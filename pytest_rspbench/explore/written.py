"""A group's first failure made a counterexample: reduced, shrunk, checked, written.

1. **Reduce the query**: drop the plan's constructs one at a time
   (:meth:`.cases.Generated.without`), keeping a smaller query whenever the
   engine still fails with the same departure; what is left are the
   constructs the failure needs (the group's).
2. **Shrink the input** with :func:`pytest_rspbench.shrink.shrink`, as
   ``--rspbench-shrink`` does: fewer events, fewer triples, a shorter time
   span, the departure kept. It writes ``counterexample.rspbench.yaml`` and
   its stream into the group's folder; the static data is copied beside it.
3. **Check the spec as pytest will run it**: loaded from the file, against
   the engine (it must fail as the case did) and against ``reference`` (it
   must pass). A counterexample that fails on the reference engine too shows
   a bug in the oracle or in the reference engine: its folder goes under
   ``suspects/``.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.explore.cases import Generated, materialize
from pytest_rspbench.explore.groups import Group
from pytest_rspbench.explore.trials import Guard, Tried, attempt, attempt_spec
from pytest_rspbench.rsp.constructs import NAMES, shown
from pytest_rspbench.spec.model import Comparison

REFERENCE = "reference"
SUSPECTS = "suspects"


@dataclass
class Work:
    """What writing a counterexample needs: where, against what, until when."""

    engine: str
    folder: Path
    scratch: Path
    spark: Callable[[], Any]
    deadline: float
    command: str
    comparison: Comparison | None = None
    guard: Guard | None = None

    @property
    def left(self) -> float:
        return self.deadline - time.monotonic()


def reduce(work: Work, generated: Generated, tried: Tried) -> tuple[Generated, Tried, int]:
    """The case with every construct dropped that the failure does not need.

    Returns the reduced case, its run and how many runs it took.
    """
    runs = 0
    for construct in [n for n in NAMES if n in generated.plan.constructs]:
        if construct not in generated.plan.constructs or work.left <= 0:
            continue  # dropped with another (LIMIT goes with ORDER BY)
        smaller = generated.without(construct)
        folder = work.scratch / f"reduce-{generated.number}-{runs}"
        runs += 1
        case = materialize(smaller, folder, work.engine, work.comparison)
        candidate = attempt(case, work.spark, work.guard)
        if candidate.failed and candidate.departure == tried.departure:
            generated, tried = smaller, candidate
    return generated, tried, runs


def write(work: Work, group: Group, generated: Generated, tried: Tried) -> None:
    """Shrink ``tried`` (the reduced case's failing run) into the group's folder and check it."""
    from pytest_rspbench.shrink import shrink

    assert tried.run is not None
    folder = work.folder / group.slug
    if folder.exists():
        shutil.rmtree(folder)
    case = replace(tried.run.case, spec_name=f"explore-{group.slug}")
    run = replace(tried.run, case=case)
    found = shrink(run, group.departure, work.spark, folder, max(5.0, work.left * 0.8))
    if found.spec is None:
        group.note = f"not shrunk: {found.note}"
        return
    _static_beside(found.spec, case.static)
    group.size = (found.events, len(found.triples))
    group.note = f"shrunk to {found.events} of {found.original[0]} events ({found.status})"
    _check(work, group, found.spec)
    _header(found.spec, group, generated, work.command)
    group.spec = _placed(work, group, folder) / found.spec.name


def write_error(work: Work, group: Group, generated: Generated) -> None:
    """The case the oracle failed on, as it is (nothing to shrink by): under suspects/."""
    from pytest_rspbench.report.counterexample import TimedTriple
    from pytest_rspbench.shrink.written import write_spec

    scratch = work.scratch / f"error-{generated.number}"
    case = materialize(generated, scratch, work.engine, work.comparison)
    case = replace(case, spec_name=f"explore-{group.slug}")
    triples = [
        TimedTriple(s.iri, e.time, t)
        for s in generated.streams
        for e in s.events
        for t in e.triples
    ]
    folder = work.folder / SUSPECTS / group.slug
    if folder.exists():
        shutil.rmtree(folder)
    headline = f"The oracle failed: {group.verdict}"
    spec = write_spec(case, triples, [s.end for s in generated.streams], folder, headline)
    _static_beside(spec, case.static)
    group.size = (len({(t.stream, t.time) for t in triples}), len(triples))
    group.suspect, group.spec = True, spec
    _header(spec, group, generated, work.command)


def _check(work: Work, group: Group, spec: Path) -> None:
    """Run the written spec on the engine and on ``reference``, as pytest would."""
    on_engine = attempt_spec(spec, work.engine, work.spark, work.guard)
    group.reproduced = on_engine.shows(group.departure)
    if not group.reproduced:
        group.note += f"; as written it {_said(on_engine)} on {work.engine}"
    if work.engine == REFERENCE:
        reference = on_engine
    else:
        reference = attempt_spec(spec, REFERENCE, work.spark, work.guard)
    group.suspect = reference.outcome != "passed"
    if group.suspect:
        group.note += f"; it {_said(reference)} on {REFERENCE} too: an oracle or reference bug"


def _said(tried: Tried) -> str:
    return "passes" if tried.outcome == "passed" else f"{tried.outcome} ({tried.verdict})"


def _placed(work: Work, group: Group, folder: Path) -> Path:
    """The group's folder, moved under suspects/ when it is one."""
    if not group.suspect:
        return folder
    target = work.folder / SUSPECTS / group.slug
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(shutil.move(str(folder), str(target)))


def _static_beside(spec: Path, static: tuple[Path, ...]) -> None:
    """Copy the static data next to the spec and name it relatively (the
    shrinker writes the absolute path of the scratch copy)."""
    text = spec.read_text(encoding="utf-8")
    for path in static:
        shutil.copyfile(path, spec.parent / path.name)
        text = text.replace(str(path), path.name)
    spec.write_text(text, encoding="utf-8")


def _header(spec: Path, group: Group, generated: Generated, command: str) -> None:
    """Say where the spec came from above what the shrinker wrote."""
    lines = [
        f"# Found by `{command}`, case {generated.number} (size {generated.plan.size}).",
        f"# Departure: {group.departure}; the query needs: {shown(group.constructs)}.",
    ]
    if group.suspect:
        lines.append(
            "# SUSPECT: it fails on the reference engine too, so the oracle or the "
            "reference engine is wrong here."
        )
    spec.write_text("\n".join(lines) + "\n" + spec.read_text(encoding="utf-8"), encoding="utf-8")
