"""Reports: terminal failure tables, pytest-html extras, artifacts."""
