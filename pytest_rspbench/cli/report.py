"""``rspbench report``: reports from results files, without re-running.

    rspbench report RESULTS.json -o report.html     the standalone HTML report
    rspbench report --conformance R.json... -o DIR  the conformance report
    rspbench report --compare A.json B.json         what changed from A to B

``--compare`` says which items changed outcome and why (departure classes
gained or lost), and what changed in the metrics, with the same rules as
``--rspbench-compare-fail``; the exit status is 1 when something got worse
(an outcome, or a metric beyond ``--fail``), for CI jobs that keep results
files as build artifacts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import RspbenchError


class ReportUsageError(RspbenchError, ValueError):
    """``rspbench report`` called with arguments that do not fit together."""


def add_commands(commands: Any) -> None:
    """Register ``rspbench report`` on the top-level subparsers."""
    report = commands.add_parser(
        "report",
        help="render a report from results files (--rspbench-json): HTML, "
        "conformance (EARL, page, badge), or a comparison",
        description="Render the same per-item charts and tables as the pytest-html "
        "report, from a results file, as one standalone HTML page (no script); "
        "with --conformance, the conformance report of one or several engines' "
        "results files; with --compare, what changed between two results files.",
    )
    report.add_argument(
        "results",
        type=Path,
        nargs="*",
        metavar="RESULTS.json",
        help="results files written with --rspbench-json (several with --conformance)",
    )
    report.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the HTML file to write, or with --conformance the folder "
        "(default: report.html; conformance)",
    )
    report.add_argument(
        "--conformance",
        action="store_true",
        help="write the conformance report to the -o folder: conformance.ttl, "
        "conformance.jsonld (EARL), index.html, badge.svg, summary.json (default: off)",
    )
    report.add_argument(
        "--compare",
        metavar="A.json",
        type=Path,
        nargs="+",
        help="A.json B.json: what changed from A to B; A.json alone: from A to "
        "RESULTS.json (exit status 1 when something got worse; default: none)",
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
    if args.conformance:
        return conformance(args.results, args.output or Path("conformance"))
    compared = list(args.compare or ())
    if (
        len(args.results) > 1
        or len(compared) > 2
        or (compared and len(args.results) + len(compared) != 2)
    ):
        raise ReportUsageError(
            "rspbench report takes one results file (an HTML report), two with "
            "--compare (A.json B.json, or RESULTS.json --compare A.json), or any "
            "number with --conformance.\nHINT: rspbench report -h shows the forms."
        )
    if not args.results and not compared:
        raise ReportUsageError(
            "no results file given.\nHINT: rspbench report results.json -o report.html "
            "(write results.json with pytest --rspbench-json results.json)."
        )
    status = 0
    if args.results:
        status = html(args.results[0], args.output or Path("report.html"))
    if compared:
        before, after = compared[0], (compared[1] if len(compared) == 2 else args.results[0])
        status = max(status, compare(before, after, args.fail))
    return status


def html(path: Path, output: Path) -> int:
    """The standalone HTML report of one results file."""
    from pytest_rspbench.report import page, results

    doc = results.load(path)
    size = page.write(doc, output)
    items = len(doc.get("items") or ())
    print(f"{output}: {items} item(s), {size / 1024:.0f} KiB")
    return 0


def conformance(paths: list[Path], folder: Path) -> int:
    """The conformance report of the results files, written to ``folder``."""
    from pytest_rspbench.report import results
    from pytest_rspbench.report.conformance.build import write

    if not paths:
        raise ReportUsageError(
            "--conformance needs results files.\nHINT: rspbench report --conformance "
            "reference.json my-engine.json -o conformance"
        )
    summary = write([(str(p), results.load(p)) for p in paths], folder)
    for engine in summary["engines"]:
        print(
            f"{engine['engine']}: conformance {engine['conformance']} "
            f"({', '.join(f'{n} {o}' for o, n in engine['outcomes'].items() if n)})"
        )
    print(f"conformance report written to {folder}/ (index.html, badge.svg, summary.json, EARL)")
    return 0


def compare(before: Path, after: Path, rules_text: list[str]) -> int:
    """Print what changed from ``before`` to ``after``; 1 when something got worse."""
    from pytest_rspbench.report import baseline, results
    from pytest_rspbench.report.conformance import compare as outcomes

    old, new = results.load(before), results.load(after)
    found = outcomes.compare(old, new)
    for line in outcomes.lines(found, str(before), str(after)):
        print(line)
    rules = [baseline.parse_rule(text) for text in rules_text]
    metrics = baseline.compare(old, new, rules, before.name, before)
    for line in baseline.lines(metrics):
        print(line)
    return 1 if found.worse or metrics.regressions else 0


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="rspbench")
    add_commands(parser.add_subparsers())
    namespace = parser.parse_args()
    sys.exit(namespace.run(namespace))
