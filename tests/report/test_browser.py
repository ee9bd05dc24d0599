"""Reports open in headless Chromium: no console errors, every chart drawn.

A test-only probe script is appended to a copy of the report: it opens every
``<details>``, then lists each chart series with the number of points the
browser's SVG parser found (``points.numberOfItems`` for lines, one ``M``
per bar) and whether it has a drawn extent (``getBBox``). The report itself
has no script.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.outline import outline

from pytest_rspbench.report import page
from pytest_rspbench.report.charts import MAX_POINTS

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
