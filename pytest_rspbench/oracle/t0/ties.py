"""``count_ties: any``: which resolution of the ties an engine's output is.

Under ``count_ties: any`` each evaluation whose count window is cut inside a
run of tied elements has several correct answers, chosen independently
(docs/count-and-session-windows.md, "Which elements at a tie"). A few of
them are enumerated whole (:mod:`pytest_rspbench.oracle.sequenced`); past
that the outputs are too many (12 evaluations of 2 or 3 answers: 18,432),
and, as t0 classes are narrowed by the content of the engine's output, the
engine's output picks the resolution: the strict verdict asks whether *some*
resolution reproduces it, and a search over the evaluations in order finds
one if any does, whatever the number of resolutions::

    evaluations   e1      e2          e3            engine's relations
    answers       A       B1 | B2     C1 | C2 | C3  A  B2  C1
    states        (1)     (2: B2)     (3: C1)       -> B2 at e2, C1 at e3

A state is how many of the engine's relations are matched and, under
IStream and DStream, the previous evaluation's answer (what the next
relation is a difference with); states are merged, so the search is
linear in the evaluations. Besides an output equal to the engine's (from
``t_s``, after as many leading relations as are stamped before it), one
that holds it contiguously is found too (CSRBench's containment). Where the
profile trusts reported windows (``reports_window``, part of the output for
the verdict), a relation's window must be the engine's too: two resolutions
can stream the same bags out at different evaluations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pytest_rspbench.rsp.bags import Solution, bag, equal

Answer = tuple[Counter[Solution], tuple[int, int] | None] | None
"""An evaluation's answer as a bag and the window it reports, or None when
the report policy leaves it out."""
Told = tuple[Counter[Solution], tuple[int, int] | None]
"""An engine's relation: its bag, and the window it reported (None: none)."""
Equal = Callable[[Counter[Solution], Counter[Solution]], bool]

BEFORE, INSIDE, AFTER = 0, 1, 2
"""Where a state is against the engine's relations (containment only)."""


def equality(by_value: bool, tolerance: float) -> Equal:
    """The verdict's equality of two bags (``literal_equality``)."""
    mode = "value" if by_value else "term"
    return lambda actual, expected: equal(actual, expected, mode, tolerance)


def matched(
    answers: Sequence[Sequence[Answer]],
    told: Sequence[Told],
    operator: str,
    empty_relations: bool,
    same: Equal,
    contained: bool = False,
) -> list[int] | None:
    """One answer per evaluation (their indices) whose output stream equals
    ``told`` (``contained``: holds it as a contiguous part), or None. A told
    window (not None) must be the answer's.

    >>> a, b, c = ((Counter({(("x", f"<{k}>"),): 1}), None) for k in "abc")
    >>> matched([[a], [b, c], [b, c]], [a, c, b], "RStream", False, lambda x, y: x == y)
    [0, 1, 0]
    """
    start = (BEFORE if told else AFTER) if contained else INSIDE
    frontier: dict[tuple[int, int, Any], Counter[Solution]] = {(0, start, None): Counter()}
    history: list[dict[tuple[int, int, Any], tuple[tuple[int, int, Any], int]]] = []
    for options in answers:
        following: dict[tuple[int, int, Any], Counter[Solution]] = {}
        back: dict[tuple[int, int, Any], tuple[tuple[int, int, Any], int]] = {}
        for state, previous in frontier.items():
            for choice, answer in enumerate(options):
                for reached, current in _steps(
                    state, previous, answer, told, operator, empty_relations, same, contained
                ):
                    if reached not in following:
                        following[reached], back[reached] = current, (state, choice)
        if not following:
            return None
        history.append(back)
        frontier = following
    done = [s for s in frontier if (s[0] == len(told) and s[1] != BEFORE) or s[1] == AFTER]
    if not done:
        return None
    state, choices = done[0], []
    for back in reversed(history):
        state, choice = back[state]
        choices.append(choice)
    return choices[::-1]


def _steps(
    state: tuple[int, int, Any],
    previous: Counter[Solution],
    answer: Answer,
    told: Sequence[Told],
    operator: str,
    empty_relations: bool,
    same: Equal,
    contained: bool,
) -> list[tuple[tuple[int, int, Any], Counter[Solution]]]:
    """The states one answer leads to from ``state`` (none: it cannot be)."""
    at, where, _ = state
    if answer is None:  # left out by the policy: the previous evaluation stays
        return [(state, previous)]
    current, window = answer
    emitted = {
        "RStream": current,
        "IStream": current - previous,
        "DStream": previous - current,
    }[operator]
    key = None if operator == "RStream" else frozenset(current.items())
    if not emitted and not empty_relations:  # not streamed out
        return [((at, where, key), current)]
    out = []
    if where == AFTER or (where == BEFORE and contained):
        out.append(((at, where, key), current))  # a relation before or after the engine's
    if where != AFTER and at < len(told) and _fits(told[at], emitted, window, same):
        last = at + 1 == len(told)
        out.append(((at + 1, AFTER if last and contained else INSIDE, key), current))
    return out


def _fits(
    told: Told, emitted: Counter[Solution], window: tuple[int, int] | None, same: Equal
) -> bool:
    return (told[1] is None or told[1] == window) and same(told[0], emitted)


def picked(
    answers: Sequence[Sequence[Answer]],
    outputs: Sequence[Sequence[Any]],
    operator: str,
    empty_relations: bool,
    same: Equal,
    stable_from: int,
    windows: bool = False,
) -> list[list[int]]:
    """The resolutions the engine's ``outputs`` (one per replay: relations
    with ``bindings``, ``time`` and ``window``) can be, each found once:
    equal to it from ``t_s`` on (after leading relations stamped before it)
    or holding it; ``windows``: the reported windows count too."""
    found: list[list[int]] = []
    for output in outputs:
        told = [(bag(r.bindings), r.window if windows else None) for r in output]
        lead = 0  # leading relations stamped before t_s (the verdict skips them)
        while (
            lead < len(output)
            and (output[lead].time is not None)
            and (output[lead].time < stable_from)
        ):
            lead += 1
        tries = [(told[skip:], False) for skip in range(lead + 1)] + [(told, True)]
        for relations, contained in tries:
            choices = matched(answers, relations, operator, empty_relations, same, contained)
            if choices is not None and choices not in found:
                found.append(choices)
    return found
