"""reverse (flip) and SequenceReverse through nd and sym: values, graphs, and the errors
they promise (the registry walk checks their gradients and shape rules)."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("axis,index", [(0, np.s_[::-1]), (-1, np.s_[..., ::-1]),
                                        ((1, 2), np.s_[:, ::-1, ::-1]), ((2, 2), np.s_[:])])
def test_flip_and_reverse_match_numpy(axis, index):
    for fn in (nd.flip, nd.reverse):
        np.testing.assert_array_equal(fn(nd.array(X), axis=axis).asnumpy(), X[index])
    out = mx.sym.flip(mx.sym.var("x"), axis=axis).eval(x=nd.array(X))[0]
    np.testing.assert_array_equal(out.asnumpy(), X[index])


def test_flip_graph_is_mxnets_reverse_node():
    y = mx.sym.flip(mx.sym.var("x"), axis=1)
    node = json.loads(y.tojson())["nodes"][1]
    assert (node["op"], node["attrs"]) == ("reverse", {"axis": "1"})
    again = mx.sym.load_json(y.tojson())
    assert again.infer_shape(x=(2, 3, 4))[1] == [(2, 3, 4)]


def test_flip_gradient_flows_back_reversed():
    x = nd.array(X)
    x.attach_grad()
    head = nd.array(np.random.RandomState(0).rand(*X.shape))
    with autograd.record():
        y = nd.flip(x, axis=(0, 2))
    y.backward(head)
    np.testing.assert_array_equal(x.grad.asnumpy(), head.asnumpy()[::-1, :, ::-1])


def test_sequence_reverse_within_lengths():
    lengths = np.array([2, 3, 0])
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = nd.SequenceReverse(nd.array(x), sequence_length=nd.array(lengths),
                             use_sequence_length=True).asnumpy()
    want = x.copy()
    want[:2, 0], want[:3, 1] = x[1::-1, 0], x[2::-1, 1]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(nd.SequenceReverse(nd.array(x)).asnumpy(), x[::-1])


def test_reverse_errors_name_the_axis():
    with pytest.raises(ValueError, match="reverse: axis=3 is out of range for an array of 3 "
                                         "dimensions"):
        nd.flip(nd.array(X), axis=(0, 3))
    with pytest.raises(ValueError, match="reverse: axis=-4 is out of range"):
        mx.sym.flip(mx.sym.var("x"), axis=-4).infer_shape(x=(2, 3, 4))


def test_sequence_reverse_errors():
    with pytest.raises(ValueError, match=r"SequenceReverse: axis must be 0 \(data laid out as "
                                         r"\(T, N, \.\.\.\)\), got 1"):
        nd.SequenceReverse(nd.array(X), axis=1)
    with pytest.raises(ValueError, match=r"SequenceReverse: sequence_length must have shape "
                                         r"\(3,\) \(one length per sequence of data \(2, 3, "
                                         r"4\)\), got \(2,\)"):
        nd.SequenceReverse(nd.array(X), nd.array([1, 2]), use_sequence_length=True)
    with pytest.raises(ValueError, match="SequenceReverse: data must have at least 2 "
                                         r"dimensions \(T, N, \.\.\.\), got shape \(4,\)"):
        nd.SequenceReverse(nd.ones((4,)))
