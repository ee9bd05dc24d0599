"""``rspbench oracle``: expected outputs of a spec's case, without any engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import OracleError, SpecError


def add_commands(commands: Any) -> None:
    """Register ``rspbench oracle`` on the top-level subparsers."""
    oracle = commands.add_parser(
        "oracle",
        help="compute the expected output of a spec case (no engine is run)",
        description="Compute what an engine with the given profile must output, "
        "for every t0 class, and write it as JSON lines.",
    )
    oracle.add_argument("spec", nargs="?", type=Path, help="the *.rspbench.yaml file")
    oracle.add_argument(
        "--spec",
        dest="spec_option",
        type=Path,
        metavar="SPEC",
        help="the same, as an option (kept for older scripts; default: none)",
    )
    oracle.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="K=V",
        help="select the case by matrix values, compared as YAML values, so "
        "temp=80 matches temp: [80.0]; engine=NAME selects the engine "
        "(repeatable; default: the first case)",
    )
    oracle.add_argument(
        "--engine-profile",
        metavar="NAME|PATH",
        help="engine whose semantics apply (default: the case's engine)",
    )
    oracle.add_argument(
        "--reported",
        type=Path,
        metavar="RESULTS.jsonl",
        help="an engine's results (the results.jsonl that --rspbench-artifacts "
        "keeps): with more than 256 t0 classes, compute only those that fit the "
        "evaluation times and windows in it (default: every class)",
    )
    oracle.add_argument(
        "--spark-master", default="local[*]", help="Spark master (default: local[*])"
    )
    oracle.add_argument("-o", "--output", type=Path, help="output file (default: stdout)")
    oracle.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.cli.cases import select_case
    from pytest_rspbench.engine.profiles import identify, resolve
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.streamcache import ENV, stream_cache
    from pytest_rspbench.runner import open_streams, static_triples
    from pytest_rspbench.spec.loader import load_spec

    engines = [args.engine_profile] if args.engine_profile else None
    spec = load_spec(spec_path(args), engines, check_engine=identify)
    case = select_case(spec, args.param)
    profile = resolve(case.engine, case.base_dir).with_semantics(case.semantics)
    provider = SparkProvider(args.spark_master)
    cache = stream_cache(args.spark_master, os.environ.get(ENV))
    try:
        expected = expected_output(
            provider.get,  # started only if the output is not stored
            case.query,
            open_streams(case),
            profile.semantics,
            static_triples(case),
            {d.iri: d.start for d in case.streams},
            cache=cache,
            keep=True,
            reported=reported(args.reported) if args.reported else None,
        )
    except Exception as exc:
        text = provider.explain_failure(exc)
        if text is None:
            raise
        raise OracleError(text) from exc
    finally:
        provider.stop()
    out = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
    try:
        for cls in expected.classes:
            for rel in cls.relations:
                out.write(
                    json.dumps(
                        {
                            "t0": cls.label,
                            "time": rel.time,
                            "window": list(rel.window),
                            "index": rel.index,
                            "triples": rel.triples,
                            "bindings": [dict(b) for b in rel.bindings],
                        },
                        sort_keys=True,
                    )
                    + "\n"
                )
    finally:
        if args.output:
            out.close()
    if expected.narrowing:
        print(f"t0 classes narrowed: {expected.narrowing}", file=sys.stderr)
    print(
        f"{spec.name}[{case.case_id}]: {len(expected.classes)} t0 class(es), "
        f"evaluator {expected.evaluator}, {expected.seconds:.1f} s"
        + (" (stored output)" if expected.stored else "")
        + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    return 0


def reported(path: Path) -> Any:
    """The evaluation times and windows in an engine's results file.

    Each line is a JSON object; its ``time`` (ms) and ``window`` (``[o, c]``)
    are read when present, as the harness records them.
    """
    from pytest_rspbench.engine.api import Result
    from pytest_rspbench.errors import EngineError
    from pytest_rspbench.oracle.narrowing import Reported

    results = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EngineError(f"--reported {path}: cannot read it ({exc.strerror})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            window = item.get("window")
            results.append(
                Result(
                    (),
                    None if item.get("time") is None else int(item["time"]),
                    None if window is None else (int(window[0]), int(window[1])),
                )
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            raise EngineError(
                f"{path}:{number}: not a result line: {line[:80]!r}\n"
                'HINT: one JSON object per line, e.g. {"time": 5000, '
                '"window": [0, 5000], "bindings": [...]}, as in the results.jsonl '
                "that --rspbench-artifacts keeps."
            ) from None
    return Reported.of(results)


def spec_path(args: argparse.Namespace) -> Path:
    """The spec given as an argument or with ``--spec``: one of them, once."""
    given = [p for p in (args.spec, args.spec_option) if p is not None]
    if not given:
        raise SpecError(
            "rspbench oracle: which spec?\n"
            "HINT: rspbench oracle SPEC.rspbench.yaml [--param K=V ...]"
        )
    if len(given) == 2 and given[0] != given[1]:
        raise SpecError(
            f"rspbench oracle: two specs, {given[0]} and --spec {given[1]}.\n"
            "HINT: give the spec once: rspbench oracle SPEC.rspbench.yaml"
        )
    return given[0]
