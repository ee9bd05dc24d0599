"""Failures grouped by departure class and the query constructs they need.

A failing case belongs to a group when it shows the group's departure (the
first of its verdict line, as the shrinker keeps it) and its query uses
every construct of the group's. The group's constructs are those its first
case still needed after reduction (:mod:`.exploration`), so an engine that
runs the wrong bounds makes one group, ``window-bounds`` over a plain
pattern, however many queries show it; a bug in OPTIONAL makes one group
with ``optional`` in it::

    departure       constructs          cases   first
    window-bounds   (plain pattern)     41      case 3
    lost-window     optional            2       case 57

Two pseudo-departures are the oracle's, not the engine's: ``oracle-error``
(the oracle failed on a case) and ``oracle-timeout`` (it did not finish it
within the case's limit). A case the oracle *refuses* (it does not compute
such a query) is counted, not a failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rspbench.explore.trials import ORACLE_ERROR, ORACLE_TIMEOUT
from pytest_rspbench.rsp.constructs import NAMES, shown
from pytest_rspbench.rsp.departures import BY_NAME

ORACLE = (ORACLE_ERROR, ORACLE_TIMEOUT)
"""The pseudo-departures of the oracle itself."""
EXPLANATIONS = {
    ORACLE_ERROR: "the oracle failed on the case: a bug in the oracle (or Spark)",
    ORACLE_TIMEOUT: "the oracle did not finish the case: a plan it cannot compute in time",
    **{name: kind.explanation for name, kind in BY_NAME.items()},
}


@dataclass
class Group:
    """One departure over one set of constructs, and what was written for it.

    Attributes:
        number: 1, 2, ... in the order found (the folder's prefix).
        departure: the departure class (or one of :data:`ORACLE`).
        constructs: the constructs its first case needed.
        cases: the case numbers that showed it (None: a replayed entry).
        verdict: the first case's verdict line (or the oracle's error).
        spec: the counterexample written for it, once written.
        suspect: the counterexample fails on the reference engine too.
        reproduced: the written spec fails on the engine as the case did
            (None: not checked).
        note: what happened while reducing, shrinking, checking.
        known: it came from the failure database (a bug still there).
        found: seconds into the exploration when its first case failed.
        size: events and triples of the written spec's input.
    """

    number: int
    departure: str
    constructs: frozenset[str]
    cases: list[int | None] = field(default_factory=list)
    verdict: str = ""
    spec: Path | None = None
    suspect: bool = False
    reproduced: bool | None = None
    note: str = ""
    known: bool = False
    found: float | None = None
    size: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        """``window-bounds (plain pattern)``."""
        return f"{self.departure} ({shown(self.constructs)})"

    @property
    def slug(self) -> str:
        """A folder name, also a valid spec name: ``01-window-bounds-plain``,
        ``02-lost-window-optional.union``."""
        names = ".".join(n for n in NAMES if n in self.constructs) or "plain"
        return re.sub(r"[^a-z0-9.-]+", "-", f"{self.number:02d}-{self.departure}-{names}")

    @property
    def explanation(self) -> str:
        return EXPLANATIONS.get(self.departure, "")

    def covers(self, departure: str, constructs: frozenset[str]) -> bool:
        """Whether a failure showing ``departure`` with ``constructs`` belongs here."""
        return departure == self.departure and self.constructs <= constructs


class Groups:
    """The groups of one exploration, in the order found."""

    def __init__(self) -> None:
        self.all: list[Group] = []

    def find(self, departure: str, constructs: frozenset[str]) -> Group | None:
        """The group a failure belongs to (the most specific one that covers it)."""
        covering = [g for g in self.all if g.covers(departure, constructs)]
        return max(covering, key=lambda g: len(g.constructs), default=None)

    def add(self, departure: str, constructs: frozenset[str], verdict: str = "") -> Group:
        """A new group (numbered after the others)."""
        group = Group(len(self.all) + 1, departure, constructs, verdict=verdict)
        self.all.append(group)
        return group

    def failures(self) -> int:
        """Failing cases of this run (replayed entries aside)."""
        return sum(1 for g in self.all for c in g.cases if c is not None)

    def by_departure(self) -> dict[str, int]:
        """Failing cases of this run per departure class, most first."""
        counts: dict[str, int] = {}
        for group in self.all:
            found = sum(1 for c in group.cases if c is not None)
            if found:
                counts[group.departure] = counts.get(group.departure, 0) + found
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
