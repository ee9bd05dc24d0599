"""The pytest plugin: collect ``*.rspbench.yaml`` specs and run their cases.

Kept thin and cheap to import: PySpark, rdflib and engines are imported only
inside the functions that need them, so ``pytest --help`` and collection stay
fast. Hooks delegate to the modules that do the work.
"""

from __future__ import annotations

import fnmatch
import glob
from pathlib import Path
from typing import Any

import pytest

# Re-exported: a conftest.py reads the session's state as
# ``config.stash[SESSION_KEY]`` (it lives in pytest_rspbench.session).
from pytest_rspbench.session import SESSION_KEY as SESSION_KEY


def pytest_addoption(parser: pytest.Parser) -> None:
    from pytest_rspbench.options import declare

    declare(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """``--rspbench-suite NAME`` (or the ini key ``rspbench_suite``) adds the
    suite's folder to what is collected.

    The option runs the suite (and the paths given beside it) only, as
    ``pytest --rspbench-suite conformance`` reads. The ini key adds the suite
    to the project's own tests: with no path on the command line,
    ``testpaths`` is collected too, which pytest reads only when no path is
    given (and the suite's folder is one)."""
    namespace = early_config.known_args_namespace
    given = getattr(namespace, "rspbench_suite", None)
    names = given or early_config.getini("rspbench_suite")
    if not names:
        return
    from pytest_rspbench.spec.suites import SuiteError, paths

    try:
        suites = [str(path) for path in paths(names)]
    except SuiteError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not given and not getattr(namespace, "file_or_dir", None):
        root = early_config.rootpath
        for entry in early_config.getini("testpaths"):
            args.extend(sorted(glob.glob(str(root / entry))) or [str(root / entry)])
    args.extend(suites)


def pytest_configure(config: pytest.Config) -> None:
    from pytest_rspbench.session import RspbenchSession

    config.addinivalue_line("markers", "rspbench: an item generated from an *.rspbench.yaml spec")
    config.addinivalue_line(
        "markers", "heavy: a heavy load level; deselected unless --rspbench-heavy or -m heavy"
    )
    state = RspbenchSession.from_config(config)
    config.stash[SESSION_KEY] = state
    state.interrupt_on_sigterm()
    if config.pluginmanager.hasplugin("html"):
        from pytest_rspbench.report.html import HtmlHooks

        config.pluginmanager.register(HtmlHooks(state), "rspbench-html")
    if config.pluginmanager.hasplugin("xdist") and not _is_worker(config):
        config.pluginmanager.register(FromWorkers(config), "rspbench-xdist")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()
    from pytest_rspbench.engine.transports.broker import stop_local

    stop_local()  # the session's MQTT broker (broker: local), if a run started one


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect heavy load levels unless asked for (quick runs stay quick)."""
    if config.getoption("rspbench_heavy") or "heavy" in (config.getoption("markexpr") or ""):
        return
    heavy = [item for item in items if item.get_closest_marker("heavy") is not None]
    if heavy:
        from pytest_rspbench.options import HEAVY_DESELECTED

        config.hook.pytest_deselected(items=heavy)
        items[:] = [item for item in items if item.get_closest_marker("heavy") is None]
        config.stash[HEAVY_DESELECTED] = len(heavy)


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    """Say why heavy load levels were deselected (under pytest's count)."""
    from pytest_rspbench.options import HEAVY_DESELECTED, heavy_line

    count = config.stash.get(HEAVY_DESELECTED, 0)
    return [heavy_line(count)] if count else []


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
    if session.baseline_skipped:
        terminalreporter.write_line(
            "rspbench: the session was interrupted; the baseline was neither compared "
            "nor saved (a part of the suite is no baseline)",
            yellow=True,
        )
    if session.settings.warm_spark is not None:
        _warm_line(terminalreporter, session)
    if not session.results:
        return
    from pytest_rspbench.report.terminal import summary_lines

    terminalreporter.write_sep("=", "rspbench summary")
    quiet = terminalreporter.config.get_verbosity() < 0
    for line in summary_lines(session.results, quiet):
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
    if session.pruned is not None:
        _pruned_line(terminalreporter, session)


def _warm_line(terminalreporter: Any, session: Any) -> None:
    """Which warm Spark this run used (--rspbench-warm-spark) and how to stop it;
    under xdist, the one the workers used, read from its state file."""
    line = session.warm_line
    if line is None:
        from pytest_rspbench.oracle.spark.warm import reminder

        line = reminder()
    if line:
        terminalreporter.write_line(f"rspbench: {line}")


def _pruned_line(terminalreporter: Any, session: Any) -> None:
    """What pruning the cache folder at the end did, if anything, or why it could not."""
    from pytest_rspbench.oracle.store.housekeeping import human_size

    root, pruned = session.pruned
    if isinstance(pruned, str):
        terminalreporter.write_line(
            f"rspbench cache {root}: could not prune it ({pruned}); `rspbench cache prune` "
            "does it by hand, --rspbench-cache-max-size none turns this off",
            yellow=True,
        )
    elif pruned.removed:
        terminalreporter.write_line(
            f"rspbench cache {root}: removed {len(pruned.removed)} least recently used "
            f"entries ({human_size(pruned.freed)}) to stay within --rspbench-cache-max-size "
            f"{human_size(session.cache_max_size)}; {human_size(pruned.remaining)} kept"
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(SESSION_KEY, None)
    # An xdist worker holds only its share: the controller writes the files.
    if state is None or _is_worker(session.config):
        return
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    if state.results or interrupted:
        state.finish(session, interrupted)  # after Ctrl-C: what finished
        state.prune_cache()  # after every worker is done with the folder


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Begin computing this item's and the next one's expected outputs in the
    background (``--rspbench-oracle-ahead``), so they overlap replays."""
    state = item.config.stash.get(SESSION_KEY, None)
    if state is None:
        return
    from pytest_rspbench.items import will_run

    for upcoming in (item, nextitem):
        if upcoming is not None and will_run(upcoming):
            state.ahead.submit(upcoming.nodeid, upcoming.case)  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    report = yield
    state = item.config.stash.get(SESSION_KEY, None)
    if state is not None and item.get_closest_marker("rspbench") is not None:
        from pytest_rspbench.report.results import strict_xpass

        if strict_xpass(report) is not None:  # a known failure that passed: failed
            # JUnit reads the teardown report's copy of the item's properties.
            item.user_properties[:] = [
                (k, False if k == "rspbench.passed" else v) for k, v in item.user_properties
            ]
        state.note(item, report)
        if _is_worker(item.config):
            # Travels with the report to the xdist controller (FromWorkers).
            report.rspbench_record = _plain(state.record_of(report.nodeid))
            report.rspbench_lines = getattr(item, "published", None)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: Any) -> Any:
    data = yield
    from pytest_rspbench.items import VerdictRepr

    # pytest sends a custom longrepr to the xdist controller as its text
    # alone; the verdict line travels beside it, so -r and JUnit keep it.
    if isinstance(data, dict) and isinstance(getattr(report, "longrepr", None), VerdictRepr):
        crash = report.longrepr.reprcrash
        data["rspbench_verdict"] = [report.longrepr.text, crash.path, crash.lineno]
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(config: pytest.Config, data: Any) -> Any:
    report = yield
    verdict = data.get("rspbench_verdict") if isinstance(data, dict) else None
    if report is not None and verdict:
        from pytest_rspbench.items import VerdictRepr

        report.longrepr = VerdictRepr(*verdict)
    return report


def _plain(record: dict[str, Any] | None) -> Any:
    """``record`` as plain JSON values, which execnet can send."""
    import json

    return None if record is None else json.loads(json.dumps(record, default=str))


def _is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker."""
    return hasattr(config, "workerinput")


class FromWorkers:
    """In the xdist controller: fold the records the workers' reports carry.

    Each worker keeps the records of the items it ran; its reports carry
    them here (``rspbench_record``, and the mismatch and sweep tables as
    ``rspbench_lines``), so the controller writes the whole results file and
    prints the whole summary.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if getattr(report, "node", None) is None:  # run here, not by a worker
            return
        record = getattr(report, "rspbench_record", None)
        if record is not None:
            self.config.stash[SESSION_KEY].merge(record)
        lines = getattr(report, "rspbench_lines", None)
        if lines and report.when == "call":
            from pytest_rspbench.comparisons import LINES_KEY

            self.config.stash.setdefault(LINES_KEY, []).extend(lines)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    patterns = parent.config.getini("rspbench_files")
    if any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        from pytest_rspbench.items import SpecFile

        return SpecFile.from_parent(parent, path=file_path)
    return None
