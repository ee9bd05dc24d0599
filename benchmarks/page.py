"""docs/benchmarks.md kept as a page of current figures with their history.

The page has one current section per benchmark under ``## Current figures``,
each marked ``<!-- bench: KEY YYYY-MM-DD -->`` under its heading, and a
``## History`` of older runs, newest first. A benchmark script that writes
its figures (``run_all.py``, ``bench_specs.py --out``, ``bench_t0_any.py
--out``, ``oracle_e2e.py --out``) calls :func:`publish`: its new section
takes the current one's place, and the current one moves to the top of the
history under its own date, so no run is overwritten.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

CURRENT = "## Current figures"
HISTORY = "## History"
_MARK = re.compile(r"^<!-- bench: (?P<key>[\w.-]+) (?P<date>\d{4}-\d{2}-\d{2}) -->$", re.M)


def today() -> str:
    """The date of a run, UTC."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def publish(doc: Path, key: str, section: str, date: str | None = None) -> None:
    """Make ``section`` the current figures of benchmark ``key`` in ``doc``.

    ``section`` starts with a Markdown heading (any level: it becomes
    ``###``). The section it replaces moves to the top of the history,
    headed by the date of its run.
    """
    page = doc.read_text(encoding="utf-8") if doc.exists() else ""
    doc.write_text(placed(page, key, section, date or today()), encoding="utf-8")


def placed(page: str, key: str, section: str, date: str) -> str:
    """``page`` with ``section`` as ``key``'s current figures (see :func:`publish`).

    >>> page = "# B\\n\\n## Current figures\\n\\n## History\\n"
    >>> page = placed(page, "x", "## X\\n\\nfast\\n", "2026-01-01")
    >>> page = placed(page, "x", "## X\\n\\nfaster\\n", "2026-02-01")
    >>> print(page)
    # B
    <BLANKLINE>
    ## Current figures
    <BLANKLINE>
    ### X
    <!-- bench: x 2026-02-01 -->
    <BLANKLINE>
    faster
    <BLANKLINE>
    ## History
    <BLANKLINE>
    ### 2026-01-01: X
    <BLANKLINE>
    fast
    <BLANKLINE>
    """
    title, _, body = section.lstrip("\n").partition("\n")
    new = f"### {title.lstrip('#').strip()}\n<!-- bench: {key} {date} -->\n\n{body.strip()}\n\n"
    page = _skeleton(page)
    found = _current(page, key)
    if found is None:
        at = page.index(HISTORY)
        return page[:at] + new + page[at:]
    start, end, old_date = found
    old_title, _, old_body = page[start:end].partition("\n")
    old_body = _MARK.sub("", old_body, count=1).strip()
    entry = f"### {old_date}: {old_title.lstrip('#').strip()}\n\n{old_body}\n\n"
    page = page[:start] + new + page[end:]
    head, _, rest = page.partition(HISTORY + "\n")
    intro, heading, later = rest.partition("\n### ")
    if heading:
        return f"{head}{HISTORY}\n{intro}\n{entry}### {later}"
    intro = rest.strip()
    return f"{head}{HISTORY}\n\n" + (f"{intro}\n\n" if intro else "") + entry.rstrip("\n") + "\n"


def _skeleton(page: str) -> str:
    """``page`` with both parts, ``## Current figures`` before ``## History``."""
    if CURRENT not in page:
        page = page.rstrip("\n") + ("\n\n" if page.strip() else "") + CURRENT + "\n\n"
    if HISTORY not in page:
        page = page.rstrip("\n") + "\n\n" + HISTORY + "\n"
    return page


def _current(page: str, key: str) -> tuple[int, int, str] | None:
    """Start and end of ``key``'s current section, and its run's date."""
    current_end = page.index(HISTORY)
    for mark in _MARK.finditer(page, 0, current_end):
        if mark["key"] != key:
            continue
        start = page.rindex("\n### ", 0, mark.start()) + 1
        following = re.compile(r"^#{2,3} ", re.M).search(page, mark.end())
        end = following.start() if following and following.start() <= current_end else current_end
        return start, end, mark["date"]
    return None
