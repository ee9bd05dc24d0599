"""The pytest plugin: collect ``*.rspbench.yaml`` specs and run their cases.

Kept thin and cheap to import: PySpark, rdflib and engines are imported only
inside the functions that need them, so ``pytest --help`` and collection stay
fast. Hooks delegate to the modules that do the work.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.errors import OracleError, RspbenchError

DEFAULT_PATTERN = "*.rspbench.yaml"
DEFAULT_MASTER = "local[*]"

OPTIONS = (
    # (option, ini key, default, help)
    ("--rspbench-engine", "rspbench_engine", None,
     "run every spec against this engine (a registered name or a path to an engine.yaml) "
     "instead of the engines the specs list; may be comma-separated"),
    ("--rspbench-spark-master", "rspbench_spark_master", DEFAULT_MASTER,
     "Spark master for the oracle: local[N], spark://host:port or a Spark Connect sc:// URL"),
    ("--rspbench-artifacts", "rspbench_artifacts", None,
     "folder where each item keeps its stream, the engine's raw output and a metrics JSON"),
    ("--rspbench-json", "rspbench_json", None,
     "write a results file (JSON, versioned) with every item's verdicts and per-window metrics"),
    ("--rspbench-save", "rspbench_save", None,
     "store this run as baseline NAME (under rspbench_baseline_dir; a NAME ending "
     "in .json is a file path)"),
    ("--rspbench-compare", "rspbench_compare", None,
     "compare this run with baseline NAME and show what got better or worse"),
    ("--rspbench-baseline-dir", "rspbench_baseline_dir", ".rspbench/baselines",
     "folder, relative to the rootdir, where baselines are stored"),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rspbench", "RDF stream processing benchmarks (pytest-rspbench)")
    for option, ini, default, text in OPTIONS:
        shown = "none" if default is None else default
        group.addoption(option, dest=ini, default=None, help=f"{text} (default: {shown})")
        parser.addini(ini, help=f"{text} (default: {shown})", default=default)
    fail_help = (
        "with --rspbench-compare: fail on a regression beyond EXPR, e.g. "
        "recall:-0.01 or delay.p95:+20% (repeatable; default: none)"
    )
    group.addoption(
        "--rspbench-compare-fail", dest="rspbench_compare_fail_opt", action="append",
        metavar="EXPR", default=None, help=fail_help.replace("%", "%%"),
    )
    parser.addini("rspbench_compare_fail", type="linelist", default=[], help=fail_help)
    cache_help = (
        "folder where the oracle keeps each stream as Parquet, keyed by a hash of "
        "its source, so items sharing a stream write it once, and its expected "
        "outputs, keyed by all their inputs; 'none' keeps streams in memory and "
        "stores nothing; the environment variable RSPBENCH_CACHE_DIR sets it too "
        "(default: rspbench-streams in pytest's cache folder, or "
        "~/.cache/pytest-rspbench/streams without the cache plugin; in memory "
        "when Spark runs on another machine)"
    )
    group.addoption(
        "--rspbench-cache-dir", dest="rspbench_cache_dir", default=None,
        metavar="DIR", help=cache_help,
    )
    parser.addini("rspbench_cache_dir", help=cache_help, default=None)
    conf_help = (
        "a Spark setting for the oracle's session, KEY=VALUE, e.g. "
        "spark.driver.memory=12g (repeatable; the ini key takes one per line; "
        "default: a driver heap of a quarter of the machine's memory, 2g to 8g)"
    )
    group.addoption(
        "--rspbench-spark-conf", dest="rspbench_spark_conf_opt", action="append",
        metavar="KEY=VALUE", default=None, help=conf_help,
    )
    parser.addini("rspbench_spark_conf", type="linelist", default=[], help=conf_help)
    group.addoption(
        "--rspbench-heavy", action="store_true", default=False,
        help="also run specs marked heavy (big load levels); they are deselected "
        "unless this is given or -m names 'heavy' (default: off)",
    )
    group.addoption(
        "--rspbench-suite",
        dest="rspbench_suite",
        action="append",
        metavar="NAME",
        default=None,
        help="collect a suite of specs shipped with an installed package: 'conformance' "
        "(the bundled benchmarks) or 'conformance/rspql' for one part; repeatable "
        "(default: none)",
    )
    parser.addini(
        "rspbench_files", type="args", default=[DEFAULT_PATTERN],
        help=f"glob patterns of spec files to collect (default: {DEFAULT_PATTERN})",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """``--rspbench-suite NAME`` adds the suite's folder to what is collected."""
    names = getattr(early_config.known_args_namespace, "rspbench_suite", None)
    if not names:
        return
    from pytest_rspbench.spec.suites import SuiteError, paths

    try:
        args.extend(str(path) for path in paths(names))
    except SuiteError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_configure(config: pytest.Config) -> None:
    from pytest_rspbench.session import RspbenchSession

    config.addinivalue_line("markers", "rspbench: an item generated from an *.rspbench.yaml spec")
    config.addinivalue_line(
        "markers", "heavy: a heavy load level; deselected unless --rspbench-heavy or -m heavy"
    )
    config.stash[SESSION_KEY] = RspbenchSession.from_config(config)
    if config.pluginmanager.hasplugin("html"):
        from pytest_rspbench.report.html import HtmlHooks

        config.pluginmanager.register(HtmlHooks(), "rspbench-html")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect heavy load levels unless asked for (quick runs stay quick)."""
    if config.getoption("rspbench_heavy") or "heavy" in (config.getoption("markexpr") or ""):
        return
    heavy = [item for item in items if item.get_closest_marker("heavy") is not None]
    if heavy:
        config.hook.pytest_deselected(items=heavy)
        items[:] = [item for item in items if item.get_closest_marker("heavy") is None]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    session = terminalreporter.config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    from pytest_rspbench.comparisons import summary_lines as comparison_lines

    compared = comparison_lines(terminalreporter.config)
    if compared:
        terminalreporter.write_sep("=", "rspbench mismatch and sweeps")
        for line in compared:
            terminalreporter.write_line(line)
    if not session.results:
        return
    from pytest_rspbench.report.terminal import summary_lines

    terminalreporter.write_sep("=", "rspbench summary")
    for line in summary_lines(session.results):
        terminalreporter.write_line(line)
    if session.json_path is not None:
        terminalreporter.write_line(f"results written to {session.json_path}")
    if session.comparison is not None:
        from pytest_rspbench.report.baseline import lines

        terminalreporter.write_sep("=", "rspbench comparison with a baseline")
        for line in lines(session.comparison):
            terminalreporter.write_line(line, red=line.startswith("FAILED"))
    if session.saved is not None:
        saved = f"baseline {session.save!r} saved to {session.saved}"
        terminalreporter.write_line(saved)


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(SESSION_KEY, None)
    if state is not None and state.results:
        from pytest_rspbench.report.results import finish

        finish(state, session)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    report = yield
    state = item.config.stash.get(SESSION_KEY, None)
    if state is not None and item.get_closest_marker("rspbench") is not None:
        state.note(item, report)
    return report


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    patterns = parent.config.getini("rspbench_files")
    if any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    """One spec file; each of its cases becomes a :class:`CaseItem`."""

    def collect(self) -> Any:
        from pytest_rspbench.engine.profiles import locate
        from pytest_rspbench.spec.loader import load_spec

        session = self.config.stash[SESSION_KEY]
        spec = load_spec(self.path, session.engines, check_engine=locate)
        if spec.cases:
            self._check_marks(spec.cases[0].marks)
        items = []
        for case in spec.cases:
            item = CaseItem.from_parent(self, name=f"{spec.name}[{case.case_id}]", case=case)
            item.add_marker("rspbench")
            for mark in case.marks:
                item.add_marker(mark)
            _select(item, case)
            items.append(item)
            yield item
        if spec.cases and (spec.cases[0].mismatch or spec.cases[0].sweep):
            from pytest_rspbench.comparisons import group_items

            yield from group_items(self, spec, items)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RspbenchError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)  # a Collector's takes no style

    def _check_marks(self, marks: tuple[str, ...]) -> None:
        """Under --strict-markers, a spec's unregistered mark is a spec error."""
        config = self.config
        if not (config.option.strict_markers or config.getini("strict_markers")):
            return
        known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
        for index, mark in enumerate(marks):
            if mark not in known:
                from pytest_rspbench.spec.diagnostics import spec_error
                from pytest_rspbench.spec.document import parse_document

                document = parse_document(self.path.read_text(encoding="utf-8"), str(self.path))
                raise spec_error(
                    str(self.path), document, ("marks", index),
                    f"mark {mark!r} is not registered and --strict-markers is on.",
                    f"register it in your pytest configuration (markers = {mark}: ...) "
                    "or remove it from marks:",
                )


class CaseFailed(Exception):
    """A case ran but did not meet its verdict or thresholds."""


class CaseItem(pytest.Item):
    """One case: one combination of matrix values and one engine."""

    def __init__(self, *, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        from pytest_rspbench.report.progress import live_progress
        from pytest_rspbench.report.text import failure_text
        from pytest_rspbench.runner import run_case

        session = self.config.stash[SESSION_KEY]
        progress = live_progress(self.config)
        try:
            artifacts = session.artifacts_for(self.nodeid)
            cache = session.stream_cache()
            run = run_case(self.case, session.spark, artifacts, progress, cache)
        except Exception as exc:
            text = session.spark_failure(exc)
            if text is None:
                raise
            raise OracleError(text) from exc
        finally:
            if progress is not None:
                progress.close()
        self.stash[RUN_KEY] = run
        session.record(self.nodeid, run)
        for key, value in _properties(run):
            self.user_properties.append((key, value))
        if not run.assessment.passed:
            bounds = run.profile.semantics.bounds
            raise CaseFailed(failure_text(run.assessment, bounds, run.actual.error))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (CaseFailed, RspbenchError)):
            return f"{self.name}: " + str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"spec {self.name}"


def _select(item: CaseItem, case: Any) -> None:
    """Skip a case the engine's profile cannot run; mark its known failures.

    A spec that pins semantics (``semantics:``) means the same on every
    engine, so an engine that has other values and cannot be configured
    (``configurable:`` in engine.yaml) is skipped, with the reason. A known
    failure (``known_failures:``) becomes a strict xfail: green while the
    departure holds, red the day the engine is fixed.
    """
    from pytest_rspbench.engine.profiles import resolve

    profile = resolve(case.engine, case.base_dir)
    departures = profile.departures(case.semantics, case.query.r2s)
    if departures:
        reason = f"{profile.name}'s profile cannot run this case: " + "; ".join(
            departures
        )
        item.add_marker(pytest.mark.skip(reason=reason))
        return
    params = dict(case.params)
    for known in case.known_failures:
        if known.matches(profile.name, params):
            item.add_marker(
                pytest.mark.xfail(
                    reason=f"known departure of {profile.name}: {known.reason}",
                    strict=True,
                    raises=CaseFailed,
                )
            )
            return


def _properties(run: Any) -> list[tuple[str, Any]]:
    from pytest_rspbench.report.junit import properties

    a = run.assessment
    return [
        *properties(run),
        ("rspbench.alignment", a.alignment.rule if a.alignment else None),
    ]


def safe_name(nodeid: str) -> str:
    """A file-system safe folder name for an item."""
    return re.sub(r"[^A-Za-z0-9_.=,-]+", "_", nodeid).strip("_")[:150]


SESSION_KEY = pytest.StashKey["Any"]()
RUN_KEY = pytest.StashKey["Any"]()
