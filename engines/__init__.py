"""Engines shipped with pytest-rspbench (installed as ``rspbench_engines``)."""
