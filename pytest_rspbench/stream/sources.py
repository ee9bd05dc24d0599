"""Stream sources named in specs: ``open_source(config, base_dir, iri)``.

A spec's stream entry is a mapping with a ``kind``:

``files``
    One RDF file per timestamp, the CSRBench layout
    (:mod:`~pytest_rspbench.stream.files`). Keys: ``path`` (a glob relative
    to the spec's folder, e.g. ``data/data_*.ttl``), ``interval`` (ms per
    number in the file name, default 1000), ``format`` (turtle, ntriples,
    rdfxml; default turtle).
``lines``
    One timestamped file (:mod:`~pytest_rspbench.stream.lines`,
    :mod:`~pytest_rspbench.stream.trig`). Keys: ``path``, ``format``
    (ntriples-ts, n3t, nquads-ts, jsonl, trig; default ntriples-ts),
    ``allow_disorder`` (default false: time going backwards is an error;
    true: the file is sorted by time when read, which holds it in memory),
    ``graph_time`` (nquads-ts only), ``time_predicate`` (trig only).
``generator``
    A seeded generator; key ``name`` plus its parameters: ``yabench-sg1``
    (:class:`~pytest_rspbench.stream.yabench.SG1Config`), ``lsbench-social``
    (:class:`~pytest_rspbench.stream.lsbench.LSBenchConfig`, e.g.
    ``streams: [pc, plike]``) or ``workload``
    (:class:`~pytest_rspbench.stream.workloads.Workload`, e.g.
    ``shape: periodic-burst``). The stream ends at its ``duration``.

The returned :class:`Stream` re-opens its input on every ``read``, so it can be
replayed and materialised independently. Its ``fingerprint`` names the content
without reading it (the generator and all its settings, or a digest of the
files' bytes and the reading options), the key of the oracle's Parquet cache
(:mod:`~pytest_rspbench.oracle.store.streamcache`). Bad configuration raises
:class:`StreamError` at once; bad data when it is read.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream import parameters as check
from pytest_rspbench.stream.model import Event, Stream, group_events
from pytest_rspbench.stream.parameters import MAX_TIME, ParameterError

_KEYS: dict[str, dict[str, type]] = {
    "files": {"path": str, "interval": int, "format": str},
    "lines": {
        "path": str,
        "format": str,
        "allow_disorder": bool,
        "graph_time": bool,
        "time_predicate": str,
    },
    "generator": {"name": str},
}
# name: (module, configuration dataclass, events function); imported on use.
GENERATORS = {
    "yabench-sg1": ("pytest_rspbench.stream.yabench", "SG1Config", "sg1_events"),
    "lsbench-social": (
        "pytest_rspbench.stream.lsbench",
        "LSBenchConfig",
        "lsbench_events",
    ),
    "workload": ("pytest_rspbench.stream.workloads", "Workload", "workload_events"),
}
_FILE_FORMATS = ("turtle", "ntriples", "rdfxml")
_LINE_FORMATS = ("ntriples-ts", "n3t", "nquads-ts", "jsonl", "trig")


def open_source(config: dict[str, Any], base_dir: Path, iri: str) -> Stream:
    """The :class:`Stream` named ``iri`` that ``config`` describes.

    >>> config = {"kind": "generator", "name": "yabench-sg1", "stations": 2,
    ...           "interval": 1000, "duration": 2000, "seed": 1}
    >>> s = open_source(config, Path("."), "http://ex/s")
    >>> [e.time for e in s.events()][:2], s.end
    ([0, 985], 2000)
    """
    kind = config.get("kind")
    if kind not in _KEYS:
        raise StreamError(
            f"stream {iri}: expected kind to be one of {sorted(_KEYS)}, found {kind!r}"
        )
    if kind == "generator":
        return _generator(config, iri)
    _check_keys(config, _KEYS[kind], iri)
    if "path" not in config:
        raise StreamError(f"stream {iri}: kind {kind} needs a path.")
    if kind == "files":
        return _files(config, Path(base_dir), iri)
    return _lines(config, Path(base_dir), iri)


def _check_keys(config: dict[str, Any], allowed: dict[str, type], iri: str) -> None:
    for key, value in config.items():
        if key == "kind":
            continue
        if key not in allowed:
            raise StreamError(
                f"stream {iri}: unknown key {key!r}; expected one of {sorted(allowed)}."
            )
        wanted = allowed[key]
        if type(value) is not wanted:
            raise StreamError(f"stream {iri}: {key} must be a {wanted.__name__}, found {value!r}.")


def _files(config: dict[str, Any], base_dir: Path, iri: str) -> Stream:
    from pytest_rspbench.stream.files import events_from_files, file_per_timestamp

    fmt = config.get("format", "turtle")
    _check_choice(fmt, _FILE_FORMATS, iri)
    interval = check.integer(
        f"stream {iri}", "interval", config.get("interval", 1000), 1, MAX_TIME, "ms"
    )
    pattern = Path(config["path"])
    if pattern.is_absolute():  # Path.glob takes relative patterns only
        base_dir, pattern = pattern.parent, Path(pattern.name)
    try:
        found = file_per_timestamp(base_dir, str(pattern), interval, fmt)
    except (ValueError, NotImplementedError) as exc:
        if isinstance(exc, StreamError):
            raise
        raise StreamError(f"stream {iri}: bad path pattern {config['path']!r}: {exc}") from None
    source = {"kind": "files", "format": fmt, "interval": interval}
    return Stream(
        iri,
        lambda: events_from_files(found, fmt),
        f"{len(found)} {fmt} files {base_dir / config['path']}",
        fingerprint=lambda: _identity(source, [(t, _digest(p)) for t, p in found]),
    )


def _lines(config: dict[str, Any], base_dir: Path, iri: str) -> Stream:
    fmt = config.get("format", "ntriples-ts")
    _check_choice(fmt, _LINE_FORMATS, iri)
    for key, only in (("graph_time", "nquads-ts"), ("time_predicate", "trig")):
        if key in config and fmt != only:
            raise StreamError(f"stream {iri}: {key} applies to format {only} only.")
    path = base_dir / config["path"]
    if not path.is_file():
        raise StreamError(f"stream {iri}: no file {path}.")
    disorder = config.get("allow_disorder", False)
    read = _reader(config, path, fmt, disorder)
    source = {
        "kind": "lines",
        "format": fmt,
        "allow_disorder": disorder,
        "graph_time": config.get("graph_time", False),
        "time_predicate": config.get("time_predicate"),
    }

    def fingerprint() -> str:
        return _identity(source, _digest(path))

    if disorder:
        return Stream(
            iri,
            lambda: _sorted(read()),
            f"{fmt} file {path} (sorted by time)",
            fingerprint=fingerprint,
        )
    return Stream(iri, read, f"{fmt} file {path}", fingerprint=fingerprint)


def _reader(
    config: dict[str, Any], path: Path, fmt: str, disorder: bool
) -> Callable[[], Iterator[Event]]:
    if fmt == "trig":
        from pytest_rspbench.stream.trig import PROV_GENERATED_AT_TIME, read_trig_events

        predicate = config.get("time_predicate", PROV_GENERATED_AT_TIME)

        def read_trig() -> Iterator[Event]:
            return read_trig_events(path, time_predicate=predicate, allow_disorder=disorder)

        return read_trig
    from pytest_rspbench.stream.lines import read_events

    graph_time = config.get("graph_time", False)

    def read_lines() -> Iterator[Event]:
        return read_events(path, fmt, allow_disorder=disorder, graph_time=graph_time)

    return read_lines


def _sorted(events: Iterator[Event]) -> Iterator[Event]:
    # A stable sort keeps file order among equal times; equal times then merge.
    ordered = sorted(events, key=lambda event: event.time)
    return group_events((e.time, t) for e in ordered for t in e.triples)


def _generator(config: dict[str, Any], iri: str) -> Stream:
    params = {k: v for k, v in config.items() if k not in ("kind", "name")}
    name = config.get("name")
    if name not in GENERATORS:
        raise StreamError(
            f"stream {iri}: unknown generator {name!r}; expected one of {sorted(GENERATORS)}."
        )
    module, config_class, events = GENERATORS[name]
    loaded = importlib.import_module(module)
    settings_class = getattr(loaded, config_class)
    unknown = sorted(set(params) - set(_fields(settings_class)))
    if unknown:
        close = difflib.get_close_matches(unknown[0], _fields(settings_class), n=1)
        raise ParameterError(
            name,
            unknown[0],
            f"unknown parameter {unknown[0]!r}; {name} takes {', '.join(_fields(settings_class))}.",
            "remove it or fix its name." + (f" Did you mean {close[0]!r}?" if close else ""),
        )
    settings = settings_class(**params)  # checks every value: ParameterError
    generate = getattr(loaded, events)
    source = {"kind": "generator", "name": name}
    return Stream(
        iri,
        lambda: generate(settings),
        f"{name} {_show(params)}",
        end=settings.duration,
        # All settings, defaults included: leaving out a default or writing it
        # out names the same stream.
        fingerprint=lambda: _identity(source, dataclasses.asdict(settings)),
    )


def _identity(source: dict[str, Any], content: Any) -> str:
    """A stream's fingerprint: canonical JSON of how it is read and what from."""
    return json.dumps([source, content], sort_keys=True, separators=(",", ":"))


def _digest(path: Path) -> str:
    """SHA-256 of a file's bytes (cheap next to parsing them)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as data:
            for block in iter(lambda: data.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise StreamError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()


def _fields(cls: type) -> list[str]:
    return sorted(cls.__dataclass_fields__)  # type: ignore[attr-defined]


def _show(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(params.items()))


def _check_choice(value: str, choices: tuple[str, ...], iri: str) -> None:
    if value not in choices:
        raise StreamError(
            f"stream {iri}: expected format to be one of {list(choices)}, found {value!r}."
        )
