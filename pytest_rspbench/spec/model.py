"""Frozen dataclasses a spec is validated into; nothing reads raw YAML later."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rspbench.rspql import RspqlQuery
from pytest_rspbench.thresholds import Threshold


@dataclass(frozen=True)
class StreamDecl:
    """One input stream: its IRI and where its events come from."""

    iri: str
    source: Mapping[str, Any]
    start: int = 0
    end: int | None = None


@dataclass(frozen=True)
class Comparison:
    """How actual output is compared with expected output."""

    mode: str = "strict"
    literal_equality: str = "term"
    tolerance: float = 0.0


@dataclass(frozen=True)
class Case:
    """One combination of matrix values with one engine: one pytest item.

    Attributes:
        case_id: readable id such as ``range=10000,step=10000,engine=reference``.
        params: the matrix values of this case, in matrix order.
    """

    spec_name: str
    spec_path: Path
    case_id: str
    params: tuple[tuple[str, Any], ...]
    engine: str
    query: RspqlQuery
    streams: tuple[StreamDecl, ...]
    static: tuple[Path, ...]
    semantics: Mapping[str, Any]
    speed: float
    timeout: float
    comparison: Comparison
    thresholds: tuple[Threshold, ...]
    mostly: float
    warmup_windows: int
    marks: tuple[str, ...]
    line: int

    @property
    def base_dir(self) -> Path:
        return self.spec_path.parent


@dataclass(frozen=True)
class Spec:
    """A validated spec file and the cases it expands to."""

    name: str
    path: Path
    description: str
    cases: tuple[Case, ...] = field(default=())
