"""The dense operator families against MXNet 1.9.1: values, gradients of the loss outputs,
JSON attribute strings, inferred shapes and dtypes (tests/fixtures/dense_ops_expected.json,
made by tests/fixtures/make_dense_ops.py from the calls in dense_ops_cases.py), and the errors
the shape rules raise."""
import importlib.util
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def _load_cases():
    spec = importlib.util.spec_from_file_location("dense_ops_cases",
                                                  os.path.join(FIX, "dense_ops_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cases


with open(os.path.join(FIX, "dense_ops_expected.json"), encoding="utf-8") as _f:
    EXPECTED = json.load(_f)


@pytest.fixture(scope="module")
def got():
    return json.loads(json.dumps(_load_cases()(mx)))  # tuples as lists, as in the fixture


def _same(a, b, where):
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: {len(a)} items, MXNet has {len(b)}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a == b, f"{where}: {a} vs MXNet's {b}"
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} vs MXNet's {b!r}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_mxnet(got, name):
    assert name in got, f"{name}: not computed"
    _same(got[name], EXPECTED[name], name)


@pytest.mark.parametrize("call, message", [
    (lambda: nd.topk(nd.ones((2, 3)), k=4), "topk: k=4 is larger than the 3 elements"),
    (lambda: nd.depth_to_space(nd.ones((1, 3, 2, 2)), 2),
     "depth_to_space: channels 3 must be a multiple of block_size"),
    (lambda: nd.space_to_depth(nd.ones((1, 1, 3, 2)), 2),
     "space_to_depth: height 3 and width 2 must be multiples of block_size=2"),
    (lambda: nd.slice_like(nd.ones((2, 3)), nd.ones((3, 3))),
     r"slice_like: shape_like \(3, 3\) does not fit inside data \(2, 3\)"),
    (lambda: nd.tile(nd.ones((2,)), reps=(-1,)), "tile: reps must be non-negative"),
    (lambda: nd.LRN(nd.ones((1, 3, 2)), nsize=2), "LRN: nsize must be a positive odd number"),
    (lambda: nd.broadcast_axis(nd.ones((2, 3)), axis=0, size=4),
     "broadcast_axis: axis 0 of data .* must have size 1"),
    (lambda: nd.ravel_multi_index(nd.ones((3, 2)), shape=(2, 2)),
     "ravel_multi_index: data must have 2 rows"),
    (lambda: nd.Crop(nd.ones((1, 1, 2, 2)), h_w=(3, 3), num_args=1),
     r"Crop: a crop of \(3, 3\) at offset \(0, 0\) does not fit"),
    (lambda: nd.moments(nd.ones((2, 3)), axes=()), "moments: axes must name at least one"),
    (lambda: nd.SoftmaxOutput(nd.ones((2, 3, 4)), nd.ones((2,)), multi_output=True),
     "SoftmaxOutput: label must have shape"),
    (lambda: nd.argmin(nd.ones((2, 3)), axis=2), "argmin: axis=2 is out of range"),
    (lambda: nd.split_v2(nd.ones((3, 2)), 2), "split_v2: an axis of size 3 does not split"),
    (lambda: nd.gather_nd(nd.ones((2, 3)), nd.zeros((3, 1))),
     "gather_nd: indices of shape .* address 3 axes"),
    (lambda: nd.broadcast_logical_and(nd.ones((2, 3)), nd.ones((4,))),
     "broadcast_logical_and: shapes"),
    (lambda: nd.histogram(nd.ones((3,)), bins=2.5), "histogram: bins must be"),
])
def test_errors_name_the_operator_and_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_unknown_ret_typ_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="topk: argument ret_typ='values'.*'both', 'indices'"):
        nd.topk(nd.ones((2, 3)), ret_typ="values")


def test_partial_inference_fills_labels_from_data():
    args, outs, _ = sym.SoftmaxOutput(sym.var("d"), name="sm", multi_output=True).infer_shape(
        d=(2, 3, 4, 5))
    assert args == [(2, 3, 4, 5), (2, 4, 5)] and outs == [(2, 3, 4, 5)]
    args, _, _ = sym.SVMOutput(sym.var("d"), name="svm").infer_shape(d=(4, 3))
    assert args == [(4, 3), (4,)]


def test_comparison_overloads_and_logical_scalars_keep_the_array_dtype():
    x = nd.array([0, 1, 2], dtype="int32")
    for y in (x == 1, x > 0.5, nd._logical_xor_scalar(x, scalar=1), nd.broadcast_equal(x, x)):
        assert y.dtype == np.int32
    np.testing.assert_array_equal((x > 0.5).asnumpy(), [0, 1, 1])  # 0.5 cast to int 0 first


def test_sym_functions_build_the_scalar_nodes():
    a = sym.var("a")
    ops = [json.loads(s.tojson())["nodes"][-1]["op"] for s in (sym.hypot(a, 3), sym.hypot(a, a))]
    assert ops == ["_hypot_scalar", "_hypot"]
    out = sym.split_v2(a, 2, axis=1).eval(a=nd.array(np.arange(8).reshape(2, 4)))
    np.testing.assert_array_equal(out[1].asnumpy(), [[2, 3], [6, 7]])


class _DenseNet(mx.gluon.HybridBlock):
    """Operators with several outputs, integer outputs and scatter gradients in one graph."""

    def hybrid_forward(self, F, x):
        v, i = F.topk(x, k=2, ret_typ="both")
        m, var = F.moments(x, axes=(1,))
        first = F.slice_axis(F.argsort(x, axis=None), axis=0, begin=0, end=1) * 0
        g = F.gather_nd(x, F.reshape(first, shape=(1, 1)))
        return (v.sum() + i.sum() + m.sum() + var.sum() + F.sort(x, axis=1).sum()
                + F.cumsum(x, axis=1).sum() + F.tile(x, reps=(1, 2)).sum()
                + F.smooth_l1(x).sum() + F.erf(x).sum() + F.diag(x).sum()
                + F.broadcast_like(g, x).sum())


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True},
                                   {"static_alloc": True, "static_shape": True}])
def test_hybridized_dense_operators_match_imperative(flags):
    x = nd.array(np.random.RandomState(0).normal(size=(3, 4)))
    x.attach_grad()
    net = _DenseNet()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    want_y, want_g = y.asnumpy(), x.grad.asnumpy().copy()
    net.hybridize(**flags)
    for _ in range(2):
        with mx.autograd.record():
            y = net(x)
        y.backward()
        np.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-5)
        np.testing.assert_allclose(x.grad.asnumpy(), want_g, rtol=1e-5, atol=1e-6)


def test_graphs_of_dense_operators_survive_a_json_round_trip():
    a = sym.var("a")
    x = nd.array(np.random.RandomState(0).normal(size=(2, 3, 4)))
    graphs = [sym.topk(a, k=2, ret_typ="both", axis=None), sym.sort(a, axis=None),
              sym.argsort(a, dtype="int32"), sym.tile(a, reps=(2, 1)),
              sym.repeat(a, repeats=2, axis=1), sym.cumsum(a, axis=1, dtype="float64"),
              sym.broadcast_axis(sym.slice_axis(a, axis=0, begin=0, end=1), axis=(0,),
                                 size=(3,)),
              sym.histogram(a, bins=3, range=(-1, 1)), sym.moments(a, axes=(0, 2)),
              sym.L2Normalization(a, mode="spatial"), sym.LRN(a, nsize=3),
              sym.Crop(sym.reshape(a, shape=(2, 3, 4, 1)), h_w=(2, 1), num_args=1),
              sym.split_v2(a, (1, 2), axis=1), sym.diag(a, k=1, axis1=1, axis2=2),
              sym.hard_sigmoid(a, alpha=0.3), sym.smooth_l1(a, scalar=2.0),
              sym.SoftmaxOutput(a, sym.var("label"), multi_output=True,
                                normalization="valid"),
              sym.nansum(a, axis=(0, 2)), sym.broadcast_logical_and(a, a) + sym.hypot(a, 2)]
    for g in graphs:
        again = sym.load_json(g.tojson())
        assert again.tojson() == g.tojson()
        args = {"a": x, "label": nd.zeros((2, 4))}
        args = {k: v for k, v in args.items() if k in g.list_arguments()}
        for u, v in zip(g.eval(**args), again.eval(**args)):
            np.testing.assert_array_equal(u.asnumpy(), v.asnumpy())


def test_mxnet_operator_names_load_as_their_gluonlite_operators():
    js = json.dumps({"nodes": [{"op": "null", "name": "a", "inputs": []},
                               {"op": "_ravel_multi_index", "name": "r",
                                "attrs": {"shape": "(3, 4)"}, "inputs": [[0, 0, 0]]},
                               {"op": "expand_dims", "name": "e", "attrs": {"axis": "1"},
                                "inputs": [[1, 0, 0]]},
                               {"op": "broadcast_axes", "name": "b",
                                "attrs": {"axis": "(1,)", "size": "(3,)"},
                                "inputs": [[2, 0, 0]]}],
                     "arg_nodes": [0], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[3, 0, 0]],
                     "attrs": {"mxnet_version": ["int", 10901]}})
    out = sym.load_json(js).eval(a=nd.array([[1, 2], [0, 3]]))[0]
    np.testing.assert_array_equal(out.asnumpy(), [[4, 4, 4], [11, 11, 11]])


def test_mxnet_older_operator_spellings_are_the_same_operators():
    x = nd.array([1.0, 2.0, 3.0])
    pairs = [(nd._PowerScalar(x, scalar=2), nd._power_scalar(x, scalar=2)),
             (nd._Not_Equal(x, x * 0 + 2), nd._not_equal(x, x * 0 + 2)),
             (nd._GreaterEqualScalar(x, scalar=2), nd._greater_equal_scalar(x, scalar=2)),
             (nd._LogicalXorScalar(x, scalar=0), nd._logical_xor_scalar(x, scalar=0)),
             (nd._Hypot(x, x), nd._hypot(x, x)), (nd._RModScalar(x, scalar=5), 5 % x)]
    for old, new in pairs:
        np.testing.assert_array_equal(old.asnumpy(), new.asnumpy())


def test_softmax_output_out_grad_multiplies_by_the_head_gradient_as_documented():
    # MXNet 1.9.1's kernel multiplies by its own output instead (the head gradient never
    # reaches it); gluonlite follows the documented rule.
    x = nd.array([[0.5, -1.2, 0.3, 2.0], [-0.7, 0.1, 0.9, -0.2]])
    head = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.0, -1.0, 2.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.SoftmaxOutput(x, nd.array([1, 3]), out_grad=True, grad_scale=0.5)
    y.backward(nd.array(head))
    p = np.exp(x.asnumpy()) / np.exp(x.asnumpy()).sum(1, keepdims=True)
    want = 0.5 * (p - np.eye(4)[[1, 3]]) * head
    np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_norm_out_dtype_sets_the_result_dtype():
    # MXNet 1.9.1's CPU kernel fails on any out_dtype other than the data's; the attribute
    # is its documented meaning.
    x = nd.array([[3.0, 4.0], [6.0, 8.0]])
    y = nd.norm(x, axis=1, out_dtype="float64")
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.asnumpy(), [5.0, 10.0])
    assert sym.norm(sym.var("x"), out_dtype="float64").infer_type(x="float32")[1] == \
        [np.float64]


def test_arange_infer_range_alone_is_refused_rather_than_guessed():
    # imperatively nothing gives the length (in a graph, shape inference does)
    with pytest.raises(ValueError, match="_arange: infer_range=True"):
        nd.arange(0, step=2, infer_range=True)
