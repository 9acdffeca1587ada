"""Run the Python examples of the documentation pages.

Every fenced block tagged `python` in a page (Markdown) runs, the blocks of one page in
order in one namespace, in a scratch folder, as a reader would paste them. A block whose
first line is a comment starting `# not run` is shown only (it needs a GPU, a data file or
a cluster; the comment says which). Used by the docs build (`docs/conf.py`: a failing
example is a build error) and by `tests/docs/test_docs_examples.py`.
"""
import contextlib
import io
import logging
import os
import re
import tempfile

import matplotlib

FENCE = re.compile(r"^(?P<indent> *)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```", re.S | re.M)


def blocks(text):
    """The (line number, source) of each `python` block of a Markdown text, in order."""
    found = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "".join(line[indent:] + "\n" for line in m.group("body").splitlines())
        line = text.count("\n", 0, m.start()) + 2
        found.append((line, body))
    return found


def runnable(body):
    """Whether a block runs (it does not open with a `# not run` comment)."""
    return not body.lstrip().startswith("# not run")


def run_page(path):
    """Run the runnable blocks of the page at `path`; raise `ExampleError` at the first
    failure, naming the page and the block's line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    todo = [(line, body) for line, body in blocks(text) if runnable(body)]
    if not todo:
        return 0
    matplotlib.use("Agg")
    scope = {"__name__": "__docs_example__"}
    printed = io.StringIO()  # what the examples print is the reader's, not the log's
    with tempfile.TemporaryDirectory() as scratch, _cwd(scratch), \
            contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        logging.disable(logging.INFO)  # a training example's progress lines, too
        try:
            for line, body in todo:
                try:
                    exec(compile(body, "%s:%d" % (path, line), "exec"), scope)
                except Exception as e:  # noqa: BLE001 - reported with its page and line
                    raise ExampleError("%s, the example at line %d: %s: %s"
                                       % (path, line, type(e).__name__, e)) from e
        finally:
            logging.disable(logging.NOTSET)
    return len(todo)


class ExampleError(RuntimeError):
    """A documentation example that raised."""


@contextlib.contextmanager
def _cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)
