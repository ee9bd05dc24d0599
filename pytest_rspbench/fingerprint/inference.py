"""Which semantics explain an engine's output: one dimension at a time.

For each dimension (:data:`~.probes.DIMENSIONS`) the oracle computes, on the
probes that test it, the expected output of each candidate value, with the
values found so far for the other dimensions (candidates per dimension, not
their product: a few oracle calls each). The strict verdict
(:func:`~pytest_rspbench.verdict.strict.assess`) judges the one recorded
output against each. A candidate *explains* a dimension when every probe
passes; of several, the declared value is kept. When none does, the closest
one (fewest differing windows; the declared one on ties) is kept and the
departures the verdict names for it (:mod:`pytest_rspbench.rsp.departures`)
are what no profile explains.

Flush at the end is no profile field (every profile expects the windows the
end of the input closes): each candidate is also judged without those
windows until the ``flush`` dimension decides, so an engine that never
flushes still has its bounds and t0 found (rsp-js D2, ``faulty-misses-last``).

The count and session window dimensions come last (:mod:`.kinds`), chosen
the same way (:meth:`Inference.decide`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.profiles import EngineProfile
from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.fingerprint import kinds
from pytest_rspbench.fingerprint.conclusions import NOT_SUPPORTED, Candidate, Conclusion, Judged
from pytest_rspbench.fingerprint.probes import PROBES, Probe, probes_of
from pytest_rspbench.fingerprint.runs import Recorded, case_of, record_all
from pytest_rspbench.rsp.counting import COUNT_KINDS
from pytest_rspbench.rsp.outputs import ExpectedOutput
from pytest_rspbench.rsp.policy import while_open
from pytest_rspbench.rsp.semantics import BOUNDS, Semantics
from pytest_rspbench.verdict.departures import Departure, Evidence

# The departure class a value other than the declared one shows as.
CLASS_OF = {
    "t0": "shifted-windows",
    "bounds": "window-bounds",
    "report": "report-policy",
    "r2s": "r2s-mismatch",
    "flush": "missing-final-window",
    "lateness": "late-events",
    **kinds.CLASS_OF,
}
# The classes of an engine that does not keep the lateness it declares.
LATE_CLASSES = ("late-events", "dropped-late-event", "re-reported-window")
WINDOW_CLOSE = (("window-close", "non-empty-content"), ("window-close",))
CONTENT_CHANGE = (("content-change", "non-empty-content"), ("content-change",))


class Oracle:
    """The oracle's expected outputs, each computed once per probe and profile.

    ``spark`` is a SparkSession or a function returning one (called on first
    need); ``cache`` stores outputs across runs (:mod:`pytest_rspbench.oracle.store.outputs`).
    """

    def __init__(self, spark: Any, cache: Any = None) -> None:
        self._spark = spark
        self._cache = cache
        self._memo: dict[tuple[str, Semantics, str | None, str | None], ExpectedOutput] = {}
        self.calls = 0

    def expected(
        self, probe: Probe, semantics: Semantics, r2s: str | None, kind: str | None = None
    ) -> ExpectedOutput:
        """The probe's expected output under ``semantics``, with the query's
        R2S operator replaced by ``r2s`` and its count window counting
        ``kind`` when given."""
        from pytest_rspbench.oracle.oracle import expected_output

        key = (probe.name, semantics, r2s, kind)
        if key not in self._memo:
            self.calls += 1
            stream = probe.stream()
            self._memo[key] = expected_output(
                self._spark,
                probe.query(r2s, kind),
                [stream],
                semantics,
                (),
                {stream.iri: probe.start},
                cache=self._cache,
                keep=self._cache is not None,
                disorder={stream.iri: probe.disorder} if probe.disorder else None,
            )
        return self._memo[key]


@dataclass
class Inference:
    """The dimensions of one engine's recorded probes, inferred in order."""

    recorded: Mapping[str, Recorded]
    declared: Semantics
    oracle: Oracle
    log: Callable[[str], None] | None = None
    base: Semantics = field(init=False)
    trim: bool | None = field(init=False, default=None)
    counted_as: dict[str, str] = field(init=False, default_factory=dict)
    """Count window kinds found to count as the other kind (``rows`` as
    ``triples``: faulty-count-triples); later probes are computed so."""

    def __post_init__(self) -> None:
        self.base = self.declared

    def run(self) -> list[Conclusion]:
        """Every dimension in order; :attr:`base` ends as the inferred profile."""
        out = [self.t0(), self.bounds()]
        if not out[0].explained and out[1].explained:
            out[0] = self.t0()  # with the bounds found
        out += [self.report(), self.flush(), *self.r2s()]
        late = [self.lateness(), self.answers(), self.reports_window(), self.tick()]
        for conclusion in late:
            self.base = replace(self.base, **conclusion.changes)
        return out + late + kinds.conclusions(self)

    # -- the dimensions -------------------------------------------------

    def t0(self) -> Conclusion:
        fixed = [Candidate(p, {"t0": p}) for p in ("registration", "first-event", "aligned")]
        found = self.decide("t0", probes_of("t0"), fixed, _shown(self.declared.t0))
        if not found.explained:
            wide = [Candidate("any", {"t0": "any"})]
            other = self.decide("t0", probes_of("t0"), wide, found.declared)
            found = other if other.explained else found
        return self.adopt(found)

    def bounds(self) -> Conclusion:
        candidates = [Candidate(b, {"bounds": b}) for b in BOUNDS]
        found = self.decide("bounds", probes_of("bounds"), candidates, str(self.declared.bounds))
        return self.adopt(found)

    def report(self) -> Conclusion:
        def candidates(policies: Sequence[tuple[str, ...]], **more: Any) -> list[Candidate]:
            return [
                Candidate(
                    _report_text(report, empty, more.get("active_window", "")),
                    {"report": report, "empty_relations": empty, **more},
                )
                for report in policies
                for empty in (False, True)
                # Empty relations of a policy that skips empty windows: only
                # empty answers of non-empty windows differ; rare, not tried.
                if not (empty and "non-empty-content" in report)
            ]

        declared = _report_label(self.declared)
        found = self.decide("report", probes_of("report"), candidates(WINDOW_CLOSE), declared)
        for active in ("present", "earliest"):
            if found.explained:
                break
            other = self.decide(
                "report", probes_of("report"), candidates(CONTENT_CHANGE, active_window=active),
                declared,
            )  # fmt: skip
            found = other if other.explained else found
        return self.adopt(found)

    def r2s(self) -> list[Conclusion]:
        out = []
        for probe in probes_of("r2s"):
            op = probe.r2s
            name = f"r2s {op}"
            declared = "in profile" if op in self.declared.r2s else "not in profile"
            if self.recorded[probe.name].skipped:
                out.append(self.unsupported(name, declared, (probe,)))
                continue
            if self.recorded[probe.name].error and not self.recorded[probe.name].actual.received:
                judged = self.judge(probe, Candidate("refused"))
                out.append(Conclusion(name, "refused", declared, op not in self.declared.r2s,
                                      judged=(judged,)))  # fmt: skip
                continue
            honoured = Candidate("honoured", {"r2s": tuple(sorted({*self.base.r2s, op}))})
            ignored = Candidate("ignored: streams RStream", r2s="RStream")
            found = self.decide(name, (probe,), [honoured, ignored], declared, keep="honoured")
            departure = None if found.value == "honoured" else "r2s-mismatch"
            out.append(self.adopt(replace(found, departure=departure, changes={})))
        self.base = replace(self.base, r2s=_honoured(self.base.r2s, out))
        return out

    def flush(self) -> Conclusion:
        candidates = [Candidate("yes", trim=False), Candidate("no", trim=True)]
        found = self.decide("flush", probes_of("flush"), candidates, "yes")
        self.trim = found.value == "no" if found.explained else None
        departure = "missing-final-window" if found.value == "no" else None
        return self.adopt(replace(found, departure=departure))

    def lateness(self) -> Conclusion:
        probe = probes_of("lateness")[0]
        if self.recorded[probe.name].skipped:
            return self.unsupported("lateness", str(self.declared.lateness), (probe,))
        asked = self.recorded[probe.name].registered.lateness
        judged = self.judge(probe, Candidate(str(asked), {"lateness": asked}))
        declared = str(self.declared.lateness)
        if asked != self.declared.lateness:
            declared += f" (registered {asked}: configurable)"
        if judged.passed:
            return Conclusion("lateness", str(asked), declared, True, {}, (str(asked),), (judged,))
        # What the verdict named for the late events: placed elsewhere, dropped
        # or reported again (the nearest class when it names none of them).
        named = [d.name for d in judged.departures if d.name in LATE_CLASSES]
        departure = (named[0] if named else "late-events") if asked > 0 else None
        return Conclusion("lateness", "0", declared, asked == 0 or None, {"lateness": 0}, (),
                          (judged,), departure)  # fmt: skip

    def answers(self) -> Conclusion:
        probes, skipped = self.runnable(probes_of("answers"))
        if not probes:
            return self.unsupported("answers", "SPARQL", skipped)
        judged = tuple(self.judge(p, Candidate("SPARQL")) for p in probes)
        ok = all(j.passed for j in judged)
        value = "SPARQL" if ok else "other"
        return Conclusion("answers", value, "SPARQL", ok, {}, (), judged, skipped=skipped)

    def reports_window(self) -> Conclusion:
        # Time windows only: a count window may report none (count_bounds).
        timed = [rec for rec in self.recorded.values() if rec.probe.kind == "time"]
        results = [r.result for rec in timed for r in rec.actual.received]
        said = bool(results) and all(r.window is not None for r in results)
        return Conclusion(
            "reports_window", _shown(said), _shown(self.declared.reports_window), True,
            {"reports_window": said},
        )  # fmt: skip

    def tick(self) -> Conclusion:
        # Under window-close every tick reports alike (the reference engine's
        # README; the oracle plans window-close evaluations without it).
        observable = "content-change" in self.base.report
        return Conclusion(
            "tick", self.declared.tick if not observable else "not probed", self.declared.tick,
            None,
        )  # fmt: skip

    # -- the machinery --------------------------------------------------

    def decide(
        self,
        dimension: str,
        probes: Sequence[Probe],
        candidates: Sequence[Candidate],
        declared: str,
        keep: str | None = None,
    ) -> Conclusion:
        """Judge every candidate on ``probes``; keep the best (see the module).

        Probes the engine did not run (its profile excludes them, or it
        declined them) are left out; with none left the dimension reads
        ``not supported``.
        """
        probes, skipped = self.runnable(probes)
        if not probes:
            return self.unsupported(dimension, declared, skipped)
        judged = {c.label: [self.judge(p, c) for p in probes] for c in candidates}
        explaining = tuple(label for label, js in judged.items() if all(j.passed for j in js))
        prefer = keep or declared

        def rank(c: Candidate) -> tuple[int, bool]:
            return (sum(j.score for j in judged[c.label]), c.label != prefer)

        best = min(candidates, key=rank)
        if explaining:
            best = next(
                c
                for c in candidates
                if c.label == (prefer if prefer in explaining else explaining[0])
            )
        # A value other than the declared one is a departure only when the
        # declared one does not explain the output too (``keep`` may prefer it).
        differs = best.label != declared and declared not in explaining
        differs = differs and bool(explaining) and dimension in CLASS_OF
        return Conclusion(
            dimension,
            best.label,
            declared,
            bool(explaining),
            dict(best.changes),
            explaining,
            tuple(judged[best.label]),
            CLASS_OF[dimension] if differs else None,
            skipped,
        )

    def runnable(self, probes: Sequence[Probe]) -> tuple[list[Probe], tuple[str, ...]]:
        """``probes`` the engine ran, and the names of those it did not."""
        ran = [p for p in probes if self.recorded[p.name].skipped is None]
        return ran, tuple(p.name for p in probes if p not in ran)

    def unsupported(self, dimension: str, declared: str, probes: Sequence[Any]) -> Conclusion:
        """A dimension whose probes the engine does not run: neither a value nor
        a departure (``probes``: the probes or their names)."""
        names = tuple(p if isinstance(p, str) else p.name for p in probes)
        if self.log is not None:
            self.log(f"{dimension}: {NOT_SUPPORTED}")
        return Conclusion(dimension, NOT_SUPPORTED, declared, None, skipped=names)

    def adopt(self, found: Conclusion) -> Conclusion:
        """Take ``found``'s value for the dimensions inferred after it."""
        self.base = replace(self.base, **found.changes)
        if self.log is not None:
            closest = "" if found.explained else " (closest; unexplained)"
            self.log(f"{found.dimension}: {found.value}{closest}")
        return found

    def judge(self, probe: Probe, candidate: Candidate) -> Judged:
        """The strict verdict on the probe's recorded output under ``candidate``."""
        recorded = self.recorded[probe.name]
        semantics = replace(self.base, lateness=recorded.registered.lateness)
        semantics = replace(semantics, **candidate.changes)
        kind = candidate.kind or self.counted_as.get(recorded.kind or "", recorded.kind)
        kind = kind if kind in COUNT_KINDS else None
        try:
            expected = self.oracle.expected(probe, semantics, candidate.r2s, kind)
        except UnsupportedQueryError as exc:  # a profile the oracle cannot compute
            return Judged(probe.name, False, note=f"the oracle cannot compute it: {exc}")
        trim = candidate.trim if candidate.trim is not None else self.trim

        def judged(trim: bool) -> Judged:
            return _judged(probe, recorded, expected, semantics, candidate.r2s, kind, trim)

        if trim is not None:
            return judged(trim)
        full = judged(False)
        if full.passed:
            return full
        cut = judged(True)
        return cut if cut.score < full.score else full


def _judged(
    probe: Probe,
    recorded: Recorded,
    expected: ExpectedOutput,
    semantics: Semantics,
    r2s: str | None,
    kind: str | None,
    trim: bool,
) -> Judged:
    from pytest_rspbench.runner import event_times, stream_events, term_times
    from pytest_rspbench.verdict.strict import assess

    if trim:
        expected = _trimmed(expected, probe.last_event)
    case = replace(case_of(probe, Path("engine.yaml")), query=probe.query(r2s, kind))
    stream = [probe.stream()]
    evidence = Evidence(
        event_times(stream),
        lambda terms: term_times(stream, terms),
        lambda: stream_events(stream),
    )
    verdict = assess(expected, recorded.actual, semantics, case, None, lambda: evidence)
    departures = verdict.departures
    if not verdict.passed and not departures:  # every window fits, the stream does not
        departures = (Departure("wrong-solutions", detail=verdict.difference or ""),)
    return Judged(probe.name, verdict.passed, departures, trim, verdict.narrowing)


def _trimmed(expected: ExpectedOutput, last_event: int) -> ExpectedOutput:
    """Without the relations only the end of the input can close (after the last event)."""
    classes = tuple(
        replace(c, relations=tuple(r for r in c.relations if r.time <= last_event))
        for c in expected.classes
    )
    return replace(expected, classes=classes)


def _honoured(base: tuple[str, ...], found: Sequence[Conclusion]) -> tuple[str, ...]:
    """RStream, and each other operator its probe found honoured."""
    ops = ["RStream", *(c.dimension.split()[1] for c in found if c.value == "honoured")]
    return tuple(op for op in ("RStream", "IStream", "DStream") if op in ops)


def _report_label(semantics: Semantics) -> str:
    active = ""
    if while_open(semantics):
        active = semantics.active_window
    return _report_text(semantics.report, semantics.empty_relations, active)


def _report_text(report: Sequence[str], empty: bool, active: str = "") -> str:
    """``window-close, non-empty-content; empty relations off``."""
    text = f"{', '.join(report)}; empty relations {'on' if empty else 'off'}"
    return text + (f"; active window {active}" if active else "")


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Fingerprint:
    """An engine's fingerprint: its declared and inferred profiles, and why."""

    engine: str
    declared: Semantics
    inferred: Semantics
    conclusions: tuple[Conclusion, ...]
    recorded: Mapping[str, Recorded]
    seconds: float = 0.0

    def conclusion(self, dimension: str) -> Conclusion:
        return next(c for c in self.conclusions if c.dimension == dimension)

    @property
    def departures(self) -> tuple[str, ...]:
        """Every departure class found, once, in the order of the conclusions."""
        names: list[str] = []
        for c in self.conclusions:
            found = [c.departure] if c.departure else []
            found += [d.name for _, d in c.departures]
            names += [n for n in found if n not in names]
        return tuple(names)


def infer(
    engine: str,
    recorded: Mapping[str, Recorded],
    declared: Semantics,
    oracle: Oracle,
    log: Callable[[str], None] | None = None,
) -> Fingerprint:
    """Every dimension's conclusion, in :data:`~.probes.DIMENSIONS` order."""
    missing = [p.name for p in PROBES if p.name not in recorded]
    if missing:
        raise ValueError(f"probes not recorded: {', '.join(missing)}")
    inference = Inference(recorded, declared, oracle, log)
    conclusions = inference.run()
    return Fingerprint(engine, declared, inference.base, tuple(conclusions), recorded)


def take(
    profile: EngineProfile,
    oracle: Oracle,
    folder: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> Fingerprint:
    """Run every probe once against the engine, then infer its profile.

    ``folder`` keeps each probe's raw results (``<probe>/results.jsonl``).
    """
    import time

    began = time.perf_counter()
    recorded = record_all(PROBES, profile, folder, log)
    found = infer(profile.name, recorded, profile.semantics, oracle, log)
    return replace(found, seconds=time.perf_counter() - began)
