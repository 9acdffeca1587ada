"""Fixtures of the probe suite."""
import pytest

from probe_cli import TINY


@pytest.fixture
def tiny_recipe(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path
