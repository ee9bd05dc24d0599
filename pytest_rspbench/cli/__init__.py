"""The ``rspbench`` command line.

    rspbench validate PATH...     check specs and engine.yaml files, run nothing
    rspbench engines              list the engines that specs can name
    rspbench stream ...           generate streams, list generators, statistics
    rspbench oracle SPEC          expected output of a case, no engine run
    rspbench cache info|prune     what the oracle's cache folder holds; prune it
    rspbench spark serve          a warm Spark (Connect server) for many oracle runs
    rspbench report RESULTS.json  an HTML report from a results file
    rspbench matrix -e A -e B ... one suite against several engines, as a table
    rspbench fingerprint -e ENGINE infer an engine's semantics from bundled probes
    rspbench explore -e ENGINE    generated cases against the oracle; failures as specs
    rspbench schema [spec|engine] the JSON Schema's path, for editors
    rspbench init [DIR]           an engine repository made ready: engine.yaml, specs, CI

Each command lives in its own module and registers itself with
``add_commands``; nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pytest_rspbench import __version__
from pytest_rspbench.errors import RspbenchError


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:  # what follows goes to pytest (rspbench matrix)
        argv, extra = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    args = parser.parse_args(argv)
    if extra and getattr(args, "run", None) is not _matrix_run():
        parser.error("arguments after -- are only for `rspbench matrix`")
    args.pytest_args = extra
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except RspbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `rspbench stream generate ... | head`: the reader left
        # Python flushes stdout again at exit; point it at /dev/null so that
        # flush cannot fail too (the Python docs' SIGPIPE recipe).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a closed pipe


def _parser() -> argparse.ArgumentParser:
    from pytest_rspbench.cli import (
        cache,
        engines,
        explore,
        fingerprint,
        init,
        oracle,
        report,
        schema,
        spark,
        stream,
        validation,
    )
    from pytest_rspbench.report import matrix

    parser = argparse.ArgumentParser(
        prog="rspbench",
        description="Tools of pytest-rspbench: check specs and engine profiles, "
        "compute expected outputs, generate streams, render reports. "
        "`rspbench COMMAND -h` describes each.",
    )
    parser.add_argument("--version", action="version", version=f"pytest-rspbench {__version__}")
    commands = parser.add_subparsers(title="commands")
    for module in (
        validation,
        engines,
        stream,
        oracle,
        cache,
        spark,
        report,
        matrix,
        fingerprint,
        explore,
        schema,
        init,
    ):
        module.add_commands(commands)
    return parser


def _matrix_run() -> object:
    from pytest_rspbench.report.matrix import run

    return run


if __name__ == "__main__":
    sys.exit(main())
