"""Matrix operators: dot, batch_dot, FullyConnected, Embedding, take, pick, one_hot."""
from math import prod

import numpy as np

from ..base import MXNetValueError
from ..context import host_scalar
from . import accumulate
from . import attrs as A
from .fast import Fast
from .registry import ShapeError, ShapeRule, register
from .rules import norm_axis, keep_dtype
from .scatter import run_start, scatter_add
from .sparse import matrix as sparse_matrix


# forward_stype (MXNet's sparse output choice) is accepted and ignored by this dense operator;
# dot's storage rule (ops/sparse/matrix.py) reads it.
_DOT_ATTRS = {"transpose_a": A.Bool(False), "transpose_b": A.Bool(False),
              "forward_stype": A.Str(None)}


def _dot_2d_shapes(p, a, b):
    """MXNet's dot: lhs flattened to 2-D over its leading axes, rhs over its trailing ones."""
    a2 = (prod(a[:-1]), a[-1]) if not p.transpose_a else (a[0], prod(a[1:]))
    b2 = (b[0], prod(b[1:])) if not p.transpose_b else (prod(b[:-1]), b[-1])
    return a2, b2


def _dot_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    ka = a[0] if p.transpose_a else a[-1]
    kb = b[-1] if p.transpose_b else b[0]
    if ka != kb:
        raise ShapeError(f"dot: shapes {tuple(a)} and {tuple(b)} do not align "
                         f"(transpose_a={p.transpose_a}, transpose_b={p.transpose_b}): "
                         f"{ka} != {kb}")
    left = a[1:] if p.transpose_a else a[:-1]
    right = b[:-1] if p.transpose_b else b[1:]
    return ins, [tuple(left) + tuple(right) or (1,)]


def _mat(x, shape2, t):
    m = x.reshape(shape2)
    return m.T if t else m


def _dot_forward(p, rc, a, b):
    """dot(lhs, rhs, transpose_a=False, transpose_b=False): matrix product (MXNet semantics)."""
    a2, b2 = _dot_2d_shapes(p, a.shape, b.shape)
    out_shape = _dot_shape(p, [a.shape, b.shape])[1][0]
    return rc.xp.dot(_mat(a, a2, p.transpose_a), _mat(b, b2, p.transpose_b)).reshape(out_shape)


def _dot_vjp(p, rc, xs, ys, gys, need):
    a, b = xs
    a2, b2 = _dot_2d_shapes(p, a.shape, b.shape)
    A_, B_ = _mat(a, a2, p.transpose_a), _mat(b, b2, p.transpose_b)
    g = gys[0].reshape(A_.shape[0], B_.shape[1])
    ga = gb = None
    if need[0]:
        ga = (g @ B_.T)
        ga = (ga.T if p.transpose_a else ga).reshape(a.shape)
    if need[1]:
        gb = (A_.T @ g)
        gb = (gb.T if p.transpose_b else gb).reshape(b.shape)
    return ga, gb


register("dot", inputs=("lhs", "rhs"), vjp=_dot_vjp, shape=_dot_shape,
         attrs=_DOT_ATTRS, storage=sparse_matrix.DOT)(_dot_forward)


def _batch_dot_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    if len(a) != len(b) or len(a) < 3 or tuple(a[:-2]) != tuple(b[:-2]):
        raise ShapeError(f"batch_dot: expected two arrays of 3 or more dimensions with the same "
                         f"batch dimensions, got {tuple(a)} and {tuple(b)}")
    m, ka = (a[-1], a[-2]) if p.transpose_a else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if p.transpose_b else (b[-2], b[-1])
    if ka != kb:
        raise ShapeError(f"batch_dot: shapes {tuple(a)} and {tuple(b)} do not align: {ka} != {kb}")
    return ins, [tuple(a[:-2]) + (m, n)]


def _bt(x, t):
    return x.swapaxes(-1, -2) if t else x


def _batch_dot_vjp(p, rc, xs, ys, gys, need):
    a, b = xs
    A_, B_, g = _bt(a, p.transpose_a), _bt(b, p.transpose_b), gys[0]
    ga = _bt(rc.xp.matmul(g, B_.swapaxes(-1, -2)), p.transpose_a) if need[0] else None
    gb = _bt(rc.xp.matmul(A_.swapaxes(-1, -2), g), p.transpose_b) if need[1] else None
    return ga, gb


@register("batch_dot", inputs=("lhs", "rhs"), vjp=_batch_dot_vjp, shape=_batch_dot_shape,
          attrs=_DOT_ATTRS)
def _batch_dot(p, rc, a, b):
    """batch_dot(lhs, rhs): matmul of each pair of matrices over the leading (batch) axes
    (inputs of 3 or more dimensions, the same batch dimensions)."""
    return rc.xp.matmul(_bt(a, p.transpose_a), _bt(b, p.transpose_b))


# ---- FullyConnected ----------------------------------------------------------------------
def _fc_inputs(p):
    return ["data", "weight"] if p.no_bias else ["data", "weight", "bias"]


def _fc_shape(p, ins):
    data, w = ins[0], ins[1]
    if data is not None:
        k = prod(data[1:]) if p.flatten else data[-1]
        if w is None or 0 in w:
            w = (p.num_hidden, k)
        elif tuple(w) != (p.num_hidden, k):
            raise ShapeError(f"FullyConnected: weight must have shape {(p.num_hidden, k)} for data "
                             f"{tuple(data)} and num_hidden={p.num_hidden}, got {tuple(w)}")
        ins[1] = tuple(w)
    elif w is not None and w[0] != p.num_hidden:
        raise ShapeError(f"FullyConnected: weight shape {tuple(w)} does not match "
                         f"num_hidden={p.num_hidden}")
    if not p.no_bias:
        # as MXNet's, a (num_hidden, 1) bias is taken too
        if ins[2] is not None and tuple(ins[2]) not in ((p.num_hidden,), (p.num_hidden, 1)):
            raise ShapeError(f"FullyConnected: bias must have shape {(p.num_hidden,)} (or "
                             f"{(p.num_hidden, 1)}), got {tuple(ins[2])}")
        ins[2] = (p.num_hidden,) if ins[2] is None else tuple(ins[2])
    if data is None:
        return ins, [None]
    out = (data[0], p.num_hidden) if p.flatten else tuple(data[:-1]) + (p.num_hidden,)
    return ins, [out]


def _fc_shape_back(p, ins, outs):
    """The data's shape from the output's and the weight's (2-D data when flatten)."""
    out, w = outs[0], ins[1]
    if ins[0] is None and out is not None and w is not None:
        ins[0] = (out[0], w[1]) if p.flatten else tuple(out[:-1]) + (w[1],)
    return ins


def _fc_2d(p, x):
    return x.reshape(x.shape[0], -1) if p.flatten else x.reshape(-1, x.shape[-1])


def _fc(p, rc, x, w, b=None):
    """FullyConnected(data, weight, bias=None, num_hidden, no_bias=False, flatten=True):
    ``data @ weight.T + bias``; with flatten, data is first reshaped to (batch, -1)."""
    y = rc.xp.dot(_fc_2d(p, x), w.T)
    if b is not None:
        y += b.reshape(-1)
    return y.reshape(_fc_shape(p, [x.shape, w.shape, None if b is None else b.shape])[1][0])


def _fc_vjp(p, rc, xs, ys, gys, need):
    x, w = xs[0], xs[1]
    g = gys[0].reshape(-1, p.num_hidden)
    gx = rc.xp.dot(g, w).reshape(x.shape) if need[0] else None
    gw = rc.xp.dot(g.T, _fc_2d(p, x)) if need[1] else None
    if p.no_bias:
        return gx, gw
    return gx, gw, accumulate.column_sums(g).reshape(xs[2].shape) if need[2] else None


# Its fast paths: the forward into a given output and as source lines, the data gradient
# alone (a loop's reverse pass calls it, with out=), the vjp writing into the caller's arrays,
# and the weight and bias gradients summed over a loop's steps.
def _fc_into(p, rc, outs, x, w, b=None):
    out2 = outs[0] if outs[0].ndim == 2 else outs[0].reshape(-1, p.num_hidden)
    _matmul_into(rc.xp, x if x.ndim == 2 else _fc_2d(p, x), w.T, out2)
    if b is not None:
        out2 += b.reshape(-1)


def _fc_inline(p, shapes, dtypes):
    """`_fc_into` as source lines (`Fast.inline`) for 2-D data of one dtype."""
    if len(shapes[0]) != 2 or len(set(dtypes)) != 1 or (not p.no_bias and len(shapes[2]) != 1):
        return None
    # The output goes by position: a keyword argument costs about as much as the call.
    return ["xp.dot({0}, {1}.T, {out})"] + \
        ([] if p.no_bias else ["xp.add({out}, {2}, {out})"])


def _matmul_into(xp, a, b, out=None):
    """a @ b, into `out` when given. `dot` is a few µs ahead of matmul for one row (BLAS
    gemv) but writes only C-contiguous outputs of the exact result dtype."""
    if out is None:
        return xp.dot(a, b)
    try:
        return xp.dot(a, b, out=out)
    except ValueError:
        return xp.matmul(a, b, out=out)


def _into(dests, j, shape=None):
    """dests[j] (viewed as `shape`), or None: where the gradient of input j goes."""
    d = None if dests is None else dests[j]
    return d if d is None or shape is None else d.reshape(shape)


def _fc_data_grad(xp, x, w, *rest, out=None):
    """FullyConnected's data gradient, ``g @ weight`` in x's shape; rest is (bias, output,
    output gradient) or (output, output gradient)."""
    g = rest[-1]
    if g.ndim != 2:
        g = g.reshape(-1, w.shape[0])
    if out is not None:
        _matmul_into(xp, g, w, out if out.ndim == 2 else out.reshape(g.shape[0], w.shape[1]))
        return out
    gx = xp.dot(g, w)
    return gx if x.ndim == 2 else gx.reshape(x.shape)


def _fc_vjp_into(p, rc, xs, ys, gys, need, dests=None):
    x, w = xs[0], xs[1]
    g = gys[0].reshape(-1, p.num_hidden)
    gx = gw = gb = None
    if need[0]:
        dest = _into(dests, 0, (g.shape[0], w.shape[1]))
        if dest is None:
            gx = _fc_data_grad(rc.xp, x, w, gys[0])
        else:
            _matmul_into(rc.xp, g, w, dest)
            gx = dests[0]
    if need[1]:
        gw = _matmul_into(rc.xp, g.T, _fc_2d(p, x), _into(dests, 1))
    if p.no_bias:
        return gx, gw
    if need[2]:
        gb = accumulate.column_sums(g, out=_into(dests, 2, (p.num_hidden,)))
        gb = gb.reshape(xs[2].shape) if dests is None or dests[2] is None else dests[2]
    return gx, gw, gb


def _fc_rows(p, stacked_x):
    """Per-step data stacked as (T, ...) -> one matrix of every step's rows (T may be 0)."""
    shape = stacked_x.shape
    if p.flatten:
        return stacked_x.reshape(shape[0] * shape[1], prod(shape[2:]))
    return stacked_x.reshape(prod(shape[:-1]), shape[-1])


def _fc_weight_sum(p, rc, w, stacked, g, out=None):
    return _matmul_into(rc.xp, g.reshape(-1, p.num_hidden).T, _fc_rows(p, stacked["data"]), out)


def _fc_bias_sum(p, rc, b, stacked, g, out=None):
    total = accumulate.column_sums(g.reshape(-1, p.num_hidden),
                                   out=None if out is None else out.reshape(-1))
    return total.reshape(b.shape) if out is None else out


register("FullyConnected", inputs=_fc_inputs, vjp=_fc_vjp,
         # as MXNet's, the rule fills an unknown batch from the output's (flatten only)
         shape=ShapeRule(_fc_shape, back=_fc_shape_back, fills_back=lambda p: p.flatten),
         attrs={"num_hidden": A.Int(), "no_bias": A.Bool(False), "flatten": A.Bool(True)},
         fast=Fast(into=_fc_into, inline=_fc_inline, saves=("data", "weight"),
                   grads=(_fc_data_grad,), grads_out=True, vjp=_fc_vjp_into,
                   writes_dests=True,
                   summed_grads={"weight": (("data",), _fc_weight_sum),
                                 "bias": ((), _fc_bias_sum)}))(_fc)


# ---- gathers -------------------------------------------------------------------------------
def _emb_shape(p, ins):
    w = (p.input_dim, p.output_dim)
    if ins[1] is not None and tuple(ins[1]) != w:
        raise ShapeError(f"Embedding: weight must have shape {w}, got {tuple(ins[1])}")
    ins[1] = w
    return ins, [None if ins[0] is None else tuple(ins[0]) + (p.output_dim,)]


def _emb_vjp(p, rc, xs, ys, gys, need):
    idx, w = xs
    gw = rc.xp.zeros_like(w)
    # out-of-range indices read the clipped row forward, so their gradient goes there too
    i = rc.xp.clip(idx.astype(np.int64), 0, p.input_dim - 1).ravel()
    scatter_add(rc.xp, gw, i, gys[0].reshape(-1, w.shape[1]))
    return None, gw


@register("Embedding", inputs=("data", "weight"), nondiff=("data",), vjp=_emb_vjp,
          shape=_emb_shape, dtype=lambda p, ins: (ins, [ins[1] or np.dtype(p.dtype)]),
          attrs={"input_dim": A.Int(), "output_dim": A.Int(), "dtype": A.Dtype("float32"),
                 "sparse_grad": A.Bool(False)}, storage=sparse_matrix.EMBEDDING)
def _embedding(p, rc, idx, w):
    """Embedding(data, weight, input_dim, output_dim): rows of weight picked by integer data."""
    return w[rc.xp.clip(idx.astype(np.int64), 0, p.input_dim - 1)]


@register("_contrib_SparseEmbedding", inputs=("data", "weight"), nondiff=("data",),
          vjp=_emb_vjp, shape=_emb_shape,
          dtype=lambda p, ins: (ins, [ins[1] or np.dtype(p.dtype)]),
          attrs={"input_dim": A.Int(), "output_dim": A.Int(), "dtype": A.Dtype("float32"),
                 "deterministic": A.Bool(False)},
          storage=sparse_matrix.SPARSE_EMBEDDING)
def _sparse_embedding(p, rc, idx, w):
    """contrib.SparseEmbedding(data, weight, input_dim, output_dim, dtype='float32',
    deterministic=False): Embedding whose weight gradient is always row_sparse (MXNet's
    deprecated form of ``Embedding(sparse_grad=True)``; `deterministic` chose how MXNet's GPU
    kernel sums repeated rows, and the sums here are always in index order)."""
    return _embedding.kernel(p, rc, idx, w)   # the Embedding rule


def _take_idx(p, rc, idx, n):
    i = idx.astype(np.int64)
    return rc.xp.mod(i, n) if p.mode == "wrap" else rc.xp.clip(i, 0, n - 1)


def _take_shape(p, ins):
    a, i = ins
    if a is None or i is None:
        return ins, [None]
    ax = norm_axis("take", p.axis, len(a))
    return ins, [tuple(a[:ax]) + tuple(i) + tuple(a[ax + 1:])]


def _take_vjp(p, rc, xs, ys, gys, need):
    a, idx = xs
    ax = p.axis % a.ndim
    ga = rc.xp.zeros_like(a)
    i = _take_idx(p, rc, idx, a.shape[ax]).ravel()
    g = gys[0].reshape(a.shape[:ax] + (i.size,) + a.shape[ax + 1:])
    scatter_add(rc.xp, rc.xp.moveaxis(ga, ax, 0), i, rc.xp.moveaxis(g, ax, 0))
    return ga, None


def _take_a_sum(p, rc, a, stacked, g, out=None):
    """Every step's rows scattered into one gradient of `a` (instead of one dense zeros-sized
    gradient per step)."""
    ax = p.axis % a.ndim
    idx = stacked["indices"]
    i = _take_idx(p, rc, idx, a.shape[0]).ravel() if ax == 0 else None
    if i is not None and i.size == a.shape[0] and run_start(rc.xp, i) == 0:  # each row once
        rows = g.reshape(a.shape)
        if out is None:
            return rows.copy()
        rc.xp.copyto(out, rows)
        return out
    if out is None:
        ga = rc.xp.zeros_like(a)
    else:
        ga = out
        ga.fill(0)
    moved = rc.xp.moveaxis(ga, ax, 0)
    if ax == 0:
        scatter_add(rc.xp, moved, i, g.reshape((i.size,) + a.shape[1:]))
        return ga
    for t in range(idx.shape[0]):
        i = _take_idx(p, rc, idx[t], a.shape[ax]).ravel()
        gt = g[t].reshape(a.shape[:ax] + (i.size,) + a.shape[ax + 1:])
        scatter_add(rc.xp, moved, i, rc.xp.moveaxis(gt, ax, 0))
    return ga


@register("take", inputs=("a", "indices"), nondiff=("indices",), vjp=_take_vjp,
          shape=_take_shape, dtype=keep_dtype,
          attrs={"axis": A.Int(0), "mode": A.Enum("clip", "wrap", "raise", default="clip")},
          # the gradient of `a` summed over a loop's steps: one scatter of every step's rows
          fast=Fast(saves=("indices",), summed_grads={"a": (("indices",), _take_a_sum)}),
          storage=sparse_matrix.TAKE)
def _take(p, rc, a, idx):
    """take(a, indices, axis=0, mode='clip'): entries of `a` at integer `indices` along axis."""
    ax = norm_axis("take", p.axis, a.ndim)
    # mode='raise' must know on the host whether to raise: one explicit read
    if p.mode == "raise" and host_scalar(((idx < 0) | (idx >= a.shape[ax])).any()):
        raise MXNetValueError(f"take: an index is out of range [0, {a.shape[ax]}) with "
                              "mode='raise'")
    if rc.xp is np:  # numpy clips or wraps by itself, without a pass over the indices
        return np.take(a, idx.astype(np.int64), axis=ax,
                       mode="clip" if p.mode == "raise" else p.mode)
    return rc.xp.take(a, _take_idx(p, rc, idx, a.shape[ax]), axis=ax)


def _pick_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    ax = norm_axis("pick", p.axis, len(d))
    out = list(d)
    if p.keepdims:
        out[ax] = 1
    else:
        del out[ax]
    ins[1] = ins[1] if ins[1] is not None else tuple(out if not p.keepdims else
                                                     d[:ax] + d[ax + 1:])
    return ins, [tuple(out) or (1,)]


def _pick_index(p, rc, x, idx):
    ax = norm_axis("pick", p.axis, x.ndim)
    i = idx.astype(np.int64)
    i = rc.xp.mod(i, x.shape[ax]) if p.mode == "wrap" else rc.xp.clip(i, 0, x.shape[ax] - 1)
    return ax, rc.xp.expand_dims(i.reshape(x.shape[:ax] + x.shape[ax + 1:]), ax)


def _pick_vjp(p, rc, xs, ys, gys, need):
    x, idx = xs
    ax, i = _pick_index(p, rc, x, idx)
    gx = rc.xp.zeros_like(x)
    rc.xp.put_along_axis(gx, i, gys[0].reshape(i.shape), axis=ax)
    return gx, None


@register("pick", aliases=("choose_element_0index",), inputs=("data", "index"),
          nondiff=("index",), vjp=_pick_vjp, shape=_pick_shape, dtype=keep_dtype,
          attrs={"axis": A.Int(-1), "keepdims": A.Bool(False),
                 "mode": A.Enum("clip", "wrap", default="clip")})
def _pick(p, rc, x, idx):
    """pick(data, index, axis=-1, keepdims=False): one entry per row, chosen by index."""
    ax, i = _pick_index(p, rc, x, idx)
    y = rc.xp.take_along_axis(x, i, axis=ax)
    return y.reshape(_pick_shape(p, [x.shape, None])[1][0])


@register("one_hot", nondiff=("indices",), inputs=("indices",),
          shape=lambda p, ins: (ins, [None if ins[0] is None else tuple(ins[0]) + (p.depth,)]),
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype)]),
          attrs={"depth": A.Int(), "on_value": A.Float(1.0), "off_value": A.Float(0.0),
                 "dtype": A.Dtype("float32")})
def _one_hot(p, rc, idx):
    """one_hot(indices, depth): rows of an identity-like matrix picked by integer indices."""
    out = rc.xp.full(idx.shape + (p.depth,), p.off_value, dtype=p.dtype)
    if out.size == 0:  # depth 0 or no indices (NumPy shape semantics)
        return out
    i = idx.astype(np.int64)
    ok = (i >= 0) & (i < p.depth)
    rc.xp.put_along_axis(out, rc.xp.expand_dims(rc.xp.where(ok, i, 0), -1),
                         rc.xp.expand_dims(rc.xp.where(ok, p.on_value, p.off_value),
                                           -1).astype(p.dtype),
                         axis=-1)
    return out
