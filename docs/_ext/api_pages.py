"""Write the API reference: one page per namespace, every public name with its docstring.

The pages (`docs/api/*.rst`, not kept in git) are written when Sphinx starts (`conf.py`
calls `write_pages`), from the live modules, so a name added to a namespace appears without
an edit here. Each page has a table of the namespace's names (which are MXNet 1.9.1's, and
the first line of each docstring), the MXNet names left out on purpose with the reason
(`api_exclusions.txt`), then one autodoc entry per name. An object reachable under several
names (`mx.nd.zeros` is `mx.nd.ndarray.zeros`) is documented once; later names link to it.
"""
import inspect
import os
import re

import api_names

COVERAGE_HEADER = ("namespace", "MXNet 1.9.1 names provided", "left out on purpose",
                   "public names documented")


def _summary(obj):
    doc = inspect.getdoc(obj) or ""
    para = doc.strip().split("\n\n")[0].replace("\n", " ")
    sentence = re.split(r"(?<=[.!?])\s", para, maxsplit=1)[0]
    # plain text: the cell must not open markup it does not close
    text = re.sub(r"[`*|\\_]", "", sentence).rstrip(":")
    return text[:160] + ("..." if len(text) > 160 else "")


def _directive(obj):
    if inspect.isclass(obj):
        return "autoclass", ["   :members:", "   :show-inheritance:"]
    return "autofunction", []


def _value_entry(full, name, obj):
    # a constant carries no docstring of its own (its type's would be wrong): show its value
    text = repr(obj)
    if len(text) > 300:
        text = text[:300] + " ..."
    return [".. py:data:: %s.%s" % (full, name), "", "   A ``%s``: ``%s``"
            % (type(obj).__name__, text.replace("`", "'")), ""]


def namespace_rows():
    """One row per namespace: (namespace, provided, listed by MXNet, excluded, public)."""
    excluded = api_names.exclusions()
    rows = []
    for namespace in api_names.namespaces():
        module = api_names.import_namespace(namespace)
        public = api_names.public_names(namespace)
        if module is None or not public:
            continue
        listed = [n for ns, n in api_names.mxnet_names() if ns == namespace]
        left_out = [n for n in listed if namespace + "." + n in excluded]
        provided = [n for n in listed if n not in left_out and hasattr(module, n)]
        rows.append((namespace, len(provided), len(listed) - len(left_out), len(left_out),
                     len(public)))
    return rows


def _page(namespace, documented):
    module = api_names.import_namespace(namespace)
    names = api_names.public_names(namespace)
    mx_listed = [n for ns, n in api_names.mxnet_names() if ns == namespace]
    excluded = {n: why for n, why in api_names.exclusions().items()
                if n.rpartition(".")[0] == namespace}
    full = "gluonlite." + namespace
    title = "%s (``%s``)" % (api_names.display(namespace), full)
    out = [".. This page is written by docs/_ext/api_pages.py when the docs build.", "",
           title, "=" * len(title), "", ".. py:module:: " + full, ""]
    first = (inspect.getdoc(module) or "").strip().split("\n\n")[0]
    if first:
        out += [first, ""]
    provided = [n for n in mx_listed if n in names]
    out += ["%d public names; MXNet 1.9.1 has %d here, %d provided and %d left out on purpose."
            % (len(names), len(mx_listed), len(provided), len(excluded)), "",
            ".. list-table::", "   :header-rows: 1", "   :widths: 30 12 58", "",
            "   * - name", "     - MXNet 1.9.1", "     - summary"]
    mx_set = set(mx_listed)
    for name in names:
        obj = getattr(module, name)
        out += ["   * - :py:obj:`%s <%s.%s>`" % (name, full, name),
                "     - %s" % ("yes" if name in mx_set else "gluonlite"),
                "     - %s" % (_summary(obj) or "-")]
    out.append("")
    if excluded:
        out += ["MXNet 1.9.1 names left out on purpose", "-" * 37, "",
                ".. list-table::", "   :header-rows: 1", "   :widths: 30 70", "",
                "   * - name", "     - why"]
        for name, why in sorted(excluded.items()):
            out += ["   * - ``%s``" % name.rpartition(".")[2], "     - %s" % why]
        out.append("")
    out += ["Names", "-----", ""]
    for name in names:
        obj = getattr(module, name)
        key = id(obj)
        if (inspect.isclass(obj) or callable(obj)) and key in documented:
            out += [".. py:data:: %s" % name, "   :no-index-entry:", "",
                    "   The same object as :py:obj:`%s`." % documented[key], ""]
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            out += _value_entry(full, name, obj)
            continue
        documented[key] = "%s.%s" % (full, name)
        directive, options = _directive(obj)
        out += [".. %s:: %s.%s" % (directive, full, name)] + options + [""]
        own = getattr(obj, "__name__", name)
        if inspect.isclass(obj) and own != name and not hasattr(module, own):
            # a class that names itself otherwise (a namedtuple's `HEADER`): autodoc shows
            # it as an alias of that name, which must resolve too
            # under its own module: autodoc's "alias of" names it by its full path
            out += [".. py:class:: %s" % own, "   :module: %s" % obj.__module__,
                    "   :no-index-entry:", "",
                    "   The class of :py:obj:`%s.%s`, as it names itself." % (full, name), ""]
    return "\n".join(out) + "\n"


def _write(path, text):
    # unchanged pages keep their time stamp, so an incremental build reads only what changed
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# id(object) -> the dotted name it is documented under, filled by `write_pages`
DOCUMENTED = {}


def write_pages(folder):
    """Write `index.rst` and one page per namespace into `folder`; return the page count."""
    os.makedirs(folder, exist_ok=True)
    documented = DOCUMENTED
    documented.clear()
    rows = namespace_rows()
    pages = {api_names.slug(ns) + ".rst" for ns, *_ in rows} | {"index.rst"}
    for old in os.listdir(folder):
        if old.endswith(".rst") and old not in pages:
            os.remove(os.path.join(folder, old))
    for namespace, *_ in rows:
        _write(os.path.join(folder, api_names.slug(namespace) + ".rst"),
               _page(namespace, documented))
    index = [".. This page is written by docs/_ext/api_pages.py when the docs build.", "",
             "API reference", "=============", "",
             "Every public name of every namespace, generated from the docstrings. A "
             "namespace is what an MXNet 1.x user imports (``mx.nd``, ``mx.gluon.nn``, ...) "
             "or one gluonlite adds; each page marks MXNet 1.9.1's names and lists those "
             "left out on purpose, with the reason.", "",
             ".. list-table::", "   :header-rows: 1", "", "   * - namespace"]
    index += ["     - " + h for h in COVERAGE_HEADER[1:]]
    for namespace, provided, listed, left_out, public in rows:
        index += ["   * - :doc:`%s <%s>`" % (api_names.display(namespace),
                                               api_names.slug(namespace)),
                  "     - %d / %d" % (provided, listed) if listed else "     - (gluonlite's)",
                  "     - %d" % left_out, "     - %d" % public]
    index += ["", ".. toctree::", "   :hidden:", ""]
    index += ["   " + api_names.slug(ns) for ns, *_ in rows]
    _write(os.path.join(folder, "index.rst"), "\n".join(index) + "\n")
    return len(rows) + 1
