"""Root conftest of the pytest-rspbench repository.

The project's own tests use pytest's ``pytester`` plugin; it is enabled with
``-p pytester`` in ``addopts`` (pyproject.toml), not with ``pytest_plugins``
here: ``pytest --rspbench-suite conformance`` run from another project
collects this repository's ``specs/`` (in an editable install), and pytest
refuses ``pytest_plugins`` in a conftest above a foreign rootdir.
"""
