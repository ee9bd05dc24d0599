"""Differential exploration of an engine against the exact oracle (``rspbench explore``).

Random streams and RSP-QL queries, generated within what the engine's profile
declares (:mod:`.scope`, :mod:`.data`, :mod:`.streams`, :mod:`.patterns`,
:mod:`.queries`, :mod:`.cases`), each run through the runner and judged by
the strict verdict (:mod:`.trials`); failures grouped by departure class and
query constructs (:mod:`.groups`), the first of each group reduced, shrunk
and written as a spec (:mod:`.written`), a failure database replayed first
(:mod:`.database`), the whole loop in :mod:`.exploration` and what it shows
in :mod:`.report`. Beside ``shrink/`` and ``fingerprint/`` in the layers:
it runs cases through the runner. docs/explore.md.
"""
