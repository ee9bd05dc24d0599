"""The oracle on a Spark standalone cluster: the same output as local mode, timed.

Run (at 20M triples several minutes per query; on a quiet machine)::

    .venv/bin/python benchmarks/cluster.py --size 20M --queries q1,q4,q6 \\
        --out docs/benchmarks.md
    .venv/bin/python benchmarks/cluster.py --size 100k --queries q1,q6 \\
        --out /tmp/cluster.md --json /tmp/cluster.json

It starts a Spark standalone master and two workers on loopback from the
pip-installed Spark (as ``tests/test_distributed.py`` does: the Java of
:func:`~pytest_rspbench.oracle.spark.java.find_java`, free ports, its own
folders and logs in a temporary folder, each daemon in a process group of
its own), each worker with ``--cores 1`` and ``--memory``. For each query
(the workloads of :mod:`oracle_e2e`: a yabench-sg1 stream of ``--size``, a
5 s tumbling window, the queries of :mod:`workloads`) it runs, each a fresh
process timed by :mod:`fresh_process`:

- *local*: ``rspbench oracle SPEC -o local.jsonl`` (Spark's ``local[*]``);
- *cluster*: ``rspbench oracle SPEC -o cluster.jsonl --spark-master
  spark://127.0.0.1:PORT`` (this process is the driver, the executors run
  on the workers).

Both share one stream cache (``RSPBENCH_CACHE_DIR``), filled beforehand by
an untimed local run, so both read the same Parquet stream; the cache's
stored output (``expected/``) is removed before each run, so each computes.
The two output files are compared as bags: every line (one window's
relation) in a canonical form, its keys sorted and its bindings as a sorted
list, and the lines counted (:class:`collections.Counter`).

Prints a Markdown section (``### The oracle on a standalone cluster: the
same output as local mode``), publishes it in ``--out`` (:mod:`page`, key
``cluster``) and saves the raw rows to ``--json``. Every daemon is stopped
at the end, also on Ctrl-C, SIGTERM or an error. Exit status 1 when a pair
of outputs differs or a run failed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import fresh_process  # noqa: E402
import page  # noqa: E402
from oracle_e2e import SIZES, chosen, has_stream, nominal, rspbench, spec_text  # noqa: E402
from workloads import QUERIES, WINDOWS  # noqa: E402

HEADING = "### The oracle on a standalone cluster: the same output as local mode"
KEY = "cluster"
DOC = HERE.parent / "docs" / "benchmarks.md"
JSON = HERE / "results" / "cluster.json"
WINDOW = "tumbling"
WORKERS = 2
WORKER_CORES = 1
DAEMON_MEMORY = "512m"  # heap of the master and worker daemons (not the executors)
START_TIMEOUT = 180.0  # seconds for the master to answer and the workers to register
LOG_TAIL = 30


# -- the cluster -------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on loopback that nobody listens on, below the ephemeral range
    (where every ``bind(0)`` of Spark's JVMs takes its ports)."""
    draw = random.SystemRandom()
    for _ in range(200):
        port = draw.randrange(20000, 32000)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000 on 127.0.0.1")


def group_alive(pgid: int) -> bool:
    """Whether any process of the group ``pgid`` is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Daemon:
    """A Spark daemon in a process group of its own, logging to a file."""

    name: str
    log: Path
    process: subprocess.Popen[bytes]

    @classmethod
    def start(cls, name: str, argv: list[str], env: dict[str, str], log: Path) -> Daemon:
        with log.open("wb") as out:
            process = subprocess.Popen(
                argv, env=env, stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        return cls(name, log, process)

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self, lines: int = LOG_TAIL) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"    (no log: {exc})"
        return "\n".join(f"    {line}" for line in text.splitlines()[-lines:])

    def stop(self) -> None:
        """TERM the whole group (its executors and their Python workers too),
        then KILL what is left of it."""
        for sig, grace in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and group_alive(self.process.pid):
                self.process.poll()
                time.sleep(0.2)
            if not group_alive(self.process.pid):
                break
        self.process.poll()


def master_state(ui_url: str) -> dict[str, Any] | None:
    """The master's state from its web UI (``/json/``), None when it does not answer."""
    try:
        with urllib.request.urlopen(ui_url + "/json/", timeout=5) as answer:
            state: dict[str, Any] = json.loads(answer.read().decode("utf-8"))
            return state
    except (OSError, ValueError, urllib.error.URLError):
        return None


def alive_workers(ui_url: str) -> int:
    state = master_state(ui_url)
    return sum(w.get("state") == "ALIVE" for w in (state or {}).get("workers", []))


@dataclass
class Cluster:
    """A standalone master and its workers on loopback, from the pip-installed Spark."""

    root: Path
    worker_memory: str
    workers: int = WORKERS
    daemons: list[Daemon] = field(default_factory=list)
    master_url: str = ""
    ui_url: str = ""
    started_in: float = 0.0

    def env(self) -> dict[str, str]:
        """What every daemon gets: Java as the oracle finds it, loopback, own folders."""
        from pytest_rspbench.oracle.spark.java import find_java, spark_env
        from pytest_rspbench.oracle.spark.server import spark_home

        for name in ("conf", "logs", "pids", "local"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            **spark_env(find_java()),
            "SPARK_HOME": str(spark_home()),
            # An empty conf dir: no spark-env.sh or spark-defaults.conf of the machine.
            "SPARK_CONF_DIR": str(self.root / "conf"),
            "SPARK_LOG_DIR": str(self.root / "logs"),
            "SPARK_PID_DIR": str(self.root / "pids"),
            "SPARK_LOCAL_DIRS": str(self.root / "local"),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            "PYSPARK_PYTHON": sys.executable,
        }
        env.pop("SPARK_ENV_LOADED", None)
        return env

    def start(self) -> None:
        """The master, then the workers; returns once all are registered."""
        from pytest_rspbench.oracle.spark.server import spark_home

        began = time.monotonic()
        spark_class = str(spark_home() / "bin" / "spark-class")
        env = self.env()
        port, ui_port = free_port(), free_port()
        self.master_url = f"spark://127.0.0.1:{port}"
        self.ui_url = f"http://127.0.0.1:{ui_port}"
        master = [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                  "--port", str(port), "--webui-port", str(ui_port)]  # fmt: skip
        self.daemons.append(Daemon.start("master", master, env, self.root / "master.log"))
        self.wait(f"the master {self.master_url}", lambda: master_state(self.ui_url) is not None)
        for n in range(1, self.workers + 1):
            work = self.root / f"work-{n}"
            work.mkdir(exist_ok=True)
            worker = [spark_class, "org.apache.spark.deploy.worker.Worker",
                      "--host", "127.0.0.1", "--port", str(free_port()),
                      "--webui-port", str(free_port()), "--cores", str(WORKER_CORES),
                      "--memory", self.worker_memory, "--work-dir", str(work),
                      self.master_url]  # fmt: skip
            log = self.root / f"worker-{n}.log"
            self.daemons.append(Daemon.start(f"worker-{n}", worker, env, log))
        self.wait(
            f"{self.workers} workers registered with {self.master_url}",
            lambda: alive_workers(self.ui_url) >= self.workers,
        )
        self.started_in = time.monotonic() - began

    def wait(self, what: str, ready: Any, timeout: float = START_TIMEOUT) -> None:
        """Poll ``ready`` until it is true; raise quoting the logs otherwise."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [d.name for d in self.daemons if not d.alive()]
            if dead:
                raise RuntimeError(f"{what}: {', '.join(dead)} exited.\nLogs:\n{self.logs()}")
            time.sleep(0.5)
        raise RuntimeError(f"{what}: not ready after {timeout:.0f} s.\nLogs:\n{self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"  {d.name} ({d.log}):\n{d.tail()}" for d in self.daemons)

    def worker_pids(self) -> list[int]:
        return [d.process.pid for d in self.daemons if d.name.startswith("worker")]

    def applications(self) -> list[dict[str, Any]]:
        """The applications the master has seen, running or completed."""
        state = master_state(self.ui_url) or {}
        return state.get("activeapps", []) + state.get("completedapps", [])

    def stop(self) -> None:
        for daemon in reversed(self.daemons):
            daemon.stop()


@contextlib.contextmanager
def running_cluster(root: Path, worker_memory: str) -> Iterator[Cluster]:
    """A started cluster; every daemon stopped on the way out, however it goes."""
    cluster = Cluster(root, worker_memory)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def end_descendants() -> None:
    """Kill what this process started and is still running (an interrupted
    ``rspbench oracle`` and its driver JVM: each in a process group of its own)."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error, ProcessLookupError, PermissionError):
            if os.getpgid(child.pid) == child.pid:
                os.killpg(child.pid, signal.SIGKILL)
            child.kill()


# -- the runs ----------------------------------------------------------------------


def run_oracle(
    spec: Path,
    cache: Path,
    out: Path,
    timeout: float,
    conf: list[str],
    master: str | None = None,
) -> fresh_process.Outcome:
    """``rspbench oracle SPEC -o OUT`` in a fresh process, its stored output
    removed first (so it computes); on ``master`` when given."""
    shutil.rmtree(cache / "expected", ignore_errors=True)
    env = os.environ | {"RSPBENCH_CACHE_DIR": str(cache), "RSPBENCH_STAR_LAYOUT": "off"}
    command = [*rspbench(), "oracle", str(spec), "-o", str(out)]
    if master is not None:
        command += ["--spark-master", master]
    for setting in conf:
        command += ["--spark-conf", setting]
    return fresh_process.run(
        command, env=env, cwd=spec.parent, timeout=timeout, stderr_file=out.with_suffix(".err")
    )


def cell(outcome: fresh_process.Outcome) -> dict[str, Any]:
    """A run's figures for the row."""
    found: dict[str, Any] = {
        "status": outcome.status, "seconds": outcome.seconds, "peak_mb": outcome.peak_mb,
        "cpu": outcome.cpu, "load_avg": outcome.load, "others_cpu": outcome.others,
    }  # fmt: skip
    if m := re.search(r"evaluator (\S+), ([\d.]+) s", outcome.stderr):
        found |= {"evaluator": m[1], "inside": float(m[2])}
    if not outcome.ok:
        found["stderr"] = outcome.stderr.splitlines()[-5:]
    return found


def run_on_cluster(
    spec: Path, cache: Path, out: Path, args: argparse.Namespace, cluster: Cluster
) -> dict[str, Any]:
    """The cluster run, with the workers' process trees sampled meanwhile and
    the application the master registered for it."""
    before = len(cluster.applications())
    samplers = [fresh_process.TreeSampler(pid, 0.5).start() for pid in cluster.worker_pids()]
    try:
        conf = [*args.spark_conf, f"spark.executor.memory={args.executor_memory}"]
        outcome = run_oracle(spec, cache, out, args.timeout, conf, cluster.master_url)
    finally:
        for sampler in samplers:
            sampler.stop()
    found = cell(outcome)
    found["workers_peak_mb"] = [s.peak / 2**20 for s in samplers]
    apps = cluster.applications()
    found["applications"] = len(apps) - before
    if apps:
        last = max(apps, key=lambda app: app.get("starttime", 0))
        found["application"] = {k: last.get(k) for k in ("name", "cores", "memoryperexecutor", "memoryperslave", "state")}  # fmt: skip
    return found


# -- the comparison ----------------------------------------------------------------


def canonical(line: str) -> tuple[str, dict[str, Any], int]:
    """A line's canonical text (keys sorted, bindings as a sorted list: one
    text per bag), its other keys, and its number of solutions."""
    value = json.loads(line)
    if not isinstance(value, dict) or not isinstance(value.get("bindings"), list):
        return json.dumps(value, sort_keys=True), {}, 0
    bindings = value.pop("bindings")
    texts = sorted(json.dumps(b, sort_keys=True) for b in bindings)
    head = json.dumps(value, sort_keys=True)
    return head + "\n" + "\n".join(texts), value, len(bindings)


@dataclass
class Digest:
    """An output file as a bag of lines (their canonical texts' digests)."""

    lines: Counter[str] = field(default_factory=Counter)
    first: dict[str, int] = field(default_factory=dict)  # digest -> line number
    windows: set[Any] = field(default_factory=set)
    solutions: int = 0


def digest(path: Path) -> Digest:
    """Read ``path`` once: its bag of lines, windows and solutions."""
    found = Digest()
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if not line.strip():
                continue
            text, head, solutions = canonical(line)
            key = hashlib.sha256(text.encode("utf-8")).hexdigest()
            found.lines[key] += 1
            found.first.setdefault(key, number)
            found.windows.add(head.get("index", number))
            found.solutions += solutions
    return found


def line_at(path: Path, number: int) -> dict[str, Any]:
    with path.open(encoding="utf-8") as lines:
        for n, line in enumerate(lines):
            if n == number:
                value: dict[str, Any] = json.loads(line)
                return value
    raise IndexError(number)


def same_window(path: Path, head: dict[str, Any]) -> dict[str, Any] | None:
    """The line of ``path`` with the given window keys (t0, index), if any."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            value = json.loads(line)
            if all(value.get(k) == head.get(k) for k in ("t0", "index", "output")):
                found: dict[str, Any] = value
                return found
    return None


def example(path: Path, number: int, other: Path, side: str) -> str:
    """One differing line, readably: its window and the solutions only one side has."""
    line = line_at(path, number)
    head = {k: v for k, v in line.items() if k != "bindings"}
    theirs = same_window(other, head)
    if theirs is None:
        return f"only {side}: window {head} ({len(line.get('bindings', []))} solutions)"
    mine = Counter(json.dumps(b, sort_keys=True) for b in line.get("bindings", []))
    their = Counter(json.dumps(b, sort_keys=True) for b in theirs.get("bindings", []))
    extra, missing = list((mine - their).elements()), list((their - mine).elements())
    other_head = {k: v for k, v in theirs.items() if k != "bindings"}
    text = f"window index {head.get('index')}, t0 {head.get('t0')}: {side} {len(line.get('bindings', []))} solutions, the other {len(theirs.get('bindings', []))}"
    if other_head != head:
        text += f"; {side} {head} != {other_head}"
    if extra:
        text += f"; only {side} ({len(extra)}): {extra[0]}"
    if missing:
        text += f"; only the other ({len(missing)}): {missing[0]}"
    return text


def compare(local: Path, cluster: Path) -> dict[str, Any]:
    """The two outputs as bags of lines: equal or not, how many lines differ, one example."""
    mine, theirs = digest(local), digest(cluster)
    only_local, only_cluster = mine.lines - theirs.lines, theirs.lines - mine.lines
    found: dict[str, Any] = {
        "same": not only_local and not only_cluster,
        "identical_bytes": _file_hash(local) == _file_hash(cluster),
        "lines": sum(mine.lines.values()),
        "solutions": mine.solutions, "windows": len(mine.windows),
        "cluster_solutions": theirs.solutions, "cluster_windows": len(theirs.windows),
        "lines_only_local": sum(only_local.values()),
        "lines_only_cluster": sum(only_cluster.values()),
    }  # fmt: skip
    if only_local:
        key = next(iter(only_local))
        found["example"] = example(local, mine.first[key], cluster, "local")
    elif only_cluster:
        key = next(iter(only_cluster))
        found["example"] = example(cluster, theirs.first[key], local, "cluster")
    return found


def _file_hash(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


# -- one size ----------------------------------------------------------------------


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def shown(name: str, c: dict[str, Any]) -> None:
    say(f"    {name}: {c['status']}, {c['seconds']:.1f} s, {c['peak_mb']:.0f} MB")


def fill_cache(folder: Path, cache: Path, size: str, query: str, args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """The untimed cold local run that writes the stream into the cache."""
    spec = write_spec(folder, size, query)
    out = folder / "fill.jsonl"
    outcome = run_oracle(spec, cache, out, args.timeout, args.spark_conf)
    found = cell(outcome) | {"query": query, "stream_cached": has_stream(cache)}
    out.unlink(missing_ok=True)
    shown(f"fill the stream cache (cold, local, {query}, untimed)", found)
    if not outcome.ok:
        raise RuntimeError(f"the cold local run failed ({outcome.status}):\n{outcome.stderr}")
    if not found["stream_cached"]:
        say("    warning: the cold run left no stream in the cache; each run generates it")
    return found


def write_spec(folder: Path, size: str, query: str) -> Path:
    spec = folder / f"{size}-{query}-{WINDOW}.rspbench.yaml"
    spec.write_text(spec_text(*SIZES[size][1:], query, WINDOW), encoding="utf-8")
    return spec


def measure_query(
    folder: Path, cache: Path, size: str, query: str, args: argparse.Namespace, cluster: Cluster
) -> dict[str, Any]:
    """Local, then cluster, on the cached stream; their outputs compared."""
    say(f"  {size} {query}")
    spec = write_spec(folder, size, query)
    local_out, cluster_out = folder / f"{query}.local.jsonl", folder / f"{query}.cluster.jsonl"
    local = cell(run_oracle(spec, cache, local_out, args.timeout, args.spark_conf))
    shown("local", local)
    on_cluster = run_on_cluster(spec, cache, cluster_out, args, cluster)
    shown(f"cluster {cluster.master_url}", on_cluster)
    if on_cluster["applications"] < 1 and on_cluster["status"] == "ok":
        on_cluster["status"] = "failed (no application registered with the master)"
    row: dict[str, Any] = {"size": size, "query": query, "query_label": QUERIES[query][0],
                           "local": local, "cluster": on_cluster}  # fmt: skip
    if local["status"] == "ok" and on_cluster["status"] == "ok":
        row["comparison"] = c = compare(local_out, cluster_out)
        say(f"    {'same output' if c['same'] else 'DIFFERENT output'}: "
            f"{c['solutions']:,} solutions, {c['windows']} windows")  # fmt: skip
        if not c["same"]:
            say(f"    {c['lines_only_local']} lines only local, "
                f"{c['lines_only_cluster']} only cluster; {c.get('example')}")  # fmt: skip
    for path in (local_out, cluster_out):
        path.unlink(missing_ok=True)  # a 20M self-join writes about 1.5 GB
    return row


def measure(args: argparse.Namespace, run: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rspbench-cluster-", dir=args.workdir) as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        try:
            with running_cluster(folder / "spark", args.memory) as cluster:
                run["cluster"]["started_in"] = cluster.started_in
                say(f"cluster {cluster.master_url} ({WORKERS} workers) up in "
                    f"{cluster.started_in:.1f} s; logs in {folder / 'spark'}")  # fmt: skip
                run["fill"] = fill_cache(folder, cache, args.size, run["queries"][0], args)
                for query in run["queries"]:
                    rows.append(measure_query(folder, cache, args.size, query, args, cluster))
                    save(args.json, run, rows)  # a long run keeps what it measured
        finally:
            end_descendants()
    run["load_end"] = os.getloadavg()[0]
    save(args.json, run, rows)
    return rows


def save(path: Path | None, run: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"run": run, "rows": rows}, indent=1) + "\n")


# -- the section -------------------------------------------------------------------


def seconds(c: dict[str, Any]) -> str:
    if c["status"] != "ok":
        return f"**{c['status']}** at {c['seconds']:.0f} s"
    fallback = c.get("evaluator", "spark-dataframe")
    return f"{c['seconds']:.1f}" + ("" if fallback == "spark-dataframe" else f" ({fallback})")


def verdict(row: dict[str, Any]) -> str:
    c = row.get("comparison")
    if c is None:
        return "- (a run failed)"
    if c["same"]:
        return "yes" + (", byte for byte" if c["identical_bytes"] else " (as bags)")
    return (f"**no**: {c['lines_only_local']} lines only local, "
            f"{c['lines_only_cluster']} only cluster; {c.get('example', '')}")  # fmt: skip


def counted(row: dict[str, Any], key: str) -> str:
    c = row.get("comparison")
    if c is None:
        return "-"
    mine, theirs = c[key], c[f"cluster_{key}"]
    return f"{mine:,}" if mine == theirs else f"{mine:,} / {theirs:,}"


def table_row(row: dict[str, Any]) -> str:
    local, remote = row["local"], row["cluster"]
    workers = " + ".join(f"{mb:.0f}" for mb in remote.get("workers_peak_mb", []))
    return (f"| {row['query_label']} | {counted(row, 'solutions')} | {counted(row, 'windows')} "
            f"| {seconds(local)} | {seconds(remote)} "
            f"| {local['peak_mb']:,.0f} / {remote['peak_mb']:,.0f} | {workers or '-'} "
            f"| {verdict(row)} |")  # fmt: skip


def section(run: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    m, c = run["machine"], run["cluster"]
    size = run["size"]
    conf = "".join(f" `--spark-conf {s}`" for s in run["spark_conf"])
    lines = [
        HEADING,
        "",
        f"`{run['command']}`",
        "",
        f"{m['cpu']}, {m['cores']} cores, {m['ram']}, {m['os']}; Python {m['python']}, "
        f"Java {m['java']}, PySpark {m['pyspark']}; {m['date']}; load average "
        f"{run['load_start']:.1f} at the start, {run.get('load_end', 0.0):.1f} at the end.",
        "",
        f"Stream: yabench-sg1, {SIZES[size][0]} ({run['triples']:,} triples), window "
        f"{WINDOWS[WINDOW][0]}; profile bounds `[o,c]`, t0 = 0, report on window close, "
        "RStream, empty relations on (the specs of `oracle_e2e.py`).",
        "",
        f"Cluster: a Spark standalone master and {c['workers']} workers on 127.0.0.1, "
        f"started from the pip-installed Spark (started in {c.get('started_in', 0.0):.0f} s, "
        f"not timed); each worker `--cores {c['cores']} --memory {c['memory']}`, one "
        f"executor each with `spark.executor.memory={c['executor_memory']}`; the daemons' "
        f"heap {DAEMON_MEMORY}. The driver is the `rspbench oracle` process itself "
        f"(`--spark-master spark://127.0.0.1:PORT`; its heap the oracle's default, as "
        f"in local mode){conf and ';' + conf + ' in both runs'}.",
        "",
        "Method: each run is a fresh process (`rspbench oracle SPEC -o OUT`), so "
        "Spark's start is in the figure: for the cluster, also the application's "
        "registration and the executors' JVMs starting on the workers. An untimed "
        f"cold local run ({run['fill']['query']}, {run['fill']['seconds']:.0f} s) wrote "
        "the stream into a stream cache both then read; before every run the cache's "
        "stored output (`expected/`) was removed, so each computes. *Local*: Spark's "
        "`local[*]`. *Peak MB local / cluster*: the largest resident set of the driver's "
        "process tree (`rspbench` and its JVM); the executors run under the workers, in "
        "*workers' peak MB* (each worker's process tree: the daemon and its executor). "
        "*Same output*: every line of the two output files (one window's relation) "
        "parsed, its keys sorted and its bindings sorted, and the lines compared as bags "
        "(`collections.Counter`); *byte for byte* when the files are identical too.",
        "",
        "| query | solutions | windows | local s | cluster s | peak MB local / cluster (driver process tree) | workers' peak MB | same output |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
        *[table_row(row) for row in rows],
        "",
        f"Raw rows: `{run['json']}`.",
    ]
    return "\n".join(lines) + "\n"


def failed(rows: list[dict[str, Any]]) -> bool:
    """A run failed or a pair of outputs differs."""
    return any(not row.get("comparison", {}).get("same", False) for row in rows)


# -- main --------------------------------------------------------------------------


def stop_on_term() -> None:
    """SIGTERM and Ctrl-C unwind the stack, so the daemons are stopped (a process
    started as a background job of a script inherits SIGINT ignored)."""

    def raise_exit(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, raise_exit)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmarks/cluster.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--size", default="20M", choices=list(SIZES),
                        help="the stream's size (default 20M)")  # fmt: skip
    parser.add_argument("--queries", action="append", metavar="LIST",
                        help=f"comma-separated, of {', '.join(QUERIES)} or filter, avg, join "
                        "(default: all)")  # fmt: skip
    parser.add_argument("--memory", default="4g",
                        help="each worker's --memory (default 4g)")  # fmt: skip
    parser.add_argument("--executor-memory", metavar="MEMORY",
                        help="spark.executor.memory of the cluster runs: one executor per "
                        "worker, at most the worker's memory (default: --memory)")  # fmt: skip
    parser.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting for both runs, e.g. spark.driver.memory=8g "
                        "(repeatable; default: the oracle's own)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds per run before it is killed (default 3600)")  # fmt: skip
    parser.add_argument("--workdir", type=Path,
                        help="where the temporary folder goes: specs, stream cache, outputs, "
                        "the daemons' logs (default: the system's)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=DOC,
                        help="Markdown page whose `cluster` section is replaced "
                        "(default docs/benchmarks.md)")  # fmt: skip
    parser.add_argument("--json", type=Path, default=JSON,
                        help="raw rows (default benchmarks/results/cluster.json)")  # fmt: skip
    return parser


def shown_path(path: Path) -> str:
    """``path`` relative to the project when it is inside it."""
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(HERE.parent))
    return str(path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = options().parse_args(argv)
    args.executor_memory = args.executor_memory or args.memory
    stop_on_term()
    from e2e_report import machine

    run: dict[str, Any] = {
        "command": " ".join([".venv/bin/python benchmarks/cluster.py", *argv]),
        "machine": machine(),
        "load_start": os.getloadavg()[0],
        "size": args.size,
        "triples": nominal(args.size)["triples"],
        "window": WINDOW,
        "queries": chosen(args.queries, QUERIES, "queries"),
        "spark_conf": args.spark_conf,
        "timeout": args.timeout,
        "json": shown_path(args.json),
        "cluster": {"workers": WORKERS, "cores": WORKER_CORES, "memory": args.memory,
                    "executor_memory": args.executor_memory},
    }  # fmt: skip
    try:
        rows = measure(args, run)
    except KeyboardInterrupt:
        say("interrupted: the cluster is stopped")
        return 130
    text = section(run, rows)
    print(text)
    page.publish(args.out, KEY, text)
    say(f"wrote {args.out} and {args.json}")
    return 1 if failed(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
