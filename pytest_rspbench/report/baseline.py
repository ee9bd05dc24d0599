"""Baselines: store a run, compare a later run with it, fail on regressions.

A baseline is a results document (:mod:`pytest_rspbench.report.results`)
kept under ``<rootdir>/.rspbench/baselines/NAME.json`` (ini
``rspbench_baseline_dir``). ``--rspbench-save NAME`` writes it at the end of
a session; ``--rspbench-compare NAME`` compares the session with it, item by
item (matched by spec name and case id), and lists what got better or worse.

``--rspbench-compare-fail EXPR`` (repeatable) turns a change into a failure::

    recall:-0.01        fail when mean recall drops by more than 0.01
    delay.p95:+20%      fail when the p95 delay rises by more than 20 %
    peak_rss:+50MiB     fail when peak memory rises by more than 50 MiB
    f1.min:0.05         no sign: the metric's bad direction (F1 falling)

Metric names are those of the thresholds (``digest.parse_name``). CI
machines are noisy, so runs of the same case (a ``repeat`` matrix parameter,
or the same item run several times) are folded into their median before
comparing, on both sides; timing and resource changes under :data:`NOISE`
are not listed (they can still fail a rule).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.report import digest as dg
from pytest_rspbench.spec.thresholds import BYTES, TIMES

if TYPE_CHECKING:
    import pytest

DEFAULT_DIR = ".rspbench/baselines"
NOISE = 0.05
SHOWN = ("precision", "recall", "f1", "iou", "delay.p95", "peak_rss", "mean_cpu")
REPEAT_PARAM = "repeat"
_RULE = re.compile(
    r"^\s*(?P<name>[a-z_][a-z0-9_]*(?:\.[a-z0-9.]+)?)\s*:\s*(?P<sign>[+-])?\s*"
    r"(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>%|ms|s|" + "|".join(BYTES) + r")?\s*$"
)
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class BaselineError(RspbenchError, ValueError):
    """A baseline name or a ``--rspbench-compare-fail`` expression is unusable."""


@dataclass(frozen=True)
class Rule:
    """A parsed ``--rspbench-compare-fail`` expression.

    ``direction`` is +1 when a rise is the regression, -1 when a drop is;
    ``amount`` is in the metric's own unit, or a fraction when ``relative``.
    """

    text: str
    metric: str
    direction: int
    amount: float
    relative: bool

    def violated(self, before: float, after: float) -> bool:
        worse_by = (after - before) * self.direction
        limit = self.amount * abs(before) if self.relative else self.amount
        return worse_by > limit + 1e-12


@dataclass(frozen=True)
class Change:
    """One metric of one item, before and after (medians over its runs)."""

    item: str
    metric: str
    before: float
    after: float
    runs: tuple[int, int]
    broken: tuple[Rule, ...] = ()

    @property
    def better(self) -> bool:
        return (self.after > self.before) == dg.higher_is_better(dg.parse_name(self.metric)[0])

    def describe(self) -> str:
        base = dg.parse_name(self.metric)[0]
        delta = self.after - self.before
        relative = f", {delta / abs(self.before):+.0%}" if self.before else ""
        text = (
            f"{self.item}: {self.metric} {dg.show(base, self.before)} -> "
            f"{dg.show(base, self.after)} ({_signed(base, delta)}{relative})"
        )
        if max(self.runs) > 1:
            text += f" [medians of {self.runs[0]} / {self.runs[1]} runs]"
        if self.broken:
            text += "  FAILS " + ", ".join(r.text for r in self.broken)
        return text


@dataclass
class Comparison:
    """The outcome of comparing a session with a baseline."""

    name: str
    path: Path
    compared: int = 0
    changes: list[Change] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.broken]


def parse_rule(text: str) -> Rule:
    """Read one ``--rspbench-compare-fail`` expression.

    >>> rule = parse_rule("delay.p95:+20%")
    >>> rule.metric, rule.direction, rule.amount, rule.relative
    ('delay.p95', 1, 0.2, True)
    >>> parse_rule("recall:0.01").direction
    -1
    """
    found = _RULE.match(text)
    if not found:
        raise BaselineError(
            f"cannot read --rspbench-compare-fail {text!r}.\n"
            "HINT: write METRIC:[+|-]AMOUNT[%|unit], "
            "e.g. recall:-0.01 or delay.p95:+20%."
        )
    name, unit = found["name"], found["unit"]
    try:
        metric, _ = dg.parse_name(name)
    except ValueError as exc:
        raise BaselineError(f"--rspbench-compare-fail {text!r}: {exc}") from exc
    amount = _amount(float(found["num"]), unit, metric, text)
    if found["sign"]:
        direction = 1 if found["sign"] == "+" else -1
    else:
        direction = -1 if dg.higher_is_better(metric) else 1
    return Rule(text, name, direction, amount, unit == "%")


def check_names(
    save: str | None, compare: str | None, rootdir: Path, directory: str | None
) -> None:
    """A baseline to compare with must exist; a name to save under must be usable."""
    if compare:
        _check_exists(compare, rootdir, directory)
    if save:
        baseline_path(save, rootdir, directory)


class Baselines(Protocol):
    """What :func:`settle` reads of a session's state (its settings and
    records), and writes into it: the comparison and where the run was saved."""

    @property
    def compare(self) -> str | None: ...
    @property
    def save(self) -> str | None: ...
    @property
    def rules(self) -> Sequence[Rule]: ...
    @property
    def baseline_dir(self) -> str | None: ...
    @property
    def results(self) -> list[dict[str, Any]]: ...

    comparison: Comparison | None
    saved: Path | None


def settle(state: Baselines, doc: Mapping[str, Any], session: pytest.Session) -> None:
    """At session end: compare with the baseline (maybe failing), then save."""
    import pytest

    from pytest_rspbench.report import results

    rootdir = session.config.rootpath
    if state.compare:
        path = baseline_path(state.compare, rootdir, state.baseline_dir)
        state.comparison = compare(results.load(path), doc, state.rules, state.compare, path)
        if state.comparison.regressions and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if state.save:
        path = baseline_path(state.save, rootdir, state.baseline_dir)
        results.dump(path, results.document(state.results, rootdir, path.parent))
        state.saved = path


def _check_exists(name: str, rootdir: Path, directory: str | None) -> None:
    path = baseline_path(name, rootdir, directory)
    if path.is_file():
        return
    stored = available(rootdir, directory)
    raise BaselineError(
        f"no baseline {name!r} at {path}.\n"
        f"HINT: store one first with --rspbench-save {name}"
        + (f"; stored baselines: {', '.join(stored)}." if stored else " (none stored yet).")
    )


def baseline_path(name: str, rootdir: Path, directory: str | None = None) -> Path:
    """Where baseline ``name`` lives; a name ending in ``.json`` is a path."""
    if name.endswith(".json"):
        return Path(name).resolve()
    if not _NAME.match(name):
        raise BaselineError(
            f"baseline name {name!r} has characters other than letters, digits, "
            "'.', '_', '-'.\nHINT: pick a plain name such as main or v1.2, "
            "or give a path ending in .json."
        )
    return rootdir / (directory or DEFAULT_DIR) / f"{name}.json"


def available(rootdir: Path, directory: str | None = None) -> list[str]:
    """Names of the baselines stored under ``rootdir``."""
    folder = rootdir / (directory or DEFAULT_DIR)
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def item_key(record: Mapping[str, Any]) -> str:
    """What matches an item across runs: spec and case id, without ``repeat=``."""
    ident = str(record.get("id") or record.get("nodeid") or "?")
    head, bracket, rest = ident.partition("[")
    if not bracket:
        return ident
    parts = [p for p in rest.rstrip("]").split(",") if not p.startswith(f"{REPEAT_PARAM}=")]
    return f"{head}[{','.join(parts)}]"


def compare(
    baseline: Mapping[str, Any],
    current: Mapping[str, Any],
    rules: Sequence[Rule] = (),
    name: str = "",
    path: Path | None = None,
) -> Comparison:
    """Compare two results documents item by item."""
    before, after = _groups(baseline), _groups(current)
    out = Comparison(name, path or Path(name))
    out.missing = [k for k in before if k not in after]
    out.new = [k for k in after if k not in before]
    metrics = list(dict.fromkeys([*SHOWN, *(r.metric for r in rules)]))
    for key in (k for k in after if k in before):
        out.compared += 1
        for metric in metrics:
            change = _change(key, metric, before[key], after[key], rules)
            if change is not None:
                out.changes.append(change)
    return out


def lines(comparison: Comparison) -> list[str]:
    """The terminal section: what got worse, what got better, what is missing."""
    worse = [c for c in comparison.changes if not c.better]
    better = [c for c in comparison.changes if c.better]
    out = [
        f"compared with baseline {comparison.name} ({comparison.path}): "
        f"{comparison.compared} item(s), {len(worse)} change(s) for the worse, "
        f"{len(better)} for the better"
    ]
    for label, changes in (("worse", worse), ("better", better)):
        if changes:
            out.append(f"{label}:")
            out += [f"  {c.describe()}" for c in changes]
    if comparison.missing:
        out.append("in the baseline but not run now: " + ", ".join(comparison.missing))
    if comparison.new:
        out.append("new since the baseline: " + ", ".join(comparison.new))
    if comparison.regressions:
        out.append(
            f"FAILED: {len(comparison.regressions)} regression(s) beyond --rspbench-compare-fail"
        )
    return out


def _groups(doc: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in doc.get("items") or ():
        if record.get("windows") is not None or record.get("passed") is not None:
            groups.setdefault(item_key(record), []).append(record)
    return groups


def _change(
    key: str,
    metric: str,
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
    rules: Sequence[Rule],
) -> Change | None:
    old, new = _median(before, metric), _median(after, metric)
    if old is None or new is None:
        return None
    broken = tuple(r for r in rules if r.metric == metric and r.violated(old[0], new[0]))
    if not broken and not _significant(metric, old[0], new[0]):
        return None
    return Change(key, metric, old[0], new[0], (old[1], new[1]), broken)


def _median(records: Sequence[Mapping[str, Any]], metric: str) -> tuple[float, int] | None:
    values = [
        v for v in (dg.value(r, metric) for r in records) if v is not None and not math.isnan(v)
    ]
    return (statistics.median(values), len(values)) if values else None


def _significant(metric: str, before: float, after: float) -> bool:
    base = dg.parse_name(metric)[0]
    if base in dg.HIGHER_IS_BETTER:  # quality: every change counts
        return abs(after - before) > 1e-9
    if before == 0:
        return after != 0
    return abs(after - before) / abs(before) >= NOISE


def _amount(number: float, unit: str | None, metric: str, text: str) -> float:
    if unit == "%":
        return number / 100
    if unit is None:
        return number
    if unit in ("ms", "s") and metric in TIMES:
        return number * (1000 if unit == "s" else 1)
    if unit in ("ms", "s") and metric in ("seconds", "oracle_seconds"):
        return number / (1000 if unit == "ms" else 1)
    if unit in BYTES and metric == "peak_rss":
        return number * BYTES[unit]
    raise BaselineError(
        f"--rspbench-compare-fail {text!r}: unit {unit} does not fit {metric}.\n"
        "HINT: use % for a relative change, ms/s for times, B..GiB for peak_rss, "
        "or no unit for ratios."
    )


def _signed(metric: str, delta: float) -> str:
    text = dg.show(metric, abs(delta))
    return ("+" if delta >= 0 else "-") + text
