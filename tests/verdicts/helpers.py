"""Moved to ``helpers.verdict``; kept until the gracious tests import it from there."""

from helpers.verdict import TRUSTED, expected, got, rel, sols

__all__ = ["TRUSTED", "expected", "got", "rel", "sols"]
