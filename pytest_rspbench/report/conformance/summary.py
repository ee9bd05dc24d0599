"""What a conformance report counts, per engine: ``summary.json``.

An engine's *conformance* is the cases it passes out of the cases that apply
to it: every case but the ``inapplicable`` ones (its profile cannot run
them) and the ``untested`` ones (not run). A known failure is a case that
applies and is not passed. The same counts make the page's summary, the
badge and ``summary.json``, which a CI job can gate on
(docs/conformance.md#the-conformance-report).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench import __version__
from pytest_rspbench.report.conformance.entries import (
    OUTCOMES,
    EngineResults,
    ordered_families,
    title,
)

NOT_APPLYING = ("inapplicable", "untested")


@dataclass(frozen=True)
class Tally:
    """One engine's counts: by outcome, by family and by departure class."""

    engine: str
    outcomes: Mapping[str, int]
    families: Mapping[str, tuple[int, int]]  # family -> (passed, applicable)
    departures: Mapping[str, int]  # class -> cases that show it

    @property
    def passed(self) -> int:
        return self.outcomes.get("passed", 0)

    @property
    def applicable(self) -> int:
        return sum(n for o, n in self.outcomes.items() if o not in NOT_APPLYING)

    @property
    def score(self) -> str:
        """``61/70``: passed out of the cases that apply."""
        return f"{self.passed}/{self.applicable}"


def tally(results: EngineResults) -> Tally:
    """Count one engine's entries.

    >>> from pytest_rspbench.report.conformance.entries import Entry
    >>> r = EngineResults("e", {}, [{}], ["r.json"])
    >>> r.entries = {"a": Entry("e", "a", "a", "rspql", "passed", ""),
    ...              "b": Entry("e", "b", "b", "rspql", "failed", "", ("lost-window",)),
    ...              "c": Entry("e", "c", "c", "shapes", "inapplicable", "")}
    >>> t = tally(r)
    >>> t.score, dict(t.families), dict(t.departures)
    ('1/2', {'rspql': (1, 2), 'shapes': (0, 0)}, {'lost-window': 1})
    """
    entries = list(results.entries.values())
    outcomes = Counter(e.outcome for e in entries)
    families: dict[str, tuple[int, int]] = {}
    for key in ordered_families([e.family for e in entries]):
        mine = [e for e in entries if e.family == key]
        families[key] = (
            sum(e.outcome == "passed" for e in mine),
            sum(e.outcome not in NOT_APPLYING for e in mine),
        )
    departures = Counter(
        name for e in entries if e.outcome in ("failed", "known") for name in set(e.departures)
    )
    ranked = dict(sorted(departures.items(), key=lambda kv: (-kv[1], kv[0])))
    return Tally(results.engine, {o: outcomes.get(o, 0) for o in OUTCOMES}, families, ranked)


def document(all_results: Sequence[EngineResults]) -> dict[str, Any]:
    """``summary.json``: per engine its counts, its conformance by family and
    its departures by class, and what the runs assumed."""
    return {
        "tool": {"name": "pytest-rspbench", "version": __version__},
        "engines": [_engine(r, tally(r)) for r in all_results],
    }


def _engine(results: EngineResults, t: Tally) -> dict[str, Any]:
    first = results.docs[0] if results.docs else {}
    return {
        "engine": results.engine,
        "version": results.profile.get("version"),
        "results": list(results.sources),
        "created": results.created,
        "tool_version": (first.get("tool") or {}).get("version"),
        "suite": first.get("suite"),
        "conformance": t.score,
        "passed": t.passed,
        "applicable": t.applicable,
        "ratio": round(t.passed / t.applicable, 4) if t.applicable else None,
        "outcomes": dict(t.outcomes),
        "families": {
            key: {"title": title(key), "passed": p, "applicable": a}
            for key, (p, a) in t.families.items()
        },
        "departures": dict(t.departures),
        "failing": sorted(
            e.case for e in results.entries.values() if e.outcome in ("failed", "cantTell")
        ),
    }
