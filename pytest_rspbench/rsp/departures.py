"""The departure classes: the kinds of mistakes an engine's output can show.

One vocabulary (STYLE: one definition that every part imports): the names a
spec's ``known_failures`` declare, the results file and ``rspbench matrix``
carry, and :mod:`pytest_rspbench.verdict.departures` finds. A name is
stable; a title and a one-line explanation are for people. The order of
:data:`KINDS` is the order of a failure's summary (and breaks ties when two
classes explain a window equally well).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A departure class: a stable ``name`` (for known_failures and JSON), a
    ``title`` for people and a one-line ``explanation``."""

    name: str
    title: str
    explanation: str


KINDS = (
    Kind("engine-error", "engine error",
         "the engine crashed, timed out or wrote output the harness could not read"),
    Kind("no-output", "no output",
         "the engine reported no relation at all where relations were expected"),
    Kind("lost-window", "lost window",
         "a window that closed while the input went on was never reported"),
    Kind("missing-final-window", "missing final window",
         "a window still open when the input ended was never reported "
         "(no flush at the end of the stream)"),
    Kind("duplicate-report", "duplicate report",
         "one window was reported more than once at one instant (a copy, or a "
         "second evaluation beside the right one)"),
    Kind("re-reported-window", "re-reported window",
         "a window already reported was reported again later with other content "
         "(opened again for a late event, or fired twice)"),
    Kind("early-report", "early report",
         "a window was reported before it closed (stamped earlier than its close), "
         "without the events that came after"),
    Kind("backlog", "backlog",
         "a window was reported long after it closed, beyond the profile's lateness "
         "and a slide, over what the engine held by then"),
    Kind("out-of-order", "out of order",
         "relations came out in another order than their windows close"),
    Kind("extra-window", "extra window",
         "a relation for a window the profile does not have (before the first "
         "window, after the last one, or off the window grid)"),
    Kind("window-bounds", "window bounds",
         "solutions of an event on a window border were included or excluded: "
         "another bounds convention than the profile's"),
    Kind("count-size", "count window size",
         "a count window held another number of elements than it declares (one "
         "more than n, or one fewer), sliding where it should"),
    Kind("count-unit", "count unit",
         "a count window counted triples where it counts events ([ROWS n]), or "
         "events where it counts triples ([TRIPLES n])"),
    Kind("session-gap", "session gap rule",
         "events exactly one gap apart were put in one session where the profile "
         "splits them (session_gap: split), or in two where it merges them"),
    Kind("dropped-late-event", "dropped late event",
         "an event that arrived late, within the profile's lateness, was dropped: "
         "its solutions are in none of its windows"),
    Kind("late-events", "late events",
         "events that arrived late, within the profile's lateness, were placed in "
         "other windows than theirs"),
    Kind("shifted-windows", "shifted windows",
         "solutions landed in other windows than theirs, further than a border "
         "event: the windows start elsewhere (t0 drift, or a drift under load)"),
    Kind("stale-content", "stale content",
         "solutions from windows that had expired stayed in later windows (no purge)"),
    Kind("r2s-mismatch", "R2S mismatch",
         "the relation streamed out is another R2S operator's (the window's "
         "whole answer where IStream or DStream was asked)"),
    Kind("report-policy", "report-policy mismatch",
         "a relation was reported when the report policy says not to (an empty "
         "one, or one evaluation in parts), or not when it should"),
    Kind("empty-group-aggregate", "empty-group aggregate",
         "an aggregate over no values is unbound or missing where SPARQL gives 0 "
         "(SPARQL 1.1 §18.5.1)"),
    Kind("term-form", "term form",
         "a literal came back rewritten: the same datatype and value as the stream's "
         'term in another lexical form ("8" for "+8"): the engine canonicalised it'),
    Kind("lexical-form", "same value, other lexical form",
         "the same values in another lexical form or numeric datatype "
         "(literal_equality: value accepts them)"),
    Kind("wrong-solutions", "wrong solutions",
         "solutions differ in a way no other class explains"),
)  # fmt: skip
BY_NAME = {k.name: k for k in KINDS}
NAMES = tuple(BY_NAME)
ITEM_LEVEL = ("engine-error", "no-output")  # about the run, not a window
