"""A failing item's minimal counterexample, as every report shows it.

``--rspbench-shrink`` (:mod:`pytest_rspbench.shrink`) cuts a failing item's
input down to a small stream that still shows the same departure class and
writes it as a spec of its own. What came out is a :class:`Counterexample`:
the failure text shows it as a small timeline, the results file keeps it as
the record's ``counterexample`` field (:func:`counterexample_record`) and the
HTML panel reads that field. Nothing else builds these keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_rspbench.rsp.bags import clip
from pytest_rspbench.stream.model import Triple

SHOWN_TRIPLES = 12  # triples shown in a timeline; the stream file has them all
TERM_CHARS = 60

STATUSES = ("minimal", "budget", "not-rerunnable", "not-shrunk")
"""``minimal``: no smaller candidate of the steps tried shows the departure;
``budget``: the time budget ran out, the smallest so far is shown;
``not-rerunnable``: the engine's answers do not depend on its input
(recorded answers); ``not-shrunk``: nothing could be tried (``note`` says why)."""


@dataclass(frozen=True)
class TimedTriple:
    """One triple of the counterexample: its stream and application time (ms)."""

    stream: str
    time: int
    triple: Triple


@dataclass(frozen=True)
class Counterexample:
    """What shrinking a failing item gave.

    Attributes:
        target: the departure class kept while shrinking (its stable name).
        status: one of :data:`STATUSES`.
        note: a sentence for people: how far it got, or why there is none.
        triples: the counterexample's input, in time order.
        end: the application time at which its input ends (ms).
        original: events and triples of the item's own input.
        shows: the departures of the counterexample's run (its verdict line
            without the verdict), empty when there is none.
        runs: candidates replayed into the engine and checked by the oracle.
        seconds: time spent shrinking.
        spec: the written ``counterexample.rspbench.yaml``, if any.
        engine: what to pass to ``--rspbench-engine`` to run it.
    """

    target: str
    status: str
    note: str = ""
    triples: tuple[TimedTriple, ...] = ()
    end: int | None = None
    original: tuple[int, int] = (0, 0)
    shows: str = ""
    runs: int = 0
    seconds: float = 0.0
    spec: Path | None = None
    engine: str = ""

    @property
    def events(self) -> int:
        """How many events (stream and time) the counterexample has."""
        return len({(t.stream, t.time) for t in self.triples})

    @property
    def command(self) -> str:
        """The command that runs the written spec (empty without one)."""
        if self.spec is None:
            return ""
        return f"pytest {self.spec} --rspbench-engine {self.engine}"


def counterexample_record(c: Counterexample) -> dict[str, object]:
    """The results file's ``counterexample`` field, JSON-ready."""
    return {
        "target": c.target,
        "status": c.status,
        "note": c.note,
        "events": c.events,
        "triples": [
            {"stream": t.stream, "time": t.time, "triple": [clip(x) for x in t.triple]}
            for t in c.triples
        ],
        "end": c.end,
        "original": {"events": c.original[0], "triples": c.original[1]},
        "shows": c.shows,
        "runs": c.runs,
        "seconds": round(c.seconds, 3),
        "spec": None if c.spec is None else str(c.spec),
        "command": c.command,
    }


def shown_counterexample(c: Counterexample) -> str:
    """The failure text's section of ``c`` (its record, as a text)."""
    return counterexample_text(counterexample_record(c))


def counterexample_text(record: dict[str, object]) -> str:
    """The failure text's section: a headline, the timeline, how to run it.

    >>> c = Counterexample("window-bounds", "minimal", "",
    ...     (TimedTriple("http://ex/s", 5, ("<http://ex/a>", "<http://ex/p>", "1")),),
    ...     end=10, original=(5, 5), shows="window bounds x1 at (5,10]", runs=9)
    >>> print(counterexample_text(counterexample_record(c)))
    minimal counterexample: 1 of 5 events, 1 of 5 triples, shows window bounds x1 at (5,10]
      (9 runs of the engine and the oracle in 0.0 s)
      time  triple
         5  <http://ex/a> <http://ex/p> 1
        10  (end of input)
    """
    lines = [headline(record)]
    if record.get("status") in ("minimal", "budget"):
        lines.append(f"  ({cost(record)})")
    if record.get("note"):
        lines.append(f"  {record['note']}")
    lines += [f"  {line}" for line in timeline(record)]
    if record.get("spec"):
        lines.append(f"  written to {record['spec']}")
        lines.append(f"  run: {record['command']}")
    return "\n".join(lines)


def headline(record: dict[str, object]) -> str:
    """One line: how small, of how much, what it still shows."""
    status = record.get("status")
    if status in ("not-rerunnable", "not-shrunk"):
        return f"no minimal counterexample ({status})"
    original = record.get("original") or {}
    triples = record.get("triples") or []
    assert isinstance(original, dict) and isinstance(triples, list)
    size = (
        f"{record.get('events')} of {_count(original.get('events'), 'event')}, "
        f"{len(triples)} of {_count(original.get('triples'), 'triple')}"
    )
    kind = "minimal counterexample" if status == "minimal" else "smallest counterexample so far"
    return f"{kind}: {size}, shows {record.get('shows') or '?'}"


def cost(record: dict[str, object]) -> str:
    """How many runs shrinking took, and how long."""
    seconds = record.get("seconds")
    took = f"{seconds:.1f}" if isinstance(seconds, (int, float)) else "?"
    return f"{record.get('runs', 0)} runs of the engine and the oracle in {took} s"


def timeline(record: dict[str, object]) -> list[str]:
    """The counterexample's triples by time (with their stream when there are
    several), and where the input ends."""
    triples = record.get("triples") or []
    assert isinstance(triples, list)
    if not triples:
        return []
    streams = {t["stream"] for t in triples}
    width = max(4, *(len(str(t["time"])) for t in triples), len(str(record.get("end"))))
    head = "time".rjust(width) + "  " + ("stream  " if len(streams) > 1 else "") + "triple"
    lines = [head]
    for t in triples[:SHOWN_TRIPLES]:
        where = f"{_short(t['stream'])}  " if len(streams) > 1 else ""
        terms = " ".join(clip(term, TERM_CHARS) for term in t["triple"])
        lines.append(f"{str(t['time']).rjust(width)}  {where}{terms}")
    if len(triples) > SHOWN_TRIPLES:
        lines.append(" " * width + f"  ... and {len(triples) - SHOWN_TRIPLES} more triples")
    if record.get("end") is not None:
        lines.append(f"{str(record['end']).rjust(width)}  (end of input)")
    return lines


def _count(n: object, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _short(iri: str) -> str:
    """A stream IRI's last segment (``http://ex/s`` -> ``s``)."""
    return iri.rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1] or iri
