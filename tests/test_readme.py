"""The README's example runs as written and does what it says."""
import os
import re

import numpy as np

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")


def test_readme_example_runs_and_exports(tmp_path, monkeypatch):
    text = open(README).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    example = next(b for b in blocks if "hybridize" in b)
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(compile(example, "README.md", "exec"), scope)
    assert scope["out"].shape == (100, 8, 64)
    assert np.abs(scope["cell"].i2h_weight.grad().asnumpy()).sum() > 0
    assert (tmp_path / "foreach_rnn-symbol.json").exists()
    assert (tmp_path / "foreach_rnn-0000.params").exists()
