"""The documentation says only what is true: every path, module and name a page mentions
exists, every relative link points into the project, and the README's coverage table gives
the counts the API reference computes.

The pages are README.md, benchmarks/README.md and every Markdown page of docs/ (the
generated API reference and build output aside). CHANGES.md is history: it names files and
names that were removed, on purpose.
"""
import importlib
import os
import re
import subprocess
import sys

import pytest

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "docs", "_ext"))

import api_names  # noqa: E402
import api_pages  # noqa: E402

# names a page writes as the user types them, and the module each prefix stands for
PREFIXES = {"mx": "gluonlite", "gluonlite": "gluonlite", "nd": "gluonlite.ndarray",
            "sym": "gluonlite.symbol", "gluon": "gluonlite.gluon",
            "autograd": "gluonlite.autograd"}
# extensions of files a bare name (no folder) must be found under
SOURCE_EXTS = (".py", ".md", ".yaml", ".txt", ".toml", ".cfg")
# what examples and commands write, which no clone holds
OUTPUT_DIRS = ("results/", "docs/_build/", "docs/api/")
# other projects' files, cited in docs/STYLE.md as the patterns followed
OTHER_PROJECTS = ("micrograd/", "tinygrad/", "jax/", "torch/", "chainer/", "python/mxnet/",
                  "aten/")


def pages():
    found = ["README.md", os.path.join("benchmarks", "README.md")]
    for folder, dirs, files in os.walk(os.path.join(ROOT, "docs")):
        rel = os.path.relpath(folder, ROOT)
        dirs[:] = [d for d in dirs if d not in ("_build", "api")]
        found += [os.path.join(rel, f) for f in sorted(files) if f.endswith(".md")]
    return found


def _tracked_basenames():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    names = {os.path.basename(p) for p in out.stdout.split()}
    for folder, _, files in os.walk(ROOT):  # files not committed yet count too
        if "/.git" not in folder:
            names.update(files)
    return names


def _prose(text):
    """The text outside fenced code blocks (examples run; commands are shown)."""
    return re.sub(r"^( *)```.*?^\1```", "", text, flags=re.S | re.M)


def _spans(text):
    return re.findall(r"(?<!`)`([^`\n]+)`(?!`)", _prose(text))


def _is_path(span):
    if " " in span or span.startswith(("-", "$", "http", "~", "/")) or "://" in span:
        return False  # an option, a variable, a URL, or a path on the user's machine
    if re.search(r"[<>*{}]|\b[A-Z][A-Z_]{2,}\b", span):
        return False  # a placeholder (`FILE.jsonl`, `OUT_STEM.profile`), not a path
    if span.startswith(OTHER_PROJECTS):
        return False
    return "/" in span or span.endswith(SOURCE_EXTS)


def _path_exists(span, page):
    path = span.split("::")[0]
    if path.startswith(OUTPUT_DIRS):
        return True
    bases = [ROOT, os.path.join(ROOT, "gluonlite"), os.path.join(ROOT, os.path.dirname(page))]
    if any(os.path.exists(os.path.normpath(os.path.join(b, path))) for b in bases):
        return True
    return "/" not in path and path in BASENAMES


def _dotted(span):
    m = re.match(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$", span)
    if not m or m.group(1).split(".")[0] not in PREFIXES:
        return None
    return m.group(1)


# `nd.x`/`sym.x` may also be read as a method of an array or symbol called `nd`/`sym`
INSTANCES = {"nd": ("gluonlite.ndarray", "NDArray"), "sym": ("gluonlite.symbol", "Symbol")}


def _resolves(dotted):
    head, *parts = dotted.split(".")
    if head in INSTANCES and len(parts) == 1:
        module, cls = INSTANCES[head]
        if hasattr(getattr(importlib.import_module(module), cls), parts[0]):
            return True
    obj = importlib.import_module(PREFIXES[head])
    for part in parts:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(obj.__name__ + "." + part)
            except (ImportError, AttributeError):
                return False
    return True


BASENAMES = _tracked_basenames()


@pytest.mark.parametrize("page", pages())
def test_every_path_a_page_names_exists(page):
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    missing = [s for s in _spans(text) if _is_path(s) and not _path_exists(s, page)]
    assert not missing, f"{page} names paths that are not in the project: {missing}"


@pytest.mark.parametrize("page", pages())
def test_every_module_and_name_a_page_names_resolves(page):
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    names = {d for d in map(_dotted, _spans(text)) if d}
    missing = sorted(d for d in names if not _resolves(d))
    assert not missing, f"{page} names modules or names gluonlite does not have: {missing}"


@pytest.mark.parametrize("page", pages())
def test_every_relative_link_points_into_the_project(page):
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", _prose(text)):
        path = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), target))
        assert path.startswith(ROOT + os.sep) and (os.path.exists(path)
                                                   or path in _generated_api_pages()), \
            f"{page} links {target}, which is not in the project"


def _generated_api_pages():
    """The pages the docs build writes into docs/api/ (not kept in git): a fresh clone has
    none of them until the site is built, so a link is checked against the generator's list."""
    folder = os.path.join(ROOT, "docs", "api")
    names = {api_names.slug(ns) + ".rst" for ns, *_ in api_pages.namespace_rows()}
    return {os.path.join(folder, n) for n in names | {"index.rst"}}


def test_the_checks_catch_what_they_are_for():
    """A stale path, an unknown name and a placeholder are told apart."""
    assert not _path_exists("ops/loss_ops.py", "README.md")
    assert _path_exists("ops/losses_ops.py", "README.md")
    assert not _path_exists("api_coverage.py", "README.md")
    assert not _resolves("mx.optimizer.NoSuchOptimizer")
    assert _resolves("mx.optimizer.contrib.GroupAdaGrad")
    assert _resolves("mx.nd.sparse.csr_matrix")
    assert _resolves("sym.list_inputs") and not _resolves("sym.no_such_method")
    assert not _is_path("python -m gluonlite.bench report FILE.jsonl")
    assert _dotted("mx.nd.array([1, 2])") == "mx.nd.array"
    assert _dotted("np.zeros") is None


def test_the_readme_coverage_table_is_what_the_api_reference_counts():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    by_display = {api_names.display(ns): (provided, listed, left_out)
                  for ns, provided, listed, left_out, _ in api_pages.namespace_rows()}
    rows = re.findall(r"^\| (`mx\.[^|]*) \| (\d+) / (\d+) \| (\d+) \|", text, re.M)
    assert len(rows) >= 10, "README lost its coverage table"
    seen = []
    for cell, provided, listed, left_out in rows:
        names = re.findall(r"`(mx\.[\w.]+)`", cell)
        seen += names
        sums = [sum(by_display[n][i] for n in names) for i in range(3)]
        assert sums == [int(provided), int(listed), int(left_out)], (cell, sums)
    listed_somewhere = {d for d, (_, listed, _) in by_display.items() if listed}
    assert listed_somewhere <= set(seen), \
        f"namespaces with MXNet names missing from the table: {listed_somewhere - set(seen)}"


def test_every_public_name_has_a_docstring():
    # the API reference is made from them: a public name without one is an empty entry there
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    import docstring_coverage
    missing = sorted(name for name, (obj, owner) in docstring_coverage.public_objects().items()
                     if not docstring_coverage.has_docstring(obj, owner))
    assert not missing, f"public names without a docstring: {missing}"


def test_every_public_name_shows_an_example():
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    import docstring_coverage
    bare = sorted(name for name, (obj, owner) in docstring_coverage.public_objects().items()
                  if not docstring_coverage._has_example(obj))
    assert not bare, f"public names whose docstring shows no example: {bare}"


def test_every_public_callable_describes_its_parameters():
    # an Args entry (or the name in backticks) for each parameter: the API reference shows
    # the docstring, and a parameter it does not name is one a reader must guess
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    import docstring_coverage
    bare = {name: params for name, (obj, owner) in docstring_coverage.public_objects().items()
            if callable(obj)
            for params in [docstring_coverage.undescribed_parameters(obj, owner)] if params}
    assert not bare, f"public callables with parameters their docstring omits: {bare}"


def test_the_parameter_check_reads_args_entries_backticks_and_inputs():
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    import docstring_coverage

    def f(a, b, c=(1, 2), *args, **kwargs):
        """What.

        Args:
            a (tuple (int, int)): one.
            c: three.

        Example::

            f(b=1)
        """
    assert docstring_coverage.undescribed_parameters(f) == ["b"]
    f.__doc__ = "Takes `a`, ``b`` and c.\n\nInputs:\n    - **c**: three."
    assert docstring_coverage.undescribed_parameters(f) == []
