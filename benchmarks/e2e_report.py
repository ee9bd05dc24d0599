"""The end-to-end benchmark's Markdown section.

The section starts at :data:`HEADING`; ``oracle_e2e.py --out`` makes it the
page's current end-to-end figures (:mod:`page`), moving the previous ones to
the page's history.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

HEADING = "### End to end (fresh process per row)"
METHOD = """\
Each row is one workload measured three times, each time in a **new
process**, so Spark's start and JVM warm-up, imports, writing the stream
cache and the output file are all inside the figures: *oracle, cached* is
`rspbench oracle SPEC -o out.jsonl` with the stream already in the stream
cache (its stored output removed, so it computes); *oracle, cold* is the
same with `RSPBENCH_CACHE_DIR` an empty folder (the stream is generated and
written to Parquet first); *pyoxigraph loop* is
[`benchmarks/pyoxigraph_loop.py`](../benchmarks/pyoxigraph_loop.py) parsing
the same stream from a timestamped N-Triples file (written once per size by
`rspbench stream generate --format ntriples-ts`, not timed), cutting the
windows and running pyoxigraph on each in a fresh store. Profile (pinned by
the generated spec, followed by the loop): bounds `[o,c]`, t0 = 0, report on
window close, RStream, empty relations on. Spark master: the CLI's default
`local[*]`. An untimed oracle run on a 20-station stream comes first, so
Spark's jars are in the page cache for the first row too. *Peak MB*: the
largest sum of the resident sets of the process and all its descendants
(the Spark JVM, its Python workers), sampled every 0.2 s; *CPU s*: their
user + system time (the larger of the kernel's count for the process and
the children it waited for, and the sum of the per-process samples).
*÷ loop*: the oracle's seconds divided by the loop's (below 1: the oracle
is faster). *Counts*: the solutions of every window, oracle against loop.
*Load at start*: the highest 1-minute load average when one of the row's
three processes started."""


def machine() -> dict[str, str]:
    """CPU, cores, RAM, OS and the versions that take part."""
    import psutil

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "ram": f"{psutil.virtual_memory().total / 2**30:.0f} GiB",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "java": java_version(),
        "pyspark": metadata.version("pyspark"),
        "pyoxigraph": metadata.version("pyoxigraph"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def java_version() -> str:
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else "java"
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True)
    except OSError:
        return "not found"
    found = re.search(r'version "([^"]+)"', done.stderr)
    return found[1] if found else done.stderr.strip().splitlines()[0]


def cell(c: dict[str, Any]) -> str:
    """One method's seconds, or how it ended."""
    s = c["seconds"]
    if c["status"] == "ok":
        fallback = c.get("evaluator", "spark-dataframe")
        return f"{s:.1f}" + ("" if fallback == "spark-dataframe" else f" ({fallback})")
    if c["status"] == "timeout":
        return f"> {s:.0f} **timeout**"
    if c["status"].startswith("not run"):
        return c["status"]
    return f"**{c['status']}** at {s:.0f} s"


def ratio(oracle: dict[str, Any], loop: dict[str, Any]) -> str:
    if oracle["status"] != "ok" or loop["status"] != "ok":
        return "-"
    return f"{oracle['seconds'] / loop['seconds']:.2f}x"


def loop_cell(c: dict[str, Any]) -> str:
    if c["status"] != "ok":
        return cell(c)
    return f"{c['seconds']:.1f} ({c['read']:.1f} / {c['load']:.1f} / {c['query']:.1f})"


SERVER_METHOD = """\
*Oracle, warm server* (run with `--server`): the same command as *oracle,
cached*, in a fresh process again, as a client of one Spark Connect server
(`rspbench spark serve`, local[*]) that the benchmark started once before
the first row and warmed with the untimed 20-station run; the server's
start is not in any figure, and the server had run every earlier row's
work. Two calls a row: the *first* is the first time the server runs that
query over that stream; the *second* is the same command again, its stored
output removed first (a user's second call: the server's JIT has compiled
that job's code). *Server ÷ loop* as above, for each call. *Server CPU s /
MB*: the CPU the server's process tree spent during the first call (added
to the client's in *CPU s*) and its resident memory after it (the JVM keeps
its heap between calls)."""


def server_cells(
    c: dict[str, Any] | None, again: dict[str, Any] | None, loop: dict[str, Any]
) -> str:
    """The warm-server columns of a row: seconds and ratio of the first and
    second call, the first call's server CPU / memory."""
    if c is None:
        return " - | - | - |"
    spent = f"{c['client_cpu']:.0f} + {c['server_cpu']:.0f} / {c['server_mb']:,.0f}"
    seconds, ratios = cell(c), ratio(c, loop)
    if again is not None:
        seconds, ratios = f"{seconds} / {cell(again)}", f"{ratios} / {ratio(again, loop)}"
    return f" {seconds} | {ratios} | {spent if c['seconds'] else '-'} |"


STAR_METHOD = """\
*Star layout* (run with `--star-layout both`): *oracle, cold* and *oracle,
cached* again with `RSPBENCH_STAR_LAYOUT=on`, in a stream cache of their
own: the cold run writes the stream and its property table (one row per
subject and event time, a column per single-valued predicate), the cached
run reads them. Every other column is the triple table alone
(`RSPBENCH_STAR_LAYOUT=off`)."""


def star_cells(r: dict[str, Any], loop: dict[str, Any]) -> str:
    """The star-layout columns of a row: cached and cold seconds and their ratios."""
    cached, cold = r.get("cached_star"), r.get("cold_star")
    if cached is None or cold is None:
        return " - | - | - | - |"
    return f" {cell(cached)} | {cell(cold)} | {ratio(cached, loop)} | {ratio(cold, loop)} |"


def table(rows: list[dict[str, Any]]) -> list[str]:
    server = any("server" in r for r in rows)
    star = any("cached_star" in r for r in rows)
    lines = [
        "| stream | triples | window | query | windows | solutions | oracle, cached s |"
        " oracle, cold s | pyoxigraph loop s (read / load / query) | cached ÷ loop |"
        " cold ÷ loop |"
        + (
            " star, cached s | star, cold s | star cached ÷ loop | star cold ÷ loop |"
            if star
            else ""
        )
        + (
            " oracle, warm server s (first / second call) | server ÷ loop |"
            " CPU s client + server / server MB |"
            if server
            else ""
        )
        + " peak MB cached / cold / loop | CPU s cached / cold / loop | load at start | counts |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
        + ("---:|---:|---:|---:|" if star else "")
        + ("---:|---:|---:|" if server else "")
        + "---:|---:|---:|---|",
    ]
    for r in rows:
        cached, cold, loop = r["cached"], r["cold"], r["loop"]
        known: dict[str, Any] = next((c for c in (loop, cached, cold) if "solutions" in c), {})
        windows = f"{known['windows']:,}" if known else "-"
        solutions = f"{known['solutions']:,}" if known else "-"
        three = (cached, cold, loop)
        peak = " / ".join(f"{c['peak_mb']:.0f}" if c["seconds"] else "-" for c in three)
        cpu = " / ".join(f"{c['cpu']:.{c['cpu'] < 10:d}f}" if c["seconds"] else "-" for c in three)
        load = max(c["load_avg"] for c in three)
        lines.append(
            f"| {r['size_label']} | {r['triples']:,} | {r['window_label']} | "
            f"{r['query_label']} | {windows} | {solutions} | {cell(cached)} | {cell(cold)} | "
            f"{loop_cell(loop)} | {ratio(cached, loop)} | {ratio(cold, loop)} |"
            f"{star_cells(r, loop) if star else ''}"
            f"{server_cells(r.get('server'), r.get('server_again'), loop) if server else ''} {peak} | "
            f"{cpu} | {load:.1f} | {r['check']} |"
        )
    return lines


def section(run: dict[str, Any], rows: list[dict[str, Any]], image: str) -> str:
    m = run["machine"]
    loads = [c["load_avg"] for r in rows for c in (r["cached"], r["cold"], r["loop"])]
    top = max(loads, default=run["load_start"])
    parts = [
        HEADING,
        "",
        f"Command: `{run['command']}`",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram']} RAM, {m['os']}; Python "
        f"{m['python']}, Java {m['java']}, pyspark {m['pyspark']}, pyoxigraph "
        f"{m['pyoxigraph']}; {m['date']}. 1-minute load average {run['load_start']:.1f} "
        f"at start, {run['load_end']:.1f} at end, up to {top:.1f} when a process started; "
        f"timeout {run['timeout']:.0f} s per process.",
        "",
    ]
    # The load average counts the benchmark's own processes (a Spark JVM
    # keeps 2-4 threads busy): other work is the CPU spent outside them.
    cells = [
        c
        for r in rows
        for c in (r["cached"], r["cold"], r["loop"], r.get("server"), r.get("cached_star"),
                  r.get("cold_star"))
    ]  # fmt: skip
    cells = [c for c in cells if c is not None]
    others = [
        c["others_cpu"] / c["seconds"]
        for c in cells
        if c.get("others_cpu") is not None and c["seconds"]
    ]
    busy = max(others) > 0.25 if others else run["load_start"] > 0.5 * int(m["cores"])
    if others:
        parts += [
            f"Other work: at most {max(others):.2f} of a core beside any one measured "
            "process (CPU the machine spent outside it); the load averages count the "
            "benchmark's own processes, a Spark JVM keeps 2-4 threads busy.",
            "",
        ]
    if busy:
        parts += [
            "**Busy machine**: other work ran beside this one, so these figures are "
            "upper bounds and their ratios are not those of a quiet machine (the "
            "oracle's process tree runs many threads; the loop one). The table has to "
            "be run again on a quiet machine with the command above.",
            "",
        ]
    elif not others:
        parts += [
            "Nothing else ran (the load at start was below half the cores); the "
            "load averages count the benchmark's own processes, a Spark JVM keeps "
            "2-4 threads busy.",
            "",
        ]
    missing = [s for s in run["all_sizes"] if s not in run["sizes"]]
    if missing:
        parts += [
            f"This run covers {', '.join(run['sizes'])} only; the full table (adds "
            f"{', '.join(missing)}) is `.venv/bin/python benchmarks/bench_oracle.py --e2e`, "
            "several hours, on a quiet machine.",
            "",
        ]
    parts += [METHOD, ""]
    if any("cached_star" in r for r in rows):
        parts += [STAR_METHOD, ""]
    if any("server" in r for r in rows):
        started = run.get("server", {}).get("started_in")
        note = f" The server started in {started:.1f} s, not counted." if started else ""
        parts += [SERVER_METHOD + note, ""]
    parts += [f"![seconds against triples, log-log]({image})", ""]
    parts += ["| stream | triples | N-Triples file | written in |", "|---|---:|---:|---:|"]
    for size, s in run["streams"].items():
        if s.get("oracle_only"):
            parts.append(f"| {run['labels'][size]} | {s['triples']:,} (7 a station and "
                         "second) | not written: oracle only | - |")  # fmt: skip
            continue
        parts.append(f"| {run['labels'][size]} | {s['triples']:,} | {s['mb']:,.0f} MB | "
                     f"{s['seconds']:.1f} s |")  # fmt: skip
    parts += ["", *table(rows), ""]
    return "\n".join(parts) + "\n"
