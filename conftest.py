"""Root conftest: plugins the project's own tests use."""

pytest_plugins = ["pytester"]
