"""The model of the papers: windows, semantics, RSP-QL text, RDF terms, bags.

The ground floor of the package (docs/architecture.md): it imports nothing of
pytest-rspbench but :mod:`pytest_rspbench.errors`, so every layer above can
use it. RSP-QL (paper 004) Def. 12-13 for windows, SECRET/CSRBench for the
operational semantics of an engine.
"""
