"""while_loop: nd (reference) vs sym, values and gradients; int64 sum loops; zero rows."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym, autograd
from harness import check_imperative_vs_symbolic


def _sum_loop(F, i, s, limit=5, max_iterations=10):
    return F.contrib.while_loop(lambda i, s: i <= limit,
                                lambda i, s: ([i + s], [i + 1, s + i]),
                                [i, s], max_iterations=max_iterations)


@pytest.mark.parametrize("limit,steps", [(5, 6), (-1, 0), (100, 10)])
def test_int64_sum_loop_nd_and_sym(limit, steps):
    i0, s0 = 0, 1
    ref_out, i, s = [], i0, s0
    while i <= limit and len(ref_out) < 10:
        ref_out.append(i + s)
        i, s = i + 1, s + i
    ref = np.zeros((10, 1), np.int64)
    ref[:len(ref_out), 0] = ref_out
    assert len(ref_out) == steps
    outs, (fi, fs) = _sum_loop(nd, nd.array([i0], dtype="int64"),
                               nd.array([s0], dtype="int64"), limit)
    if steps == 0:
        assert outs == []   # as MXNet 1.9.1: func never ran, nothing to stack
    else:
        (o,) = outs
        assert o.dtype == np.int64 and o.shape == (10, 1)
        np.testing.assert_array_equal(o.asnumpy(), ref)
    assert (fi.asscalar(), fs.asscalar()) == (i, s)
    outs, states = _sum_loop(sym, sym.var("i"), sym.var("s"), limit)
    g = sym.Group(outs + states)
    res = g.bind(mx.cpu(), {"i": nd.array([i0], dtype="int64"),
                            "s": nd.array([s0], dtype="int64")}).forward()
    np.testing.assert_array_equal(res[0].asnumpy(), ref)
    assert (res[1].asscalar(), res[2].asscalar()) == (i, s)
    assert res[0].dtype == np.int64


def _multi(F, x, h, w, unused, n_it):
    """Several step outputs and states; a free variable used (w) and one not (unused); a
    loop var that is also a step output; a counter that is an int."""
    def cond(i, a, b):
        return i < n_it

    def func(i, a, b):
        a2 = F.tanh(a * w + b)
        b2 = b * 0.9 + a2
        return [a2, b, a2 * 2], [i + 1, a2, b2]
    outs, states = F.contrib.while_loop(cond, func, [x, h, h * 0.5],
                                        max_iterations=7)
    return outs, states, unused * 3


def test_several_outputs_states_and_free_variables():
    rng = np.random.RandomState(1)
    inputs = {"x": np.array([0.0], np.float32), "h": rng.randn(2, 3).astype(np.float32),
              "w": rng.randn(2, 3).astype(np.float32),
              "unused": rng.randn(2, 3).astype(np.float32)}

    def build(F, x, h, w, unused):
        return _multi(F, x, h, w, unused, 4)
    iv, ig = check_imperative_vs_symbolic(build, inputs, ["h", "w", "unused"])
    assert iv[0].shape == (7, 2, 3)
    np.testing.assert_array_equal(iv[0][4:], 0)       # rows past the last step are zeros
    assert np.abs(ig["w"]).sum() > 0


def test_loop_var_passed_through_and_output_is_input():
    rng = np.random.RandomState(2)
    inputs = {"a": rng.randn(3).astype(np.float32), "c": rng.randn(3).astype(np.float32)}

    def build(F, a, c):
        # `c` is a loop var returned unchanged and also a step output
        return F.contrib.while_loop(lambda a, c: (a * 0 + 1).sum() > 0,
                                    lambda a, c: ([c, a], [a * c, c]), [a, c],
                                    max_iterations=3)
    check_imperative_vs_symbolic(build, inputs, ["a", "c"])


def test_closure_over_outer_computation_and_loop_var_twice():
    rng = np.random.RandomState(3)
    inputs = {"x": rng.randn(2, 2).astype(np.float32), "y": rng.randn(2, 2).astype(np.float32)}

    def build(F, x, y):
        z = F.tanh(x) * y             # computed outside, closed over by the body
        return F.contrib.while_loop(lambda a, b: (a * 0).sum() < 1,
                                    lambda a, b: ([a * z], [a + z + x, b * a]),
                                    [x, x], max_iterations=4)
    check_imperative_vs_symbolic(build, inputs, ["x", "y"])


def test_lstm_while_loop_matches_explicit_unroll():
    """An LSTM step through while_loop vs the same cell unrolled in Python: values and grads,
    imperatively and as a graph."""
    rng = np.random.RandomState(4)
    T, N, I, H = 5, 2, 3, 4
    inputs = {"data": rng.randn(T, N, I).astype(np.float32),
              "h": rng.randn(N, H).astype(np.float32), "c": rng.randn(N, H).astype(np.float32),
              "wi": rng.randn(4 * H, I).astype(np.float32) * 0.5,
              "wh": rng.randn(4 * H, H).astype(np.float32) * 0.5,
              "b": rng.randn(4 * H).astype(np.float32) * 0.1,
              "i": np.array([0], np.int64)}

    def cell(F, x, h, c, wi, wh, b):
        gates = F.FullyConnected(x, wi, b, num_hidden=4 * H) + \
            F.FullyConnected(h, wh, no_bias=True, num_hidden=4 * H)
        ig, fg, cc, og = F.split(gates, num_outputs=4, axis=1)
        c2 = F.sigmoid(fg) * c + F.sigmoid(ig) * F.tanh(cc)
        return F.sigmoid(og) * F.tanh(c2), c2

    def looped(F, data, h, c, wi, wh, b, i):
        def func(i, h, c):
            x = F.take(data, i).reshape((N, I))
            h2, c2 = cell(F, x, h, c, wi, wh, b)
            return [h2], [i + 1, h2, c2]
        outs, (_, h, c) = F.contrib.while_loop(lambda i, h, c: i < T, func, [i, h, c],
                                               max_iterations=T)
        return outs + [h, c]

    def unrolled(F, data, h, c, wi, wh, b, i):
        outs = []
        for t in range(T):
            x = F.slice_axis(data, axis=0, begin=t, end=t + 1).reshape((N, I))
            h, c = cell(F, x, h, c, wi, wh, b)
            outs.append(h)
        return [F.stack(*outs, axis=0), h, c]

    grads = ["data", "h", "c", "wi", "wh", "b"]
    lv, lg = check_imperative_vs_symbolic(looped, inputs, grads)
    uv, ug = check_imperative_vs_symbolic(unrolled, inputs, grads, via_json=False)
    for a, b in zip(lv, uv):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for k in grads:
        np.testing.assert_allclose(lg[k], ug[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_gradients_match_finite_differences_float64():
    rng = np.random.RandomState(5)
    x0, w0 = rng.randn(3), rng.randn(3)
    x, w = sym.var("x"), sym.var("w")
    outs, states = sym.contrib.while_loop(lambda a: (a * 0).sum() < 1,
                                          lambda a: ([sym.tanh(a * w)], [sym.sin(a) + w * a]
                                                     if hasattr(sym, "sin") else
                                                     [sym.tanh(a) + w * a]),
                                          [x], max_iterations=3)
    g = sym.Group(outs + states)
    hg = [rng.randn(3, 3), rng.randn(3)]

    def loss(xv, wv):
        r = g.bind(mx.cpu(), {"x": nd.array(xv, dtype="float64"),
                              "w": nd.array(wv, dtype="float64")}).forward()
        return sum((o.asnumpy() * h).sum() for o, h in zip(r, hg))

    gx, gw = nd.zeros(3, dtype="float64"), nd.zeros(3, dtype="float64")
    exe = g.bind(mx.cpu(), {"x": nd.array(x0, dtype="float64"),
                            "w": nd.array(w0, dtype="float64")}, args_grad={"x": gx, "w": gw})
    exe.forward(is_train=True)
    exe.backward([nd.array(h, dtype="float64") for h in hg])
    eps = 1e-6
    for k in range(3):
        e = np.zeros(3)
        e[k] = eps
        np.testing.assert_allclose(gx.asnumpy()[k], (loss(x0 + e, w0) - loss(x0 - e, w0)) /
                                   (2 * eps), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gw.asnumpy()[k], (loss(x0, w0 + e) - loss(x0, w0 - e)) /
                                   (2 * eps), rtol=1e-6, atol=1e-8)


def test_shape_and_dtype_inference_through_the_body():
    i, h, w = sym.var("i"), sym.var("h"), sym.var("w")
    outs, states = sym.contrib.while_loop(
        lambda i, h: i < 3,
        lambda i, h: ([sym.FullyConnected(h, w, no_bias=True, num_hidden=5)], [i + 1, h * 2]),
        [i, h], max_iterations=9)
    g = sym.Group(outs + states)
    arg_shapes, out_shapes, _ = g.infer_shape(i=(1,), h=(4, 7))
    assert dict(zip(g.list_arguments(), arg_shapes))["w"] == (5, 7)
    assert out_shapes == [(9, 4, 5), (1,), (4, 7)]
    _, out_types, _ = g.infer_type(i="int64", h="float32", w="float32")
    assert out_types == [np.float32, np.int64, np.float32]


def test_json_size_does_not_grow_with_max_iterations():
    sizes = []
    for n in (10, 100, 1000):
        with mx.name.NameManager():  # the same automatic node names each time
            outs, states = _sum_loop(sym, sym.var("i"), sym.var("s"), limit=n, max_iterations=n)
        text = sym.Group(outs + states).tojson()
        sizes.append(len(text) - 2 * len(str(n)))
    assert len(set(sizes)) == 1


def test_record_with_predict_mode_still_gives_gradients():
    """record(train_mode=False): the node kept nothing, so its gradient re-runs the loop."""
    from gluonlite.executor.cached_op import CachedOp
    x, w = sym.var("x"), sym.var("w")
    outs, st = sym.contrib.while_loop(lambda a: (a * 0).sum() < 1,
                                      lambda a: ([a * w], [sym.tanh(a + w)]), [x],
                                      max_iterations=3)
    op = CachedOp(sym.Group(outs + st), static_alloc=True)
    xa, wa = nd.array([0.1, 0.2]), nd.array([0.3, -0.4])
    xa.attach_grad()
    with autograd.record(train_mode=False):
        o = op(xa, wa)
        loss = o[0].sum() + o[1].sum()
    loss.backward()
    xb = nd.array([0.1, 0.2])
    xb.attach_grad()
    with autograd.record():
        outs_b, st_b = nd.contrib.while_loop(lambda a: (a * 0).sum() < 1,
                                             lambda a: ([a * wa], [nd.tanh(a + wa)]), [xb],
                                             max_iterations=3)
        (outs_b[0].sum() + st_b[0].sum()).backward()
    np.testing.assert_allclose(xa.grad.asnumpy(), xb.grad.asnumpy(), rtol=1e-5)
