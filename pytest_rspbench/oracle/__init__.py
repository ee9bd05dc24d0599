"""The oracle: what an engine with a given profile must output, on Spark."""
