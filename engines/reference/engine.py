"""The reference engine: an RSP-QL engine that follows whatever profile it is given.

It runs the RSP-QL model (Dell'Aglio et al.) directly: time-based sliding
windows (Def. 12-13) kept incrementally per stream, a report policy choosing
the evaluation instants (Def. 23), the static SPARQL query evaluated with
pyoxigraph on each instant (Def. 17), and an R2S operator (Def. 20-22).
Every knob of :class:`~pytest_rspbench.engine.api.Semantics` changes its
behaviour (see README.md), so the harness can check that the oracle predicts
each profile. It is written independently of the oracle on purpose.

Example::

    engine = ReferenceEngine()
    engine.open(Registration(query, ("http://s",), start=0), results.append)
    engine.push("http://s", Event(1000, (("<a>", "<p>", "<b>"),)))
    engine.end(20000)
"""

from __future__ import annotations

from pytest_rspbench.engine.api import Emit, Engine, Registration, Semantics
from pytest_rspbench.stream.model import Event

from .evaluation import WindowStore
from .mixed import MixedChange, MixedClose, MixedPolicy
from .output import Reporter
from .policy import ContentChange, Policy, WindowClose
from .query import CountDecl, Decl, ParsedQuery, WindowDecl, parse_query
from .reorder import Reorder

T0_POLICIES = ("registration", "first-event", "aligned", "any")
TRIGGERS = ("window-close", "content-change")


class ReferenceEngine(Engine):
    """An in-process RSP-QL engine configured by the registration's Semantics."""

    name = "reference"
    version = "0.1.0"

    def __init__(self) -> None:
        self._policy: Policy | MixedPolicy | None = None
        self._time_unit = 1
        self._reorder: Reorder | None = None
        self._seen: set[tuple[str, int, tuple]] | None = None

    def open(self, registration: Registration, emit: Emit) -> None:
        """Parse the query, check the profile and load the static data."""
        semantics = registration.semantics
        query = parse_query(registration.query)
        check_semantics(semantics, query.r2s)
        check_windows(semantics, query)
        reporter = Reporter(
            query.r2s,
            emit,
            empty_relations=semantics.empty_relations,
            reports_window=semantics.reports_window,
        )
        store = WindowStore(query.sparql, registration.static)
        changes = "content-change" in semantics.report
        if query.time_only:
            policy = ContentChange if changes else WindowClose
            self._policy = policy(
                query.windows,  # type: ignore[arg-type]
                bounds=semantics.bounds,
                report=semantics.report,
                tick=semantics.tick,
                store=store,
                reporter=reporter,
            )
        else:
            mixed = MixedChange if changes else MixedClose
            self._policy = mixed(query.windows, semantics=semantics, store=store, reporter=reporter)
        self._time_unit = semantics.time_unit
        lateness, streams = semantics.lateness, registration.streams
        self._reorder = Reorder(lateness, streams) if lateness > 0 else None
        if counts_arrivals(semantics, query):
            # Count windows counting arrivals take events as they come (the
            # check above refuses mixing them with windows that need time
            # order), dropping exact repeats (docs/count-and-session-windows.md).
            self._reorder, self._seen = None, set()
        t0s = [resolve_t0(semantics.t0, registration.start, w) for w in query.windows]
        self._policy.start([None if t0 is None else self._quantize(t0) for t0 in t0s])

    def push(self, stream: str, event: Event) -> None:
        """Take one event; evaluate what it makes due.

        With a ``lateness`` in the profile, events pass through a watermark
        buffer first (:mod:`.reorder`): late ones are put back in time order,
        exact repeats dropped.
        """
        self._opened()
        if self._seen is not None:
            key = (stream, event.time, event.triples)
            if key in self._seen:
                return
            self._seen.add(key)
        if self._reorder is None:
            self._process(stream, event)
            return
        for ready_stream, ready in self._reorder.push(stream, event):
            self._process(ready_stream, ready)

    def end(self, end_time: int) -> None:
        """Evaluate what is complete by ``end_time`` (windows with ``c <= end``)."""
        policy = self._opened()
        if self._reorder is not None:
            for stream, event in self._reorder.drain():
                self._process(stream, event)
        policy.end(end_time)

    def _process(self, stream: str, event: Event) -> None:
        policy = self._opened()
        policy.push(stream.strip("<>"), self._quantize(event.time), event.triples)

    def close(self) -> None:
        """Forget the query and its state."""
        self._policy = None

    def _opened(self) -> Policy | MixedPolicy:
        if self._policy is None:
            raise RuntimeError("ReferenceEngine: call open() before push() or end()")
        return self._policy

    def _quantize(self, time: int) -> int:
        """Truncate ``time`` to the engine's time unit (CSRBench Table 1)."""
        return time - time % self._time_unit


def resolve_t0(rule: str | int, registration_start: int, window: Decl) -> int | None:
    """The fixed ``t0`` of one named window, or None when it is the time of
    the first event of the window's stream.

    Each sliding window has its own ``t0`` (RSP-QL Def. 13, Def. 25: one
    candidate set per window): ``first-event`` is the first event of the
    window's own stream, ``aligned`` the start in ``[a, a + slide)`` whose
    windows close at multiples of the slide counted from time 0. "any" means
    the profile leaves t0 open; this engine then picks the registration time,
    one of the candidates the oracle tries. Count and session windows have
    no ``t0``; what is returned for them is not used.

    >>> w = WindowDecl("http://w", "http://s", width=3000, slide=2000)
    >>> [resolve_t0(rule, 500, w) for rule in ("registration", "first-event", 7, "aligned")]
    [500, None, 7, 1000]
    """
    if isinstance(rule, int) and not isinstance(rule, bool):
        return rule
    if isinstance(rule, str) and rule.lstrip("-").isdigit():
        return int(rule)
    if rule in ("registration", "any"):
        return registration_start
    if rule == "first-event":
        return None
    if rule == "aligned":
        if not isinstance(window, WindowDecl):
            return registration_start
        # c_0 = t0 + width is the first multiple of the slide at or after a + width.
        return registration_start + (-window.width - registration_start) % window.slide
    raise ValueError(f"unknown t0 policy {rule!r}; expected one of {T0_POLICIES} or ms")


def check_semantics(semantics: Semantics, r2s: str) -> None:
    """Refuse profiles this engine cannot honour, saying what to change."""
    triggers = [p for p in semantics.report if p in TRIGGERS]
    if "periodic" in semantics.report:
        raise ValueError(
            "the reference engine does not support the periodic report policy "
            "(a profile carries no period); use window-close or content-change"
        )
    if len(triggers) != 1:
        raise ValueError(
            f"report {list(semantics.report)} must name exactly one of "
            f"{list(TRIGGERS)}, optionally with non-empty-content"
        )
    if r2s not in semantics.r2s:
        raise ValueError(
            f"the query registers {r2s} but the profile's r2s is "
            f"{list(semantics.r2s)}; add {r2s} to the profile or change the query"
        )
    if semantics.time_unit < 1:
        raise ValueError(f"time_unit must be at least 1 ms, got {semantics.time_unit}")


NEEDED = {
    "rows": ("count_order", "count_ties", "count_rampup", "count_tick", "count_bounds"),
    "triples": ("count_order", "count_ties", "count_rampup", "count_tick", "count_bounds"),
    "session": ("session_gap", "session_bounds"),
}


def check_windows(semantics: Semantics, query: ParsedQuery) -> None:
    """Refuse count or session windows the profile says nothing about, and
    count windows counting arrivals beside windows that need time order
    while late events are put back in order (not defined)."""
    for window in query.windows:
        missing = [f for f in NEEDED.get(window.kind, ()) if getattr(semantics, f) is None]
        if missing:
            raise ValueError(
                f"window <{window.name}> is a {window.kind} window, but the profile does "
                f"not declare {', '.join(missing)} (docs/count-and-session-windows.md)"
            )
    if counts_arrivals(semantics, query) and semantics.lateness > 0:
        if not all(isinstance(w, CountDecl) for w in query.windows):
            raise ValueError(
                "count windows with count_order: arrival beside time or session windows are "
                "not defined when late events are reordered (lateness > 0); use "
                "count_order: time, or lateness 0"
            )


def counts_arrivals(semantics: Semantics, query: ParsedQuery) -> bool:
    """Does the query count arrivals (count_order: arrival) in some window?"""
    counted = any(isinstance(w, CountDecl) for w in query.windows)
    return counted and semantics.count_order == "arrival"
