"""An engine's known failures, kept beside its ``engine.yaml``.

A spec's ``known_failures:`` (spec-format.md) declares what an engine is
known to get wrong in that spec; for a suite the engine's author does not
own (the bundled conformance suite), the same declarations live in one file
next to the engine's profile, ``known-failures.yaml``::

    - case: rspql-r2s[r2s=DStream]          # a case: spec name[matrix values]
      departures: [r2s-mismatch]
      reason: DStream is not implemented (my-org/my-engine#7)
    - case: csrbench-q6*                     # a glob: * and ? (brackets are plain)
      reason: stale content (my-org/my-engine#12)

Each entry becomes a spec-level known failure of the cases it matches
(:class:`~pytest_rspbench.spec.model.KnownFailure`, applied at collection:
a strict xfail), for this engine only. A case is named as its item is,
without the engine: ``spec name[matrix values]``, or the spec name alone for
a spec without a matrix. Errors name ``file:line``, what is wrong and how
to fix it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rspbench.rsp.departures import NAMES
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.model import KnownFailure

FILE = "known-failures.yaml"
KEYS = ("case", "reason", "departures", "intermittent")


@dataclass(frozen=True)
class KnownCase:
    """One entry: the cases it names (``case``, a glob), why, and which departures."""

    case: str
    reason: str
    departures: tuple[str, ...] = ()
    line: int = 0
    intermittent: bool = False

    def matches(self, spec_name: str, params: Iterable[tuple[str, str]]) -> bool:
        """Does ``case`` name this case (``spec[k=v,...]``, or ``spec``)?

        >>> KnownCase("rspql-r2s[r2s=DStream]", "").matches("rspql-r2s", [("r2s", "DStream")])
        True
        >>> KnownCase("csrbench-*", "").matches("csrbench-q6", [("range", "4000")])
        True
        >>> KnownCase("q6[range=4000]", "").matches("q6", [("range", "2000")])
        False
        """
        shown = ",".join(f"{k}={v}" for k, v in params)
        name = f"{spec_name}[{shown}]" if shown else spec_name
        return bool(_pattern(self.case).fullmatch(name)) or self.case == spec_name

    def failure(self, engine: str) -> KnownFailure:
        """The spec-level known failure it stands for, for ``engine``."""
        reason = f"{self.reason} ({FILE}:{self.line})"
        return KnownFailure(engine, reason, (), self.departures, intermittent=self.intermittent)


def beside(profile: Path) -> Path:
    """Where the known-failures file of the engine at ``profile`` is."""
    return profile.parent / FILE


def known_cases(profile: Path) -> tuple[KnownCase, ...]:
    """The entries of the file beside ``profile`` (none without the file).

    Raises:
        SpecError: the file is not a list of entries as above (``file:line``).
    """
    path = beside(profile)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return ()
    return _read(path, stamp)


@functools.lru_cache(maxsize=32)
def _read(path: Path, stamp: int) -> tuple[KnownCase, ...]:
    from pytest_rspbench.spec.document import parse_document

    filename = str(path)
    document = parse_document(path.read_text(encoding="utf-8"), filename)
    data = document.data
    if data is None:
        return ()
    if not isinstance(data, list):
        raise spec_error(
            filename,
            document,
            (),
            "a known-failures file is a list of entries, got "
            f"{type(data).__name__ if not isinstance(data, dict) else 'a mapping'}.",
            "write one '- case: ...' entry per known failure (docs/for-engine-authors.md).",
        )
    return tuple(_entry(raw, i, filename, document) for i, raw in enumerate(data))


def _entry(raw: Any, i: int, filename: str, document: Any) -> KnownCase:
    def error(path: tuple[Any, ...], problem: str, hint: str) -> Exception:
        return spec_error(filename, document, (i, *path), problem, hint)

    if not isinstance(raw, dict):
        hint = "write 'case:', 'reason:' and 'departures:'."
        raise error((), "an entry must be a mapping.", hint)
    for key in raw:
        if key not in KEYS:
            hint = f"use {', '.join(KEYS)}." + did_you_mean(str(key), KEYS)
            raise error((key,), f"unknown key {key!r}.", hint)
    for key in ("case", "reason"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            hint = (
                "name the case as pytest shows it without the engine, e.g. "
                "'case: rspql-r2s[r2s=DStream]' (a glob: csrbench-q6*)."
                if key == "case"
                else "say why, e.g. 'reason: DStream is not implemented (issue link)'."
            )
            raise error((key,), f"'{key}' is missing or not a text.", hint)
    departures = raw.get("departures", [])
    if not isinstance(departures, list):
        raise error(("departures",), "'departures' must be a list.", "e.g. [lost-window].")
    for k, name in enumerate(departures):
        if name not in NAMES:
            hint = "use departure classes of docs/reading-a-failure.md." + did_you_mean(
                str(name), NAMES
            )
            raise error(("departures", k), f"unknown departure class {name!r}.", hint)
    intermittent = raw.get("intermittent", False)
    if not isinstance(intermittent, bool):
        hint = "write 'intermittent: true' for a departure the engine shows on some runs only."
        raise error(("intermittent",), "'intermittent' must be true or false.", hint)
    line = document.line_of((i,))
    return KnownCase(raw["case"], raw["reason"], tuple(departures), line, intermittent)


def _pattern(glob: str) -> re.Pattern[str]:
    """``*`` and ``?`` as wildcards, everything else (brackets too) as is."""
    return re.compile(re.escape(glob).replace(r"\*", ".*").replace(r"\?", "."))
