"""rdflib's SPARQL parser, one call at a time.

pyparsing keeps parse state in the shared grammar objects, so two threads
parsing at once corrupt each other's parse ("Param.postParse2() missing 1
required positional argument: 'tokenList'", seen once the oracle ran in
background threads while engines replay). Every parse and translation of
the package holds :data:`RDFLIB_PARSER`.
"""

from __future__ import annotations

import threading

RDFLIB_PARSER = threading.RLock()
"""Held around every call into rdflib's SPARQL parser and algebra."""
