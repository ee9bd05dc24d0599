"""A spec over a stream with a reading every 3 ms (tests of t0 narrowing).

With a 1 s slide such a stream has hundreds of t0 classes, more than the
oracle computes without narrowing them (``oracle.narrowing.NARROW_ABOVE``).
"""

from __future__ import annotations


def lines(until: int) -> str:
    """Timestamped N-Triples: ``:obs<t> :value <t mod 97>`` every 3 ms before ``until``."""
    return (
        "\n".join(
            f"<http://example.org/obs{t}> <http://example.org/value> "
            f'"{t % 97}"^^<http://www.w3.org/2001/XMLSchema#integer> "{t}" .'
            for t in range(0, until, 3)
        )
        + "\n"
    )


def spec(engine: str = "reference", start: int = 0, semantics: str = "{t0: any}") -> str:
    """The spec text; its stream is read from ``dense.nt`` beside it."""
    return f"""\
rspbench: 1
name: dense
streams:
  - iri: http://example.org/s
    start: {start}
    source: {{kind: lines, path: dense.nt, format: ntriples-ts}}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 1000]
  WHERE {{ WINDOW :w {{ ?obs :value ?v . FILTER(?v > 90) }} }}
engines: [{engine}]
semantics: {semantics}
"""
