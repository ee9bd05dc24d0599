"""Faulty engines: the reference engine with one classic bug each.

Each has its own engine.yaml (``engines/faulty/<bug>/engine.yaml``) declaring
the reference engine's semantics, registered in the ``rspbench.engines``
entry-point group as ``faulty-<bug>``. The conformance suite must catch every
one of them (see README.md).
"""

from __future__ import annotations

from pathlib import Path

BUGS = (
    "no-purge",
    "delayed-windows",
    "null-avg",
    "wrong-bounds",
    "misses-last",
    "duplicates",
    "drops-under-load",
    "ignores-lateness",
    "count-triples",
    "count-off-by-one",
    "session-merge",
    "re-reports",
    "early-firing",
    "backlog",
    "drops-late",
    "newest-only",
    "canonical-literals",
)

__all__ = ["BUGS", "profile_path", *[b.replace("-", "_") for b in BUGS]]


def profile_path(bug: str) -> Path:
    """The engine.yaml of ``faulty-<bug>``.

    >>> profile_path("duplicates").parent.name
    'duplicates'
    """
    if bug not in BUGS:
        raise ValueError(f"unknown faulty engine {bug!r}; known: {', '.join(BUGS)}")
    return Path(__file__).with_name(bug) / "engine.yaml"


# Entry points (``faulty-no-purge = "rspbench_engines.faulty:no_purge"``).
def no_purge() -> Path:
    return profile_path("no-purge")


def delayed_windows() -> Path:
    return profile_path("delayed-windows")


def null_avg() -> Path:
    return profile_path("null-avg")


def wrong_bounds() -> Path:
    return profile_path("wrong-bounds")


def misses_last() -> Path:
    return profile_path("misses-last")


def duplicates() -> Path:
    return profile_path("duplicates")


def drops_under_load() -> Path:
    return profile_path("drops-under-load")


def ignores_lateness() -> Path:
    return profile_path("ignores-lateness")


def count_triples() -> Path:
    return profile_path("count-triples")


def count_off_by_one() -> Path:
    return profile_path("count-off-by-one")


def session_merge() -> Path:
    return profile_path("session-merge")


def re_reports() -> Path:
    return profile_path("re-reports")


def early_firing() -> Path:
    return profile_path("early-firing")


def backlog() -> Path:
    return profile_path("backlog")


def drops_late() -> Path:
    return profile_path("drops-late")


def newest_only() -> Path:
    return profile_path("newest-only")


def canonical_literals() -> Path:
    return profile_path("canonical-literals")
