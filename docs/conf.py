"""Sphinx configuration of gluonlite's documentation site.

Build it, strictly (any warning fails: a dead link, a missing reference, a docstring that does
not parse, an example that raises), from the repository root:

    python3 -m pip install -e '.[docs]'
    python3 -m sphinx -W --keep-going -n -b html docs docs/_build/html

The guides are Markdown (MyST); every page under `docs/guide/` is in the navigation without
an edit here. The API reference (`docs/api/`) is written from the live modules when the build
starts (`_ext/api_pages.py`).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(HERE, "_ext"))

import gluonlite  # noqa: E402
import api_pages  # noqa: E402
import examples  # noqa: E402

project = "gluonlite"
author = "the gluonlite authors"
copyright = "the gluonlite authors"
release = version = gluonlite.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "**/README.md"]
html_theme = "furo"
html_title = "gluonlite %s" % release
html_static_path = []

# `name` in a docstring is code, as in Markdown, not a cross-reference to resolve.
default_role = "literal"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
# a Returns line's words before a colon are a label, not a type to cross-reference
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_inherit_docstrings = True
autodoc_default_options = {}
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
# A type napoleon reads out of free text (``(N, C)``, ``'lstm'``) is not a name to resolve;
# every Python name in a docstring or page must resolve.
nitpick_ignore_regex = [(r"py:(class|exc|obj)", r".*[^\w.].*"),
                        # the standard library's names (no inventory is fetched)
                        (r"py:(class|exc|obj)",
                         r"(re|collections|builtins|typing|logging)\..*"),
                        # plain words of a type, as ``(callable)`` or ``(list of pairs)``
                        (r"py:class", r"callable|pairs")]

api_pages.write_pages(os.path.join(HERE, "api"))


def _run_examples(app, docname, source):
    # every guide's `python` blocks run as the page is read: a broken example fails the build
    path = app.env.doc2path(docname)
    if not str(path).endswith(".md") or docname.startswith("api/"):
        return
    if os.environ.get("GLUONLITE_DOCS_EXAMPLES", "1") == "0":
        return
    try:
        examples.run_page(str(path))
    except examples.ExampleError as e:
        from sphinx.util import logging
        logging.getLogger(__name__).warning("broken example: %s", e, location=docname)


_OPERATOR_MODULES = ("gluonlite.ndarray.register", "gluonlite.symbol.register",
                     "gluonlite.numpy._ufuncs", "gluonlite.numpy._generated",
                     "gluonlite.numpy_extension._op")
_SIGNATURE = re.compile(r"^(\w+)\((.*)\):?$")


def _operator_docstring(app, what, name, obj, options, lines):
    # An operator's docstring is generated from its registry entry: a signature line, then
    # plain text (`*args`, `|x|` are not markup there). Show the signature as code and escape
    # the characters reStructuredText would read as markup outside ``literals``.
    if getattr(obj, "__module__", None) not in _OPERATOR_MODULES or not lines:
        return
    if _SIGNATURE.match(lines[0].strip()):
        lines[0] = "``%s``" % lines[0].strip().rstrip(":")
        lines.insert(1, "")
        body = [text for text in lines[2:] if text.strip()]
        indent = min((len(text) - len(text.lstrip()) for text in body), default=0)
        lines[2:] = [text[indent:] for text in lines[2:]]
    start = 1 if lines[0].startswith("``") else 0
    for i, line in enumerate(lines[start:], start):
        if line.strip() == "Example::":  # the example (gluonlite.ops.examples) is a literal
            break                        # block, last, and is shown as written
        parts = line.split("``")
        for k in range(0, len(parts), 2):  # the parts outside ``literals``
            parts[k] = re.sub(r"([*|])", r"\\\1", parts[k])
        lines[i] = "``".join(parts)


def _public_bases(app, name, obj, options, bases):
    # `:show-inheritance:` names the nearest ancestor the reference documents (a private
    # base or a namedtuple's generated class gives way to its own base)
    for i, base in enumerate(bases):
        while (base.__module__.startswith("gluonlite") and id(base) not in api_pages.DOCUMENTED
               and base.__bases__):
            base = base.__bases__[0]
        bases[i] = base


def _every_guide(app, docname, source):
    # index.md lists the guides in reading order, then the line `guide/*`, which stands for
    # every other page of docs/guide/ (a guide another change adds joins the navigation
    # without an edit here); written out, so that no match is not a glob warning
    if docname != "index":
        return
    listed = set(re.findall(r"^guide/([\w-]+)$", source[0], re.M))
    others = sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "guide"))
                    if f.endswith(".md") and f[:-3] not in listed)
    source[0] = source[0].replace("guide/*\n", "".join("guide/%s\n" % o for o in others))


def _reread_index(app, env, added, changed, removed):
    # a guide page added since the last build must reach index.md's list
    return ["index"]


def setup(app):
    app.connect("source-read", _every_guide)
    app.connect("env-get-outdated", _reread_index)
    app.connect("source-read", _run_examples)
    app.connect("autodoc-process-docstring", _operator_docstring)
    app.connect("autodoc-process-bases", _public_bases)
    return {"parallel_read_safe": True}
