"""pytest-rspbench: test RDF Stream Processing engines with pytest.

Specs (``*.rspbench.yaml``) declare a stream, a continuous RSP-QL query, the
engine under test and thresholds; the plugin replays the stream into the
engine, computes the expected output with an oracle on Apache Spark and
checks per-window verdicts.
"""

from __future__ import annotations

__version__ = "0.1.0.dev0"
