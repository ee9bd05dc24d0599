"""``rspbench init``: an engine repository made ready for pytest-rspbench.

    rspbench init [DIR] [--adapter python|node|http|websocket|mqtt|reference] [--name NAME]
                  [--suite SUITE] [--install SPEC] [--force]

Writes ``engine.yaml`` (every semantics key explained in comments, the
adapter chosen), a skeleton engine (a stdin/stdout process in Python or
Node, or an ``Engine`` class behind the bundled service wrapper of the
transport), ``pytest.ini``, ``specs/`` with one example spec and its stream,
and CI files for GitHub and GitLab that install pytest-rspbench, run the
specs and the conformance suite against the engine and keep the HTML report
and the results file. An existing file is never overwritten without
``--force`` (docs/for-engine-authors.md).
"""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import RspbenchError

ADAPTERS = ("python", "node", "http", "websocket", "mqtt", "reference")
INSTALL = "pytest-rspbench[services] @ git+https://github.com/OWNER/pytest-rspbench.git@COMMIT"
TEST_COMMAND = "pytest"
_WRAPPED = {
    "http": (
        '    command: ["{python}", -m, rspbench_engines.services.http, --port, "{port}", --once,'
        ' --engine, "engine:Engine"]\n    url: http://127.0.0.1:{port}   # without command: '
        "the address of your running service\n    results: callback              # or sse"
    ),
    "websocket": (
        '    command: ["{python}", -m, rspbench_engines.services.websocket, --port, "{port}",'
        ' --once, --engine, "engine:Engine"]\n    url: ws://127.0.0.1:{port}     # without '
        "command: the address of your running service"
    ),
    "mqtt": (
        '    command: ["{python}", -m, rspbench_engines.services.mqtt, --broker, "{broker}",'
        ' --topic, "{topic}", --once, --engine, "engine:Engine"]\n'
        "    broker: local                  # a mosquitto started for the session, or "
        "mqtt://host:port"
    ),
}


class InitError(RspbenchError, ValueError):
    """A file ``rspbench init`` would overwrite, or a folder it cannot write."""


def add_commands(commands: Any) -> None:
    """Register ``rspbench init``."""
    init = commands.add_parser(
        "init",
        help="make an engine repository ready: engine.yaml, a skeleton engine, specs, CI",
        description="Write, in DIR, an engine.yaml with every semantics key explained, "
        "a skeleton engine for the adapter chosen, pytest.ini, specs/ with an example spec, "
        "and CI files (.github/workflows/rspbench.yml, .gitlab-ci.yml) that run the specs "
        "and the conformance suite and keep the HTML report and the results file. "
        "Existing files are kept unless --force.",
    )
    init.add_argument("folder", nargs="?", default=".", help="the repository (default: .)")
    init.add_argument(
        "--adapter",
        choices=ADAPTERS,
        default="python",
        help="python or node: a process speaking JSON lines on stdin/stdout; http, "
        "websocket, mqtt: a service; reference: the bundled reference engine's profile, "
        "a known-good start whose CI passes before your engine is plugged in "
        "(default: python)",
    )
    init.add_argument("--name", help="the engine's name (default: the folder's name)")
    init.add_argument(
        "--suite",
        default="conformance",
        help="the suite CI runs beside specs/ (e.g. conformance/rspql); none: specs/ only "
        "(default: conformance)",
    )
    init.add_argument(
        "--install",
        default=INSTALL,
        help="what CI gives pip to install pytest-rspbench (default: a git URL to fill in)",
    )
    init.add_argument(
        "--force", action="store_true", help="overwrite existing files (default: keep them, stop)"
    )
    init.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.folder).resolve()
    name = _name(args.name or root.name)
    files = plan(args.adapter, name, args.suite, args.install)
    existing = [path for path in files if (root / path).exists()]
    if existing and not args.force:
        raise InitError(
            f"{root}: would overwrite {', '.join(existing)}."
            "\nHINT: move them away, or pass --force to overwrite them."
        )
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(root)}")
    print(f"next: {TEST_COMMAND}  (in {root}; docs/for-engine-authors.md)")
    return 0


def plan(adapter: str, name: str, suite: str, install: str) -> dict[str, str]:
    """Each file to write, by path relative to the repository: its text."""
    if adapter == "reference":  # the engine is pytest-rspbench's own: no skeleton
        files = {"engine.yaml": _reference_profile()}
    else:
        files = {"engine.yaml": _template("engine.yaml").replace("ADAPTER", _adapter(adapter))}
    if adapter == "python":
        files["engine.py"] = _template("engine.py")
    elif adapter == "node":
        files["engine.js"] = _template("engine.js")
    elif adapter != "reference":
        module = {"http": "http", "websocket": "websocket", "mqtt": "mqtt"}[adapter]
        text = _template("service.py").replace("TRANSPORT_MODULE", module)
        files["engine.py"] = text.replace("TRANSPORT", adapter)
    ini = _template("pytest.ini")
    if suite != "none":
        ini += (
            f"# The bundled suite run beside specs/ (--rspbench-suite).\nrspbench_suite = {suite}\n"
        )
    files["pytest.ini"] = ini
    files["specs/example.rspbench.yaml"] = _template("example.rspbench.yaml")
    files["specs/example.nt"] = _template("example.nt")
    files[".github/workflows/rspbench.yml"] = _ci("github.yml", adapter, install)
    files[".gitlab-ci.yml"] = _ci("gitlab.yml", adapter, install)
    return {path: text.replace("ENGINE_NAME", name) for path, text in files.items()}


def _adapter(adapter: str) -> str:
    if adapter == "python":
        return '  command: ["{python}", "{engine_dir}/engine.py"]   # JSON lines on stdin/stdout'
    if adapter == "node":
        return '  command: [node, "{engine_dir}/engine.js"]   # JSON lines on stdin/stdout'
    return f"  {adapter}:\n" + _WRAPPED[adapter]


def _ci(template: str, adapter: str, install: str) -> str:
    text = _template(template).replace("INSTALL", install).replace("TEST_COMMAND", TEST_COMMAND)
    setup = {"github": "", "gitlab": ""}
    if adapter == "node":
        setup["github"] = "      - uses: actions/setup-node@v4\n        with: {node-version: 20}\n"
        setup["gitlab"] = "    - apt-get update && apt-get install -y nodejs\n"
    if adapter == "mqtt":
        setup["github"] = "      - run: sudo apt-get update && sudo apt-get install -y mosquitto\n"
        setup["gitlab"] = "    - apt-get update && apt-get install -y mosquitto\n"
    return text.replace("SETUP_GITHUB", setup["github"]).replace("SETUP_GITLAB", setup["gitlab"])


def _reference_profile() -> str:
    """The bundled reference engine's engine.yaml under the repository's name: the
    suite passes on it, so the CI files are seen working before the engine is
    plugged in (then its adapter and semantics are replaced by the engine's)."""
    text = (resources.files("rspbench_engines") / "reference" / "engine.yaml").read_text(
        encoding="utf-8"
    )
    lines = text.splitlines(keepends=True)
    named = ["name: ENGINE_NAME\n" if line.startswith("name:") else line for line in lines]
    head = (
        "# The profile of ENGINE_NAME for pytest-rspbench. It starts as the bundled\n"
        "# reference engine's (a correct RSP-QL engine, configurable to any profile):\n"
        "# the specs and the conformance suite pass on it, so CI is seen green first.\n"
        "# Then replace `adapter:` with your engine's (rspbench init --adapter python\n"
        "# writes a skeleton) and `semantics:` with what it does; `rspbench validate\n"
        "# engine.yaml` checks it, docs/for-engine-authors.md explains every key.\n"
    )
    return head + "".join(named)


def _template(name: str) -> str:
    folder = resources.files("pytest_rspbench") / "data" / "init"
    return (folder / f"{name}.txt").read_text(encoding="utf-8")


def _name(text: str) -> str:
    """A profile name (letters, digits, ``_.-``) from a folder name."""
    cleaned = "".join(c if c.isalnum() or c in "_.-" else "-" for c in text).strip("-._")
    return cleaned or "my-engine"
