"""The numpy floor and gluonlite's loop layers compute the same thing (issue 8's check).

At tiny sizes, for RNN/GRU/LSTM cells: the hybridized (static_alloc) ForeachRNN and
WhileRNN layers and the imperative ForeachRNN give the floor's outputs and the floor's
gradients of the outputs' sum w.r.t. parameters, inputs and initial states, with the
parameters copied from the gluon cell into the floor.
"""
import numpy as np
import pytest

from gluonlite import autograd, nd
from gluonlite.bench import floor
from gluonlite.bench.models import ForeachRNN, WhileRNN, make_cell

T, N, I, H = 4, 2, 5, 6
CELLS = ["RNNCell", "GRUCell", "LSTMCell"]
LAYERS = [(ForeachRNN, True), (WhileRNN, True), (ForeachRNN, False)]


def _inputs(cell, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, N, I)).astype("float32")
    states = [rng.standard_normal((N, H)).astype("float32")
              for _ in range(floor.num_states(cell))]
    return x, states


def _run_layer(loop, hybrid, cell, x_np, states_np):
    layer = loop(make_cell(cell, H, input_size=I), T)
    layer.initialize()
    if hybrid:
        layer.hybridize(static_alloc=True)
    x = nd.array(x_np)
    x.attach_grad()
    states = [nd.array(s) for s in states_np]
    for s in states:
        s.attach_grad()
    args = ([nd.zeros((1,))] if loop is WhileRNN else []) + states
    for _ in range(2):  # the second call runs the compiled (cached) plan when hybridized
        with autograd.record():
            out = layer(x, args)
        out.backward()
    grads = {"data": x.grad.asnumpy(), "states": [s.grad.asnumpy() for s in states]}
    grads.update(floor.params_from_named(
        {name: p.grad() for name, p in layer.collect_params().items()}))
    params = floor.params_from_named(layer.collect_params())
    return out.asnumpy(), grads, params, layer(x, args).asnumpy()


@pytest.mark.parametrize("loop,hybrid", LAYERS, ids=["hybrid-foreach", "hybrid-while_loop",
                                                      "imperative-foreach"])
@pytest.mark.parametrize("cell", CELLS)
def test_layer_matches_both_floors(cell, loop, hybrid):
    x, states = _inputs(cell)
    out, grads, params, out_infer = _run_layer(loop, hybrid, cell, x, states)
    np.testing.assert_allclose(out_infer, out, rtol=1e-6, atol=1e-6)
    for fused in (False, True):
        errors = floor.check_against_reference(cell, x, states, params, out, grads,
                                               fused=fused, rtol=1e-4, atol=1e-5)
        assert set(errors) >= {"outputs", "i2h_weight", "h2h_bias", "data", "states[0]"}
        infer = floor.FloorRNN(cell, T, N, I, H, fused=fused).forward(x, states, params)
        np.testing.assert_allclose(infer, out_infer, rtol=1e-4, atol=1e-5)


def test_floor_check_catches_a_wrong_parameter():
    """The comparison the benchmark relies on fails when the floor gets other weights."""
    x, states = _inputs("LSTMCell")
    out, grads, params, _ = _run_layer(ForeachRNN, True, "LSTMCell", x, states)
    params = dict(params, h2h_bias=params["h2h_bias"] + 0.1)
    with pytest.raises(AssertionError, match="outputs"):
        floor.check_against_reference("LSTMCell", x, states, params, out, grads)
