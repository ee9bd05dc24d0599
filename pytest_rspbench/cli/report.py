"""``rspbench report RESULTS.json -o report.html``: a report without re-running.

Also ``--compare BASELINE.json`` to print what changed between two results
files, with the same rules as ``--rspbench-compare-fail`` (exit status 1 on
a regression), for CI jobs that keep results files as build artifacts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_commands(commands: Any) -> None:
    """Register ``rspbench report`` on the top-level subparsers."""
    report = commands.add_parser(
        "report",
        help="render an HTML report from a results file (--rspbench-json)",
        description="Render the same per-item charts and tables as the pytest-html "
        "report, from a results file, as one standalone HTML page (no script).",
    )
    report.add_argument("results", type=Path, help="a results file written with --rspbench-json")
    report.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("report.html"),
        help="the HTML file to write (default: report.html)",
    )
    report.add_argument(
        "--compare",
        metavar="BASELINE.json",
        type=Path,
        help="also print what changed against this results file (default: none)",
    )
    report.add_argument(
        "--fail",
        action="append",
        default=[],
        metavar="EXPR",
        help="with --compare: exit 1 on a regression such as recall:-0.01 or "
        "delay.p95:+20%% (repeatable; default: none)",
    )
    report.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.report import page, results

    doc = results.load(args.results)
    size = page.write(doc, args.output)
    items = len(doc.get("items") or ())
    print(f"{args.output}: {items} item(s), {size / 1024:.0f} KiB")
    if args.compare is None:
        return 0
    from pytest_rspbench.report.baseline import compare, lines, parse_rule

    rules = [parse_rule(text) for text in args.fail]
    comparison = compare(results.load(args.compare), doc, rules, args.compare.name, args.compare)
    for line in lines(comparison):
        print(line)
    return 1 if comparison.regressions else 0


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="rspbench")
    add_commands(parser.add_subparsers())
    namespace = parser.parse_args()
    sys.exit(namespace.run(namespace))
