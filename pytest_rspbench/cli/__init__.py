"""The ``rspbench`` command line.

    rspbench validate SPEC...     check specs without running anything
    rspbench engines              list the engines that specs can name
    rspbench stream ...           generate streams, show their statistics
    rspbench oracle --spec SPEC   expected output of a case, no engine run
    rspbench report RESULTS.json  an HTML report from a results file
    rspbench matrix -e A -e B ... one suite against several engines, as a table
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rspbench", description="pytest-rspbench tools")
    parser.add_argument("--version", action="version", version=f"pytest-rspbench {__version__}")
    commands = parser.add_subparsers(title="commands")
    validate = commands.add_parser("validate", help="check spec files and list their cases")
    validate.add_argument("specs", nargs="+", type=Path)
    validate.set_defaults(run=_validate)
    engines = commands.add_parser("engines", help="list registered engines and their semantics")
    engines.set_defaults(run=_engines)
    _add_stream_commands(commands)
    return parser


def _add_stream_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from pytest_rspbench.cli.oracle import add_commands as add_oracle

    try:
        from pytest_rspbench.cli.stream import add_commands as add_stream
    except ImportError:  # the stream commands land with the streams work
        pass
    else:
        add_stream(commands)
    add_oracle(commands)
    from pytest_rspbench.cli.report import add_commands as add_report

    add_report(commands)
    from pytest_rspbench.report.matrix import add_commands as add_matrix

    add_matrix(commands)


def _matrix_run() -> object:
    from pytest_rspbench.report.matrix import run

    return run


def _validate(args: argparse.Namespace) -> int:
    from pytest_rspbench.engine.profiles import locate
    from pytest_rspbench.spec.loader import load_spec

    failed = 0
    for path in args.specs:
        try:
            spec = load_spec(path, check_engine=locate)
        except RspbenchError as exc:
            print(exc, file=sys.stderr)
            failed += 1
            continue
        print(f"{path}: ok, {len(spec.cases)} case(s)")
        for case in spec.cases:
            print(f"  {spec.name}[{case.case_id}]")
    return 1 if failed else 0


def _engines(args: argparse.Namespace) -> int:
    from pytest_rspbench.engine.profiles import registered, resolve

    for name in sorted(registered()):
        profile = resolve(name, Path.cwd())
        s = profile.semantics
        print(f"{name}: {profile.description}")
        print(f"  bounds {s.bounds}, t0 {s.t0}, report {'+'.join(s.report)}, tick {s.tick}, "
              f"r2s {'/'.join(s.r2s)}, empty relations {'on' if s.empty_relations else 'off'}")
        print(f"  profile: {profile.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
