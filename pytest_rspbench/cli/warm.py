"""``--warm-spark IDLE``: the warm Spark option of the commands that run the oracle."""

from __future__ import annotations

import argparse
import os
import sys

WARM_ENV = "RSPBENCH_WARM_SPARK"


RUN = "run"
"""``--warm-spark run`` (``rspbench explore``'s default): a Spark Connect
server for this run only, ended with it (a warm one already running is used)."""

RUN_IDLE = 120.0
"""The idle time of a server started for one run, should the run die before
it ends the server."""


def add_warm_argument(parser: argparse.ArgumentParser, run: bool = False) -> None:
    """``--warm-spark IDLE`` on a command that runs the oracle; with ``run``,
    the command also takes ``run``, its default."""
    default = os.environ.get(WARM_ENV, RUN if run else "off")
    text = (
        "with the local master, use a warm Spark: the first run starts a Spark "
        "Connect server on 127.0.0.1 that later runs reuse and that stops after IDLE "
        "without use (e.g. 10m; `rspbench spark stop` stops it now)"
    )
    if run:
        text += (
            "; `run`: a Spark Connect server for this run only, ended with it (a warm "
            "one already running is used), which builds each case's plan about twice "
            "as fast as Spark in this process; off: Spark in this process"
        )
    parser.add_argument(
        "--warm-spark",
        type=_idle_or_run if run else _idle,
        default=default,
        metavar="IDLE",
        help=f"{text} (default: ${WARM_ENV}, else {RUN if run else 'off'})",
    )


def _idle_or_run(text: str) -> float | str | None:
    if text.strip().lower() == RUN:
        return RUN
    return _idle(text)


def _idle(text: str) -> float | None:
    from pytest_rspbench.oracle.spark.warmstate import parse_idle

    try:
        return parse_idle(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{exc} (from --warm-spark or ${WARM_ENV}); e.g. 10m, or off"
        ) from None


def notice(text: str) -> None:
    """A warm Spark's one line, on stderr (stdout may be the output)."""
    print(f"rspbench: {text}", file=sys.stderr, flush=True)
