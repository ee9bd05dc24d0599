"""``rspbench fingerprint``: infer an engine's semantics from its output."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pytest_rspbench.cli.engines import add_engine_argument


def add_commands(commands: Any) -> None:
    """Register ``rspbench fingerprint`` on the top-level subparsers."""
    command = commands.add_parser(
        "fingerprint",
        help="infer an engine's semantics from its output on bundled probes",
        description="Run the bundled probe suite (tiny streams where RSP engines "
        "differ) against an engine once, whatever profile it declares, and infer "
        "with the oracle which semantics explain its output: bounds, t0, report "
        "policy, R2S operators honoured, empty relations, flush at the end, "
        "lateness, and for count and session windows the unit counted, the order, "
        "ties, ramp-up, tick and bounds, the session gap rule and bounds (a window "
        "kind the engine does not list reads 'not supported'). Prints a table and "
        "writes profile.yaml (an engine.yaml "
        "semantics fragment), departures.json and probes.json. See "
        "docs/fingerprint.md.",
    )
    add_engine_argument(command)
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="the folder for profile.yaml, departures.json, probes.json and each "
        "probe's raw results (default: fingerprint-<engine name>)",
    )
    command.add_argument(
        "--spark-master", default="local[*]", help="Spark master (default: local[*])"
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.engine.profiles import resolve
    from pytest_rspbench.errors import EngineConfigError, RspbenchError
    from pytest_rspbench.fingerprint import report
    from pytest_rspbench.fingerprint.inference import Oracle, take
    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.store.streamcache import ENV, stream_cache

    name = args.engine
    if name.endswith((".yaml", ".yml")) or "/" in name:
        if not Path(name).is_file():
            raise EngineConfigError(
                f"engine profile {name!r} not found (looked at {Path(name).resolve()}).\n"
                "HINT: give a registered engine name (rspbench engines) or the path "
                "of an engine.yaml, relative to the current folder."
            )
    profile = resolve(name, Path.cwd())
    folder = args.output or Path(f"fingerprint-{profile.name}")
    if folder.exists() and not folder.is_dir():
        raise RspbenchError(
            f"--output {folder}: it is a file, not a folder.\n"
            "HINT: name a folder (it is created if missing)."
        )
    provider = SparkProvider(args.spark_master)
    oracle = Oracle(provider.get, stream_cache(args.spark_master, os.environ.get(ENV)))

    def log(text: str) -> None:
        print(f"  {text}", file=sys.stderr)

    print(f"fingerprint of {profile.name} ({profile.path})", file=sys.stderr)
    with provider.used():
        found = take(profile, oracle, folder / "raw", log)
    print(report.table(found))
    for item in report.departures(found):
        probes = ", ".join(item["probes"])
        print(f"departure {item['class']} ({item['kind']}): {item['title']}; probes {probes}")
    paths = report.write(found, folder)
    print(
        f"{len(found.recorded)} probes, {oracle.calls} oracle computation(s), "
        f"{found.seconds:.1f} s -> " + ", ".join(str(p) for p in paths),
        file=sys.stderr,
    )
    return 0
