"""The floor on another array module (`xp`): CuPy where a GPU is present, tests/fakecupy.py
everywhere (the same code path, with arrays that refuse host copies), against the numpy
floor; and the fused gate math (`fused_gates`) against the plain elementwise steps."""
import numpy as np
import pytest

import fakecupy
from gluonlite.bench import floor

CELLS = [("RNNCell", "tanh"), ("RNNCell", "relu"), ("GRUCell", "tanh"), ("LSTMCell", "tanh")]
T, N, I, H = 4, 3, 5, 6  # noqa: E741 - the T, N, I, H shape notation of the floors
TOL = {"rtol": 1e-4, "atol": 1e-5}  # float32; sigmoid is scipy's expit on numpy only


@pytest.fixture(params=[pytest.param("cupy", marks=pytest.mark.gpu),
                        pytest.param("fakecupy", marks=pytest.mark.fake_gpu)])
def xp(request):
    """The device array module: CuPy (gpu runs only) or the fake."""
    if request.param == "cupy":
        import cupy  # noqa: PLC0415 - present: the gpu mark skipped this case otherwise
        return cupy
    fakecupy.reset_stats()
    return fakecupy.MODULE


def _inputs(cell):
    rng = np.random.default_rng(0)
    params = floor.init_params(cell, I, H, dtype="float32", seed=0, scale=0.5)
    x = rng.standard_normal((T, N, I)).astype("float32")
    states = [rng.standard_normal((N, H)).astype("float32")
              for _ in range(floor.num_states(cell))]
    og = rng.standard_normal((T, N, H)).astype("float32")
    return x, states, params, og


def _run(module, cell, act, fused, train, host_inputs, fused_gates=False):
    """The floor on `module`: (outputs, gradients or None) copied to numpy."""
    x, states, params, og = host_inputs
    up = np.asarray if module is np else module.asarray
    f = floor.FloorRNN(cell, T, N, I, H, fused=fused, train=train, activation=act,
                       xp=module, fused_gates=fused_gates)
    out = f.forward(up(x), [up(s) for s in states], {k: up(v) for k, v in params.items()})
    host = np.asarray if module is np else module.asnumpy
    out = host(out).copy()
    if not train:
        return out, None
    g = f.backward(up(og))
    return out, {k: ([host(s).copy() for s in v] if k == "states" else host(v).copy())
                 for k, v in g.items()}


def _same(got, want):
    np.testing.assert_allclose(got[0], want[0], err_msg="outputs", **TOL)
    if want[1] is None:
        return
    for k in floor.PARAM_NAMES + ("data",):
        np.testing.assert_allclose(got[1][k], want[1][k], err_msg=k, **TOL)
    for i, (a, b) in enumerate(zip(got[1]["states"], want[1]["states"])):
        np.testing.assert_allclose(a, b, err_msg=f"states[{i}]", **TOL)


@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("cell,act", CELLS)
def test_the_floor_on_a_device_module_matches_numpy(xp, cell, act, fused, train):
    inputs = _inputs(cell)
    _same(_run(xp, cell, act, fused, train, inputs), _run(np, cell, act, fused, train, inputs))
    if xp is fakecupy.MODULE:  # the copies are _run's: the outputs, then every gradient
        n_grads = len(floor.PARAM_NAMES) + 1 + len(inputs[1])
        assert xp.stats["host_copies"] == 1 + (n_grads if train else 0)


@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("cell", ["GRUCell", "LSTMCell"])
def test_fused_gates_equal_the_plain_steps(xp, cell, train):
    """On fakecupy `fuse` is a plain call (the gate functions' math against the plain
    steps); on CuPy it is the compiled kernel."""
    inputs = _inputs(cell)
    for fused in (False, True):
        _same(_run(xp, cell, "tanh", fused, train, inputs, fused_gates=True),
              _run(xp, cell, "tanh", fused, train, inputs))


def test_fused_gates_need_a_module_with_fuse():
    with pytest.raises(ValueError, match=r"fused_gates needs an array module with fuse\(\) "
                                         r"\(cupy\), got numpy"):
        floor.FloorRNN("LSTMCell", T, N, I, H, fused_gates=True)
