"""The tree speaks of its state, not of how it came to be.

Code, docs, tests, specs, engines, benchmarks, the CHANGELOG and the README say
what the project is and does, dated by version or by day where a figure needs
a date. Work sessions and this project's issue numbers belong in commit
messages, and the design notes the code once cited are not in the repository:
a reference points into ``docs/`` instead. An issue of another project is cited
as ``owner/repo#N``, which none of the patterns below matches.

Every tracked text file is read (``git ls-files``); each hit is reported as
``file:line``. The patterns are written so that this file does not match them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A work session by number: "session N", "Sessions N and M", "sessions N-M".
# Not a decimal ("the Connect session 0.9 s": a measurement), nor RSP-QL's
# session window, written in capitals or in brackets ("[SESSION 3000]").
SESSION = re.compile(r"(?<!\[)(?<!\[ )\b[Ss]essions?\s+\d+\b(?![.,]\d)")
# This project's issues by number: "issue N", "issues N and M", "issue #N".
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
# The design notes, which live outside the repository.
DESIGN = re.compile(r"\bDESIGN(?:\s*\N{SECTION SIGN}|\.md\b)")
PATTERNS = (SESSION, ISSUE, DESIGN)

# The words themselves, built so that this file holds none of them.
SESS, ISS, NOTES = "sess" + "ion", "iss" + "ue", "DESIGN" + ".md"


def tracked_text_files() -> list[Path]:
    """The repository's tracked files that read as UTF-8 text."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode("utf-8")
    files = []
    for name in filter(None, listed.split("\0")):
        path = ROOT / name
        if not path.is_file():  # deleted in the work tree, not yet in the index
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def history_words(text: str) -> list[tuple[int, str]]:
    """``(line number, matched text)`` of every history word in ``text``.

    >>> [line for line, _ in history_words(f"measured in {SESS} 25\\nsee {NOTES}")]
    [1, 2]
    >>> history_words("the Connect session 0.9 s; RSP4J's issue: w3c/rsp4j#23")
    []
    """
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern in PATTERNS:
            hits += [(number, match.group(0)) for match in pattern.finditer(line)]
    return hits


def test_no_history_words_in_the_tree() -> None:
    found = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}:{line}: {word}" for line, word in history_words(text)]
    assert not found, (
        "history words in the tree (say the state instead: a version, a date, or the "
        "fact; cite other projects' issues as owner/repo#N; point into docs/):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "text",
    [
        f"measured in {SESS} 24",
        f"the searches of {SESS}s 17 and 18",
        f"Same machine as {SESS}s 23-25",
        f"({ISS.capitalize()} 20 #11)",
        f"{ISS}s 5 and 20",
        f"AVG is unbound ({ISS} #12)",
        "the stream model (DESIGN \N{SECTION SIGN}2)",
        f"pandas conversion ({NOTES} \N{SECTION SIGN}6)",
    ],
)
def test_each_form_is_caught(text: str) -> None:
    assert history_words(text)


@pytest.mark.parametrize(
    "text",
    [
        "a pytest session's one JVM",
        "the Connect session 0.9 s",
        "FROM NAMED WINDOW :w ON STREAM :s [SESSION 3000]",
        "a SESSION 3000 window, or [session 3000] in lower case",
        "cite it as w3c/rsp4j#23",
        "the issue of bounds, settled by the profile",
        "designed so, by design",
    ],
)
def test_state_words_pass(text: str) -> None:
    assert not history_words(text)
