"""The strict verdict with ``t0: any``, as a user pays it.

Run (on a quiet machine; about 15 minutes)::

    .venv/bin/python benchmarks/bench_t0_any.py
    .venv/bin/python benchmarks/bench_t0_any.py --quick          # classes curve only, small
    .venv/bin/python benchmarks/bench_t0_any.py --out docs/benchmarks.md

An engine reporting neither times nor windows is judged offline with
``rspbench oracle SPEC --reported ANSWERS.jsonl``, the same strict verdict a
test item gives, each run a fresh process (interpreter, imports, Spark start
and warm-up, reading the cached stream, the narrowing and the verdict all
in the figure). Its recorded answers are the oracle's own output for
``t0 = 2345`` without times or windows (*correct*: must pass) and the same
with one binding dropped from one relation (*wrong*: must fail). The cost to
compare them with is *one fixed t0*: ``rspbench oracle`` on the same spec
with ``t0: 2345`` (its stored output removed first, so it computes).

Two tables:

- **Cost against the number of t0 classes.** One synthetic stream shape,
  30 s of ``:obs<i> :value <i mod 97>`` triples, the same number of triples
  in every 5 s tumbling window, at N distinct times per window: N t0
  classes (1, 10, 100, 1,000, 5,000). A FILTER query keeps about 6 % of
  them. The goal is a flat line: ``t0: any`` within 1.5x of one fixed t0.
- **YABench big** (yabench-sg1, 10,000 stations, 30 s, 2.1M triples; 5 s
  tumbling windows, 5,000 t0 classes): Q1 filter, Q4 AVG per station, Q6
  self-join (the queries of :mod:`bench_oracle`). Target: each strict
  verdict in under 60 s including Spark start.

The stream is written to the stream cache once per workload (*cold*, timed
apart, in the first fixed-t0 run); every other run reads it cached. Stored
outputs are removed before each run so every figure is a computation.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import fresh_process  # noqa: E402
from oracle_e2e import WarmServer, rspbench  # noqa: E402
from workloads import IRI, QUERIES, SEED  # noqa: E402

ENGINE_T0 = 2345
WIDTH = 5000
DURATION = 30_000
CLASSES = (1, 10, 100, 1000, 5000)
TRIPLES_PER_WINDOW = 30_000
STORE = "expected"  # pytest_rspbench.oracle.store.outputs.FOLDER
SECTION = "### `t0: any` as a user pays it (fresh process per run)"

SYNTHETIC_QUERY = """\
PREFIX : <http://example.org/>
REGISTER RStream :out AS
SELECT ?obs ?v
FROM NAMED WINDOW :w ON STREAM <http://example.org/s> [RANGE 5000 STEP 5000]
WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 90) } }
"""


# -- workloads -------------------------------------------------------------------


def semantics(t0: int | str) -> str:
    return f"""\
semantics:
  bounds: "[o,c)"
  t0: {t0}
  report: [window-close]
  r2s: [RStream]
  empty_relations: false
  reports_window: false
"""


def comparison(by_value: bool) -> str:
    extra = "\n  literal_equality: value\n  tolerance: 0.001" if by_value else ""
    return f"comparison:\n  mode: strict{extra}\n"


def synthetic_spec(t0: int | str) -> str:
    return (
        "rspbench: 1\nname: classes\nstreams:\n  - iri: http://example.org/s\n"
        "    source: {kind: lines, path: stream.nt, format: ntriples-ts}\n"
        f"query: |\n{textwrap.indent(SYNTHETIC_QUERY, '  ')}engines: [reference]\n"
        + semantics(t0)
        + comparison(False)
    )


def write_synthetic(folder: Path, classes: int) -> int:
    """30 s of triples, the same number per window, at ``classes`` times per window."""
    step = WIDTH // classes
    per_time = TRIPLES_PER_WINDOW // classes
    count = 0
    with (folder / "stream.nt").open("w", encoding="utf-8") as out:
        for window in range(DURATION // WIDTH):
            for slot in range(classes):
                t = window * WIDTH + slot * step
                for _ in range(per_time):
                    out.write(
                        f"<http://example.org/obs{count}> <http://example.org/value> "
                        f'"{count % 97}"^^<http://www.w3.org/2001/XMLSchema#integer> "{t}" .\n'
                    )
                    count += 1
    return count


def yabench_spec(query: str, t0: int | str) -> str:
    text = QUERIES[query][1].replace("{range}", str(WIDTH)).replace("{step}", str(WIDTH))
    return (
        f"rspbench: 1\nname: big-{query}\nstreams:\n  - iri: {IRI}\n"
        "    source: {kind: generator, name: yabench-sg1, stations: 10000,\n"
        f"             interval: 1000, duration: {DURATION}, seed: {SEED}}}\n"
        f"query: |\n{textwrap.indent(text.strip(), '  ')}\nengines: [reference]\n"
        + semantics(t0)
        + comparison(query != "q1")
    )


# -- one workload ------------------------------------------------------------------


# The stream cache's layout every oracle process gets (--star-layout).
LAYOUT: dict[str, str] = {}


def oracle(folder: Path, spec: str, cache: Path, out: Path, timeout: float, *extra: str) -> dict:
    """``rspbench oracle SPEC ...`` in a fresh process, nothing stored beforehand."""
    shutil.rmtree(cache / STORE, ignore_errors=True)
    command = [*rspbench(), "oracle", spec, "-o", str(out), *extra]
    outcome = fresh_process.run(
        command, env=os.environ | {"RSPBENCH_CACHE_DIR": str(cache)} | LAYOUT, cwd=folder,
        timeout=timeout, stderr_file=out.with_suffix(".err"),
    )  # fmt: skip
    cell: dict[str, Any] = {
        "status": outcome.status, "seconds": outcome.seconds,
        "peak_mb": outcome.peak_mb, "load": outcome.load,
    }  # fmt: skip
    text = out.with_suffix(".err").read_text(encoding="utf-8", errors="replace")
    if m := re.search(r"(\d[\d,]*) of (\d[\d,]*) t0 class\(es\) computed", text):
        cell["computed"] = int(m[1].replace(",", ""))
        cell["classes"] = int(m[2].replace(",", ""))
    if m := re.search(r"^(strict: .*)$", text, re.M):
        cell["verdict"] = m[1][:140]
    if m := re.search(r"^t0 classes narrowed: (.*)$", text, re.M):
        cell["narrowing"] = m[1][:160]
    if not outcome.ok and outcome.status != "failed (exit 1)":
        cell["stderr"] = outcome.stderr.splitlines()[-3:]
    return cell


def answers(expected: Path, folder: Path) -> tuple[Path, Path]:
    """The recorded answers: correct (no times, no windows) and one binding wrong."""
    rows = [json.loads(line) for line in expected.read_text().splitlines() if line.strip()]
    relations = [{"bindings": r["bindings"]} for r in rows]
    correct, wrong = folder / "correct.jsonl", folder / "wrong.jsonl"
    correct.write_text("".join(json.dumps(r) + "\n" for r in relations))
    broken = [dict(r) for r in relations]
    target = next(i for i in range(len(broken) // 2, len(broken)) if broken[i]["bindings"])
    broken[target] = {"bindings": broken[target]["bindings"][1:]}
    wrong.write_text("".join(json.dumps(r) + "\n" for r in broken))
    return correct, wrong


def workload(
    folder: Path, fixed: str, any_t0: str, timeout: float, server: WarmServer | None = None
) -> dict[str, Any]:
    """One workload: fixed t0 cold and cached, then t0: any on both answers;
    with ``server``, the last three again as fresh clients of that warm server."""
    (folder / "fixed.rspbench.yaml").write_text(fixed)
    (folder / "any.rspbench.yaml").write_text(any_t0)
    cache = folder / "cache"
    row: dict[str, Any] = {}
    row["cold"] = oracle(folder, "fixed.rspbench.yaml", cache, folder / "cold.jsonl", timeout)
    row["fixed"] = oracle(folder, "fixed.rspbench.yaml", cache, folder / "fixed.jsonl", timeout)
    if row["fixed"]["status"] != "ok":
        return row
    correct, wrong = answers(folder / "fixed.jsonl", folder)
    for name, path in (("correct", correct), ("wrong", wrong)):
        row[name] = oracle(
            folder, "any.rspbench.yaml", cache, folder / f"{name}-out.jsonl", timeout,
            "--reported", str(path),
        )  # fmt: skip
    row["ok"] = row["correct"]["status"] == "ok" and row["wrong"]["status"] == "failed (exit 1)"
    if server is not None:
        on = ("--spark-master", server.url)
        spec = "fixed.rspbench.yaml"
        warm = {"fixed": oracle(folder, spec, cache, folder / "s-fixed.jsonl", timeout, *on)}
        for name, path in (("correct", correct), ("wrong", wrong)):
            warm[name] = oracle(
                folder, "any.rspbench.yaml", cache, folder / f"s-{name}-out.jsonl", timeout,
                "--reported", str(path), *on,
            )  # fmt: skip
        row["server"] = warm
    return row


# -- report ------------------------------------------------------------------------


def seconds(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "-"
    if cell["status"] in ("ok", "failed (exit 1)"):
        return f"{cell['seconds']:.1f}"
    return f"{cell['status']} after {cell['seconds']:.0f} s"


def verdict(cell: dict[str, Any] | None, want: str) -> str:
    if not cell or cell["status"] not in ("ok", "failed (exit 1)"):
        return "-"
    got = "pass" if cell["status"] == "ok" else "FAIL"
    return got if got == want else f"**{got}** (wrong)"


def ratio(row: dict[str, Any]) -> str:
    fixed, any_t0 = row.get("fixed"), row.get("correct")
    if not fixed or not any_t0 or fixed["status"] != "ok" or any_t0["status"] != "ok":
        return "-"
    return f"{any_t0['seconds'] / fixed['seconds']:.2f}x"


def table(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    out = [
        "| workload | t0 classes | computed | stream cold s | one fixed t0 s "
        "| t0 any, correct s | verdict | t0 any, wrong s | verdict | any / fixed "
        "| peak MB |",
        "|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|",
    ]
    for name, row in rows:
        correct, wrong = row.get("correct"), row.get("wrong")
        cold, fixed = row.get("cold"), row.get("fixed")
        stream = "-"
        if cold and fixed and cold["status"] == "ok" and fixed["status"] == "ok":
            stream = f"{max(0.0, cold['seconds'] - fixed['seconds']):.1f}"
        peak = max((c.get("peak_mb", 0) for c in (correct, wrong) if c), default=0)
        out.append(
            f"| {name} | {(correct or {}).get('classes', '-'):,} "
            f"| {(correct or {}).get('computed', '-')} | {stream} | {seconds(fixed)} "
            f"| {seconds(correct)} | {verdict(correct, 'pass')} | {seconds(wrong)} "
            f"| {verdict(wrong, 'FAIL')} | {ratio(row)} | {peak:.0f} |"
            if correct and "classes" in correct
            else f"| {name} | - | - | {stream} | {seconds(fixed)} | {seconds(correct)} "
            f"| {verdict(correct, 'pass')} | {seconds(wrong)} | {verdict(wrong, 'FAIL')} "
            f"| {ratio(row)} | {peak:.0f} |"
        )
    return out


def server_table(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The same workloads as fresh clients of one warm Spark Connect server."""
    out = [
        "| workload | one fixed t0 s | t0 any, correct s | verdict | t0 any, wrong s "
        "| verdict | any / fixed |",
        "|---|---:|---:|---|---:|---|---:|",
    ]
    for name, row in rows:
        warm = row.get("server")
        if not warm:
            continue
        correct, wrong = warm.get("correct"), warm.get("wrong")
        out.append(
            f"| {name} | {seconds(warm.get('fixed'))} | {seconds(correct)} "
            f"| {verdict(correct, 'pass')} | {seconds(wrong)} | {verdict(wrong, 'FAIL')} "
            f"| {ratio(warm)} |"
        )
    return out


def details(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    out = []
    for name, row in rows:
        for kind in ("correct", "wrong"):
            cell = row.get(kind) or {}
            said = cell.get("narrowing") or cell.get("verdict")
            if said:
                out.append(f"- {name}, {kind}: {said}")
    return out


def section(args: argparse.Namespace, curve: list, big: list, load: tuple) -> str:
    import pyspark

    lines = [
        SECTION,
        "",
        "Command: `"
        + shlex.join([".venv/bin/python", "benchmarks/bench_t0_any.py", *args.argv])
        + "`."
        f" Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, pyspark {pyspark.__version__}; load average "
        f"(1 / 5 / 15 min) {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start, "
        "{:.1f} / {:.1f} / {:.1f} at end.".format(*os.getloadavg()),
        "",
        "Each figure is one fresh process (`rspbench oracle`; Spark start and warm-up "
        "included), the stream already in the stream cache (its cold write is the "
        "column *stream cold*, the first fixed-t0 run less the second). *t0 any* judges "
        "an engine's recorded answers that carry neither times nor windows "
        "(`--reported`): the oracle's own output for t0 = 2345 (*correct*, must pass) "
        "and the same with one binding dropped (*wrong*, must fail).",
        "",
    ]
    if curve:
        lines += [
            "**Cost against the number of t0 classes** (30 s, 30,000 triples in every 5 s "
            "tumbling window at N times per window, FILTER):",
            "",
            *table(curve),
            "",
        ]
    if big:
        lines += [
            "**YABench big** (yabench-sg1, 10,000 stations, 30 s, 2.1M triples, 5 s tumbling):",
            "",
            *table(big),
            "",
        ]
    if any("server" in row for _, row in big):
        lines += [
            "**The same on a warm Spark Connect server** (`--server`: each run again a "
            "fresh `rspbench oracle` process, as a client of one server that "
            "`rspbench spark serve` started once before the YABench rows, not timed; "
            "the server had run every earlier run's work):",
            "",
            *server_table(big),
            "",
        ]
    lines += ["What the oracle said of each (narrowing or verdict):", "", *details(curve + big)]
    return "\n".join(lines) + "\n"


def write_section(doc: Path, text: str) -> None:
    """``text`` as the current ``t0: any`` figures of ``doc``; the section
    it replaces moves to the page's history (:mod:`page`)."""
    import page

    page.publish(doc, "bench_t0_any", text)


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="classes 1, 10, 100 only")
    options.add_argument("--classes", type=int, nargs="+", default=None)
    options.add_argument("--no-yabench", action="store_true", help="skip YABench big")
    options.add_argument("--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES))
    options.add_argument("--timeout", type=float, default=240.0)
    options.add_argument("--out", type=Path, help="replace this section in that file")
    options.add_argument("--json", type=Path, default=HERE / "results" / "t0-any.json")
    options.add_argument(
        "--server",
        action="store_true",
        help="also run each YABench workload as fresh clients of one warm Spark Connect "
        "server (`rspbench spark serve`, started once, not timed)",
    )
    options.add_argument(
        "--star-layout",
        choices=("off", "on"),
        default=None,
        help="RSPBENCH_STAR_LAYOUT for every oracle process, baseline and t0 any alike "
        "(the property table for star patterns; default: as the environment says)",
    )
    args = options.parse_args(argv)
    if args.star_layout is not None:
        LAYOUT["RSPBENCH_STAR_LAYOUT"] = args.star_layout
    # The section's Command line: the options as given, so the run can be repeated.
    args.argv = list(sys.argv[1:] if argv is None else argv)
    load = os.getloadavg()
    counts = args.classes or ((1, 10, 100) if args.quick else CLASSES)
    curve: list[tuple[str, dict[str, Any]]] = []
    big: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-t0-any-") as tmp:
        for n in counts:
            folder = Path(tmp) / f"classes-{n}"
            folder.mkdir()
            triples = write_synthetic(folder, n)
            row = workload(folder, synthetic_spec(ENGINE_T0), synthetic_spec("any"), args.timeout)
            row["triples"] = triples
            curve.append((f"{n:,} times per window", row))
            print(json.dumps({"classes": n, **row}, default=str), file=sys.stderr)
        server = (
            WarmServer(Path(tmp)) if args.server and not (args.quick or args.no_yabench) else None
        )
        try:
            big += yabench(args, Path(tmp), server)
        finally:
            if server is not None:
                server.stop()
    text = section(args, curve, big, load)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"curve": curve, "big": big}, indent=1, default=str))
    if args.out:
        write_section(args.out, text)
    print(text)


def yabench(
    args: argparse.Namespace, tmp: Path, server: WarmServer | None
) -> list[tuple[str, dict[str, Any]]]:
    """The YABench big rows (none with --quick or --no-yabench)."""
    big: list[tuple[str, dict[str, Any]]] = []
    if args.quick or args.no_yabench:
        return big
    shared = tmp / "big-cache"
    shared.mkdir(exist_ok=True)
    for query in args.queries:
        folder = tmp / f"big-{query}"
        folder.mkdir()
        (folder / "cache").symlink_to(shared, target_is_directory=True)
        row = workload(
            folder, yabench_spec(query, ENGINE_T0), yabench_spec(query, "any"),
            args.timeout, server,
        )  # fmt: skip
        big.append((QUERIES[query][0], row))
        print(json.dumps({"query": query, **row}, default=str), file=sys.stderr)
    return big


if __name__ == "__main__":
    main()
