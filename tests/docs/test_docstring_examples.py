"""The examples in the docstrings of the covered namespaces run.

A docstring example is a literal block after a line ending in ``Example::`` (or
``Examples::``), as the API reference shows it. Each block runs on its own, in a scratch
folder, after `PREAMBLE` (the imports every example may take for granted), the way a reader
pastes it. A block whose first line is a comment starting ``# not run`` is shown only (it
needs a GPU, a file or a cluster; the comment says which), as in the guide pages.

`COVERED` lists the modules and classes whose every such block is held to this; a namespace
joins it once its examples are written to run.
"""
import contextlib
import importlib
import inspect
import io
import os
import re
import tempfile
import textwrap

import pytest

import gluonlite as mx

PREAMBLE = """\
import numpy as np
import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.gluon import nn
"""

# module or class (dotted), whose own public functions, classes and methods are walked
COVERED = [
    "gluonlite.autograd",
    "gluonlite.ndarray.ndarray.NDArray",
    "gluonlite.symbol.symbol.Symbol",
    "gluonlite.gluon.block",
    "gluonlite.gluon.symbol_block",
    "gluonlite.gluon.parameter",
    "gluonlite.gluon.trainer",
    "gluonlite.gluon.nn",
    "gluonlite.gluon.loss",
    "gluonlite.gluon.rnn",
    "gluonlite.gluon.data",
    "gluonlite.gluon.data.vision",
    "gluonlite.gluon.data.vision.transforms",
    "gluonlite.gluon.data.worker_iter",
    "gluonlite.gluon.utils",
    "gluonlite.gluon.np_dialect",
    "gluonlite.gluon.block_formats",
    "gluonlite.gluon.block_save",
    "gluonlite.gluon.contrib.nn",
    "gluonlite.gluon.contrib.rnn",
    "gluonlite.gluon.contrib.cnn",
    "gluonlite.gluon.contrib.data",
    "gluonlite.gluon.contrib.estimator",
    "gluonlite.gluon.contrib.estimator.event_handler",
    "gluonlite.gluon.model_zoo.vision",
    "gluonlite.gluon.model_zoo.model_store",
    "gluonlite.lr_scheduler",
    "gluonlite.callback",
    "gluonlite.monitor",
    "gluonlite.util",
    "gluonlite.initializer",
    "gluonlite.metric",
    "gluonlite.profiler",
    "gluonlite.contrib",
    "gluonlite.contrib.autograd",
    "gluonlite.contrib.io",
    "gluonlite.contrib.amp",
    "gluonlite.contrib.amp.amp",
    "gluonlite.contrib.onnx",
    "gluonlite.contrib.quantization",
    "gluonlite.contrib.quantize_pass",
    "gluonlite.contrib.text",
    "gluonlite.contrib.text.utils",
    "gluonlite.contrib.text.vocab",
    "gluonlite.contrib.text.embedding",
    "gluonlite.contrib.svrg_optimization.svrg_module",
    "gluonlite.contrib.svrg_optimization.svrg_optimizer",
    "gluonlite.kvstore",
    "gluonlite.optimizer",
    "gluonlite.optimizer.optimizer",
    "gluonlite.optimizer.contrib",
    "gluonlite.optimizer.saved_states",
    "gluonlite.test_utils",
    "gluonlite.test_utils.comparison",
    "gluonlite.test_utils.rnn_floor",
    "gluonlite.numpy._symbol._Symbol",
    "gluonlite.runtime.Features",
    "gluonlite.onnx",
    "gluonlite.recordio",
    "gluonlite.operator",
    "gluonlite.io",
    "gluonlite.rnn",
    "gluonlite.image",
    "gluonlite.subgraph",
    "gluonlite.subgraph.identity",
    "gluonlite.module",
    "gluonlite.module.executor_group",
    "gluonlite.executor",
    "gluonlite.executor.executor",
    "gluonlite.executor.plan",
    "gluonlite.executor.nd_cached_op",
    "gluonlite.executor.cached_op",
    "gluonlite.executor.codegen",
    "gluonlite.executor.cse",
    "gluonlite.executor.graphs",
    "gluonlite.executor.hooks",
    "gluonlite.executor.infer",
    "gluonlite.executor.lowering",
    "gluonlite.executor.memory",
    "gluonlite.executor.node_values",
    "gluonlite.executor.rnn_params",
    "gluonlite.control_flow.imperative",
    "gluonlite.control_flow.symbolic",
    "gluonlite.control_flow.cond",
    "gluonlite.control_flow.foreach",
    "gluonlite.control_flow.while_loop",
    "gluonlite.control_flow.body",
    "gluonlite.control_flow.checks",
    "gluonlite.control_flow.tracing",
    "gluonlite.control_flow.lowering.decisions",
    "gluonlite.control_flow.lowering.counting",
    "gluonlite.numpy",
    "gluonlite.numpy.ndarray",
    "gluonlite.numpy.multiarray",
    "gluonlite.numpy.interop",
    "gluonlite.numpy.fallback",
    "gluonlite.numpy._creation",
    "gluonlite.numpy._ufuncs",
    "gluonlite.numpy._reductions",
    "gluonlite.numpy._manipulation",
    "gluonlite.numpy._routines",
    "gluonlite.numpy.linalg",
    "gluonlite.numpy.random",
    "gluonlite.numpy_extension",
    "gluonlite.numpy_op_fallback",
    "gluonlite.numpy_dispatch_protocol",
    "gluonlite.autograd_tape",
    "gluonlite.base",
    "gluonlite.context",
    "gluonlite.libinfo",
    "gluonlite.library",
    "gluonlite.log",
    "gluonlite.name",
    "gluonlite.name.NameManager",
    "gluonlite.name.Prefix",
    "gluonlite.runtime",
    "gluonlite.ops.registry",
    "gluonlite.ops.attrs",
    "gluonlite.ops.rules",
    "gluonlite.ops.fast",
    "gluonlite.ops.call",
    "gluonlite.ops.arg_docs",
    "gluonlite.ops.samplers",
    "gluonlite.ops.amp",
    "gluonlite.ops.custom",
    "gluonlite.ops.deformable",
    "gluonlite.ops.elementwise",
    "gluonlite.ops.examples",
    "gluonlite.ops.float_errors",
    "gluonlite.ops.mxnet_discrete",
    "gluonlite.ops.mxnet_gamma",
    "gluonlite.ops.mxnet_rng",
    "gluonlite.ops.mxnet_samplers",
    "gluonlite.ops.onednn_softmax",
    "gluonlite.ops.onednn_eltwise",
    "gluonlite.ops.libm32",
    "gluonlite.ops.fused",
    "gluonlite.ops.image",
    "gluonlite.ops.multibox",
    "gluonlite.ops.np_aliases",
    "gluonlite.ops.np_manip",
    "gluonlite.ops.np_math",
    "gluonlite.ops.np_reduce",
    "gluonlite.ops.optimizer_ops",
    "gluonlite.ops.proposal",
    "gluonlite.ops.quantization",
    "gluonlite.ops.quantized_rnn",
    "gluonlite.ops.random",
    "gluonlite.ops.random_functions",
    "gluonlite.ops.reduce",
    "gluonlite.ops.shape",
    "gluonlite.ops.stdsort",
    "gluonlite.ops.sparse.arrays",
    "gluonlite.ops.sparse.elementwise",
    "gluonlite.ops.sparse.grads",
    "gluonlite.ops.sparse.matrix",
    "gluonlite.ops.sparse.operators",
    "gluonlite.ops.sparse.reduce",
    "gluonlite.ops.sparse.rule",
    "gluonlite.ops.sparse.updates",
    "gluonlite.ops.boxes",
    "gluonlite.ops.bn_fast",
    "gluonlite.ops.conv",
    "gluonlite.ops.conv_fast",
    "gluonlite.ops.conv_winograd",
    "gluonlite.ops.rnn_layout",
    "gluonlite.ops.rnn_fused",
    "gluonlite.ops",
    "gluonlite.ops.assign",
    "gluonlite.ops.compare",
    "gluonlite.ops.contrib_ops",
    "gluonlite.ops.ctc",
    "gluonlite.ops.cvimage",
    "gluonlite.ops.detection",
    "gluonlite.ops.fluent",
    "gluonlite.ops.indexing",
    "gluonlite.ops.legacy_layers",
    "gluonlite.ops.legacy_names",
    "gluonlite.ops.linalg",
    "gluonlite.ops.losses_ops",
    "gluonlite.ops.matrix",
    "gluonlite.ops.missing_names",
    "gluonlite.ops.mxnet_layout",
    "gluonlite.ops.nn",
    "gluonlite.ops.normalization",
    "gluonlite.ops.np_elemwise",
    "gluonlite.ops.np_index",
    "gluonlite.ops.np_init",
    "gluonlite.ops.np_linalg",
    "gluonlite.ops.np_random",
    "gluonlite.ops.reverse",
    "gluonlite.ops.rnn",
    "gluonlite.ops.rnn_device",
    "gluonlite.ops.roi",
    "gluonlite.ops.scatter",
    "gluonlite.ops.sorting",
    "gluonlite.ops.sparse",
    "gluonlite.ops.spatial",
    "gluonlite.ops.special",
    "gluonlite.ops.tensor",
    "gluonlite.ops.vision_ops",
    "gluonlite.ops.rnn_gates",
    "gluonlite.ndarray.sparse",
    "gluonlite.ndarray.register",
    "gluonlite.ndarray.contrib",
    "gluonlite.symbol.symbol",
    "gluonlite.symbol.functions",
    "gluonlite.symbol.json_io",
    "gluonlite.symbol.naming",
    "gluonlite.symbol.printing",
    "gluonlite.symbol.history",
    "gluonlite.symbol.storage",
    "gluonlite.symbol.register",
    "gluonlite.symbol.contrib",
    "gluonlite.ndarray",
    "gluonlite.ndarray.invoke",
    "gluonlite.ndarray.serialization",
    "gluonlite.ndarray.sparse_check",
    "gluonlite.ndarray.sparse_grad",
    "gluonlite.ndarray.storage",
    "gluonlite.ndarray.ufuncs",
    "gluonlite.ndarray.recorded_rules",
    "gluonlite.ndarray.functions",
    "gluonlite.ndarray.dlpack",
    "gluonlite.ndarray.ndarray",
    "gluonlite.ndarray.numpy",
    "gluonlite.ndarray.custom",
    "gluonlite.symbol",
    "gluonlite.symbol.custom",
    "gluonlite.ndarray.imdecode",
    "gluonlite.ndarray.indexing",
    "gluonlite.symbol.numpy",
    "gluonlite.bench.schema",
    "gluonlite.bench.recipe",
    "gluonlite.bench.matrix",
    "gluonlite.bench.summary",
    "gluonlite.bench.results",
    "gluonlite.bench.memory",
    "gluonlite.bench.handshake",
    "gluonlite.bench.executors",
    "gluonlite.bench.driver",
    "gluonlite.bench.runner",
    "gluonlite.bench.models",
    "gluonlite.bench.report",
    "gluonlite.bench.cli",
    "gluonlite.bench.tasks",
    "gluonlite.bench.sweep",
    "gluonlite.bench.plot",
    "gluonlite.bench.train",
    "gluonlite.control_flow.lowering.hoisted",
    "gluonlite.control_flow.lowering.runtime",
    "gluonlite.control_flow.lowering.kernels",
    "gluonlite.control_flow.lowering.deferred",
    "gluonlite._numpy_op_doc",
    "gluonlite.numpy_op_signature",
    "gluonlite.numpy.arrayprint",
    "gluonlite.numpy.io",
    "gluonlite.registry",
    "gluonlite.model",
    "gluonlite.executor_manager",
    "gluonlite.error",
    "gluonlite.misc",
    "gluonlite.notebook.callback",
    "gluonlite.contrib.tensorboard",
    "gluonlite.contrib.amp.loss_scaler",
]

_LEAD = re.compile(r"^(?P<indent>[ \t]*)(?:.*\s)?Examples?::[ \t]*$")


def example_blocks(doc):
    """The literal blocks that follow an ``Example::`` line in docstring `doc`, dedented."""
    lines = inspect.cleandoc(doc or "").splitlines()
    found = []
    for i, line in enumerate(lines):
        m = _LEAD.match(line)
        if not m:
            continue
        base = len(m.group("indent"))
        body = []
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= base:
                break
            body.append(nxt)
        text = textwrap.dedent("\n".join(body)).strip("\n")
        if text:
            found.append(text + "\n")
    return found


def _members(obj, dotted):
    """(dotted name, object) of `obj` and of what it defines: a module's public functions
    and classes (those it or its submodules define, not imports from elsewhere), a class's
    own public methods and properties."""
    out = [(dotted, obj)]
    if inspect.ismodule(obj):
        for name, member in sorted(vars(obj).items()):
            home = getattr(member, "__module__", None) or ""
            if name.startswith("_") or not (home == obj.__name__
                                            or home.startswith(obj.__name__ + ".")):
                continue
            if inspect.isfunction(member) or inspect.isclass(member):
                out += _members(member, f"{dotted}.{name}")
    elif inspect.isclass(obj):
        for name, member in sorted(vars(obj).items()):
            if name.startswith("_"):
                continue
            if isinstance(member, property):
                member = member.fget
            elif isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if inspect.isfunction(member):
                out.append((f"{dotted}.{name}", member))
    return out


def _resolve(dotted):
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for part in parts[k:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(dotted)


def _cases():
    cases = []
    for dotted in COVERED:
        for name, obj in _members(_resolve(dotted), dotted):
            for k, body in enumerate(example_blocks(getattr(obj, "__doc__", None))):
                if not body.lstrip().startswith("# not run"):
                    cases.append(pytest.param(body, id=f"{name}[{k}]"))
    return cases


def test_example_blocks_are_found():
    doc = """What it does.

    Example::

        x = 1
        y = x + 1

    Returns:
        nothing.
    """
    assert example_blocks(doc) == ["x = 1\ny = x + 1\n"]
    assert example_blocks("No example: ``f(x)``.") == []


@pytest.mark.parametrize("body", _cases())
def test_docstring_example_runs(body):
    printed = io.StringIO()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            # a fresh name manager: an example's layers and symbols leave the name counters
            # of the rest of the suite as they were
            with contextlib.redirect_stdout(printed), mx.name.NameManager():
                exec(compile(PREAMBLE + body, "<docstring example>", "exec"),
                     {"__name__": "__docstring_example__"})
        finally:
            os.chdir(here)
            modes = (mx.util.is_np_array(), mx.util.is_np_shape())
            mx.util.set_np(shape=False, array=False)
    # an example that switches NumPy semantics on switches them off again, or the examples
    # after it would run in another dialect
    assert modes == (False, False), "the example leaves NumPy semantics on"
