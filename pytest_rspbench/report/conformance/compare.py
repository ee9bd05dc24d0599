"""Two results files compared by outcome: ``rspbench report --compare A B``.

Which items changed outcome between run A (before) and run B (after), and
why: the departure classes B gained or lost, and B's verdict line. First it
says what the two runs assumed differently (the plugin's version, the
suite's version and digest, each engine's declared profile), since a changed
assumption explains many changes at once. A change is *worse* when the
outcome moves down :data:`RANK` (a pass that fails, a failure that cannot be
judged) or keeps failing with a departure class it did not show before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_rspbench.report.baseline import item_key
from pytest_rspbench.report.conformance.entries import classify, engine_of

RANK = {"passed": 0, "inapplicable": 1, "untested": 1, "known": 2, "failed": 3, "cantTell": 3}
"""How bad each outcome is; moving to a higher rank is worse."""


@dataclass(frozen=True)
class OutcomeChange:
    """One item whose outcome or departures differ between the runs."""

    key: str
    before: str
    after: str
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    why: str

    @property
    def worse(self) -> bool:
        return RANK[self.after] > RANK[self.before] or (
            RANK[self.after] == RANK[self.before] and bool(self.gained)
        )

    def describe(self) -> str:
        """``q1[...]: passed -> failed; gained window-bounds; strict: FAIL — ...``"""
        parts = [f"{self.key}: {self.before} -> {self.after}"]
        if self.gained:
            parts.append("departures gained: " + ", ".join(self.gained))
        if self.lost:
            parts.append("departures lost: " + ", ".join(self.lost))
        if self.why and self.after != "passed":
            parts.append(self.why.splitlines()[0])
        return "; ".join(parts)


@dataclass
class Outcomes:
    """The comparison of two runs by outcome."""

    compared: int = 0
    changes: list[OutcomeChange] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    @property
    def worse(self) -> list[OutcomeChange]:
        return [c for c in self.changes if c.worse]


def compare(before: Mapping[str, Any], after: Mapping[str, Any]) -> Outcomes:
    """Compare two results documents' case items by outcome."""
    old, new = _cases(before), _cases(after)
    out = Outcomes(assumed=assumed(before, after))
    out.missing = [k for k in old if k not in new]
    out.new = [k for k in new if k not in old]
    for key in (k for k in new if k in old):
        out.compared += 1
        change = _change(key, old[key], new[key])
        if change is not None:
            out.changes.append(change)
    return out


def assumed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What the two runs assumed differently, one line each.

    >>> assumed({"tool": {"version": "1"}}, {"tool": {"version": "2"}})
    ["pytest-rspbench: '1' -> '2'"]
    """
    out = []
    tools = [(d.get("tool") or {}).get("version") for d in (before, after)]
    if tools[0] != tools[1]:
        out.append(f"pytest-rspbench: {tools[0]!r} -> {tools[1]!r}")
    suites = [d.get("suite") or {} for d in (before, after)]
    for key in ("name", "version", "specs", "digest"):
        if suites[0].get(key) != suites[1].get(key):
            out.append(f"suite {key}: {suites[0].get(key)!r} -> {suites[1].get(key)!r}")
    profiles = [_declared(d) for d in (before, after)]
    for engine in (e for e in profiles[1] if e in profiles[0]):
        a, b = profiles[0][engine], profiles[1][engine]
        for name in sorted(set(a) | set(b)):
            if a.get(name) != b.get(name):
                out.append(f"{engine}'s declared {name}: {a.get(name)!r} -> {b.get(name)!r}")
    return out


def lines(outcomes: Outcomes, before: str, after: str) -> list[str]:
    """The comparison as text: assumptions, then worse, then better."""
    worse = outcomes.worse
    better = [c for c in outcomes.changes if not c.worse]
    out = [
        f"outcomes of {after} against {before}: {outcomes.compared} item(s) in both, "
        f"{len(worse)} changed for the worse, {len(better)} for the better"
    ]
    if outcomes.assumed:
        out.append("assumed differently:")
        out += [f"  {line}" for line in outcomes.assumed]
    for label, changes in (("worse", worse), ("better", better)):
        if changes:
            out.append(f"{label}:")
            out += [f"  {c.describe()}" for c in changes]
    if outcomes.missing:
        out.append(f"in {before} only: " + ", ".join(outcomes.missing))
    if outcomes.new:
        out.append(f"in {after} only: " + ", ".join(outcomes.new))
    return out


def _cases(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {item_key(i): i for i in doc.get("items") or () if "spec" in i}


def _change(key: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> OutcomeChange | None:
    (before, _), (after, why) = classify(old), classify(new)
    was, now = _departures(old), _departures(new)
    gained = tuple(n for n in now if n not in was)
    lost = tuple(n for n in was if n not in now)
    if before == after and not gained and not lost:
        return None
    return OutcomeChange(key, before, after, gained, lost, why)


def _departures(item: Mapping[str, Any]) -> list[str]:
    return [str(d.get("name")) for d in item.get("departures") or ()]


def _declared(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each engine's declared profile (first item that has one)."""
    out: dict[str, dict[str, Any]] = {}
    for item in doc.get("items") or ():
        declared = (item.get("profile") or {}).get("declared")
        if declared and "spec" in item:
            out.setdefault(engine_of(item), dict(declared))
    return out
