"""Stride-1 convolutions as one product per kernel tap over shifted windows
(gluonlite/ops/conv_shifted.py) and the BLAS product it calls (gluonlite/ops/cblas.py).

The kernel against a float64 reference written with numpy (dilation, uneven padding,
non-square kernels, samples sharing a buffer, bias, out= and the epilogue's blocks); which
layers conv_fast sends there; Convolution's outputs and gradients the same with the path on
and off; what happens where numpy's BLAS cannot be found."""
import glob
import os

import numpy as np
import pytest

from gluonlite import autograd, nd
from gluonlite.ops import cblas, conv, conv_fast, conv_shifted

GEMM = cblas.gemm(np.float32)
needs_blas = pytest.mark.skipif(GEMM is None, reason="numpy bundles no OpenBLAS here")


def test_numpy_wheels_blas_is_found():
    """numpy's wheels bundle an OpenBLAS: its product must then be found, in float32 and
    float64, and nothing for other dtypes."""
    root = os.path.dirname(np.__file__)
    if glob.glob(os.path.join(root + ".libs", "*openblas*")):
        assert GEMM is not None and cblas.gemm(np.float64) is not None
    assert cblas.gemm(np.int32) is None and cblas.gemm(np.float16) is None


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_reads_windows_and_adds_into_its_output(dtype):
    rng = np.random.default_rng(0)
    f = cblas.gemm(dtype)
    a = rng.standard_normal((3, 4)).astype(dtype)
    long_rows = rng.standard_normal((4, 20)).astype(dtype)
    c = rng.standard_normal((3, 9)).astype(dtype)
    want = c[:, :7] + a @ long_rows[:, 5:12]
    kept = c[:, 7:].copy()
    # b: the (4, 7) window starting at column 5 of rows 20 apart; c: 7 of its 9 columns
    f(a, long_rows[:, 5:], c, 3, 7, 4, beta=1.0)
    np.testing.assert_allclose(c[:, :7], want, rtol=1e-5)
    np.testing.assert_array_equal(c[:, 7:], kept)
    bt = rng.standard_normal((7, 4)).astype(dtype)
    out = np.full((3, 7), np.nan, dtype)
    f(a, bt, out, 3, 7, 4, trans_b=True)      # beta 0: the NaN is not read
    np.testing.assert_allclose(out, a @ bt.T, rtol=1e-5)


@needs_blas
@pytest.mark.parametrize("case,match", [
    ("dtype", "a must be a 2-D float32 array, got float64"),
    ("strided rows", "b's rows must be contiguous"),
    ("too small", r"c of shape \(2, 3\) is smaller than the \(2, 4\)"),
    ("one axis", "b must be a 2-D float32 array, got float32 of 1 axes"),
])
def test_gemm_refuses_operands_it_would_read_past(case, match):
    """The BLAS gets raw pointers: an operand that does not hold what the product reads is
    refused first, by name."""
    a, b, c = (np.ones(s, np.float32) for s in ((2, 3), (3, 8), (2, 4)))
    if case == "dtype":
        a = a.astype(np.float64)
    elif case == "strided rows":
        b = b[:, ::2]
    elif case == "too small":
        c = c[:, :3]
    else:
        b = b.ravel()
    with pytest.raises(ValueError, match=match):
        GEMM(a, b, c, 2, 4, 3)


def _reference(x, w, bias, dil, pad, pad_end):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    kh, kw = w.shape[2:]
    xp = np.pad(x64, ((0, 0), (0, 0), (pad[0], pad_end[0]), (pad[1], pad_end[1])))
    oh = xp.shape[2] - dil[0] * (kh - 1)
    ow = xp.shape[3] - dil[1] * (kw - 1)
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i * dil[0]:i * dil[0] + oh, j * dil[1]:j * dil[1] + ow]
            y += np.einsum("fc,nchw->nfhw", w64[:, :, i, j], win)
    return y if bias is None else y + bias[None, :, None, None]


GEOMETRIES = [  # N, C, F, H, W, kernel, dilation, pad, pad_end
    (2, 3, 4, 7, 6, (3, 3), (1, 1), (1, 1), (1, 1)),
    (3, 5, 2, 8, 9, (2, 3), (2, 1), (0, 2), (1, 0)),
    (1, 4, 3, 5, 5, (1, 3), (1, 1), (0, 1), (0, 1)),
    (5, 2, 3, 6, 6, (3, 3), (1, 2), (2, 2), (2, 2)),
    (4, 6, 5, 9, 7, (5, 5), (1, 1), (2, 2), (2, 2)),
]


@needs_blas
@pytest.mark.parametrize("chunk", [1 << 18, 1], ids=["samples share a buffer", "one each"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMETRIES, ids=lambda gm: f"{gm[5]}d{gm[6]}p{gm[7]}{gm[8]}")
def test_forward_matches_the_reference(geom, dtype, chunk, monkeypatch):
    monkeypatch.setattr(conv_shifted, "_CHUNK", chunk)
    n, c, f, h, w_, k, dil, pad, pad_end = geom
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, c, h, w_)).astype(dtype)
    w = rng.standard_normal((f, c) + k).astype(dtype)
    bias = rng.standard_normal(f).astype(dtype)
    want = _reference(x, w, bias, dil, pad, pad_end)
    g = conv.Geom(k, (1, 1), dil, pad, pad_end, want.shape[2:])
    got = conv_shifted.forward(x, w, g, bias=bias)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # out= receives the result; a non-contiguous input and weight are read as they are
    out = np.full(want.size, np.nan, dtype)
    res = conv_shifted.forward(np.asfortranarray(x), w[:, :, ::-1, ::-1][:, :, ::-1, ::-1],
                               g, out=out)
    np.testing.assert_allclose(out.reshape(want.shape), want - bias[None, :, None, None],
                               rtol=tol, atol=tol)
    assert np.shares_memory(res, out)


@needs_blas
def test_epilogue_sees_every_block_once_at_its_index(monkeypatch):
    """As conv_fast's contract says: each block of samples of y (as (N, F, P)) right after it
    is written, with the index that selects it."""
    monkeypatch.setattr(conv_shifted, "_CHUNK", 200)    # a few samples per buffer
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (6, 6))
    marks = np.zeros((7, 3, 36), np.float32)
    seen = []

    def epilogue(block, index):
        seen.append(index)
        marks[index] += 1
        np.maximum(block, 0, out=block)

    y = conv_shifted.forward(x, w, g, epilogue=epilogue)
    assert len(seen) > 1 and (marks == 1).all()
    np.testing.assert_allclose(y, np.maximum(conv_shifted.forward(x, w, g), 0))


def _geom(h, k=3):
    return conv.Geom((k, k), (1, 1), (1, 1), (k // 2, k // 2), (k // 2, k // 2), (h, h))


@needs_blas
@pytest.mark.parametrize("c,f,h,takes", [
    (64, 64, 56, True), (16, 32, 28, True), (128, 64, 56, True),     # few channels, big maps
    (3, 64, 224, False),                    # too few channels per tap
    (128, 128, 28, False), (256, 64, 28, False),                     # Winograd's and im2col's
    (64, 64, 14, False),                    # a small map
])
def test_which_layers_take_it(c, f, h, takes, monkeypatch):
    calls = []
    real = conv_shifted.forward
    monkeypatch.setattr(conv_shifted, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    x = np.ones((1, c, h, h), np.float32)
    w = np.ones((f, c, 3, 3), np.float32)
    conv_fast.forward(x, w, 1, _geom(h))
    assert bool(calls) == takes
    assert conv_shifted.applies(x.shape, w.shape, 1, _geom(h), np.float32) == takes
    assert not conv_shifted.applies(x.shape, w.shape, 2, _geom(h), np.float32)  # groups
    strided = conv.Geom((3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (h // 2, h // 2))
    assert not conv_shifted.applies(x.shape, w.shape, 1, strided, np.float32)


def _conv_run(x, w, b):
    xs = [nd.array(a) for a in (x, w, b)]
    for a in xs:
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(*xs, kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0])
    gy = np.random.default_rng(3).standard_normal(y.shape).astype(np.float32)
    y.backward(nd.array(gy))
    return [y.asnumpy()] + [a.grad.asnumpy() for a in xs]


@needs_blas
@pytest.mark.parametrize("c,f", [(16, 24), (96, 8), (128, 32)])
def test_convolution_and_its_gradients_are_the_same_with_it_off(c, f, monkeypatch):
    """Convolution's forward, and its data gradient (a convolution of gy, C and F swapped),
    through the per-tap products, against conv_fast's other paths."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, c, 28, 28)).astype(np.float32)
    w = (rng.standard_normal((f, c, 3, 3)) * 0.1).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    calls = []
    real = conv_shifted.forward
    monkeypatch.setattr(conv_shifted, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    on = _conv_run(x, w, b)
    assert len(calls) == 2      # the forward and the data gradient
    monkeypatch.setattr(conv_shifted, "ENABLED", False)
    off = _conv_run(x, w, b)
    for name, a, bb in zip(["y", "dx", "dw", "db"], on, off):
        np.testing.assert_allclose(a, bb, rtol=1e-4, atol=1e-4 * np.abs(bb).max(),
                                   err_msg=name)


def test_without_numpys_blas_it_steps_aside(monkeypatch):
    """Where the product cannot be found (numpy built against another BLAS), no layer takes
    the path and the kernel says why if called."""
    monkeypatch.setattr(cblas, "_FOUND", {np.dtype(np.float32): None,
                                          np.dtype(np.float64): None})
    x = np.ones((1, 64, 56, 56), np.float32)
    w = np.ones((64, 64, 3, 3), np.float32)
    assert not conv_shifted.applies(x.shape, w.shape, 1, _geom(56), np.float32)
    with pytest.raises(ValueError, match="no BLAS product for float32"):
        conv_shifted.forward(x, w, _geom(56))
    y = conv_fast.forward(x, w, 1, _geom(56))       # im2col instead
    assert y[0, 0, 10, 10] == 64 * 9
