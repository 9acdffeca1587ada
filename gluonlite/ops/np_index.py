"""Operators of MXNet's NumPy dialect whose result depends on values or rearranges entries by
index: nonzero, unique, bincount, percentile, boolean-mask assignment, insert, delete,
diag_indices_from, constraint_check and share_memory."""
from math import prod

import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import register, ShapeError
from .rules import norm_axis, unbroadcast


def _k(ins, i=0):
    return None if ins[i] is None else tuple(ins[i])


@register("_npx_nonzero", inputs=("x",), nondiff=("x",), shape_from_values=True,
          shape=lambda p, ins: (ins, [None]), dtype=lambda p, ins: (ins, [np.dtype(np.int64)]),
          aliases=("_npi_nonzero",))
def _npx_nonzero(p, rc, x):
    """_npx_nonzero(x): the indices of the non-zero entries, one row per entry (shape
    (count, x.ndim), int64; (count, 1) for a 0-d x)."""
    xs = x.reshape(1) if x.ndim == 0 else x
    return rc.xp.stack(rc.xp.nonzero(xs), axis=-1).astype(np.int64).reshape(-1, max(x.ndim, 1))


def _unique_outputs(p):
    return 1 + int(p.return_index) + int(p.return_inverse) + int(p.return_counts)


@register("_npi_unique", attrs={"return_index": A.Bool(False), "return_inverse": A.Bool(False),
                                "return_counts": A.Bool(False), "axis": A.OptionalInt()},
          outputs=_unique_outputs, nondiff=("data",), shape_from_values=True,
          shape=lambda p, ins: (ins, [None] * _unique_outputs(p)),
          dtype=lambda p, ins: (ins, [ins[0]] + [np.dtype(np.int64)] * (_unique_outputs(p) - 1)))
def _np_unique(p, rc, data):
    """_npi_unique(data, return_index=False, return_inverse=False, return_counts=False,
    axis=None): the sorted unique values (of the flattened array, or the unique slices along
    `axis`), then, as asked, the first indices, the inverse map and the counts (int64)."""
    a = data.get() if hasattr(data, "get") else data
    res = np.unique(a, return_index=p.return_index, return_inverse=p.return_inverse,
                    return_counts=p.return_counts, axis=p.axis)
    res = res if isinstance(res, tuple) else (res,)
    out = [res[0]] + [r.astype(np.int64).reshape(-1) for r in res[1:]]
    out = tuple(rc.xp.asarray(r) for r in out)
    return out if len(out) != 1 else out[0]  # one output: the array itself


def _bincount_inputs(p):
    return ["data", "weights"] if p.has_weights else ["data"]


@register("_npi_bincount", inputs=_bincount_inputs, signature=("data", "weights"),
          attrs={"minlength": A.Int(0), "has_weights": A.Bool(False)},
          nondiff=("data", "weights"), shape_from_values=True, same_dtype=(),
          shape=lambda p, ins: (ins, [None]),
          dtype=lambda p, ins: (ins, [ins[1] if p.has_weights else np.dtype(np.int64)]))
def _np_bincount(p, rc, data, weights=None):
    """_npi_bincount(data, weights=None, minlength=0): occurrences of each non-negative
    integer (weighted sums with weights, in their dtype)."""
    if data.ndim != 1:
        raise MXNetValueError(f"_npi_bincount: data must be 1-D, got shape {data.shape}")
    if data.dtype.kind not in "iu":
        raise MXNetValueError(f"_npi_bincount: data must be integers, got {data.dtype.name}")
    if data.size and (data < 0).any().item():
        raise MXNetValueError("_npi_bincount: data must be non-negative")
    if p.minlength < 0:
        raise MXNetValueError(f"_npi_bincount: minlength must be non-negative, got "
                              f"{p.minlength}")
    r = rc.xp.bincount(data, weights=weights, minlength=p.minlength)
    return r.astype(weights.dtype if weights is not None else np.int64)


_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _percentile_inputs(p):
    return ["a"] if p.q_scalar is not None else ["a", "q"]


def _percentile_shape(p, ins):
    a = _k(ins)
    if a is None:
        return ins, [None]
    q = () if p.q_scalar is not None else _k(ins, 1)
    if q is None:
        return ins, [None]
    axes = tuple(range(len(a))) if p.axis is None else tuple(
        norm_axis("_npi_percentile", x, len(a))
        for x in (p.axis if isinstance(p.axis, tuple) else (p.axis,)))
    rest = tuple(1 if i in axes else d for i, d in enumerate(a)) if p.keepdims else \
        tuple(d for i, d in enumerate(a) if i not in axes)
    return ins, [tuple(q) + rest]


@register("_npi_percentile", inputs=_percentile_inputs, signature=("a", "q"),
          attrs={"axis": A.Axis(None), "interpolation": A.Enum(*_INTERP, default="linear"),
                 "keepdims": A.Bool(False), "q_scalar": A.OptionalFloat()},
          nondiff=("a", "q"), shape=_percentile_shape, same_dtype=())
def _np_percentile(p, rc, a, q=None):
    """_npi_percentile(a, q, axis=None, interpolation='linear', keepdims=False): the q-th
    percentiles (q in [0, 100]) along `axis`."""
    qv = p.q_scalar if q is None else (q.get() if hasattr(q, "get") else q)
    if np.any(np.asarray(qv) < 0) or np.any(np.asarray(qv) > 100):
        raise MXNetValueError("_npi_percentile: percentiles must be in the range [0, 100]")
    def host(v):
        return v.get() if hasattr(v, "get") else np.asarray(v)
    r = np.percentile(host(a), host(qv), axis=p.axis, method=p.interpolation,
                      keepdims=p.keepdims)
    return rc.xp.asarray(np.asarray(r).astype(a.dtype if a.dtype.kind == "f" else np.float64))


def _mask_start(name, p, data, mask):
    start = norm_axis(name, p.start_axis, max(len(data), 1))
    if tuple(data[start:start + len(mask)]) != tuple(mask):
        raise ShapeError(f"{name}: mask of shape {tuple(mask)} does not match data of shape "
                         f"{tuple(data)} from axis {start}")
    return start


def _mask_assign_vjp(p, rc, xs, ys, gys, need):
    data, mask = xs[0], xs[1]
    start = norm_axis("_npi_boolean_mask_assign", p.start_axis, max(data.ndim, 1))
    key = (slice(None),) * start + (mask.astype(bool),)
    gd = gys[0].copy()
    gd[key] = 0
    out = [gd, None]
    if len(xs) == 3:
        v = xs[2]
        gv = gys[0][key]
        out.append(unbroadcast(gv, v.shape))
    return tuple(out)


@register("_npi_boolean_mask_assign_scalar", inputs=("data", "mask"),
          attrs={"value": A.Float(), "start_axis": A.Int(0)}, nondiff=("mask",), same_dtype=(),
          shape=lambda p, ins: (ins, [_k(ins)]), vjp=_mask_assign_vjp)
def _mask_assign_scalar(p, rc, data, mask):
    """_npi_boolean_mask_assign_scalar(data, mask, value, start_axis=0): a copy of data with
    `value` where the boolean mask (matching data's axes from start_axis) is true."""
    _mask_start("_npi_boolean_mask_assign_scalar", p, data.shape, mask.shape)
    out = data.copy()
    out[(slice(None),) * p.start_axis + (mask.astype(bool),)] = p.value
    return out


@register("_npi_boolean_mask_assign_tensor", inputs=("data", "mask", "value"),
          attrs={"start_axis": A.Int(0)}, nondiff=("mask",), same_dtype=("data", "value"),
          shape=lambda p, ins: (ins, [_k(ins)]), vjp=_mask_assign_vjp)
def _mask_assign_tensor(p, rc, data, mask, value):
    """_npi_boolean_mask_assign_tensor(data, mask, value, start_axis=0): a copy of data with
    `value` (broadcast to the selected entries) where the boolean mask is true."""
    _mask_start("_npi_boolean_mask_assign_tensor", p, data.shape, mask.shape)
    out = data.copy()
    out[(slice(None),) * p.start_axis + (mask.astype(bool),)] = value
    return out


_INSERT_ATTRS = {"val": A.OptionalFloat(), "start": A.OptionalInt(), "stop": A.OptionalInt(),
                 "step": A.OptionalInt(), "int_ind": A.OptionalInt(), "axis": A.OptionalInt()}


def _obj(p, obj=None):
    if obj is not None:
        return obj.astype(np.int64)
    if p.int_ind is not None:
        return p.int_ind
    return slice(p.start, p.stop, p.step)


def _insert(p, xp, arr, values, obj):
    a = arr.get() if hasattr(arr, "get") else arr
    v = np.asarray(p.val, a.dtype) if values is None else (
        values.get() if hasattr(values, "get") else values)
    o = obj.get() if hasattr(obj, "get") else obj
    return xp.asarray(np.insert(a, o, v, axis=p.axis))


def _insert_inputs(kind):
    def inputs(p):
        base = ["arr"] if p.val is not None else ["arr", "values"]
        return base + (["obj"] if kind == "tensor" else [])
    return inputs


def _insert_shape(kind):
    def rule(p, ins):
        if kind == "tensor" or any(s is None for s in ins):
            return ins, [None]
        arr = np.zeros(ins[0], np.bool_)
        values = np.asarray(p.val) if p.val is not None else np.zeros(ins[1], np.bool_)
        return ins, [np.insert(arr, _obj(p), values, axis=p.axis).shape]
    return rule


def _register_insert(name, kind):
    def kernel(p, rc, arr, *rest):
        values = None if p.val is not None else rest[0]
        obj = rest[-1] if kind == "tensor" else None
        return _insert(p, rc.xp, arr, values, _obj(p, obj))

    kernel.__doc__ = (f"{name}(arr, values, ...): NumPy's insert of values before the "
                      f"{'indices in obj' if kind == 'tensor' else 'index or slice given'}.")
    register(name, inputs=_insert_inputs(kind),
             signature=("arr", "values", "obj") if kind == "tensor" else ("arr", "values"),
             attrs=_INSERT_ATTRS, nondiff=("arr", "values", "obj"), same_dtype=(),
             shape_from_values=kind == "tensor", shape=_insert_shape(kind))(kernel)


_register_insert("_npi_insert_scalar", "scalar")
_register_insert("_npi_insert_slice", "slice")
_register_insert("_npi_insert_tensor", "tensor")


def _delete_inputs(p):
    return ["arr"] if (p.int_ind is not None or p.start is not None or p.stop is not None
                       or p.step is not None) else ["arr", "obj"]


@register("_npi_delete", inputs=_delete_inputs, signature=("arr", "obj"),
          attrs={k: v for k, v in _INSERT_ATTRS.items() if k != "val"},
          nondiff=("arr", "obj"), same_dtype=(), shape_from_values=True,
          shape=lambda p, ins: (ins, [None]))
def _np_delete(p, rc, arr, obj=None):
    """_npi_delete(arr, obj, axis=None): a copy of arr without the entries (or slices along
    axis) at obj: an int, a slice or an integer array (whose entries outside [0, n) are
    ignored, as MXNet ignores them)."""
    a = arr.get() if hasattr(arr, "get") else arr
    o = _obj(p, None if obj is None else (obj.get() if hasattr(obj, "get") else obj))
    if obj is not None:  # MXNet ignores indices out of [0, n), negative ones included
        n = a.size if p.axis is None else a.shape[p.axis]
        o = o[(o >= 0) & (o < n)]
    return rc.xp.asarray(np.delete(a, o, axis=p.axis))


@register("_npi_diag_indices_from", nondiff=("data",),
          shape=lambda p, ins: (ins, [None if ins[0] is None else (len(ins[0]), ins[0][0])]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]))
def _diag_indices_from(p, rc, data):
    """_npi_diag_indices_from(data): the indices of the main diagonal of a square array of
    any rank, one row per axis (int64)."""
    if data.ndim < 2 or len(set(data.shape)) != 1:
        raise MXNetValueError(f"_npi_diag_indices_from: the input must be at least 2-D with "
                              f"all dimensions equal, got shape {data.shape}")
    return rc.xp.tile(rc.xp.arange(data.shape[0], dtype=np.int64), (data.ndim, 1))


@register("_npx_constraint_check", inputs=("input",), attrs={"msg": A.Str("Constraint "
                                                                            "violated.")},
          nondiff=("input",), shape=lambda p, ins: (ins, [()]),
          dtype=lambda p, ins: (ins, [np.dtype(np.bool_)]))
def _constraint_check(p, rc, x):
    """_npx_constraint_check(input, msg): True when every entry of the boolean input is true;
    raises ValueError with `msg` otherwise."""
    if x.dtype != np.bool_:
        raise MXNetValueError(f"_npx_constraint_check: the input must be a bool array, got "
                              f"{x.dtype.name}")
    if not x.all().item():
        raise MXNetValueError(p.msg)
    return rc.xp.asarray(True)


@register("_npi_share_memory", inputs=("a", "b"), nondiff=("a", "b"), same_dtype=(),
          shape=lambda p, ins: (ins, [()]), dtype=lambda p, ins: (ins, [np.dtype(np.bool_)]))
def _share_memory(p, rc, a, b):
    """_npi_share_memory(a, b): whether a and b share memory (0-d bool)."""
    return rc.xp.asarray(bool(np.shares_memory(a, b)) if prod(a.shape) and prod(b.shape)
                         else False)
