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


def test_readme_and_docs_links_work_from_a_clone():
    """Every relative link in README.md and docs/ names a file inside the project, and no
    text points at a folder beside the project (a clone has only the project)."""
    root = os.path.normpath(os.path.dirname(README))
    for name in ["README.md"] + [os.path.join("docs", f) for f in os.listdir(
            os.path.join(root, "docs")) if f.endswith(".md")]:
        text = open(os.path.join(root, name), encoding="utf-8").read()
        # `../X/` is fine where X is a folder of the project (a recipe's `../configs/`)
        outside = [d for d in re.findall(r"(?<![\w.])\.\./([\w.-]+)/", text)
                   if not os.path.isdir(os.path.join(root, d))]
        assert not outside, f"{name} points at folders beside the project: {outside}"
        for target in re.findall(r"\]\(([^)#:]+)\)", text):
            path = os.path.normpath(os.path.join(root, os.path.dirname(name), target))
            assert path.startswith(root + os.sep) and os.path.exists(path), \
                f"{name} links {target}, which is not in the project"
