"""The exception tree, grouped by who has to act.

Every error a user can cause derives from :class:`RspbenchError`; the plugin
turns these into short reports without a Python traceback. Each also inherits
the closest built-in so callers that only know Python still catch it.
(Learned from hypothesis' ``InvalidArgument(TypeError)``.)
"""

from __future__ import annotations


class RspbenchError(Exception):
    """Base of every error that a user of pytest-rspbench can act on."""


class SpecError(RspbenchError, ValueError):
    """A spec file is invalid: the spec author must change it.

    Attributes:
        path: the spec file, if known.
        line: 1-based line in that file, if known.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class StreamError(RspbenchError, ValueError):
    """Stream input is unreadable or breaks the stream model (order, syntax)."""


class EngineError(RspbenchError, RuntimeError):
    """The engine under test failed: crashed, hung, spoke garbage, never started."""


class EngineConfigError(RspbenchError, ValueError):
    """An engine profile is invalid or names an engine that cannot be found."""


class OracleError(RspbenchError, RuntimeError):
    """The oracle cannot compute the expected output (unsupported query, Spark)."""


class SparkMemoryError(OracleError):
    """The oracle's Spark driver ran out of memory (the text says how to give it more)."""


class UnsupportedQueryError(OracleError, NotImplementedError):
    """The query uses a construct the oracle's compiler does not handle."""


class JavaNotFoundError(OracleError):
    """No usable Java runtime for Spark."""
