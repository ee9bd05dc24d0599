"""A counterexample written as a ready-to-run spec beside its stream files.

``counterexample.rspbench.yaml`` is the failing case made concrete: its query
(matrix values filled in), pinned semantics, comparison, thresholds and
replay settings, one engine, and each input stream read from a timestamped
N-Triples file beside it (``kind: lines, format: ntriples-ts``, the format
the loader reads)::

    pytest counterexample.rspbench.yaml --rspbench-engine faulty-wrong-bounds
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_rspbench.report.counterexample import TimedTriple
from pytest_rspbench.spec.model import Case, StreamDecl
from pytest_rspbench.stream.model import group_events

SPEC_NAME = "counterexample.rspbench.yaml"


def engine_arg(case: Case) -> str:
    """The case's engine as ``--rspbench-engine`` takes it: a registered name
    as is, an engine.yaml as an absolute path."""
    engine = case.engine
    if "/" not in engine and "\\" not in engine and not engine.endswith((".yaml", ".yml")):
        return engine
    path = Path(engine).expanduser()
    return str(path if path.is_absolute() else (case.base_dir / path).resolve())


def write_spec(
    case: Case,
    triples: Sequence[TimedTriple],
    ends: Sequence[int | None],
    folder: Path,
    headline: str,
) -> Path:
    """Write the spec and its stream files into ``folder``; the spec's path."""
    import yaml

    from pytest_rspbench.stream.lines import write_lines

    folder.mkdir(parents=True, exist_ok=True)
    streams = []
    for index, decl in enumerate(case.streams):
        name = "counterexample.nt" if len(case.streams) == 1 else f"counterexample-{index + 1}.nt"
        timed = sorted(((t.time, t.triple) for t in triples if t.stream == decl.iri), key=_time)
        with (folder / name).open("w", encoding="utf-8") as out:
            write_lines(group_events(timed), out, "ntriples-ts")
        streams.append(_stream(decl, name, ends[index]))
    document = _document(case, streams)
    text = yaml.dump(document, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)
    path = folder / SPEC_NAME
    path.write_text(_header(case, headline) + text, encoding="utf-8")
    return path


def _time(pair: tuple[int, Any]) -> int:
    return pair[0]


def _stream(decl: StreamDecl, name: str, end: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"iri": decl.iri}
    if decl.start:
        out["start"] = decl.start
    if end is not None:
        out["end"] = end
    if decl.disorder is not None:
        d = decl.disorder
        out["disorder"] = {
            "late": d.late,
            "max_delay": d.max_delay,
            "duplicates": d.duplicates,
            "seed": d.seed,
        }
    out["source"] = {"kind": "lines", "path": name, "format": "ntriples-ts"}
    return out


def _document(case: Case, streams: list[dict[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "rspbench": 1,
        "name": f"{case.spec_name}-counterexample",
        "description": f"Minimal counterexample of {case.spec_name}[{case.case_id}].",
        "streams": streams,
    }
    if case.static:
        doc["static"] = [str(p) for p in case.static]
    doc["query"] = case.query.text.rstrip("\n") + "\n"
    doc["engines"] = [engine_arg(case)]
    if case.semantics:
        doc["semantics"] = dict(case.semantics)
    doc["replay"] = {"speed": case.speed, "timeout": case.timeout}
    doc["comparison"] = _comparison(case)
    if case.thresholds:
        doc["thresholds"] = [t.text for t in case.thresholds]
    if case.mostly != 1.0:
        doc["mostly"] = case.mostly
    if case.warmup_windows:
        doc["warmup_windows"] = case.warmup_windows
    return doc


def _comparison(case: Case) -> dict[str, Any]:
    c = case.comparison
    out: dict[str, Any] = {
        "mode": c.mode,
        "literal_equality": c.literal_equality,
        "tolerance": c.tolerance,
        "alignment": c.alignment,
    }
    if c.arrival_tolerance is not None:
        out["arrival_tolerance"] = c.arrival_tolerance
    if c.gracious_shift is not None:
        out["gracious"] = {"max_shift": c.gracious_shift}
    return out


def _header(case: Case, headline: str) -> str:
    lines = [
        f"# Written by pytest-rspbench --rspbench-shrink for {case.spec_path.name}, "
        f"case {case.case_id}.",
        f"# {headline}",
        f"# Run it: pytest {SPEC_NAME} --rspbench-engine {engine_arg(case)}",
    ]
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=1)
def _dumper() -> Any:
    """A YAML dumper that writes multi-line text (the query) as a block."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: Any, value: str) -> Any:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper
