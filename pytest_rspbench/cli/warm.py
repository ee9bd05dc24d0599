"""``--warm-spark IDLE``: the warm Spark option of the commands that run the oracle."""

from __future__ import annotations

import argparse
import os
import sys

WARM_ENV = "RSPBENCH_WARM_SPARK"


def add_warm_argument(parser: argparse.ArgumentParser) -> None:
    """``--warm-spark IDLE`` on a command that runs the oracle."""
    parser.add_argument(
        "--warm-spark",
        type=_idle,
        default=os.environ.get(WARM_ENV, "off"),
        metavar="IDLE",
        help="with the local master, use a warm Spark: the first run starts a Spark "
        "Connect server on 127.0.0.1 that later runs reuse and that stops after IDLE "
        "without use (e.g. 10m; `rspbench spark stop` stops it now) (default: "
        f"${WARM_ENV}, else off)",
    )


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
