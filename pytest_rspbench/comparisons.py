"""Items that compare several runs of one spec: mismatch and load sweep.

A spec with a ``mismatch:`` key (or ``mismatch(a, b)`` thresholds) gets one
extra item per matrix combination, ``NAME[PARAMS,mismatch]``, collected after
the engines' items of that combination; a spec with ``sweep:`` gets one
``NAME[sweep]`` after all its items. They read the outputs the engines'
items recorded (in the same pytest process), so they skip, naming what is
missing, when those items did not run (deselected, skipped, or run by
another xdist worker). Their tables also go to the terminal summary.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.report.record import RUN_KEY
from pytest_rspbench.spec import thresholds as th
from pytest_rspbench.spec.model import param_text
from pytest_rspbench.verdict import mismatch as mm
from pytest_rspbench.verdict import sweep as sw

LINES_KEY = pytest.StashKey[list[str]]()


class GroupFailed(Exception):
    """A mismatch or sweep check did not hold."""


class GroupItem(pytest.Item):
    """An item over the runs of several sibling case items."""

    def __init__(self, *, siblings: Sequence[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.siblings = list(siblings)
        self.published: list[str] | None = None

    def runs(self) -> list[tuple[Any, Any | None]]:
        """(case, run or None) for every sibling, in collection order."""
        return [(item.case, item.stash.get(RUN_KEY, None)) for item in self.siblings]

    def publish(self, title: str, text: str) -> None:
        shown = [f"{title}:", *[f"  {line}" for line in text.splitlines()]]
        self.config.stash.setdefault(LINES_KEY, []).extend(shown)
        self.published = shown  # the xdist controller gets them with the report
        self.add_report_section("call", "rspbench", text)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GroupFailed):
            return f"{self.name}: " + str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.siblings[0].case.line - 1, f"spec {self.name}"


class MismatchItem(GroupItem):
    """LSBench's mismatch matrix for one matrix combination, and its checks."""

    def runtest(self) -> None:
        case = self.siblings[0].case
        runs: dict[str, Any] = {c.engine_id: r for c, r in self.runs()}
        missing = sorted(e for e, r in runs.items() if r is None)
        limits = [t for t in case.thresholds if t.scope == "pair"]
        epsilon = case.mismatch.epsilon if case.mismatch else None
        needed = {e for t in limits for e in t.engines} | (
            set(runs) if epsilon is not None else set()
        )
        ran = [e for e, r in runs.items() if r is not None]
        absent = sorted(needed - set(ran))
        if len(ran) < 2 or absent:
            pytest.skip(
                "the mismatch needs the outputs of "
                + ", ".join(absent or missing)
                + ", whose items did not run in this session"
            )
        equality = case.comparison
        partition = case.mismatch.partition if case.mismatch else "auto"
        outputs = {e: [i.result.bindings for i in runs[e].actual.received] for e in ran}
        partitions = {e: mm.partition_of(runs[e].profile.semantics, partition) for e in ran}
        matrix = mm.matrix(outputs, partitions, equality.literal_equality, equality.tolerance)
        text = mm.table(matrix)
        failures = []
        for limit in limits:
            outcome = th.evaluate(limit, [], run={"mismatch": matrix.values.get(limit.engines)})
            self.user_properties.append((f"rspbench.{limit.text}", outcome.measured))
            if not outcome.ok:
                failures.append(f"threshold {limit.text!r} failed: {outcome.detail}")
        if epsilon is not None:
            worst = matrix.worst()
            verdict = "comparable" if matrix.comparable(epsilon) else "NOT comparable"
            text += f"\n{verdict} with epsilon {epsilon:.2%}" + (
                f" (largest: mm({worst[0][0]}, {worst[0][1]}) = {worst[1]:.2%})" if worst else ""
            )
            if not matrix.comparable(epsilon):
                failures.append(
                    f"the engines are not comparable with epsilon {epsilon:.2%} "
                    "(LSBench comp(E, Q, R, epsilon): every pair within epsilon)"
                )
        self.publish(self.nodeid, text)
        _write(
            self,
            "mismatch.json",
            {
                "engines": list(matrix.engines),
                "partitions": dict(matrix.partitions),
                "mismatch": [
                    {"first": a, "second": b, "value": v}
                    for (a, b), v in sorted(matrix.values.items())
                ],
            },
        )
        if failures:
            raise GroupFailed("\n".join([*failures, "", text]))


class SweepItem(GroupItem):
    """Correctness against load and the highest comparable load per engine."""

    def runtest(self) -> None:
        sweep = self.siblings[0].case.sweep
        groups: dict[tuple[str, tuple[tuple[str, Any], ...]], list[sw.Point]] = {}
        for case, run in self.runs():
            value = float(dict(case.params)[sweep.over])
            key = (case.engine_id, case.params_without(sweep.over))
            groups.setdefault(key, []).append(sw.point(value, run))
        lines = [sw.line(engine, params, points) for (engine, params), points in groups.items()]
        text = sw.table(sweep.over, lines)
        self.publish(self.nodeid, text)
        for ln in lines:
            self.user_properties.append((f"rspbench.comparable.{ln.engine}", ln.comparable))
        _write(
            self,
            "sweep.json",
            {
                "over": sweep.over,
                "lines": [
                    {
                        "engine": ln.engine,
                        "params": dict(ln.params),
                        "highest_comparable": ln.comparable,
                        "highest_passing": ln.highest_passing,
                        "points": [p.__dict__ for p in ln.points],
                    }
                    for ln in lines
                ],
            },
        )
        if all(p.passed is None for ln in lines for p in ln.points):
            pytest.skip("none of the sweep's items ran in this session")
        if sweep.at_least is not None:
            short = [ln for ln in lines if ln.comparable is None or ln.comparable < sweep.at_least]
            if short:
                names = ", ".join(f"{ln.engine} ({sw._num(ln.comparable)})" for ln in short)
                raise GroupFailed(
                    f"highest comparable {sweep.over} below the required "
                    f"{sweep.at_least:g}: {names}\n\n{text}"
                )


def group_items(parent: pytest.Collector, spec: Any, items: Sequence[Any]) -> Iterator[pytest.Item]:
    """The mismatch and sweep items of a spec, after its case items."""
    if not items:
        return
    first = items[0].case
    marks = first.marks
    if first.mismatch is not None:
        groups: dict[tuple[tuple[str, Any], ...], list[Any]] = {}
        for item in items:
            groups.setdefault(item.case.params, []).append(item)
        for params, members in groups.items():
            ids = [f"{k}={param_text(v)}" for k, v in params]
            name = f"{spec.name}[{','.join([*ids, 'mismatch'])}]"
            yield _marked(
                MismatchItem.from_parent(
                    parent, name=name, nodeid=f"{parent.nodeid}::{name}", siblings=members
                ),
                marks,
            )
    if first.sweep is not None:
        yield _marked(
            SweepItem.from_parent(
                parent,
                name=f"{spec.name}[sweep]",
                nodeid=f"{parent.nodeid}::{spec.name}[sweep]",
                siblings=items,
            ),
            marks,
        )


def summary_lines(config: pytest.Config) -> list[str]:
    """What the mismatch and sweep items published, for the terminal summary."""
    found: list[str] = config.stash.get(LINES_KEY, [])
    return list(found)


def _marked(item: pytest.Item, marks: Sequence[str]) -> pytest.Item:
    item.add_marker("rspbench")
    for mark in marks:
        item.add_marker(mark)
    return item


def _write(item: GroupItem, name: str, data: dict[str, Any]) -> None:
    import json

    from pytest_rspbench.session import SESSION_KEY

    folder = item.config.stash[SESSION_KEY].artifacts_for(item)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
