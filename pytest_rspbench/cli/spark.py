"""``rspbench spark serve``, ``status``, ``stop``: one warm Spark for many oracle runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_commands(commands: Any) -> None:
    """Register ``rspbench spark serve`` on the top-level subparsers."""
    from pytest_rspbench.cli.oracle import _setting

    spark = commands.add_parser(
        "spark",
        help="keep a Spark running for the oracle (a Spark Connect server)",
        description="Spark for the oracle, outside any one command.",
    )
    actions = spark.add_subparsers(title="actions")
    serve = actions.add_parser(
        "serve",
        help="run a Spark Connect server on loopback until Ctrl-C",
        description="Start a Spark Connect server on 127.0.0.1 and keep it running "
        "until Ctrl-C. `rspbench oracle --spark-master sc://127.0.0.1:PORT` and "
        "`pytest --rspbench-spark-master sc://127.0.0.1:PORT` then run the oracle on "
        "it: no Spark start and no cold JVM per call. It uses the Java, driver "
        "memory and stream cache the oracle's local mode uses.",
    )
    serve.add_argument(
        "--port", type=_port, default=15002, help="the port to listen on (default: 15002)"
    )
    serve.add_argument(
        "--master",
        default="local[*]",
        help="where the server runs its jobs: local[N], or a standalone cluster on this "
        "machine, spark://127.0.0.1:port (default: local[*])",
    )
    serve.add_argument(
        "--spark-conf",
        action="append",
        type=_setting,
        metavar="KEY=VALUE",
        help="a setting of the server, e.g. spark.driver.memory=12g (repeatable; "
        "default: the oracle's own, a quarter of the machine's memory as heap)",
    )
    serve.set_defaults(run=run_serve)
    status = actions.add_parser(
        "status",
        help="show the warm Spark (--warm-spark, --rspbench-warm-spark), if one runs",
        description="Show the warm Spark that oracle runs started and reuse: its "
        "address, process, start, last use and when it stops by itself. Exit code 0 "
        "when one runs and can be used, else 1.",
    )
    status.set_defaults(run=run_status)
    stop = actions.add_parser(
        "stop",
        help="stop the warm Spark now",
        description="Stop the warm Spark that oracle runs started (--warm-spark, "
        "--rspbench-warm-spark) and remove its state file. A run under way on it fails.",
    )
    stop.set_defaults(run=run_stop)
    spark.set_defaults(run=lambda args: _usage(spark))


def run_status(args: argparse.Namespace) -> int:
    from pytest_rspbench.oracle.spark.warm import status

    code, text = status()
    print(text)
    return code


def run_stop(args: argparse.Namespace) -> int:
    from pytest_rspbench.oracle.spark.warm import stop

    print(stop())
    return 0


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port is a number from 1 to 65535")
    return port


def run_serve(args: argparse.Namespace) -> int:
    from pytest_rspbench.oracle.spark.server import ConnectServer, serve

    conf = dict(args.spark_conf or ())
    memory = conf.pop("spark.driver.memory", None)
    server = ConnectServer(port=args.port, master=args.master, driver_memory=memory, conf=conf)
    return serve(server, lambda text: print(text, flush=True, file=sys.stdout))
