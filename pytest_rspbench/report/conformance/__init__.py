"""The conformance report: one or several engines' results files as the
EARL assertions, the HTML page, the badge and the summary an engine can
publish (``rspbench report --conformance``, docs/conformance.md)."""
