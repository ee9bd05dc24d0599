"""A conformance badge: shields.io's flat style, "RSP-QL conformance | 61/70".

A standalone SVG (no font download, no script): a grey label and a coloured
message, green when every applicable case passes, yellow from 80 %, orange
from 50 %, red below. Text widths are estimated from Verdana 11 px, as the
badge is drawn in it (shields.io measures the same font).
"""

from __future__ import annotations

from html import escape

LABEL = "RSP-QL conformance"
COLOURS = ((1.0, "#4c1"), (0.8, "#dfb317"), (0.5, "#fe7d37"), (0.0, "#e05d44"))
GREY = "#555"
# Verdana 11 px advance widths (px) of the characters a badge uses; others 7.
_WIDE = {" ": 3.9, "/": 4.7, ".": 3.9, "-": 4.6, "i": 3.1, "l": 3.1, "t": 4.4, "f": 3.9}
_NARROW_UPPER = 7.6


def colour(passed: int, applicable: int) -> str:
    """The message's colour.

    >>> colour(70, 70), colour(61, 70), colour(1, 70), colour(0, 0)
    ('#4c1', '#dfb317', '#e05d44', '#9f9f9f')
    """
    if applicable == 0:
        return "#9f9f9f"
    ratio = passed / applicable
    return next(c for floor, c in COLOURS if ratio >= floor)


def width(text: str) -> float:
    """The text's width in Verdana 11 px, estimated.

    >>> round(width("61/70"), 1)
    32.7
    """
    return sum(_WIDE.get(c, _NARROW_UPPER if c.isupper() else 7.0) for c in text)


def svg(passed: int, applicable: int, label: str = LABEL) -> str:
    """The badge for ``passed`` out of ``applicable`` cases."""
    message = f"{passed}/{applicable}"
    left, right = round(width(label) + 10), round(width(message) + 10)
    total = left + right
    fill = colour(passed, applicable)
    title = escape(f"{label}: {message}")
    texts = "".join(
        f'<text x="{x * 10}" y="150" fill="#010101" fill-opacity=".3" '
        f'transform="scale(.1)" textLength="{(w - 10) * 10}">{escape(t)}</text>'
        f'<text x="{x * 10}" y="140" transform="scale(.1)" fill="#fff" '
        f'textLength="{(w - 10) * 10}">{escape(t)}</text>'
        for t, x, w in ((label, left / 2, left), (message, left + right / 2, right))
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" '
        f'role="img" aria-label="{title}"><title>{title}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="{GREY}"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{fill}"/>'
        f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,'
        f'sans-serif" text-rendering="geometricPrecision" font-size="110">{texts}</g></svg>\n'
    )
