"""The cache folder looked after: last use, info and pruning.

Entries are keyed by the code that wrote them, so every upgrade left the old
ones behind for good. Now a read marks an entry used, and pruning removes by
last use::

    <cache>/<64 hex>/            a stream   (dir mtime: last use)
    <cache>/expected/<key>.*     a stored output, narrowing or border set
    prune(unused_for=, max_size=, keep_since=)   least recently used first
"""

from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.oracle.store import housekeeping as H
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store.streamcache import FORMAT, META, StreamCache
from pytest_rspbench.stream.model import Event, Stream

from helpers.project import GENERATED_SPEC

REAL_PRUNE = H.prune
NOW = 1_700_000_000.0  # 2023: every entry here is long unused
DAY = 86_400.0


def _stream(root: Path, name: str, size: int, used: float, fmt: int = FORMAT) -> Path:
    entry = root / (name * 64)[:64]
    entry.mkdir(parents=True)
    (entry / "part-0.parquet").write_bytes(b"x" * size)
    meta = {"format": fmt, "iri": f"http://ex/{name}", "triples": size}
    (entry / META).write_text(json.dumps(meta))
    os.utime(entry, (used, used))
    return entry


def _stored(root: Path, name: str, size: int, used: float) -> Path:
    path = root / store.FOLDER / f"{name}{store.ARROW}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"y" * size)
    os.utime(path, (used, used))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Four entries used 1, 10, 40 and 100 days ago, one stale stream, and a stranger."""
    _stream(tmp_path, "a", 1000, NOW - 100 * DAY)
    _stored(tmp_path, "b" * 64, 500, NOW - 40 * DAY)
    _stream(tmp_path, "c", 2000, NOW - 10 * DAY)
    _stored(tmp_path, "d" * 32 + "n" + "e" * 16, 300, NOW - 1 * DAY)
    _stream(tmp_path, "f", 50, NOW - DAY / 2, fmt=FORMAT - 1)
    (tmp_path / "notes.txt").write_text("mine")
    return tmp_path


def test_entries_are_the_caches_own_least_recently_used_first(folder: Path) -> None:
    found = H.entries(folder)
    assert [(e.path.name[:1], e.kind) for e in found] == [
        ("a", "stream"), ("b", "stored"), ("c", "stream"), ("d", "stored"), ("f", "stream"),
    ]  # fmt: skip
    assert [e.size for e in found][:2] == [1000 + len((found[0].path / META).read_bytes()), 500]
    assert [e.path.name[:1] for e in found if e.stale] == ["f"]
    assert found[0].label == "http://ex/a, 1,000 triples"


def test_unused_for_removes_what_was_not_used_since_and_stale_streams(folder: Path) -> None:
    result = H.prune(folder, unused_for=30 * DAY, now=NOW)
    assert sorted(e.path.name[:1] for e in result.removed) == ["a", "b", "f"]
    assert sorted(p.name[:1] for p in folder.iterdir() if p.name != "expected") == ["c", "n"]
    assert [p.name[:1] for p in (folder / "expected").iterdir()] == ["d"]
    assert (folder / "notes.txt").read_text() == "mine"  # not the cache's: left alone


def test_max_size_removes_the_least_recently_used_first(folder: Path) -> None:
    total = sum(e.size for e in H.entries(folder))
    result = H.prune(folder, max_size=total - 1100, now=NOW)
    # "f" (stale) goes whatever the limit; then "a" (oldest) is enough.
    assert sorted(e.path.name[:1] for e in result.removed) == ["a", "f"]
    assert result.remaining <= total - 1100
    assert result.freed == total - result.remaining


def test_recently_used_entries_are_never_removed(folder: Path) -> None:
    result = H.prune(folder, max_size=0, keep_since=NOW - 20 * DAY, now=NOW)
    assert sorted(e.path.name[:1] for e in result.removed) == ["a", "b"]
    assert result.recent == 3
    # The default: what was used in the last ten minutes stays.
    _stream(folder, "9", 10, time.time() - 60)
    assert [e.path.name[:1] for e in H.prune(folder, max_size=0).kept] == ["9"]


def test_a_dry_run_removes_nothing(folder: Path) -> None:
    before = sorted(folder.rglob("*"))
    result = H.prune(folder, unused_for=0, now=NOW, dry_run=True)
    assert len(result.removed) == 5 and sorted(folder.rglob("*")) == before


def test_leftovers_of_killed_runs_are_removed(folder: Path) -> None:
    gone = folder / ".gone-99999999-aaaa"  # a prune cut short, by a process that is gone
    gone.mkdir()
    old = folder / store.FOLDER / ".tmp-1-abcd.arrow"
    old.write_bytes(b"z")
    os.utime(old, (NOW - 2 * DAY, NOW - 2 * DAY))
    young = folder / store.FOLDER / ".tmp-2-abcd.arrow"  # may be being written
    young.write_bytes(b"z")
    os.utime(young, (NOW - 60, NOW - 60))
    assert H.prune(folder, unused_for=1000 * DAY, now=NOW).scratch == 2
    assert not gone.exists() and not old.exists() and young.exists()


def test_reading_an_entry_marks_it_used(tmp_path: Path) -> None:
    events = [Event(t, ((f"<http://ex/o{t}>", "<http://ex/v>", f'"{t}"'),)) for t in range(5)]
    stream = Stream("http://ex/s", lambda: iter(events), "mem", end=5, fingerprint=lambda: "v1")
    cache = StreamCache(tmp_path)
    written = cache.materialise(None, stream)
    os.utime(written.path, (NOW, NOW))
    assert cache.lookup(stream) is not None
    assert written.path.stat().st_mtime > NOW + DAY
    store.save_data(tmp_path, "k" * 64, {"x": 1})
    path = tmp_path / store.FOLDER / ("k" * 64 + ".json.gz")
    os.utime(path, (NOW, NOW))
    assert store.load_data(tmp_path, "k" * 64, dict) == {"x": 1}
    assert path.stat().st_mtime > NOW + DAY


@pytest.mark.parametrize("depth", [0, 1, 2, 4])
def test_an_entry_reads_back_the_same_whatever_depth_wrote_it(tmp_path: Path, depth: int) -> None:
    """``depth`` only decides how much is encoded at once (gracious borders
    write each candidate whole); the file holds the same JSON text."""
    data = [[0, m, [{"x": f"<http://ex/{m}>", "v": '"1\\u00e9"'}] * m] for m in range(300)]
    store.save_data(tmp_path, "d" * 64, data, depth=depth)
    assert store.load_data(tmp_path, "d" * 64, list) == data
    path = tmp_path / store.FOLDER / ("d" * 64 + ".json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        assert stream.read() == json.dumps(data, separators=(",", ":"))


@pytest.mark.parametrize(
    ("text", "size"),
    [("10GB", 10 << 30), ("500M", 500 << 20), ("2g", 2 << 30), ("1048576", 1 << 20),
     ("1.5KiB", 1536), ("0", 0), ("none", None)],
)  # fmt: skip
def test_sizes(text: str, size: int | None) -> None:
    assert H.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "ten", "5 apples", "-1G", "1e3"])
def test_a_bad_size_says_how_to_write_one(text: str) -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 500M, 10GB"):
        H.parse_size(text)


def test_ages() -> None:
    assert [H.parse_age(t) for t in ("30", "30d", "12h", "2w", "90m", "45s")] == [
        30 * DAY, 30 * DAY, 12 * 3600, 14 * DAY, 5400, 45,
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"e\.g\. 30d or 12h"):
        H.parse_age("a month")


def test_cli_info_and_prune(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for entry in H.entries(folder):  # relative to the real clock
        os.utime(entry.path, (entry.used - NOW + time.time(),) * 2)
    assert main(["cache", "info", "--cache-dir", str(folder), "-v"]) == 0
    out = capsys.readouterr().out
    assert f"{folder} (--cache-dir)" in out
    assert "streams             3" in out and "stored outputs      2" in out
    assert "of the streams, 1 (" in out and "older format" in out
    assert "unused for 30 days: 2 entries" in out
    assert "http://ex/c, 2,000 triples" in out
    assert main(["cache", "prune", "--cache-dir", str(folder), "--unused-for", "30d", "-n"]) == 0
    assert "would remove 2 streams and 1 stored outputs" in capsys.readouterr().out
    assert len(H.entries(folder)) == 5
    assert main(["cache", "prune", "--cache-dir", str(folder), "--unused-for", "30d"]) == 0
    assert "removed 2 streams and 1 stored outputs" in capsys.readouterr().out
    assert len(H.entries(folder)) == 2


def test_cli_prune_needs_a_criterion(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cache", "prune", "--cache-dir", str(folder)]) == 1
    assert "HINT: --unused-for 30d" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["cache", "prune", "--cache-dir", str(folder), "--max-size", "lots"])
    assert "'lots' is not a size" in capsys.readouterr().err


def test_cli_default_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RSPBENCH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    main(["cache", "info"])
    out = capsys.readouterr().out
    assert f"{tmp_path / 'xdg' / 'pytest-rspbench' / 'streams'}" in out
    assert "class-data archives" not in out
    archives = tmp_path / "xdg" / "pytest-rspbench" / "java-cds"
    archives.mkdir(parents=True)
    (archives / "0123456789abcdef.jsa").write_bytes(b"j" * 2048)
    main(["cache", "info"])
    out = capsys.readouterr().out
    assert f"{archives} (Spark's class-data archives" in out
    assert "1 files, 2.0 KB; one unused for 7 days is removed" in out
    (tmp_path / ".pytest_cache" / "d" / "rspbench-streams").mkdir(parents=True)
    main(["cache", "info"])
    assert "pytest's cache in this directory" in capsys.readouterr().out
    monkeypatch.setenv("RSPBENCH_CACHE_DIR", str(tmp_path / "env"))
    main(["cache", "info"])
    assert "($RSPBENCH_CACHE_DIR)" in capsys.readouterr().out


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_a_session_prunes_the_folder_to_its_max_size(pytester: pytest.Pytester) -> None:
    pytester.makefile(".rspbench.yaml", shared=GENERATED_SPEC)
    cache = pytester.path / "streams"
    old = _stream(cache, "a", 5000, NOW)
    stale = _stored(cache, "b" * 64, 700, NOW)
    result = pytester.runpytest(f"--rspbench-cache-dir={cache}", "--rspbench-cache-max-size=1k")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [f"rspbench cache {cache}: removed 2 least recently used entries (*) to stay within "
         "--rspbench-cache-max-size 1.0 KB; * kept"]
    )  # fmt: skip
    assert not old.exists() and not stale.exists()
    kept = H.entries(cache)  # what the session wrote: over the limit, but kept
    assert sorted(e.kind for e in kept) == ["stored", "stored", "stream"]
    assert sum(e.size for e in kept) > 1024
    # The default limit (10 GB) removes nothing here, and says nothing.
    again = pytester.runpytest(f"--rspbench-cache-dir={cache}")
    again.assert_outcomes(passed=2)
    assert "least recently used" not in again.stdout.str()
    assert sorted(e.path for e in H.entries(cache)) == sorted(e.path for e in kept)
    # A pruning that fails says so and leaves the session's outcome alone.
    pytester.makeconftest(  # in-process: the real prune comes back when the session ends
        "from pytest_rspbench.oracle.store import housekeeping\n"
        "REAL = housekeeping.prune\n"
        "def refuse(*args, **kwargs):\n"
        "    raise PermissionError('denied')\n"
        "def pytest_configure(config):\n"
        "    housekeeping.prune = refuse\n"
        "def pytest_unconfigure(config):\n"
        "    housekeeping.prune = REAL\n"
    )
    failed = pytester.runpytest(f"--rspbench-cache-dir={cache}")
    failed.assert_outcomes(passed=2)
    failed.stdout.fnmatch_lines(
        [f"rspbench cache {cache}: could not prune it (PermissionError: denied)*"]
    )
    assert H.prune is REAL_PRUNE  # nothing leaks into the tests that follow


def test_a_bad_max_size_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--co", "--rspbench-cache-max-size=lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--rspbench-cache-max-size: 'lots' is not a size*", "*HINT: the default is 10GB*"]
    )


def test_a_long_streams_metadata_is_read_by_its_head(tmp_path: Path) -> None:
    meta = tmp_path / META
    times = list(range(200_000))  # a long stream: its times run to megabytes
    iri = 'http://ex/a "quoted" \\ iri'
    meta.write_text(
        json.dumps({"format": FORMAT, "iri": iri, "source": "s", "triples": 7, "times": times})
    )
    assert H._meta_head(meta) == {"format": FORMAT, "iri": iri, "triples": 7}
    meta.write_text(json.dumps({"triples": 7, "iri": "http://ex/b", "format": 1}))  # other order
    assert H._meta_head(meta) == {"triples": 7, "iri": "http://ex/b", "format": 1}


def test_an_entry_that_cannot_be_removed_is_counted_and_kept(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(H, "_remove", lambda path: "failed" if path.name[0] == "a" else "removed")
    result = H.prune(folder, unused_for=30 * DAY, now=NOW)
    assert result.failed == 1
    assert sorted(e.path.name[:1] for e in result.removed) == ["b", "f"]
    assert "a" in [e.path.name[:1] for e in result.kept]
