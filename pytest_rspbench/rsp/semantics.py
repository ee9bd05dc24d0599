"""An engine's operational semantics: the profile the oracle computes for.

CSRBench Table 1 and SECRET (paper 001) name the dimensions on which RSP
engines differ: window bounds, the start t0 of the first window, report
policies, tick, R2S operators, empty relations. RSP-QL (paper 004) gives the
formal model. An engine profile (``engine.yaml``) declares one
:class:`Semantics`; the oracle, the verdicts and gracious mode read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rspbench.rsp.windows import Bounds

BOUNDS = tuple(b.value for b in Bounds)
REPORT_POLICIES = ("window-close", "non-empty-content", "content-change", "periodic")
TICKS = ("time-driven", "tuple-driven", "graph-driven")
R2S = ("RStream", "IStream", "DStream")


@dataclass(frozen=True)
class Semantics:
    """An engine's declared operational semantics (CSRBench Table 1).

    Attributes:
        bounds: window bounds convention: "(o,c]", "[o,c)" or "[o,c]".
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
    """

    bounds: Bounds | str = Bounds.OPEN_CLOSED
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

    @property
    def reports_empty(self) -> bool:
        """Does the engine report windows whose content is empty?"""
        return "non-empty-content" not in self.report
