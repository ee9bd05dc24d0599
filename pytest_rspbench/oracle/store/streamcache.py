"""Streams written once to Parquet for the oracle, cached by content hash.

The oracle reads its input as one Spark DataFrame
``(stream string, s string, p string, o string, t long)``, terms in N-Triples
form (count windows also read each row's event and triple ordinals, ``e`` and
``q``). Built from a Python list, that DataFrame holds every triple in the
driver and goes through Python workers; instead each stream is written once
to a Parquet dataset that Spark reads, and items sharing a stream (same
source, same parameters) share the dataset. Writing one
(:func:`write_parquet`):

1. the events are read once, lazily, into Arrow columns, a batch of
   :data:`BATCH_ROWS` rows at a time, and pyarrow writes each batch sorted
   by predicate, in row groups of :data:`ROW_GROUP_ROWS`, to one Parquet
   file (the stream IRI as a constant column). No
   Spark job runs and no row is encoded as text: a cold stream costs about
   what reading its events costs. Terms are stored unchanged, whatever they
   hold (tabs, newlines, quotes, backslashes, control characters, any
   Unicode); a term that is not valid Unicode (a lone surrogate) is a
   :class:`StreamError`;
2. while writing, each triple's hash is kept, to tell whether any triple
   occurs twice (if not, a window's content, a set, needs no de-duplication
   in the oracle's plan), and each event time's triple count, from which
   the oracle counts a window's triples without a Spark job; each row also
   gets its event's ordinal ``e`` and its own ``q`` in the stream (from 1,
   in stream order), which count windows count (:data:`POSITIONED`);
3. ``_rspbench.json`` beside the Parquet files keeps the triple count, the
   distinct event times and their triple counts, how many events each time
   holds and each event's triple count, so the oracle's timeline needs no event on a hit
   (Spark and Parquet readers skip files whose name starts with ``_``), and
   the size and SHA-256 of every file written;
4. the finished folder is renamed into place. A killed run leaves only a
   ``.tmp-*`` folder, which is never read and is removed by a later run once
   the process that made it is gone (and its lock, :mod:`.locks`, with it).

Several sessions share the folder: two that write the same stream both
write it, and the second finds the first's entry in place and reads that;
each session holds a shared lock (:mod:`.locks`) on every entry it uses,
and an entry is only removed (pruned, or discarded as damaged) by whoever
takes its exclusive lock, so never under a session that reads it.

Cache layout (:class:`StreamCache`)::

    <cache>/<key>/part-*.parquet            the stream (spark.read.parquet)
    <cache>/<key>/_rspbench.json            iri, triples, times, source
    <cache>/<key>/.lock                     held by the sessions using it
    <cache>/.tmp-<pid>-<token>-<host>/      being written, or left by a kill

A published entry is never changed, so an entry whose files differ from what
was written (a disk error, a copy cut short, an edit by hand) is damaged: it
is found on lookup (sizes every time, digests once per process; entries
written before digests were kept: every Parquet file framed by ``PAR1``),
discarded with a :class:`CacheRepairWarning`, and written again. Without
this, Spark failed on the damaged file in every later run.

The key is a SHA-256 of the format version, the stream IRI and the stream's
fingerprint (:attr:`Stream.fingerprint`: the generator and all its settings,
or the source files' bytes and reading options) with a digest of the stream
code, so a changed parameter, file or generator gives a new entry. A stream
without a fingerprint (built in memory) is keyed by a hash of its rows while
they are written: it is read, but Spark writes nothing on a hit.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring  # json.dumps's escaping, in C
from pathlib import Path
from typing import Any

from pytest_rspbench.errors import OracleError, StreamError
from pytest_rspbench.oracle.store import locks
from pytest_rspbench.stream.model import Stream

SCHEMA = "stream string, s string, p string, o string, t long"
POSITIONED = f"{SCHEMA}, e long, q long"
""":data:`SCHEMA` with each row's place in its stream: ``e`` its event's
ordinal and ``q`` its triple's (both from 1, in stream order: by time, then
position in the source). Count windows count these (docs/count-and-session-
windows.md); everything else reads :data:`SCHEMA` and never sees them."""
FORMAT = 5  # bump when the rows, the layout or the metadata change
META = "_rspbench.json"
ENV = "RSPBENCH_CACHE_DIR"
_TMP = re.compile(r"\.tmp-(?P<pid>\d+)-[0-9a-f]+-(?P<host>.*)")
_GLOB = re.compile(r"([{}\[\]*?\\])")
_VERIFIED: set[tuple[str, tuple[tuple[str, int, int], ...]]] = set()
"""Entries whose digests matched, with each file's name, size and mtime then."""


class CacheRepairWarning(UserWarning):
    """A damaged stream-cache entry was discarded (and is written again)."""


@dataclass(frozen=True)
class ParquetStream:
    """A stream stored as a Parquet dataset, with what the oracle needs.

    Attributes:
        iri: the stream's IRI (the ``stream`` column).
        path: the dataset's folder.
        triples: number of rows.
        times: the distinct event times, ascending.
        content: SHA-256 of the rows (entries written before it was kept:
            the entry's name).
        datatypes: per predicate, the datatypes of its literal objects, and
            whether it has other objects (what the oracle's compiler plans
            numbers and comparisons for, :mod:`.datatypes`); None if not
            recorded.
        distinct: no triple occurs twice in the stream (False: it may).
        sizes: the triple count of each of ``times`` (None: not recorded).
        events: how many events each of ``times`` holds (two TriG graphs
            stamped alike are two events; None: not recorded).
        event_sizes: the triple count of each event, in stream order (None:
            not recorded).
    """

    iri: str
    path: Path
    triples: int
    times: tuple[int, ...]
    content: str = ""
    datatypes: dict[str, list[str]] | None = None
    distinct: bool = False
    sizes: tuple[int, ...] | None = None
    events: tuple[int, ...] | None = None
    event_sizes: tuple[int, ...] | None = None

    def frame(self, spark: Any, positioned: bool = False) -> Any:
        """The stream as a DataFrame with :data:`SCHEMA` (``positioned``:
        :data:`POSITIONED`, with each row's event and triple ordinals)."""
        schema = POSITIONED if positioned else SCHEMA
        return spark.read.schema(schema).parquet(spark_path(self.path))


class StreamCache:
    """Parquet datasets of streams under ``root``, one per content key."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._held: dict[str, locks.Held] = {}  # entries in use: a shared lock each

    def close(self) -> None:
        """Let go of the entries this cache used (they may be pruned now)."""
        held, self._held = self._held, {}
        for lock in held.values():
            lock.release()

    def key(self, stream: Stream) -> str | None:
        """The entry's name for ``stream``; None if only its content can tell."""
        if stream.fingerprint is None:
            return None
        source = [FORMAT, stream.iri, _code_digest(), stream.fingerprint()]
        return _sha256(json.dumps(source))

    def lookup(self, stream: Stream) -> ParquetStream | None:
        """The stream's dataset if it is cached and keyed by its source;
        None if it is not there or only its content can tell."""
        key = self.key(stream)
        return None if key is None else self._lookup(key)

    def materialise(self, spark: Any, stream: Stream) -> ParquetStream:
        """The stream's dataset: found in the cache, or written and published.

        ``spark`` is not used (pyarrow writes the dataset; None is fine); it is
        kept so that callers written for format 1 keep working."""
        key = self.key(stream)
        if key is not None and (hit := self._lookup(key)) is not None:
            return hit
        clean_leftovers(self.root)
        with _scratch(self.root) as scratch:
            content = hashlib.sha256() if key is None else None
            _write_dataset(stream, scratch / "data", content)
            if content is not None:
                key = _sha256(json.dumps([FORMAT, stream.iri, content.hexdigest()]))
                if (hit := self._lookup(key)) is not None:
                    return hit
            assert key is not None
            return self._publish(key, scratch / "data")

    def _hold(self, key: str) -> bool:
        """Hold the entry's shared lock (kept until :meth:`close`); False if
        it was removed meanwhile."""
        if key not in self._held:
            held = locks.hold(self.root / key)
            if held is None:
                return False
            self._held[key] = held
        return True

    def _publish(self, key: str, data: Path) -> ParquetStream:
        entry = self.root / key
        locks.create(data)
        for _ in range(2):
            if _publish(data, entry):
                self._hold(key)
                return _loaded(entry)
            # Taken: another process published the same content first, or a
            # damaged entry was there (_lookup discards it; try once more).
            if (hit := self._lookup(key)) is not None:
                return hit
        raise OracleError(
            f"cannot publish cache entry {entry}.\n"
            "HINT: delete it; the stream is written again on the next run."
        )

    def _lookup(self, key: str) -> ParquetStream | None:
        entry = self.root / key
        if not entry.is_dir() or not self._hold(key):
            return None
        try:
            meta = _meta(entry)
            found = _loaded(entry, meta)
            damage = _damage(entry, meta)
        except (OSError, ValueError, KeyError, TypeError):
            # Published entries are complete, and none is removed while held:
            # this one was altered by hand.
            self._held.pop(key).release()
            _discard(entry)
            return None
        if damage:
            self._held.pop(key).release()
            _discard(entry)
            warnings.warn(
                CacheRepairWarning(
                    f"stream cache entry {entry} ({found.iri}) was damaged: {damage}; "
                    "it was discarded and the stream is written again"
                ),
                stacklevel=3,
            )
            return None
        # Its last use, for pruning (housekeeping); a read-only cache stays as it is.
        with contextlib.suppress(OSError):
            os.utime(entry)
        return found


def write_parquet(stream: Stream, target: Path) -> ParquetStream:
    """Write ``stream`` to the new Parquet dataset ``target``, atomically.

    ``target`` must not exist (or be an empty folder). Raises StreamError
    for bad events and when ``target`` is taken.
    """
    target = Path(target).resolve()
    with _scratch(target.parent) as scratch:
        data = scratch / "data"
        _write_dataset(stream, data, None)
        if not _publish(data, target):
            raise StreamError(
                f"{target} already exists and is not empty.\n"
                "HINT: remove it or choose another output folder."
            )
    return _loaded(target)


def default_cache_dir(pytest_cache: Any = None) -> Path:
    """``rspbench-streams`` in pytest's cache, else the user's cache folder.

    Without pytest's cache plugin: ``$XDG_CACHE_HOME`` or ``~/.cache``, then
    ``pytest-rspbench/streams``.
    """
    if pytest_cache is not None:
        return Path(pytest_cache.mkdir("rspbench-streams"))
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-rspbench" / "streams"


def stream_cache(
    master: str, chosen: Path | str | None, pytest_cache: Any = None
) -> StreamCache | None:
    """The cache the oracle uses; None means streams stay in memory as before.

    ``chosen`` is the configured folder (``none`` turns the cache off). With
    none configured, the default folder is used when Spark reads this
    machine's files (local mode, or a cluster or Connect server on loopback);
    anywhere else a folder must be configured that Spark sees at the same path.
    """
    from pytest_rspbench.oracle.spark import reads_local_files

    if chosen is not None and str(chosen).lower() == "none":
        return None
    if chosen:
        return StreamCache(Path(chosen).expanduser().resolve())
    if not reads_local_files(master):
        return None
    return StreamCache(default_cache_dir(pytest_cache))


def clean_leftovers(root: Path) -> None:
    """Remove ``.tmp-*`` folders of this host whose process has ended and
    that nobody holds (a scratch folder being written, a damaged entry
    discarded under a session that still reads it)."""
    import psutil

    host = _host()
    for path in root.glob(".tmp-*"):
        match = _TMP.fullmatch(path.name)
        if match is None or match["host"] != host:
            continue
        if not psutil.pid_exists(int(match["pid"])):
            remove_unheld(path)


def remove_unheld(folder: Path) -> bool:
    """Remove ``folder`` unless someone holds a lock on it (True if removed).

    The lock is the folder's own (an entry moved aside keeps it) or, for a
    scratch folder, that of the entry being written in it (``data/``).
    """
    held = [locks.exclusive(f) for f in (folder, folder / "data")]
    try:
        if any(h is None for h in held):
            return False
        shutil.rmtree(folder, ignore_errors=True)
        return True
    finally:
        for h in held:
            if h is not None:
                h.release()


def spark_path(path: Path) -> str:
    """``path`` for Spark's readers, which take ``[]{}*?`` as a glob."""
    return _GLOB.sub(r"\\\1", str(path))


def encode_rows(time: int, triples: Any) -> str:
    r"""The JSON lines of one event's triples (``rspbench stream generate
    --format jsonl`` and the stream files of an item's artifacts use the same).

    >>> encode_rows(5, [('<http://s>', '<http://p>', '"a\tb"')])
    '{"s":"<http://s>","p":"<http://p>","o":"\\"a\\tb\\"","t":5}\n'
    """
    tail = f',"t":{int(time)}}}\n'
    enc = encode_basestring
    rows = (f'{{"s":{enc(s)},"p":{enc(p)},"o":{enc(o)}{tail}' for s, p, o in triples)
    return "".join(rows)


BATCH_ROWS = 1 << 17
"""Rows read from the stream before they are written."""

ROW_GROUP_ROWS = 1 << 13
"""Rows per Parquet row group. Each batch is written sorted by predicate (in
time order within one), so a row group holds one predicate or a few, and a
scan for one predicate (every triple pattern with a constant predicate)
skips the others' row groups by their statistics: on YABench's streams, a
pattern reads about a fifth of the stream instead of all of it. Small
groups also let Spark split a stream of a few MB across every core."""


def _write_dataset(stream: Stream, data: Path, content: Any) -> dict[str, Any]:
    """Write the stream to the Parquet file ``data/part-00000.parquet`` and
    its metadata beside it; return the metadata.

    Columns are built in Arrow batches and written by pyarrow, with no Spark
    job. ``content``, a hashlib object or None, is fed the rows' bytes (each
    column's Arrow offsets and data, batch by batch: an exact picture of the
    terms and times). The metadata's ``content`` is the SHA-256 of the same:
    what the stream holds, whatever code or source produced it. ``distinct``
    is True when no triple occurs twice: each triple's hash is kept (8 bytes
    a triple) and counted once; equal hashes of unequal triples (a 64-bit
    collision) only make it False, which costs the oracle a de-duplication,
    never a wrong answer.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from pytest_rspbench.oracle.sparql.datatypes import Collector

    schema = pa.schema(
        [("stream", pa.string()), ("s", pa.string()), ("p", pa.string()),
         ("o", pa.string()), ("t", pa.int64()), ("e", pa.int64()), ("q", pa.int64())]
    )  # fmt: skip
    times: list[int] = []
    sizes: list[int] = []
    per_time: list[int] = []  # events at each of times
    event_sizes: list[int] = []
    ordinals: list[int] = []  # each row's event ordinal (its triple's is its row number)
    rows = hashlib.sha256()
    datatypes = Collector()
    hashes: list[Any] = []
    columns: tuple[list[str], list[str], list[str], list[int]] = ([], [], [], [])
    events: list[tuple[int, int]] = []  # (time, first row) of the batch's events
    count = 0
    data.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(data / "part-00000.parquet", schema, compression="snappy") as out:

        def flush() -> None:
            subjects, predicates, objects, stamps = columns
            batch = [_arrow_terms(stream, pa, column, events) for column in columns[:3]]
            batch.append(pa.array(stamps, pa.int64()))
            for array in batch:
                for buffer in array.buffers()[1:]:
                    rows.update(buffer)
                    if content is not None:
                        content.update(buffer)
            # The ordinals follow from the rows' order, which the digest
            # above already holds: they are not part of the content.
            first = count - len(stamps) + 1
            places = [pa.array(ordinals, pa.int64()), pa.arange(first, count + 1)]
            stream_column = pa.repeat(stream.iri, len(stamps)).cast(pa.string())
            table = pa.Table.from_batches(
                [pa.record_batch([stream_column, *batch, *places], schema=schema)]
            )
            order = pc.sort_indices(table, sort_keys=[("p", "ascending")])  # a stable sort
            out.write_table(table.take(order), row_group_size=ROW_GROUP_ROWS)
            hashes.append(
                pa.array(map(hash, zip(subjects, predicates, objects, strict=True)), pa.int64())
            )
            for column in columns:
                column.clear()
            events.clear()
            ordinals.clear()

        for event in stream.events():
            triples = event.triples
            events.append((event.time, len(columns[3])))
            for s, p, o in triples:
                columns[0].append(s)
                columns[1].append(p)
                columns[2].append(o)
            columns[3].extend([event.time] * len(triples))
            event_sizes.append(len(triples))
            ordinals.extend([len(event_sizes)] * len(triples))
            datatypes.add(triples)
            if not times or times[-1] != event.time:
                times.append(event.time)
                sizes.append(0)
                per_time.append(0)
            sizes[-1] += len(triples)
            per_time[-1] += 1
            count += len(triples)
            if len(columns[3]) >= BATCH_ROWS:
                flush()
        if columns[3] or not count:
            flush()
    distinct = not count or pc.count_distinct(pa.chunked_array(hashes, pa.int64())).as_py() == count
    meta = {
        "format": FORMAT,
        "iri": stream.iri,
        "source": stream.describe,
        "triples": count,
        "times": times,
        "sizes": sizes,
        "events": per_time,
        "event_sizes": event_sizes,
        "content": rows.hexdigest(),
        "datatypes": datatypes.result(),
        "distinct": distinct,
        "files": _files(data),
    }
    (data / META).write_text(json.dumps(meta), encoding="utf-8")
    return meta


def _arrow_terms(stream: Stream, pa: Any, terms: list[str], events: list[tuple[int, int]]) -> Any:
    """One column of terms as an Arrow array; a term that is not valid
    Unicode (a lone surrogate) is a StreamError naming its event."""
    try:
        return pa.array(terms, pa.string())
    except (UnicodeEncodeError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        failure = exc  # find the term and its event below
    for row, term in enumerate(terms):
        try:
            term.encode("utf-8")
        except UnicodeEncodeError as exc:
            time = next(t for t, first in reversed(events) if first <= row)
            raise StreamError(
                f"{stream.describe}: a term of the event at t={time} ms is not valid "
                f"Unicode ({exc.reason}: {exc.object[exc.start : exc.end]!r}).\n"
                "HINT: N-Triples terms are Unicode text; fix the source."
            ) from None
    raise StreamError(f"{stream.describe}: its terms cannot be written to Parquet: {failure}")


def _publish(data: Path, target: Path) -> bool:
    """Rename ``data`` to ``target``; False if ``target`` is already taken."""
    try:
        os.rename(data, target)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
            return False
        raise
    return True


def _meta(entry: Path) -> dict[str, Any]:
    meta = json.loads((entry / META).read_text(encoding="utf-8"))
    if meta["format"] != FORMAT:
        raise ValueError(f"format {meta['format']}")
    return meta


def _loaded(entry: Path, meta: dict[str, Any] | None = None) -> ParquetStream:
    meta = _meta(entry) if meta is None else meta
    return ParquetStream(
        meta["iri"], entry, meta["triples"], tuple(meta["times"]),
        meta.get("content") or entry.name, meta.get("datatypes"),
        bool(meta.get("distinct", False)),
        tuple(meta["sizes"]) if "sizes" in meta else None,
        tuple(meta["events"]) if "events" in meta else None,
        tuple(meta["event_sizes"]) if "event_sizes" in meta else None,
    )  # fmt: skip


def _files(data: Path) -> dict[str, list[Any]]:
    """Size and SHA-256 of every file in ``data`` but the metadata."""
    return {
        path.name: [path.stat().st_size, _file_sha256(path)]
        for path in sorted(data.iterdir())
        if path.is_file() and path.name != META
    }


def _damage(entry: Path, meta: dict[str, Any]) -> str:
    """What is wrong with the entry's files ("" if nothing)."""
    present = {
        p.name: p for p in entry.iterdir() if p.is_file() and p.name not in (META, locks.LOCK)
    }
    recorded = meta.get("files")
    if recorded is None:  # written before digests were kept
        parquet = [p for name, p in present.items() if name.endswith(".parquet")]
        return next((f"{p.name} is cut or overwritten" for p in parquet if not _framed(p)), "")
    if set(recorded) != set(present):
        changed = sorted(set(recorded) ^ set(present))
        return f"files missing or added: {', '.join(changed)}"
    stats = {name: present[name].stat() for name in sorted(recorded)}
    for name, (size, _) in recorded.items():
        if stats[name].st_size != size:
            return f"{name} has {stats[name].st_size} bytes, {size} were written"
    seen = (str(entry), tuple((n, s.st_size, s.st_mtime_ns) for n, s in stats.items()))
    if seen not in _VERIFIED:
        for name, (_, digest) in recorded.items():
            if _file_sha256(present[name]) != digest:
                return f"{name} does not hold the bytes that were written"
        _VERIFIED.add(seen)
    return ""


def _framed(path: Path) -> bool:
    """Does the file start and end with Parquet's magic bytes?"""
    with path.open("rb") as f:
        head = f.read(4)
        if f.seek(0, os.SEEK_END) < 8:
            return False
        f.seek(-4, os.SEEK_END)
        return head == b"PAR1" and f.read(4) == b"PAR1"


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _discard(entry: Path) -> None:
    """Move a damaged entry out of the way atomically, then delete it unless
    another session still holds it (a later clean removes it then)."""
    aside = entry.with_name(_scratch_name())
    with contextlib.suppress(OSError):  # another process moved it first
        os.rename(entry, aside)
        remove_unheld(aside)


@contextlib.contextmanager
def _scratch(root: Path) -> Iterator[Path]:
    """A fresh ``.tmp-*`` folder in ``root`` (same file system: rename is atomic)."""
    path = root / _scratch_name()
    try:
        path.mkdir(parents=True)
        writing = locks.exclusive(path)  # a cleaner in another pid namespace waits
    except OSError as exc:
        raise OracleError(
            f"cannot write in {root}: {exc.strerror or exc}.\n"
            "HINT: choose a writable folder; for the oracle's stream cache set "
            f"--rspbench-cache-dir or {ENV} (none: no cache)."
        ) from None
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if writing is not None:
            writing.release()


def _scratch_name() -> str:
    return f".tmp-{os.getpid()}-{secrets.token_hex(4)}-{_host()}"


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """Digest of the code that makes events: a fixed generator bug is a new key."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[2]
    stream = package / "stream"
    for path in [*sorted(stream.glob("*.py")), package / "rsp" / "terms.py"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    try:
        digest.update(version("pyoxigraph").encode())  # it parses the files
    except PackageNotFoundError:
        pass
    return digest.hexdigest()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
