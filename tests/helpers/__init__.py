"""Builders shared by the project's tests, imported by absolute name.

``pyproject.toml`` puts ``tests/`` on ``sys.path`` (``pythonpath``), so every
test imports ``from helpers.verdict import rel`` whatever folder it lives in
and whichever folders run together. Fixtures stay in ``conftest.py`` files;
plain functions and constants live here, one module per subject:

- ``helpers.verdict``: relations, results, classes and cases for verdict tests
- ``helpers.reference``: queries and runs of the bundled reference engine
- ``helpers.project``: the tiny stream and ``engine.yaml`` of pytester projects
- ``helpers.dense_stream``: a stream with a reading every 3 ms (t0 narrowing)
- ``helpers.outline``: a report's structure as text; golden files
"""
