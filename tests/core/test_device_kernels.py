"""Operators' device paths (`Fast.device`): on a module that compiles kernels they run in
place of the fast paths, one fused kernel per recurrent step; `device_kernels(False)` and
``GLUONLITE_FUSED_KERNELS=0`` turn them off. The registry walk holds each one against the
plain rules (tests/core/test_registry_walk.py, on fake_gpu and gpu); here: that they are the
ones chosen, that a step is one fused kernel, and the switch."""
import importlib

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.ops import get
from gluonlite.ops.fast import Fast, compiles_kernels, device_kernels


def _rnn(mode, ctx, bidirectional=False, **attrs):
    T, N, C, H = 5, 3, 4, 6
    D = 2 if bidirectional else 1
    G = {"lstm": 4, "gru": 3}.get(mode, 1) * H
    size = D * G * (C + H + 2)
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(T, N, C)), rng.uniform(-0.4, 0.4, size), rng.normal(size=(D, N, H))]
    if mode == "lstm":
        arrays.append(rng.normal(size=(D, N, H)))
    xs = [nd.array(a, ctx=ctx, dtype="float64") for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        outs = nd.RNN(*xs, state_size=H, num_layers=1, mode=mode, bidirectional=bidirectional,
                      state_outputs=True, **attrs)
        loss = sum(((o * o).sum() for o in outs), nd.zeros((1,), ctx=ctx, dtype="float64"))
    loss.backward()
    return [o.asnumpy() for o in outs] + [x.grad.asnumpy() for x in xs]


@pytest.mark.parametrize("mode,attrs", [("lstm", {}), ("gru", {"bidirectional": True}),
                                        ("rnn_relu", {}),
                                        ("lstm", {"lstm_state_clip_min": -0.5,
                                                  "lstm_state_clip_max": 0.5})])
def test_rnn_runs_one_fused_kernel_per_step_each_way_on_a_device(device, mode, attrs):
    fake = hasattr(device, "stats")
    want = _rnn(mode, mx.cpu(), **attrs)
    if fake:
        device.stats["fused"] = device.stats["calls"] = 0
    got = _rnn(mode, mx.gpu(), **attrs)
    for g, w in zip(got, want):  # float64: a GPU's products round as numpy's to 1e-10
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
    steps = 5 * (2 if attrs.get("bidirectional") else 1)
    if fake:
        assert device.stats["fused"] == 2 * steps  # one kernel per step forward, one back
        calls_fused = device.stats["calls"]
        device.stats["calls"] = device.stats["fused"] = 0
    with device_kernels(False):
        plain = _rnn(mode, mx.gpu(), **attrs)
    if fake:
        assert device.stats["fused"] == 0
        if mode != "rnn_relu":  # a gated step is a dozen array functions without the path
            assert device.stats["calls"] > calls_fused + 3 * steps
    for g, w in zip(plain, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)


def test_the_device_paths_are_chosen_by_the_array_module_and_the_switch(device):
    op = get("RNN")
    assert compiles_kernels(device) and not compiles_kernels(np)
    assert op.rules_on(device) == (op.fast.device.kernel, op.fast.device.vjp)
    assert op.rules_on(np) == (op.fast.kernel, op.fast.vjp)
    with device_kernels(False):
        assert op.rules_on(device) == (op.fast.kernel, op.fast.vjp)


def test_the_environment_variable_turns_device_kernels_off(monkeypatch):
    import gluonlite.ops.fast as fast
    monkeypatch.setenv("GLUONLITE_FUSED_KERNELS", "0")
    try:
        assert not importlib.reload(fast).device_kernels_enabled()
    finally:
        monkeypatch.delenv("GLUONLITE_FUSED_KERNELS")
        importlib.reload(fast)
    assert fast.device_kernels_enabled()


def test_a_device_path_keeps_the_calling_conventions():
    with pytest.raises(TypeError, match="device=Fast"):
        Fast(vjp=lambda *a, **k: None, writes_dests=True,
             device=Fast(kernel=lambda *a: None, vjp=lambda *a: None))
    with pytest.raises(TypeError, match="device=Fast"):
        Fast(device=Fast(vjp=lambda *a: None))


def test_fakecupy_fuse_refuses_what_cupy_cannot_fuse(fake_gpu):
    xp = fake_gpu
    a = xp.asarray(np.arange(4.0))
    with pytest.raises(TypeError, match="cupy.sum"):
        xp.fuse(kernel_name="bad")(lambda x: xp.sum(x))(a)
    with pytest.raises(TypeError, match="indexing"):
        xp.fuse(kernel_name="bad")(lambda x: x[1:] * 2)(a)
    out = xp.empty(4)
    xp.fuse(kernel_name="good")(lambda x, o: o.__setitem__(Ellipsis, xp.tanh(x) * 2))(a, out)
    np.testing.assert_allclose(xp.asnumpy(out), np.tanh(np.arange(4.0)) * 2)
    assert fake_gpu.stats["fused_names"] == {"bad": 2, "good": 1}
