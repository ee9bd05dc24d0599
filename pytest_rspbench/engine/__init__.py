"""Engines under test: the adapter API, engine profiles and the replay harness."""
