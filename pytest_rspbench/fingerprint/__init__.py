"""Semantics fingerprints: infer an engine's profile from its output.

``rspbench fingerprint -e ENGINE`` replays a bundled probe suite
(:mod:`.probes`) into the engine once, then asks the oracle, dimension by
dimension, which profile values make the strict verdict pass on the probes
that test that dimension (:mod:`.inference`). What no value explains is a
departure (:mod:`pytest_rspbench.rsp.departures`).
"""
