"""What the inference weighs and concludes: candidates, verdicts, conclusions.

A :class:`Candidate` is one value of a dimension (the profile fields it sets
for the oracle); a :class:`Judged` is the strict verdict on one probe under
one candidate; a :class:`Conclusion` is what a dimension's probes say
(:mod:`.inference` and :mod:`.kinds` reach them, :mod:`.report` writes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_rspbench.verdict.departures import Departure

UNCOMPUTABLE = 10**6  # the score of a candidate the oracle refuses
NOT_SUPPORTED = "not supported"
"""The value of a dimension whose probes the engine cannot run (a window kind
it does not list, or refuses): neither a departure nor wrong."""


@dataclass(frozen=True)
class Candidate:
    """One value of a dimension: the fields it sets, for the oracle.

    ``r2s`` is the R2S operator the oracle applies instead of the query's
    (an engine that ignores IStream streams out RStream); ``kind`` the count
    window kind it computes instead of the query's (an engine whose ``ROWS``
    counts triples); ``trim`` True drops the windows only the end of the
    input closes (no flush).
    """

    label: str
    changes: Mapping[str, Any] = field(default_factory=dict)
    r2s: str | None = None
    trim: bool | None = None
    kind: str | None = None


@dataclass(frozen=True)
class Judged:
    """The strict verdict on one probe under one candidate."""

    probe: str
    passed: bool
    departures: tuple[Departure, ...] = ()
    trimmed: bool = False
    note: str = ""

    @property
    def score(self) -> int:
        """How far from explained: 0 when it passes, else the differing windows
        (a candidate the oracle cannot compute is the farthest)."""
        if self.passed:
            return 0
        if not self.departures and self.note.startswith("the oracle cannot"):
            return UNCOMPUTABLE
        return max(1, sum(d.count for d in self.departures))


@dataclass(frozen=True)
class Conclusion:
    """What one dimension's probes say.

    Attributes:
        dimension: its name (``t0``, ``bounds``, ``r2s IStream``, ...).
        value: the inferred value, as shown.
        declared: the declared (registered) value, as shown.
        explained: a candidate explains every probe (None: not observable,
            or not supported).
        changes: the profile fields the inferred value sets.
        explaining: every candidate that explains the probes.
        judged: the chosen candidate's verdict on each probe.
        departure: the departure class of a value other than the declared one.
        skipped: the probes the engine did not run (a window kind it does not
            list, or refused).
    """

    dimension: str
    value: str
    declared: str
    explained: bool | None
    changes: Mapping[str, Any] = field(default_factory=dict)
    explaining: tuple[str, ...] = ()
    judged: tuple[Judged, ...] = ()
    departure: str | None = None
    skipped: tuple[str, ...] = ()

    @property
    def probes(self) -> tuple[str, ...]:
        return tuple(j.probe for j in self.judged) + self.skipped

    @property
    def departures(self) -> tuple[tuple[str, Departure], ...]:
        """``(probe, departure)`` the chosen value leaves unexplained."""
        return tuple((j.probe, d) for j in self.judged if not j.passed for d in j.departures)
