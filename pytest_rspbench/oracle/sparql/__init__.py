"""The oracle's SPARQL compiler: the per-window query as one Spark DataFrame plan.

``compiler`` dispatches SPARQL algebra nodes to handler modules (``patterns``,
``joins``, ``aggregates``, ``modifiers``), which import it back to compile
their children: the one import cycle kept by design. Terms travel as
N-Triples strings (``literals``), numbers with XPath type promotion
(``numerics``, ``datatypes``), expressions and built-in functions as Spark
columns (``expressions``, ``functions``, ``ordering``). What the compiler
cannot express is evaluated per window by an embedded engine inside Spark
(``fallback``).
"""
