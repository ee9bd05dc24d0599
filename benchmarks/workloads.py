"""The YABench-style workloads the oracle benchmarks share.

:mod:`bench_oracle` (in session), :mod:`oracle_e2e` (end to end) and
:mod:`bench_t0_any` run the same stream (yabench-sg1, seed ``SEED``), the same
windows and the same three queries, so their figures compare.
"""

from __future__ import annotations

IRI = "http://example.org/yabench/sg1"
WINDOW = "http://example.org/yabench/w"
SEED = 123123123  # YABench's own test configurations

WINDOWS: dict[str, tuple[str, int, int]] = {
    "tumbling": ("5 s tumbling", 5000, 5000),
    "sliding": ("10 s / 2 s sliding", 10_000, 2000),
}

_PREFIXES = """\
PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>
PREFIX weather: <http://knoesis.wright.edu/ssw/ont/weather.owl#>
"""
_FROM = f"FROM NAMED WINDOW <{WINDOW}> ON STREAM <{IRI}> [RANGE {{range}} STEP {{step}}]"
# Observations above 50.0 (YABench Experiments 1 and 2).
_ABOVE_50 = f"""
WHERE {{ WINDOW <{WINDOW}> {{
  ?obs om-owl:observedProperty weather:_AirTemperature ;
       om-owl:procedure ?sensor ;
       om-owl:result ?res .
  ?res om-owl:floatValue ?value .
  FILTER(?value > 50.0)
}} }}
"""
QUERIES: dict[str, tuple[str, str]] = {
    "q1": (
        "Q1 filter",
        _PREFIXES
        + "REGISTER RStream <http://example.org/yabench/e1> AS\n"
        + "SELECT ?sensor ?obs\n"
        + _FROM
        + _ABOVE_50,
    ),
    "q4": (
        "Q4 avg/station",
        _PREFIXES
        + "REGISTER RStream <http://example.org/yabench/e2> AS\n"
        + "SELECT ?sensor (AVG(?value) AS ?avg)\n"
        + _FROM
        + _ABOVE_50
        + "GROUP BY ?sensor\n",
    ),
    "q6": (
        "Q6 self-join",
        _PREFIXES
        + "REGISTER RStream <http://example.org/yabench/e3> AS\n"
        + "SELECT ?sensor ?ob1 ?value1 ?ob2\n"
        + _FROM
        + f"""
WHERE {{ WINDOW <{WINDOW}> {{
  ?ob1 om-owl:procedure ?sensor ;
       om-owl:observedProperty weather:_AirTemperature ;
       om-owl:result ?res1 .
  ?res1 om-owl:floatValue ?value1 .
  ?ob2 om-owl:procedure ?sensor ;
       om-owl:observedProperty weather:_AirTemperature ;
       om-owl:result ?res2 .
  ?res2 om-owl:floatValue ?value2 .
  FILTER(?value1 - ?value2 > 0.0)
}} }}
""",
    ),
}
