"""Common subexpression elimination at bind (`gluonlite.executor.cse`), as MXNet 1.9.1's
executor does it: the node counts of `get_optimized_symbol().get_internals()` below are the
ones MXNet gives for the same graphs, and the values and gradients do not change."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

A, B, C = sym.var("a"), sym.var("b"), sym.var("c")
_D = A + 1
_BN = [sym.var(n) for n in ("gamma", "beta", "mean", "var")]


@pytest.mark.parametrize("graph,inputs,saved", [
    ((A + 1) + (A + 2), "a", 0),
    ((A + B) + (A + B), "ab", 1),
    (((A + B) + C) + ((A + B) + C), "abc", 2),
    (sym.Group([A * _D, A * _D]), "a", 0),       # merged, then a _copy for the 2nd output
    (sym.Group([A * _D + B, A * _D + B]), "ab", 1),
    (sym.Dropout(A) + sym.Dropout(A), "a", 0),   # random: never merged
    (sym.relu(A) + sym.relu(A), "a", 1),
    # auxiliary states (updated in place in training): never merged
    (sym.BatchNorm(A, *_BN) + sym.BatchNorm(A, *_BN), "a", 0),
])
def test_cse_node_counts_values_and_gradients(graph, inputs, saved, monkeypatch):
    rng = np.random.RandomState(0)
    data = {k: nd.array(rng.uniform(-1, 1, (3, 4))) for k in inputs}
    shapes = {k: (3, 4) for k in inputs}
    runs = []
    for flag in ("0", "1"):
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", flag)
        exe = graph.simple_bind(mx.cpu(), **shapes)
        outs = exe.forward(is_train=False, **data)
        exe.backward([nd.ones_like(o) for o in outs])
        runs.append((exe, [o.asnumpy() for o in outs],
                     {k: exe.grad_dict[k].asnumpy() for k in inputs}))
    (plain, outs0, grads0), (cse, outs1, grads1) = runs
    n_plain = len(plain.get_optimized_symbol().get_internals())
    assert n_plain == len(graph.get_internals())
    assert len(cse.get_optimized_symbol().get_internals()) + saved == n_plain
    assert len(cse.get_optimized_symbol().list_outputs()) == len(graph.list_outputs())
    assert cse.get_optimized_symbol().list_arguments() == graph.list_arguments()
    if "Dropout" not in graph.tojson():
        for x, y in zip(outs0, outs1):
            np.testing.assert_allclose(x, y, rtol=1e-6)
        for k in inputs:
            np.testing.assert_allclose(grads0[k], grads1[k], rtol=1e-6)


def test_duplicate_outputs_are_separate_arrays(monkeypatch):
    monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "1")
    exe = sym.Group([A * 2, A * 2]).simple_bind(mx.cpu(), a=(2,))
    first, second = exe.forward(a=nd.array([1, 2]))
    first[:] = 0
    assert np.array_equal(second.asnumpy(), [2, 4])
    assert exe.get_optimized_symbol().list_arguments() == ["a"]
