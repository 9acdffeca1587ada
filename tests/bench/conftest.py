"""Fixtures for the bench tests (helpers live in benchutil.py)."""
import textwrap

import pytest


@pytest.fixture
def write_recipe(tmp_path):
    """write_recipe(name, text) -> path of a dedented YAML file in tmp_path."""
    def write(name, text):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path
    return write
