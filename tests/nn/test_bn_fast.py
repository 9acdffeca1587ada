"""BatchNorm's numpy fast path (gluonlite/ops/bn_fast.py: one-pass statistics, in-place output,
gradient from per-channel sums) against its plain rule (ops/nn.py) with the fast path
switched off: outputs, moving statistics and gradients, training and inference, float32 and
float64, fix_gamma both ways, through a static-alloc plan and imperatively; and a channel
whose mean dwarfs its spread, where the one-pass variance would cancel."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.ops import bn_fast
from bn_runs import run_norm


def _run(x, gamma, beta, mean, var, gy, fix_gamma, train, hybrid, dtype):
    return run_norm(lambda F, a, g, b, m, v: F.BatchNorm(
        a, g, b, m, v, fix_gamma=fix_gamma, eps=1e-3, momentum=0.8),
        (x, gamma, beta, mean, var), gy, train, hybrid, dtype)


@pytest.mark.parametrize("block", [None, 240, 90],
                         ids=["one_block", "blocks_of_2_samples", "blocks_of_3_channels"])
@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "static_alloc"])
@pytest.mark.parametrize("train", [True, False], ids=["train", "infer"])
@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_path_matches_plain_rule(dtype, fix_gamma, train, hybrid, block, monkeypatch):
    # blocks of 2 of the 3 samples, or of 3 of a sample's 4 channels: the last one partial
    if block:
        monkeypatch.setattr(bn_fast, "_BLOCK", block)
    rng = np.random.default_rng(2)
    shape = (3, 4, 5, 6)
    x = rng.standard_normal(shape) * rng.uniform(0.5, 3, (1, 4, 1, 1)) + [[[[0]], [[2]],
                                                                            [[-1]], [[400]]]]
    stats = [rng.uniform(0.5, 1.5, 4), rng.standard_normal(4), rng.standard_normal(4),
             rng.uniform(0.5, 2, 4)]
    gy = rng.standard_normal(shape)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(bn_fast, "ENABLED", on)
        got[on] = _run(x, *stats, gy, fix_gamma, train, hybrid, dtype)
    tol = 2e-5 if dtype == "float32" else 1e-11
    names = ["y", "dx", "dgamma", "dbeta", "moving_mean", "moving_var"]
    for name, a, b in zip(names, got[True], got[False]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()),
                                   err_msg=name)


def test_large_mean_channel_keeps_its_variance():
    """A channel with mean 1e4 and spread 1e-2 (E[x^2] - mean^2 cancels in float64 too)."""
    rng = np.random.default_rng(3)
    x = (1e4 + 1e-2 * rng.standard_normal((8, 2, 16))).astype(np.float64)
    mean, var = bn_fast.moments(x)
    np.testing.assert_allclose(var, x.var(axis=(0, 2)), rtol=1e-9)
    np.testing.assert_allclose(mean, x.mean(axis=(0, 2)), rtol=1e-12)


def test_other_axis_takes_the_plain_rule():
    x = nd.array(np.random.default_rng(4).standard_normal((3, 5, 4)))
    p = mx.ops.registry.get("BatchNorm").parse({"axis": 2})[0]
    from gluonlite.ops.registry import RunCtx
    assert not bn_fast.usable(p, RunCtx(True, np), x.asnumpy())
    y = nd.BatchNorm(x, nd.ones(4), nd.zeros(4), nd.zeros(4), nd.ones(4), axis=2)
    assert y.shape == (3, 5, 4)


def _train_output_and_dx(x, gamma, beta, gy):
    """BatchNorm's training output and data gradient (float32, the fast path as it stands)."""
    arrs = [nd.array(a, dtype="float32") for a in (x, gamma, beta)]
    arrs[0].attach_grad()
    with autograd.record():
        y = nd.BatchNorm(arrs[0], arrs[1], arrs[2], nd.zeros(x.shape[1]),
                         nd.ones(x.shape[1]), fix_gamma=False, eps=1e-5)
    y.backward(nd.array(gy, dtype="float32"))
    return y.asnumpy(), arrs[0].grad.asnumpy()


def test_channels_with_a_large_mean_are_not_folded(monkeypatch):
    """The mean folded into the shift costs |mean| / std ulps: a channel 500 std from zero
    stays at the plain rule's numbers only because FOLD_MEAN sends it the plain way; folded
    regardless, its output moves off them."""
    rng = np.random.default_rng(5)
    spread = np.array([1.0, 0.5, 2.0])
    centre = np.array([0.5, -1.0, 1000.0])     # |mean| / std: 0.5, 2, 500
    x = (rng.standard_normal((4, 3, 8, 8)) * spread[:, None, None]
         + centre[:, None, None]).astype(np.float32)
    gamma = np.array([1.0, 0.7, 1.3], np.float32)
    beta = np.array([0.1, -0.2, 0.3], np.float32)
    gy = rng.standard_normal(x.shape).astype(np.float32)
    monkeypatch.setattr(bn_fast, "ENABLED", False)
    want_y, want_dx = _train_output_and_dx(x, gamma, beta, gy)
    monkeypatch.setattr(bn_fast, "ENABLED", True)

    def errors():
        y, dx = _train_output_and_dx(x, gamma, beta, gy)
        return (np.abs(y - want_y).max(axis=(0, 2, 3)),
                np.abs(dx - want_dx).max(axis=(0, 2, 3)) / np.abs(want_dx).max())

    y_err, dx_err = errors()
    # a few float32 ulps of outputs up to about 4 (the statistics round differently)
    assert y_err.max() < 4e-6 and dx_err.max() < 4e-6, (y_err, dx_err)
    monkeypatch.setattr(bn_fast, "FOLD_MEAN", np.inf)
    y_forced, dx_forced = errors()
    assert y_forced[:2].max() < 4e-6 and dx_forced[:2].max() < 4e-6   # small means: folded
    assert y_forced[2] > 1e-5, (y_forced, y_err)       # a large one folded loses digits


def _layer(op, **attrs):
    """``f(F, x, gamma, beta, mean, var)``: BatchNorm, BatchNormWithReLU or the fused relu6
    (``_bn_clip``, clipping to [a_min, a_max]) with `attrs` and gamma learned."""
    if op == "BatchNorm":
        return lambda F, *a: F.BatchNorm(*a, fix_gamma=False, **attrs)
    if op == "BatchNormWithReLU":
        return lambda F, *a: F.contrib.BatchNormWithReLU(*a, fix_gamma=False, **attrs)
    return lambda F, *a: F._bn_clip(*a, fix_gamma=False, **attrs)


@pytest.mark.parametrize("block", [None, 400, 126],
                         ids=["one_block", "blocks_of_2_samples", "blocks_of_3_channels"])
@pytest.mark.parametrize("op", ["BatchNorm", "BatchNormWithReLU", "_bn_clip"])
def test_tiled_channel_constants_give_the_same_bits(op, block, monkeypatch):
    """Short rows in batches of several samples take the per-channel constants repeated
    into (C, P) tiles (`_TILE_ROWS`): the same products as the (C, 1) columns, so outputs,
    gradients and moving statistics are equal bit for bit, a channel whose mean is not
    folded included; and both are the plain rule's to float32 rounding."""
    if block:
        monkeypatch.setattr(bn_fast, "_BLOCK", block)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 4, 6, 7)) * rng.uniform(0.5, 3, (1, 4, 1, 1))
    x[:, 2] += 300
    stats = [rng.uniform(0.5, 1.5, 4), rng.standard_normal(4), rng.standard_normal(4),
             rng.uniform(0.5, 2, 4)]
    gy = rng.standard_normal(x.shape)
    layer = _layer(op, **({"a_min": -0.5, "a_max": 1.0} if op == "_bn_clip" else {}))
    assert x.shape[3] * x.shape[2] < bn_fast._TILE_ROWS and x.shape[0] >= bn_fast._TILE_SAMPLES

    def run():
        return run_norm(layer, [x] + stats, gy, True, True, "float32")

    tiled = run()
    monkeypatch.setattr(bn_fast, "_TILE_ROWS", 0)
    columns = run()
    monkeypatch.setattr(bn_fast, "ENABLED", False)
    plain = run()
    names = ["y", "dx", "dgamma", "dbeta", "moving_mean", "moving_var"]
    for name, a, b, c in zip(names, tiled, columns, plain):
        np.testing.assert_array_equal(a, b, err_msg=name)
        np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(c).max()),
                                   err_msg=name)


@pytest.mark.parametrize("statistics", ["batch", "moving"])
@pytest.mark.parametrize("op", ["BatchNorm", "BatchNormWithReLU", "_bn_clip"])
def test_gamma_gradient_of_a_channel_far_from_zero(op, statistics, monkeypatch):
    """dgamma is sum(gy * xhat): from the one pass's sums that is ``(sum(gy x) - mean
    sum(gy)) / std``, which cancels where |mean| >> std (a channel 500 std from zero lost
    1e-5 to 3e-3 of it that way). Such channels (the ones not folded) take it about the
    mean, so the fast path gives the plain rule's dgamma to float32 rounding, normalized
    with the batch's statistics or (``use_global_stats``) with moving ones that far out."""
    rng = np.random.default_rng(5)
    spread = np.array([1.0, 0.5, 2.0])
    centre = np.array([0.5, -1.0, 1000.0])
    x = rng.standard_normal((4, 3, 8, 8)) * spread[:, None, None] + centre[:, None, None]
    moving = [centre + 0.1, spread ** 2] if statistics == "moving" else [np.zeros(3), np.ones(3)]
    stats = [np.array([1.0, 0.7, 1.3]), np.array([0.1, -0.2, 0.3])] + moving
    gy = rng.standard_normal(x.shape)
    attrs = {"eps": 1e-5, "use_global_stats": statistics == "moving"}
    if op == "_bn_clip":
        attrs.update(a_min=0.0, a_max=1.0)
    layer = _layer(op, **attrs)
    got = run_norm(layer, [x] + stats, gy, True, True, "float32")
    monkeypatch.setattr(bn_fast, "ENABLED", False)
    want = run_norm(layer, [x] + stats, gy, True, True, "float32")
    np.testing.assert_allclose(got[2], want[2], rtol=2e-6, err_msg="dgamma")
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=2e-6 * np.abs(want[1]).max(),
                               err_msg="dx")
