"""ProcessTree: an engine's processes followed while it runs and stopped whole.

A child that calls setsid (or a daemon) holding the engine's pipes is killed
too; a crash of the engine while such a child holds stdout is reported as the
crash, not as a full replay timeout; the exit status after a kill is the
engine's own, not 'exit code 0' from psutil reaping the engine first.
"""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest
from engine_helpers import (
    EX,
    QUERY,
    SEMANTICS,
    fake_config,
    leftovers,
    named_stream,
    new_tag,
    run_fake,
)

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration
from pytest_rspbench.engine.process import ProcessEngine
from pytest_rspbench.engine.tree import TOKEN_ENV, ProcessTree


def start(script: str, tag: str, **kwargs) -> ProcessTree:
    code = textwrap.dedent(script).replace("TAG", tag)
    return ProcessTree.start([sys.executable, "-c", code, tag], Path.cwd(), {}, **kwargs)


SLEEP = 'import sys, time; sys.argv.append("TAG"); time.sleep(600)'
SETSID_CHILD = f"""
    import subprocess, sys, time
    subprocess.Popen([sys.executable, "-c", {SLEEP!r}, "TAG"], start_new_session=True)
    time.sleep(600)
"""


@pytest.mark.parametrize(
    "faults",
    [("setsid-child",), ("daemon",), ("detached-child",), ("child",)],
    ids=["setsid-child", "daemon", "detached-child", "child"],
)
def test_processes_that_left_the_tree_are_gone_after_the_run(artifacts, faults):
    tag = new_tag()
    # speed 10: the run lasts about a second, so the tree is polled a few times
    # (the detached child, with no mark and no pipe, is known by descent only).
    actual = run_fake(*faults, f"tag={tag}", artifacts=artifacts, speed=10)
    assert actual.error is None
    assert len(actual.received) == 5
    assert leftovers(tag) == []


@pytest.mark.parametrize("child", ["setsid-child", "daemon"])
def test_a_crash_while_a_leftover_holds_stdout_is_a_crash_not_a_timeout(artifacts, child):
    tag = new_tag()
    started = time.monotonic()
    actual = run_fake(child, "crash=3000", f"tag={tag}", artifacts=artifacts, timeout=60)
    assert time.monotonic() - started < 15
    assert actual.error is not None
    assert actual.error.startswith("engine 'fake' stopped unexpectedly: exit code 3")
    assert "timeout" not in actual.error
    assert leftovers(tag) == []


def test_a_crash_while_a_leftover_holds_stdin_is_a_crash_not_a_timeout(artifacts):
    """The leftover keeps the pipe open: writes block instead of failing."""
    tag = new_tag()
    many = named_stream("s", list(range(0, 20_000, 1)))  # about 2 MB of event lines
    engine = ProcessEngine(fake_config("stdin-holder", f"tag={tag}"), "fake", artifacts)
    artifacts.mkdir(parents=True)
    started = time.monotonic()
    actual = harness.run(
        engine,
        Registration(QUERY, (EX + "s",), 0, SEMANTICS),
        [many],
        20_000,
        timeout=60,
        artifacts=artifacts,
        sample_interval=None,
    )
    assert time.monotonic() - started < 15
    assert actual.error is not None
    assert actual.error.startswith("engine 'fake' stopped unexpectedly: exit code 3\n")
    assert "fake_engine: crashed, a child keeps stdin" in actual.error
    assert leftovers(tag) == []


def test_a_hang_with_a_setsid_child_is_stopped_whole(artifacts):
    tag = new_tag()
    actual = run_fake("setsid-child", "hang=3000", f"tag={tag}", artifacts=artifacts, timeout=3)
    assert actual.error is not None
    assert "exit status: signal 15 (SIGTERM)" in actual.error.splitlines()
    assert leftovers(tag) == []


def test_stop_kills_a_setsid_child_and_keeps_the_engine_exit_status():
    tag = new_tag()
    exits: list[int] = []
    tree = start(SETSID_CHILD, tag, on_exit=exits.append)
    deadline = time.monotonic() + 10
    while len(leftovers(tag)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(tree.members()) == 2
    assert tree.stop(grace=2) == 2
    assert tree.wait(5) == -15  # the SIGTERM, not "exit code 0"
    assert exits == [-15]
    assert leftovers(tag) == []


def test_members_are_found_by_their_mark_after_leaving_the_tree():
    tag = new_tag()
    # The engine double-forks a daemon (own session, re-parented) and exits.
    tree = start(
        f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", {SLEEP!r}, "TAG"])
            os._exit(0)
        """,
        tag,
    )
    assert tree.wait(10) == 0
    deadline = time.monotonic() + 10
    while not leftovers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    (daemon,) = leftovers(tag)
    assert daemon.environ()[TOKEN_ENV]
    assert [p.pid for p in tree.members()] == [daemon.pid]
    tree.stop(grace=2)
    assert leftovers(tag) == []


def test_a_process_holding_the_engine_pipes_is_a_member_without_the_mark():
    tag = new_tag()
    tree = start(
        f"""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", {SLEEP!r}, "TAG"], env={{}},
                         start_new_session=True)
        """,
        tag,
    )
    assert tree.wait(10) == 0
    deadline = time.monotonic() + 10
    while not leftovers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    (holder,) = leftovers(tag)
    assert TOKEN_ENV not in holder.environ()
    assert [p.pid for p in tree.members()] == [holder.pid]
    tree.stop(grace=2)
    assert leftovers(tag) == []


def test_stop_spares_the_harness_and_unrelated_processes():
    tag = new_tag()
    tree = start("pass", tag)
    assert tree.wait(10) == 0
    assert tree.members() == []
    assert tree.stop(grace=1) == 0
