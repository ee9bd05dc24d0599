"""Windows, evaluations and t0 classes: what the oracle computes, and where.

``planning`` lays out the windows, t0 classes and evaluations of a case
(plain Python over the streams' timelines); ``evaluations`` gives the
instants a report policy evaluates at; ``frames`` and ``solutions`` run every
planned evaluation in one Spark job, ``assignment`` joining solutions to
evaluations by their time spans. The content narrowing (``narrowing``, with
``spans``, ``sides``, ``factors``, ``placing`` and ``aggregated``) finds the
t0 classes an engine's output can come from without computing the others.
Count and session windows are time windows over an axis of their own
(``axes``, with ``slides`` for count windows, ``sequence`` for the order of
their evaluations and ``ties`` for ``count_ties: any``), so the same job
computes them.
"""
