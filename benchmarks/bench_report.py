"""Report size and load time for a large run: the report's size stays bounded.

A synthetic results document with ITEMS items of WINDOWS windows each (the
case of the size target: 200 x 1,000) is rendered two ways:

- ``rspbench report`` (the standalone page, :mod:`pytest_rspbench.report.page`);
- pytest-html with the same panels in its extras: a generated test module
  whose items attach ``panel_html(record)`` exactly as the plugin does.

Each page is then loaded in headless Chromium (``--dump-dom``: parse, run
scripts, lay out, serialise) and timed against an empty page. Prints a
markdown section. Needs /usr/bin/chromium (Debian package ``chromium``).

    .venv/bin/python benchmarks/bench_report.py [--items 200] [--windows 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def synthetic_record(k: int, windows: int, rng: random.Random) -> dict[str, Any]:
    """One item as ``results.item_record`` writes it: sliding 10 s / 2 s windows."""
    width, slide = 10_000, 2_000
    rows = []
    for i in range(windows):
        expected = rng.randint(5, 20)
        lost = rng.random() < 0.05
        actual = expected - (rng.randint(1, 3) if lost else 0)
        recall = actual / expected
        row = {
            "index": i,
            "window": [i * slide, i * slide + width],
            "time": i * slide + width,
            "precision": 1.0,
            "recall": recall,
            "f1": 2 * recall / (1 + recall),
            "delay": round(rng.uniform(20, 300), 1),
            "expected": expected,
            "actual": actual,
            "triples": rng.randint(40, 80),
            "missing": [{"obs": f"<http://example.org/obs{i}>", "v": '"81"'}] if lost else [],
            "unexpected": [],
        }
        if k % 10 == 0:
            row["gracious"] = {
                "window": [i * slide + 1000, i * slide + width + 1000],
                "precision": 1.0,
                "recall": 1.0,
                "f1": 1.0,
                "shift_start": 1000,
                "shift_end": 1000,
            }
        rows.append(row)
    end = windows * slide + width
    step = max(end / 600, 500.0)  # one sample per 500 ms, at most 600 (as item_record keeps)
    samples = [
        {
            "elapsed": t * step / 1000,
            "app_time": t * step,
            "threads": 30,
            "rss": int(2e8 + 1e5 * t + 2e7 * math.sin(t / 9)),
            "cpu": round(60 + 40 * math.sin(t / 5) + rng.uniform(0, 10), 1),
        }
        for t in range(int(end // step) + 1)
    ]
    passed = all(r["recall"] == 1 for r in rows)
    return {
        "nodeid": f"specs/load.rspbench.yaml::load[n={k},engine=reference]",
        "id": f"load[n={k},engine=reference]",
        "spec": "load",
        "case": f"n={k},engine=reference",
        "spec_path": "specs/load.rspbench.yaml",
        "params": {"n": k},
        "engine": "reference",
        "profile": {
            "name": "reference",
            "description": "synthetic",
            "adapter": "python",
        },
        "semantics": {
            "bounds": "[o,c)",
            "t0": "registration",
            "report": ["window-close"],
            "tick": "time-driven",
            "r2s": ["RStream"],
            "empty_relations": False,
        },
        "passed": passed,
        "mode": "graded",
        "matched_t0": None,
        "closest_t0": "0",
        "t0_classes": 1,
        "stable_from": 0,
        "evaluator": "spark-dataframe",
        "fallback_reason": None,
        "oracle_seconds": 3.2,
        "engine_seconds": end / 1000,
        "engine_error": None,
        "engine_faults": [],
        "engine_peak_rss": max(s["rss"] for s in samples),
        "engine_mean_cpu": statistics.fmean(s["cpu"] for s in samples),
        "thresholds": [
            {
                "threshold": "recall >= 0.9 in every window",
                "ok": passed,
                "measured": min(r["recall"] for r in rows),
                "detail": None,
            }
        ],
        "windows": rows,
        "samples": samples,
        "scored_windows": windows,
        "run_metrics": {
            "iou": 0.98,
            "delay_p50": 160.0,
            "delay_p95": 286.0,
            "delay_max": 300.0,
            "peak_rss": None,
            "mean_cpu": None,
        },
        "artifacts": f"artifacts/load_n{k}",
        "outcome": "passed" if passed else "failed",
        "duration": end / 1000 + 3.2,
    }


def synthetic_document(items: int, windows: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    return {
        "format": 2,
        "tool": {"name": "pytest-rspbench", "version": "bench"},
        "created": "2025-01-01T00:00:00Z",
        "machine": {"cpus": 2},
        "commit": None,
        "items": [synthetic_record(k, windows, rng) for k in range(items)],
    }


PROBE = (
    "<script>window.addEventListener('load', () => setTimeout(() => {"
    "const t = performance.getEntriesByType('navigation')[0];"
    "document.title = 'LOADED ' + Math.round(t.loadEventStart);}, 0));</script>"
)


def load_seconds(page: Path, profile: Path, repeats: int = 3) -> tuple[float, float]:
    """Medians of: the page's own navigation-to-load time (a probed copy), and
    the wall time of a whole ``chromium --dump-dom`` run (parse, lay out,
    serialise the DOM, exit)."""
    probed = page.with_name("probed-" + page.name)
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    loads, walls = [], []
    for _ in range(repeats):
        shutil.rmtree(profile, ignore_errors=True)
        start = time.perf_counter()
        done = subprocess.run(
            [
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=60000",
                "--dump-dom",
                probed.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        walls.append(time.perf_counter() - start)
        found = re.search(r"<title[^>]*>LOADED (\d+)</title>", done.stdout)
        loads.append(int(found.group(1)) / 1000 if found else math.nan)
    return statistics.median(loads), statistics.median(walls)


def pytest_html_page(doc: dict[str, Any], where: Path) -> Path:
    """Run pytest-html over generated tests that attach the panels like the plugin."""
    (where / "records.json").write_text(json.dumps(doc["items"]))
    (where / "conftest.py").write_text(
        textwrap.dedent("""\
        import json, pathlib
        import pytest
        from pytest_html import extras
        from pytest_rspbench.report.html import STYLE, panel_html, record_cells
        HERE = pathlib.Path(__file__).parent
        RECORDS = json.loads((HERE / "records.json").read_text())

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            report = outcome.get_result()
            if report.when == "call":
                record = RECORDS[int(item.name.split("[")[1].rstrip("]"))]
                report.rspbench = dict(record_cells(record))
                panel = panel_html(record, "metrics.json")
                report.extras = [extras.html(STYLE + panel)]
        """)
    )
    (where / "test_load.py").write_text(
        f"import pytest\n@pytest.mark.parametrize('k', range({len(doc['items'])}))\n"
        "def test_item(k):\n    pass\n"
    )
    out = where / "pytest-html.html"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--html",
            str(out),
            "--self-contained-html",
            str(where / "test_load.py"),
        ],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
    )
    return out


def row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--windows", type=int, default=1000)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install -y chromium", file=sys.stderr)
        return 2
    from pytest_rspbench.report.page import write

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        doc = synthetic_document(args.items, args.windows)
        results = where / "results.json"
        results.write_text(json.dumps(doc))
        start = time.perf_counter()
        size = write(doc, where / "report.html")
        build = time.perf_counter() - start
        load, wall = load_seconds(where / "report.html", where / "profile")
        start = time.perf_counter()
        html = pytest_html_page(doc, where)
        html_build = time.perf_counter() - start
        html_load, html_wall = load_seconds(html, where / "profile")
        mb = 1e6
        print(f"### Report size and load time ({args.items} items x {args.windows} windows)")
        print()
        print(f"Results file: {results.stat().st_size / mb:.1f} MB. In headless Chromium:")
        print("*to load event* is the page's own navigation-to-load time (parse,")
        print("scripts, layout); *whole run* is the wall time of `chromium --dump-dom`")
        print("(start, load, serialise the DOM, exit). Medians of 3.")
        print()
        print(row("report", "size", "build", "to load event", "whole run"))
        print(row("---", "---", "---", "---", "---"))
        print(
            row(
                "`rspbench report`",
                f"{size / mb:.1f} MB",
                f"{build:.1f} s",
                f"{load:.2f} s",
                f"{wall:.1f} s",
            )
        )
        print(
            row(
                "pytest-html + panels",
                f"{html.stat().st_size / mb:.1f} MB",
                f"{html_build:.1f} s (whole pytest run)",
                f"{html_load:.2f} s",
                f"{html_wall:.1f} s",
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
