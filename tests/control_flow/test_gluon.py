"""F.contrib.* inside HybridBlock.hybrid_forward: imperative vs hybridized (static_alloc too),
under autograd.record(); the blog's ForeachRNN."""
import numpy as np

import gluonlite as mx
from gluonlite import nd, autograd, gluon


def _flat(x):
    return [e for v in x for e in _flat(v)] if isinstance(x, (list, tuple)) else [x]


def _run(net, inputs, hybridize, static_alloc=False):
    if hybridize:
        net.hybridize(static_alloc=static_alloc)
    xs = [nd.array(x) for x in inputs]
    params = list(net.collect_params().values())
    with autograd.record():
        out = net(*xs)
        outs = _flat(out)
        loss = sum((o * (k + 1)).sum() for k, o in enumerate(outs))
    loss.backward()
    return [o.asnumpy() for o in outs], [p.grad().asnumpy().copy() for p in params]


def _compare(make, inputs):
    ref = None
    for hyb, static in ((False, False), (True, False), (True, True)):
        mx.random.seed(0)
        np.random.seed(0)
        net = make()
        net.initialize()
        got = _run(net, inputs, hyb, static)
        got2 = _run(net, inputs, hyb, static) if hyb else got   # cached graph, second call
        if ref is None:
            ref = got
        for a, b in zip(ref[0] + ref[1], got2[0] + got2[1]):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


class ForeachRNN(gluon.HybridBlock):
    """The blog's model: an RNN cell run by foreach."""

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = cell

    def hybrid_forward(self, F, inputs, states):
        def body(data, states):
            out, states = self.cell(data, states)
            return [out, states], states
        outs, _ = F.contrib.foreach(body, inputs, states)
        return outs


def test_foreach_rnn_from_the_blog(on_ctx):
    data = np.random.randn(6, 3, 4).astype(np.float32)

    class Wrap(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.rnn = ForeachRNN(gluon.rnn.RNNCell(5, input_size=4))

        def hybrid_forward(self, F, x, h):
            return self.rnn(x, [h])
    _compare(Wrap, [data, np.zeros((3, 5), np.float32)])


class WhileDense(gluon.HybridBlock):
    """A dense layer applied while a counter runs, then a cond on the result."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.w = self.params.get("w", shape=(4, 4))

    def hybrid_forward(self, F, x, i, w):
        def func(i, h):
            h2 = F.tanh(F.FullyConnected(h, w, no_bias=True, num_hidden=4))
            return [h2], [i + 1, h2]
        outs, (_, h) = F.contrib.while_loop(lambda i, h: i < 3, func, [i, x],
                                            max_iterations=5)
        y = F.contrib.cond(h.sum() > 0, lambda: h * 2, lambda: h - 1)
        return [outs[0], y]


def test_while_loop_and_cond_in_hybrid_forward(on_ctx):
    x = np.random.randn(2, 4).astype(np.float32)
    _compare(WhileDense, [x, np.array([0], np.float32)])
