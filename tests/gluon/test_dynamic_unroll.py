"""gluon.contrib.rnn.rnn_cell.dynamic_unroll: a cell run over a sequence by one foreach loop.
Values and gradients against the cell's own unroll and against a numpy reference of
valid_length, hybridized against imperative, the graph's single loop node, finite
differences of the symbol, the dropout masks and the errors."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.gluon import rnn
from gluonlite.gluon.contrib.rnn.rnn_cell import dynamic_unroll
from gluonlite.test_utils import check_numeric_gradient

from helpers import check_block
from test_rnn import _np_unroll_valid, _weights, np_gru, np_lstm, np_rnn

T, N, C, H = 4, 3, 5, 2
CELLS = {"rnn": (rnn.RNNCell, np_rnn, 1), "lstm": (rnn.LSTMCell, np_lstm, 2),
         "gru": (rnn.GRUCell, np_gru, 1)}
R = np.random.RandomState(11)


class Unrolled(gluon.HybridBlock):
    """What a user writes: the cell run by dynamic_unroll inside a HybridBlock (valid_length
    passed as an empty list when there is none, as MXNet's own test does)."""

    def __init__(self, kind, layout, **kwargs):
        super().__init__(**kwargs)
        self.layout = layout
        with self.name_scope():
            self.cell = CELLS[kind][0](H, input_size=C)

    def hybrid_forward(self, F, x, states, valid_length):
        if isinstance(valid_length, list) and not valid_length:
            valid_length = None
        return dynamic_unroll(self.cell, x, states, layout=self.layout,
                              valid_length=valid_length)


def _data(layout):
    x = R.uniform(-1, 1, (T, N, C)).astype(np.float32)
    return x if layout == "TNC" else x.transpose(1, 0, 2)


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
@pytest.mark.parametrize("length_dtype", ["float32", "int32"])
def test_valid_length_matches_numpy(kind, layout, length_dtype):
    cls, np_step, n_states = CELLS[kind]
    cell = cls(H, input_size=C)
    cell.initialize(mx.init.Uniform(0.5))
    x = _data(layout)
    lengths = np.array([2, 4, 1], np.float32)
    zeros = [nd.zeros((N, H)) for _ in range(n_states)]
    out, states = dynamic_unroll(cell, nd.array(x), zeros, layout=layout,
                                 valid_length=nd.array(lengths, dtype=length_dtype))
    x_tnc = x if layout == "TNC" else x.transpose(1, 0, 2)
    want, want_states = _np_unroll_valid(T, x_tnc, lengths,
                                         [(np_step, _weights(cell), n_states, H)])
    if layout == "NTC":
        want = want.transpose(1, 0, 2)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert len(states) == n_states  # the step counter is not returned
    for got, ref in zip(states, want_states):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
@pytest.mark.parametrize("with_length", [False, True])
def test_outputs_states_and_gradients_equal_the_cells_unroll(kind, layout, with_length):
    n_states = CELLS[kind][2]
    x = _data(layout)
    states = [R.uniform(-1, 1, (N, H)).astype(np.float32) for _ in range(n_states)]
    lengths = nd.array([3, 1, 4]) if with_length else None
    results = []
    for run in ("unroll", "dynamic"):
        mx.random.seed(0)
        cell = CELLS[kind][0](H, input_size=C, prefix="c_")
        cell.initialize(mx.init.Uniform(0.5))
        xs, hs = nd.array(x), [nd.array(s) for s in states]
        for a in [xs] + hs:
            a.attach_grad()
        with autograd.record():
            if run == "unroll":
                out, new = cell.unroll(T, xs, hs, layout=layout, merge_outputs=True,
                                       valid_length=lengths)
            else:
                out, new = dynamic_unroll(cell, xs, hs, layout=layout, valid_length=lengths)
            loss = (out * out).sum() + sum((s * 3).sum() for s in new)
        loss.backward()
        results.append([out.asnumpy()] + [s.asnumpy() for s in new] + [xs.grad.asnumpy()]
                       + [h.grad.asnumpy() for h in hs]
                       + [p.grad().asnumpy() for p in cell.collect_params().values()])
    for got, ref in zip(results[1], results[0]):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
def test_hybridized_matches_imperative(kind, layout):
    n_states = CELLS[kind][2]
    x = _data(layout)
    states = [R.uniform(-1, 1, (N, H)).astype(np.float32) for _ in range(n_states)]

    class WithLength(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.inner = Unrolled(kind, layout)

        def hybrid_forward(self, F, x, lengths, *states):
            return self.inner(x, list(states), lengths)
    check_block(WithLength, [x, np.array([2, 4, 3], np.float32)] + states,
                grad_inputs=[True, False] + [True] * n_states)


def test_hybridized_graph_holds_one_loop_node():
    block = Unrolled("lstm", "NTC")
    block.initialize()
    out, _ = block(sym.var("x"), [sym.var("h"), sym.var("c")], sym.var("n"))
    nodes = json.loads(out.tojson())["nodes"]
    ops = [node["op"] for node in nodes]
    assert ops.count("_foreach") == 1
    assert "FullyConnected" not in ops  # the cell's operators live in the loop's body
    loop = nodes[ops.index("_foreach")]
    body_ops = [n["op"] for n in loop["subgraphs"][0]["nodes"]]
    assert body_ops.count("FullyConnected") == 2 and "where" in body_ops


def test_gradients_match_finite_differences():
    mx.random.seed(3)
    cell = rnn.GRUCell(H, input_size=C, prefix="g_")
    x, h, n = sym.var("x"), sym.var("h"), sym.var("n")
    out, states = dynamic_unroll(cell, x, [h], layout="NTC", valid_length=n)
    net = sym.Group([out, states[0]])
    shapes, _, _ = net.infer_shape(x=(N, T, C), h=(N, H), n=(N,))
    loc = {name: R.uniform(-1, 1, shape) for name, shape in zip(net.list_arguments(), shapes)}
    loc["n"] = np.array([2.0, 4.0, 3.0])
    check_numeric_gradient(net, loc, grad_nodes=[a for a in net.list_arguments() if a != "n"],
                           dtype=np.float64)


class _Echo(rnn.HybridRecurrentCell):
    """A cell whose output is its input: what dropout did to the inputs shows as outputs."""

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, C), "__layout__": "NC"}]

    def hybrid_forward(self, F, x, states):
        return x, states


@pytest.mark.parametrize("layout", ["TNC", "NTC"])
@pytest.mark.parametrize("where", ["drop_inputs", "drop_outputs"])
def test_dropout_masks_are_one_per_sequence(layout, where):
    mx.random.seed(5)
    shape = (T, 64, C) if layout == "TNC" else (64, T, C)
    with autograd.train_mode():
        out, _ = dynamic_unroll(_Echo(), nd.ones(shape), [nd.zeros((64, C))], layout=layout,
                                **{where: 0.5})
    y = out.asnumpy() if layout == "TNC" else out.asnumpy().transpose(1, 0, 2)
    assert set(np.unique(y)) == {0.0, 2.0}  # inverted dropout at p = 0.5
    assert (y == y[:1]).all()  # the same mask at every step
    assert 0.3 < (y[0] == 0).mean() < 0.7  # and not one mask for the whole batch
    assert len({row.tobytes() for row in y[0]}) > 1
    out, _ = dynamic_unroll(_Echo(), nd.ones(shape), [nd.zeros((64, C))], layout=layout,
                            **{where: 0.5})
    assert (out.asnumpy() == 1).all()  # no dropout outside training


def test_begin_state_none_is_the_cells_zero_state():
    cell = rnn.LSTMCell(H, input_size=C)
    cell.initialize()
    x = nd.array(_data("TNC"))
    got, got_states = dynamic_unroll(cell, x, None)
    ref, ref_states = dynamic_unroll(cell, x, [nd.zeros((N, H)), nd.zeros((N, H))])
    for a, b in zip([got] + got_states, [ref] + ref_states):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_a_list_of_steps_is_stacked():
    cell = rnn.RNNCell(H, input_size=C)
    cell.initialize()
    x = _data("TNC")
    got, _ = dynamic_unroll(cell, [nd.array(s) for s in x], [nd.zeros((N, H))])
    ref, _ = dynamic_unroll(cell, nd.array(x), [nd.zeros((N, H))])
    np.testing.assert_array_equal(got.asnumpy(), ref.asnumpy())


def test_a_layout_without_time_and_batch_axes_is_refused():
    cell = rnn.RNNCell(H, input_size=C)
    cell.initialize()
    with pytest.raises(ValueError, match="layout must contain 'T' and 'N'"):
        dynamic_unroll(cell, nd.ones((T, N, C)), [nd.zeros((N, H))], layout="ABC")


def test_it_is_where_mxnet_keeps_it():
    assert gluon.contrib.rnn.rnn_cell.dynamic_unroll is dynamic_unroll
