"""Registry-walk entries of the general-purpose contrib operators (`gluonlite.ops.
contrib_ops`): numpy references written independently of the kernels (loops, np.interp,
closed forms); `tests/ops_math/test_contrib_ops.py` holds them against MXNet's numbers."""
import numpy as np

from .common import C, Idx, Pos
from .core import _bn_ref

B23 = (2, 3)


def _split(x, heads, parts):
    L, B, E = x.shape
    d = E // (heads * parts)
    return x.reshape(L, B, heads, parts, d)


def _selfatt_qk(x, heads=2):
    q = _split(x, heads, 3)
    L, B, H, _, d = q.shape
    out = np.zeros((B * H, L, L))
    for b in range(B):
        for h in range(H):
            out[b * H + h] = q[:, b, h, 0] @ q[:, b, h, 1].T / np.sqrt(d)
    return out


def _selfatt_valatt(x, att, heads=2):
    v = _split(x, heads, 3)
    L, B, H, _, d = v.shape
    out = np.zeros((L, B, H, d))
    for b in range(B):
        for h in range(H):
            out[:, b, h] = att[b * H + h] @ v[:, b, h, 2]
    return out.reshape(L, B, H * d)


def _encdec_qk(q, kv, heads=2):
    k = _split(kv, heads, 2)
    qs = q.reshape(q.shape[0], q.shape[1], heads, -1)
    B, d = q.shape[1], qs.shape[-1]
    return np.stack([qs[:, b, h] @ k[:, b, h, 0].T / np.sqrt(d)
                     for b in range(B) for h in range(heads)])


def _encdec_valatt(kv, att, heads=2):
    v = _split(kv, heads, 2)
    B, d = kv.shape[1], v.shape[-1]
    out = np.stack([np.stack([att[b * heads + h] @ v[:, b, h, 1] for h in range(heads)], 1)
                    for b in range(B)], 1)
    return out.reshape(att.shape[1], B, heads * d)


def _adaptive(x, oh, ow):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, h1 = int(np.floor(i * h / oh)), int(np.ceil((i + 1) * h / oh))
            w0, w1 = int(np.floor(j * w / ow)), int(np.ceil((j + 1) * w / ow))
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def _resize_corners(x, oh, ow):
    """Bilinear resize with aligned corners, one axis at a time with np.interp."""
    n, c, h, w = x.shape
    # source positions as MXNet's kernel computes them: a float32 scale times the index
    ys = (np.float32((h - 1) / (oh - 1)) * np.arange(oh, dtype=np.float32)).astype(float)
    xs = (np.float32((w - 1) / (ow - 1)) * np.arange(ow, dtype=np.float32)).astype(float)
    rows = np.apply_along_axis(lambda r: np.interp(ys, np.arange(h), r), 2, x)
    return np.apply_along_axis(lambda r: np.interp(xs, np.arange(w), r), 3, rows)


def _fft(x):
    c = np.fft.fft(x, axis=-1)
    return np.stack([c.real, c.imag], -1).reshape(x.shape[:-1] + (-1,))


def _ifft(x):
    c = x[..., 0::2] + 1j * x[..., 1::2]
    return np.fft.ifft(c, axis=-1).real * c.shape[-1]


def _count_sketch(x, h, s):
    out = np.zeros((x.shape[0], 3))
    for j in range(x.shape[1]):
        out[:, int(h[0, j])] += s[0, j] * x[:, j]
    return out


def _identity_grad(arrays, heads):
    return [heads[0]]


SPECS = {
    "_contrib_div_sqrt_dim": C([B23], ref=lambda x: x / np.sqrt(3)),
    "_contrib_gradientmultiplier": [
        C([B23], ref=lambda x: x),
        C([B23], {"scalar": -0.5}, ref=lambda x: x, grad=lambda a, w: [-0.5 * w[0]])],
    "_contrib_quadratic": C([B23], {"a": 0.5, "b": -2, "c": 1},
                            ref=lambda x: 0.5 * x * x - 2 * x + 1),
    "_contrib_round_ste": C([Idx([[-2.5, -1.2, 0.4], [0.5, 1.5, 2.7]])],
                            ref=lambda x: np.array([[-3, -1, 0], [1, 2, 3.0]]),
                            grad=_identity_grad),
    "_contrib_sign_ste": C([B23], ref=np.sign, grad=_identity_grad),
    # Embedding's rows; its row_sparse weight gradient: tests/gluon/test_sparse_training.py
    "_contrib_SparseEmbedding": C([Idx([[0, 2], [1, 1]]), (4, 3)],
                                  {"input_dim": 4, "output_dim": 3},
                                  ref=lambda i, w: w[i.astype(int)],
                                  more=[[Idx([3, 0, 0]), (4, 3)]]),
    "_contrib_arange_like": [
        C([B23], {"start": 1, "step": 0.5, "repeat": 2},
          ref=lambda x: np.repeat(1 + 0.5 * np.arange(3), 2).reshape(2, 3)),
        C([(2, 3, 4)], {"axis": -2}, ref=lambda x: np.arange(3.0))],
    "_contrib_index_array": [
        C([B23], ref=lambda x: np.stack(np.indices(x.shape), -1)),
        C([(2, 3, 2)], {"axes": (2, 0)},
          ref=lambda x: np.stack([np.indices(x.shape)[2], np.indices(x.shape)[0]], -1))],
    "_contrib_index_copy": C([(4, 2), Idx([3, 1]), (2, 2)],
                             ref=lambda o, i, n: np.concatenate([o[:1], n[1:2], o[2:3],
                                                                 n[:1]])),
    "_contrib_boolean_mask": C([(4, 3), Idx([1, 0, 1, 1])], ref=lambda x, i: x[i != 0]),
    "_contrib_allclose": [C([B23, B23], ref=lambda a, b: np.array(float(np.allclose(a, b)))),
                          C([Idx([1.0, 2.0]), Idx([1.0, 2.0])], ref=lambda a, b: np.array(1.0))],
    "_contrib_interleaved_matmul_selfatt_qk": C([(3, 2, 12)], {"heads": 2}, ref=_selfatt_qk),
    "_contrib_interleaved_matmul_selfatt_valatt": C([(3, 2, 12), (4, 3, 3)], {"heads": 2},
                                                    ref=_selfatt_valatt),
    "_contrib_interleaved_matmul_encdec_qk": C([(2, 2, 4), (3, 2, 8)], {"heads": 2},
                                               ref=_encdec_qk),
    "_contrib_interleaved_matmul_encdec_valatt": C([(3, 2, 8), (4, 2, 3)], {"heads": 2},
                                                   ref=_encdec_valatt),
    "_contrib_fft": C([(2, 4)], ref=_fft, more=[[(2, 3, 5)]]),
    "_contrib_ifft": C([(2, 8)], ref=_ifft),
    "_contrib_AdaptiveAvgPooling2D": [
        C([(1, 2, 5, 4)], {"output_size": (2, 3)}, ref=lambda x: _adaptive(x, 2, 3)),
        C([(2, 1, 3, 3)], ref=lambda x: _adaptive(x, 1, 1))],
    "_contrib_BilinearResize2D": [
        C([(1, 2, 3, 4)], {"height": 5, "width": 3}, ref=lambda x: _resize_corners(x, 5, 3)),
        C([(1, 2, 3, 4), (1, 1, 4, 6)], {"mode": "like"},
          ref=lambda x, like: _resize_corners(x, 4, 6)),
        C([(1, 1, 4, 3)], {"height": 6, "width": 5, "align_corners": False})],
    "_contrib_BatchNormWithReLU": [
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"fix_gamma": False},
          ref=lambda *a: np.maximum(_bn_ref(*a, fix_gamma=False), 0)),
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"use_global_stats": True},
          ref=lambda *a: np.maximum(_bn_ref(*a), 0))],
    "_bn_add_relu": [
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3), (2, 3, 2)], {"fix_gamma": False},
          ref=lambda *a: np.maximum(_bn_ref(*a[:5], fix_gamma=False) + a[5], 0)),
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3), (2, 3, 2)], {"use_global_stats": True},
          ref=lambda *a: np.maximum(_bn_ref(*a[:5]) + a[5], 0))],
    "_bn_clip": [
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"fix_gamma": False, "a_min": -0.5,
                                                  "a_max": 0.5},
          ref=lambda *a: np.clip(_bn_ref(*a, fix_gamma=False), -0.5, 0.5)),
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"use_global_stats": True, "a_min": 0,
                                                  "a_max": 6},
          ref=lambda *a: np.clip(_bn_ref(*a), 0, 6))],
    "_contrib_SyncBatchNorm": [
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"fix_gamma": False, "key": "bn0"}),
        C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"ndev": 2, "key": "bn1"})],
    "_sample_unique_zipfian": C([], {"range_max": 20, "shape": (2, 3)}),
    "_contrib_count_sketch": C([(3, 4), Idx([[2, 0, 2, 1]]), Idx([[1, -1, -1, 1]])],
                               {"out_dim": 3}, ref=_count_sketch),
}
