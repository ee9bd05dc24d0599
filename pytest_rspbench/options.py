"""Every ``--rspbench-*`` option and ``rspbench_*`` ini key, declared and parsed once.

:data:`OPTIONS` is the one table of them: :func:`declare` adds them to
pytest's parser (each help text ends with its default, as pytest-benchmark's
do), and :func:`settings` reads a configured session into one frozen
:class:`Settings`, checking everything that can be checked before a test runs
(a bad ``KEY=VALUE``, a missing baseline) as a ``pytest.UsageError``.

Precedence, for each key: the command line, then (where noted) an environment
variable, then the ini file. A path on the command line is relative to where
pytest was started; one in the ini file, to the ini file's folder (rootdir
when there is none).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

HEAVY_DESELECTED = pytest.StashKey[int]()
"""How many heavy load levels collection deselected (the line pytest prints
after ``collected ... / N deselected`` says why)."""


def heavy_line(count: int) -> str:
    """Why ``count`` items were deselected.

    >>> heavy_line(8)[:46]
    'rspbench: 8 deselected are heavy load levels: '
    """
    return (
        f"rspbench: {count} deselected are heavy load levels: --rspbench-heavy runs "
        "them too, -m heavy only them"
    )


DEFAULT_PATTERN = "*.rspbench.yaml"
DEFAULT_MASTER = "local[*]"
CACHE_ENV = "RSPBENCH_CACHE_DIR"
WARM_ENV = "RSPBENCH_WARM_SPARK"
SHRINK_SECONDS = 60.0
"""The budget of a bare ``--rspbench-shrink``, per failing item."""
ORACLE_AHEAD = 2
"""Background oracle threads by default: one per core of a small machine."""
CACHE_MAX_SIZE = "10GB"
"""The cache folder's size a session prunes it to by default (YABench big's
stream is 0.1 GB; a 50M-triple stream about 2 GB)."""


@dataclass(frozen=True)
class Option:
    """One setting: its command-line flag, ini key and help text.

    ``kind`` is ``value`` (one value), ``list`` (repeatable flag; the ini key
    takes one per line), ``flag`` (on/off, command line only), ``optional``
    (a flag with an optional ``=VALUE``), ``suite`` (repeatable, command line
    only) or ``ini`` (ini file only).
    """

    flag: str | None
    ini: str
    default: Any
    help: str
    kind: str = "value"
    metavar: str | None = None

    def shown_default(self) -> str:
        if self.kind == "flag" or (self.kind == "optional" and self.default is None):
            return "off"
        if isinstance(self.default, list):
            return " ".join(self.default) or "none"
        return "none" if self.default is None else str(self.default)


OPTIONS = (
    Option(
        "--rspbench-engine",
        "rspbench_engine",
        None,
        "run every spec against this engine (a registered name or a path to an "
        "engine.yaml) instead of the engines the specs list; repeat it, or separate "
        "names with commas, for several (the ini key: one per line or comma-separated)",
        kind="list",
        metavar="NAME",
    ),
    Option(
        "--rspbench-spark-master",
        "rspbench_spark_master",
        DEFAULT_MASTER,
        "Spark master for the oracle: local[N], spark://host:port or a Spark Connect sc:// URL",
        metavar="URL",
    ),
    Option(
        "--rspbench-spark-conf",
        "rspbench_spark_conf",
        [],
        "a Spark setting for the oracle's session, KEY=VALUE, e.g. "
        "spark.driver.memory=12g (repeatable; the ini key takes one per line; "
        "unset: a driver heap of a quarter of the machine's memory, 2g to 8g)",
        kind="list",
        metavar="KEY=VALUE",
    ),
    Option(
        "--rspbench-warm-spark",
        "rspbench_warm_spark",
        "off",
        "keep the oracle's local Spark running between runs: the first run starts "
        "a Spark Connect server on 127.0.0.1, detached, later runs reuse it, and it "
        "stops after IDLE without use (e.g. 10m, 90s, 1h; `rspbench spark stop` "
        f"stops it now); the environment variable {WARM_ENV} sets it too",
        metavar="IDLE",
    ),
    Option(
        "--rspbench-artifacts",
        "rspbench_artifacts",
        None,
        "folder where each item keeps its stream, the engine's raw output and a metrics JSON",
        metavar="DIR",
    ),
    Option(
        "--rspbench-record",
        "rspbench_record",
        None,
        "write each case's answers (what the engine streamed out) to "
        "DIR/<spec name>/<case id>.jsonl, where an engine profile with "
        "adapter.recorded.path DIR/{spec}/{case}.jsonl and the same name reads them: "
        "run a slow or remote engine once, judge its answers offline",
        metavar="DIR",
    ),
    Option(
        "--rspbench-json",
        "rspbench_json",
        None,
        "write a results file (JSON, versioned) with every item's verdicts and per-window metrics",
        metavar="PATH",
    ),
    Option(
        "--rspbench-cache-dir",
        "rspbench_cache_dir",
        None,
        "folder where the oracle keeps each stream as Parquet, keyed by a hash of "
        "its source, so items sharing a stream write it once, and its expected "
        f"outputs, keyed by all their inputs; 'none' keeps streams in memory and "
        f"stores nothing; the environment variable {CACHE_ENV} sets it too "
        "(unset: rspbench-streams in pytest's cache folder, or "
        "~/.cache/pytest-rspbench/streams without the cache plugin; in memory "
        "when Spark runs on another machine)",
        metavar="DIR",
    ),
    Option(
        "--rspbench-cache-max-size",
        "rspbench_cache_max_size",
        CACHE_MAX_SIZE,
        "at the end of the session, remove the cache folder's least recently used "
        "streams and stored outputs until it holds at most SIZE (e.g. 10GB, 500M); "
        "what this session used is always kept; 'none': no limit",
        metavar="SIZE",
    ),
    Option(
        "--rspbench-save",
        "rspbench_save",
        None,
        "store this run as baseline NAME (under rspbench_baseline_dir; a NAME "
        "ending in .json is a file path)",
        metavar="NAME",
    ),
    Option(
        "--rspbench-compare",
        "rspbench_compare",
        None,
        "compare this run with baseline NAME and show what got better or worse",
        metavar="NAME",
    ),
    Option(
        "--rspbench-baseline-dir",
        "rspbench_baseline_dir",
        ".rspbench/baselines",
        "folder, relative to the rootdir, where baselines are stored",
        metavar="DIR",
    ),
    Option(
        "--rspbench-compare-fail",
        "rspbench_compare_fail",
        [],
        "with --rspbench-compare: fail on a regression beyond EXPR, e.g. "
        "recall:-0.01 or delay.p95:+20% (repeatable)",
        kind="list",
        metavar="EXPR",
    ),
    Option(
        "--rspbench-heavy",
        "rspbench_heavy",
        False,
        "also run specs marked heavy (big load levels); they are deselected "
        "unless this is given or -m names 'heavy'",
        kind="flag",
    ),
    Option(
        "--rspbench-suite",
        "rspbench_suite",
        None,
        "collect a suite of specs shipped with an installed package: "
        "'conformance' (the bundled benchmarks) or 'conformance/rspql' for one "
        "part; repeatable",
        kind="suite",
        metavar="NAME",
    ),
    Option(
        "--rspbench-shrink",
        "rspbench_shrink",
        None,
        "shrink each failing item's input to a minimal counterexample that still "
        "shows its departure, re-running the engine and the oracle on each "
        "candidate for at most SECONDS per item (the bare flag: "
        f"{SHRINK_SECONDS:g}); writes it as a spec with its stream into the "
        "item's artifacts; write it as --rspbench-shrink=SECONDS; the ini key "
        "takes SECONDS, or true",
        kind="optional",
        metavar="SECONDS",
    ),
    Option(
        "--rspbench-oracle-ahead",
        "rspbench_oracle_ahead",
        ORACLE_AHEAD,
        "how many items' expected outputs are computed at once in background "
        "threads, from when the item or the one before it starts, while engines "
        "replay; 0 computes each after its replay; specs judging delay, memory "
        "or CPU replay with the background work paused; off on Spark Connect",
        metavar="N",
    ),
    Option(
        None,
        "rspbench_files",
        [DEFAULT_PATTERN],
        "glob patterns of spec files to collect",
        kind="ini",
    ),
)


def declare(parser: pytest.Parser) -> None:
    """Add every option and ini key of :data:`OPTIONS` to pytest's parser."""
    group = parser.getgroup("rspbench", "RDF stream processing benchmarks (pytest-rspbench)")
    for o in OPTIONS:
        text = f"{o.help} (default: {o.shown_default()})"
        if o.flag is not None:
            extra: dict[str, Any] = {"action": "store_true", "default": False}
            if o.kind == "optional":
                extra = {"action": "store", "nargs": "?", "const": "", "default": None}
                extra["metavar"] = o.metavar
            elif o.kind != "flag":
                many = o.kind in ("list", "suite")
                extra = {"action": "append" if many else "store", "default": None}
                extra["metavar"] = o.metavar
            group.addoption(o.flag, dest=_dest(o), help=text.replace("%", "%%"), **extra)
        if o.kind in ("value", "list", "ini", "optional", "suite"):
            kind: Literal["linelist", "args"] | None = (
                "linelist" if o.kind in ("list", "suite") else "args" if o.kind == "ini" else None
            )
            parser.addini(o.ini, help=text, type=kind, default=o.default)


def _dest(o: Option) -> str:
    # A repeatable flag and its ini key (a list) are read separately.
    return o.ini + "_opt" if o.kind == "list" else o.ini


@dataclass(frozen=True)
class Settings:
    """The session's rspbench settings, parsed and checked."""

    engines: list[str] | None = None
    master: str = DEFAULT_MASTER
    spark_conf: dict[str, str] = field(default_factory=dict)
    artifacts: Path | None = None
    json_path: Path | None = None
    cache_dir: Path | str | None = None
    save: str | None = None
    compare: str | None = None
    rules: list[Any] = field(default_factory=list)
    baseline_dir: str | None = None
    heavy: bool = False
    files: list[str] = field(default_factory=lambda: [DEFAULT_PATTERN])
    shrink: float | None = None
    oracle_ahead: int = ORACLE_AHEAD
    cache_max_size: int | None = None
    warm_spark: float | None = None
    record: Path | None = None


def settings(config: pytest.Config) -> Settings:
    """Read every rspbench option of ``config``; bad values are usage errors."""
    artifacts, json_path = _value(config, "rspbench_artifacts"), _value(config, "rspbench_json")
    return Settings(
        engines=_engines(config),
        master=_value(config, "rspbench_spark_master") or DEFAULT_MASTER,
        spark_conf=spark_conf(_lines(config, "rspbench_spark_conf")),
        artifacts=Path(artifacts).resolve() if artifacts else None,
        json_path=Path(json_path).resolve() if json_path else None,
        cache_dir=_cache_dir(config),
        heavy=bool(config.getoption("rspbench_heavy")),
        files=list(config.getini("rspbench_files")),
        shrink=_shrink(config),
        oracle_ahead=_oracle_ahead(config),
        cache_max_size=_cache_max_size(config),
        warm_spark=_warm_spark(config),
        record=Path(record).resolve() if (record := _value(config, "rspbench_record")) else None,
        **_baseline(config),
    )


def _value(config: pytest.Config, ini: str) -> Any:
    value = config.getoption(ini)
    return value if value is not None else config.getini(ini)


def _oracle_ahead(config: pytest.Config) -> int:
    """``--rspbench-oracle-ahead N``: background oracle threads (0: off)."""
    text = str(_value(config, "rspbench_oracle_ahead")).strip()
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise pytest.UsageError(
            f"--rspbench-oracle-ahead: {text!r} is not a number of threads.\n"
            "HINT: give a whole number such as 2; 0 computes each item's oracle "
            "after its replay."
        )
    return value


def _warm_spark(config: pytest.Config) -> float | None:
    """``--rspbench-warm-spark IDLE``, else ``$RSPBENCH_WARM_SPARK``, else the
    ini key: the warm Spark's idle time in seconds, or None (off)."""
    from pytest_rspbench.oracle.spark.warmstate import parse_idle

    given = config.getoption("rspbench_warm_spark")
    where = "--rspbench-warm-spark"
    if given is None and os.environ.get(WARM_ENV):
        given, where = os.environ[WARM_ENV], WARM_ENV
    if given is None:
        given, where = config.getini("rspbench_warm_spark"), "rspbench_warm_spark (ini)"
    try:
        return parse_idle(str(given))
    except ValueError as exc:
        raise pytest.UsageError(
            f"{where}: {exc}.\nHINT: e.g. 10m keeps a warm Spark for 10 minutes "
            "without use; off (the default) starts Spark in each run."
        ) from None


def _cache_max_size(config: pytest.Config) -> int | None:
    """``--rspbench-cache-max-size SIZE``: bytes, or None for no limit."""
    from pytest_rspbench.oracle.store.housekeeping import parse_size

    text = str(_value(config, "rspbench_cache_max_size")).strip()
    try:
        return parse_size(text)
    except ValueError as exc:
        raise pytest.UsageError(
            f"--rspbench-cache-max-size: {exc}.\n"
            f"HINT: the default is {CACHE_MAX_SIZE}; 'none' never removes anything."
        ) from None


def _shrink(config: pytest.Config) -> float | None:
    """``--rspbench-shrink[=SECONDS]``: the budget per failing item, or None (off).

    The bare flag (and the ini key's ``true``) is :data:`SHRINK_SECONDS`;
    ``0``, ``false`` or ``off`` turn it off.
    """
    given = config.getoption("rspbench_shrink")
    text = str(given if given is not None else config.getini("rspbench_shrink") or "").strip()
    if given is None and not text:
        return None
    if text.lower() in ("", "true", "on", "yes"):
        return SHRINK_SECONDS
    if text.lower() in ("false", "off", "no"):
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise pytest.UsageError(
            f"--rspbench-shrink: {text!r} is not a number of seconds.\n"
            "HINT: write --rspbench-shrink=SECONDS (with '='): a value after a "
            "space is taken as the seconds, so a path there is read as one."
        )
    return seconds or None


def _lines(config: pytest.Config, ini: str) -> list[str]:
    return list(config.getoption(ini + "_opt") or config.getini(ini) or ())


def _engines(config: pytest.Config) -> list[str] | None:
    """``--rspbench-engine`` (repeatable, comma-separated): names as given,
    paths made absolute."""
    values = config.getoption("rspbench_engine_opt")
    base = config.invocation_params.dir
    if values is None:
        values = config.getini("rspbench_engine") or []
        base = config.inipath.parent if config.inipath else config.rootpath
    # Every engine given, in order, once: ``-e A -e B`` and ``A,B`` alike.
    given = list(dict.fromkeys(e.strip() for v in values for e in v.split(",") if e.strip()))
    if not given:
        return None
    found = [engine_arg(e, Path(base)) for e in given]
    for text, engine in zip(given, found, strict=True):
        _check_engine(text, engine)
    return found


def _check_engine(text: str, engine: str) -> None:
    """One usage error for an engine that cannot be found or read, not one per spec."""
    from pytest_rspbench.engine.profiles import identify
    from pytest_rspbench.errors import EngineConfigError

    try:
        identify(engine, Path.cwd())
    except (EngineConfigError, OSError) as exc:
        problem, _, hint = str(exc).partition("\nHINT: ")
        raise pytest.UsageError(
            f"--rspbench-engine {text}: {problem}\nHINT: "
            + (
                hint
                if "relative to the spec" not in hint
                else "a path given with --rspbench-engine is relative to the folder "
                "pytest runs in (in the ini file: to the ini file's folder)."
            )
        ) from None


def engine_arg(name: str, base: Path) -> str:
    """An engine given by path (``x/engine.yaml``), made absolute from ``base``;
    a registered name (``reference``) as is."""
    if "/" not in name and "\\" not in name and not name.endswith((".yaml", ".yml")):
        return name
    path = Path(name).expanduser()
    return str(path if path.is_absolute() else (base / path).resolve())


def spark_conf(entries: list[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` settings (``--rspbench-spark-conf``) as a dict."""
    conf = {}
    for entry in entries or ():
        key, sep, value = entry.partition("=")
        if not sep or not key.strip().startswith("spark."):
            raise pytest.UsageError(
                f"--rspbench-spark-conf {entry!r}: expected KEY=VALUE with a Spark "
                "setting as KEY.\nHINT: e.g. --rspbench-spark-conf spark.driver.memory=12g"
            )
        conf[key.strip()] = value.strip()
    return conf


def _cache_dir(config: pytest.Config) -> Path | str | None:
    """``--rspbench-cache-dir``, else ``$RSPBENCH_CACHE_DIR``, else the ini key.

    The option and the variable are relative to the working directory, the
    ini key to the rootdir; ``none`` is kept as is (no cache).
    """
    value = config.getoption("rspbench_cache_dir") or os.environ.get(CACHE_ENV)
    base = Path.cwd()
    if not value:
        value, base = config.getini("rspbench_cache_dir"), config.rootpath
    if not value or value.lower() == "none":
        return value or None
    return base / Path(value).expanduser()


def _baseline(config: pytest.Config) -> dict[str, Any]:
    """The baseline settings, checked now rather than after the run."""
    from pytest_rspbench.report.baseline import BaselineError, check_names, parse_rule

    save, name = _value(config, "rspbench_save"), _value(config, "rspbench_compare")
    directory = _value(config, "rspbench_baseline_dir")
    try:
        rules = [parse_rule(t) for t in _compare_rules(config)]
        check_names(save, name, config.rootpath, directory)
    except BaselineError as exc:
        raise pytest.UsageError(str(exc)) from exc
    if rules and not name:
        raise pytest.UsageError(
            "--rspbench-compare-fail needs a baseline to compare with.\n"
            "HINT: add --rspbench-compare NAME "
            "(stored earlier with --rspbench-save NAME)."
        )
    return {
        "save": save or None,
        "compare": name or None,
        "rules": rules,
        "baseline_dir": directory or None,
    }


def _compare_rules(config: pytest.Config) -> list[str]:
    # Both add up: rules kept in the ini file, and more for this run.
    return [
        *(config.getini("rspbench_compare_fail") or ()),
        *(config.getoption("rspbench_compare_fail_opt") or ()),
    ]
