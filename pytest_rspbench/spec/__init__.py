"""Specs: ``*.rspbench.yaml`` files, validated once into frozen dataclasses."""

from __future__ import annotations

from pytest_rspbench.spec.loader import load_spec
from pytest_rspbench.spec.model import Case, Spec

__all__ = ["Case", "Spec", "load_spec"]
