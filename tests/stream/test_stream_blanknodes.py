"""Anonymous blank nodes read the same on every read.

pyoxigraph gives ``[]`` in a Turtle stream file a fresh random label on each
parse; the engine's replay and the oracle read the stream separately, so they
would see different terms and a correct engine would fail. Labels come from the
file's bytes, the event time and the parser's order; labels the author wrote
stay as written.
"""

from __future__ import annotations

import re
from pathlib import Path

from pytest_rspbench.stream.files import read_rdf_file
from pytest_rspbench.stream.sources import open_source
from pytest_rspbench.stream.trig import read_trig_events

TURTLE = """\
@prefix : <http://ex/> .
:s :p [] .
:s :q [ :r 1 ; :t [ :u 2 ] ] .
:s :list ( 1 2 ) .
_:mine :p :o .
_:0123456789abcdef0123456789abcdef :p :o .
"""
ANONYMOUS = re.compile(r"_:a[0-9a-f]{12}(t-?\d+)?n\d+")


def blank_terms(triples: tuple[tuple[str, str, str], ...]) -> list[str]:
    return [t for triple in triples for t in (triple[0], triple[2]) if t.startswith("_:")]


def test_turtle_file_reads_the_same_terms_every_time(tmp_path: Path) -> None:
    path = tmp_path / "data_00.ttl"
    path.write_text(TURTLE, encoding="utf-8")
    first, second = read_rdf_file(path), read_rdf_file(path)
    assert first == second
    labels = set(blank_terms(first))
    anonymous = {t for t in labels if ANONYMOUS.fullmatch(t)}
    # [], [ :r 1 ; :t [...] ], the inner [ :u 2 ] and the two list cells
    assert len(anonymous) == 5
    # Labels the author wrote, even one shaped like a random label, are kept.
    assert labels - anonymous == {"_:mine", "_:0123456789abcdef0123456789abcdef"}


def test_files_stream_replay_and_oracle_reads_agree(tmp_path: Path) -> None:
    for number in (0, 1):  # two equal files: two events with their own nodes
        (tmp_path / f"data_{number:02}.ttl").write_text(TURTLE, encoding="utf-8")
    config = {"kind": "files", "path": "data_*.ttl", "interval": 1000}
    stream = open_source(config, tmp_path, "http://ex/s")
    replay, oracle = list(stream.events()), list(stream.events())
    assert replay == oracle
    at_0 = {t for t in blank_terms(replay[0].triples) if ANONYMOUS.fullmatch(t)}
    at_1000 = {t for t in blank_terms(replay[1].triples) if ANONYMOUS.fullmatch(t)}
    assert at_0 and at_1000 and not at_0 & at_1000


def test_labels_follow_the_content_not_the_path(tmp_path: Path) -> None:
    # The oracle's stream cache is keyed on the bytes: a copy elsewhere must
    # give the labels the cache holds.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "x.ttl").write_text(TURTLE, encoding="utf-8")
    assert read_rdf_file(tmp_path / "a" / "x.ttl") == read_rdf_file(tmp_path / "b" / "x.ttl")
    changed = tmp_path / "a" / "x.ttl"
    changed.write_text(TURTLE + ":s :p :o2 .\n", encoding="utf-8")
    assert (
        blank_terms(read_rdf_file(changed))[0]
        != blank_terms(read_rdf_file(tmp_path / "b" / "x.ttl"))[0]
    )


def test_trig_stream_reads_the_same_terms_every_time(tmp_path: Path) -> None:
    path = tmp_path / "s.trig"
    path.write_text(
        "@prefix : <http://ex/> .\n"
        "@prefix prov: <http://www.w3.org/ns/prov#> .\n"
        ":g1 { :s :p [ :q 1 ] . } :g1 prov:generatedAtTime 1000 .\n"
        ":g2 { [] :p :o . _:b :p :o . } :g2 prov:generatedAtTime 2000 .\n",
        encoding="utf-8",
    )
    first, second = list(read_trig_events(path)), list(read_trig_events(path))
    assert first == second
    terms = [t for e in first for t in blank_terms(e.triples)]
    assert "_:b" in terms
    assert len({t for t in terms if ANONYMOUS.fullmatch(t)}) == 2


def test_rdfxml_anonymous_nodes_are_stable(tmp_path: Path) -> None:
    path = tmp_path / "data_00.rdf"
    path.write_text(
        '<?xml version="1.0"?>\n<rdf:RDF '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex/">'
        '<rdf:Description rdf:nodeID="n1"><ex:p><rdf:Description><ex:q>1</ex:q>'
        "</rdf:Description></ex:p></rdf:Description></rdf:RDF>\n",
        encoding="utf-8",
    )
    first = read_rdf_file(path, "rdfxml")
    assert first == read_rdf_file(path, "rdfxml")
    assert "_:n1" in blank_terms(first)
