"""Differential exploration: generated cases against the exact oracle, within a budget.

One exploration, for one engine:

1. replay the failure database's entries for the engine
   (:mod:`.database`): a fixed bug is confirmed fixed, one still there seeds
   its group;
2. until the budget runs out, generate case 0, 1, 2, ... (:mod:`.cases`,
   bounded by the profile: :mod:`.scope`), run each through the runner
   (:mod:`.trials`) and sort it: passed, refused by the oracle, failed (into
   a group, :mod:`.groups`), or an oracle error;
3. the first failure of each new group is reduced, shrunk, checked and
   written (:mod:`.written`); later ones only count. A failure found when
   the budget is nearly out is still written: the budget is checked before
   each case, and writing gets at least a few seconds.

Spark is started once, before the budget's clock starts, and every oracle
computation of the exploration runs on it. ``jobs`` cases run at once on
that one session (Spark runs concurrent jobs; most of a tiny case's time is
the JVM planning its query, which then uses both cores); their outcomes are
taken in case order, so a seed finds, groups and writes the same failures
whatever ``jobs`` is. A case whose run was cut short by the guard killing the
JVM under another case is run again on its own.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.profiles import EngineProfile
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.explore import database
from pytest_rspbench.explore.cases import Generated, from_json, generate, materialize, to_json
from pytest_rspbench.explore.groups import ORACLE, Group, Groups
from pytest_rspbench.explore.scope import Scope, scope_of
from pytest_rspbench.explore.trials import ORACLE_ERROR, Guard, Tried, attempt, attempt_spec
from pytest_rspbench.explore.written import Work, reduce, write, write_error
from pytest_rspbench.rsp.constructs import used
from pytest_rspbench.spec.model import Comparison

WRITING = 90.0  # seconds at most to reduce, shrink and check one group's first failure
WRITING_LEAST = 20.0  # ... and at least this many, even past the budget


@dataclass(frozen=True)
class Settings:
    """What one exploration is asked to do.

    Attributes:
        engine: the engine as ``--rspbench-engine`` takes it (a registered
            name, or the absolute path of an engine.yaml).
        folder: where counterexamples, the database and explore.json go.
        seed: the run's seed (case ``n`` is drawn from ``seed`` and ``n``).
        budget: seconds of exploring, Spark's start not counted.
        command: the command line, quoted in each written spec.
        literal_equality: the comparison's literal equality: "term" (the
            default of specs) or "value" (other lexical forms of one number
            are equal).
        jobs: how many cases run at once.
        cases: at most this many cases (None: as many as the budget allows);
            with a budget that does not run out first, the run does not
            depend on the machine's speed.
    """

    engine: str
    folder: Path
    seed: int
    budget: float
    command: str = "rspbench explore"
    literal_equality: str = "term"
    jobs: int = 1
    cases: int | None = None

    @property
    def comparison(self) -> Comparison:
        """How every case is judged: strictly, over every t0 class."""
        return Comparison(mode="strict", literal_equality=self.literal_equality)


@dataclass
class Outcome:
    """What an exploration did; the report reads it."""

    settings: Settings
    profile: str
    scope: Scope
    cases: int = 0
    passed: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    groups: Groups = field(default_factory=Groups)
    replayed: list[tuple[database.Entry, str]] = field(default_factory=list)
    seconds: float = 0.0
    size: int = 0

    @property
    def failures(self) -> int:
        return self.groups.failures()

    @property
    def refusals(self) -> int:
        return sum(self.refused.values())


class Exploration:
    """One exploration of ``profile``; :meth:`run` does it all."""

    def __init__(
        self,
        profile: EngineProfile,
        settings: Settings,
        spark: Callable[[], Any],
        progress: Any = None,
        guard: Guard | None = None,
    ) -> None:
        self.profile = profile
        self.settings = settings
        self.kills = 0  # JVMs the guard killed: a case running beside such a kill runs again
        self.guard = guard if guard is None else Guard(guard.seconds, self._killer(guard.kill))
        self.spark = _serialized(spark)
        self.progress = progress
        self.outcome = Outcome(settings, profile.name, scope_of(profile))
        self.began = time.monotonic()
        self.entries = database.load(settings.folder)

    def run(self) -> Outcome:
        """Replay the database, explore until the budget is out, save the database."""
        began = self.began = time.monotonic()
        deadline = began + self.settings.budget
        scratch = Path(tempfile.mkdtemp(prefix="rspbench-explore-"))
        try:
            self._replay(scratch)
            self._explore(scratch, deadline)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            self.outcome.seconds = time.monotonic() - began
            database.save(self.settings.folder, self.entries)
        return self.outcome

    def _elapsed(self) -> float:
        return time.monotonic() - self.began

    # -- the cases ----------------------------------------------------------

    def _explore(self, scratch: Path, deadline: float) -> None:
        """Cases 0, 1, 2, ... until the deadline, ``jobs`` at a time, sorted in order."""
        jobs = max(1, self.settings.jobs)
        running: deque[tuple[Generated, Path, int, Future[Tried]]] = deque()
        number = 0
        with ThreadPoolExecutor(jobs, thread_name_prefix="rspbench-explore") as pool:
            while True:
                while len(running) < jobs and self._more(number, deadline):
                    generated = generate(self.settings.seed, number, self.outcome.scope)
                    folder = scratch / f"case-{number}"
                    case = materialize(
                        generated, folder, self.settings.engine, self.settings.comparison
                    )
                    future = pool.submit(attempt, case, self.spark, self.guard)
                    running.append((generated, folder, self.kills, future))
                    number += 1
                if not running:
                    return
                generated, folder, kills, future = running.popleft()
                tried = future.result()
                if self._cut_short(tried, kills):
                    tried = attempt(
                        materialize(
                            generated, folder, self.settings.engine, self.settings.comparison
                        ),
                        self.spark,
                        self.guard,
                    )
                self._case(generated, tried, deadline, scratch)
                shutil.rmtree(folder, ignore_errors=True)
                self.outcome.seconds = time.monotonic() - self.began
                self._show(deadline)

    def _more(self, number: int, deadline: float) -> bool:
        """Is there time (and, with a case limit, a case left) for case ``number``?"""
        limit = self.settings.cases
        return time.monotonic() < deadline and (limit is None or number < limit)

    def _cut_short(self, tried: Tried, kills: int) -> bool:
        """Did the guard kill the JVM under this case for another case's sake?"""
        return tried.outcome == "error" and tried.departure == ORACLE_ERROR and self.kills > kills

    def _killer(self, kill: Callable[[], bool]) -> Callable[[], bool]:
        def counted() -> bool:
            killed = kill()
            if killed:
                self.kills += 1
            return killed

        return counted

    def _case(self, generated: Generated, tried: Tried, deadline: float, scratch: Path) -> None:
        outcome = self.outcome
        outcome.cases += 1
        outcome.size = generated.plan.size
        if tried.outcome == "passed":
            outcome.passed += 1
        elif tried.outcome == "refused":
            outcome.refused[tried.verdict] = outcome.refused.get(tried.verdict, 0) + 1
        else:
            self._failed(generated, tried, tried.departure, deadline, scratch)

    def _failed(
        self, generated: Generated, tried: Tried, departure: str, deadline: float, scratch: Path
    ) -> None:
        groups = self.outcome.groups
        constructs = used(parsed_query(generated))
        group = groups.find(departure, constructs)
        if group is not None:
            group.cases.append(generated.number)
            return
        work = self._work(scratch, deadline)
        if departure not in ORACLE:
            generated, tried, _ = reduce(work, generated, tried)
            constructs = used(parsed_query(generated))
            group = groups.find(departure, constructs)
            if group is not None:
                group.cases.append(generated.number)
                return
        group = groups.add(departure, constructs, tried.verdict)
        group.cases.append(generated.number)
        group.found = self._elapsed()
        self._say(f"failure: {group.label} in case {generated.number}: {tried.verdict}")
        try:
            if departure in ORACLE:
                write_error(work, group, generated)
            else:
                write(work, group, generated, tried)
        except RspbenchError as exc:  # the spec written does not load: explore's own bug
            group.note = f"not written: {str(exc).splitlines()[0]}"
        self._said(group)
        self._record(group, generated)

    def _work(self, scratch: Path, deadline: float) -> Work:
        left = max(WRITING_LEAST, min(WRITING, deadline - time.monotonic()))
        return Work(
            self.settings.engine,
            self.settings.folder,
            scratch,
            self.spark,
            time.monotonic() + left,
            self.settings.command,
            self.settings.comparison,
            self.guard,
        )

    # -- the failure database ----------------------------------------------------

    def _replay(self, scratch: Path) -> None:
        """Run every entry of this engine again, first."""
        for entry in database.of_engine(self.entries, self.profile.name):
            tried = self._again(entry, scratch)
            entry.status = _status(tried)
            entry.checked = database.now()
            self.outcome.replayed.append((entry, entry.status))
            self._say(f"replayed {entry.spec}: {entry.status}" + _why(tried))
            if tried is not None and tried.outcome != "passed":
                group = self.outcome.groups.add(
                    tried.departure or entry.departure, frozenset(entry.constructs), tried.verdict
                )
                group.known, group.suspect = True, entry.suspect
                group.spec = self.settings.folder / entry.spec
                group.cases.append(None)

    def _again(self, entry: database.Entry, scratch: Path) -> Tried | None:
        """The entry's spec run again (or its case, when the spec is gone)."""
        path = self.settings.folder / entry.spec
        if path.is_file():
            return attempt_spec(path, self.settings.engine, self.spark, self.guard)
        if entry.case:
            generated = from_json(entry.case)
            folder = scratch / "replay"
            case = materialize(generated, folder, self.settings.engine, self.settings.comparison)
            return attempt(case, self.spark, self.guard)
        return None

    def _record(self, group: Group, generated: Generated) -> None:
        if group.spec is None:
            return
        spec = str(group.spec.relative_to(self.settings.folder))
        self.entries = [
            e for e in self.entries if not (e.engine == self.profile.name and e.spec == spec)
        ]
        self.entries.append(
            database.Entry(
                engine=self.profile.name,
                departure=group.departure,
                constructs=sorted(group.constructs),
                spec=spec,
                case=to_json(generated),
                found=database.now(),
                checked=database.now(),
                suspect=group.suspect,
                verdict=group.verdict,
            )
        )

    # -- what is shown ------------------------------------------------------------

    def _show(self, deadline: float) -> None:
        if self.progress is not None:
            self.progress.update(self.outcome, deadline - time.monotonic())

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.say(text)

    def _said(self, group: Group) -> None:
        where = group.spec if group.spec is not None else "nothing written"
        self._say(f"  -> {where}" + (f" ({group.note})" if group.note else ""))
        if group.suspect:
            self._say(
                "  !! SUSPECT: this counterexample fails on the reference engine too: "
                "the oracle or the reference engine is wrong here, not only the engine."
            )


def _serialized(spark: Callable[[], Any]) -> Callable[[], Any]:
    """``spark`` called by one thread at a time: a JVM that died is replaced once."""
    lock = threading.Lock()

    def get() -> Any:
        with lock:
            return spark()

    return get


def parsed_query(generated: Generated) -> Any:
    """The parsed query of ``generated``: what :func:`.constructs.used` reads."""
    from pytest_rspbench.rsp.rspql import parse

    return parse(generated.query.text)


def _status(tried: Tried | None) -> str:
    if tried is None:
        return "missing"
    return "fixed" if tried.outcome == "passed" else "failing"


def _why(tried: Tried | None) -> str:
    if tried is None or tried.outcome == "passed":
        return ""
    return f" ({tried.verdict})"
