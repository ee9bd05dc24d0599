"""An engine that answers with a numeric literal its datatype does not admit.

``"sNaN"^^xsd:integer`` once failed its item with Python's ``ValueError:
cannot convert signaling NaN to float``; such a literal is compared as a
term, like any malformed literal, so the item gets a verdict whose window
table names the literal, its binding and its window.
"""

from __future__ import annotations

import pytest

from helpers.project import engine_yaml

XSD = "http://www.w3.org/2001/XMLSchema#"
FORMS = {
    "snan-integer": ("sNaN", "integer"),
    "nan-decimal": ("NaN", "decimal"),
    "infinity-decimal": ("-Infinity", "decimal"),
    "spaced-integer": (" 85", "integer"),
    "exponent-decimal": ("8.5e1", "decimal"),
    "signed-nan-double": ("-NaN", "double"),
}

ENGINES = '''
from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Result


def answering(lexical, datatype):
    """The reference engine, its first ?v of each relation replaced."""
    term = '"%s"^^<http://www.w3.org/2001/XMLSchema#%s>' % (lexical, datatype)

    class Malformed(ReferenceEngine):
        def open(self, registration, emit):
            def replaced(result):
                bindings = [dict(b) for b in result.bindings]
                if bindings:
                    bindings[0]["v"] = term
                emit(Result(tuple(bindings), result.time, result.window))
            super().open(registration, replaced)

    return Malformed

'''


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_every_malformed_numeric_literal_gets_a_verdict_naming_it(spec_project, pytester):
    classes = "".join(
        f"{name.replace('-', '_')} = answering({lex!r}, {dt!r})\n"
        for name, (lex, dt) in FORMS.items()
    )
    pytester.syspathinsert()
    pytester.makepyfile(malformed_engines=ENGINES + classes)
    for name in FORMS:
        adapter = f"malformed_engines:{name.replace('-', '_')}"
        pytester.makefile(".yaml", **{name: engine_yaml(name, adapter)})
    spec_project(engines=", ".join(f"{name}.yaml" for name in FORMS))
    result = pytester.runpytest("-rf")
    result.assert_outcomes(failed=len(FORMS))
    out = result.stdout.str()
    assert "ValueError" not in out and "Traceback" not in out
    for lex, datatype in FORMS.values():
        literal = f'"{lex}"^^<{XSD}{datatype}>'
        result.stdout.fnmatch_lines([f"*unexpected: {{?obs=<*>, ?v={literal}}}*"])
    result.stdout.fnmatch_lines(["*strict: FAIL*wrong solutions x*"])
