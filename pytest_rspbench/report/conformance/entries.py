"""The cases of a conformance report: one entry per case and engine.

Every case item of the results files becomes an :class:`Entry` with one
outcome, named as EARL 1.0 names them (``passed``, ``failed``,
``cantTell``, ``inapplicable``, ``untested``) plus ``known``: a declared
known failure (``known_failures:``) that still fails, an intended deviation,
which EARL writes as ``failed`` with the project's annotation
(:mod:`pytest_rspbench.report.conformance.earl`). A case that one engine's
results hold and another's do not is ``untested`` for the other.
Mismatch and sweep items span engines and are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_rspbench.errors import RspbenchError

OUTCOMES = ("passed", "failed", "known", "cantTell", "inapplicable", "untested")
"""Every outcome an entry can have, best first."""

FAMILIES = {
    "csrbench": "CSRBench",
    "yabench": "YABench",
    "lsbench": "LSBench",
    "rspql": "RSP-QL",
    "shapes": "stream shapes",
    "workloads": "workloads",
    "windows": "count and session windows",
}
"""The suite's families: the folder under ``specs/`` and its title, in the
order the report lists them."""

PREFIXES = {"workload": "workloads", "rows": "windows", "session": "windows", "count": "windows"}
"""Spec name prefixes that name a family other than themselves."""

# What the plugin says when it skips a case it cannot run (items.py) or the
# engine declines the query at registration (runner.py): not applicable.
INAPPLICABLE = ("'s profile cannot run this case", " does not run this query")


class ConformanceError(RspbenchError, ValueError):
    """Results files that cannot make one conformance report."""


@dataclass(frozen=True)
class Entry:
    """One case for one engine."""

    engine: str
    case: str  # spec[params], the same for every engine
    spec: str
    family: str
    outcome: str
    description: str
    departures: tuple[str, ...] = ()
    record: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class EngineResults:
    """One engine's entries and what its results files say about the run."""

    engine: str
    profile: Mapping[str, Any]
    docs: list[Mapping[str, Any]]
    sources: list[str]
    entries: dict[str, Entry] = field(default_factory=dict)

    @property
    def created(self) -> str | None:
        """When the last of its runs ended (UTC, ISO 8601)."""
        return max((str(d.get("created") or "") for d in self.docs), default="") or None


def engines(docs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[EngineResults]:
    """Every engine of the results files, in the order they first appear, each
    with an entry for every case of every engine (``untested`` when its own
    results lack it). ``docs`` pairs each file's name with its document.

    Raises:
        ConformanceError: no case item at all, or one case twice for an engine.
    """
    found: dict[str, EngineResults] = {}
    where: dict[tuple[str, str], str] = {}
    for source, doc in docs:
        for item in doc.get("items") or ():
            if "spec" not in item:  # mismatch and sweep items
                continue
            entry = entry_of(item)
            results = found.setdefault(
                entry.engine, EngineResults(entry.engine, item.get("profile") or {}, [], [])
            )
            if doc not in results.docs:
                results.docs.append(doc)
                results.sources.append(source)
            if results.profile.get("declared") is None and item.get("profile"):
                results.profile = item["profile"]
            seen = where.setdefault((entry.engine, entry.case), source)
            if entry.case in results.entries:
                raise ConformanceError(
                    f"{source}: case {entry.case} of engine {entry.engine} is also in "
                    f"{seen}.\nHINT: give each engine's case once: one results file per "
                    "run, without two runs of the same specs for one engine."
                )
            results.entries[entry.case] = entry
    if not found:
        names = ", ".join(source for source, _ in docs)
        raise ConformanceError(
            f"{names}: no case item to report on.\nHINT: write the results file with "
            "pytest specs/ --rspbench-json results.json (mismatch and sweep items alone "
            "make no conformance report)."
        )
    _fill_untested(list(found.values()))
    return list(found.values())


def entry_of(item: Mapping[str, Any]) -> Entry:
    """The entry of one case item of a results file."""
    outcome, description = classify(item)
    spec = str(item["spec"])
    return Entry(
        engine=engine_of(item),
        case=row_name(spec, item.get("params") or {}),
        spec=spec,
        family=family(spec, item.get("spec_path")),
        outcome=outcome,
        description=description,
        departures=tuple(str(d.get("name")) for d in item.get("departures") or ()),
        record=item,
    )


def row_name(spec: str, params: Mapping[str, Any]) -> str:
    """A case's name across engines: the spec and its matrix values, sorted,
    without the engine (the matrix's rows, the conformance report's cases).

    >>> row_name("q1", {"step": 2, "range": 4, "engine": "x"}), row_name("q2", {})
    ('q1[range=4,step=2]', 'q2')
    """
    inner = ",".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "engine")
    return f"{spec}[{inner}]" if inner else spec


def classify(item: Mapping[str, Any]) -> tuple[str, str]:
    """An item's outcome and the sentence that explains it.

    >>> classify({"outcome": "passed", "verdict": "strict: pass"})
    ('passed', 'strict: pass')
    >>> classify({"outcome": "skipped", "message": "x's profile cannot run this case: t0"})
    ('inapplicable', "x's profile cannot run this case: t0")
    >>> classify({"outcome": "error", "oracle_error": "Spark stopped"})
    ('cantTell', 'Spark stopped')
    """
    raw = item.get("outcome")
    said = str(item.get("verdict") or item.get("message") or "")
    if raw in ("passed", "xpassed"):
        return "passed", said or "passed"
    if raw == "xfailed":
        return "known", str(item.get("known_failure") or said)
    if raw == "failed" or (raw == "error" and item.get("engine_error")):
        return "failed", said or str(item.get("engine_error") or "failed")
    if raw == "error":
        why = item.get("oracle_error") or item.get("message") or "the item could not run"
        return "cantTell", str(why)
    if raw == "skipped":
        reason = str(item.get("message") or "skipped")
        return ("inapplicable" if any(s in reason for s in INAPPLICABLE) else "untested"), reason
    return "untested", said or "the run did not finish this item"


def engine_of(item: Mapping[str, Any]) -> str:
    """The engine's identity: its profile's name, else as in the case id."""
    name = (item.get("profile") or {}).get("name")
    if name:
        return str(name)
    for part in reversed(str(item.get("case") or "").split(",")):
        if part.startswith("engine="):
            return part.removeprefix("engine=")
    return str(item.get("engine") or "?")


def family(spec: str, spec_path: str | None = None) -> str:
    """A spec's family: the folder it lies in under the suite, else its name's
    first word (``csrbench-q1``); ``other`` when neither is a family.

    >>> family("rspql-r2s", "specs/rspql/r2s.rspbench.yaml")
    'rspql'
    >>> family("csrbench-q1", "specs/csrbench-q1.rspbench.yaml"), family("mine", "x.yaml")
    ('csrbench', 'other')
    """
    if spec_path:
        folder = PurePosixPath(Path(spec_path).as_posix()).parent.name
        if folder in FAMILIES:
            return folder
    first = spec.split("-", 1)[0]
    if first in FAMILIES:
        return first
    return PREFIXES.get(first, "other")


def title(family_key: str) -> str:
    """A family's title (``RSP-QL``)."""
    return FAMILIES.get(family_key, family_key)


def ordered_families(keys: Sequence[str]) -> list[str]:
    """Families in the suite's order, others after them by name."""
    known = [k for k in FAMILIES if k in keys]
    return known + sorted(set(keys) - set(known))


def _fill_untested(all_results: list[EngineResults]) -> None:
    cases = {e.case: e for r in all_results for e in r.entries.values()}
    for results in all_results:
        for case, other in cases.items():
            if case not in results.entries:
                results.entries[case] = Entry(
                    results.engine,
                    case,
                    other.spec,
                    other.family,
                    "untested",
                    f"not in {results.engine}'s results",
                )
