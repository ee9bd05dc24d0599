"""engine.yaml adapters: python, command and recorded; the cached setup command."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from engine_helpers import leftovers, new_tag

from pytest_rspbench.engine.adapters import CommandAdapter, RecordedAdapter, expand
from pytest_rspbench.engine.process import ProcessEngine
from pytest_rspbench.engine.processes import EngineUnavailable
from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.engine.recorded import RecordedEngine
from pytest_rspbench.engine.sampling import INTERVAL_ENV, resolve_interval
from pytest_rspbench.engine.setupcache import CACHE_ENV, STAMP
from pytest_rspbench.errors import EngineConfigError, EngineError

SEMANTICS = "semantics: {bounds: '[o,c)', t0: registration, report: [window-close]}\n"

# A setup command that counts its runs in a file next to the engine.yaml.
COUNTING_SETUP = (
    "import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
    "p.write_text(str(int(p.read_text() or 0) + 1) if p.exists() else '1'); "
    "pathlib.Path('installed.txt').write_text('ok')"
)


def profile_at(folder: Path, body: str, name: str = "eng") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "engine.yaml"
    path.write_text(f"name: {name}\n" + textwrap.dedent(body) + SEMANTICS)
    load_profile.cache_clear()
    return path


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(INTERVAL_ENV, raising=False)


def test_command_adapter_with_placeholders_and_options(tmp_path):
    path = profile_at(
        tmp_path,
        """\
        adapter:
          command: ["{python}", "{engine_dir}/run.py", --fast]
          cwd: work
          env: {ENGINE_HOME: "{engine_dir}", LEVEL: 3}
          handshake_timeout: 7
        install_hint: pip install it
        sampling: {interval: 250}
        """,
    )
    profile = load_profile(path)
    assert profile.config == CommandAdapter(
        ("{python}", "{engine_dir}/run.py", "--fast"),
        "work",
        {"ENGINE_HOME": "{engine_dir}", "LEVEL": "3"},
        handshake_timeout=7,
    )
    assert profile.adapter == "{python} {engine_dir}/run.py --fast"
    assert profile.sample_interval == 0.25
    engine = profile.create()
    assert isinstance(engine, ProcessEngine)
    config = engine._config
    assert config.command == (sys.executable, f"{tmp_path}/run.py", "--fast")
    assert config.cwd == tmp_path / "work"
    assert config.env == {"ENGINE_HOME": str(tmp_path), "LEVEL": "3"}


def test_recorded_adapter_path_names_spec_and_case(tmp_path):
    path = profile_at(
        tmp_path,
        """\
        adapter:
          recorded:
            path: "answers/{spec}/{case}.json"
            format: csrbench
            regroup: true
        """,
    )
    profile = load_profile(path)
    assert profile.config == RecordedAdapter("answers/{spec}/{case}.json", "csrbench", True)
    engine = profile.create(case={"spec": "q1", "case": "range=4000"})
    assert isinstance(engine, RecordedEngine)
    assert engine.path == tmp_path / "answers" / "q1" / "range=4000.json"
    assert (engine.format, engine.regroup) == ("csrbench", True)


def test_python_adapter_still_loads(tmp_path):
    path = profile_at(
        tmp_path,
        "adapter:\n  python: rspbench_engines.reference.engine:ReferenceEngine\n",
    )
    assert type(load_profile(path).create()).__name__ == "ReferenceEngine"


@pytest.mark.parametrize(
    "adapter",
    [
        "adapter: {python: 'a:B', command: [x]}\n",
        "adapter: {}\n",
        "adapter: {command: []}\n",
        "adapter: {recorded: {format: jsonl}}\n",
        "adapter: {command: [x], timeout: 3}\n",
    ],
)
def test_invalid_adapters_are_refused(tmp_path, adapter):
    with pytest.raises(EngineConfigError, match=r"engine\.yaml"):
        load_profile(profile_at(tmp_path, adapter))


def test_missing_program_makes_the_engine_unavailable_with_the_hint(tmp_path):
    path = profile_at(
        tmp_path,
        """\
        adapter: {command: [no-such-engine-binary, --serve]}
        install_hint: "pip install no-such-engine"
        """,
        name="ghost",
    )
    with pytest.raises(EngineUnavailable) as info:
        load_profile(path).create()
    assert str(info.value).startswith(
        "engine 'ghost' needs 'no-such-engine-binary', which is neither on PATH nor in "
    )
    assert str(info.value).endswith("\nHINT: pip install no-such-engine")


def setup_profile(folder: Path, lock: str = "v1") -> Path:
    (folder / "lock.txt").parent.mkdir(parents=True, exist_ok=True)
    (folder / "lock.txt").write_text(lock)
    runs = folder / "runs.txt"
    return profile_at(
        folder,
        f"""\
        adapter:
          command: ["{{python}}", "-c", "pass"]
          cwd: "{{setup_dir}}"
        setup:
          command: ["{{python}}", "-c", "{COUNTING_SETUP}", "{runs}"]
          key: [lock.txt]
        """,
    )


def test_setup_runs_once_per_key_in_its_own_cached_folder(tmp_path):
    engine_dir = tmp_path / "engine"
    path = setup_profile(engine_dir)
    first = load_profile(path).create()
    second = load_profile(path).create()
    assert (engine_dir / "runs.txt").read_text() == "1"
    folder = first._config.cwd
    assert folder == second._config.cwd
    assert folder.parent == tmp_path / "cache" / "setup"
    assert folder.name.startswith("eng-")
    assert (folder / "lock.txt").read_text() == "v1"
    assert (folder / "installed.txt").read_text() == "ok"
    assert (folder / STAMP).exists()
    assert not (engine_dir / "installed.txt").exists()  # the engine folder stays clean


def test_a_changed_key_file_runs_the_setup_again(tmp_path):
    engine_dir = tmp_path / "engine"
    old = load_profile(setup_profile(engine_dir, "v1")).create()._config.cwd
    new = load_profile(setup_profile(engine_dir, "v2")).create()._config.cwd
    assert old != new
    assert (engine_dir / "runs.txt").read_text() == "2"


def test_failed_setup_quotes_its_log_and_is_retried(tmp_path):
    path = profile_at(
        tmp_path,
        """\
        adapter: {command: ["{python}", x.py]}
        setup:
          command:
            - "{python}"
            - -c
            - "import sys; print('npm ERR! network down'); sys.exit(7)"
        """,
        name="broken",
    )
    with pytest.raises(EngineError) as info:
        load_profile(path).create()
    message = str(info.value)
    assert message.startswith(f"setup of engine 'broken' failed: {sys.executable} -c ")
    assert "exited with 7." in message
    assert "npm ERR! network down" in message
    assert "HINT: run the command by hand" in message
    with pytest.raises(EngineError):
        load_profile(path).create()  # not cached: tried again


SPAWNING_SETUP = (
    "import subprocess, sys, time; "
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1]], "
    "start_new_session=True); time.sleep(float(sys.argv[2]))"
)


@pytest.mark.parametrize(("runs", "status"), [(600, "timed out after 1 s"), (0, None)])
def test_a_setup_leaves_no_process_behind(tmp_path, runs, status):
    """npm starts more processes: a timeout, or a finished setup, must not leave them."""
    tag = new_tag()
    path = profile_at(
        tmp_path,
        f"""\
        adapter: {{command: ["{{python}}", -c, pass], cwd: "{{setup_dir}}"}}
        setup:
          command: ["{{python}}", -c, "{SPAWNING_SETUP}", {tag}, "{runs}"]
          timeout: 1
        """,
    )
    if status:
        with pytest.raises(EngineError, match=status):
            load_profile(path).create()
    else:
        load_profile(path).create()
    assert leftovers(tag) == []


def test_missing_key_file_is_a_config_error(tmp_path):
    path = profile_at(
        tmp_path,
        """\
        adapter: {command: ["{python}", x.py]}
        setup: {command: ["{python}", -c, pass], key: [package-lock.json]}
        """,
    )
    with pytest.raises(EngineConfigError, match=r"setup key file 'package-lock\.json'"):
        load_profile(path).create()


def test_sample_interval_env_wins_over_profile(monkeypatch):
    assert resolve_interval(None) == 0.5
    assert resolve_interval(0.25) == 0.25
    monkeypatch.setenv(INTERVAL_ENV, "100")
    assert resolve_interval(0.25) == 0.1


def test_expand_leaves_unknown_placeholders():
    assert expand("{a}/{b}", {"a": "x"}) == "x/{b}"
