"""Count windows end to end: ``rspbench oracle`` against the pyoxigraph loop.

Run (YABench big, 2.1M triples; a few minutes on a quiet machine)::

    .venv/bin/python benchmarks/count_windows.py
    .venv/bin/python benchmarks/count_windows.py --size 100k --windows rows-tumbling \\
        --out /tmp/count.md          # a quick check on a small stream

Each row is one workload: a yabench-sg1 stream (its observations stamped with
the same ms are one event, about 70 triples each in YABench big), a
``[ROWS n STEP m]`` (or ``[TRIPLES n STEP m]``) window and a YABench query,
measured side by side in one run, each a fresh process
(:mod:`fresh_process`: Spark's start, imports and writing the output are in
the figures), as :mod:`oracle_e2e` measures time windows:

- *oracle, cold*: ``rspbench oracle SPEC -o out.jsonl`` with an empty
  ``RSPBENCH_CACHE_DIR``: the stream is generated and written to the stream
  cache first;
- *oracle, cached*: the same with the stream cached (its stored output
  removed, so it computes);
- *pyoxigraph loop*: ``benchmarks/pyoxigraph_loop.py --rows n --count-step m``
  parsing the same stream from a timestamped N-Triples file (written once
  per size, not timed): its own count windows (docs/count-and-session-
  windows.md, written from the contract, not from the oracle) and pyoxigraph
  on each slide.

The spec pins the profile the loop follows: count_order time, count_ties
arrival, count_rampup report, count_tick tuple-driven, count_bounds
``[first,last]``, report on window close, RStream, empty relations on. Per
row: wall seconds, peak memory and CPU seconds of each process tree, and
whether the oracle's relations and the loop's agree (time, reported window
and solution count of each). Writes a Markdown section into ``--out``
(``page.publish(doc, "count-windows", ...)``) and the raw rows to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import fresh_process  # noqa: E402
import oracle_e2e  # noqa: E402
import page  # noqa: E402
from workloads import IRI, QUERIES, SEED  # noqa: E402

# name: (label, kind, n, m). An event of YABench big is ~70 triples and a
# second ~1,000 events: rows-tumbling is about the 5 s tumbling window of the
# time-window benchmarks, rows-sliding about the 10 s / 2 s sliding one.
WINDOWS: dict[str, tuple[str, str, int, int]] = {
    "rows-tumbling": ("[ROWS 5000 STEP 5000]", "rows", 5000, 5000),
    "rows-sliding": ("[ROWS 10000 STEP 2000]", "rows", 10_000, 2000),
    "triples-tumbling": ("[TRIPLES 350000 STEP 350000]", "triples", 350_000, 350_000),
}
DEFAULT_WINDOWS = ("rows-tumbling", "rows-sliding")
DOC = HERE.parent / "docs" / "benchmarks.md"
JSON = HERE / "results" / "count-windows.json"
PROFILE = """\
  report: [window-close]
  r2s: [RStream]
  empty_relations: true
  count_order: time
  count_ties: arrival
  count_rampup: report
  count_tick: tuple-driven
  count_bounds: "[first,last]"
"""


def query_text(query: str, window: str) -> str:
    """The YABench query with the count window in place of its time window."""
    label = WINDOWS[window][0]
    return QUERIES[query][1].replace("[RANGE {range} STEP {step}]", label)


def spec_text(size: str, query: str, window: str) -> str:
    _, stations, duration = oracle_e2e.SIZES[size]
    return f"""\
rspbench: 1
name: count-{size}-{query}-{window}
streams:
  - iri: {IRI}
    source: {{kind: generator, name: yabench-sg1, stations: {stations},
             interval: 1000, duration: {duration}, seed: {SEED}}}
query: |
{textwrap.indent(query_text(query, window).strip(), "  ")}
engines: [reference]
semantics:
{PROFILE}"""


def relations(path: Path) -> dict[int, tuple[int, list[int], int]] | None:
    """Per relation index: time, reported window and solution count."""
    if not path.exists():
        return None
    found = {}
    with path.open(encoding="utf-8") as lines:
        for line in filter(str.strip, lines):
            item = json.loads(line)
            found[item["index"]] = (item["time"], item["window"], len(item["bindings"]))
    return found


def agreement(oracle: dict[int, Any] | None, loop: dict[int, Any] | None) -> str:
    """Do the two outputs agree, relation by relation?

    >>> agreement({0: (5, [1, 5], 3)}, {0: (5, [1, 5], 3)})
    'agree (1 relations)'
    >>> agreement({0: (5, [1, 5], 3)}, {0: (5, [1, 5], 2), 1: (9, [6, 9], 1)})
    '**differ in 2 relation(s)**, e.g. 0: oracle (5, [1, 5], 3), loop (5, [1, 5], 2)'
    """
    if oracle is None or loop is None:
        return "not compared (a run did not finish)"
    if oracle == loop:
        return f"agree ({len(oracle)} relations)"
    differ = sorted(i for i in set(oracle) | set(loop) if oracle.get(i) != loop.get(i))
    i = differ[0]
    return (
        f"**differ in {len(differ)} relation(s)**, e.g. {i}: "
        f"oracle {oracle.get(i, 'none')}, loop {loop.get(i, 'none')}"
    )


def cell(outcome: fresh_process.Outcome, output: Path) -> dict[str, Any]:
    found = relations(output) if outcome.ok else None
    out = oracle_e2e.measured(outcome, output)
    out.pop("per_window", None)
    if found is not None:
        out["relations"] = {str(k): v for k, v in found.items()}
    return out


def run_row(folder: Path, stream: Path, size: str, query: str, window: str, timeout: float) -> dict:
    """The loop, the oracle cold, then cached, each a fresh process."""
    name = f"{size}-{query}-{window}"
    spec = folder / f"{name}.rspbench.yaml"
    spec.write_text(spec_text(size, query, window), encoding="utf-8")
    rq = folder / f"{name}.rq"
    from pytest_rspbench.rsp.rspql import parse

    rq.write_text(parse(query_text(query, window)).static_sparql, encoding="utf-8")
    _, kind, n, m = WINDOWS[window]
    out = folder / f"{name}.loop.jsonl"
    command = [sys.executable, str(HERE / "pyoxigraph_loop.py"), str(stream), "--query", str(rq),
               f"--{kind}", str(n), "--count-step", str(m), "--graph", oracle_e2e.WINDOW,
               "-o", str(out)]  # fmt: skip
    loop = fresh_process.run(command, timeout=timeout, stderr_file=out.with_suffix(".err"))
    cells = {"loop": cell(loop, out)}
    if loop.ok:
        cells["loop"] |= json.loads(loop.stderr.splitlines()[-1])  # its summary line
        cells["loop"]["seconds"] = loop.seconds
    oracle_e2e.progress("pyoxigraph loop", cells["loop"])
    cache = folder / f"cache-{name}"
    for method in ("cold", "cached"):
        if method == "cached":
            shutil.rmtree(cache / "expected", ignore_errors=True)  # compute, not read back
        out = folder / f"{name}.{method}.jsonl"
        env = os.environ | {"RSPBENCH_CACHE_DIR": str(cache)}
        command = [*oracle_e2e.rspbench(), "oracle", str(spec), "-o", str(out)]
        outcome = fresh_process.run(
            command, env=env, cwd=folder, timeout=timeout, stderr_file=out.with_suffix(".err")
        )
        cells[method] = cell(outcome, out)
        oracle_e2e.progress(f"oracle {method}", cells[method])
    loop_found = cells["loop"].pop("relations", None)
    checks = [f"{method}: {agreement(cells[method].pop('relations', None), loop_found)}"
              for method in ("cold", "cached")]  # fmt: skip
    cells["check"] = "; ".join(checks)
    shutil.rmtree(cache, ignore_errors=True)
    return cells


def events(path: Path) -> int:
    """How many events a timestamped N-Triples file holds (runs of one time)."""
    count, last = 0, None
    with path.open("rb") as lines:
        for line in lines:
            t = line.rpartition(b' "')[2]
            if t != last:
                count, last = count + 1, t
    return count


def section(run: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The Markdown section: command, machine, date, then one line per row."""
    m = run["machine"]
    busy = " (**busy machine**: the figures are upper bounds)" if run["busy"] else ""
    stream = run["stream"]
    prose = [
        f"Command: `{run['command']}`.",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram']} RAM, {m['os']}; Python "
        f"{m['python']}, Java {m['java']}, pyspark {m['pyspark']}, pyoxigraph "
        f"{m['pyoxigraph']}. Date: {m['date']}; load average {run['load_start']:.1f} at "
        f"start, {run['load_end']:.1f} at the end{busy}; other work beside each measured "
        f"process: {_others(rows)} CPU s.",
        "Baseline: `benchmarks/pyoxigraph_loop.py` with `--rows n --count-step m` (its own "
        "count windows, from docs/count-and-session-windows.md), parsing the same stream from "
        "a timestamped N-Triples file. Every figure is a new process, Spark's start "
        "included; *cold* generates the stream and writes the stream cache first, *cached* "
        "finds it there (its stored output removed, so it computes). Profile: count_order "
        "time, count_ties arrival, count_rampup report, count_tick tuple-driven, "
        "count_bounds `[first,last]`, RStream, empty relations on. An event is the "
        f"observations stamped with one ms: {stream['events']:,} events of "
        f"{stream['triples'] / max(stream['events'], 1):.0f} triples on average. *÷ loop*: "
        "the oracle's seconds over the loop's; *oracle and loop*: whether every relation "
        "agrees (time, reported window, solution count).",
    ]
    lines = ["## Count windows end to end: `rspbench oracle` against a pyoxigraph loop", ""]
    lines += [prose[0], ""]  # the command whole, to copy
    for paragraph in prose[1:]:
        lines += [textwrap.fill(paragraph, 76, break_on_hyphens=False), ""]
    lines += [
        "| stream | window | query | relations | solutions | oracle, cached | oracle, cold "
        "| baseline: pyoxigraph loop | cached ÷ loop | peak MB cached / cold / loop "
        "| CPU s cached / loop | oracle and loop |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        cached, cold, loop = row["cached"], row["cold"], row["loop"]
        ratio = f"{cached['seconds'] / loop['seconds']:.2f}x" if loop["seconds"] else ""
        lines.append(
            f"| {row['size_label']} ({row['triples']:,} triples) | {row['window_label']} "
            f"| {row['query_label']} | {loop.get('windows', '')} | "
            f"{loop.get('solutions', 0):,} | {_seconds(cached)} | {_seconds(cold)} "
            f"| {_seconds(loop)} | {ratio} | {cached['peak_mb']:,.0f} / "
            f"{cold['peak_mb']:,.0f} / {loop['peak_mb']:,.0f} | {cached['cpu']:.1f} / "
            f"{loop['cpu']:.1f} | {row['check']} |"
        )
    return "\n".join(lines) + "\n"


def _others(rows: list[dict[str, Any]]) -> str:
    """The range of CPU seconds other processes used during the measured ones."""
    seen = [r[m]["others_cpu"] for r in rows for m in ("loop", "cold", "cached")
            if r[m].get("others_cpu") is not None]  # fmt: skip
    return f"{min(seen):.0f}-{max(seen):.0f}" if seen else "not measured"


def _seconds(c: dict[str, Any]) -> str:
    return (
        f"{c['seconds']:.1f} s" if c["status"] == "ok" else f"{c['status']} ({c['seconds']:.0f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument(
        "--size", default="2.1M", help=f"one of {', '.join(oracle_e2e.SIZES)} or big (default 2.1M)"
    )
    options.add_argument(
        "--windows",
        default=",".join(DEFAULT_WINDOWS),
        help=f"comma-separated, of {', '.join(WINDOWS)} (default {','.join(DEFAULT_WINDOWS)})",
    )
    options.add_argument(
        "--queries", default="q1", help=f"comma-separated, of {', '.join(QUERIES)} (default q1)"
    )
    options.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="seconds per process before it is killed (default 1800)",
    )
    options.add_argument(
        "--out",
        type=Path,
        default=DOC,
        help="the page the section is published into (default docs/benchmarks.md)",
    )
    options.add_argument(
        "--json",
        type=Path,
        default=JSON,
        help="raw rows (default benchmarks/results/count-windows.json)",
    )
    options.add_argument("--workdir", type=Path, help="where the temporary folder goes")
    args = options.parse_args(argv)  # fmt: skip
    size = oracle_e2e.ALIASES.get(args.size, args.size)
    windows = [w for w in args.windows.split(",") if w]
    queries = [oracle_e2e.ALIASES.get(q, q) for q in args.queries.split(",") if q]
    wrong = [w for w in windows if w not in WINDOWS] + [q for q in queries if q not in QUERIES]
    if size not in oracle_e2e.SIZES or wrong:
        options.error(f"unknown {', '.join(wrong) or size}")
    from e2e_report import machine

    run: dict[str, Any] = {
        "command": " ".join([".venv/bin/python benchmarks/count_windows.py", *argv]),
        "machine": machine(),
        "load_start": os.getloadavg()[0],
    }
    rows = []
    with tempfile.TemporaryDirectory(prefix="rspbench-count-", dir=args.workdir) as tmp:
        folder = Path(tmp)
        stream = folder / f"{size}.nt"
        info = oracle_e2e.write_stream(size, stream)
        run["stream"] = {"triples": info["triples"], "events": events(stream)}
        print(f"{size}: {info['triples']:,} triples written in {info['seconds']:.1f} s",
              file=sys.stderr)  # fmt: skip
        for window in windows:
            for query in queries:
                print(f"  {size} {window} {query}", file=sys.stderr)
                cells = run_row(folder, stream, size, query, window, args.timeout)
                rows.append({
                    "size": size, "size_label": oracle_e2e.SIZES[size][0],
                    "triples": info["triples"], "window": window,
                    "window_label": WINDOWS[window][0], "query": query,
                    "query_label": QUERIES[query][0],
                } | cells)  # fmt: skip
    run["load_end"] = os.getloadavg()[0]
    run["busy"] = max(run["load_start"], run["load_end"]) > 1.5
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"run": run, "rows": rows}, indent=1) + "\n")
    text = section(run, rows)
    print(text)
    page.publish(args.out, "count-windows", text)
    print(f"wrote {args.out} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
