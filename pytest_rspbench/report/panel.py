"""The per-item panel: key figures, thresholds, charts and the window table.

Built from the item's results record only (never from live objects), so the
pytest-html extras and ``rspbench report`` show the same thing. Size is
bounded whatever the run: charts draw at most ``charts.MAX_POINTS`` points
per series, and a long window table shows the worst :data:`WORST_ROWS`
windows with a link to the full data. Every text placed in the page is
escaped; the panel is plain HTML and SVG (no script).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pytest_rspbench.report import charts
from pytest_rspbench.report.digest import nothing_came, show, t0_text, value, verdict
from pytest_rspbench.rsp.windows import Bounds, window_label

FULL_ROWS = 50
WORST_ROWS = 20
SHOWN_BINDINGS = 3
WINDOW_AXIS = "window close (application time, s)"
ARTIFACTS_HINT = (
    "run with --rspbench-artifacts DIR to keep every window's metrics "
    "(DIR/<item>/metrics.json) and link them here"
)


def panel(record: Mapping[str, Any], data_link: str | None = None, *, errors: bool = True) -> str:
    """The whole panel of one item; ``data_link`` points at its metrics.json.

    ``errors=False`` leaves out the engine's error and the item's message:
    pytest-html prints the failure text (which starts with them) next to the
    panel, so they would show twice.
    """
    if record.get("kind"):
        return group_panel(record)
    if "passed" not in record:  # skipped, or stopped before a verdict
        return f'<div class="rspbench">{caption(record, errors)}</div>'
    if silent(record):
        # Failed before any result (at registration, say): the error and its
        # stderr are what to read; every window as missing would bury them.
        rows = window_rows(record)
        expected = sum(int(w.get("expected") or 0) for w in rows)
        note = nothing_came(len(rows), expected) if errors else ""  # else in the log
        return (
            f'<div class="rspbench">{caption(record, errors)}{figures(record)}'
            + (f'<p class="rspbench-note">{escape(note)}</p>' if note else "")
            + "</div>"
        )
    parts = [
        caption(record, errors),
        departures(record),
        counterexample(record),
        figures(record),
        thresholds(record),
        chart_block(record),
        mismatch_table(record),
        window_table(record, data_link),
    ]
    return '<div class="rspbench">' + "".join(p for p in parts if p) + "</div>"


def group_panel(record: Mapping[str, Any]) -> str:
    """A mismatch or sweep item: its matrix or chart, and the table it printed."""
    parts = [
        f'<p class="rspbench-caption">{escape(str(record["kind"]))} of '
        f"{escape(str(record.get('id', '')))}</p>",
        mismatch_table(record),
        sweep_chart(record.get("sweep")),
    ]
    for key, css in (("message", "rspbench-error"), ("text", "rspbench-text")):
        if record.get(key):
            parts.append(f'<pre class="{css}">{escape(str(record[key]))}</pre>')
    return '<div class="rspbench">' + "".join(p for p in parts if p) + "</div>"


def silent(record: Mapping[str, Any]) -> bool:
    """Whether the engine failed before it gave any result."""
    windows = record.get("windows") or ()
    return (
        bool(record.get("engine_error"))
        and bool(windows)
        and not any(w.get("actual") for w in windows)
    )


def caption(record: Mapping[str, Any], errors: bool = True) -> str:
    """One line naming the engine, semantics, t0 and oracle; the engine error
    and the item's message (why it stopped) unless ``errors`` is false."""
    semantics = record.get("semantics") or {}
    bits = [f"engine {record.get('engine', '?')}"]
    if semantics.get("bounds"):
        bits.append(f"bounds {semantics['bounds']}")
    if record.get("mode"):
        bits.append(f"{record['mode']} verdict")
    if record.get("evaluator"):
        reason = record.get("fallback_reason")
        notes = [reason] if reason else []
        if record.get("oracle_stored"):
            computed = record.get("oracle_seconds")
            notes.append(
                "stored output"
                + (f", computed in {computed:.1f} s" if isinstance(computed, float) else "")
            )
        if record.get("t0_narrowing"):
            notes.append(str(record["t0_narrowing"]))
        if record.get("oracle_note"):
            notes.append(str(record["oracle_note"]))
        bits.append(f"oracle {record['evaluator']}" + (f" ({'; '.join(notes)})" if notes else ""))
    out = f'<p class="rspbench-caption">{escape(", ".join(bits))}</p>'
    for key in ("engine_error", "message") if errors else ():
        if record.get(key):
            out += f'<pre class="rspbench-error">{escape(str(record[key]))}</pre>'
    return out


def departures(record: Mapping[str, Any]) -> str:
    """The failure's departure classes, each with its windows and meaning."""
    items = []
    bounds = _bounds(record)
    for d in record.get("departures") or ():
        windows = ", ".join(window_label(w, bounds) for w in d.get("windows") or ())
        head = f"{d.get('title', d.get('name'))} x{d.get('count', 1)}"
        where = f" at {windows}" if windows else (f": {d['detail']}" if d.get("detail") else "")
        items.append(
            f"<li><b>{escape(head)}</b>{escape(where)}"
            f' <span class="rspbench-note">{escape(str(d.get("explanation", "")))}</span></li>'
        )
    return f'<ul class="rspbench-departures">{"".join(items)}</ul>' if items else ""


def counterexample(record: Mapping[str, Any]) -> str:
    """The minimal counterexample (``--rspbench-shrink``): what it still shows,
    its events as a small timeline, and the spec that reproduces it."""
    from pytest_rspbench.report.counterexample import cost, headline, timeline

    found = record.get("counterexample")
    if not found:
        return ""
    parts = [f'<p class="rspbench-caption"><b>{escape(headline(found))}</b>']
    if found.get("status") in ("minimal", "budget"):
        parts.append(f' <span class="rspbench-note">({escape(cost(found))})</span>')
    parts.append("</p>")
    if found.get("note"):
        parts.append(f'<p class="rspbench-note">{escape(str(found["note"]))}</p>')
    lines = timeline(found)
    if lines:
        parts.append(f'<pre class="rspbench-timeline">{escape(chr(10).join(lines))}</pre>')
    if found.get("spec"):
        parts.append(
            f'<p class="rspbench-note">run: <code>{escape(str(found["command"]))}</code></p>'
        )
    return f'<div class="rspbench-counterexample">{"".join(parts)}</div>'


def figures(record: Mapping[str, Any]) -> str:
    """The key numbers of the run as a two-row table."""
    t0 = t0_text(record)
    if t0.startswith("~"):  # the item did not pass: no class was met
        t0 = f"{t0[1:]} (closest)"
    cells = [("verdict", verdict(record)), ("t0", t0)]
    for name, metric in (
        ("precision", "precision"),
        ("recall", "recall"),
        ("F1", "f1"),
        ("IoU", "iou"),
        ("delay p50", "delay.p50"),
        ("delay p95", "delay.p95"),
        ("delay max", "delay.max"),
        ("peak RSS", "peak_rss"),
        ("mean CPU", "mean_cpu"),
        ("engine time", "seconds"),
    ):
        cells.append((name, show(metric.split(".")[0], value(record, metric))))
    windows = record.get("windows") or ()
    scored = record.get("scored_windows")
    cells.append(
        (
            "windows",
            f"{len(windows)}" + (f" ({scored} scored)" if scored is not None else ""),
        )
    )
    head = "".join(f"<th>{escape(k)}</th>" for k, _ in cells)
    body = "".join(f"<td>{escape(str(v))}</td>" for _, v in cells)
    return f'<table class="rspbench-figures"><tr>{head}</tr><tr>{body}</tr></table>'


def thresholds(record: Mapping[str, Any]) -> str:
    """The spec's thresholds with their measured values."""
    rows = record.get("thresholds") or ()
    if not rows:
        return ""
    out = []
    for row in rows:
        ok = bool(row.get("ok"))
        measured = row.get("detail") or _number(row.get("measured"))
        out.append(
            f'<tr class="{"met" if ok else "fail"}">'
            f"<td>{escape(str(row.get('threshold', '')))}</td>"
            f"<td>{'ok' if ok else 'FAILED'}</td><td>{escape(str(measured))}</td></tr>"
        )
    return (
        '<table class="rspbench-thresholds"><tr><th>threshold</th><th>result</th>'
        f"<th>measured</th></tr>{''.join(out)}</table>"
    )


# -- charts -------------------------------------------------------------------


def chart_block(record: Mapping[str, Any]) -> str:
    """Every chart the record has data for."""
    rows = window_rows(record)
    out = []
    if rows:
        out += [quality_chart(rows), delay_chart(rows)]
        gracious = gracious_chart(rows)
        if gracious:
            out.append(gracious)
    resources = resource_chart(record.get("samples") or (), rows)
    if resources:
        out.append(resources)
    return f'<div class="rspbench-charts">{"".join(out)}</div>' if out else ""


def window_rows(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The expected windows (leftover results have no index), by close time."""
    rows = [
        w for w in record.get("windows") or () if w.get("index") is not None and w.get("window")
    ]
    return sorted(rows, key=lambda w: (w["window"][1], w["index"]))


def quality_chart(rows: Sequence[Mapping[str, Any]]) -> str:
    """Precision and recall per window; the strip below marks each window's bounds."""
    groups = charts.buckets(len(rows))
    xs = _closes(rows, groups)
    plot = charts.Plot(
        "precision and recall per window",
        WINDOW_AXIS,
        y_range=(0.0, 1.0),
        note=_grouped(rows, groups, "worst"),
        windows=_spans(rows, groups),
    )
    # Recall dashed over a wider precision line: equal values show both.
    for metric, dash in (("precision", ""), ("recall", "6 4")):
        values = charts.reduce(_column(rows, metric), groups, min)
        plot.line(metric, xs, values, dash=dash)
    return plot.render()


def delay_chart(rows: Sequence[Mapping[str, Any]]) -> str:
    """Expected and actual result sizes (bars) with the delay (line, right axis)."""
    groups = charts.buckets(len(rows))
    xs = _closes(rows, groups)
    delays = _column(rows, "delay")
    timed = any(not math.isnan(d) for d in delays)
    plot = charts.Plot(
        "delay and result sizes per window" if timed else "result sizes per window",
        WINDOW_AXIS,
        y_label="results",
        y2_label="delay (ms)" if timed else "",
        note=_grouped(rows, groups, "sums, max delay"),
    )
    sizes = [charts.reduce(_column(rows, k), groups, sum) for k in ("expected", "actual")]
    plot.bars(("expected", "actual"), xs, sizes)
    if timed:
        plot.line("delay", xs, charts.reduce(delays, groups, max), axis=2)
    return plot.render()


def gracious_chart(rows: Sequence[Mapping[str, Any]]) -> str:
    """How far gracious mode moved each window's borders (0: the ideal border)."""
    shifted = [r for r in rows if r.get("gracious")]
    if not shifted:
        return ""
    if not any(moved(r) for r in shifted):
        return (
            '<p class="rspbench-note">gracious mode: no window border moved '
            "(the ideal borders match best in every window)</p>"
        )
    groups = charts.buckets(len(shifted))
    xs = _closes(shifted, groups)
    plot = charts.Plot(
        "gracious mode: reconstructed borders against the ideal ones",
        WINDOW_AXIS,
        y_label="shift (ms)",
        note=_grouped(shifted, groups, "largest shift"),
        windows=_spans(shifted, groups),
    )
    plot.line("ideal", xs, [0.0] * len(xs))
    for key, name, dash in (
        ("shift_start", "start shift", ""),
        ("shift_end", "end shift", "6 4"),
    ):
        values = [float(r["gracious"].get(key, math.nan)) for r in shifted]
        plot.line(name, xs, charts.reduce(values, groups, _largest), dash=dash)
    return plot.render()


FEW_SAMPLES = 3
"""Samples below which the resource chart is a note (a start and an end
sample say nothing of a course)."""


def resource_chart(samples: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]) -> str:
    """RSS and CPU of the engine over time; windows overlaid in application time.

    Fewer than :data:`FEW_SAMPLES` samples make no chart: a note says the
    run was too short to sample.
    """
    samples = [s for s in samples if s.get("rss") is not None]
    if not samples:
        return ""
    if len(samples) < FEW_SAMPLES:
        return (
            '<p class="rspbench-note">engine memory and CPU: too short to sample '
            f"({len(samples)} sample{'s' if len(samples) > 1 else ''})</p>"
        )
    in_app = [s for s in samples if s.get("app_time") is not None]
    on_app_time = len(in_app) >= max(2, len(samples) // 2)
    if on_app_time:
        samples, xs, label = (
            in_app,
            [s["app_time"] / 1000 for s in in_app],
            "application time (s)",
        )
    else:
        xs, label = (
            [float(s.get("elapsed") or 0.0) for s in samples],
            "seconds since replay start",
        )
    groups = charts.buckets(len(rows)) if on_app_time and rows else []
    plot = charts.Plot(
        "engine memory and CPU over time",
        label,
        y_label="RSS (MiB)",
        y2_label="CPU %",
        note="" if on_app_time else "replayed at max rate: no application time, no windows",
        windows=_spans(rows, groups) if groups else (),
    )
    # Long runs: each group keeps its peak memory and its mean CPU.
    points = charts.buckets(len(samples))
    at = [xs[g[-1]] for g in points]
    rss = [float(s["rss"]) / 2**20 for s in samples]
    cpu = [math.nan if s.get("cpu") is None else float(s["cpu"]) for s in samples]
    plot.line("RSS", at, charts.reduce(rss, points, max))
    plot.line("CPU", at, charts.reduce(cpu, points, statistics.fmean), axis=2)
    return plot.render()


def mismatch_table(record: Mapping[str, Any]) -> str:
    """The pairwise mismatch matrix between engines (LSBench §3.3), if any."""
    matrix = mismatch_matrix(record.get("mismatch"))
    if matrix is None:
        return ""
    names, cell = matrix
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    body = []
    for a in names:
        tds = []
        for b in names:
            v = cell.get((a, b), cell.get((b, a)))
            shade = (
                "" if v is None else f' style="background:rgba(214,39,40,{min(v, 1.0) * 0.8:.2f})"'
            )
            tds.append(f"<td{shade}>{'-' if v is None else escape(f'{v:.3f}')}</td>")
        body.append(f"<tr><th>{escape(a)}</th>{''.join(tds)}</tr>")
    return (
        '<table class="rspbench-mismatch"><caption>mismatch between engines '
        f"(0: same output)</caption><tr><th></th>{head}</tr>{''.join(body)}</table>"
    )


def mismatch_matrix(raw: Any) -> tuple[list[str], dict[tuple[str, str], float]] | None:
    """Names and cells from the shapes a mismatch summary may take.

    Accepted: ``{"engines": [...], "matrix": [[...]]}``, ``{"pairs" or
    "mismatch": [{"first", "second", "value"} or {"a", "b", "mismatch"} or
    {"engines": [a, b], "value"}]}`` and ``{a: {b: v}}``.
    """
    if not isinstance(raw, Mapping) or not raw:
        return None
    cells: dict[tuple[str, str], float] = {}
    if isinstance(raw.get("matrix"), list) and isinstance(raw.get("engines"), list):
        names = [str(n) for n in raw["engines"]]
        for a, row in zip(names, raw["matrix"], strict=False):
            for b, v in zip(names, row, strict=False):
                if isinstance(v, (int, float)):
                    cells[(a, b)] = float(v)
    elif isinstance(raw.get("pairs", raw.get("mismatch")), list):
        for pair in raw.get("pairs", raw.get("mismatch")):
            a, b = pair.get("engines") or (
                pair.get("a", pair.get("first")),
                pair.get("b", pair.get("second")),
            )
            v = pair.get("mismatch", pair.get("value"))
            if a is not None and b is not None and isinstance(v, (int, float)):
                cells[(str(a), str(b))] = float(v)
    else:
        for a, row in raw.items():
            if isinstance(row, Mapping):
                cells.update(
                    {
                        (str(a), str(b)): float(v)
                        for b, v in row.items()
                        if isinstance(v, (int, float))
                    }
                )
    names = sorted({n for pair in cells for n in pair})
    return (names, cells) if cells else None


def sweep_chart(sweep: Any) -> str:
    """Mean F1 against the swept load, one line per engine (and other parameters)."""
    if not isinstance(sweep, Mapping) or not sweep.get("lines"):
        return ""
    over = str(sweep.get("over", "load"))
    plot = charts.Plot(f"correctness against {over}", over, y_label="mean F1", y_range=(0.0, 1.0))
    best = []
    for line in sweep["lines"]:
        points = [p for p in line.get("points") or () if p.get("f1") is not None]
        params = ",".join(f"{k}={v}" for k, v in (line.get("params") or {}).items())
        name = str(line.get("engine", "?")) + (f" ({params})" if params else "")
        plot.line(name, [float(p["value"]) for p in points], [float(p["f1"]) for p in points])
        best.append(f"{name}: {line.get('highest_comparable')}")
    plot.note = "highest comparable: " + "; ".join(best)
    return plot.render()


# -- the window table -------------------------------------------------------


def window_table(record: Mapping[str, Any], data_link: str | None = None) -> str:
    """All windows when few; otherwise the worst ones and where the rest is."""
    windows = list(record.get("windows") or ())
    if not windows:
        return ""
    bounds = _bounds(record)
    shown, note = windows, ""
    if data_link:
        note = (
            f'<p class="rspbench-note">every window with all its bindings: '
            f'<a href="{escape(data_link)}">metrics.json</a></p>'
        )
    if len(windows) > FULL_ROWS:
        shown = worst(windows, WORST_ROWS)
        where = (
            f'all windows: <a href="{escape(data_link)}">metrics.json</a>'
            if data_link
            else escape(ARTIFACTS_HINT)
        )
        note = (
            f'<p class="rspbench-note">the {len(shown)} worst of {len(windows)} '
            "windows "
            f"(lowest F1, then recall, then highest delay); {where}</p>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "#",
            "window",
            "triples",
            "expected",
            "actual",
            "precision",
            "recall",
            "F1",
            "delay (ms)",
            "missing",
            "unexpected",
        )
    )
    body = "".join(_window_row(w, bounds) for w in shown)
    return f'{note}<table class="rspbench-windows"><tr>{head}</tr>{body}</table>'


def worst(windows: Sequence[Mapping[str, Any]], count: int) -> list[Mapping[str, Any]]:
    """The ``count`` worst windows, shown in time order."""

    def badness(k: int) -> tuple[float, float, float, int]:
        w = windows[k]
        delay = w.get("delay")
        return (
            float(w.get("f1", 1.0)),
            float(w.get("recall", 1.0)),
            -(float(delay) if delay is not None else -math.inf),
            k,
        )

    picked = sorted(sorted(range(len(windows)), key=badness)[:count])
    return [windows[k] for k in picked]


def _bounds(record: Mapping[str, Any]) -> Bounds:
    """The bounds of the record's profile; a record without any (none that a
    case run writes) gets a profile's default, ``(o,c]`` (RSP-QL).

    >>> _bounds({"semantics": {"bounds": "[o,c)"}}), _bounds({})
    ('[o,c)', '(o,c]')
    """
    return Bounds((record.get("semantics") or {}).get("bounds") or Bounds.OPEN_CLOSED)


def _window_row(w: Mapping[str, Any], bounds: Bounds) -> str:
    window = w.get("window")
    label = window_label(window, bounds) if window else "(no window)"
    if w.get("index") is None:
        label += " unaligned"
    delay = w.get("delay")
    cells = [
        "-" if w.get("index") is None else w["index"],
        label,
        w.get("triples", ""),
        w.get("expected", ""),
        w.get("actual", ""),
        _number(w.get("precision")),
        _number(w.get("recall")),
        _number(w.get("f1")),
        "-" if delay is None else f"{delay:.0f}",
        _bindings(w.get("missing") or ()),
        _bindings(w.get("unexpected") or ()),
    ]
    good = w.get("precision") == 1 and w.get("recall") == 1
    tds = "".join(f"<td>{escape(str(c))}</td>" for c in cells)
    out = f'<tr class="{"ok" if good else "differs"}">{tds}</tr>'
    gracious = w.get("gracious")
    if gracious and moved(w):
        g = gracious.get("window") or ("?", "?")
        text = (
            f"gracious: borders {window_label(g, bounds)} (shift "
            f"{gracious.get('shift_start', 0):+} / {gracious.get('shift_end', 0):+} "
            f"ms), precision {_number(gracious.get('precision'))}, "
            f"recall {_number(gracious.get('recall'))}"
        )
        out += f'<tr class="gracious"><td></td><td colspan="10">{escape(text)}</td></tr>'
    return out


def moved(window: Mapping[str, Any]) -> bool:
    """Whether gracious mode changed anything for this window: a border moved
    or the scores differ; otherwise its gracious row would repeat the window.

    >>> moved({"precision": 1.0, "recall": 0.5,
    ...        "gracious": {"shift_start": 0, "shift_end": 0,
    ...                     "precision": 1.0, "recall": 0.5}})
    False
    """
    g = window.get("gracious") or {}
    return bool(g) and (
        g.get("shift_start", 0) != 0
        or g.get("shift_end", 0) != 0
        or g.get("precision") != window.get("precision")
        or g.get("recall") != window.get("recall")
    )


def _bindings(solutions: Sequence[Mapping[str, Any]]) -> str:
    if not solutions:
        return ""
    shown = [
        "{" + ", ".join(f"?{k}={v}" for k, v in s.items()) + "}" for s in solutions[:SHOWN_BINDINGS]
    ]
    more = len(solutions) - SHOWN_BINDINGS
    text = " ".join(shown) + (f" ... {more} more" if more > 0 else "")
    return text if len(text) <= 300 else text[:297] + "..."


# -- helpers ------------------------------------------------------------------


def _column(rows: Sequence[Mapping[str, Any]], key: str) -> list[float]:
    return [math.nan if r.get(key) is None else float(r[key]) for r in rows]


def _closes(rows: Sequence[Mapping[str, Any]], groups: Sequence[range]) -> list[float]:
    """Each group's last window close, in seconds of application time."""
    return [rows[g[-1]]["window"][1] / 1000 for g in groups]


def _spans(rows: Sequence[Mapping[str, Any]], groups: Sequence[range]) -> list[tuple[float, float]]:
    """Each group from its first window's open to its last window's close (s)."""
    return [(rows[g[0]]["window"][0] / 1000, rows[g[-1]]["window"][1] / 1000) for g in groups]


def _grouped(rows: Sequence[Any], groups: Sequence[range], how: str) -> str:
    if len(groups) == len(rows):
        return ""
    return f"{len(rows)} windows in {len(groups)} groups: {how}"


def _largest(values: Sequence[float]) -> float:
    return max(values, key=abs)


def _number(number: Any) -> str:
    if number is None:
        return "-"
    if isinstance(number, float):
        return "-" if math.isnan(number) else f"{number:.3f}"
    return str(number)
