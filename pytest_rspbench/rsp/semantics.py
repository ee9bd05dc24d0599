"""An engine's operational semantics: the profile the oracle computes for.

CSRBench Table 1 and SECRET (paper 001) name the dimensions on which RSP
engines differ: window bounds, the start t0 of the first window, report
policies, tick, R2S operators, empty relations. RSP-QL (paper 004) gives the
formal model. An engine profile (``engine.yaml``) declares one
:class:`Semantics`; the oracle, the verdicts and gracious mode read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from pytest_rspbench.rsp.counting import (
    COUNT_BOUNDS,
    COUNT_FIELDS,
    COUNT_KINDS,
    COUNT_ORDERS,
    COUNT_RAMPUPS,
    COUNT_TICKS,
    COUNT_TIES,
)
from pytest_rspbench.rsp.sessions import SESSION_BOUNDS, SESSION_FIELDS, SESSION_GAPS
from pytest_rspbench.rsp.windows import Bounds

BOUNDS = tuple(b.value for b in Bounds)
REPORT_POLICIES = ("window-close", "non-empty-content", "content-change", "periodic")
TICKS = ("time-driven", "tuple-driven", "graph-driven")
R2S = ("RStream", "IStream", "DStream")
WINDOW_KINDS = ("time", *COUNT_KINDS, "session")
"""Window kinds (docs/count-and-session-windows.md); a profile's ``windows`` lists those it runs."""
CHOICES = {
    "count_order": COUNT_ORDERS,
    "count_ties": COUNT_TIES,
    "count_rampup": COUNT_RAMPUPS,
    "count_tick": COUNT_TICKS,
    "count_bounds": COUNT_BOUNDS,
    "session_gap": SESSION_GAPS,
    "session_bounds": SESSION_BOUNDS,
}
"""The values of the count and session fields; None is "not declared"."""
NEEDED = {"rows": COUNT_FIELDS, "triples": COUNT_FIELDS, "session": SESSION_FIELDS}
"""The fields a profile must declare to run each window kind (there are no defaults)."""


@dataclass(frozen=True)
class Semantics:
    """An engine's declared operational semantics (CSRBench Table 1).

    Attributes:
        bounds: window bounds convention: "(o,c]" (the default, RSP-QL),
            "[o,c)" or "[o,c]"; the text is read as the :class:`Bounds` it is.
        t0: how the engine picks the start of its first window: "any"
            (unknown: the oracle tries every candidate), "registration" (the
            registration time), "first-event" (the first event's time),
            "aligned" (per window, the start whose windows close at multiples
            of the slide from time 0: ``t0 = -width mod slide``), or a fixed
            integer time in ms.
        report: report policies, combined (SECRET), e.g.
            ("window-close", "non-empty-content").
        tick: "time-driven", "tuple-driven" or "graph-driven".
        r2s: the R2S operators the engine supports.
        empty_relations: whether the engine emits empty relations.
        time_unit: the engine's time resolution in ms.
        reports_window: whether the window an engine says it reported can be
            trusted for aligning results to windows.
        active_window: for content-change and periodic reports, which open
            window the query sees: "present" (RSP-QL: the most recently
            opened one) or "earliest" (SECRET: the earliest open one).
        period: the period in ms of the "periodic" report policy.
        lateness: how late (ms of application time) an event may arrive and
            still be placed in its windows; the engine holds windows open
            that long. 0: events must arrive in time order.
        windows: the window kinds the engine runs ("time", "rows",
            "triples", "session"); a query using another kind is skipped.
        count_order: count windows count in "time" order (RSP-QL draft) or
            "arrival" order (sparq).
        count_ties: elements tied at a count window's cut: broken by
            "arrival", or "any" resolution is correct (RSP-QL draft).
        count_rampup: count windows with fewer than n elements are
            reported ("report") or not ("skip").
        count_tick: a count window is evaluated at every slide
            ("tuple-driven") or at most once per event ("graph-driven").
        count_bounds: the window a count evaluation reports: "[first,last]"
            (times of its first and last element) or "none".
        session_gap: two events exactly one gap apart: "split" (sparq) or
            "merge" (Flink).
        session_bounds: the window a session reports: "[first,last]"
            (sparq) or "[first,last+gap)" (Flink).

    The count fields are None (undeclared) unless ``windows`` lists "rows"
    or "triples", where each is required; likewise the session fields for
    "session" (docs/count-and-session-windows.md).
    """

    bounds: Bounds = Bounds.OPEN_CLOSED
    t0: str | int = "any"
    report: tuple[str, ...] = ("window-close", "non-empty-content")
    tick: str = "time-driven"
    r2s: tuple[str, ...] = ("RStream",)
    empty_relations: bool = False
    time_unit: int = 1
    reports_window: bool = False
    active_window: str = "present"
    period: int | None = None
    lateness: int = 0
    windows: tuple[str, ...] = ("time",)
    count_order: str | None = None
    count_ties: str | None = None
    count_rampup: str | None = None
    count_tick: str | None = None
    count_bounds: str | None = None
    session_gap: str | None = None
    session_bounds: str | None = None

    def __post_init__(self) -> None:
        if self.bounds not in BOUNDS:
            raise ValueError(f"bounds must be one of {BOUNDS}, got {self.bounds!r}")
        # A profile gives the text; every reader gets the one type.
        object.__setattr__(self, "bounds", Bounds(self.bounds))
        for policy in self.report:
            if policy not in REPORT_POLICIES:
                raise ValueError(f"unknown report policy {policy!r}")
        if self.active_window not in ("present", "earliest"):
            raise ValueError(
                f"active_window must be present or earliest, got {self.active_window!r}"
            )
        if "periodic" in self.report and not self.period:
            raise ValueError("the periodic report policy needs a period (ms)")
        if self.tick not in TICKS:
            raise ValueError(f"tick must be one of {TICKS}, got {self.tick!r}")
        self._check_windows()

    def _check_windows(self) -> None:
        unknown = [k for k in self.windows if k not in WINDOW_KINDS]
        if unknown or not self.windows:
            raise ValueError(
                f"windows must list some of {', '.join(WINDOW_KINDS)}, got {list(self.windows)}"
            )
        for name, values in CHOICES.items():
            value = getattr(self, name)
            if value is not None and value not in values:
                raise ValueError(f"{name} must be one of {values}, got {value!r}")
        missing = undeclared(self.windows, {f.name: getattr(self, f.name) for f in fields(self)})
        if missing:
            raise ValueError(
                f"windows lists {', '.join(k for k in self.windows if k in NEEDED)}, which "
                f"needs {', '.join(missing)} declared"
            )

    @property
    def reports_empty(self) -> bool:
        """Does the engine report windows whose content is empty?"""
        return "non-empty-content" not in self.report


def undeclared(kinds: Iterable[str], declared: Mapping[str, Any]) -> list[str]:
    """The fields window ``kinds`` need that ``declared`` leaves out (or None).

    >>> undeclared(["time", "session"], {"session_gap": "split"})
    ['session_bounds']
    """
    needed = {f for kind in kinds for f in NEEDED.get(kind, ())}
    return [name for name in CHOICES if name in needed and declared.get(name) is None]


BEHAVIOUR_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Semantics) if f.name != "windows")
"""Every field of :class:`Semantics` that says how an engine behaves, in
declaration order: all but ``windows``, which says what it can run (a
capability, never configured or pinned)."""
