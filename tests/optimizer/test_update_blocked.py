"""sgd_update and sgd_mom_update run a cache-sized block at a time on numpy float arrays
(`gluonlite.ops.optimizer_fast`), and the SGD optimizer writes the new weight over the weight
(`run_update`): the numbers must be those of the plain definition, bit for bit, over arrays
spanning several blocks and the ragged last one."""
import importlib.util
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.ndarray.invoke import plan_for, run_update
from gluonlite.ops import optimizer_fast, registry
from gluonlite.ops.registry import RunCtx

# two full blocks and a ragged third of float32 (a block is BLOCK_BYTES of each array)
N = 2 * optimizer_fast.BLOCK_BYTES // 4 + 37


def _arrays(dtype, seed=0):
    rs = np.random.RandomState(seed)
    return [rs.randn(N).astype(dtype) for _ in range(3)]


def _plain_sgd_mom(w, g, mom, lr, wd, momentum, rescale, clip):
    """The update as MXNet's kernel evaluates it, whole-array numpy, the attributes in the
    weight's precision through float32 (the momentum changes in place): (lr * rescale) * g
    without clipping, lr * clip(rescale * g) with it; the decay term left out when wd is 0."""
    def f(v):
        return w.dtype.type(np.float32(v))
    lr, wd, momentum, rescale, c = f(lr), f(wd), f(momentum), f(rescale), f(clip)
    step = lr * np.clip(rescale * g, -c, c) if clip >= 0 else (lr * rescale) * g
    mom[...] = momentum * mom
    if wd:
        mom -= (lr * wd) * w
    mom -= step
    return w + mom


def _plain_nag(w, g, mom, lr, wd, momentum, rescale, clip):
    """Nesterov's step as gluonlite defines it (MXNet's through out=weight): the momentum
    decays with the new weight."""
    sg = rescale * g
    if clip >= 0:
        sg = np.clip(sg, -clip, clip)
    mom *= momentum
    new = w - mom + (momentum + 1) * (mom - lr * (sg + wd * w))
    mom -= lr * (sg + wd * new)
    return new


def _plain_sgd(w, g, lr, wd, rescale, clip):
    """sgd_update as MXNet's kernel evaluates it (see `_plain_sgd_mom`)."""
    def f(v):
        return w.dtype.type(np.float32(v))
    lr, wd, rescale, c = f(lr), f(wd), f(rescale), f(clip)
    step = lr * np.clip(rescale * g, -c, c) if clip >= 0 else (lr * rescale) * g
    return (f(1) - lr * wd) * w - step


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("clip", [-1.0, 0.5])
def test_sgd_mom_update_equals_the_plain_definition(dtype, clip):
    w, g, m = _arrays(dtype)
    kw = dict(lr=0.1, wd=1e-3, momentum=0.9, rescale_grad=0.7, clip_gradient=clip)
    m_want = m.copy()
    want = _plain_sgd_mom(w, g, m_want, 0.1, 1e-3, 0.9, 0.7, clip)
    W, G, M = nd.array(w, dtype=dtype), nd.array(g, dtype=dtype), nd.array(m, dtype=dtype)
    new = nd.sgd_mom_update(W, G, M, **kw)                 # a new array, W unchanged
    assert np.array_equal(new.asnumpy(), want)
    assert np.array_equal(M.asnumpy(), m_want)
    assert np.array_equal(W.asnumpy(), w)
    M2 = nd.array(m, dtype=dtype)
    nd.sgd_mom_update(W, G, M2, out=W, **kw)                 # over the weight itself
    assert np.array_equal(W.asnumpy(), want)
    assert np.array_equal(M2.asnumpy(), m_want)


@pytest.mark.parametrize("clip", [-1.0, 0.5])
def test_sgd_update_equals_the_plain_definition(clip):
    w, g, _ = _arrays("float32", seed=1)
    want = _plain_sgd(w, g, 0.2, 1e-2, 0.5, clip)
    W = nd.array(w)
    res = nd.sgd_update(W, nd.array(g), lr=0.2, wd=1e-2, rescale_grad=0.5, clip_gradient=clip)
    assert np.array_equal(res.asnumpy(), want)
    run_update(plan_for(registry.get("sgd_update"),
                        dict(lr=0.2, wd=1e-2, rescale_grad=0.5, clip_gradient=clip)),
               [W, nd.array(g)], W)
    assert np.array_equal(W.asnumpy(), want)


@pytest.mark.parametrize("clip", [-1.0, 0.5])
def test_nag_mom_update_and_optimizer_equal_the_plain_definition(clip):
    w, g, m = _arrays("float32", seed=7)
    m_want = m.copy()
    want = _plain_nag(w, g, m_want, 0.1, 1e-3, 0.9, 0.7, clip)
    kw = dict(lr=0.1, wd=1e-3, momentum=0.9, rescale_grad=0.7, clip_gradient=clip)
    W, M = nd.array(w), nd.array(m)
    nd.nag_mom_update(W, nd.array(g), M, out=W, **kw)
    assert np.array_equal(W.asnumpy(), want) and np.array_equal(M.asnumpy(), m_want)
    opt = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9, wd=1e-3, rescale_grad=0.7,
                           clip_gradient=None if clip < 0 else clip)
    W2 = nd.array(w)
    buf = W2._data
    state = opt.create_state(0, W2)
    state[:] = m
    opt.update(0, W2, nd.array(g), state)
    assert W2._data is buf
    assert np.array_equal(W2.asnumpy(), want) and np.array_equal(state.asnumpy(), m_want)


def test_non_contiguous_and_float16_arrays_take_the_rules():
    w, g, m = _arrays("float32", seed=2)
    m_want = m.copy()
    want = _plain_sgd_mom(w[::2], g[::2], m_want[::2], 0.1, 0.0, 0.9, 1.0, -1.0)
    assert not optimizer_fast.usable(np, w[::2], g[::2], m[::2])
    res = registry.get("sgd_mom_update").forward(
        plan_for(registry.get("sgd_mom_update"), dict(lr=0.1, momentum=0.9)).p,
        RunCtx(False, np), [w[::2], g[::2], m[::2]])[0]
    np.testing.assert_array_equal(res, want)
    np.testing.assert_array_equal(m[::2], m_want[::2])
    h = [a[:64].astype(np.float16) for a in (w, g, m)]
    m16 = h[2].copy()
    want16 = _plain_sgd_mom(h[0], h[1], m16, 0.1, 0.0, 0.9, 1.0, -1.0)
    res16 = nd.sgd_mom_update(*[nd.array(a, dtype="float16") for a in h], lr=0.1, momentum=0.9)
    np.testing.assert_array_equal(res16.asnumpy(), want16)


def test_trainer_sgd_writes_over_the_weight_buffers():
    mx.random.seed(3)
    net = gluon.nn.Dense(5, in_units=N // 5)
    net.initialize(mx.init.Normal(0.1))
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3})
    x = nd.array(np.random.RandomState(4).randn(3, N // 5).astype(np.float32))
    params = list(net.collect_params().values())
    buffers = [p.data()._data for p in params]
    before = [b.copy() for b in buffers]
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    grads = [p.grad().asnumpy() for p in params]
    trainer.step(3)
    for p, buf, w0, g in zip(params, buffers, before, grads):
        assert p.data()._data is buf        # updated in place, no new buffer
        want = _plain_sgd_mom(w0, g, np.zeros_like(w0), 0.1, 1e-3, 0.9, 1 / 3, -1.0)
        assert np.array_equal(buf, want)


def test_sgd_optimizer_matches_the_update_operator():
    rs = np.random.RandomState(5)
    w0, g0 = rs.randn(N).astype(np.float32), rs.randn(N).astype(np.float32)
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-3, rescale_grad=0.5)
    w = nd.array(w0)
    state = opt.create_state(0, w)
    m_want = np.zeros(N, np.float32)
    want = w0
    for _ in range(3):
        opt.update(0, w, nd.array(g0), state)
        want = _plain_sgd_mom(want, g0, m_want, 0.1, 1e-3, 0.9, 0.5, -1.0)
    assert np.array_equal(w.asnumpy(), want)
    assert np.array_equal(state.asnumpy(), m_want)


def test_run_update_falls_back_under_the_profiler_and_record():
    w0, g0, m0 = _arrays("float32", seed=6)
    m_want = m0.copy()
    want = _plain_sgd_mom(w0, g0, m_want, 0.1, 0.0, 0.9, 1.0, -1.0)
    plan = plan_for(registry.get("sgd_mom_update"), dict(lr=0.1, momentum=0.9))
    for mode in ("profiler", "record"):
        W, M = nd.array(w0), nd.array(m0)
        if mode == "profiler":
            mx.profiler.set_config(profile_all=True, aggregate_stats=True)
            mx.profiler.set_state("run")
            try:
                run_update(plan, [W, nd.array(g0), M], W)
            finally:
                mx.profiler.set_state("stop")
            assert "sgd_mom_update" in mx.profiler.dumps(reset=True)
        else:
            with autograd.record():
                run_update(plan, [W, nd.array(g0), M], W)
        assert np.array_equal(W.asnumpy(), want)
        assert np.array_equal(M.asnumpy(), m_want)


def test_run_update_names_a_shape_mismatch():
    plan = plan_for(registry.get("sgd_mom_update"), dict(lr=0.1, momentum=0.9))
    w = nd.ones((4,))
    with pytest.raises(ValueError, match="sgd_mom_update"):
        run_update(plan, [w, nd.ones((3,)), nd.zeros((4,))], w)


def test_sgd_updates_give_mxnets_numbers_bit_for_bit():
    # fixtures/make_sgd_bits.py: MXNet 1.9.1's kernels on the same arrays; the gradient's
    # term is (lr * rescale_grad) * g there, the scalars' product rounded once
    spec = importlib.util.spec_from_file_location("make_sgd_bits", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "make_sgd_bits.py"))
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    ref = np.load(os.path.join(os.path.dirname(spec.origin), "sgd_bits_mxnet.npz"))
    got = make.cases(mx)
    assert set(got) == set(ref.files)
    for k, v in got.items():
        assert v.dtype == ref[k].dtype, k
        np.testing.assert_array_equal(v, ref[k], err_msg=k)


@pytest.mark.parametrize("blocked", [True, False], ids=["blocked", "plain_rule"])
def test_sgd_mom_without_weight_decay_keeps_an_infinite_weights_momentum(blocked):
    # docs/guide/differences.md: no decay term at wd=0 (MXNet's 0 * inf makes the momentum NaN)
    w = np.array([np.inf, 1.0, -np.inf, 2.0], np.float32)
    W = nd.array(w if blocked else np.repeat(w, 2))
    W = W if blocked else W[::2]  # a strided view takes the plain rule
    G, M = nd.ones(W.shape), nd.zeros(W.shape)
    nd.sgd_mom_update(W, G, M, lr=0.1, momentum=0.9, wd=0.0, out=W)
    np.testing.assert_array_equal(M.asnumpy(), np.full(4, np.float32(-0.1)))
    np.testing.assert_array_equal(W.asnumpy(), w - np.float32(0.1))
    with np.errstate(invalid="ignore"):  # the new weight is inf - inf
        nd.sgd_mom_update(W, G, M, lr=0.1, momentum=0.9, wd=1e-4, out=W)
    np.testing.assert_array_equal(M.asnumpy()[[0, 2]], [-np.inf, np.inf])  # decay present
