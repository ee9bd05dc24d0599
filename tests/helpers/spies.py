"""Spies: a module's function replaced by one that records what it returned."""

from __future__ import annotations

from typing import Any

import pytest


def returns(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """Wrap ``owner.name`` for the test; the list gets each value it returns."""
    real = getattr(owner, name)
    returned: list[Any] = []

    def recorded(*args: Any, **kwargs: Any) -> Any:
        returned.append(real(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(owner, name, recorded)
    return returned
