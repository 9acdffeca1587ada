"""Symbol structure against MXNet 1.9.1: input/output listing order, internals, indexing,
Group, naming of operator nodes, and arithmetic/comparison with scalars (values)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

from make_mxnet_expectations import build

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@pytest.fixture(scope="module")
def expect():
    with open(os.path.join(DATA, "mxnet_small_graph_expect.json")) as f:
        return json.load(f)


@pytest.fixture
def graph():
    with sym.Prefix(""):  # fresh name counters, as in a new MXNet process
        return build(mx)


@pytest.mark.parametrize("what", ["list_inputs", "list_arguments", "list_outputs",
                                  "list_auxiliary_states"])
def test_listing_order_matches_mxnet(graph, expect, what):
    assert getattr(graph, what)() == expect[what]


def test_internals_match_mxnet(graph, expect):
    assert graph.get_internals().list_outputs() == expect["internals"]


def test_infer_shape_matches_mxnet(graph, expect):
    arg, out, aux = graph.infer_shape(**expect["infer_shape_args"])
    assert [list(s) for s in arg] == expect["arg_shapes"]
    assert [list(s) for s in out] == expect["out_shapes"]
    assert [list(s) for s in aux] == expect["aux_shapes"]


def test_internal_output_can_be_picked_by_name_and_run():
    x = sym.var("x")
    h = sym.FullyConnected(x, num_hidden=3, name="h")
    y = sym.relu(h, name="r")
    hidden = y.get_internals()["h_output"]
    assert hidden.list_outputs() == ["h_output"]
    assert hidden.list_arguments() == ["x", "h_weight", "h_bias"]
    xv, w, b = np.ones((2, 4), np.float32), np.full((3, 4), -0.5, np.float32), \
        np.arange(3, dtype=np.float32)
    out = hidden.eval(x=nd.array(xv), h_weight=nd.array(w), h_bias=nd.array(b))[0]
    np.testing.assert_allclose(out.asnumpy(), xv @ w.T + b)


def test_indexing_multi_output_and_group():
    x = sym.var("x")
    parts = sym.split(x, num_outputs=3, axis=1, name="sp")
    assert len(parts) == 3
    assert parts.list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    assert parts[-1].list_outputs() == ["sp_output2"]
    assert parts["sp_output1"].list_outputs() == ["sp_output1"]
    assert parts[0:2].list_outputs() == ["sp_output0", "sp_output1"]
    assert [p.list_outputs()[0] for p in parts] == parts.list_outputs()
    g = sym.Group([parts[2], x, sym.Group([parts[0], parts[1]])])
    assert g.list_outputs() == ["sp_output2", "x", "sp_output0", "sp_output1"]
    assert g.list_inputs() == ["x"]
    xv = np.arange(12, dtype=np.float32).reshape(2, 6)
    outs = g.eval(x=nd.array(xv))
    for o, w in zip(outs, [xv[:, 4:], xv, xv[:, :2], xv[:, 2:4]]):
        np.testing.assert_array_equal(o.asnumpy(), w)


def test_indexing_errors_name_the_problem():
    parts = sym.split(sym.var("x"), num_outputs=2, name="sp")
    with pytest.raises(ValueError, match="no output named 'nope'.*sp_output0"):
        parts["nope"]
    with pytest.raises(IndexError, match="index 2 out of range for 2 outputs"):
        parts[2]
    with pytest.raises(TypeError, match=r"symbols\[1\] is a int"):
        sym.Group([parts[0], 3])


def test_group_input_to_an_operator_is_rejected():
    parts = sym.split(sym.var("x"), num_outputs=2)
    with pytest.raises(TypeError, match="group of 2 outputs"):
        sym.relu(parts)


_SCALAR_CASES = [
    (lambda s: s + 2, lambda a: a + 2), (lambda s: 2 + s, lambda a: 2 + a),
    (lambda s: s - 2, lambda a: a - 2), (lambda s: 2 - s, lambda a: 2 - a),
    (lambda s: s * 3, lambda a: a * 3), (lambda s: 3 * s, lambda a: 3 * a),
    (lambda s: s / 4, lambda a: a / 4), (lambda s: 4 / s, lambda a: 4 / a),
    (lambda s: s ** 2, lambda a: a ** 2), (lambda s: 2 ** s, lambda a: 2 ** a),
    (lambda s: -s, lambda a: -a), (lambda s: abs(s), lambda a: abs(a)),
    (lambda s: s < 1, lambda a: (a < 1)), (lambda s: s <= 1, lambda a: (a <= 1)),
    (lambda s: s > 1, lambda a: (a > 1)), (lambda s: s >= 1, lambda a: (a >= 1)),
    (lambda s: s == 1, lambda a: (a == 1)), (lambda s: s != 1, lambda a: (a != 1)),
    (lambda s: sym.maximum(s, 1.5), lambda a: np.maximum(a, 1.5)),
    (lambda s: sym.minimum(1.5, s), lambda a: np.minimum(a, 1.5)),
]


@pytest.mark.parametrize("i", range(len(_SCALAR_CASES)))
def test_arithmetic_and_comparison_with_scalars(i):
    f, ref = _SCALAR_CASES[i]
    a = np.array([[0.5, 1.0, 2.0], [-1.0, 3.0, 1.0]], np.float32)
    out = f(sym.var("a")).eval(a=nd.array(a))[0].asnumpy()
    want = ref(a).astype(np.float32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "<", "<=", ">", ">=", "==", "!="])
def test_arithmetic_and_comparison_between_symbols(op):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2, (2, 3)).astype(np.float32)
    b = np.round(rng.uniform(0.5, 2, (2, 3)), 0).astype(np.float32)
    a[0, 0] = b[0, 0]
    f = eval(f"lambda x, y: x {op} y")
    out = f(sym.var("a"), sym.var("b")).eval(a=nd.array(a), b=nd.array(b))[0].asnumpy()
    np.testing.assert_allclose(out, f(a, b).astype(np.float32), rtol=1e-6)


def test_symbol_has_no_truth_value():
    with pytest.raises(TypeError, match="no truth value"):
        bool(sym.var("a") < 1)


def test_operator_node_names_follow_mxnet():
    with sym.Prefix(""):
        x = sym.var("x")
        assert (x + x).name == "_plus0"
        assert (x + 1).name == "_plusscalar0"
        assert (1 - x).name == "_rminusscalar0"
        assert sym.FullyConnected(x, num_hidden=2).name == "fullyconnected0"
        assert sym.split(x, num_outputs=2)[0].name == "split0"
        assert sym.SliceChannel(x, num_outputs=2)[0].name == "slicechannel0"
    with sym.Prefix("net_"):
        assert sym.relu(x).name == "net_relu0"
        assert sym.relu(x, name="act").name == "net_act"


def test_auto_created_variables_are_arguments_in_input_order():
    x = sym.var("x")
    y = sym.FullyConnected(x, num_hidden=3, no_bias=True, name="fc")
    assert y.list_arguments() == ["x", "fc_weight"]
    z = sym.BatchNorm(y, name="bn")
    assert z.list_arguments() == ["x", "fc_weight", "bn_gamma", "bn_beta"]
    assert z.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert z.list_inputs() == z.list_arguments() + z.list_auxiliary_states()


def test_debug_str_lists_every_node():
    x = sym.var("x")
    y = sym.relu(sym.FullyConnected(x, num_hidden=3, name="fc"), name="r")
    text = y.debug_str()
    for piece in ("x = var", "fc = FullyConnected(x, fc_weight, fc_bias)", "r = relu(fc)",
                  "outputs: r_output"):
        assert piece in text
