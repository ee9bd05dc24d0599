"""Parameter placeholders (``${name}``) in a spec, and filling them in.

A spec's ``matrix:`` gives each parameter its values; every ``${name}`` in
the query, a stream source or the replay settings is replaced by the value
of the case's point (:func:`substitute`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_rspbench.spec.model import param_text

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_]\w*)\}")
"""``${name}``: a parameter of the spec's matrix."""


def substitute(value: Any, params: Mapping[str, Any]) -> Any:
    """Fill in placeholders; a value that is only ``${x}`` keeps x's type.

    >>> substitute("${range}", {"range": 10000}), substitute("w${n}", {"n": 2})
    (10000, 'w2')
    """
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole:
            return params[whole.group(1)]
        return PLACEHOLDER.sub(lambda m: param_text(params[m.group(1)]), value)
    return value
