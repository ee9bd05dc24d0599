"""End to end: ``rspbench oracle`` against a pyoxigraph loop, a fresh process each.

Run (all sizes: hours; on a quiet machine)::

    .venv/bin/python benchmarks/bench_oracle.py --e2e
    .venv/bin/python benchmarks/bench_oracle.py --e2e --sizes 100k,1M --queries q1 \\
        --windows tumbling --timeout 900 --out /tmp/e2e.md

Each row is one workload (a yabench-sg1 stream, a window, a query; the
queries of :mod:`bench_oracle`) measured three times, each in a new process
(:mod:`fresh_process`), so Spark's start and JVM warm-up, imports, writing
the stream cache and the output file are all in the figures:

- *oracle, cached*: ``rspbench oracle SPEC -o out.jsonl`` with the stream
  already in the stream cache (its stored output removed, so it computes);
- *oracle, cold*: the same with ``RSPBENCH_CACHE_DIR`` an empty folder, so
  the stream is generated and written to Parquet first (this run fills the
  cache the cached run then reads);
- *pyoxigraph loop*: ``benchmarks/pyoxigraph_loop.py`` parsing the same
  stream from a timestamped N-Triples file (written once per size with
  ``rspbench stream generate``, not timed), cutting the windows and running
  pyoxigraph on each.

The spec (generated into a temporary folder) pins the profile both sides
follow: bounds ``[o,c]`` (YABench), t0 = 0, report on window close, RStream,
empty relations on, so each closed window gives one relation. Per row: wall
seconds, peak memory and CPU seconds of each process tree, and the solution
count of each window, compared between the oracle and the loop. A run past
``--timeout`` seconds, out of memory or failing is shown as such.

Writes a Markdown section (``### End to end (fresh process per row)``,
replaced in ``--out``, else added), the SVG chart ``--svg`` and, with
``--json``, the raw rows (``--render JSON...`` redraws both from them, the
rows of several runs' files together).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import e2e_chart  # noqa: E402
import fresh_process  # noqa: E402
from workloads import IRI, QUERIES, SEED, WINDOW, WINDOWS  # noqa: E402

# name: (label, stations, duration ms); 7 triples per station and second.
SIZES: dict[str, tuple[str, int, int]] = {
    "100k": ("100 stations, 142 s", 100, 142_000),
    "1M": ("1,000 stations, 142 s", 1000, 142_000),
    "2.1M": ("YABench big: 10,000 stations, 30 s", 10_000, 30_000),
    "5M": ("10,000 stations, 71 s", 10_000, 71_000),
    "20M": ("10,000 stations, 286 s", 10_000, 286_000),
    "50M": ("10,000 stations, 715 s", 10_000, 715_000),
    "100M": ("10,000 stations, 1,430 s", 10_000, 1_430_000),
    "200M": ("10,000 stations, 2,860 s", 10_000, 2_860_000),
}
TRIPLES_PER_STATION_SECOND = 7  # yabench-sg1: what write_stream counts at every size
ALIASES = {"big": "2.1M", "filter": "q1", "avg": "q4", "join": "q6", "self-join": "q6"}
DOC = HERE.parent / "docs" / "benchmarks.md"
SVG = HERE.parent / "docs" / "images" / "oracle-e2e.svg"
JSON = HERE / "results" / "oracle-e2e.json"
PROFILE = {"bounds": "[o,c]", "t0": 0}


# -- workloads -------------------------------------------------------------------


def spec_text(stations: int, duration: int, query: str, window: str) -> str:
    """A spec with the row's stream, query and profile."""
    _, width, slide = WINDOWS[window]
    text = QUERIES[query][1].replace("{range}", str(width)).replace("{step}", str(slide))
    return f"""\
rspbench: 1
name: e2e-{stations}x{duration}-{query}-{window}
streams:
  - iri: {IRI}
    source: {{kind: generator, name: yabench-sg1, stations: {stations},
             interval: 1000, duration: {duration}, seed: {SEED}}}
query: |
{textwrap.indent(text.strip(), "  ")}
engines: [reference]
semantics:
  bounds: "{PROFILE["bounds"]}"
  t0: {PROFILE["t0"]}
  report: [window-close]
  r2s: [RStream]
  empty_relations: true
"""


def sparql_of(query: str, window: str) -> str:
    """The per-window SPARQL the loop runs (the window as a named graph)."""
    from pytest_rspbench.rsp.rspql import parse

    _, width, slide = WINDOWS[window]
    text = QUERIES[query][1].replace("{range}", str(width)).replace("{step}", str(slide))
    return parse(text).static_sparql


def rspbench() -> list[str]:
    script = Path(sys.executable).with_name("rspbench")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from pytest_rspbench.cli import main; "
            "sys.exit(main())"]  # fmt: skip


def write_stream(size: str, target: Path) -> dict[str, Any]:
    """The size's stream as timestamped N-Triples (what the loop parses)."""
    _, stations, duration = SIZES[size]
    sets = {"stations": stations, "interval": 1000, "duration": duration, "seed": SEED}
    command = [*rspbench(), "stream", "generate", "yabench-sg1", "--quiet"]
    command += [f"--set={k}={v}" for k, v in sets.items()]
    command += ["--format", "ntriples-ts", "-o", str(target)]
    out = fresh_process.run(command, stderr_file=target.with_suffix(".err"))
    if not out.ok:
        raise RuntimeError(f"rspbench stream generate failed:\n{out.stderr}")
    with target.open("rb") as lines:
        triples = sum(1 for _ in lines)
    return {"triples": triples, "mb": target.stat().st_size / 2**20, "seconds": out.seconds}


def nominal(size: str) -> dict[str, Any]:
    """A size whose stream is not written out (no loop): its triple count from
    yabench-sg1's rate, which write_stream counts exactly at the other sizes."""
    _, stations, duration = SIZES[size]
    triples = TRIPLES_PER_STATION_SECOND * stations * duration // 1000
    return {"triples": triples, "mb": 0.0, "seconds": 0.0, "oracle_only": True}


# -- one row ---------------------------------------------------------------------


def counts(path: Path) -> dict[int, int] | None:
    """Solutions per window index in an output file (None: no file)."""
    if not path.exists():
        return None
    found: dict[int, int] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                item = json.loads(line)
                found[item["index"]] = found.get(item["index"], 0) + len(item["bindings"])
    return found


def measured(outcome: fresh_process.Outcome, output: Path) -> dict[str, Any]:
    """The outcome as a row cell, with the output's windows and solutions."""
    cell = {
        "status": outcome.status, "seconds": outcome.seconds,
        "peak_mb": outcome.peak_mb, "cpu": outcome.cpu, "load_avg": outcome.load,
        "others_cpu": outcome.others,
    }  # fmt: skip
    found = counts(output) if outcome.ok else None
    if found is not None:
        cell |= {"windows": len(found), "solutions": sum(found.values()), "per_window": found}
    if not outcome.ok:
        cell["stderr"] = outcome.stderr.splitlines()[-3:]
    if m := re.search(r"evaluator (\S+), ([\d.]+) s", outcome.stderr):
        cell |= {"evaluator": m[1], "inside": float(m[2])}
    return cell


def run_oracle(
    spec: Path,
    cache: Path,
    out: Path,
    timeout: float,
    server: WarmServer | None = None,
    star: bool = False,
) -> dict[str, Any]:
    """``rspbench oracle`` in a fresh process; on ``server`` (a client with no JVM)
    when given, its CPU and memory counted with the client's; with ``star``, the
    stream's property table on (``RSPBENCH_STAR_LAYOUT=on``)."""
    env = os.environ | {"RSPBENCH_CACHE_DIR": str(cache)}
    env["RSPBENCH_STAR_LAYOUT"] = "on" if star else "off"
    command = [*rspbench(), "oracle", str(spec), "-o", str(out)]
    if server is not None:
        command += ["--spark-master", server.url]
        before = server.usage()
    outcome = fresh_process.run(
        command, env=env, cwd=spec.parent, timeout=timeout,
        stderr_file=out.with_suffix(".err"),
    )  # fmt: skip
    cell = measured(outcome, out)
    if server is not None:
        cpu, rss = server.usage()
        # The server's work is the call's: not "other work" beside it.
        cell |= {"client_cpu": cell["cpu"], "server_cpu": cpu - before[0], "server_mb": rss}
        cell["cpu"] += cell["server_cpu"]
        if cell.get("others_cpu") is not None:
            cell["others_cpu"] = max(0.0, cell["others_cpu"] - cell["server_cpu"])
    return cell


class WarmServer:
    """``rspbench spark serve`` on a free port, started once for every row."""

    def __init__(self, folder: Path, timeout: float = 300.0) -> None:
        import socket
        import subprocess
        import time

        import psutil

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.log = folder / "server.log"
        began = time.monotonic()
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [*rspbench(), "spark", "serve", "--port", str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        while "Ctrl-C stops it." not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() - began > timeout:
                self.stop()
                raise RuntimeError(f"rspbench spark serve did not start:\n{self.log.read_text()}")
            time.sleep(0.2)
        self.started_in = time.monotonic() - began
        self.root = psutil.Process(self.process.pid)

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def usage(self) -> tuple[float, float]:
        """CPU seconds so far and resident MB now, of the server's process tree."""
        import psutil

        cpu = rss = 0.0
        for proc in [self.root, *self.root.children(recursive=True)]:
            try:
                times, memory = proc.cpu_times(), proc.memory_info()
            except psutil.Error:
                continue
            cpu += times.user + times.system + times.children_user + times.children_system
            rss += memory.rss / 2**20
        return cpu, rss

    def stop(self) -> None:
        import signal

        if self.process.poll() is None:
            # SIGTERM, not SIGINT: a process started from a background job
            # of a script inherits SIGINT ignored.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except Exception:
                os.killpg(self.process.pid, signal.SIGKILL)


def run_loop(
    stream: Path, query: Path, size: str, window: str, out: Path, timeout: float
) -> dict[str, Any]:
    _, width, slide = WINDOWS[window]
    command = [
        sys.executable, str(HERE / "pyoxigraph_loop.py"), str(stream),
        "--query", str(query), "--range", str(width), "--step", str(slide),
        "--end", str(SIZES[size][2]), "--t0", str(PROFILE["t0"]),
        "--bounds", str(PROFILE["bounds"]), "--graph", WINDOW, "-o", str(out),
    ]  # fmt: skip
    outcome = fresh_process.run(command, timeout=timeout, stderr_file=out.with_suffix(".err"))
    cell = measured(outcome, out)
    if outcome.ok:
        cell |= json.loads(outcome.stderr.splitlines()[-1])  # its summary line
        cell["seconds"] = outcome.seconds  # the process's, not the loop's own
    return cell


def has_stream(cache: Path) -> bool:
    """Whether the cache holds a published stream entry."""
    return any(p.is_dir() and len(p.name) == 64 for p in cache.glob("*"))


def run_row(
    folder: Path,
    stream: Path,
    size: str,
    window: str,
    query: str,
    timeout: float,
    server: WarmServer | None = None,
    star: str = "off",
) -> dict[str, Any]:
    """The fresh processes of one workload, in the order loop, cold, cached and,
    with a ``server``, the cached stream on it. ``star``: ``off`` (the triple
    table only), ``on`` (the property table in every oracle run) or ``both``
    (cold and cached again with it, in a cache of their own: *cold, star* pays
    for writing the property table, *cached, star* reads it)."""
    name = f"{size}-{query}-{window}"
    spec = folder / f"{name}.rspbench.yaml"
    spec.write_text(spec_text(*SIZES[size][1:], query, window), encoding="utf-8")
    rq = folder / f"{name}.rq"
    rq.write_text(sparql_of(query, window), encoding="utf-8")
    cache = folder / f"cache-{name}"
    if stream.exists():
        loop = run_loop(stream, rq, size, window, folder / f"{name}.loop.jsonl", timeout)
    else:
        loop = {"status": "not run (oracle only)", "seconds": 0.0, "peak_mb": 0.0,
                "cpu": 0.0, "load_avg": 0.0}  # fmt: skip
    cells: dict[str, Any] = {"loop": loop}
    progress("pyoxigraph loop", cells["loop"])
    layouts = [("", star == "on")] + ([("_star", True)] if star == "both" else [])
    for suffix, on in layouts:
        where = cache.with_name(cache.name + suffix)
        label = " (star layout)" if on else ""
        cold = run_oracle(spec, where, folder / f"{name}.cold{suffix}.jsonl", timeout, star=on)
        cells["cold" + suffix] = cold
        progress("oracle cold" + label, cold)
        # The stored output would be read back: remove it, keep the stream.
        shutil.rmtree(where / "expected", ignore_errors=True)
        if has_stream(where):
            out = folder / f"{name}.cached{suffix}.jsonl"
            cells["cached" + suffix] = run_oracle(spec, where, out, timeout, star=on)
        else:
            cells["cached" + suffix] = {"status": "not run (the cold run left no cached stream)",
                               "seconds": 0.0, "peak_mb": 0.0, "cpu": 0.0, "load_avg": 0.0}  # fmt: skip
        progress("oracle cached" + label, cells["cached" + suffix])
    if server is not None:
        # On the last layout's cache: the star layout's when it was measured.
        where = cache.with_name(cache.name + layouts[-1][0])
        shutil.rmtree(where / "expected", ignore_errors=True)
        out = folder / f"{name}.server.jsonl"
        cells["server"] = run_oracle(spec, where, out, timeout, server, star=layouts[-1][1])
        progress("oracle on the warm server", cells["server"])
        # A user's second call: the same again, its stored output removed.
        shutil.rmtree(where / "expected", ignore_errors=True)
        again = run_oracle(spec, where, out, timeout, server, star=layouts[-1][1])
        cells["server_again"] = again
        progress("oracle on the warm server, second call", again)
    for suffix, _ in layouts:
        shutil.rmtree(cache.with_name(cache.name + suffix), ignore_errors=True)
    for path in folder.glob(f"{name}.*.jsonl"):
        path.unlink()
    cells["check"] = check(cells)
    return cells


def check(cells: dict[str, Any]) -> str:
    """Do the oracle's and the loop's solution counts agree, window by window?"""
    loop = cells["loop"].get("per_window")
    texts = []
    for method in ("cached", "cold", "cached_star", "cold_star", "server", "server_again"):
        if method not in cells:
            continue
        oracle = cells[method].get("per_window")
        if oracle is None or loop is None:
            continue
        if oracle == loop:
            texts.append(f"{method}: agree")
            continue
        differ = sorted(i for i in set(oracle) | set(loop) if oracle.get(i) != loop.get(i))
        i = differ[0]
        texts.append(
            f"**{method}: differ in {len(differ)} window(s)**, e.g. window {i}: "
            f"oracle {oracle.get(i, 'none')}, loop {loop.get(i, 'none')}"
        )
    if not texts:
        return "not compared (a run did not finish)"
    if all(t.endswith("agree") for t in texts):
        return "agree"
    return "; ".join(texts)


def progress(name: str, cell: dict[str, Any]) -> None:
    extra = f", {cell['solutions']:,} solutions" if "solutions" in cell else ""
    print(f"    {name}: {cell['status']}, {cell['seconds']:.1f} s, "
          f"{cell['peak_mb']:.0f} MB{extra}", file=sys.stderr)  # fmt: skip


# -- the run -----------------------------------------------------------------------


def chosen(values: list[str] | None, known: dict[str, Any], what: str) -> list[str]:
    """Names from comma-separated, repeatable options, in the known order."""
    if not values:
        return list(known)
    names = [ALIASES.get(n.strip(), n.strip()) for v in values for n in v.split(",")]
    wrong = [n for n in names if n not in known]
    if wrong:
        sys.exit(f"--{what}: unknown {', '.join(wrong)}; choose from {', '.join(known)}")
    return [n for n in known if n in names]


def warm_up(folder: Path, timeout: float, server: WarmServer | None = None) -> float:
    """An untimed oracle run on a tiny stream: Spark's jars into the page cache
    (and, with ``server``, that server's first job)."""
    spec = folder / "warm-up.rspbench.yaml"
    spec.write_text(spec_text(20, 30_000, "q1", "tumbling"), encoding="utf-8")
    cell = run_oracle(spec, folder / "cache-warm-up", folder / "warm-up.jsonl", timeout, server)
    shutil.rmtree(folder / "cache-warm-up", ignore_errors=True)
    print(f"warm-up oracle run: {cell['status']}, {cell['seconds']:.1f} s", file=sys.stderr)
    return cell["seconds"]


def measure(args: argparse.Namespace, run: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rspbench-e2e-", dir=args.workdir) as tmp:
        folder = Path(tmp)
        run["warm_up"] = warm_up(folder, args.timeout)
        server = WarmServer(folder) if args.server else None
        try:
            if server is not None:
                run["server"] = {"started_in": server.started_in}
                run["server"]["warm_up"] = warm_up(folder, args.timeout, server)
                print(f"warm server {server.url} started in {server.started_in:.1f} s",
                      file=sys.stderr)  # fmt: skip
            for size in run["sizes"]:
                stream = folder / f"{size}.nt"
                if size in run["oracle_only"]:
                    run["streams"][size] = info = nominal(size)
                    print(f"{size}: {info['triples']:,} triples, oracle only", file=sys.stderr)
                else:
                    run["streams"][size] = info = write_stream(size, stream)
                    print(f"{size}: {info['triples']:,} triples, {info['mb']:.0f} MB "
                          f"written in {info['seconds']:.1f} s", file=sys.stderr)  # fmt: skip
                for window in run["windows"]:
                    for query in run["queries"]:
                        print(f"  {size} {window} {query}", file=sys.stderr)
                        cells = run_row(
                            folder, stream, size, window, query, args.timeout, server,
                            args.star_layout,
                        )  # fmt: skip
                        rows.append(row(size, window, query, info["triples"], cells))
                        save(args.json, run, rows)  # a long run keeps what it measured
                stream.unlink(missing_ok=True)
        finally:
            if server is not None:
                server.stop()
    run["load_end"] = os.getloadavg()[0]
    save(args.json, run, rows)
    return rows


def row(size: str, window: str, query: str, triples: int, cells: dict) -> dict[str, Any]:
    for cell in cells.values():
        if isinstance(cell, dict):
            cell.pop("per_window", None)
    return {
        "size": size, "size_label": SIZES[size][0], "triples": triples,
        "window": window, "window_label": WINDOWS[window][0],
        "query": query, "query_label": QUERIES[query][0],
    } | cells  # fmt: skip


def save(path: Path | None, run: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"run": run, "rows": rows}, indent=1) + "\n")


def emit(args: argparse.Namespace, run: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """The Markdown section into ``--out`` (and stdout), the chart into ``--svg``."""
    import page
    from e2e_report import section

    image = os.path.relpath(args.svg, args.out.resolve().parent)
    text = section(run, rows, image)
    print(text)
    page.publish(args.out, "oracle-e2e", text)
    m = run["machine"]
    busy = " (a busy machine: upper bounds)" if "**Busy machine**" in text else ""
    e2e_chart.write(
        args.svg,
        rows,
        "rspbench oracle vs a pyoxigraph per-window loop, a fresh process per run",
        f"yabench-sg1, bounds [o,c], t0 = 0; {m['cpu']}, {m['cores']} cores, "
        f"{m['date']}, load average {run['load_start']:.1f} at start{busy}",
    )
    print(f"wrote {args.out} and {args.svg}", file=sys.stderr)


def merged(saved: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run and its rows from several runs' saved files (the first run's
    settings; sizes, streams, dates and the highest starting load of all).
    A later file's row replaces an earlier one of the same workload (size,
    window, query), in its place: a re-measured row is drawn once.

    >>> one = {"run": {"sizes": ["1M"], "streams": {"1M": 1}, "command": "a",
    ...        "machine": {"date": "2026-11-27 04:58 UTC"}, "load_start": 1.0},
    ...        "rows": [{"size": "1M", "window": "t", "query": "q1", "s": 1},
    ...                 {"size": "1M", "window": "t", "query": "q6", "s": 2}]}
    >>> two = {"run": {"sizes": ["5M", "1M"], "streams": {"5M": 2}, "command": "b",
    ...        "machine": {"date": "2026-11-27 11:35 UTC"}, "load_start": 1.9},
    ...        "rows": [{"size": "5M", "window": "t", "query": "q1", "s": 3},
    ...                 {"size": "1M", "window": "t", "query": "q1", "s": 4}]}
    >>> run, rows = merged([one, two])
    >>> run["sizes"], run["machine"]["date"], run["load_start"]
    (['1M', '5M'], '2026-11-27, 2 runs (04:58, 11:35 UTC)', 1.9)
    >>> [(r["size"], r["query"], r["s"]) for r in rows]
    [('1M', 'q1', 4), ('1M', 'q6', 2), ('5M', 'q1', 3)]
    """
    if len(saved) == 1:
        return saved[0]["run"], saved[0]["rows"]
    runs = [s["run"] for s in saved]
    run = dict(runs[0])
    run["sizes"] = list(dict.fromkeys(size for r in runs for size in r["sizes"]))
    run["streams"] = {k: v for r in runs for k, v in r["streams"].items()}
    run["command"] = "; ".join(r["command"] for r in runs)
    dates = [r["machine"]["date"].split() for r in runs]
    times = ", ".join(d[1] for d in dates)
    run["machine"] = dict(runs[0]["machine"], date=f"{dates[0][0]}, {len(runs)} runs ({times} UTC)")
    run["load_start"] = max(r["load_start"] for r in runs)
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in saved:
        for row in s["rows"]:
            rows[(row["size"], row["window"], row["query"])] = row
    return run, list(rows.values())


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    options = argparse.ArgumentParser(
        prog="bench_oracle.py --e2e", description=__doc__.split("\n\n")[0]
    )
    options.add_argument(
        "--sizes",
        action="append",
        metavar="LIST",
        help=f"comma-separated, of {', '.join(SIZES)} (default: all)",
    )
    options.add_argument(
        "--queries",
        action="append",
        metavar="LIST",
        help=f"of {', '.join(QUERIES)} or filter, avg, join (default: all)",
    )
    options.add_argument(
        "--windows",
        action="append",
        metavar="LIST",
        help=f"of {', '.join(WINDOWS)} (default: both)",
    )
    options.add_argument(
        "--timeout",
        type=float,
        default=3600.0,
        help="seconds per process before it is killed (default 3600)",
    )
    options.add_argument(
        "--out",
        type=Path,
        default=DOC,
        help="Markdown page whose section is replaced (default docs/benchmarks.md)",
    )
    options.add_argument(
        "--svg", type=Path, default=SVG, help="the chart (default docs/images/oracle-e2e.svg)"
    )
    options.add_argument(
        "--json",
        type=Path,
        default=JSON,
        help="raw rows, saved after each row (default benchmarks/results/oracle-e2e.json)",
    )
    options.add_argument(
        "--render",
        type=Path,
        nargs="+",
        metavar="JSON",
        help="only redraw the section and chart from saved rows (several runs' files: "
        "their rows together, e.g. the chart of every size)",
    )
    options.add_argument(
        "--workdir", type=Path, help="where the temporary folder goes (default: the system's)"
    )
    options.add_argument(
        "--server",
        action="store_true",
        help="also run each row's cached oracle as a fresh client of one warm Spark "
        "Connect server (`rspbench spark serve`, started once, not timed) (default: off)",
    )
    options.add_argument(
        "--oracle-only",
        action="append",
        metavar="LIST",
        help="sizes measured without the loop (no N-Triples file is written: 200M "
        "triples would be about 20 GB and the loop half an hour per query)",
    )
    options.add_argument(
        "--star-layout",
        choices=("off", "on", "both"),
        default="off",
        help="the stream's property table for star patterns (RSPBENCH_STAR_LAYOUT): off, "
        "on in every oracle run, or both (cold and cached measured again with it, side by "
        "side; the warm server then uses it) (default: off)",
    )
    args = options.parse_args(argv)  # fmt: skip
    if args.render:
        run, rows = merged([json.loads(f.read_text(encoding="utf-8")) for f in args.render])
        order = {name: i for i, name in enumerate([*SIZES, *QUERIES])}
        rows.sort(key=lambda r: (order.get(r["size"], 99), order.get(r["query"], 99)))
        emit(args, run, rows)
        return
    from e2e_report import machine

    run: dict[str, Any] = {
        "command": " ".join([".venv/bin/python benchmarks/bench_oracle.py --e2e", *argv]),
        "machine": machine(),
        "load_start": os.getloadavg()[0],
        "sizes": chosen(args.sizes, SIZES, "sizes"),
        "all_sizes": list(SIZES),
        "windows": chosen(args.windows, WINDOWS, "windows"),
        "queries": chosen(args.queries, QUERIES, "queries"),
        "timeout": args.timeout,
        "star_layout": args.star_layout,
        "oracle_only": chosen(args.oracle_only, SIZES, "oracle-only") if args.oracle_only else [],
        "labels": {s: SIZES[s][0] for s in SIZES},
        "streams": {},
    }
    rows = measure(args, run)
    emit(args, run, rows)


if __name__ == "__main__":
    main()
