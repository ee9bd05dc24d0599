"""Replay each probe once into the engine, through the runner's own replay.

The engine is registered with the semantics it declares, so it starts as it
would under a spec; a probe's ``pinned`` fields replace them only where the
engine declares them ``configurable`` (a spec's ``semantics:`` does the
same). Its raw output is recorded once; every candidate profile is judged
against that one recording (:mod:`.inference`). A probe the profile excludes
is not run: a window kind it does not list (``windows:``), an R2S operator
not in its ``r2s`` (and not ``configurable``), a construct its
``unsupported:`` lists (``two-windows``, ``aggregates``...). Nor is one the
engine declines at registration (an ``unsupported`` answer): its record says
why, and its dimension reads ``not supported``, never a departure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.profiles import EngineProfile
from pytest_rspbench.errors import EngineError
from pytest_rspbench.fingerprint.probes import STREAM, Probe
from pytest_rspbench.rsp.outputs import ActualOutput
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.runner import Prepared, replay
from pytest_rspbench.spec.model import Case, Comparison, StreamDecl

SPEC_NAME = "rspbench-fingerprint"
TIMEOUT = 60.0  # seconds per probe: a few events each


@dataclass(frozen=True)
class Recorded:
    """One probe's run: what the engine was registered with and what it did.

    ``kind`` is the window kind its query ran with (an ``either`` probe's
    choice); ``skipped`` says why it did not run (its output is then empty).
    """

    probe: Probe
    registered: Semantics
    actual: ActualOutput
    kind: str | None = None
    skipped: str | None = None

    @property
    def error(self) -> str | None:
        return self.actual.error

    @property
    def ran(self) -> bool:
        """Did the engine run the probe (not skipped, not refused with no output)?"""
        return self.skipped is None and not (self.error and not self.actual.received)


def kind_for(probe: Probe, profile: EngineProfile) -> str | None:
    """The window kind ``probe`` runs with on this engine (None: it lists none).

    >>> from pytest_rspbench.fingerprint.probes import BY_NAME
    >>> from pytest_rspbench.engine.profiles import resolve
    >>> kind_for(BY_NAME["count-bounds"], resolve("reference", Path.cwd()))
    'rows'
    """
    return next((k for k in probe.kinds if k in profile.semantics.windows), None)


def case_of(probe: Probe, engine: Path, kind: str | None = None) -> Case:
    """The probe as a strict :class:`Case` for ``engine`` (its engine.yaml),
    as a spec would give it (its count window counting ``kind`` when given)."""
    decl = StreamDecl(STREAM, {}, probe.start, probe.end, probe.disorder)
    return Case(
        spec_name=SPEC_NAME,
        spec_path=engine,
        case_id=probe.name,
        params=(),
        engine=str(engine),
        query=probe.query(kind=kind),
        streams=(decl,),
        static=(),
        semantics=dict(probe.pinned),
        speed=0.0,
        timeout=TIMEOUT,
        comparison=Comparison(mode="strict"),
        thresholds=(),
        mostly=1.0,
        warmup_windows=0,
        marks=(),
        line=1,
    )


def registered(probe: Probe, profile: EngineProfile) -> EngineProfile:
    """The profile the engine runs the probe under: its own, with the probe's
    pinned fields where it declares them configurable."""
    pinned = {k: v for k, v in probe.pinned.items() if k in profile.configurable}
    return profile.with_semantics(pinned)


def record(probe: Probe, profile: EngineProfile, folder: Path | None = None) -> Recorded:
    """Run ``probe`` once against the engine; engine faults end up in the output.

    Raises:
        EngineError: the engine cannot run here (a program it needs is missing).
    """
    import pytest

    runs_as = registered(probe, profile)
    kind = kind_for(probe, profile)
    reason = excluded(probe, profile, kind)
    if reason is not None:
        return Recorded(probe, runs_as.semantics, ActualOutput(profile.name), skipped=reason)
    case = case_of(probe, profile.path, kind)
    stream = probe.stream()
    text = probe.text(kind=kind)
    registration = Registration(text, (stream.iri,), probe.start, runs_as.semantics, ())
    prepared = Prepared(runs_as, [stream], [], {stream.iri: probe.start}, probe.end, registration)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    try:
        actual = replay(case, prepared, folder)
    except pytest.skip.Exception as exc:  # the runner skips an unavailable engine
        raise EngineError(f"{profile.name} cannot run here: {exc.msg}") from None
    if actual.unsupported is not None:
        said = f"{profile.name} answered unsupported: {actual.unsupported}"
        return Recorded(probe, runs_as.semantics, actual, kind, skipped=said)
    return Recorded(probe, runs_as.semantics, actual, kind)


def excluded(probe: Probe, profile: EngineProfile, kind: str | None) -> str | None:
    """Why the profile says the engine cannot run ``probe`` (None: it can).

    >>> from pytest_rspbench.fingerprint.probes import BY_NAME
    >>> from pytest_rspbench.engine.profiles import resolve
    >>> excluded(BY_NAME["istream"], resolve("reference", Path.cwd()), "time") is None
    True
    """
    from pytest_rspbench.rsp.constructs import used

    if kind is None:
        lacking = " or ".join(probe.kinds)
        return (
            f"windows: the probe uses {lacking} windows, {profile.name} supports "
            f"[{', '.join(profile.semantics.windows)}]"
        )
    constructs = used(probe.query(kind=kind)) if profile.unsupported else frozenset()
    reasons = profile.departures({}, probe.r2s, (kind,), constructs)
    return "; ".join(reasons) or None


def record_all(
    probes: tuple[Probe, ...], profile: EngineProfile, folder: Path | None = None, log: Any = None
) -> dict[str, Recorded]:
    """Every probe once, in order; ``log(text)`` hears of each."""
    out = {}
    for probe in probes:
        out[probe.name] = record(probe, profile, folder / probe.name if folder else None)
        if log is not None:
            got = out[probe.name].actual
            said = (
                f"not run: {out[probe.name].skipped}"
                if out[probe.name].skipped
                else f"error: {got.error.splitlines()[0]}"
                if got.error
                else f"{len(got.received)} result(s)"
            )
            log(f"probe {probe.name}: {said}")
    return out
