"""docs/architecture.md names every module of the package.

Each ``pytest_rspbench/**/*.py`` but a package's ``__init__.py`` (and a
``__main__.py``) must appear in the page by its path inside the package
(``verdict/strict.py``), its full path (``pytest_rspbench/verdict/strict.py``)
or its dotted name, relative or full (``verdict.strict``,
``pytest_rspbench.verdict.strict``).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_rspbench"
DOC = ROOT / "docs" / "architecture.md"


def modules() -> list[Path]:
    """Every module of the package, ``__init__.py`` and ``__main__.py`` aside."""
    found = sorted(PACKAGE.rglob("*.py"))
    return [path for path in found if path.name not in ("__init__.py", "__main__.py")]


def names(module: Path) -> tuple[str, ...]:
    """The ways the page may name ``module``.

    >>> names(PACKAGE / "verdict" / "strict.py")[::2]
    ('verdict/strict.py', 'verdict.strict')
    """
    inside = module.relative_to(PACKAGE)
    dotted = ".".join(inside.with_suffix("").parts)
    return (
        inside.as_posix(),
        f"pytest_rspbench/{inside.as_posix()}",
        dotted,
        f"pytest_rspbench.{dotted}",
    )


def named(name: str, text: str) -> bool:
    """Whether ``text`` names ``name`` on its own, not as the tail of a longer path.

    >>> named("report/record.py", "see `report/record.py`")
    True
    >>> named("report.py", "see `fingerprint/report.py`")
    False
    """
    return re.search(rf"(?<![\w/.]){re.escape(name)}(?![\w/])", text) is not None


def test_every_module_is_in_the_architecture_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [
        module.relative_to(ROOT).as_posix()
        for module in modules()
        if not any(named(name, text) for name in names(module))
    ]
    assert not missing, (
        "docs/architecture.md does not name these modules (add a row to "
        '"Every module", with a few words from the module\'s docstring):\n' + "\n".join(missing)
    )


def test_the_page_names_no_module_that_is_gone() -> None:
    text = DOC.read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([\w/]+\.py)` \|", text, re.MULTILINE)
    gone = [name for name in listed if not (PACKAGE / name).is_file()]
    assert not gone, "docs/architecture.md lists modules that do not exist:\n" + "\n".join(gone)
