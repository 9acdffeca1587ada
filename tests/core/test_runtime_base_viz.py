"""`mx.runtime` (what this build has), MXNet's `base` helpers, `context` leftovers, and
`mx.viz` (`print_summary` against what MXNet 1.9.1 prints, `plot_network` without graphviz)."""
import abc
import contextlib
import importlib.util
import io
import json
import os

import pytest

import gluonlite as mx
import ndsym_cases as cases

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ndsym",
                       "expected.json")) as _f:
    SUMMARIES = json.load(_f)["SUMMARIES"]


# ---- runtime ----------------------------------------------------------------------------
def test_features_list_mxnet_names_then_ours_and_say_what_is_enabled():
    feats = mx.runtime.Features()
    assert feats is mx.runtime.Features()  # one per process, as in MXNet
    names = list(feats)
    assert names[:5] == ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT"]
    assert names[-3:] == ["NUMPY", "CUPY", "SCIPY"]
    assert feats.is_enabled("numpy") and feats.is_enabled("NUMPY")
    for off in ("MKLDNN", "CUDNN", "TENSORRT", "OPENCV", "TVM_OP", "DIST_KVSTORE"):
        assert not feats.is_enabled(off)
    gpus = mx.context.num_gpus() > 0
    assert feats.is_enabled("CUDA") == gpus == feats.is_enabled("CUPY")
    assert feats.is_enabled("SCIPY") == (importlib.util.find_spec("scipy") is not None)
    assert repr(feats["NUMPY"]) == "✔ NUMPY" and repr(feats["MKLDNN"]) == "✖ MKLDNN"
    assert repr(feats).startswith("[✖ CUDA, ✖ CUDNN") or gpus
    assert [f.name for f in mx.runtime.feature_list()] == names


def test_unknown_feature_is_a_runtime_error_listing_the_known_ones():
    with pytest.raises(RuntimeError, match="feature 'FOO' is unknown; known features are"):
        mx.runtime.Features().is_enabled("foo")


# ---- base -------------------------------------------------------------------------------
def test_not_implemented_for_symbol_names_the_function_and_is_an_mxnet_error():
    with pytest.raises(mx.base.NotImplementedForSymbol) as e:
        mx.sym.var("x").asnumpy()
    assert isinstance(e.value, mx.MXNetError)
    assert str(e.value) == ("Function asnumpy is not implemented for Symbol and only "
                            "available in NDArray.")
    assert str(mx.base.NotSupportedForSparseNDArray(len, "op", 1)) == (
        "Function len (namely operator \"op\") with arguments (<class 'int'>) is not "
        "supported for SparseNDArray and only available in NDArray.")


def test_register_error_as_decorator_and_with_a_name():
    @mx.base.register_error
    class MyError(mx.MXNetError):
        pass
    assert mx.base.error_types["MyError"] is MyError
    mx.base.register_error("Other", MyError)
    assert mx.base.error_types["Other"] is MyError


def test_classproperty_and_with_metaclass():
    class A(mx.base.with_metaclass(abc.ABCMeta, object)):
        @mx.base.classproperty
        def kind(cls):
            return cls.__name__.lower()
    assert type(A) is abc.ABCMeta and A.kind == "a" and A().kind == "a"
    assert mx.name.classproperty is mx.base.classproperty
    assert mx.attribute.with_metaclass is mx.base.with_metaclass


def test_data_dir_follows_mxnet_home(monkeypatch):
    monkeypatch.setenv("MXNET_HOME", "/tmp/somewhere")
    assert mx.base.data_dir() == "/tmp/somewhere"
    monkeypatch.delenv("MXNET_HOME")
    assert mx.base.data_dir() == mx.base.data_dir_default()
    assert mx.base.data_dir_default().endswith(".mxnet")


def test_build_param_doc():
    doc = mx.base.build_param_doc(["x", "num_args", "x"], ["NDArray", "int", "int"],
                                  ["the input", "count", "dup"])
    assert doc == "Parameters\n----------\nx : NDArray\n    the input\n"


# ---- context ----------------------------------------------------------------------------
def test_cpu_pinned_is_a_cpu_context():
    assert mx.context.cpu_pinned(0) == mx.cpu(0)
    assert mx.nd.zeros((2,), ctx=mx.context.cpu_pinned()).context == mx.cpu(0)


def test_gpu_memory_info_without_a_gpu_says_why():
    if mx.context.num_gpus():
        free, total = mx.context.gpu_memory_info(0)
        assert 0 < free <= total
        return
    with pytest.raises(mx.MXNetError, match="gpu_memory_info: no GPU backend"):
        mx.context.gpu_memory_info(0)


# ---- autograd ---------------------------------------------------------------------------
def test_autograd_exposes_symbol_as_mxnet_does():
    assert mx.autograd.Symbol is mx.sym.Symbol


# ---- visualization ----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(cases.SUMMARIES))
def test_print_summary_prints_what_mxnet_prints(name):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(cases.summary_net(mx), **cases.SUMMARIES[name])
    assert buf.getvalue() == SUMMARIES[name]


def test_print_summary_refuses_what_is_not_a_symbol():
    with pytest.raises(TypeError, match="print_summary: symbol must be a Symbol"):
        mx.viz.print_summary(mx.nd.ones((1,)))


def test_plot_network_without_graphviz_says_what_to_install():
    if importlib.util.find_spec("graphviz") is not None:
        dot = mx.viz.plot_network(cases.summary_net(mx), shape={"data": (2, 3)})
        assert "fc1" in dot.source
        return
    with pytest.raises(ImportError, match="pip install graphviz"):
        mx.viz.plot_network(cases.summary_net(mx))


def test_plot_network_warns_once_about_variables_sharing_a_name(monkeypatch):
    import sys
    import types
    import warnings

    class Digraph:   # a stand-in for graphviz's, recording what is drawn
        def __init__(self, name=None, format=None):
            self.nodes, self.edges = [], []

        def node(self, name, label, **attrs):
            self.nodes.append(name)

        def edge(self, tail_name, head_name, **attrs):
            self.edges.append((tail_name, head_name))

    monkeypatch.setitem(sys.modules, "graphviz", types.SimpleNamespace(Digraph=Digraph))
    net = mx.sym.FullyConnected(mx.sym.var("data"), name="fc", num_hidden=4)
    net = mx.sym.FullyConnected(net, name="fc", num_hidden=2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dot = mx.viz.plot_network(net, shape={"data": (3, 5)})
    assert len(w) == 1
    assert "multiple variables with the same name" in str(w[0].message)
    assert "fc_weight" in str(w[0].message) and "data" not in str(w[0].message)
    assert "data" in dot.nodes
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mx.viz.plot_network(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2))
    assert not w
