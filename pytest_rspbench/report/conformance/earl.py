"""The conformance report as EARL 1.0 (W3C Evaluation and Report Language).

One ``earl:Assertion`` per case and engine::

    [] a earl:Assertion ;
       earl:assertedBy <.../tool/pytest-rspbench> ;   # an earl:Software, in DOAP
       earl:subject <.../engine/reference> ;          # the engine, in DOAP
       earl:test <.../suite/conformance/csrbench-q1#range=10000,step=10000> ;
       earl:mode earl:automatic ;
       earl:result [ a earl:TestResult ; earl:outcome earl:passed ;
                     dc:date "..."^^xsd:dateTime ; dc:description "strict: pass" ] .

EARL 1.0 has no outcome for an intended deviation: a declared known failure
(``known_failures:``) is ``earl:failed`` with ``rspbench:intendedDeviation
true`` and one ``rspbench:departure`` per departure class it shows. The
engine's declared profile hangs on the subject (``rspbench:declaredProfile``)
and what a spec pins on the result (``rspbench:pinnedProfile``), one
property per profile field. Built with rdflib; written as Turtle and JSON-LD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from pytest_rspbench import __version__
from pytest_rspbench.report.conformance.entries import EngineResults, Entry

EARL_NS = "http://www.w3.org/ns/earl#"
RSPBENCH_NS = "https://pytest-rspbench.dev/ns#"
BASE = "https://pytest-rspbench.dev/"
OUTCOME = {
    "passed": "passed",
    "failed": "failed",
    "known": "failed",
    "cantTell": "cantTell",
    "inapplicable": "inapplicable",
    "untested": "untested",
}
"""An entry's outcome as the EARL outcome value (``known``: ``failed``)."""
CONTEXT = {
    "earl": EARL_NS,
    "dc": "http://purl.org/dc/terms/",
    "doap": "http://usefulinc.com/ns/doap#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "rspbench": RSPBENCH_NS,
}


def graph(all_results: Sequence[EngineResults]) -> Any:
    """The rdflib ``Graph`` of every engine's assertions."""
    from rdflib import Graph

    g = Graph()
    for prefix, ns in CONTEXT.items():
        g.bind(prefix, ns, override=True, replace=True)
    tool = _tool(g)
    suite = suite_name(all_results)
    for results in all_results:
        subject = _subject(g, results)
        for entry in results.entries.values():
            _assertion(g, (tool, subject), entry, suite, results.created)
    return g


def suite_name(all_results: Sequence[EngineResults]) -> str:
    """The suite the cases are named in: the first results file's that
    names one (``conformance``), else ``specs``."""
    for results in all_results:
        for doc in results.docs:
            name = (doc.get("suite") or {}).get("name")
            if name:
                return str(name)
    return "specs"


def turtle(g: Any) -> str:
    return str(g.serialize(format="turtle"))


def jsonld(g: Any) -> str:
    return str(g.serialize(format="json-ld", context=CONTEXT, indent=1))


def case_iri(entry: Entry, suite: str) -> str:
    """The case's IRI: its spec's, then the matrix values as the fragment.

    >>> from pytest_rspbench.report.conformance.entries import Entry
    >>> case_iri(Entry("e", "q1[range=10]", "q1", "csrbench", "passed", ""), "conformance")
    'https://pytest-rspbench.dev/suite/conformance/q1#range=10'
    """
    spec = spec_iri(entry.spec, suite)
    inner = entry.case[len(entry.spec) :].strip("[]")
    return f"{spec}#{quote(inner, safe='=,.')}" if inner else f"{spec}#case"


def spec_iri(spec: str, suite: str) -> str:
    return f"{BASE}suite/{quote(suite)}/{quote(spec)}"


def _tool(g: Any) -> Any:
    from rdflib import RDF, Literal, Namespace, URIRef

    earl, doap = Namespace(EARL_NS), Namespace(CONTEXT["doap"])
    tool = URIRef(f"{BASE}tool/pytest-rspbench")
    for kind in (earl.Assertor, earl.Software, doap.Project):
        g.add((tool, RDF.type, kind))
    g.add((tool, doap.name, Literal("pytest-rspbench")))
    g.add(
        (
            tool,
            doap.description,
            Literal("Tests RDF Stream Processing engines against an exact oracle."),
        )
    )
    _release(g, tool, __version__)
    return tool


def _subject(g: Any, results: EngineResults) -> Any:
    from rdflib import RDF, Literal, Namespace, URIRef

    earl, doap = Namespace(EARL_NS), Namespace(CONTEXT["doap"])
    profile = results.profile
    subject = URIRef(f"{BASE}engine/{quote(results.engine)}")
    for kind in (earl.TestSubject, earl.Software, doap.Project):
        g.add((subject, RDF.type, kind))
    g.add((subject, doap.name, Literal(results.engine)))
    if profile.get("description"):
        g.add((subject, doap.description, Literal(profile["description"])))
    if profile.get("homepage"):
        g.add((subject, doap.homepage, URIRef(profile["homepage"])))
    if profile.get("version"):
        _release(g, subject, str(profile["version"]))
    if profile.get("declared"):
        rspbench = Namespace(RSPBENCH_NS)
        g.add((subject, rspbench.declaredProfile, _profile(g, profile["declared"])))
    return subject


def _release(g: Any, project: Any, version: str) -> None:
    from rdflib import RDF, BNode, Literal, Namespace

    doap = Namespace(CONTEXT["doap"])
    release = BNode()
    g.add((project, doap.release, release))
    g.add((release, RDF.type, doap.Version))
    g.add((release, doap.revision, Literal(version)))


def _profile(g: Any, fields: Mapping[str, Any]) -> Any:
    """A profile as a node: one ``rspbench:FIELD`` per field and value."""
    from rdflib import RDF, BNode, Literal, Namespace

    rspbench = Namespace(RSPBENCH_NS)
    node = BNode()
    g.add((node, RDF.type, rspbench.Profile))
    for name, value in sorted(fields.items()):
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                g.add((node, rspbench[name], Literal(one)))
    return node


def _assertion(g: Any, by: tuple[Any, Any], entry: Entry, suite: str, created: str | None) -> None:
    from rdflib import RDF, XSD, BNode, Literal, Namespace, URIRef

    earl, dc, rspbench = Namespace(EARL_NS), Namespace(CONTEXT["dc"]), Namespace(RSPBENCH_NS)
    tool, subject = by
    test = URIRef(case_iri(entry, suite))
    spec = URIRef(spec_iri(entry.spec, suite))
    g.add((test, RDF.type, earl.TestCase))
    g.add((test, dc.title, Literal(entry.case)))
    g.add((test, dc.isPartOf, spec))
    g.add((spec, RDF.type, earl.TestRequirement))
    g.add((spec, dc.title, Literal(entry.spec)))
    assertion, result = BNode(), BNode()
    g.add((assertion, RDF.type, earl.Assertion))
    g.add((assertion, earl.assertedBy, tool))
    g.add((assertion, earl.subject, subject))
    g.add((assertion, earl.test, test))
    g.add((assertion, earl.mode, earl.automatic))
    g.add((assertion, earl.result, result))
    g.add((result, RDF.type, earl.TestResult))
    g.add((result, earl.outcome, earl[OUTCOME[entry.outcome]]))
    if entry.description:
        g.add((result, dc.description, Literal(entry.description.splitlines()[0])))
    if created:
        g.add((result, dc.date, Literal(created, datatype=XSD.dateTime)))
    if entry.outcome == "known":
        g.add((result, rspbench.intendedDeviation, Literal(True)))
    for name in entry.departures:
        g.add((result, rspbench.departure, Literal(name)))
    pinned = (entry.record.get("profile") or {}).get("pinned") if entry.record else None
    if pinned:
        g.add((result, rspbench.pinnedProfile, _profile(g, pinned)))
