"""Walk entries of the dense operator families added for MXNet's full `nd`/`sym` surface:
comparison and logical (compare.py), hypot forms, special functions, sorting, indexing,
tensor manipulation and creation, loss outputs, normalisations."""
import numpy as np
from scipy import special

from .common import C, Idx, Pos

B23, B13 = (2, 3), (1, 3)


def _logical(fn, bcast):
    other = B13 if bcast else B23
    return C([Idx([[0, 1, 2], [0, -1, 0]]), Idx(np.array([[1, 0, 3]] * (1 if bcast else 2)))
              if bcast else Idx([[1, 0, 3], [0, 0, 2]])],
             ref=lambda a, b: fn(a, b).astype(a.dtype), more=[[B23, other]])


def _logical_scalar(fn, s):
    return C([Idx([[0, 1, 2], [0, -1, 0]])], {"scalar": s},
             ref=lambda a: fn(a, s).astype(a.dtype))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _hot(label, k):
    return (label.astype(int)[..., None] == np.arange(k)).astype(np.float64)


def _so_grad(x, label, w, **kw):
    """SoftmaxOutput's gradient for 2-D data, written from MXNet's definition."""
    y = _softmax(x, 1)
    g = y - _hot(label, x.shape[1])
    if kw.get("use_ignore"):
        g[label == kw.get("ignore_label", -1)] = 0
    if kw.get("normalization") == "batch":
        g /= x.shape[0]
    if kw.get("normalization") == "valid":
        g /= max((label != kw.get("ignore_label", -1)).sum(), 1)
    return [g * kw.get("grad_scale", 1.0), None]


def _svm_grad(x, label, w, margin=1.0, c=1.0, linear=False):
    hot = _hot(label, x.shape[1]).astype(bool)
    if linear:
        g = np.where(hot, -(margin > x).astype(float), (margin > -x).astype(float)) * c
    else:
        g = np.where(hot, -2 * np.maximum(margin - x, 0), 2 * np.maximum(margin + x, 0)) * c
    return [g, None]


def _topk_ref(x, k, ret, axis=-1, ascend=False):
    order = np.argsort(x if ascend else -x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    vals = np.take_along_axis(x, idx, axis=axis)
    if ret == "value":
        return vals
    if ret == "indices":
        return idx.astype(np.float32)
    if ret == "both":
        return [vals, idx.astype(np.float32)]
    m = np.zeros_like(x)
    np.put_along_axis(m, idx, 1, axis=axis)
    return m


def _lrn_ref(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    c, half = x.shape[1], nsize // 2
    s = np.zeros_like(x)
    for i in range(c):
        lo, hi = max(0, i - half), min(c, i + half + 1)
        s[:, i] = (x[:, lo:hi] ** 2).sum(axis=1)
    return x / (knorm + alpha / nsize * s) ** beta


def _l2_ref(x, axes):
    return x / np.sqrt((x * x).sum(axis=axes, keepdims=True) + 1e-10)


def _d2s(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, b, b, c // b // b, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(
        n, c // b // b, h * b, w * b)


def _s2d(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(
        n, c * b * b, h // b, w // b)


def _bn_ref(x, g, b, mm, mv, fix_gamma=True, eps=1e-3):
    g = np.ones_like(g) if fix_gamma else g
    s = (1, -1, 1)
    return (x - mm.reshape(s)) / np.sqrt(mv.reshape(s) + eps) * g.reshape(s) + b.reshape(s)


GATHER_IDX = Idx([[0, 1, -1], [2, 0, 1]])
NAN = np.array([[1.0, np.nan, -0.7], [0.6, 1.2, np.nan]])

SPECS = {
    # ---- compare.py: the logical rows (the comparisons' entries live in core.py) ----
    "broadcast_logical_and": _logical(np.logical_and, True),
    "broadcast_logical_or": _logical(np.logical_or, True),
    "broadcast_logical_xor": _logical(np.logical_xor, True),
    "_logical_and": _logical(np.logical_and, False),
    "_logical_or": _logical(np.logical_or, False),
    "_logical_xor": _logical(np.logical_xor, False),
    "_logical_and_scalar": _logical_scalar(np.logical_and, 1),
    "_logical_or_scalar": _logical_scalar(np.logical_or, 0),
    "_logical_xor_scalar": _logical_scalar(np.logical_xor, 1),
    # ---- hypot ----
    "broadcast_hypot": C([B23, B13], ref=np.hypot),
    "_hypot": C([B23, B23], ref=np.hypot),
    "_hypot_scalar": C([B23], {"scalar": 1.5}, ref=lambda x: np.hypot(x, 1.5)),
    # ---- special.py ----
    "erf": C([B23], ref=special.erf),
    "erfinv": C([np.array([[-0.6, -0.1, 0.3], [0.5, 0.8, -0.9]])], ref=special.erfinv),
    "gamma": C([Pos(2, 3)], ref=special.gamma, more=[[np.array([-0.5, 2.5, 4.0])]]),
    "gammaln": C([Pos(2, 3)], ref=special.gammaln),
    "hard_sigmoid": [C([B23], ref=lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
                     C([np.array([-4.0, -1.0, 0.5, 3.5])], {"alpha": 0.3, "beta": 0.4},
                       ref=lambda x: np.clip(0.3 * x + 0.4, 0, 1))],
    "smooth_l1": [C([np.array([-1.7, -0.4, 0.2, 0.8, 2.5])],
                    ref=lambda x: np.where(np.abs(x) < 1, 0.5 * x * x, np.abs(x) - 0.5)),
                  C([B23], {"scalar": 2.0},
                    ref=lambda x: np.where(np.abs(x) < 0.25, 2 * x * x, np.abs(x) - 0.125))],
    # ---- sorting.py ----
    "argmin": [C([(3, 4)], {"axis": 1}, ref=lambda x: x.argmin(1).astype(x.dtype)),
               C([(3, 4)], ref=lambda x: np.array([x.argmin()], x.dtype)),
               C([(3, 4)], {"axis": -2, "keepdims": True},
                 ref=lambda x: x.argmin(0)[None].astype(x.dtype))],
    "argmax_channel": C([(3, 4)], ref=lambda x: x.argmax(1).astype(x.dtype),
                        more=[[(2, 3, 4)]]),
    "sort": [C([(3, 4)], ref=lambda x: np.sort(x, -1)),
             C([(3, 4)], {"axis": 0, "is_ascend": False}, ref=lambda x: -np.sort(-x, 0)),
             C([(3, 4)], {"axis": None}, ref=lambda x: np.sort(x, None))],
    "argsort": [C([(3, 4)], ref=lambda x: np.argsort(x, -1).astype(np.float32)),
                C([(3, 4)], {"axis": 0, "is_ascend": False, "dtype": "int32"},
                  ref=lambda x: np.argsort(-x, 0)),
                C([Idx([[3, 1, 2, 1], [0, 5, 5, 4]])], {"is_ascend": False},
                  ref=lambda x: np.array([[0, 2, 1, 3], [1, 2, 3, 0]]))],
    # index outputs as float64: the second-order walk multiplies them with float64 heads
    "topk": [C([(3, 5)], {"k": 2, "dtype": "float64"}, ref=lambda x: _topk_ref(x, 2, "indices")),
             C([(3, 5)], {"k": 2, "ret_typ": "value"}, ref=lambda x: _topk_ref(x, 2, "value")),
             C([(3, 5)], {"k": 3, "ret_typ": "both", "axis": 0, "is_ascend": True,
                          "dtype": "float64"},
               ref=lambda x: _topk_ref(x, 3, "both", 0, True)),
             C([(3, 5)], {"k": 2, "ret_typ": "mask"}, ref=lambda x: _topk_ref(x, 2, "mask")),
             C([(3, 5)], {"k": 0, "ret_typ": "value"}, ref=lambda x: -np.sort(-x, -1)),
             C([(3, 5)], {"k": 4, "ret_typ": "value", "axis": None},
               ref=lambda x: -np.sort(-x, None)[:4])],
    "_np_cumsum": [C([(3, 4)], ref=lambda x: np.cumsum(x)),
                   C([(3, 4)], {"axis": 1}, ref=lambda x: np.cumsum(x, 1)),
                   C([(3, 4)], {"axis": 0, "dtype": "float64"}, ref=lambda x: np.cumsum(x, 0))],
    # ---- indexing.py ----
    "gather_nd": [C([(3, 4), GATHER_IDX], ref=lambda d, i: d[i[0].astype(int) % 3,
                                                              i[1].astype(int) % 4]),
                  C([(3, 4, 2), Idx([[2, 0, 2]])],
                    ref=lambda d, i: d[i[0].astype(int)])],
    "scatter_nd": C([(3,), Idx([[0, 1, 1], [1, 0, 2]])], {"shape": (2, 3)},
                    ref=lambda d, i: _scatter(d, i, (2, 3))),
    "_scatter_set_nd": C([(2, 3), (3,), Idx([[0, 1, 1], [1, 0, 2]])], {"shape": (2, 3)},
                         ref=lambda a, d, i: _scatter(d, i, (2, 3), a)),
    "ravel_multi_index": C([Idx([[1, 2, 0], [0, 3, 1]])], {"shape": (3, 4)},
                           ref=lambda i: (i[0] * 4 + i[1])),
    "unravel_index": C([Idx([3, 7, 11, 0])], {"shape": (3, 4)},
                       ref=lambda i: np.stack(np.unravel_index(i.astype(int), (3, 4)))),
    "batch_take": C([(3, 4), Idx([0, 3, 5])],
                    ref=lambda a, i: a[np.arange(3), np.clip(i.astype(int), 0, 3)]),
    "fill_element_0index": C([(3, 4), (3,), Idx([0, 3, 1])],
                             ref=lambda a, m, i: _fill(a, m, i)),
    "_onehot_encode": C([Idx([0, 2, 1]), (3, 4)], ref=lambda i, o: _hot(i, 4)),
    # ---- tensor.py ----
    "tile": [C([B23], {"reps": (2, 2)}, ref=lambda x: np.tile(x, (2, 2))),
             C([B23], {"reps": (2, 1, 3)}, ref=lambda x: np.tile(x, (2, 1, 3))),
             C([(2, 1, 2)], {"reps": (3,)}, ref=lambda x: np.tile(x, 3))],
    "repeat": [C([B23], {"repeats": 2}, ref=lambda x: np.repeat(x, 2)),
               C([B23], {"repeats": 3, "axis": -1}, ref=lambda x: np.repeat(x, 3, -1))],
    "diag": [C([(3, 4)], ref=np.diag),
             C([(3, 4)], {"k": 1}, ref=lambda x: np.diag(x, 1)),
             C([(3,)], {"k": -1}, ref=lambda x: np.diag(x, -1)),
             C([(2, 3, 4)], {"k": -1, "axis1": 1, "axis2": 2},
               ref=lambda x: np.diagonal(x, -1, 1, 2))],
    "slice_like": [C([(3, 4), (2, 3)], ref=lambda x, s: x[:2, :3]),
                   C([(3, 4), (5, 2)], {"axes": (-1,)}, ref=lambda x, s: x[:, :2])],
    "broadcast_like": [C([B13, B23], ref=lambda a, b: np.broadcast_to(a, B23)),
                       C([(1, 3), (4, 2)], {"lhs_axes": (0,), "rhs_axes": (1,)},
                         ref=lambda a, b: np.broadcast_to(a, (2, 3)))],
    "broadcast_axis": C([(1, 3, 1)], {"axis": (0, 2), "size": (2, 4)},
                        ref=lambda x: np.broadcast_to(x, (2, 3, 4))),
    "depth_to_space": C([(1, 8, 2, 3)], {"block_size": 2}, ref=lambda x: _d2s(x, 2)),
    "space_to_depth": C([(1, 2, 4, 6)], {"block_size": 2}, ref=lambda x: _s2d(x, 2)),
    "_split_v2": [C([(4, 3)], {"indices": (0, 1, 3), "axis": 0},
                    ref=lambda x: [x[:1], x[1:3], x[3:]]),
                  C([(2, 4)], {"sections": 4, "squeeze_axis": True},
                    ref=lambda x: [x[:, i] for i in range(4)])],
    "Crop": [C([(1, 2, 5, 6)], {"h_w": (2, 3), "offset": (1, 2)},
               ref=lambda x: x[:, :, 1:3, 2:5]),
             C([(1, 2, 5, 6), (1, 1, 2, 3)], {"center_crop": True},
               ref=lambda x, y: x[:, :, 1:3, 1:4])],
    "moments": [C([(3, 4)], {"axes": (1,)}, ref=lambda x: [x.mean(1), x.var(1)]),
                C([(2, 3, 4)], {"axes": (0, 2), "keepdims": True},
                  ref=lambda x: [x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)])],
    "nansum": [C([NAN], ref=lambda x: np.array([np.nansum(x)])),
               C([NAN], {"axis": 1, "keepdims": True},
                 ref=lambda x: np.nansum(x, 1, keepdims=True))],
    "nanprod": [C([NAN], ref=lambda x: np.array([np.nanprod(x)])),
                C([NAN], {"axis": 0}, ref=lambda x: np.nanprod(x, 0))],
    "shape_array": C([(2, 3, 4)], ref=lambda x: np.array([2, 3, 4])),
    "size_array": C([(2, 3, 4)], ref=lambda x: np.array([24])),
    "_eye": [C([], {"N": 3}, ref=lambda: np.eye(3)),
             C([], {"N": 2, "M": 4, "k": 1, "dtype": "int32"}, ref=lambda: np.eye(2, 4, 1))],
    "_linspace": [C([], {"start": 0, "stop": 1, "num": 5}, ref=lambda: np.linspace(0, 1, 5)),
                  C([], {"start": 2, "stop": 3, "num": 4, "endpoint": False},
                    ref=lambda: np.linspace(2, 3, 4, endpoint=False))],
    "_histogram": [C([np.array([0.0, 1, 2, 3, 3.5, 9])], {"bin_cnt": 3, "range": (0, 4)},
                     ref=lambda x: list(np.histogram(x, 3, (0, 4)))),
                   C([np.array([0.0, 1, 2, 3]), np.array([0.0, 1.5, 5])],
                     ref=lambda x, b: list(np.histogram(x, b)))],
    # ---- losses_ops.py ----
    "SoftmaxOutput": [
        C([(3, 4), Idx([1, 0, 3])], ref=lambda x, y: _softmax(x, 1),
          grad=lambda x, y, w: _so_grad(x, y, w)),
        C([(3, 4), Idx([1, -1, 3])],
          {"use_ignore": True, "normalization": "valid", "grad_scale": 2.0},
          ref=lambda x, y: _softmax(x, 1),
          grad=lambda x, y, w: _so_grad(x, y, w, use_ignore=True, normalization="valid",
                                        grad_scale=2.0)),
        C([(3, 4), Idx([1, 0, 3])], {"normalization": "batch"},
          ref=lambda x, y: _softmax(x, 1),
          grad=lambda x, y, w: _so_grad(x, y, w, normalization="batch"))],
    "LinearRegressionOutput": C([(3, 2), (3, 2)], ref=lambda x, y: x,
                                grad=lambda x, y, w: [(x - y) / 2, None]),
    "LogisticRegressionOutput": C([(3, 1), (3,)], {"grad_scale": 3.0},
                                  ref=lambda x, y: 1 / (1 + np.exp(-x)),
                                  grad=lambda x, y, w: [3 * (1 / (1 + np.exp(-x))
                                                             - y[:, None]), None]),
    "MAERegressionOutput": C([(3, 2), (3, 2)], ref=lambda x, y: x,
                             grad=lambda x, y, w: [np.sign(x - y) / 2, None]),
    "SVMOutput": [C([(3, 4), Idx([1, 0, 3])], ref=lambda x, y: x,
                    grad=lambda x, y, w: _svm_grad(x, y, w)),
                  C([(3, 4), Idx([1, 0, 3])], {"use_linear": True, "margin": 0.8},
                    ref=lambda x, y: x,
                    grad=lambda x, y, w: _svm_grad(x, y, w, 0.8, linear=True))],
    "MakeLoss": [C([B23], ref=lambda x: x, grad=lambda x, w: [np.ones_like(x)]),
                 C([B23], {"normalization": "batch", "grad_scale": 3.0}, ref=lambda x: x,
                   grad=lambda x, w: [np.full_like(x, 1.5)]),
                 C([B23], {"normalization": "valid"}, ref=lambda x: x,
                   grad=lambda x, w: [np.full_like(x, 1.0 / max((x > 0).sum(), 1))])],
    "make_loss": C([B23], ref=lambda x: x, grad=lambda x, w: [np.ones_like(x)]),
    "softmax_cross_entropy": C(
        [(3, 4), Idx([1, 0, 3])],
        ref=lambda x, y: np.array([-np.log(_softmax(x, 1)[np.arange(3), y.astype(int)]).sum()])),
    # ---- legacy_layers.py ----
    "L2Normalization": [C([(2, 3, 2)], ref=lambda x: _l2_ref(x, (1, 2))),
                        C([(2, 3, 2)], {"mode": "channel"}, ref=lambda x: _l2_ref(x, (1,))),
                        C([(2, 3, 2)], {"mode": "spatial"}, ref=lambda x: _l2_ref(x, (2,)))],
    "LRN": [C([(2, 4, 2, 2)], {"nsize": 3}, ref=lambda x: _lrn_ref(x, 3)),
            C([(1, 5, 3)], {"nsize": 5, "alpha": 0.5, "beta": 0.6, "knorm": 1.5},
              ref=lambda x: _lrn_ref(x, 5, 0.5, 0.6, 1.5))],
    "SoftmaxActivation": [C([(3, 4)], ref=lambda x: _softmax(x, 1)),
                          C([(2, 3, 2)], {"mode": "channel"}, ref=lambda x: _softmax(x, 1)),
                          C([(2, 3, 2)],
                            ref=lambda x: _softmax(x.reshape(2, 6), 1).reshape(2, 3, 2))],
    "BatchNorm_v1": [C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"fix_gamma": False},
                       ref=lambda *a: _bn_ref(*a, fix_gamma=False)),
                     C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], ref=_bn_ref)],
    "IdentityAttachKLSparseReg": C(
        [np.array([[0.2, 0.7, 0.4], [0.6, 0.1, 0.3]]), np.array([0.3, 0.5, 0.2])],
        ref=lambda x, a: x, grad=lambda x, a, w: _kl_grad(x, a, w)),
}


def _kl_grad(x, avg, w, target=0.1, penalty=1e-3, momentum=0.9):
    avg = momentum * avg + (1 - momentum) * x.mean(0)
    return [w + penalty * (-target / avg + (1 - target) / (1 - avg)), None]


def _scatter(d, i, shape, base=None):
    out = np.zeros(shape) if base is None else base.copy()
    out[tuple(i.astype(int))] = d
    return out


def _fill(a, m, i):
    out = a.copy()
    out[np.arange(a.shape[0]), i.astype(int)] = m
    return out


def _spread(grad):
    """A reference written as ``grad(*inputs, *head_grads)``, in the walk's form
    ``grad(inputs, head_grads)``."""
    return lambda arrays, heads: grad(*arrays, *heads)


for _checks in SPECS.values():
    for _check in _checks if isinstance(_checks, list) else [_checks]:
        if _check["grad"] is not None:
            _check["grad"] = _spread(_check["grad"])
