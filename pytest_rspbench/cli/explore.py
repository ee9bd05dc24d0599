"""``rspbench explore``: generated cases against the oracle, failures written as specs."""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
from pathlib import Path
from typing import Any

from pytest_rspbench.cli.engines import add_engine_argument

DEFAULT_BUDGET = 300.0
CASE_LIMIT = 180.0  # seconds a case may run before the oracle's JVM is killed
# Half the cores, 1 to 4: the JVM analyses and plans each case's query on a
# core of its own, and the engine and the verdict run in this process. On 2
# cores two at once gained nothing (60 cases in 128 s against 119 s, docs/explore.md).
DEFAULT_JOBS = max(1, min(4, (os.cpu_count() or 1) // 2))


def add_commands(commands: Any) -> None:
    """Register ``rspbench explore`` on the top-level subparsers."""
    from pytest_rspbench.cli.warm import add_warm_argument

    command = commands.add_parser(
        "explore",
        help="generate cases within an engine's profile, judge them with the oracle, "
        "write each kind of failure as a minimal spec",
        description="Differential exploration: generate random streams and RSP-QL "
        "queries within what the engine's profile declares, run each against the "
        "engine and judge it with the oracle (strict verdict over every t0), group the "
        "failures by departure class and query constructs, and write the first of "
        "each group, shrunk, as a ready-to-run spec (pytest DIR --rspbench-engine "
        "ENGINE). Failures found before are replayed first. See docs/explore.md.",
    )
    add_engine_argument(command)
    command.add_argument(
        "--budget",
        type=_seconds,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help="how long to explore, Spark's start not counted; a failure found at the "
        f"end is still written (default: {DEFAULT_BUDGET:g})",
    )
    command.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="the run's seed: the same seed explores the same cases (default: a random "
        "one, printed)",
    )
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="the folder for the written specs, suspects/, explore.json and the failure "
        "database explore-db.json (default: explore-<engine name>)",
    )
    command.add_argument(
        "--literal-equality",
        choices=("term", "value"),
        default="term",
        help="how literals in solutions compare: term (lexical form and datatype, as "
        "a spec compares by default) or value (other lexical forms of one number are "
        "equal: engines format computed numbers differently) (default: term)",
    )
    command.add_argument(
        "--cases",
        type=_count,
        metavar="N",
        help="stop after N cases, or when the budget runs out if that comes first: "
        "with a budget that does not run out, the run is the same on any machine "
        "(default: no limit)",
    )
    command.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=DEFAULT_JOBS,
        metavar="N",
        help="cases run at once on the one Spark session; the same seed finds and "
        f"writes the same failures whatever N is (default: {DEFAULT_JOBS}, half the "
        "machine's cores, 1 to 4)",
    )
    command.add_argument(
        "--spark-master", default="local[*]", help="Spark master (default: local[*])"
    )
    add_warm_argument(command, run=True)
    command.set_defaults(run=run)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of cases") from None
    if value < 1:
        raise argparse.ArgumentTypeError("--cases takes 1 or more")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of jobs") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("--jobs takes 1 to 64")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("the budget must be above 0 seconds")
    return value


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.cli.warm import RUN, RUN_IDLE, notice
    from pytest_rspbench.engine.adapters import RecordedAdapter
    from pytest_rspbench.errors import RspbenchError
    from pytest_rspbench.explore.exploration import Exploration, Settings
    from pytest_rspbench.explore.report import Progress, last_line, table, write_record
    from pytest_rspbench.explore.scope import refused
    from pytest_rspbench.explore.trials import Guard
    from pytest_rspbench.oracle.spark import SparkProvider

    profile, engine = _engine(args.engine)
    if isinstance(profile.config, RecordedAdapter):
        raise RspbenchError(
            f"engine {profile.name!r} gives recorded answers, which do not depend on the "
            "input explore generates.\nHINT: explore the engine that recorded them."
        )
    why = refused(profile.semantics)
    if why is not None:
        raise RspbenchError(
            f"cannot explore {profile.name}: {why}.\n"
            "HINT: explore it under another profile (a copy of its engine.yaml)."
        )
    folder = args.output or Path(f"explore-{profile.name}")
    if folder.exists() and not folder.is_dir():
        raise RspbenchError(
            f"--output {folder}: it is a file, not a folder.\n"
            "HINT: name a folder (it is created if missing)."
        )
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    command = _command(args, seed)
    settings = Settings(
        engine, folder, seed, args.budget, command, args.literal_equality, args.jobs, args.cases
    )
    progress = Progress(profile.name)
    print(f"explore {profile.name} ({profile.path}), seed {seed}: {command}", file=sys.stderr)
    for_run = args.warm_spark == RUN
    warm = RUN_IDLE if for_run else args.warm_spark
    provider = SparkProvider(args.spark_master, warm=warm, warm_for_run=for_run, say=notice)
    with provider.used():
        session = _small_session(provider)
        session()  # before the budget's clock starts
        guard = Guard(CASE_LIMIT, provider.kill)
        exploration = Exploration(profile, settings, session, progress, guard)
        try:
            outcome = exploration.run()
        finally:
            progress.done()
    path = write_record(outcome, provider.startup_seconds)
    if outcome.groups.all:
        print(table(outcome))
    suspects = [g for g in outcome.groups.all if g.suspect]
    if suspects:
        print(
            f"SUSPECTS: {len(suspects)} counterexample(s) fail on the reference engine too "
            f"(under {folder / 'suspects'}): the oracle or the reference engine is wrong there."
        )
    print(f"-> {path}", file=sys.stderr)
    print(last_line(outcome))
    return 1 if outcome.failures or any(g.known for g in outcome.groups.all) else 0


def _small_session(provider: Any) -> Any:
    """``provider.get`` whose sessions keep the settings for small inputs (every
    explored case is small), also a session started after a JVM was killed."""
    from pytest_rspbench.oracle.spark.sizing import keep_small

    settled: list[Any] = [None]

    def session() -> Any:
        spark = provider.get()
        if spark is not settled[0]:
            keep_small(spark)
            settled[0] = spark
        return spark

    return session


def _engine(name: str) -> tuple[Any, str]:
    """The profile, and the engine as --rspbench-engine takes it (a path made absolute)."""
    from pytest_rspbench.engine.profiles import resolve
    from pytest_rspbench.errors import EngineConfigError

    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise EngineConfigError(
                f"engine profile {name!r} not found (looked at {path.resolve()}).\n"
                "HINT: give a registered engine name (rspbench engines) or the path "
                "of an engine.yaml, relative to the current folder."
            )
        return resolve(str(path.resolve()), Path.cwd()), str(path.resolve())
    return resolve(name, Path.cwd()), name


def _command(args: argparse.Namespace, seed: int) -> str:
    parts = ["rspbench", "explore", "-e", args.engine, "--seed", str(seed)]
    parts += ["--budget", f"{args.budget:g}"]
    if args.cases is not None:
        parts += ["--cases", str(args.cases)]
    if args.literal_equality != "term":
        parts += ["--literal-equality", args.literal_equality]
    if args.output is not None:
        parts += ["-o", os.fspath(args.output)]
    return shlex.join(parts)
