"""Which t0 classes to compute: what the content narrowing decides.

The plan (:mod:`.planning`) computes the classes a :class:`Narrowed` chose,
the narrowing (:mod:`.narrowing`) decides them, and the store keeps them
(:func:`encode`, :func:`decode`) next to the expected output they gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Narrowed:
    """Which classes to compute, and a sentence for the report.

    Attributes:
        chosen: per named window, the positions of its chosen candidates.
        total: how many t0 classes the case has (the product over windows).
        reason: how they were chosen, for the report.
        decided: the content decided (False: every class was computed
            because nothing in the output could place a window).
    """

    chosen: tuple[tuple[int, ...], ...]
    total: int
    reason: str
    decided: bool = True


def encode(narrowed: Narrowed) -> dict[str, Any]:
    """A JSON-ready form of ``narrowed`` (see :func:`decode`).

    >>> encode(Narrowed(((0, 2),), 3, "why"))
    {'chosen': [[0, 2]], 'total': 3, 'reason': 'why', 'decided': True}
    """
    return {
        "chosen": [list(c) for c in narrowed.chosen],
        "total": narrowed.total,
        "reason": narrowed.reason,
        "decided": narrowed.decided,
    }


def decode(data: Mapping[str, Any]) -> Narrowed:
    """The :class:`Narrowed` that :func:`encode` wrote."""
    return Narrowed(
        tuple(tuple(int(k) for k in c) for c in data["chosen"]),
        int(data["total"]),
        str(data["reason"]),
        bool(data["decided"]),
    )
