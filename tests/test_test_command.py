"""The README's test command prints the pass count a newcomer reads."""
import os
import re
import subprocess
import sys

import pytest

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def test_readme_test_command_prints_the_pass_count(tmp_path):
    readme = open(os.path.join(ROOT, "README.md")).read()
    command = re.search(r"python3 -m pip install -e '\.\[test\]' && python3 -m (pytest[^\n]*)",
                        readme)
    assert command, "README lost its test command"
    args = command.group(1).split()[1:]
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    # the project's own pytest configuration (pyproject.toml), as the command runs with it
    run = subprocess.run([sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider",
                          "-c", os.path.join(ROOT, "pyproject.toml"), "--rootdir", str(tmp_path),
                          str(tmp_path / "test_one.py")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"^1 passed in ", run.stdout, re.M), run.stdout
