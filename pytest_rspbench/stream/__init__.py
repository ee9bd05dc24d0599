"""Streams: timestamped RDF triples grouped into events, and their sources."""

from __future__ import annotations

from pytest_rspbench.stream.model import Event, Stream, Triple

__all__ = ["Event", "Stream", "Triple"]
