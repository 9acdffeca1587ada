"""Every `python` example of the documentation pages runs, as the docs build runs them
(`docs/_ext/examples.py`): a page's blocks in order, in one namespace, in a scratch folder."""
import os
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "docs", "_ext"))

import examples  # noqa: E402


def _pages():
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, "docs")):
        dirs[:] = [d for d in dirs if d not in ("_build", "api", "_ext")]
        found += [os.path.relpath(os.path.join(folder, f), ROOT) for f in sorted(files)
                  if f.endswith(".md")]
    return sorted(found)


def _runs_something(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        return any(examples.runnable(body) for _, body in examples.blocks(f.read()))


PAGES = [p for p in _pages() if _runs_something(p)]


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_examples_run(page):
    assert examples.run_page(os.path.join(ROOT, page)) > 0


def test_a_broken_example_is_reported_with_its_page_and_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n```python\nx = 1\n```\n\ntext\n\n```python\nx + undefined\n```\n"
                    "\n```python\n# not run: needs a GPU\nraise SystemExit\n```\n")
    assert [line for line, _ in examples.blocks(page.read_text())] == [4, 10, 14]
    with pytest.raises(examples.ExampleError, match=r"page.md, the example at line 10: "
                                                      r"NameError"):
        examples.run_page(str(page))


def test_the_examples_run_in_a_scratch_folder(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nopen('made-by-the-example.txt', 'w').write('x')\n```\n")
    before = os.getcwd()
    assert examples.run_page(str(page)) == 1
    assert os.getcwd() == before and not os.path.exists("made-by-the-example.txt")
