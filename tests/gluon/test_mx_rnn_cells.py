"""mx.rnn (MXNet 1.x's symbolic cells): the same numbers as gluon.rnn's cells for the same
weights, gradients against finite differences, names, shared params, stacking, and the
cells inside foreach / while_loop against their unrolled graphs."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon, nd, sym
from gluonlite.test_utils import check_numeric_gradient

T, N, C, H = 3, 2, 4, 5
CELLS = {"rnn": (mx.rnn.RNNCell, gluon.rnn.RNNCell, 1, 1),
         "lstm": (mx.rnn.LSTMCell, gluon.rnn.LSTMCell, 4, 2),
         "gru": (mx.rnn.GRUCell, gluon.rnn.GRUCell, 3, 1)}


def _weights(n_gates, rng, dtype=np.float32):
    g = n_gates * H
    return {"i2h_weight": rng.uniform(-.5, .5, (g, C)), "i2h_bias": rng.uniform(-.5, .5, g),
            "h2h_weight": rng.uniform(-.5, .5, (g, H)), "h2h_bias": rng.uniform(-.5, .5, g)}


def _unrolled(kind, prefix="c_"):
    cell = CELLS[kind][0](H, prefix=prefix)
    states = cell.begin_state(func=sym.var)
    outs, new_states = cell.unroll(T, sym.var("data"), begin_state=states, layout="TNC",
                                   merge_outputs=True)
    return sym.Group([outs] + new_states), [s.name for s in states]


@pytest.mark.parametrize("kind", sorted(CELLS))
def test_same_numbers_as_the_gluon_cell(kind):
    _, gcls, n_gates, n_states = CELLS[kind]
    rng = np.random.default_rng(0)
    w = _weights(n_gates, rng)
    data = rng.standard_normal((T, N, C))
    states = [rng.standard_normal((N, H)) for _ in range(n_states)]
    graph, state_names = _unrolled(kind)
    args = {"data": nd.array(data), **{"c_" + k: nd.array(v) for k, v in w.items()},
            **{n: nd.array(s) for n, s in zip(state_names, states)}}
    got = graph.bind(mx.cpu(), args).forward()

    ref = gcls(H, input_size=C, prefix="g_")
    ref.initialize()
    for k, v in w.items():
        ref.params.get(k).set_data(nd.array(v))
    outs, ref_states = ref.unroll(T, nd.array(data), [nd.array(s) for s in states],
                                  layout="TNC", merge_outputs=True)
    for a, b in zip(got, [outs] + list(ref_states)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(CELLS))
def test_gradients_match_finite_differences(kind):
    n_gates, n_states = CELLS[kind][2:]
    rng = np.random.default_rng(1)
    graph, state_names = _unrolled(kind)
    loc = {"data": rng.standard_normal((T, N, C)),
           **{"c_" + k: v for k, v in _weights(n_gates, rng).items()},
           **{n: rng.standard_normal((N, H)) for n in state_names}}
    check_numeric_gradient(graph, loc, dtype=np.float64, rtol=1e-5, atol=1e-7)


def test_names_follow_the_prefix_and_the_step():
    with mx.name.NameManager():
        cell = mx.rnn.LSTMCell(H, prefix="l_")
        out, states = cell(sym.var("x"), cell.begin_state())
    assert out.list_arguments() == ["x", "l_i2h_weight", "l_i2h_bias", "l_h2h_weight",
                                    "l_h2h_bias"]
    assert out.name == "l_t0_out" and states[1].name == "l_t0_state"
    assert [s.name for s in cell.begin_state()] == ["l_begin_state_2", "l_begin_state_3"]
    assert cell.state_shape == [(0, H), (0, H)]
    bias = [n for n in out.get_internals() if n.name == "l_i2h_bias"][0]
    assert bias.attr("__init__") == '["lstmbias", {"forget_bias": 1.0}]'


def test_cells_given_one_params_share_the_weight_variables():
    params = mx.rnn.RNNParams("shared_")
    a, b = mx.rnn.GRUCell(H, params=params), mx.rnn.GRUCell(H, params=params)
    x = sym.var("x")
    h = a(x, [sym.var("h")])[0]
    y = b(h, [h])[0]
    assert sorted(y.list_arguments()) == ["h", "shared_h2h_bias", "shared_h2h_weight",
                                          "shared_i2h_bias", "shared_i2h_weight", "x"]


def test_sequential_cell_stacks_and_matches_unrolling_each_cell():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, prefix="l0_"))
    stack.add(mx.rnn.GRUCell(H, prefix="l1_"))
    assert stack.state_shape == [(0, H), (0, H), (0, H)]
    outs, states = stack.unroll(T, sym.var("data"), layout="TNC", merge_outputs=True)
    rng = np.random.default_rng(2)
    arg_shapes, out_shapes, _ = sym.Group([outs] + states).infer_shape(data=(T, N, C))
    assert out_shapes == [(T, N, H)] + [(N, H)] * 3
    args = {n: nd.array(rng.uniform(-.5, .5, s))
            for n, s in zip(outs.list_arguments(), arg_shapes)}
    stepped = []
    h = [sym.zeros((N, H)) for _ in range(3)]
    stack.reset()
    for t in range(T):
        o, h = stack(sym.squeeze(sym.slice_axis(sym.var("data"), axis=0, begin=t, end=t + 1),
                                 axis=0), h)
        stepped.append(o)
    a = outs.bind(mx.cpu(), args).forward()[0].asnumpy()
    b = sym.stack(*stepped, axis=0).bind(mx.cpu(), args).forward()[0].asnumpy()
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="LSTMCell: num_hidden must be an int >= 1, got 0"):
        mx.rnn.LSTMCell(0)
    cell = mx.rnn.RNNCell(H)
    with pytest.raises(ValueError, match="unroll: length is 3 but inputs has 2 step"):
        cell.unroll(3, [sym.var("a"), sym.var("b")])
    with pytest.raises(ValueError, match="unroll: layout must name one time axis"):
        cell.unroll(3, sym.var("a"), layout="NC")
    with pytest.raises(ValueError, match="unroll: inputs is None; pass a Symbol"):
        cell.unroll(3, None)
    with pytest.raises(TypeError, match="unroll: inputs is a group of 2 outputs"):
        cell.unroll(3, sym.Group([sym.var("a"), sym.var("b")]))
    with pytest.raises(TypeError, match="SequentialRNNCell.add: cell must be an mx.rnn cell, "
                                        "got RNNCell"):
        mx.rnn.SequentialRNNCell().add(gluon.rnn.RNNCell(H))
    stack = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams())
    with pytest.raises(ValueError, match="give params to the SequentialRNNCell or to its "
                                         "cells, not both"):
        stack.add(mx.rnn.RNNCell(H, params=mx.rnn.RNNParams()))
    with pytest.raises(ValueError, match=r"DropoutCell: dropout must be a number in \[0, 1\)"):
        mx.rnn.DropoutCell(1.5)


@pytest.mark.parametrize("kind", sorted(CELLS))
def test_cells_in_foreach_match_the_unrolled_graph(kind):
    mcls, _, n_gates, n_states = CELLS[kind]
    params = mx.rnn.RNNParams("p_")

    def step(x, states):
        return mcls(H, prefix="p_", params=params)(x, states)
    init = [sym.var(f"s{k}") for k in range(n_states)]
    outs, states = sym.contrib.foreach(step, sym.var("data"), init)
    looped = sym.Group([outs] + states)
    cell = mcls(H, prefix="p_")
    ref_outs, ref_states = cell.unroll(T, sym.var("data"), begin_state=init, layout="TNC",
                                       merge_outputs=True)
    unrolled = sym.Group([ref_outs] + ref_states)
    rng = np.random.default_rng(3)
    loc = {"data": rng.standard_normal((T, N, C)),
           **{"p_" + k: v for k, v in _weights(n_gates, rng).items()},
           **{f"s{k}": rng.standard_normal((N, H)) for k in range(n_states)}}
    heads = [rng.standard_normal((T, N, H))] + [rng.standard_normal((N, H))] * n_states
    results = []
    for g in (looped, unrolled):
        args = {k: nd.array(loc[k], dtype="float64") for k in g.list_arguments()}
        grads = {k: nd.zeros(v.shape, dtype="float64") for k, v in args.items()}
        exe = g.bind(mx.cpu(), args, args_grad=grads)
        outs_ = [o.asnumpy() for o in exe.forward(is_train=True)]
        exe.backward([nd.array(h, dtype="float64") for h in heads])
        results.append((outs_, {k: v.asnumpy() for k, v in grads.items()}))
    (o1, g1), (o2, g2) = results
    for a, b in zip(o1, o2):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    assert sorted(g1) == sorted(g2)
    for k in g1:
        np.testing.assert_allclose(g1[k], g2[k], rtol=1e-9, atol=1e-12)
