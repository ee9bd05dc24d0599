"""``rspbench oracle``: expected outputs of a spec's case, without any engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import OracleError, SparkMemoryError, SpecError


def add_commands(commands: Any) -> None:
    """Register ``rspbench oracle`` on the top-level subparsers."""
    from pytest_rspbench.cli.warm import add_warm_argument

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
        "keeps, or the engine's own JSON lines): judge them with the strict "
        "verdict (exit 1 when no t0 reproduces them); with many t0 classes only "
        "those the results' content allows are computed (default: none)",
    )
    oracle.add_argument(
        "--spark-master", default="local[*]", help="Spark master (default: local[*])"
    )
    oracle.add_argument(
        "--spark-conf",
        action="append",
        type=_setting,
        metavar="KEY=VALUE",
        help="a Spark setting, e.g. spark.driver.memory=12g (repeatable; default: "
        "the oracle's own, as --rspbench-spark-conf in pytest)",
    )
    add_warm_argument(oracle)
    oracle.add_argument("-o", "--output", type=Path, help="output file (default: stdout)")
    oracle.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pytest_rspbench.cli.cases import select_case
    from pytest_rspbench.cli.warm import notice
    from pytest_rspbench.engine.profiles import identify, resolve
    from pytest_rspbench.oracle.oracle import OracleRequest
    from pytest_rspbench.oracle.oracle import run as run_request
    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.store.streamcache import ENV, stream_cache
    from pytest_rspbench.runner import disorders, open_streams, regroup_unit, static_triples
    from pytest_rspbench.spec.loader import load_spec

    engines = [args.engine_profile] if args.engine_profile else None
    spec = load_spec(spec_path(args), engines, check_engine=identify)
    case = select_case(spec, args.param)
    profile = resolve(case.engine, case.base_dir).with_semantics(case.semantics)
    provider = SparkProvider(
        args.spark_master, conf=dict(args.spark_conf or ()), warm=args.warm_spark, say=notice
    )
    request = OracleRequest(
        case.query,
        tuple(open_streams(case)),
        profile.semantics,
        tuple(static_triples(case)),
        {d.iri: d.start for d in case.streams},
        cache=stream_cache(args.spark_master, os.environ.get(ENV)),
        keep=True,
        disorder=disorders(case),
    )
    results = None
    overlap = args.reported is not None and _large(args.reported)
    try:
        with provider.used(), _starting(provider, request, overlap) as spark:
            if args.reported:
                results = reported(args.reported, regroup_unit(profile))
                request = replace(request, reported=_told(results, case))
            expected = run_request(spark, request)
    except SparkMemoryError as exc:
        if results is not None or profile.semantics.t0 != "any":
            raise
        raise OracleError(
            f"{exc}\nWith t0: any and no engine output, every t0 class's output is "
            "computed.\nHINT: give the engine's answers with --reported RESULTS.jsonl "
            "(only the classes their content allows are computed), or a fixed t0 with "
            "--engine-profile or in the spec's semantics."
        ) from exc
    groups = write(expected, args.output)
    if expected.narrowing:
        print(f"t0 classes narrowed: {expected.narrowing}", file=sys.stderr)
    print(
        f"{spec.name}[{case.case_id}]: {len(expected.classes)} of "
        f"{expected.total_classes} t0 class(es) computed, {groups} distinct "
        f"output(s), evaluator {expected.evaluator}, {expected.seconds:.1f} s"
        + (" (stored output)" if expected.stored else "")
        + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    return 0 if results is None else judge(expected, results, profile, case)


def write(expected: Any, output: Path | None) -> int:
    """Each distinct output once, its ``t0`` the classes that give it
    (``"3..5,9"``); returns how many distinct outputs there were.

    Classes whose relations hold the same bindings are one output; times and
    windows are those of its first t0 (for window-close, another t0 of it
    shifts them by the difference).
    """
    groups: dict[Any, list[Any]] = {}
    for cls in expected.classes:
        content = None if len(expected.classes) == 1 else _content(cls.relations)
        groups.setdefault(content, []).append(cls)
    labels = [_label(classes) for classes in groups.values()]
    # Several correct outputs of one t0 (count_ties: any resolved every way)
    # are told apart by their number.
    numbered = len(set(labels)) < len(labels)
    out = output.open("wb") if output else _stdout()
    try:
        for number, (label, classes) in enumerate(zip(labels, groups.values(), strict=True)):
            for rel in classes[0].relations:
                row = {
                    "t0": label,
                    "time": rel.time,
                    "window": list(rel.window),
                    "index": rel.index,
                    "triples": rel.triples,
                }
                if numbered:
                    row["output"] = number
                out.write(_line(row, rel.bindings))
    finally:
        if output:
            out.close()
        else:
            out.flush()
    return len(groups)


def json_line(row: dict[str, Any]) -> bytes:
    """``row`` as one line of JSON with sorted keys, UTF-8.

    orjson writes it (a self-join's 1.4M solutions: about 1 s, against
    3.5-5 s with the standard library's encoder; docs/benchmarks.md); text orjson
    refuses (a lone surrogate, which is not Unicode) is written by ``json``
    as an ASCII escape instead.
    """
    import orjson

    try:
        return orjson.dumps(
            row, default=dict, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
        )
    except orjson.JSONEncodeError:
        return json.dumps(row, sort_keys=True, default=dict).encode("ascii") + b"\n"


def _line(row: dict[str, Any], bindings: Any) -> bytes:
    """:func:`json_line` of ``row`` with its ``bindings``; written from the
    compiled plan's columns when it holds them (:class:`.columns.ColumnBindings`:
    the same bytes, no mapping made)."""
    from pytest_rspbench.oracle.store.columns import ColumnBindings

    if isinstance(bindings, ColumnBindings) and bindings.complete:
        # "bindings" sorts first of the row's keys.
        return b'{"bindings":[' + bindings.json() + b"]," + json_line(row)[1:]
    return json_line({**row, "bindings": list(bindings)})


def _stdout() -> Any:
    """Standard output as bytes (its text buffer flushed first)."""
    sys.stdout.flush()
    return getattr(sys.stdout, "buffer", None) or _TextBytes(sys.stdout)


class _TextBytes:
    """A text stream that takes UTF-8 bytes (a stdout without a buffer)."""

    def __init__(self, text: Any) -> None:
        self.text = text

    def write(self, data: bytes) -> None:
        self.text.write(data.decode("utf-8"))

    def flush(self) -> None:
        self.text.flush()


def _content(relations: Any) -> tuple[tuple[int, int, str], ...]:
    """What makes two classes' outputs one: per relation its window index,
    triple count and a digest of its bag of solutions (order and duplicates
    as a bag sees them; a digest, not the bag, so that thousands of classes
    do not hold a second copy of every solution).
    """
    import hashlib

    from pytest_rspbench.rsp.bags import solution

    def digest(bindings: Any) -> str:
        texts = sorted(json.dumps(solution(b)) for b in bindings)
        return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()

    return tuple((r.index, r.triples, digest(r.bindings)) for r in relations)


def _label(classes: list[Any]) -> str:
    """The t0 of some classes as merged ranges: ``"0..3,7"``."""
    spans: list[list[int]] = []
    for cls in sorted(classes, key=lambda c: c.first):
        if spans and cls.first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], cls.last)
        else:
            spans.append([cls.first, cls.last])
    return ",".join(str(a) if a == b else f"{a}..{b}" for a, b in spans)


READ_WHILE_STARTING = 16 << 20  # bytes of engine answers: a few tenths of a second to read


def _large(path: Path) -> bool:
    """Are the answers in ``path`` worth reading while Spark starts?"""
    try:
        return path.stat().st_size >= READ_WHILE_STARTING
    except OSError:
        return False  # reading it says what is wrong


@contextmanager
def _starting(provider: Any, request: Any, reported_later: bool) -> Iterator[Callable[[], Any]]:
    """The Spark session ``request`` needs, as a function the oracle calls
    when it does.

    With ``reported_later`` (large engine answers still to read), Spark
    starts in a thread from here on when it is sure to be needed (no stored
    output or narrowing can spare it), so the JVM starts while the answers
    are read and digested: 6-10 s of start against 6-7 s of reading and
    digesting YABench's self-join answers (141 MB, 495,000 bindings). Else
    it starts only when called.
    """
    from pytest_rspbench.oracle.oracle import starts_spark

    if not reported_later or not starts_spark(request, reported_later):
        yield provider.get
        return
    failed: list[BaseException] = []

    def start() -> None:
        try:
            provider.get()
        except BaseException as exc:  # raised in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=start, name="rspbench-spark-start", daemon=True)
    thread.start()

    def session() -> Any:
        thread.join()
        if failed:
            raise failed[0]
        return provider.get()

    try:
        yield session
    finally:
        thread.join()  # stop() must not race a start under way


def _told(results: list[Any], case: Any) -> Any:
    from pytest_rspbench.oracle.t0.narrowing import Reported

    return Reported.of(
        results,
        by_value=case.comparison.literal_equality == "value",
        exact=case.comparison.exact,
        tolerance=case.comparison.tolerance,
    )


def judge(expected: Any, results: list[Any], profile: Any, case: Any) -> int:
    """The strict verdict on the reported results, as a test item gives it."""
    from pytest_rspbench.rsp.outputs import ActualOutput, Received
    from pytest_rspbench.verdict.strict import assess

    actual = ActualOutput(profile.name, [Received(r, 0.0, None) for r in results])
    verdict = assess(expected, actual, profile.semantics, case)
    bounds = profile.semantics.bounds
    print(verdict.headline(bounds), file=sys.stderr)
    if verdict.narrowing:
        print(f"  {verdict.narrowing}", file=sys.stderr)
    if verdict.difference:
        print(f"  first difference with t0 = {verdict.chosen.label}: "
              f"{verdict.difference}", file=sys.stderr)  # fmt: skip
    return 1 if verdict.strict_ok is False else 0


def reported(path: Path, unit: int = 1) -> list[Any]:
    """The results in an engine's results file, as the verdict reads them.

    Each line is a JSON object: a line of ``results.jsonl`` or a protocol
    ``result`` message (other protocol messages are skipped); its
    ``bindings`` (N-Triples terms), ``time`` (ms) and ``window`` (``[o, c]``)
    are read when present. Results within one ``unit`` (the profile's
    ``time_unit``) are one relation.
    """
    from pytest_rspbench.engine.protocol import ProtocolViolation, parse_result
    from pytest_rspbench.errors import EngineError
    from pytest_rspbench.rsp.outputs import Received, regrouped

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
            if not isinstance(item, dict):
                raise ValueError(line)
        except ValueError:
            raise EngineError(
                f"{path}:{number}: not a result line: {line[:80]!r}\n"
                'HINT: one JSON object per line, e.g. {"time": 5000, '
                '"window": [0, 5000], "bindings": [...]}, as in the results.jsonl '
                "that --rspbench-artifacts keeps."
            ) from None
        if item.get("type") in ("hello", "registered", "done", "error"):
            continue
        if item.get("bindings") is None:  # a relation with no solutions
            item["bindings"] = []
        try:
            # As the harness reads an engine's lines: the same terms, names, times.
            results.append(parse_result(item))
        except ProtocolViolation as exc:
            raise EngineError(
                f"{path}:{number}: {exc}\nHINT: each binding maps a variable to an "
                'N-Triples term ({"x": "<http://example.org/a>"}); "time" is ms, '
                '"window" [open, close] in ms.'
            ) from None
    received = [Received(r, 0.0, None) for r in results]
    return [item.result for item in regrouped(received, unit)]


def _setting(entry: str) -> tuple[str, str]:
    """One ``--spark-conf KEY=VALUE``."""
    key, sep, value = entry.partition("=")
    if not sep or not key.strip().startswith("spark."):
        raise argparse.ArgumentTypeError(
            f"{entry!r}: expected KEY=VALUE with a Spark setting as KEY, "
            "e.g. spark.driver.memory=12g"
        )
    return key.strip(), value.strip()


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
