"""The cells that wrap or combine cells (BidirectionalCell, ResidualCell, ZoneoutCell,
DropoutCell, contrib VariationalDropoutCell) and contrib LSTMPCell: values against numpy
references, gradients against finite differences, hybridized against imperative, unroll with
valid_length, names and errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import rnn
from gluonlite.gluon.contrib.rnn import LSTMPCell, VariationalDropoutCell
from gluonlite.test_utils import check_numeric_gradient

from helpers import check_block
from test_rnn import _np_unroll_valid, _weights, np_gru, np_lstm, np_rnn

R = np.random.RandomState(7)
T, N, C = 4, 3, 5


def _reverse_within(x_tnc, lengths):
    """numpy SequenceReverse: each sequence's first lengths[b] steps reversed."""
    out = x_tnc.copy()
    for b, n in enumerate(lengths.astype(int)):
        out[:n, b] = x_tnc[:n, b][::-1]
    return out


def _np_bidirectional(x_tnc, lengths, left, right):
    """numpy reference of BidirectionalCell.unroll: (outputs (T, N, Hl + Hr), states)."""
    out_l, st_l = _np_unroll_valid(T, x_tnc, lengths, [left])
    out_r, st_r = _np_unroll_valid(T, _reverse_within(x_tnc, lengths), lengths, [right])
    return np.concatenate([out_l, _reverse_within(out_r, lengths)], axis=-1), st_l + st_r


def _bi_cell():
    bi = rnn.BidirectionalCell(rnn.LSTMCell(3, input_size=C, prefix="l_"),
                               rnn.GRUCell(2, input_size=C, prefix="r_"))
    bi.initialize(mx.init.Uniform(0.5))
    return bi


def _bi_specs(bi):
    left, right = bi._children["l_cell"], bi._children["r_cell"]
    return (np_lstm, _weights(left), 2, 3), (np_gru, _weights(right), 1, 2)


def _as_layout(x_tnc, layout):
    return x_tnc if layout == "TNC" else x_tnc.swapaxes(0, 1)


@pytest.mark.parametrize("layout", ["NTC", "TNC"])
@pytest.mark.parametrize("valid", [False, True])
@pytest.mark.parametrize("merge", [True, False])
def test_bidirectional_matches_numpy(layout, valid, merge):
    bi = _bi_cell()
    x_tnc = R.uniform(-1, 1, (T, N, C)).astype(np.float32)
    lengths = np.array([4, 1, 3] if valid else [T] * N, np.float32)
    want_out, want_states = _np_bidirectional(x_tnc, lengths, *_bi_specs(bi))
    out, states = bi.unroll(T, nd.array(_as_layout(x_tnc, layout)), layout=layout,
                            merge_outputs=merge,
                            valid_length=nd.array(lengths) if valid else None)
    if merge:
        np.testing.assert_allclose(out.asnumpy(), _as_layout(want_out, layout), rtol=1e-5,
                                   atol=1e-6)
    else:
        assert len(out) == T
        for t, o in enumerate(out):
            np.testing.assert_allclose(o.asnumpy(), want_out[t], rtol=1e-5, atol=1e-6)
    assert len(states) == 3
    for got, want in zip(states, want_states):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_bidirectional_names_states_and_step_error():
    bi = rnn.BidirectionalCell(rnn.LSTMCell(4, prefix="l_"), rnn.GRUCell(3, prefix="r_"),
                               output_prefix="bi_")
    outs, _ = bi.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert mx.sym.Group(outs).list_outputs() == ["bi_t0_output", "bi_t1_output"]
    merged, _ = bi.unroll(2, mx.sym.var("x"), merge_outputs=True)
    assert merged.list_outputs() == ["bi_out_output"]
    assert [i["shape"] for i in bi.state_info(5)] == [(5, 4), (5, 4), (5, 3)]
    assert sorted(bi.collect_params().keys()) == sorted(
        f"{c}_{w}" for c in "lr" for w in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"))
    with pytest.raises(TypeError, match="cannot be stepped.*unroll"):
        bi(nd.ones((2, 3)), bi.begin_state(batch_size=2))


def _unroll_sym(cell, length, layout="NTC", valid=False, merge=True, state_vars=False):
    """The symbolic unroll of `cell` on a variable 'data' (and 'valid_length'; begin states
    as variables 's0', 's1', ... with `state_vars`), outputs and states grouped."""
    data = mx.sym.var("data")
    vl = mx.sym.var("valid_length") if valid else None
    begin = [mx.sym.var(f"s{i}") for i in range(len(cell.state_info()))] if state_vars \
        else None
    outs, states = cell.unroll(length, data, begin_state=begin, layout=layout,
                               merge_outputs=merge, valid_length=vl)
    return mx.sym.Group([outs] + list(states))


def _param_values(cell, rng):
    return {k: rng.uniform(-0.5, 0.5, p.shape) for k, p in cell.collect_params().items()}


@pytest.mark.parametrize("make", [
    lambda: rnn.BidirectionalCell(rnn.LSTMCell(1, input_size=2, prefix="l_"),
                                  rnn.RNNCell(2, input_size=2, prefix="r_")),
    lambda: rnn.ResidualCell(rnn.GRUCell(2, input_size=2, prefix="g_")),
    lambda: LSTMPCell(2, 1, input_size=2, prefix="p_"),
], ids=["bidirectional", "residual", "lstmp"])
def test_gradients_match_finite_differences(make):
    cell = make()
    cell.initialize()
    rng = np.random.RandomState(0)
    g = _unroll_sym(cell, 3, valid=True, state_vars=True)
    loc = _param_values(cell, rng)
    loc["data"] = rng.uniform(-1, 1, (2, 3, 2))
    for i, info in enumerate(cell.state_info(2)):
        loc[f"s{i}"] = rng.uniform(-1, 1, info["shape"])
    loc["valid_length"] = np.array([3, 2], np.float64)
    nodes = [k for k in loc if k != "valid_length"]
    check_numeric_gradient(g, loc, grad_nodes=nodes, numeric_eps=1e-6, rtol=1e-4, atol=1e-6,
                           dtype=np.float64)


class _Unroll(gluon.HybridBlock):
    """A cell unrolled over 4 steps with valid lengths inside a hybrid_forward."""

    def __init__(self, make, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = make()

    def hybrid_forward(self, F, x, valid_length):
        out, states = self.cell.unroll(4, x, layout="NTC", merge_outputs=True,
                                       valid_length=valid_length)
        return [out] + list(states)


@pytest.mark.parametrize("make,train", [
    (lambda: rnn.BidirectionalCell(rnn.LSTMCell(3, input_size=2), rnn.GRUCell(3, input_size=2)),
     True),
    (lambda: rnn.ResidualCell(rnn.LSTMCell(2, input_size=2)), True),
    (lambda: LSTMPCell(3, 2, input_size=2), True),
    (lambda: rnn.ZoneoutCell(rnn.GRUCell(2, input_size=2), 0.5, 0.5), False),
    (lambda: VariationalDropoutCell(rnn.RNNCell(2, input_size=2), 0.3, 0.3, 0.3), False),
], ids=["bidirectional", "residual", "lstmp", "zoneout", "vardrop"])
def test_hybridized_matches_imperative(make, train):
    """Stochastic cells are compared in predict mode (their masks keep everything)."""
    x = R.uniform(-1, 1, (3, 4, 2)).astype(np.float32)
    lengths = np.array([2, 4, 1], np.float32)
    outs = check_block(lambda: _Unroll(make), [x, lengths], train=train,
                       grad_inputs=[True, False], modes=("hybrid", "static"))[0]
    assert not outs[0][0, 2:].any() and not outs[0][2, 1:].any()


def test_static_alloc_predict_mode_gradients_match_imperative():
    # a static_alloc graph recorded under record(train_mode=False) keeps what its backward
    # reads out of the buffer pool (it once reused those buffers: wrong gradients)
    x = R.uniform(-1, 1, (3, 4, 2)).astype(np.float32)
    check_block(lambda: _Unroll(lambda: rnn.GRUCell(2, input_size=2)),
                [x, np.array([2, 4, 1], np.float32)], train=False, grad_inputs=[True, False],
                modes=("static",))


# ---- ResidualCell ----------------------------------------------------------------------------
@pytest.mark.parametrize("valid", [False, True])
def test_residual_adds_the_input(valid):
    cell = rnn.ResidualCell(rnn.RNNCell(C, input_size=C, prefix="rnn_"))
    cell.initialize(mx.init.Uniform(0.5))
    x_tnc = R.uniform(-1, 1, (T, N, C)).astype(np.float32)
    lengths = np.array([4, 2, 1] if valid else [T] * N, np.float32)
    base_out, base_states = _np_unroll_valid(
        T, x_tnc, lengths, [(np_rnn, _weights(cell.base_cell), 1, C)])
    keep = (np.arange(T)[:, None] < lengths[None, :])[..., None]
    out, states = cell.unroll(T, nd.array(x_tnc), layout="TNC", merge_outputs=True,
                              valid_length=nd.array(lengths) if valid else None)
    np.testing.assert_allclose(out.asnumpy(), base_out + np.where(keep, x_tnc, 0), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(), base_states[0], rtol=1e-5, atol=1e-6)
    step_out, _ = cell(nd.array(x_tnc[0]), cell.begin_state(batch_size=N))
    np.testing.assert_allclose(step_out.asnumpy(), base_out[0] + x_tnc[0], rtol=1e-5,
                               atol=1e-6)


def test_modifier_shares_params_and_locks_the_base_cell():
    base = rnn.GRUCell(4, prefix="rnn_")
    cell = rnn.ResidualCell(base)
    assert cell.prefix == "rnn_residualcell"
    assert sorted(cell.collect_params().keys()) == [
        "rnn_h2h_bias", "rnn_h2h_weight", "rnn_i2h_bias", "rnn_i2h_weight"]
    assert [s.shape for s in cell.begin_state(batch_size=2)] == [(2, 4)]
    with pytest.raises(ValueError, match="rnn: this cell is wrapped by a modifier cell"):
        base.begin_state(batch_size=2)
    with pytest.raises(ValueError, match="rnn: this cell is already wrapped"):
        rnn.ZoneoutCell(base)
    assert rnn.ZoneoutCell(rnn.LSTMCell(3, prefix="z_")).prefix == "z_zoneout"


def test_modifiers_refuse_a_bidirectional_base():
    def bi():
        return rnn.BidirectionalCell(rnn.GRUCell(2), rnn.GRUCell(2))

    with pytest.raises(ValueError, match="ZoneoutCell: base_cell .* BidirectionalCell"):
        rnn.ZoneoutCell(bi(), 0.5)
    stack = rnn.HybridSequentialRNNCell()
    stack.add(bi())
    with pytest.raises(ValueError, match="VariationalDropoutCell: base_cell .* "
                                         "BidirectionalCell"):
        VariationalDropoutCell(stack, drop_states=0.5)
    VariationalDropoutCell(bi(), drop_inputs=0.5)  # no state dropout: allowed


# ---- ZoneoutCell, DropoutCell, VariationalDropoutCell ----------------------------------------
def _train_unroll(cell, x, **kwargs):
    with autograd.record(train_mode=True):
        return cell.unroll(T, x, layout="TNC", merge_outputs=True, **kwargs)


def test_zoneout_keeps_new_or_previous_values():
    mx.random.seed(1)
    cell = rnn.ZoneoutCell(rnn.GRUCell(6, input_size=C), zoneout_outputs=0.5)
    cell.initialize(mx.init.Uniform(0.5))
    x = nd.array(R.uniform(-1, 1, (T, N, C)))
    predict, _ = cell.unroll(T, x, layout="TNC", merge_outputs=True)
    w = _weights(cell.base_cell)
    want, _ = _np_unroll_valid(T, x.asnumpy(), np.full(N, T, np.float32), [(np_gru, w, 1, 6)])
    np.testing.assert_allclose(predict.asnumpy(), want, rtol=1e-5, atol=1e-6)

    # in training, each output entry is the base cell's new output or the previous output
    out, _ = _train_unroll(cell, x)
    out = out.asnumpy()
    h, prev = np.zeros((N, 6), np.float32), np.zeros((N, 6), np.float32)
    took_new = took_prev = 0
    for t in range(T):
        new = np_gru(x.asnumpy()[t], [h], w)[0]
        is_new, is_prev = np.isclose(out[t], new, atol=1e-6), np.isclose(out[t], prev)
        assert (is_new | is_prev).all(), f"step {t}"
        took_new += is_new.sum()
        took_prev += (is_prev & ~is_new).sum()
        h, prev = new, out[t]
    assert took_new and took_prev


def test_dropout_cell():
    mx.random.seed(2)
    cell = rnn.DropoutCell(0.5)
    assert cell.state_info() == [] and cell.begin_state(batch_size=2) == []
    x = nd.array(R.uniform(1, 2, (T, N, C)))
    out, states = cell.unroll(T, x, layout="TNC", merge_outputs=True)
    assert states == [] and np.array_equal(out.asnumpy(), x.asnumpy())
    steps, _ = cell.unroll(T, x, layout="TNC", merge_outputs=False)
    assert len(steps) == T and np.array_equal(steps[1].asnumpy(), x.asnumpy()[1])
    x.attach_grad()
    out, _ = _train_unroll(cell, x)
    out.backward()
    ratio = out.asnumpy() / x.asnumpy()
    assert set(np.round(np.unique(ratio), 5)) == {0.0, 2.0}
    np.testing.assert_allclose(x.grad.asnumpy(), ratio)
    with pytest.raises(TypeError, match="DropoutCell: rate must be a number, got str"):
        rnn.DropoutCell("0.5")


@pytest.mark.parametrize("drop_states", [0.0, 0.5])
def test_variational_dropout_shares_one_mask_over_time(drop_states):
    mx.random.seed(3)
    cell = VariationalDropoutCell(rnn.LSTMCell(8, input_size=C), drop_outputs=0.5,
                                  drop_states=drop_states)
    cell.initialize(mx.init.Uniform(0.5))
    x = nd.array(R.uniform(-1, 1, (T, N, C)))
    base, _ = cell.unroll(T, x, layout="TNC", merge_outputs=True)
    want, _ = _np_unroll_valid(T, x.asnumpy(), np.full(N, T, np.float32),
                               [(np_lstm, _weights(cell.base_cell), 2, 8)])
    np.testing.assert_allclose(base.asnumpy(), want, rtol=1e-5, atol=1e-6)
    out, _ = _train_unroll(cell, x)
    dropped = out.asnumpy() == 0
    assert dropped.any() and not dropped.all()
    # the same entries are dropped at every step
    assert (dropped == dropped[:1]).all()
    if not drop_states:
        np.testing.assert_allclose(out.asnumpy(), np.where(dropped, 0, 2 * want), rtol=1e-5,
                                   atol=1e-6)


def test_variational_dropout_masks_live_until_reset():
    cell = VariationalDropoutCell(rnn.GRUCell(4, input_size=3), drop_inputs=0.5,
                                  drop_states=0.5)
    cell.initialize()
    states = cell.begin_state(batch_size=2)
    with autograd.record(train_mode=True):
        _, states = cell(nd.ones((2, 3)), states)
        masks = (cell.drop_inputs_mask, cell.drop_states_mask)
        cell(nd.ones((2, 3)), states)
    assert (cell.drop_inputs_mask, cell.drop_states_mask) == masks
    assert cell.drop_outputs_mask is None
    cell.reset()
    assert cell.drop_inputs_mask is None and cell.drop_states_mask is None


# ---- LSTMPCell -------------------------------------------------------------------------------
def np_lstmp(x, s, w):
    """The numpy LSTM step (state r feeds h2h), its output projected by h2r_weight."""
    h, _, c2 = np_lstm(x, s, w)
    r = h @ w["h2r_weight"].T
    return r, r, c2


def test_lstmp_matches_numpy():
    cell = LSTMPCell(6, 4, input_size=C, prefix="p_")
    assert sorted(cell.collect_params().keys()) == [
        "p_h2h_bias", "p_h2h_weight", "p_h2r_weight", "p_i2h_bias", "p_i2h_weight"]
    assert cell.h2h_weight.shape == (24, 4) and cell.h2r_weight.shape == (4, 6)
    assert [i["shape"] for i in cell.state_info(N)] == [(N, 4), (N, 6)]
    cell.initialize(mx.init.Uniform(0.5))
    x = R.uniform(-1, 1, (N, C)).astype(np.float32)
    states = [R.uniform(-1, 1, (N, 4)).astype(np.float32),
              R.uniform(-1, 1, (N, 6)).astype(np.float32)]
    out, new = cell(nd.array(x), [nd.array(s) for s in states])
    want = np_lstmp(x, states, _weights(cell))
    for got, w in zip([out] + new, want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert repr(cell) == "LSTMPCell(5 -> 24 -> 4)"


def test_stack_of_lstmp_in_bidirectional_unrolls_symbolically():
    stack = rnn.HybridSequentialRNNCell(prefix="lstm0_")
    with stack.name_scope():
        stack.add(rnn.BidirectionalCell(LSTMPCell(6, 3, prefix="l0_"),
                                        LSTMPCell(6, 3, prefix="r0_")))
    out = _unroll_sym(stack, 4, layout="TNC")
    arg_shapes, out_shapes, _ = out.infer_shape(data=(4, 2, 5))
    assert out_shapes == [(4, 2, 6), (2, 3), (2, 6), (2, 3), (2, 6)]
    assert "lstm0_l0_h2r_weight" in out.list_arguments()
