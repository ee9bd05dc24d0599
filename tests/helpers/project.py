"""The pieces of a tiny pytester project: a stream and an engine.yaml.

The plugin and report tests write them into a pytester folder (their
``conftest.py`` fixtures ``project`` and ``tiny``), next to a spec.
"""

from __future__ import annotations

import textwrap

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"

# One reading per 1000 ms; values alternate around 80.
STREAM = "\n".join(
    f'<{EX}obs{t}> <{EX}value> "{v}"^^<{XSD}double> "{t * 1000}" .'
    for t, v in enumerate([70, 85, 90, 60, 95, 81, 79, 99, 100, 50, 88, 83])
)


SEMANTICS = """\
semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close, non-empty-content]
  tick: time-driven
  r2s: [RStream]
  empty_relations: false
  reports_window: true
"""
"""The reference engine's semantics, as an engine.yaml block."""


def profile_yaml(
    name: str, adapter: str, *, description: str | None = None, semantics: str = ""
) -> str:
    """An engine.yaml: ``adapter`` lines (unindented), the reference engine's
    semantics and ``semantics`` lines added to them (indented by two)."""
    head = f"name: {name}\n" + (f"description: {description}\n" if description else "")
    lines = textwrap.indent(adapter.rstrip("\n") + "\n", "  ")
    return f"{head}adapter:\n{lines}{SEMANTICS}{semantics}"


def engine_yaml(name: str, adapter: str) -> str:
    """An engine.yaml for a Python adapter (``module:Class``) with the
    reference engine's semantics."""
    return profile_yaml(name, f"python: {adapter}")


GENERATED_SPEC = """\
rspbench: 1
name: shared
streams:
  - iri: http://example.org/sg1
    source: {kind: generator, name: yabench-sg1, stations: 2, interval: 1000,
             duration: 6000, seed: 1}
query: |
  PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?sensor
  FROM NAMED WINDOW :w ON STREAM :sg1 [RANGE 2000 STEP ${step}]
  WHERE { WINDOW :w { ?obs om-owl:procedure ?sensor } }
matrix: {step: [1000, 2000]}
engines: [reference]
"""
"""A spec whose stream is generated (yabench-sg1, 2 stations, 6 s) and whose two
cases (``step``) share it: the stream-cache tests' project."""
