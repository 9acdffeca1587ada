"""What the BatchNorm operator tests share: a BatchNorm-like layer run once (forward under
autograd, backward, and what it left in its moving statistics), the per-channel arrays they
run it with, the operators of a graph, and central differences."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.executor import bn_relu as bn_relu_pass
from gluonlite.symbol.symbol import topo_nodes


def norm_stats(rng, c):
    """[gamma, beta, moving mean, moving var] for `c` channels, away from 0 and 1."""
    return [rng.uniform(0.5, 1.5, c), rng.standard_normal(c), rng.standard_normal(c) * 0.1,
            rng.uniform(0.5, 2, c)]


def norm_case():
    """(x, [gamma, beta, moving mean, moving var], gy, attrs): data of shape (3, 4, 5, 6)
    with a channel whose mean is too large against its spread for the fast path to fold it
    (in training), the arrays to run it with, a head gradient and BatchNorm's attributes."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 5, 6)) * 2 + 0.3
    x[:, 3] += 300
    stats = norm_stats(rng, 4)
    gy = rng.standard_normal(x.shape)
    return x, stats, gy, dict(fix_gamma=False, eps=1e-3, momentum=0.8)


def each_setting(test):
    """`test(dtype, train, hybrid, fast, ...)` run in float32 and float64, recorded in
    training mode and not, imperatively and in a static-alloc plan, with BatchNorm's fast
    path on and off."""
    for mark in (pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"]),
                 pytest.mark.parametrize("hybrid", [False, True],
                                         ids=["imperative", "static_alloc"]),
                 pytest.mark.parametrize("train", [True, False], ids=["train", "infer"]),
                 pytest.mark.parametrize("dtype", ["float32", "float64"])):
        test = mark(test)
    return test


def graph_ops(symbol):
    """The operator names of `symbol`'s nodes, in topological order."""
    return [n.op.name for n in topo_nodes(symbol.outputs) if n.op is not None]


def central_differences(loss, values, h=1e-6):
    """d loss / d values[k] for each array in `values` (float64), entry by entry."""
    grads = []
    for k, v in enumerate(values):
        num = np.zeros_like(v)
        for idx in np.ndindex(*v.shape):
            hi, lo = [a.copy() for a in values], [a.copy() for a in values]
            hi[k][idx] += h
            lo[k][idx] -= h
            num[idx] = (loss(*hi) - loss(*lo)) / (2 * h)
        grads.append(num)
    return grads


def run_norm(build, arrays, gy, train, hybrid, dtype, fuse=True):
    """[y, dx, dgamma, dbeta, moving mean, moving var, gradients of the further inputs] of
    ``build(F, x, gamma, beta, mean, var, *more)`` on `arrays` (x, gamma, beta, moving mean,
    moving var, then any further inputs), the head gradient `gy`, recorded in training mode
    or not, hybridized with static_alloc or not, in `dtype`. ``fuse=False`` keeps the
    training pass (`gluonlite.executor.bn_relu`) off the plan, so that a reference built of
    the separate operators stays separate when hybridized."""
    net = gluon.nn.HybridLambda(build)
    if hybrid:
        net.hybridize(static_alloc=True)
    arrs = [nd.array(a, dtype=dtype) for a in arrays]
    learned = arrs[:3] + arrs[5:]
    for a in learned:
        a.attach_grad()
    saved = bn_relu_pass.ENABLED
    bn_relu_pass.ENABLED = fuse
    try:
        with autograd.record(train_mode=train):
            y = net(*arrs)
        y.backward(nd.array(gy, dtype=dtype))
    finally:
        bn_relu_pass.ENABLED = saved
    return [y.asnumpy()] + [a.grad.asnumpy() for a in arrs[:3]] + \
        [arrs[3].asnumpy(), arrs[4].asnumpy()] + [a.grad.asnumpy() for a in arrs[5:]]


def sgd_steps(net, x, steps=2):
    """Hybridize `net` (static_alloc and static_shape) and take `steps` SGD steps with
    momentum on `x` (4 samples, labels 0-3, softmax cross-entropy): (the last loss, every
    parameter's value after, the symbol of the plan that computed the gradients)."""
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                         "momentum": 0.9})
    label = nd.array([0, 1, 2, 3])
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(steps):
        with autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
        trainer.step(4)
    plans = [op for ops in net._cached_ops.values() for op in ops
             if hasattr(op, "_training_symbol")]
    return loss.asnumpy(), [p.data().asnumpy() for p in net.collect_params().values()], \
        plans[0]._training_symbol


def assert_same_steps(on, off):
    """Two `sgd_steps` results (a pass on, then off) have the same loss, weights and moving
    statistics, to float32 rounding."""
    np.testing.assert_allclose(on[0], off[0], rtol=1e-6)
    for a, b in zip(on[1], off[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def batchnorm_read(case, reader):
    """A graph where `reader(bn)` reads a BatchNorm's output: with `case` 'read twice' the
    BatchNorm is also added to the reader's output, 'graph output' it is an output of the
    graph too, 'mean and var' it has ``output_mean_var``; any other case: the reader alone.
    The first three are what the training pass must leave as they are."""
    bn = sym.BatchNorm(sym.var("x"), name="bn", output_mean_var=(case == "mean and var"))
    if case == "mean and var":
        bn = bn[0]
    out = reader(bn)
    if case == "read twice":
        return out + bn
    if case == "graph output":
        return sym.Group([out, bn])
    return out


def assert_pass_leaves(y, case, monkeypatch, switch=None):
    """The training pass returns graph `y` itself: as built for `case`, with its own `switch`
    off (a case ending in ' off'), or with the whole pass off (case 'switched off')."""
    if case == "switched off":
        monkeypatch.setattr(bn_relu_pass, "ENABLED", False)
    elif switch is not None and case.endswith(" off"):
        monkeypatch.setattr(bn_relu_pass, switch, False)
    assert bn_relu_pass.fuse_bn_relu(y) is y


def steps_with_switch(monkeypatch, switch, on, build, x, steps=2):
    """`sgd_steps` of the network `build()` (seeded, Xavier-initialized) on `x`, with the
    training pass's switch `switch` (``ENABLED``, ``RESIDUAL``, ``CLIP``) set to `on`:
    (loss, weights, training symbol, the network)."""
    monkeypatch.setattr(bn_relu_pass, switch, on)
    mx.random.seed(3)
    net = build()
    net.initialize(mx.init.Xavier())
    return sgd_steps(net, x, steps) + (net,)


def assert_fused_in_training_only(on, off, x, out_shape, fused, count, kept):
    """Two `steps_with_switch` results (on, then off): the training plan holds `count`
    `fused` nodes with the pass on and none off, the steps are the same, inference still
    gives `out_shape`, and the exported graph keeps the operators `kept` ({name: count})
    unfused."""
    assert graph_ops(on[2]).count(fused) == count and fused not in graph_ops(off[2])
    assert_same_steps(on, off)
    net = on[3]
    assert net(x).shape == out_shape
    names = [n["op"] for n in json.loads(net._cached_graph[1].tojson())["nodes"]]
    assert fused not in names
    for name, n in kept.items():
        assert names.count(name) == n, name
