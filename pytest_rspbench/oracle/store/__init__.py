"""What the oracle keeps on disk: streams as Parquet, expected outputs, the folder.

``streamcache`` writes each stream once as Parquet, keyed by its content;
``store`` keeps expected outputs keyed by everything that determines them;
``columns`` holds solutions as Arrow columns until something reads them;
``housekeeping`` reports on the cache folder and prunes it.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """Names of the expected-output store, which was the module ``oracle.store``
    before this room existed, forwarded for one release with a warning."""
    import importlib
    import warnings

    outputs = importlib.import_module(f"{__name__}.outputs")
    if name.startswith("_") or not hasattr(outputs, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__}.{name} moved to {__name__}.outputs.{name}; "
        "the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(outputs, name)
