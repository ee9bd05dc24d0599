"""Per-pytest-session state: options, the lazily started Spark, artifacts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class RspbenchSession:
    """State shared by all items of one pytest session (kept in the stash)."""

    engines: list[str] | None
    master: str
    artifacts: Path | None
    json_path: Path | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    # Baselines (pytest_rspbench.report.baseline): names, rules, and what came out.
    save: str | None = None
    compare: str | None = None
    rules: list[Any] = field(default_factory=list)
    baseline_dir: str | None = None
    comparison: Any = None
    saved: Path | None = None
    # The oracle's stream cache: the configured folder (or "none"), and
    # pytest's cache for the default folder.
    cache_dir: Path | str | None = None
    spark_conf: dict[str, str] = field(default_factory=dict)
    pytest_cache: Any = field(default=None, repr=False)
    _provider: Any = field(default=None, repr=False)
    _stream_cache: Any = field(default=None, repr=False)

    @classmethod
    def from_config(cls, config: pytest.Config) -> RspbenchSession:
        def option(name: str) -> Any:
            value = config.getoption(name)
            return value if value is not None else config.getini(name)

        engines = config.getoption("rspbench_engine")
        # A path on the command line is relative to where pytest was started;
        # one in the ini file, to the ini file's folder.
        base = config.invocation_params.dir
        if engines is None:
            engines = config.getini("rspbench_engine")
            base = config.inipath.parent if config.inipath else config.rootpath
        artifacts = option("rspbench_artifacts")
        json_path = option("rspbench_json")
        from pytest_rspbench.report.baseline import session_options

        return cls(
            json_path=Path(json_path).resolve() if json_path else None,
            engines=[_engine_arg(e.strip(), Path(base)) for e in engines.split(",") if e.strip()]
            if engines
            else None,
            master=option("rspbench_spark_master") or "local[*]",
            spark_conf=_spark_conf(
                config.getoption("rspbench_spark_conf_opt")
                or config.getini("rspbench_spark_conf")
            ),
            artifacts=Path(artifacts).resolve() if artifacts else None,
            cache_dir=_cache_dir(config),
            pytest_cache=getattr(config, "cache", None),
            **session_options(config, option),
        )

    def spark(self) -> Any:
        """The SparkSession, started on first use (one per pytest session)."""
        if self._provider is None:
            from pytest_rspbench.oracle.spark import SparkProvider

            self._provider = SparkProvider(self.master, conf=self.spark_conf)
        return self._provider.get()

    def spark_failure(self, exc: BaseException) -> str | None:
        """An OracleError text if ``exc`` is the oracle's Spark failing."""
        return None if self._provider is None else self._provider.explain_failure(exc)

    def stream_cache(self) -> Any:
        """The oracle's :class:`StreamCache`, or None to keep streams in memory."""
        if self._stream_cache is None:
            from pytest_rspbench.oracle.streamcache import stream_cache

            cache = stream_cache(self.master, self.cache_dir, self.pytest_cache)
            self._stream_cache = cache or False
        return self._stream_cache or None

    def artifacts_for(self, nodeid: str) -> Path | None:
        from pytest_rspbench.plugin import safe_name

        return None if self.artifacts is None else self.artifacts / safe_name(nodeid)

    def record(self, nodeid: str, run: Any) -> None:
        """Keep a finished case's summary for the results file and the terminal."""
        from pytest_rspbench.report.results import item_record

        self.results.append(item_record(nodeid, run))

    def note(self, item: Any, report: Any) -> None:
        """Fold an item's test report (outcome, duration) into its record."""
        from pytest_rspbench.report.results import note_outcome

        note_outcome(self.results, item, report, self.artifacts_for(item.nodeid))

    def close(self) -> None:
        if self._provider is not None:
            self._provider.stop()


def _cache_dir(config: pytest.Config) -> Path | str | None:
    """``--rspbench-cache-dir``, else ``$RSPBENCH_CACHE_DIR``, else the ini key.

    The option and the variable are relative to the working directory, the
    ini key to the rootdir; ``none`` is kept as is (no cache).
    """
    import os

    from pytest_rspbench.oracle.streamcache import ENV

    value = config.getoption("rspbench_cache_dir") or os.environ.get(ENV)
    base = Path.cwd()
    if not value:
        value, base = config.getini("rspbench_cache_dir"), config.rootpath
    if not value or value.lower() == "none":
        return value or None
    return base / Path(value).expanduser()


def _engine_arg(name: str, base: Path) -> str:
    """An engine given by path (``x/engine.yaml``), made absolute from ``base``;
    a registered name (``reference``) as is."""
    if "/" not in name and "\\" not in name and not name.endswith((".yaml", ".yml")):
        return name
    path = Path(name).expanduser()
    return str(path if path.is_absolute() else (base / path).resolve())


def _spark_conf(entries: list[str] | None) -> dict[str, str]:
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
