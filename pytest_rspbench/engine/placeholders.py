"""``{name}`` placeholders in an engine's command, setup, folder and environment.

``{python}`` (this interpreter), ``{engine_dir}`` (the engine.yaml's folder),
``{setup_dir}`` (the cached setup's folder) and, per case, ``{spec}`` and
``{case}`` (docs/for-engine-authors.md).
"""

from __future__ import annotations

from collections.abc import Mapping


def expand(text: str, places: Mapping[str, str]) -> str:
    """Replace ``{name}`` placeholders; unknown ones are left alone.

    >>> expand("{python} run.py {x}", {"python": "/bin/py"})
    '/bin/py run.py {x}'
    """
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text
