"""Shape inference keeps the known dimensions of a partly known shape (0 = unknown), as
MXNet 1.9.1 does; the expected shapes are MXNet's, worked out by hand."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym


def test_foreach_keeps_the_known_dims_of_its_data():
    step = lambda data, states: (data + states[0], [states[0] * 2])  # noqa: E731
    data = sym.var("data", shape=(0, 3, 32, 32))
    outs, states = sym.contrib.foreach(step, data, [sym.var("state")])
    args, out_shapes, aux = outs.infer_shape_partial()
    assert args == [(0, 3, 32, 32), (3, 32, 32)] and out_shapes == [(0, 3, 32, 32)]
    assert aux == []
    assert outs.infer_shape() == (None, None, None)   # not every dimension is known


def test_fully_connected_infers_its_weights_from_a_partial_batch():
    y = sym.FullyConnected(sym.var("x", shape=(0, 6)), num_hidden=4, name="fc")
    assert y.infer_shape_partial() == ([(0, 6), (4, 6), (4,)], [(0, 4)], [])


@pytest.mark.parametrize("make, expected", [
    (lambda x: sym.reshape(x, shape=(-1, 4)), (0, 4)),
    (lambda x: sym.transpose(x), (6, 0)),
    (lambda x: sym.concat(x, x, dim=0), (0, 6)),
    (lambda x: sym.concat(x, x, dim=1), (0, 12)),
    (lambda x: sym.sum(x, axis=0), (6,)),
    (lambda x: sym.expand_dims(sym.relu(x), axis=1), (0, 1, 6)),
])
def test_unknown_dims_stay_unknown_and_known_ones_flow(make, expected):
    out = make(sym.var("x", shape=(0, 6)))
    assert out.infer_shape_partial()[1] == [expected]


def test_a_whole_shape_completes_a_partial_one():
    x, w = sym.var("x", shape=(0, 6)), sym.var("w")
    assert (x + w).infer_shape(w=(5, 6)) == ([(5, 6), (5, 6)], [(5, 6)], [])
    assert (x + w).infer_shape(x=(5, 6)) == ([(5, 6), (5, 6)], [(5, 6)], [])


def test_partial_shapes_that_disagree_name_the_node_and_both_shapes():
    x, w = sym.var("x", shape=(0, 6)), sym.var("w")
    with pytest.raises(ValueError, match=r"input 'x' has shape \(0, 6\) but the operator "
                                         r"needs \(5, 7\)"):
        (x + w).infer_shape_partial(w=(5, 7))
    # a given shape that contradicts the declared one replaces it, as in MXNet 1.9.1
    assert sym.relu(x).infer_shape(x=(5, 7))[1] == [(5, 7)]


def test_a_partial_given_shape_is_merged_with_a_declared_one():
    # (MXNet 1.9.1 answers (3, 0) here, dropping the given 4; gluonlite keeps both)
    x = sym.var("x", shape=(3, 0))
    assert sym.relu(x).infer_shape_partial(x=(0, 4))[1] == [(3, 4)]


def test_bound_graph_with_a_partial_declared_input_runs():
    x = sym.var("x", shape=(0, 3))
    y = sym.FullyConnected(x, num_hidden=2, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(4, 3))
    assert exe.arg_dict["fc_weight"].shape == (2, 3)
    exe.arg_dict["x"][:] = nd.ones((4, 3))
    exe.arg_dict["fc_weight"][:] = nd.ones((2, 3))
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), np.full((4, 2), 3.0))


def test_zero_begin_state_learns_its_batch_from_the_graph():
    cell = mx.rnn.GRUCell(5, prefix="g_")
    outs, states = cell.unroll(3, sym.var("data"), layout="TNC", merge_outputs=True)
    args, out_shapes, _ = sym.Group([outs] + states).infer_shape(data=(3, 2, 4))
    assert out_shapes == [(3, 2, 5), (2, 5)]
