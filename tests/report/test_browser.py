"""Reports open in headless Chromium: no console errors, every chart drawn.

A test-only probe script is appended to a copy of the report: it opens every
``<details>``, then lists each chart series with the number of points the
browser's SVG parser found (``points.numberOfItems`` for lines, one ``M``
per bar) and whether it has a drawn extent (``getBBox``). The report itself
has no script.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.report import page
from pytest_rspbench.report.charts import MAX_POINTS

from helpers.outline import outline
from helpers.project import STREAM

PROBE = """<script>
function rspbenchProbe() {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const out = [];
  document.querySelectorAll("svg.rspbench-chart").forEach((svg, k) => {
    svg.querySelectorAll(".series").forEach((el) => {
      const n = el.tagName === "polyline" ? el.points.numberOfItems
        : (el.getAttribute("d").match(/M/g) || []).length;
      const box = el.getBBox();
      const declared = Number(el.getAttribute("data-points"));
      out.push([k, el.getAttribute("data-name"), n, declared,
                box.width > 0 || n <= 1]);
    });
  });
  const pre = document.createElement("pre");
  pre.id = "rspbench-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}
window.addEventListener("load", () => setTimeout(rspbenchProbe, 300));
</script>"""


def probed(html: str, where: Path) -> Path:
    path = where / "probed.html"
    path.write_text(html.replace("</body>", PROBE + "</body>"))
    return path


def probe_result(dom: str) -> list[list[object]]:
    found = re.search(r'<pre id="rspbench-probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: the page did not finish loading"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_standalone_report_renders_every_chart(doc, tmp_path, chromium):
    html = page.render(doc, tmp_path)
    dom, console = chromium(probed(html, tmp_path))
    assert console == []
    series = probe_result(dom)
    expected = [(name, points) for name, points, _ in outline(html).polylines]
    lines = [(name, n) for _, name, n, _, _ in series if (name, n) in expected]
    assert len(lines) == len(expected)
    assert all(parsed == declared for _, _, parsed, declared, _ in series)
    assert all(drawn for *_, drawn in series), [s for s in series if not s[4]]
    assert len({k for k, *_ in series}) == html.count("<svg")


def test_large_item_stays_bounded_in_the_browser(doc, tmp_path, chromium):
    item = doc["items"][1]
    base = item["windows"][0]
    item["windows"] = [
        base | {"index": i, "window": [i * 2000, i * 2000 + 10000]} for i in range(1000)
    ]
    doc["items"] = [item]
    html = page.render(doc, tmp_path)
    dom, console = chromium(probed(html, tmp_path))
    assert console == []
    assert max(n for _, _, n, _, _ in probe_result(dom)) <= MAX_POINTS


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_pytest_html_report_renders_panels(tiny, chromium):
    tiny.makeini("[pytest]\nrender_collapsed = failed\n")
    spec = tiny.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text() + "replay:\n  speed: 20\n")
    result = tiny.runpytest(
        "--html", "report.html", "--self-contained-html", "--rspbench-artifacts", "art"
    )
    result.assert_outcomes(passed=2)
    html = (tiny.path / "report.html").read_text()
    dom, console = chromium(probed(html, tiny.path))
    assert [line for line in console if "Uncaught" in line or "rror" in line] == []
    for column in ("Verdict", "t0", "Precision", "Recall", "Delay p95", "Peak RSS"):
        assert f">{column}</th>" in dom
    series = probe_result(dom)
    assert series, "no rspbench chart in the rendered pytest-html report"
    assert all(parsed == declared for _, _, parsed, declared, _ in series)
    assert all(drawn for *_, drawn in series)
    names = {name for _, name, *_ in series}
    assert {"precision", "recall", "expected", "actual"} <= names
    assert dom.count("metrics.json</a>") >= 2


# -- reading the reports, and the screenshots in docs/images ----------------------

DEMO_SPEC = """\
rspbench: 1
name: demo
description: readings above 80 in 4 s windows sliding by 2 s
streams:
  - iri: http://example.org/s
    end: 12000
    source:
      kind: lines
      path: stream.nt
      format: ntriples-ts
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP 2000]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 80) } }
engines: [crash/engine.yaml, reference, faulty-misses-last, faulty-wrong-bounds]
replay:
  speed: 20
comparison:
  mode: graded
  gracious:
    max_shift: 1000ms
"""
CRASH_ENGINE = '''\
"""Says hello, then dies on the query's registration (a protocol-1 engine)."""
import json
import sys

print(json.dumps({"type": "hello", "protocol": 1, "name": "crash", "version": "0"}), flush=True)
for line in sys.stdin:
    if json.loads(line).get("type") == "register":
        sys.stderr.write("Traceback (most recent call last):\\n")
        sys.stderr.write('  File "engine.py", line 9, in register\\n')
        sys.stderr.write("ValueError: unsupported window operator STEP\\n")
        sys.exit(3)
'''
CRASH_PROFILE = """\
name: crashes-at-registration
description: dies when the query is registered
adapter:
  command: [{python}, "{{engine_dir}}/engine.py"]
semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close, non-empty-content]
  tick: time-driven
  r2s: [RStream]
  empty_relations: false
  reports_window: true
"""
CRASH_LINE = "ValueError: unsupported window operator STEP"
MAX_PNG = 300 * 1024


def _shown(html: str) -> str:
    """pytest-html's page without the JSON blob it renders its rows from."""
    return re.sub(r'data-jsonblob="[^"]*"', "", html)


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_reports_read_well_and_screenshots(pytester, chromium, screenshot, pytestconfig):
    """One run, a pass, two failures and a crash at registration, read in
    both reports. With RSPBENCH_SCREENSHOTS=docs/images the
    PNGs of docs/reports.md are written there."""
    pytester.makefile(".nt", stream=STREAM)
    (pytester.path / "demo.rspbench.yaml").write_text(DEMO_SPEC)
    crash = pytester.mkdir("crash")
    (crash / "engine.py").write_text(CRASH_ENGINE)
    (crash / "engine.yaml").write_text(CRASH_PROFILE.format(python=json.dumps(sys.executable)))
    pytester.makeini("[pytest]\nrender_collapsed = passed\n")
    result = pytester.runpytest(
        "--html=report.html", "--self-contained-html", "--rspbench-json", "results.json"
    )
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    assert out.count(CRASH_LINE) == 1
    assert "every expected window is missing (5 windows, 13 solutions)" in out
    assert "shift +0/+0 ms" not in out and "shift +1/+1 ms" in out  # wrong bounds
    assert main(["report", "results.json", "-o", "page.html"]) == 0

    dom, console = chromium(pytester.path / "report.html")
    assert [line for line in console if "Uncaught" in line or "rror" in line] == []
    shown = _shown(dom)
    assert shown.count(CRASH_LINE) == 1  # in the log, not again in the panel
    assert '<td class="col-rspbench1">0</td>' in shown  # the pass: t0 0, not ~0
    assert shown.count('class="rspbench-windows"') == 3  # none for the crash
    assert "+0 / +0 ms" not in shown and "shift +1 / +1 ms" in shown
    standalone = (pytester.path / "page.html").read_text()
    assert standalone.count(CRASH_LINE) == 1
    assert standalone.count('class="rspbench-windows"') == 3
    assert "+0 / +0 ms" not in standalone
    assert "<td>0</td>" in standalone and "no window border moved" in standalone

    # A relative RSPBENCH_SCREENSHOTS is read from where pytest was started
    # (pytester has changed the working directory since).
    wanted = os.environ.get("RSPBENCH_SCREENSHOTS")
    where = pytestconfig.invocation_params.dir / wanted if wanted else pytester.path
    where.mkdir(parents=True, exist_ok=True)
    shots = [
        screenshot((pytester.path / "report.html").as_uri(), where / "pytest-html.png"),
        screenshot((pytester.path / "page.html").as_uri(), where / "report.png"),
    ]
    for png in shots:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size < MAX_PNG, f"{png} is {png.stat().st_size} bytes"
