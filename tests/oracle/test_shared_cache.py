"""One cache folder shared by sessions running at once.

Entries are written aside and renamed into place; a session holds a shared
lock on each stream entry it uses, and pruning, discarding a damaged entry
and cleaning leftovers each take the exclusive lock first (no waiting), so
none removes an entry under a session that reads it. The last test runs two
pytest sessions at once on one empty folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_rspbench.oracle.store import housekeeping as H
from pytest_rspbench.oracle.store import locks
from pytest_rspbench.oracle.store import outputs as store
from pytest_rspbench.oracle.store import streamcache as S
from pytest_rspbench.stream.model import Event, Stream

from helpers.project import GENERATED_SPEC, STREAM

pytestmark = pytest.mark.skipif(locks.fcntl is None, reason="needs POSIX flock")

EX = "http://example.org/"


def stream(version: str = "v1") -> Stream:
    events = [Event(t, ((f"<{EX}s{t}>", f"<{EX}p>", f'"{t}"'),)) for t in range(0, 50, 10)]
    return Stream(f"{EX}s", lambda: iter(events), "mem", end=50, fingerprint=lambda: version)


def test_an_entry_a_session_uses_is_not_pruned_until_it_ends(tmp_path: Path) -> None:
    reader = S.StreamCache(tmp_path)
    entry = reader.materialise(None, stream()).path
    later = time.time() + 3600  # the entry is old enough and over any size limit
    pruned = H.prune(tmp_path, max_size=0, keep_since=later, now=later)
    assert (pruned.busy, pruned.removed) == (1, []) and entry.is_dir()
    reader.close()
    pruned = H.prune(tmp_path, max_size=0, keep_since=later, now=later)
    assert [e.path for e in pruned.removed] == [entry] and not entry.exists()


def test_a_second_session_reads_the_entry_the_first_wrote(tmp_path: Path) -> None:
    first, second = S.StreamCache(tmp_path), S.StreamCache(tmp_path)
    written = first.materialise(None, stream())
    found = second.lookup(stream())
    assert found is not None and found.path == written.path and found.content == written.content
    assert (written.path / locks.LOCK).is_file()
    assert H.prune(tmp_path, max_size=0, keep_since=time.time() + 60).busy == 1
    first.close()
    assert H.prune(tmp_path, max_size=0, keep_since=time.time() + 60).busy == 1  # second holds it
    second.close()


def test_a_writer_that_loses_the_race_reads_the_winners_entry(tmp_path: Path) -> None:
    first, second = S.StreamCache(tmp_path), S.StreamCache(tmp_path)
    key = first.key(stream())
    assert key is not None
    with S._scratch(tmp_path) as scratch:  # the second writes too, publishes later
        S._write_dataset(stream(), scratch / "data", None)
        published = first.materialise(None, stream())
        found = second._publish(key, scratch / "data")
    assert found.path == published.path and found.triples == 5
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_damaged_entry_is_discarded_but_not_deleted_under_its_reader(tmp_path: Path) -> None:
    reader, other = S.StreamCache(tmp_path), S.StreamCache(tmp_path)
    entry = reader.materialise(None, stream()).path
    parquet = next(entry.glob("*.parquet"))
    parquet.write_bytes(parquet.read_bytes()[:-10])  # cut short behind everyone's back
    with pytest.warns(S.CacheRepairWarning):
        assert other.lookup(stream()) is None
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
    assert len(aside) == 1 and (aside[0] / parquet.name).is_file()  # the reader's files stay
    assert S.remove_unheld(aside[0]) is False
    reader.close()
    assert S.remove_unheld(aside[0]) is True and not aside[0].exists()


def test_a_scratch_folder_being_written_is_never_cleaned(tmp_path: Path) -> None:
    with S._scratch(tmp_path) as scratch:
        # As another pid namespace would see it: the writer's pid looks dead.
        assert locks.in_use(scratch)
        assert S.remove_unheld(scratch) is False and scratch.is_dir()
    assert not scratch.exists()


def test_a_reader_waits_for_a_removal_and_then_misses(tmp_path: Path) -> None:
    cache = S.StreamCache(tmp_path)
    entry = cache.materialise(None, stream()).path
    cache.close()
    removing = locks.exclusive(entry)
    assert removing is not None
    os.rename(entry, tmp_path / ".gone-1-x")
    removing.release()
    assert locks.hold(entry) is None
    assert S.StreamCache(tmp_path).lookup(stream()) is None


def run_session(folder: Path, cache: Path, name: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        f"--rspbench-cache-dir={cache}",
        f"--rspbench-json={name}.json",
        "--rspbench-cache-max-size=0",  # each prunes at its end, beside the other
        "-W",
        "error::pytest_rspbench.oracle.store.streamcache.CacheRepairWarning",
    ]
    out = (folder / f"{name}.txt").open("wb")
    env = {**os.environ, "RSPBENCH_CACHE_DIR": str(cache)}
    return subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT)


def verdict(item: dict) -> tuple:
    """What an item's verdict says, without times (delay, seconds)."""
    windows = [
        tuple(w.get(k) for k in ("window", "expected", "actual", "precision", "recall"))
        for w in item.get("windows") or ()
    ]
    keys = ("nodeid", "outcome", "passed", "verdict", "matched_t0")
    return (*(json.dumps(item.get(k)) for k in keys), json.dumps(windows))


@pytest.mark.slow
@pytest.mark.spark
def test_two_sessions_at_once_on_one_empty_cache_folder(pytester: pytest.Pytester) -> None:
    pytester.makefile(".nt", stream=STREAM)
    pytester.makefile(".rspbench.yaml", shared=GENERATED_SPEC)
    tiny = GENERATED_SPEC.replace("name: shared", "name: lines").replace(
        "source: {kind: generator, name: yabench-sg1, stations: 2, interval: 1000,\n"
        "             duration: 6000, seed: 1}",
        "source: {kind: lines, path: stream.nt, format: ntriples-ts}",
    )
    pytester.makefile(".rspbench.yaml", lines=tiny)
    cache = pytester.path / "cache"
    sessions = [run_session(pytester.path, cache, name) for name in ("a", "b")]
    codes = [s.wait(600) for s in sessions]
    outs = [(pytester.path / f"{n}.txt").read_text() for n in ("a", "b")]
    assert codes == [0, 0], outs
    assert all("4 passed" in out for out in outs), outs
    verdicts = []
    for name in ("a", "b"):
        items = json.loads((pytester.path / f"{name}.json").read_text())["items"]
        verdicts.append(sorted(verdict(item) for item in items))
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == 4
    entries = [p for p in cache.iterdir() if len(p.name) == 64]
    assert len(entries) == 2  # one per stream: the session that lost the race read the other's
    for entry in entries:
        assert S._damage(entry, S._meta(entry)) == ""
    stored = list((cache / store.FOLDER).glob(f"*{store.ARROW}"))
    assert stored and all(store.load(cache, p.name.removesuffix(store.ARROW)) for p in stored)
    assert not [p for p in cache.iterdir() if p.name.startswith((".tmp-", ".gone-"))]
