"""The numpy floor: step == fused, gradients vs float64 finite differences, checks."""
import numpy as np
import pytest

from gluonlite.bench import floor

CELLS = [("RNNCell", "tanh"), ("RNNCell", "relu"), ("GRUCell", "tanh"), ("LSTMCell", "tanh")]
T, N, I, H = 4, 3, 5, 6


def _inputs(cell, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    params = floor.init_params(cell, I, H, dtype=dtype, seed=seed, scale=0.5)
    x = rng.standard_normal((T, N, I)).astype(dtype)
    states = [rng.standard_normal((N, H)).astype(dtype) for _ in range(floor.num_states(cell))]
    return x, states, params


def _run(cell, act, fused, x, states, params, out_grad=None):
    f = floor.FloorRNN(cell, T, N, I, H, fused=fused, train=True, activation=act,
                       dtype=x.dtype)
    out = f.forward(x, states, params).copy()
    g = f.backward(out_grad)
    return out, {k: ([s.copy() for s in v] if k == "states" else v.copy()) for k, v in g.items()}


def _reference_step(cell, act, x, h, c, p):
    """The MXNet 1.x equations written the plain way (independent of FloorRNN)."""
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    i2h = x @ p["i2h_weight"].T + p["i2h_bias"]
    h2h = h @ p["h2h_weight"].T + p["h2h_bias"]
    if cell == "RNNCell":
        pre = i2h + h2h
        return (np.tanh(pre) if act == "tanh" else np.maximum(pre, 0)), None
    if cell == "LSTMCell":
        i, f, g, o = np.split(i2h + h2h, 4, axis=1)
        c2 = sig(f) * c + sig(i) * np.tanh(g)
        return sig(o) * np.tanh(c2), c2
    ir, iz, inn = np.split(i2h, 3, axis=1)
    hr, hz, hn = np.split(h2h, 3, axis=1)
    r, z = sig(ir + hr), sig(iz + hz)
    n = np.tanh(inn + r * hn)
    return (1 - z) * n + z * h, None


@pytest.mark.parametrize("cell,act", CELLS)
def test_forward_matches_plain_equations(cell, act):
    x, states, p = _inputs(cell)
    h, c = states[0], states[-1]
    want = []
    for t in range(T):
        h, c = _reference_step(cell, act, x[t], h, c, p)
        want.append(h)
    for fused in (False, True):
        for train in (False, True):
            f = floor.FloorRNN(cell, T, N, I, H, fused=fused, train=train, activation=act,
                               dtype="float64")
            np.testing.assert_allclose(f.forward(x, states, p), np.stack(want), rtol=1e-12)


@pytest.mark.parametrize("cell,act", CELLS)
def test_step_and_fused_agree(cell, act):
    x, states, p = _inputs(cell, "float32")
    og = np.random.default_rng(1).standard_normal((T, N, H)).astype("float32")
    out_s, g_s = _run(cell, act, False, x, states, p, og)
    out_f, g_f = _run(cell, act, True, x, states, p, og)
    np.testing.assert_allclose(out_s, out_f, rtol=1e-5, atol=1e-6)
    for k in floor.PARAM_NAMES + ("data",):
        np.testing.assert_allclose(g_s[k], g_f[k], rtol=1e-4, atol=1e-5, err_msg=k)
    for a, b in zip(g_s["states"], g_f["states"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("cell,act", CELLS)
def test_gradients_match_finite_differences(cell, act, fused):
    x, states, p = _inputs(cell)
    og = np.random.default_rng(2).standard_normal((T, N, H))
    _, g = _run(cell, act, fused, x, states, p, og)
    rng = np.random.default_rng(3)
    arrays = [(k, p[k], g[k]) for k in floor.PARAM_NAMES] + [("data", x, g["data"])]
    arrays += [(f"states[{i}]", s, g["states"][i]) for i, s in enumerate(states)]
    eps = 1e-6
    for name, arr, grad in arrays:
        for _ in range(6):
            idx = tuple(int(rng.integers(0, d)) for d in arr.shape)
            old = arr[idx]
            arr[idx] = old + eps
            plus = floor.reference_loss(cell, x, states, p, og, act)
            arr[idx] = old - eps
            minus = floor.reference_loss(cell, x, states, p, og, act)
            arr[idx] = old
            num = (plus - minus) / (2 * eps)
            assert abs(num - grad[idx]) <= 1e-6 + 1e-5 * abs(num), (name, idx, num, grad[idx])


def test_default_head_gradient_is_ones():
    x, states, p = _inputs("LSTMCell")
    _, g1 = _run("LSTMCell", "tanh", False, x, states, p)
    _, g2 = _run("LSTMCell", "tanh", False, x, states, p, np.ones((T, N, H)))
    np.testing.assert_allclose(g1["i2h_weight"], g2["i2h_weight"])


def test_repeated_calls_give_the_same_gradients():
    x, states, p = _inputs("GRUCell")
    f = floor.FloorRNN("GRUCell", T, N, I, H, train=True, dtype="float64")
    f.forward(x, states, p)
    first = f.backward()["h2h_weight"].copy()
    f.forward(x, states, p)
    np.testing.assert_array_equal(f.backward()["h2h_weight"], first)


@pytest.mark.parametrize("cell,act", CELLS)
def test_check_against_reference(cell, act):
    x, states, p = _inputs(cell, "float32")
    out, g = _run(cell, act, False, x, states, p)
    named = {f"{cell.lower()}0_{k}": v for k, v in p.items()}
    errs = floor.check_against_reference(cell, x, states, named, out, g, fused=True,
                                         activation=act)
    assert set(errs) >= {"outputs", "i2h_weight", "data", "states[0]"}
    bad = dict(g, h2h_weight=g["h2h_weight"] + 1.0)
    with pytest.raises(AssertionError, match="h2h_weight: max abs error 1"):
        floor.check_against_reference(cell, x, states, p, out, bad, activation=act)


def test_shape_errors_name_the_argument():
    x, states, p = _inputs("LSTMCell")
    f = floor.FloorRNN("LSTMCell", T, N, I, H, dtype="float64")
    with pytest.raises(ValueError, match=r"states\[1\]: expected shape \(3, 6\), got None"):
        f.forward(x, states[:1], p)
    with pytest.raises(ValueError, match="cell must be one of"):
        floor.FloorRNN("TreeCell", T, N, I, H)
    with pytest.raises(RuntimeError, match="train=True"):
        f.backward()


def test_params_from_named_accepts_ndarray_like():
    class Fake:
        def __init__(self, a):
            self.a = a

        def asnumpy(self):
            return self.a
    p = floor.init_params("RNNCell", 2, 3)
    got = floor.params_from_named({"rnn0_" + k: Fake(v) for k, v in p.items()})
    assert all(np.array_equal(got[k], p[k]) for k in p)
    with pytest.raises(ValueError, match="h2h_bias"):
        floor.params_from_named({k: v for k, v in p.items() if k != "h2h_bias"})
