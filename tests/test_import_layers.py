"""The package's layers import only the layers beneath them (DESIGN.md): no import circle,
deferred imports inside functions included, and the higher layers install what the lower
ones offer (``nd.contrib.foreach``, ``Symbol.bind``, ``autograd.get_symbol``)."""
import importlib.util
import os

import pytest

import gluonlite as mx
from gluonlite.symbol.symbol import install_symbol_methods

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The core, each layer importing only those before it.
CORE = ["c_api", "base", "error", "_profiling", "context", "util", "ops", "autograd_tape",
        "ndarray", "autograd",
        "symbol", "executor", "control_flow", "subgraph",
        # MXNet's namespaces its Gluon is written on (docs/DESIGN.md; misc: the legacy
        # schedulers beside lr_scheduler), then gluon
        "initializer", "lr_scheduler", "misc", "optimizer", "kvstore", "metric", "recordio",
        "io", "image", "gluon"]


def _import_graph():
    spec = importlib.util.spec_from_file_location(
        "import_graph", os.path.join(ROOT, "benchmarks", "import_graph.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_import_circle_among_layers():
    assert _import_graph().circles()["layers"] == []


def test_core_layers_import_only_the_layers_beneath_them():
    g = _import_graph()
    rank = {f"gluonlite.{name}": i for i, name in enumerate(CORE)}
    _, _, edges = g.graphs()
    upward = [f"{a}:{line} imports {b}" for a, b, line in edges
              if g.layer_of(a) in rank and rank.get(g.layer_of(b), len(CORE))
              > rank[g.layer_of(a)]]
    assert upward == []


def test_the_graph_finds_a_circle_through_a_deferred_import(tmp_path):
    g = _import_graph()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "low.py").write_text("def f():\n    from . import high\n")
    (tmp_path / "high.py").write_text("from . import low\n")
    mods, layers, _ = g.graphs(g.module_files(str(tmp_path)))
    assert g.strongly_connected(layers) == [["gluonlite.high", "gluonlite.low"]]
    mods, layers, _ = g.graphs(g.module_files(str(tmp_path)), deferred=False)
    assert g.strongly_connected(layers) == []


def test_higher_layers_install_their_functions_below():
    from gluonlite.control_flow import imperative, symbolic
    for name in ("foreach", "while_loop", "cond"):
        assert getattr(mx.nd.contrib, name) is getattr(imperative, name)
        assert getattr(mx.sym.contrib, name) is getattr(symbolic, name)
        assert name in mx.nd.contrib.__all__ and name in mx.sym.contrib.__all__
    assert mx.autograd.Symbol is mx.sym.Symbol
    x = mx.sym.var("x")
    y = mx.sym.FullyConnected(x, num_hidden=3, no_bias=True, name="fc")
    assert y.infer_shape(x=(2, 5))[1] == [(2, 3)]
    exe = y.simple_bind(mx.cpu(), x=(2, 5), grad_req="null")
    assert exe.forward()[0].shape == (2, 3)


def test_install_symbol_methods_names_an_unknown_method():
    with pytest.raises(ValueError, match=r"install_symbol_methods: unknown names \['binds'\]"):
        install_symbol_methods(binds=print)


def test_autograd_tape_records_without_the_user_api():
    from gluonlite import autograd_tape
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd_tape.Mode(True, True):
        y = x * x
    autograd_tape.backward([y])
    assert x.grad.asnumpy().tolist() == [2.0, 4.0]
    assert not autograd_tape.is_recording()


def test_no_import_circle_inside_the_numpy_package():
    # the modules beneath multiarray and _symbol reach the classes they register with
    # numpy._dispatch, never by importing them (not even inside a function)
    circles = _import_graph().circles()["modules"]
    assert [c for c in circles if any(m.startswith("gluonlite.numpy.") for m in c)] == []


def test_the_numpy_dispatch_gets_its_classes_from_the_modules_above():
    from gluonlite.numpy import _dispatch
    assert _dispatch.np_class() is mx.np.ndarray
    assert _dispatch.sym_class() is mx.sym.np._Symbol
    x = _dispatch.from_nd(mx.nd.array([1.0, 2.0]))
    assert type(x) is mx.np.ndarray and x.asnumpy().tolist() == [1.0, 2.0]
    assert _dispatch.np_array([3, 4], dtype="int64").dtype == "int64"
    with pytest.raises(ValueError, match="ndarry"):
        _dispatch.register_upper(ndarry=mx.np.ndarray)
