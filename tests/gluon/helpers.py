"""Shared test helper: run a block imperatively, hybridized and hybridized with static
allocation, and compare outputs, input gradients and parameter gradients."""
import numpy as np

import gluonlite as mx
from gluonlite import nd, autograd
from gluonlite.base import flatten

MODES = ("imperative", "hybrid", "static")


def _leaves(out):
    leaves, _ = flatten(out, lambda o: isinstance(o, nd.NDArray))
    return leaves


def run_block(make, inputs, mode, train=True, grad_inputs=True, calls=2, seed=0):
    """Build a block with `make()` under a fixed seed, run it `calls` times in `mode`, and
    return (outputs, input grads, param grads, param values) of the last call as numpy."""
    mx.random.seed(seed)
    blk = make()
    blk.initialize()
    if mode == "hybrid":
        blk.hybridize()
    elif mode == "static":
        blk.hybridize(static_alloc=True, static_shape=True)
    rng = np.random.RandomState(1)
    for _ in range(calls):
        xs = [nd.array(x, dtype=x.dtype) for x in inputs]
        want = grad_inputs if isinstance(grad_inputs, (list, tuple)) else [grad_inputs] * len(xs)
        for x, w in zip(xs, want):
            if w:
                x.attach_grad()
        with autograd.record(train_mode=train):
            out = blk(*xs)
            outs = _leaves(out)
            heads = [nd.array(rng.uniform(-1, 1, o.shape)) for o in outs]
            loss = sum((o * h).sum() for o, h in zip(outs, heads))
        loss.backward()
    params = list(blk.collect_params().values())
    pgrads = [p.grad().asnumpy() for p in params if p.grad_req != "null"]
    pvals = [p.data().asnumpy() for p in params]
    igrads = [x.grad.asnumpy() for x, w in zip(xs, want) if w]
    return [o.asnumpy() for o in outs], igrads, pgrads, pvals


def check_block(make, inputs, train=True, grad_inputs=True, rtol=1e-5, atol=1e-6,
                modes=MODES[1:]):
    """Assert that imperative, hybridized and static-alloc runs (`modes`) agree on values and
    grads."""
    ref = run_block(make, inputs, "imperative", train, grad_inputs)
    for mode in modes:
        got = run_block(make, inputs, mode, train, grad_inputs)
        for what, a_list, b_list in zip(("output", "input grad", "param grad", "param value"),
                                        got, ref):
            assert len(a_list) == len(b_list), f"{mode}: number of {what}s differs"
            for i, (a, b) in enumerate(zip(a_list, b_list)):
                np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                           err_msg=f"{mode}: {what} {i}")
    return ref
