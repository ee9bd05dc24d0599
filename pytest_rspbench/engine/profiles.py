"""Engine profiles (``engine.yaml``): how to run an engine and its semantics.

The adapter is one of three kinds (:mod:`~pytest_rspbench.engine.adapters`):
an in-process Python class, a command speaking the JSON-lines protocol, or
recorded answers.

Engines are found by name through the ``rspbench.engines`` entry-point group
(an engine repository ships its own: ``myengine = "mypkg:engine_profile"``,
a callable returning the path of its engine.yaml), or by a path to an
engine.yaml. The core never imports an engine by name.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.engine import adapters, setupcache
from pytest_rspbench.engine.api import Engine, Semantics
from pytest_rspbench.errors import EngineConfigError, SpecError
from pytest_rspbench.rsp.constructs import shown as shown_constructs
from pytest_rspbench.rsp.semantics import BEHAVIOUR_FIELDS, NEEDED, WINDOW_KINDS, undeclared

GROUP = "rspbench.engines"


@dataclass(frozen=True)
class EngineProfile:
    """A validated engine.yaml.

    Attributes:
        adapter: a one-line description of how the engine runs.
        config: the adapter itself (python, command or recorded).
        setup: the one-time setup command, if any.
        install_hint: what to install when a program the engine needs is missing.
        sample_interval: ``sampling.interval`` in seconds (0: no sampling),
            None when not set (see
            :func:`~pytest_rspbench.engine.sampling.resolve_interval`).
    """

    name: str
    description: str
    adapter: str
    semantics: Semantics
    path: Path
    config: adapters.Adapter = field(default=adapters.PythonAdapter(""))
    setup: setupcache.Setup | None = None
    install_hint: str = ""
    sample_interval: float | None = None
    configurable: frozenset[str] = frozenset()
    unsupported: frozenset[str] = frozenset()
    """Query constructs the engine does not run (``unsupported:``,
    :data:`pytest_rspbench.rsp.constructs.CONSTRUCTS`)."""
    version: str = ""
    """The engine's version (``version:``), empty when not given."""
    homepage: str = ""
    """The engine's home page (``homepage:``), empty when not given."""

    def with_semantics(self, overrides: Mapping[str, Any]) -> EngineProfile:
        """The profile with some semantics fields replaced (spec ``semantics:``)."""
        if not overrides:
            return self
        try:
            semantics = replace(self.semantics, **_semantics_kwargs(overrides))
        except ValueError as exc:  # e.g. a pinned periodic report, no period anywhere
            raise EngineConfigError(
                f"the semantics the spec pins do not fit {self.name}'s profile: {exc}."
                "\nHINT: pin the missing part too (e.g. 'period: 1000' under "
                "semantics:), or leave the report policy to the profile."
            ) from None
        return replace(self, semantics=semantics)

    def departures(
        self,
        pinned: Mapping[str, Any],
        r2s: str | None = None,
        kinds: Iterable[str] = (),
        constructs: Iterable[str] = (),
    ) -> list[str]:
        """Why this engine cannot run a case that pins ``pinned`` semantics.

        Empty when it can: it runs the query's window ``kinds`` (``windows:``
        in the profile, never configurable: a capability; when it does not,
        that is the one reason), every pinned field either equals the
        engine's own or is one it declares ``configurable``, and it supports
        the query's R2S operator and every construct of the query's
        ``constructs`` (``unsupported:`` in the profile). Each entry reads like
        ``bounds: the spec pins '(o,c]', rspjs has '[o,c)'``.
        """
        lacking = [k for k in WINDOW_KINDS if k in set(kinds) - set(self.semantics.windows)]
        if lacking:  # the first reason; the fields of those kinds are moot
            return [
                f"windows: the query uses {' and '.join(lacking)} windows, {self.name} "
                f"supports {_shown(self.semantics.windows)}"
            ]
        try:
            wanted = self.with_semantics(pinned).semantics
        except EngineConfigError as exc:  # this engine cannot run what is pinned
            return [str(exc).partition("\nHINT: ")[0]]
        reasons = []
        for name in sorted(pinned):
            mine, theirs = getattr(self.semantics, name), getattr(wanted, name)
            if name == "lateness" and mine >= theirs:
                continue  # tolerating more lateness than pinned is enough
            if name == "windows" and set(theirs) <= set(mine):
                continue  # running more kinds than pinned is enough
            if mine != theirs and name not in self.configurable:
                reasons.append(
                    f"{name}: the spec pins {_shown(theirs)}, {self.name} has {_shown(mine)}"
                )
        if r2s is not None and "r2s" not in self.configurable and r2s not in wanted.r2s:
            supported = ", ".join(wanted.r2s) or "none"
            reasons.append(f"r2s: the query registers {r2s}, {self.name} supports {supported}")
        lacked = self.unsupported & frozenset(constructs)
        if lacked:
            reasons.append(
                f"unsupported: the query uses {shown_constructs(lacked)}, which {self.name} "
                "does not run"
            )
        return reasons

    def create(
        self, artifacts: Path | None = None, case: Mapping[str, str] | None = None
    ) -> Engine:
        """A fresh engine for one run.

        Args:
            artifacts: the item's artifact folder (an engine process keeps
                its stderr and raw stdout there).
            case: ``{"spec": ..., "case": ...}`` for recorded answer paths.

        Raises:
            EngineConfigError: the adapter cannot be loaded.
            EngineUnavailable: a program the engine needs is not installed.
            EngineError: its setup command failed.
        """
        return adapters.create(self, artifacts, case)


@functools.lru_cache(maxsize=1)
def registered() -> dict[str, Any]:
    """Engines registered through the ``rspbench.engines`` entry points."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP)}


def locate(name: str, base_dir: Path) -> Path:
    """The engine.yaml for an engine name or path; EngineConfigError if none."""
    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        if not path.is_file():
            raise EngineConfigError(
                f"engine profile {name!r} not found (looked at {path})."
                "\nHINT: paths to engine.yaml are relative to the spec's folder."
            )
        return path
    engines = registered()
    if name not in engines:
        known = ", ".join(sorted(engines)) or "none"
        raise EngineConfigError(
            f"unknown engine {name!r} (registered: {known})."
            "\nHINT: use a registered engine name or a path to an engine.yaml."
        )
    try:
        target = engines[name].load()
        return Path(target() if callable(target) else target)
    except Exception as exc:  # an engine package is third-party code
        raise EngineConfigError(
            f"engine {name!r}: its entry point {engines[name].value!r} failed: {exc!r}"
        ) from None


def identify(name: str, base_dir: Path) -> str:
    """The one identity of an engine given by name or path: its profile's ``name``.

    It names the engine in item ids, messages and ``known_failures``, whether
    a spec gives ``reference``, ``../engine.yaml`` or an absolute path.
    """
    return load_profile(locate(name, base_dir).resolve()).name


@functools.lru_cache(maxsize=64)
def load_profile(path: Path) -> EngineProfile:
    """Read and validate an engine.yaml.

    Every mistake is an :class:`EngineConfigError` whose message starts with
    ``file:line`` of the profile, quotes it and ends with a ``HINT:``, as a spec
    error does; ``path`` and ``line`` are set on it, so a spec naming the
    profile can show both places. YAML tags (``!!python/...``), duplicate keys,
    a string where a list belongs (``command: "python x.py"``) and semantics
    that contradict each other are all refused here, the one place that reads
    profiles for ``pytest`` and ``rspbench validate`` alike.
    """
    try:
        return _load(path)
    except SpecError as exc:
        error = EngineConfigError(str(exc))
        error.path, error.line = exc.path, exc.line  # type: ignore[attr-defined]
        raise error from None


def _load(path: Path) -> EngineProfile:
    from pytest_rspbench.spec.diagnostics import spec_error
    from pytest_rspbench.spec.document import parse_document
    from pytest_rspbench.spec.validation import ENGINE_SCHEMA, validate

    filename = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(
            f"{filename}:1: cannot read the engine profile: {exc}\n"
            "HINT: check the path; an engine.yaml is a UTF-8 text file.",
            filename,
            1,
        ) from None
    document = parse_document(text, filename)
    validate(document, filename, ENGINE_SCHEMA)
    data = document.data
    _check_window_fields(data["semantics"], document, filename)
    try:
        semantics = Semantics(**_semantics_kwargs(data["semantics"]))
    except ValueError as exc:  # a field contradicting another: the schema cannot see it
        raise spec_error(
            filename,
            document,
            ("semantics",),
            f"{exc}.",
            "make the semantics agree (e.g. 'period: 1000' with the periodic report "
            "policy); see docs/for-engine-authors.md.",
        ) from None
    config = adapters.parse_adapter(data["adapter"])
    return EngineProfile(
        name=data["name"],
        description=data.get("description", ""),
        adapter=adapters.describe(config),
        semantics=semantics,
        path=path,
        config=config,
        setup=setupcache.parse_setup(data.get("setup")),
        install_hint=data.get("install_hint", ""),
        sample_interval=_sample_interval(data.get("sampling", {})),
        configurable=_configurable(data.get("configurable", False)),
        unsupported=_unsupported(data.get("unsupported", ()), document, filename),
        version=str(data.get("version", "")),
        homepage=str(data.get("homepage", "")),
    )


def _check_window_fields(raw: Mapping[str, Any], document: Any, filename: str) -> None:
    """A kind in ``windows:`` needs its fields declared: the anchors disagree on each."""
    from pytest_rspbench.spec.diagnostics import spec_error

    kinds = raw.get("windows", ())
    missing = undeclared(kinds, raw)
    if missing:
        needing = [k for k in kinds if k in NEEDED]
        example = "; ".join(f"{name}: {_EXAMPLES[name]}" for name in missing)
        raise spec_error(
            filename,
            document,
            ("semantics", "windows"),
            f"windows lists {', '.join(needing)}, but the profile does not declare "
            f"{', '.join(missing)}.",
            f"declare each under semantics: (one of the values, e.g. {example}; "
            "docs/count-and-session-windows.md#profile-keys), or remove the kind from windows.",
        )


_EXAMPLES = {
    "count_order": "time | arrival",
    "count_ties": "arrival | any",
    "count_rampup": "report | skip",
    "count_tick": "tuple-driven | graph-driven",
    "count_bounds": '"[first,last]" | none',
    "session_gap": "split | merge",
    "session_bounds": '"[first,last]" | "[first,last+gap)"',
}


SEMANTICS_FIELDS = frozenset(BEHAVIOUR_FIELDS)
"""The fields ``configurable: true`` covers: all but ``windows``, a capability."""


def _shown(value: Any) -> str:
    if isinstance(value, (tuple, list, frozenset)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return repr(value)


def _configurable(raw: bool | list[str]) -> frozenset[str]:
    if raw is True:
        return SEMANTICS_FIELDS
    return frozenset(raw or ())


def _unsupported(raw: list[str], document: Any, filename: str) -> frozenset[str]:
    """``unsupported:``: names of :data:`~pytest_rspbench.rsp.constructs.CONSTRUCTS`,
    each once (the schema says so too; this is the one check that names the
    vocabulary's module, and it holds when the schema is not at hand)."""
    from pytest_rspbench.rsp.constructs import NAMES
    from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error

    for index, name in enumerate(raw):
        if name not in NAMES:
            raise spec_error(
                filename,
                document,
                ("unsupported", index),
                f"unknown query construct {name!r}.{did_you_mean(name, NAMES)}",
                f"use some of {', '.join(NAMES)} (docs/engine-protocol.md, 'unsupported').",
            )
        if name in raw[:index]:
            raise spec_error(
                filename,
                document,
                ("unsupported", index),
                f"{name!r} is listed twice.",
                "list each construct once.",
            )
    return frozenset(raw)


def _sample_interval(raw: Mapping[str, Any]) -> float | None:
    """``sampling.interval`` (ms) in seconds, None when not set."""
    return None if "interval" not in raw else float(raw["interval"]) / 1000


def resolve(name: str, base_dir: Path) -> EngineProfile:
    """Locate and load an engine profile by name or path."""
    return load_profile(locate(name, base_dir).resolve())


def _semantics_kwargs(raw: Mapping[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(Semantics)}
    out = {k: v for k, v in raw.items() if k in known}
    for key in ("report", "r2s", "windows"):
        if key in out:
            out[key] = tuple(out[key])
    return out
