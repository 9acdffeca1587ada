"""Gradient destinations (`Fast.writes_dests`, MXNet's kWriteTo): a vjp handed the
array a gradient will end up in writes it there instead of making a new one that is then
copied. The arrays must be the ones written, and every gradient must equal the one
computed without destinations."""
import numpy as np
import pytest

from gluonlite import autograd, gluon, nd, sym
from gluonlite.control_flow.body import loop_optimizations
from gluonlite.executor import compile_plan
from gluonlite.test_utils import assert_almost_equal

T, N, I, H = 5, 3, 4, 6


def _rnn(loop):
    """A tanh RNN over `data` as one foreach or counted while_loop node."""
    data, h0 = sym.var("data"), sym.var("h0")
    w_i, b_i, w_h, b_h = (sym.var(k) for k in ("w_i", "b_i", "w_h", "b_h"))

    def cell(x, h):
        return sym.tanh(sym.FullyConnected(x, w_i, b_i, num_hidden=H) +
                        sym.FullyConnected(h, w_h, b_h, num_hidden=H))
    if loop == "foreach":
        outs, (last,) = sym.contrib.foreach(lambda x, s: (cell(x, s[0]), [cell(x, s[0])]),
                                            data, [h0])
        return sym.Group([outs, last])

    def func(i, h):
        new = cell(sym.squeeze(sym.take(data, i), axis=0), h)
        return new, [i + 1, new]
    outs, (_, last) = sym.contrib.while_loop(lambda i, h: i < T, func,
                                             [sym.var("i0"), h0], max_iterations=T)
    return sym.Group([outs[0], last])


@pytest.mark.parametrize("optimized", [True, False])
@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
def test_a_loop_writes_its_weight_gradients_into_the_given_arrays(loop, optimized):
    s = _rnn(loop)
    names = s.list_inputs()
    rng = np.random.RandomState(0)
    shapes = {"data": (T, N, I), "h0": (N, H), "i0": (1,), "w_i": (H, I), "b_i": (H,),
              "w_h": (H, H), "b_h": (H,)}
    args = [rng.randn(*shapes[n]) if n != "i0" else np.zeros(1) for n in names]
    with loop_optimizations(optimized):
        plan = compile_plan(s, [a.shape for a in args], ["float64"] * len(args),
                            is_train=True, grad_inputs=[n != "i0" for n in names],
                            static_alloc=True)
        outs, saved = plan.forward(args)
        heads = [rng.randn(*o.shape) for o in outs]
        plain = plan.backward(saved, heads)
        outs, saved = plan.forward(args)
        dests = [np.full(a.shape, np.nan) for a in args]
        given = plan.backward(saved, heads, dests=dests)
    for n, a, b, d in zip(names, plain, given, dests):
        if n == "i0":
            continue
        assert_almost_equal(b, a, rtol=1e-12, atol=1e-12)
        # Optimized loops sum weight gradients once, into the arrays; the plain loop (a
        # reference for tests) sums them step by step and does not use them.
        if (optimized and n in ("w_i", "w_h", "b_i", "b_h")) or \
                (n == "data" and loop == "foreach"):
            assert b is d, f"{n}: gradient not written into its destination"


def test_an_input_read_twice_gets_no_destination_and_the_sum_of_its_uses():
    x, w = sym.var("x"), sym.var("w")
    s = sym.FullyConnected(x, w, no_bias=True, num_hidden=3) + \
        sym.FullyConnected(x * 2, w, no_bias=True, num_hidden=3)
    rng = np.random.RandomState(1)
    args = [rng.randn(2, 4), rng.randn(3, 4)]
    plan = compile_plan(s, [(2, 4), (3, 4)], ["float64"] * 2, is_train=True,
                        grad_inputs=[True, True])
    _, saved = plan.forward(args)
    head = [rng.randn(2, 3)]
    dests = [np.zeros((2, 4)), np.zeros((3, 4))]
    gx, gw = plan.backward(saved, head, dests=dests)
    assert gw is not dests[1] and gx is not dests[0]
    np.testing.assert_allclose(gw, 3 * head[0].T @ args[0], rtol=1e-12)
    np.testing.assert_allclose(gx, 3 * head[0] @ args[1], rtol=1e-12)


@pytest.mark.parametrize("hybridize", [False, True])
def test_parameter_gradients_match_autograd_grad_for_write_and_add(hybridize):
    """backward() hands grad buffers down (grad_req='write'); autograd.grad computes the
    same gradients without them; grad_req='add' accumulates."""
    net = gluon.rnn.RNN(H, input_size=I)
    net.initialize()
    if hybridize:
        net.hybridize(static_alloc=True)
    x = nd.random.uniform(shape=(T, N, I))
    params = list(net.collect_params().values())
    buffers = [p.grad()._data for p in params]

    def loss():
        with autograd.record():
            return (net(x) ** 2).sum()
    loss().backward()
    with autograd.record():
        y = (net(x) ** 2).sum()
    reference = autograd.grad(y, [p.data() for p in params])
    for p, buf, ref in zip(params, buffers, reference):
        assert p.grad()._data is buf  # the same buffer, written in place
        assert_almost_equal(p.grad().asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)
    for p in params:
        p.grad_req = "add"
        p.zero_grad()
    loss().backward()
    loss().backward()
    for p, ref in zip(params, reference):
        assert_almost_equal(p.grad().asnumpy(), 2 * ref.asnumpy(), rtol=1e-5, atol=1e-6)


def test_imperative_fully_connected_writes_weight_gradient_in_place():
    x, w = nd.array(np.random.RandomState(2).randn(3, 4)), nd.ones((2, 4))
    w.attach_grad()
    buf = w.grad._data
    with autograd.record():
        y = nd.FullyConnected(x, w, no_bias=True, num_hidden=2)
    y.backward(nd.ones((3, 2)))
    assert w.grad._data is buf
    np.testing.assert_allclose(w.grad.asnumpy(), np.ones((2, 3)) @ x.asnumpy(), rtol=1e-6)
