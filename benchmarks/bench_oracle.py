"""The Spark oracle against two per-window loops (rdflib, pyoxigraph), side by side.

Run: ``.venv/bin/python benchmarks/bench_oracle.py [--quick] [--sizes ...]``.
Prints a markdown section (writes no files but a temporary stream cache).
The figures are *in session*: Spark is started and warmed up before any
timing. ``--e2e`` runs the end-to-end benchmark instead (:mod:`oracle_e2e`:
a fresh process per run, Spark start included, ``rspbench oracle`` against
``pyoxigraph_loop.py``), which writes docs/benchmarks.md and its chart.

Workloads: yabench-sg1 streams (seed 123123123, 1 s interval) of about 100k
and 1M triples, *YABench big* (10,000 stations, 30 s: 2.1M triples) and
optionally 5M triples (10,000 stations, 71 s), each under a 5 s tumbling and
a 10 s / 2 s sliding window, with three queries in the style of YABench:

- ``Q1 filter``: observations above 50.0 and their sensors (Experiment 1);
- ``Q4 avg/station``: AVG of the values above 50.0, GROUP BY sensor
  (Experiment 2's aggregate, per station);
- ``Q6 self-join``: two observations of one sensor whose values differ by
  more than 0.0 (Experiment 3).

Profile: bounds ``[o,c)``, fixed ``t0 = 0``, report ``window-close`` (every
closed window is evaluated), RStream, empty relations on, so each window
has exactly one relation.

Evaluators, all on the same stream and query:

- *oracle*: :func:`~pytest_rspbench.oracle.oracle.expected_output` with a
  :class:`~pytest_rspbench.oracle.store.streamcache.StreamCache` as the plugin uses
  it, in this process, Spark ``local[2]`` started once before any timing
  (its start is reported apart, as is a first call on a tiny stream that
  warms the JVM up). The stream's Parquet entry is written once per stream
  (*cold*, timed apart); the query figures read the filled cache (*warm*).
- *pyoxigraph* and *rdflib* loops: in a child process each (so each one's
  peak RSS is its own), the stream is generated, cut into windows with
  :mod:`pytest_rspbench.rsp.windows` (``closed_by``, ``window``, ``contains``)
  and, per window, its set of triples loaded into a fresh
  ``pyoxigraph.Store`` / ``rdflib.Dataset`` as the window's named graph and
  the static query of :func:`pytest_rspbench.rsp.rspql.parse` run on it. Their
  times include generating the stream (reported apart as *generation*).
  rdflib is slow: past ``--rdflib-budget`` seconds it stops and its time is
  extrapolated from the windows done (marked *extrapolated*).

Every window's bag is compared between the three, by RDF term equality; a
difference is printed (stderr and the table) with the first differing
solutions. Peak memory: for the oracle the RSS of this process's tree
(Python, the Spark JVM and its Python workers), sampled every 50 ms during
the call; for the loops the child's own peak RSS (``ru_maxrss``).

``--t0-any`` also runs the oracle with ``t0: any`` (every t0 class) in a
fresh process, Spark start included, stopped after ``--t0-any-timeout``
seconds. As in the plugin, the oracle gets an engine's output (here: that of
one whose t0 is ``ENGINE_T0``, without times or windows) and computes the
classes its content allows (:mod:`pytest_rspbench.oracle.t0.narrowing`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloads import IRI, QUERIES, SEED, WINDOW, WINDOWS

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.rsp.bags import Solution, match, solution
from pytest_rspbench.rsp.rspql import RspqlQuery, parse
from pytest_rspbench.rsp.windows import Bounds, WindowSpec
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.sources import open_source

MASTER = "local[2]"

# name: (label, generator settings)
SIZES: dict[str, tuple[str, dict[str, int]]] = {
    "100k": ("100 stations, 142 s", {"stations": 100, "duration": 142_000}),
    "1M": ("1,000 stations, 142 s", {"stations": 1000, "duration": 142_000}),
    "big": ("YABench big: 10,000 stations, 30 s", {"stations": 10_000, "duration": 30_000}),
    "5M": ("10,000 stations, 71 s", {"stations": 10_000, "duration": 71_000}),
    "tiny": ("20 stations, 30 s (smoke test)", {"stations": 20, "duration": 30_000}),
}

T0 = 0
ENGINE_T0 = 2345  # --t0-any: the t0 of the engine whose reported times narrow the classes
SEMANTICS = Semantics(
    bounds=Bounds.CLOSED_OPEN,
    t0=T0,
    report=("window-close",),
    r2s=("RStream",),
    empty_relations=True,
)

Bags = dict[int, Counter]  # window index -> bag of solutions


# -- workloads ----------------------------------------------------------------


def stream_of(size: str) -> Stream:
    _, params = SIZES[size]
    config = {"kind": "generator", "name": "yabench-sg1", "interval": 1000, "seed": SEED}
    return open_source(config | params, Path("."), IRI)


def query_of(query: str, window: str) -> RspqlQuery:
    _, width, slide = WINDOWS[window]
    text = QUERIES[query][1].replace("{range}", str(width))
    return parse(text.replace("{step}", str(slide)))


def spec_of(query: RspqlQuery, semantics: Semantics = SEMANTICS) -> WindowSpec:
    (decl,) = query.windows
    return WindowSpec(decl.width, decl.slide, Bounds(semantics.bounds))


def stream_end(stream: Stream) -> int:
    if stream.end is not None:
        return stream.end
    last = 0
    for event in stream.events():
        last = event.time
    return last


def windows_of(
    stream: Stream, spec: WindowSpec, t0: int, end: int
) -> Iterator[tuple[int, set[tuple[str, str, str]]]]:
    """``(index, set of triples)`` of every window closed by ``end``, in order.

    Reads the stream once, keeping only the events a window still open can
    hold (what a per-window engine does). Window arithmetic comes from
    :class:`WindowSpec`: which windows exist (``closed_by``), their ends
    (``window``) and which events they hold (``contains``).
    """
    closed = spec.closed_by(t0, end)
    if not closed:
        return
    buffer: deque[Event] = deque()
    i = 0

    def content(index: int) -> set[tuple[str, str, str]]:
        o, c = spec.window(index, t0)
        return {t for e in buffer if spec.contains(o, c, e.time) for t in e.triples}

    for event in stream.events():
        # Window i is complete once time has passed its close.
        while i < len(closed) and event.time > spec.window(closed[i], t0)[1]:
            yield closed[i], content(closed[i])
            i += 1
            if i < len(closed):
                o, _ = spec.window(closed[i], t0)
                while buffer and buffer[0].time < o:
                    buffer.popleft()
        if i == len(closed):
            return
        buffer.append(event)
    for index in closed[i:]:
        yield index, content(index)


# -- per-window baselines (run in a child process) -------------------------------


def nquads(triples: set[tuple[str, str, str]]) -> bytes:
    return "".join(f"{s} {p} {o} <{WINDOW}> .\n" for s, p, o in triples).encode()


def pyoxigraph_window(sparql: str, triples: set[tuple[str, str, str]]) -> tuple[list, float]:
    import pyoxigraph

    began = time.perf_counter()
    store = pyoxigraph.Store()
    if triples:
        store.bulk_extend(pyoxigraph.parse(nquads(triples), format=pyoxigraph.RdfFormat.N_QUADS))
    loaded = time.perf_counter() - began
    result = store.query(sparql)
    names = [v.value for v in result.variables]
    rows = [{n: str(row[n]) for n in names if row[n] is not None} for row in result]
    return rows, loaded


def rdflib_window(sparql: str, triples: set[tuple[str, str, str]]) -> tuple[list, float]:
    import rdflib

    began = time.perf_counter()
    dataset = rdflib.Dataset()
    if triples:
        dataset.parse(data=nquads(triples).decode(), format="nquads")
    loaded = time.perf_counter() - began
    result = dataset.query(sparql)
    names = [str(v) for v in result.vars or ()]
    rows = [{n: row[n].n3() for n in names if row[n] is not None} for row in result]
    return rows, loaded


def run_loop(job: dict[str, Any]) -> dict[str, Any]:
    """One baseline on one workload: times, peak RSS and the bags."""
    evaluate = {"pyoxigraph": pyoxigraph_window, "rdflib": rdflib_window}[job["evaluator"]]
    evaluate("SELECT * WHERE { ?s ?p ?o }", set())  # imports outside the timing
    stream = stream_of(job["size"])
    query = query_of(job["query"], job["window"])
    spec = spec_of(query)
    end = stream_end(stream)
    total = len(spec.closed_by(T0, end))
    budget = job.get("budget")
    progress = Path(job["progress"])
    bags: Bags = {}
    load = run = 0.0
    began = time.perf_counter()
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = used.ru_utime + used.ru_stime

    def state() -> dict[str, Any]:
        used = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "seconds": time.perf_counter() - began,
            "cpu": used.ru_utime + used.ru_stime - cpu0,
            "load": load,
            "query": run,
            "windows": len(bags),
            "total_windows": total,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }

    progress.write_text(json.dumps(state()))
    for index, triples in windows_of(stream, spec, T0, end):
        t = time.perf_counter()
        rows, loaded = evaluate(query.static_sparql, triples)
        load += loaded
        run += time.perf_counter() - t - loaded
        bags[index] = Counter(solution(b) for b in rows)
        if budget is not None:
            # What the parent reports if it has to stop a window that never ends.
            progress.write_text(json.dumps(state()))
            if time.perf_counter() - began > budget:
                break
    return state() | {"bags": bags}


def generation_seconds(size: str) -> tuple[float, int]:
    """Wall time to generate the stream alone (what every loop also pays)."""
    began = time.perf_counter()
    triples = sum(len(e.triples) for e in stream_of(size).events())
    return time.perf_counter() - began, triples


def in_child(job: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Run ``job`` (``--worker``) in a fresh interpreter.

    Past ``timeout`` seconds the child (and its Spark JVM) is killed and what
    it reported so far comes back with ``"stopped": True``.
    """
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.pickle"
        progress = Path(folder) / "progress.json"
        job = job | {"progress": str(progress)}
        command = [sys.executable, __file__, "--worker", json.dumps(job), str(out)]
        child = subprocess.Popen(command, start_new_session=True)
        try:
            code = child.wait(timeout)
        except subprocess.TimeoutExpired:
            # The child leads its own process group (it and its Spark JVM).
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            done = json.loads(progress.read_text()) if progress.exists() else {}
            return done | {"stopped": True}
        if code != 0:
            raise RuntimeError(f"worker {job} failed with exit status {code}")
        return pickle.loads(out.read_bytes())


# -- the oracle ------------------------------------------------------------------


def tree_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of this process and each descendant, by pid."""
    import psutil

    me = psutil.Process()
    used = {}
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        used[process.pid] = times.user + times.system
    return used


class Peak:
    """Peak RSS (MB) of this process tree while in the block, sampled every 50 ms,
    and the CPU seconds the tree used (Python, the Spark JVM, its workers)."""

    def __enter__(self) -> Peak:
        from pytest_rspbench.engine.sampling import Sampler

        began = time.monotonic()
        clock = lambda: (time.monotonic() - began, None)  # noqa: E731
        self.cpu_before = tree_cpu()
        self.sampler = Sampler(os.getpid(), 0.05, None, clock).start()
        return self

    def __exit__(self, *exc: object) -> None:
        samples = self.sampler.stop()
        self.rss_mb = max(s.rss for s in samples) / 2**20
        # Processes that started in the block count from zero.
        after = tree_cpu()
        self.cpu = sum(used - self.cpu_before.get(pid, 0.0) for pid, used in after.items())


class Deadline:
    """Cancel this session's Spark jobs once ``seconds`` have passed (0: never)."""

    def __init__(self, spark: Any, seconds: float) -> None:
        self.spark, self.seconds, self.fired = spark, seconds, False
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Deadline:
        if self.seconds > 0:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()

    def _run(self) -> None:
        if self.done.wait(self.seconds):
            return
        self.fired = True
        # Planning runs jobs too (broadcasts): cancel until the call gives up.
        while not self.done.wait(0.5):
            self.spark.sparkContext.cancelAllJobs()


def oracle_bags(expected: Any) -> Bags:
    (cls,) = expected.classes
    return {r.index: Counter(solution(b) for b in r.bindings) for r in cls.relations}


def run_oracle(
    spark: Any, cache: Any, size: str, window: str, query: str, limit: float
) -> dict[str, Any]:
    """The oracle on one workload (fixed t0, warm stream cache, result store off)."""
    from pytest_rspbench.oracle.oracle import expected_output

    q = query_of(query, window)
    with Peak() as peak, Deadline(spark, limit) as deadline:
        began = time.perf_counter()
        try:
            expected = expected_output(spark, q, [stream_of(size)], SEMANTICS, cache=cache)
        except Exception:
            if not deadline.fired:
                raise
            expected = None
        seconds = time.perf_counter() - began
    if expected is None:
        return {"seconds": seconds, "rss_mb": peak.rss_mb, "cpu": peak.cpu, "bags": None}
    bags = oracle_bags(expected)
    return {
        "seconds": seconds,
        "rss_mb": peak.rss_mb,
        "cpu": peak.cpu,
        "evaluator": expected.evaluator,
        "reason": expected.fallback_reason,
        "windows": len(bags),
        "bags": bags,
    }


def t0_any_job(job: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: start Spark, write the stream, run the oracle, t0: any."""
    from dataclasses import replace

    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.store.streamcache import StreamCache
    from pytest_rspbench.oracle.t0.narrowing import Reported, Told

    report = Path(job["progress"])
    began = time.perf_counter()
    provider = SparkProvider(MASTER)
    spark = provider.get()
    out: dict[str, Any] = {"spark_start": time.perf_counter() - began}
    report.write_text(json.dumps(out))
    cache = StreamCache(Path(job["cache"]))
    t = time.perf_counter()
    cache.materialise(spark, stream_of(job["size"]))
    out["write"] = time.perf_counter() - t
    report.write_text(json.dumps(out))
    semantics = replace(SEMANTICS, t0="any")
    q = query_of(job["query"], job["window"])
    stream = stream_of(job["size"])
    # What the plugin passes: the engine's output (here that of an engine whose
    # t0 is ENGINE_T0, reporting neither times nor windows); its content
    # narrows the classes (docs/oracle.md, "`t0: any`").
    t = time.perf_counter()
    fixed = expected_output(spark, q, [stream], replace(SEMANTICS, t0=ENGINE_T0), cache=cache)
    out["engine_output"] = time.perf_counter() - t
    told = Reported((tuple(Told(r.bindings) for r in fixed.classes[0].relations),))
    with Peak() as peak:
        t = time.perf_counter()
        expected = expected_output(spark, q, [stream], semantics, cache=cache, reported=told)
        out["oracle"] = time.perf_counter() - t
    out["classes"] = expected.total_classes
    out["computed"] = [c.label for c in expected.classes]
    out["narrowing"] = expected.narrowing
    out["relations"] = sum(len(c.relations) for c in expected.classes)
    out["rss_mb"] = peak.rss_mb
    provider.stop()
    return out


def t0_classes(size: str, window: str) -> int:
    """How many t0 classes ``t0: any`` has on this stream and window."""
    spec = spec_of(query_of("q1", window))
    times = sorted({e.time for e in stream_of(size).events()})
    return len(spec.t0_classes(times, 0))


# -- comparison --------------------------------------------------------------------


def compare(
    ref: str, name: str, reference: Bags, other: Bags, only: set[int] | None = None
) -> tuple[list[str], list[str]]:
    """Windows whose bags differ: ``(by value too, by term only)``.

    A window whose bags differ by RDF term but pair up when numeric literals
    compare by value within 0.001 (the specs' own ``literal_equality: value,
    tolerance: 0.001`` for these queries) goes to the second list; anything
    else is a real mismatch.
    """
    different, terms = [], []
    indices = set(reference) | set(other) if only is None else only
    for index in sorted(indices):
        a, b = reference.get(index, Counter()), other.get(index, Counter())
        if a == b:
            continue
        by_value = match(b, a, "value", 0.001).equal
        missing = sorted((a - b).elements())[:1]
        extra = sorted((b - a).elements())[:1]
        text = (
            f"window {index}: {ref} {sum(a.values())} solutions, {name} "
            f"{sum(b.values())}; first only in {ref} {fmt(missing)}; "
            f"first only in {name} {fmt(extra)}"
        )
        (terms if by_value else different).append(text)
    return different, terms


def fmt(solutions: list[Solution]) -> str:
    return "[" + "; ".join(", ".join(f"?{k}={v}" for k, v in s) for s in solutions) + "]"


# -- main ----------------------------------------------------------------------------


def warm_up(spark: Any, cache: Any) -> float:
    """A first oracle call on a tiny stream (JVM class loading, code generation)."""
    from pytest_rspbench.oracle.oracle import expected_output

    began = time.perf_counter()
    expected_output(spark, query_of("q1", "tumbling"), [stream_of("tiny")], SEMANTICS, cache=cache)
    return time.perf_counter() - began


def mark(result: tuple[list[str], list[str]] | None) -> str:
    if result is None:
        return "not compared"
    different, terms = result
    if different:
        return f"**MISMATCH in {len(different)} window(s)**"
    return "same values, other terms" if terms else "identical"


def check(
    rows: dict[str, dict[str, Any]], label: str, mismatches: list[str], notes: dict
) -> dict[str, tuple[list[str], list[str]] | None]:
    """Compare every loop's bags with the oracle's (with pyoxigraph's if the
    oracle did not finish), on the windows the loop did."""
    name0 = "oracle" if rows["oracle"]["bags"] is not None else "pyoxigraph"
    reference = rows[name0]
    checks = {}
    for name in ("pyoxigraph", "rdflib"):
        if name == name0:
            continue
        loop = rows[name]
        done = set(loop["bags"])
        if not done:
            checks[f"{name} vs {name0}"] = None
            continue
        if len(done) == loop["total_windows"]:
            done |= set(reference["bags"])
        different, terms = compare(name0, name, reference["bags"], loop["bags"], done)
        if name0 == "oracle" and loop["total_windows"] != reference["windows"]:
            different.insert(
                0, f"the oracle has {reference['windows']} windows, {name} {loop['total_windows']}"
            )
        checks[f"{name} vs {name0}"] = (different, terms)
        for text in different:
            print(f"MISMATCH {label}: {text}", file=sys.stderr)
            mismatches.append(f"{label}: {text}")
        if terms:
            notes.setdefault(
                f"{name} vs {name0}", f"{len(terms)} window(s) of {label}, e.g. {terms[0]}"
            )
    return checks


def main() -> None:
    if "--e2e" in sys.argv[1:]:
        from oracle_e2e import main as end_to_end  # its own options

        end_to_end([a for a in sys.argv[1:] if a != "--e2e"])
        return
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument(
        "--e2e",
        action="store_true",
        help="instead: end to end, a fresh process per run (oracle cached and cold, "
        "pyoxigraph loop on a file); `--e2e --help` lists its options",
    )
    options.add_argument("--quick", action="store_true", help="100k triples, tumbling, Q1 and Q4")
    options.add_argument("--sizes", nargs="+", choices=list(SIZES), default=["100k"])
    options.add_argument("--windows", nargs="+", choices=list(WINDOWS), default=list(WINDOWS))
    options.add_argument("--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES))
    options.add_argument(
        "--oracle-timeout",
        type=float,
        default=120.0,
        help="cancel an oracle call after this many seconds (default 120; 0: never)",
    )
    options.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="call the oracle N times per workload; the table adds the best repeat",
    )
    options.add_argument(
        "--rdflib-budget",
        type=float,
        default=30.0,
        help="seconds of rdflib per workload before extrapolating (default 30)",
    )
    options.add_argument(
        "--t0-any",
        action="store_true",
        help="instead: the oracle with t0: any, each in a fresh process (Spark start included)",
    )
    options.add_argument("--t0-any-timeout", type=float, default=300.0)
    options.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.worker:
        job = json.loads(args.worker[0])
        work = t0_any_job if job.get("kind") == "t0-any" else run_loop
        Path(args.worker[1]).write_bytes(pickle.dumps(work(job)))
        return
    if args.quick:
        args.sizes, args.windows, args.queries = ["100k"], ["tumbling"], ["q1", "q4"]
    import pyspark

    command = " ".join(["benchmarks/bench_oracle.py", *sys.argv[1:]])
    load = os.getloadavg()
    if args.t0_any:
        results = run_t0_any(args)
        report_t0_any(args, command, load, results, pyspark.__version__)
        return

    from pytest_rspbench.oracle.spark import SparkProvider
    from pytest_rspbench.oracle.store.streamcache import StreamCache

    began = time.perf_counter()
    provider = SparkProvider(MASTER)
    spark = provider.get()
    spark_start = time.perf_counter() - began
    print(f"Spark started in {spark_start:.1f} s", file=sys.stderr)
    streams, rows, mismatches = [], [], []
    notes: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        cache = StreamCache(Path(folder) / "cache")
        warm = warm_up(spark, cache)
        print(f"JVM warm-up on a tiny stream: {warm:.1f} s", file=sys.stderr)
        for size in args.sizes:
            generated, triples = generation_seconds(size)
            with Peak() as peak:
                t = time.perf_counter()
                cache.materialise(spark, stream_of(size))
                written = time.perf_counter() - t
            streams.append((size, triples, generated, written, peak.rss_mb))
            print(
                f"{size}: {triples:,} triples, generation {generated:.1f} s, "
                f"Parquet write {written:.1f} s",
                file=sys.stderr,
            )
            for window, query in itertools.product(args.windows, args.queries):
                label = f"{SIZES[size][0]}, {WINDOWS[window][0]}, {QUERIES[query][0]}"
                print(f"  {label}", file=sys.stderr)
                found = {
                    "oracle": run_oracle(spark, cache, size, window, query, args.oracle_timeout)
                }
                state = "" if "evaluator" in found["oracle"] else " (cancelled)"
                print(f"    oracle {found['oracle']['seconds']:.1f} s{state}", file=sys.stderr)
                if args.repeat > 1 and "evaluator" in found["oracle"]:
                    # The same call again: plan code generated and JIT-compiled already.
                    again = [
                        run_oracle(spark, cache, size, window, query, args.oracle_timeout)
                        for _ in range(args.repeat - 1)
                    ]
                    found["oracle"]["again"] = min(a["seconds"] for a in again)
                    print(f"    oracle again {found['oracle']['again']:.1f} s", file=sys.stderr)
                job = {"size": size, "window": window, "query": query}
                found["pyoxigraph"] = in_child(job | {"evaluator": "pyoxigraph"})
                print(f"    pyoxigraph {found['pyoxigraph']['seconds']:.1f} s", file=sys.stderr)
                budget = args.rdflib_budget
                found["rdflib"] = in_child(
                    job | {"evaluator": "rdflib", "budget": budget}, 2 * budget + 30
                )
                rdf = found["rdflib"]
                if rdf.get("stopped"):
                    # Stopped inside a window: its windows are not compared.
                    rdf["bags"] = {}
                print(
                    f"    rdflib {rdf['seconds']:.1f} s on {rdf['windows']}/{rdf['total_windows']}"
                    f" windows{' (stopped)' if rdf.get('stopped') else ''}",
                    file=sys.stderr,
                )
                checks = check(found, label, mismatches, notes)
                reference = found["oracle"]["bags"] or found["pyoxigraph"]["bags"]
                solutions = sum(sum(b.values()) for b in reference.values())
                for found_one in found.values():
                    found_one.pop("bags")
                rows.append((size, window, query, found, solutions, checks))
    provider.stop()
    report(
        args,
        command,
        load,
        spark_start,
        warm,
        streams,
        rows,
        mismatches,
        notes,
        pyspark.__version__,
    )


def run_t0_any(args: argparse.Namespace) -> list[tuple[str, str, str, int, dict]]:
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for size, window, query in itertools.product(args.sizes, args.windows, args.queries):
            classes = t0_classes(size, window)
            print(f"t0 any: {size} {window} {query}, {classes} t0 classes", file=sys.stderr)
            job = {
                "kind": "t0-any",
                "size": size,
                "window": window,
                "query": query,
                "cache": str(Path(folder) / "cache"),
            }
            began = time.perf_counter()
            result = in_child(job, args.t0_any_timeout)
            result["wall"] = time.perf_counter() - began
            print(f"  {result}", file=sys.stderr)
            results.append((size, window, query, classes, result))
    return results


def machine_line(command: str, load: tuple[float, ...], version: str) -> str:
    end = os.getloadavg()
    return (
        f"Command: `.venv/bin/python {command}`. Spark `{MASTER}` (pyspark {version}), "
        f"Python {sys.version.split()[0]}; load average (1 / 5 / 15 min) "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start, "
        f"{end[0]:.1f} / {end[1]:.1f} / {end[2]:.1f} at end."
    )


def report_t0_any(args, command, load, results, version) -> None:
    print(machine_line(command, load, version))
    print(
        "Oracle with `t0: any` (every t0 class), each in a fresh process: Spark start, "
        "the stream written to Parquet (cold), then `expected_output` given the "
        f"evaluation times of an engine with t0 = {ENGINE_T0}; stopped after "
        f"{args.t0_any_timeout:.0f} s.\n"
    )
    print(
        "| stream | window | query | t0 classes | computed | Spark start s | Parquet write s |"
        " oracle s | start + oracle s | relations | peak RSS MB |"
    )
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for size, window, query, classes, r in results:
        head = f"| {SIZES[size][0]} | {WINDOWS[window][0]} | {QUERIES[query][0]} | {classes:,} |"
        start = f"{r['spark_start']:.1f}" if "spark_start" in r else "-"
        write = f"{r['write']:.1f}" if "write" in r else "-"
        if r.get("stopped"):
            # Stopped: the oracle had at least what was left of the wall time.
            least = r["wall"] - r.get("spark_start", 0) - r.get("write", 0)
            both = f"> {least + r['spark_start']:.0f}" if "spark_start" in r else "-"
            print(
                f"{head} - | {start} | {write} | > {least:.0f} **not finished** (stopped at "
                f"{r['wall']:.0f} s wall) | {both} | - | - |"
            )
        else:
            computed = ", ".join(r["computed"])
            print(
                f"{head} t0 = {computed} | {start} | {write} | {r['oracle']:.1f} | "
                f"{r['spark_start'] + r['oracle']:.1f} | {r['relations']:,} | {r['rss_mb']:.0f} |"
            )


def report(
    args, command, load, spark_start, warm, streams, rows, mismatches, notes, version
) -> None:
    print(machine_line(command, load, version))
    print(
        f"Spark start {spark_start:.1f} s and a first oracle call on a 20-station stream "
        f"(JVM warm-up) {warm:.1f} s, both outside every figure below. Profile `[o,c)`, "
        f"t0 = {T0}, window-close, RStream, empty relations on; the oracle's result store "
        f"is off (`keep=False`), so every call computes. An oracle call still running after "
        f"{args.oracle_timeout:.0f} s is cancelled; rdflib stops after "
        f"{args.rdflib_budget:.0f} s and its time is extrapolated by windows."
        + (
            f" With `--repeat {args.repeat}` the oracle column adds the best of the "
            "repeated calls (same query again: code generated and JIT-compiled); the "
            "ratios use the first call."
            if args.repeat > 1
            else ""
        )
        + "\n"
    )
    print(
        "| stream | triples | generation s (Python) | Parquet write s (cold, once) |"
        " peak RSS MB (tree) |"
    )
    print("|---|---:|---:|---:|---:|")
    for size, triples, generated, written, rss in streams:
        print(f"| {SIZES[size][0]} | {triples:,} | {generated:.1f} | {written:.1f} | {rss:.0f} |")
    print()
    print(
        "| stream | window | query | windows | solutions | oracle s | oracle CPU s |"
        " oracle peak RSS MB | pyoxigraph s (load / query) | pyoxigraph CPU s |"
        " pyoxigraph RSS MB | rdflib s (load / query) | rdflib RSS MB | rdflib / oracle |"
        " pyoxigraph / oracle | bags |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for size, window, query, found, solutions, checks in rows:
        oracle, pyox, rdf = found["oracle"], found["pyoxigraph"], found["rdflib"]
        extrapolated = rdf["windows"] < rdf["total_windows"]
        if rdf.get("stopped") and rdf["windows"] == 0:
            # Not one window in the time allowed: a lower bound.
            rdf_seconds = (2 * args.rdflib_budget + 30) * rdf["total_windows"]
            rdf_text = (
                f"> {rdf_seconds:.0f} *(its first window not done in "
                f"{2 * args.rdflib_budget + 30:.0f} s; x {rdf['total_windows']} windows)*"
            )
        elif extrapolated:
            rdf_seconds = rdf["seconds"] * rdf["total_windows"] / rdf["windows"]
            rdf_text = (
                f"~{rdf_seconds:.0f} *extrapolated from {rdf['windows']}/"
                f"{rdf['total_windows']} windows ({rdf['seconds']:.0f} s)*"
            )
        else:
            rdf_seconds = rdf["seconds"]
            rdf_text = f"{rdf['seconds']:.1f} ({rdf['load']:.1f} / {rdf['query']:.1f})"
        bags = "; ".join(f"{name}: {mark(result)}" for name, result in checks.items())
        if rdf.get("stopped"):
            bags += " (rdflib stopped inside a window)"
        elif extrapolated:
            bags += f" (rdflib: its {rdf['windows']} window(s))"
        cancelled = "evaluator" not in oracle
        if cancelled:
            oracle_text = f"> {oracle['seconds']:.0f} **cancelled**"
        else:
            fallback = (
                "" if oracle["evaluator"] == "spark-dataframe" else f" ({oracle['evaluator']})"
            )
            oracle_text = f"{oracle['seconds']:.1f}{fallback}"
            if "again" in oracle:
                oracle_text += f" (again: {oracle['again']:.1f})"
        r_rdf, r_pyox = rdf_seconds / oracle["seconds"], pyox["seconds"] / oracle["seconds"]
        lower = rdf.get("stopped") and rdf["windows"] == 0
        if lower and cancelled:
            rdf_ratio = "?"
        elif lower or cancelled:
            rdf_ratio = f"{'>' if lower else '<'} {r_rdf:.1f}x"
        else:
            rdf_ratio = f"{'~' if extrapolated else ''}{r_rdf:.1f}x"
        ratios = f"{rdf_ratio} | {'< ' if cancelled else ''}{r_pyox:.2f}x"
        print(
            f"| {SIZES[size][0]} | {WINDOWS[window][0]} | {QUERIES[query][0]} | "
            f"{pyox['total_windows']} | {solutions:,} | {oracle_text} | {oracle['cpu']:.0f} | "
            f"{oracle['rss_mb']:.0f} | "
            f"{pyox['seconds']:.1f} ({pyox['load']:.1f} / {pyox['query']:.1f}) | "
            f"{pyox['cpu']:.1f} | {pyox['rss_mb']:.0f} | {rdf_text} | {rdf['rss_mb']:.0f} | "
            f"{ratios} | {bags} |"
        )
    if notes:
        print(
            "\n*Same values, other terms*: the bags pair up when numbers compare by value "
            "within 0.001 (what the YABench specs ask for), not by RDF term:\n"
        )
        for name, text in sorted(notes.items()):
            print(f"- {name}: {text}")
    if mismatches:
        print("\n**MISMATCHES** (first solutions that differ):\n")
        for line in mismatches:
            print(f"- {line}")


if __name__ == "__main__":
    main()
