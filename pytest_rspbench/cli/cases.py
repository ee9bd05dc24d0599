"""Picking one case of a spec by its matrix values: ``--param K=V`` on the command line.

``rspbench oracle`` and ``rspbench stream stats`` work on one case of a spec.
A value on the command line is read as YAML reads the matrix, so
``--param temp=80`` picks the case written ``temp: [80.0]``, and a name the
matrix does not have is an error that lists the names it has.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import yaml

from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.model import Case, Spec


def select_case(spec: Spec, params: Sequence[str]) -> Case:
    """The first case of ``spec`` whose values match every ``K=V`` in ``params``.

    ``engine`` names the case's engine. With no ``params``, the first case.
    """
    wanted = dict(_pair(item) for item in params)
    names = _names(spec)
    for key in wanted:
        if key not in names:
            raise _unknown(spec, key, names)
    for case in spec.cases:
        if all(_matches(case, k, v) for k, v in wanted.items()):
            return case
    raise _no_match(spec, wanted)


def same_value(value: Any, text: str) -> bool:
    """Whether a matrix value is the one written ``text`` on the command line.

    Both are compared as YAML values: numbers by value, whatever their type;
    anything else exactly, or by its text.

    >>> same_value(80.0, "80"), same_value(10000, "1e4"), same_value("10s", "10s")
    (True, True, True)
    >>> same_value(True, "1"), same_value(80, "80.5")
    (False, False)
    """
    typed = typed_value(text)
    if _is_number(value) and _is_number(typed):
        return bool(value == typed)
    return bool(value == typed and type(value) is type(typed)) or str(value) == text


def typed_value(text: str) -> Any:
    """``text`` as a YAML scalar; ``1e4`` (not a YAML 1.1 float) as a number too.

    >>> typed_value("80"), typed_value("8e1"), typed_value("true"), typed_value("x")
    (80, 80.0, True, 'x')
    """
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str):
        try:
            return float(value) if value.strip() == value and value else value
        except ValueError:
            return value
    return value if isinstance(value, (int, float, bool)) else text


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pair(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise SpecError(
            f"--param {item!r}: expected K=V.\n"
            "HINT: name a matrix parameter and its value, e.g. --param range=10000."
        )
    return key.strip(), value.strip()


def _matches(case: Case, key: str, text: str) -> bool:
    if key == "engine":  # its profile's name (the id's) or as the spec writes it
        return text in (case.engine_id, case.engine)
    return same_value(dict(case.params)[key], text)


def _values(case: Case) -> dict[str, Any]:
    return dict(case.params) | {"engine": case.engine_id or case.engine}


def _names(spec: Spec) -> list[str]:
    names = [k for k, _ in spec.cases[0].params] if spec.cases else []
    return [*names, "engine"]


def _unknown(spec: Spec, key: str, names: list[str]) -> SpecError:
    close = difflib.get_close_matches(key, names, n=1)
    return SpecError(
        f"--param {key}=...: {spec.path} has no parameter {key!r}; "
        f"its parameters are {', '.join(names)}.\n"
        "HINT: use one of those names" + (f"; did you mean {close[0]!r}?" if close else ".")
    )


def _no_match(spec: Spec, wanted: dict[str, str]) -> SpecError:
    shown = ", ".join(f"{k}={v}" for k, v in wanted.items())
    taken = {key: sorted({str(_values(case)[key]) for case in spec.cases}) for key in wanted}
    values = "; ".join(f"{k} takes {', '.join(v)}" for k, v in taken.items())
    return SpecError(
        f"--param {shown}: no case of {spec.path} has these values ({values}).\n"
        f"HINT: the cases are {', '.join(c.case_id for c in spec.cases)}."
    )
