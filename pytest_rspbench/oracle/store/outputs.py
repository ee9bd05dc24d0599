"""Expected outputs kept on disk, keyed by everything that determines them.

The oracle's answer depends only on its inputs: the streams (by content),
their starts and ends, the static triples, the query text, the engine
profile's semantics and the code that computes it. When the same case is
assessed again (another engine over the same suite, a re-run after an
engine fix, the mutation table's nine engines) the stored answer is read
back instead of starting a Spark job.

Entries live next to the streams in the stream cache folder
(``<cache>/expected/<key>.arrow``: Arrow IPC, one row per solution; JSON for
the narrowings), written atomically, so parallel
sessions can share the folder. The key includes a digest of every module
the oracle imports (directly or not) and the versions of the libraries that
take part (pyspark, pyoxigraph, rdflib), so a fixed oracle bug never serves a
stale answer.
A damaged entry is discarded and computed again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pytest_rspbench.oracle.store.columns import ColumnBindings, SolutionTable
from pytest_rspbench.rsp.outputs import ExpectedOutput, ExpectedRelation, T0Class
from pytest_rspbench.rsp.semantics import Semantics

FORMAT = 2  # bump when the stored layout changes
ARROW = ".arrow"
T = TypeVar("T")
FOLDER = "expected"


def key(
    query_text: str,
    semantics: Semantics,
    streams: Sequence[tuple[str, str, int | None, int]],
    static: Iterable[tuple[str, str, str]],
    force_fallback: bool,
    classes: Sequence[Sequence[int]] | None = None,
) -> str:
    """The entry name for one oracle computation.

    ``streams`` holds, per stream, its IRI, the SHA-256 of its rows (what it
    holds, whichever code or source produced it), its declared end and its
    registration start. ``classes``: when only some t0 classes are
    computed (narrowed), the t0 of each.
    """
    static_digest = hashlib.sha256()
    for triple in sorted(static):
        static_digest.update("\t".join(triple).encode("utf-8") + b"\n")
    source = [
        FORMAT,
        code_digest(),
        query_text,
        sorted(_plain(dataclasses.asdict(semantics)).items()),
        sorted(streams),
        static_digest.hexdigest(),
        force_fallback,
    ]
    if classes is not None:
        source.append([list(c) for c in classes])
    return hashlib.sha256(json.dumps(source).encode("utf-8")).hexdigest()


def load(root: Path, name: str) -> ExpectedOutput | None:
    """The stored output under ``name``, or None (a damaged entry is removed)."""
    import pyarrow as pa

    path = _path(root, name, ARROW)
    try:
        with pa.OSFile(str(path), "rb") as source:
            table = pa.ipc.open_file(source).read_all()
        found = _from_table(table)
    except FileNotFoundError:
        # Written as JSON: an output whose text Arrow would not take.
        return load_data(root, name, decode)
    except (OSError, ValueError, KeyError, TypeError, IndexError, pa.ArrowException):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return None
    _used(path)
    return found


def save(root: Path, name: str, expected: ExpectedOutput) -> None:
    """Store ``expected`` under ``name``; a failure to write is not an error.

    As an Arrow IPC file: one row per solution, one dictionary-encoded
    column per variable, everything else in the schema's metadata. For a
    self-join's 3 million solutions that took 10-11 s as gzipped JSON and
    takes 4-5 s this way (13 MB against 20 MB); reading it back, 5 s
    against 8 s. An output
    with text Arrow will not take (not valid Unicode) is written as JSON.
    """
    import pyarrow as pa

    try:
        table = _to_table(expected)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeEncodeError):
        save_data(root, name, encode(expected))
        return
    path = _path(root, name, ARROW)
    scratch = path.with_name(f".tmp-{os.getpid()}-{secrets.token_hex(4)}{ARROW}")
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with (
            pa.OSFile(str(scratch), "wb") as sink,
            pa.ipc.new_file(sink, table.schema, options=options) as writer,
        ):
            writer.write_table(table)
        os.replace(scratch, path)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink(missing_ok=True)


def _to_table(expected: ExpectedOutput) -> Any:
    """``expected`` as an Arrow table (see :func:`save`)."""
    head = encode(dataclasses.replace(expected, classes=()))
    head["classes"] = [
        {
            "first": c.first,
            "last": c.last,
            "relations": [
                [r.index, r.time, list(r.window), r.triples, len(r.bindings)] for r in c.relations
            ],
        }
        for c in expected.classes
    ]
    table = _kept_columns(expected)
    if table is None:
        table = _built_columns(expected)
    return table.replace_schema_metadata({"rspbench": json.dumps(head)})


def _kept_columns(expected: ExpectedOutput) -> Any:
    """The solutions' own columns, when every non-empty relation holds the
    compiled plan's (:class:`.columns.ColumnBindings` of the same
    variables): written as they are, no mapping made (None otherwise)."""
    import pyarrow as pa

    bags = [r.bindings for c in expected.classes for r in c.relations if len(r.bindings)]
    if not bags or not all(isinstance(b, ColumnBindings) for b in bags):
        return None
    sources = {id(b.source): b.source for b in bags}  # type: ignore[attr-defined]
    if len(sources) == 1:  # one job's or one stored output's: one dictionary each
        return next(iter(sources.values())).sliced(bags)
    if len({s.names for s in sources.values()}) != 1:
        return None
    tables = [b.table() for b in bags]  # type: ignore[attr-defined]
    return pa.concat_tables(tables).unify_dictionaries()


def _built_columns(expected: ExpectedOutput) -> Any:
    """One dictionary-encoded column per variable, from the mappings."""
    from operator import methodcaller

    import pyarrow as pa

    names: set[str] = set()
    for c in expected.classes:
        for r in c.relations:
            for b in r.bindings:
                names.update(b)
    columns = {}
    for n in sorted(names):
        get = methodcaller("get", n)
        values = [v for c in expected.classes for r in c.relations for v in map(get, r.bindings)]
        columns[n] = pa.array(values, pa.string()).dictionary_encode()
    rows = sum(len(r.bindings) for c in expected.classes for r in c.relations)
    return pa.table(columns) if columns else pa.table({"_": pa.nulls(rows, pa.null())})


def _from_table(table: Any) -> ExpectedOutput:
    """The :class:`ExpectedOutput` that :func:`_to_table` made, marked as
    stored; its solutions stay columns until read (:mod:`.columns`)."""
    head = json.loads(table.schema.metadata[b"rspbench"])
    names = [n for n in table.column_names if n != "_"]
    source = SolutionTable.of(table.select(names)) if names else None
    at = 0
    classes = []
    for c in head["classes"]:
        relations = []
        for index, time, window, triples, count in c["relations"]:
            count = int(count)
            if count < 0 or at + count > table.num_rows:
                raise ValueError("fewer rows than the relations hold")
            rows = source.bag(at, at + count) if source else tuple({} for _ in range(count))
            at += count
            relations.append(
                ExpectedRelation(
                    int(index), int(time), (int(window[0]), int(window[1])), rows, int(triples)
                )
            )
        classes.append(T0Class(int(c["first"]), int(c["last"]), tuple(relations)))
    if at != table.num_rows:
        raise ValueError("more rows than the relations hold")
    return dataclasses.replace(decode({**head, "classes": []}), classes=tuple(classes))


def load_data(root: Path, name: str, read: Callable[[Any], T]) -> T | None:
    """``read`` of the JSON stored under ``name``, or None (a damaged entry,
    one ``read`` cannot take, is removed)."""
    path = _path(root, name)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            found = read(json.load(stream))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return None
    _used(path)
    return found


def _used(path: Path) -> None:
    """Mark an entry read now: its last use, for pruning (housekeeping)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def save_data(root: Path, name: str, data: Any, depth: int = 4) -> None:
    """Store JSON ``data`` under ``name``; a failure to write is not an error.

    ``depth``: how many levels of lists and dicts are written item by item
    (what lies below, whole); each item whole must fit in memory twice.
    """
    path = _path(root, name)
    scratch = path.with_name(f".tmp-{os.getpid()}-{secrets.token_hex(4)}.json.gz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Light compression, written in pieces of about a megabyte:
        # json.dump's own small pieces took seconds for 68k solutions, and
        # one text of the whole output doubled the memory it held (1.3 GB
        # of text for 5.6M solutions).
        with gzip.open(scratch, "wb", compresslevel=1) as stream:
            for piece in _pieces(_texts(data, depth), 1 << 20):
                stream.write(piece.encode("utf-8"))
        os.replace(scratch, path)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink(missing_ok=True)


def _pieces(parts: Iterable[str], size: int) -> Iterator[str]:
    """``parts`` joined into texts of at least ``size`` characters (the
    last one shorter).

    >>> list(_pieces(["ab", "c", "de", "f"], 3))
    ['abc', 'def']
    >>> list(_pieces(["ab", "c", "d"], 3))
    ['abc', 'd']
    """
    held: list[str] = []
    length = 0
    for part in parts:
        held.append(part)
        length += len(part)
        if length >= size:
            yield "".join(held)
            held, length = [], 0
    if held:
        yield "".join(held)


def _texts(value: Any, depth: int) -> Iterator[str]:
    """The compact JSON text of ``value`` in parts: lists and dicts (of text
    keys) down to ``depth`` levels are taken apart, what lies below is
    written whole by the C encoder (``json.JSONEncoder.iterencode`` is pure
    Python, several times slower).

    >>> data = {"a": [1, {"b": [2, 3]}], "c": None}
    >>> "".join(_texts(data, 2)) == json.dumps(data, separators=(",", ":"))
    True
    """
    if depth and isinstance(value, dict) and all(isinstance(k, str) for k in value):
        yield "{"
        for n, (key, item) in enumerate(value.items()):
            yield ("," if n else "") + json.dumps(key) + ":"
            yield from _texts(item, depth - 1)
        yield "}"
    elif depth and isinstance(value, (list, tuple)):
        yield "["
        for n, item in enumerate(value):
            if n:
                yield ","
            yield from _texts(item, depth - 1)
        yield "]"
    else:
        yield json.dumps(value, separators=(",", ":"))


def as_dict(binding: Mapping[str, str]) -> Mapping[str, str]:
    """``binding`` as JSON can write it: itself when it is a dict (no copy)."""
    return binding if type(binding) is dict else dict(binding)


def encode(expected: ExpectedOutput) -> dict[str, Any]:
    """A JSON-ready form of ``expected`` (lossless; see :func:`decode`)."""
    return {
        "classes": [
            {
                "first": c.first,
                "last": c.last,
                "relations": [
                    [r.index, r.time, list(r.window), [as_dict(b) for b in r.bindings], r.triples]
                    for r in c.relations
                ],
            }
            for c in expected.classes
        ],
        "stable_from": expected.stable_from,
        "evaluator": expected.evaluator,
        "fallback_reason": expected.fallback_reason,
        "seconds": expected.seconds,
        "t0_classes": expected.t0_classes,
        "narrowing": expected.narrowing,
    }


def decode(data: Mapping[str, Any]) -> ExpectedOutput:
    """The :class:`ExpectedOutput` that :func:`encode` wrote, marked as stored."""
    classes = tuple(
        T0Class(
            int(c["first"]),
            int(c["last"]),
            tuple(
                ExpectedRelation(
                    int(index),
                    int(time),
                    (int(window[0]), int(window[1])),
                    tuple(dict(b) for b in bindings),
                    int(triples),
                )
                for index, time, window, bindings, triples in c["relations"]
            ),
        )
        for c in data["classes"]
    )
    return ExpectedOutput(
        classes,
        int(data["stable_from"]),
        str(data["evaluator"]),
        str(data["fallback_reason"]),
        float(data["seconds"]),
        stored=True,
        t0_classes=int(data.get("t0_classes", 0)),
        narrowing=str(data.get("narrowing", "")),
    )


def code_digest() -> str:
    """Digest of the code the oracle runs and the versions of its libraries.

    The modules are those :mod:`pytest_rspbench.oracle.oracle` imports,
    directly or not (found by reading their imports, so a new dependency is
    covered without a list to maintain), plus the Spark session settings.
    Editing a report or the plugin does not throw the stored outputs away.

    Computed once, under a lock: background oracle threads ask for it at
    the same time.
    """
    with _DIGEST_LOCK:
        return _code_digest()


_DIGEST_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _code_digest() -> str:
    from importlib.metadata import PackageNotFoundError, version

    package = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in oracle_modules(package):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    for library in ("pyspark", "pyoxigraph", "rdflib"):
        try:
            digest.update(f"{library}={version(library)}".encode())
        except PackageNotFoundError:
            pass
    return digest.hexdigest()


def oracle_modules(package: Path) -> list[Path]:
    """The package's modules the oracle's code imports, transitively, sorted."""
    start = [package / "oracle" / "oracle.py", package / "oracle" / "spark" / "__init__.py"]
    seen: set[Path] = set()
    todo = [p for p in start if p.is_file()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path, package.name):
            todo.extend(_module_files(package, name))
    return sorted(seen)


def _imports(path: Path, top: str) -> set[str]:
    """Dotted names of ``top``'s modules that ``path`` imports, anywhere in it.

    Read with a regular expression, not ``ast``: parsing the oracle's modules
    took 0.43 s of every fresh process's start. A match inside a string only
    adds a module to the digest (a stored output is recomputed once more
    often than needed, never reused wrongly).
    """
    import re

    names: set[str] = set()
    text = path.read_text(encoding="utf-8")
    dotted = rf"({top}(?:\.\w+)*)"
    pattern = (
        rf"^[ \t]*(?:import[ \t]+{dotted}"
        rf"|from[ \t]+{dotted}[ \t]+import[ \t]+(\([^)]*\)|[^\n]*))"
    )
    for imported, module, listed in re.findall(pattern, text, re.MULTILINE):
        if imported:
            names.add(imported)
            continue
        names.add(module)
        for item in re.sub(r"#[^\n]*", "", listed).strip("()").split(","):
            if item.split():
                names.add(f"{module}.{item.split()[0]}")
    return names


def _module_files(package: Path, dotted: str) -> list[Path]:
    """The file of a dotted module name under ``package`` and the
    ``__init__.py`` of the packages it is in (none if it is not a module)."""
    parts = dotted.split(".")[1:]
    base = package.joinpath(*parts) if parts else package
    found = [p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]
    for depth in range(len(parts)):
        init = package.joinpath(*parts[:depth], "__init__.py")
        if found and init.is_file():
            found.append(init)
    return found


def kept(root: Path, name: str) -> bool:
    """Is an entry stored under ``name`` (read or not, it may be damaged)?"""
    return any(_path(root, name, suffix).is_file() for suffix in (ARROW, ".json.gz"))


def kept_under(root: Path, prefix: str) -> bool:
    """Is any entry stored under a name that starts with ``prefix`` (hex)?"""
    return next((Path(root) / FOLDER).glob(f"{prefix}*"), None) is not None


def _path(root: Path, name: str, suffix: str = ".json.gz") -> Path:
    return Path(root) / FOLDER / f"{name}{suffix}"


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
