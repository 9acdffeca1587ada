"""NumPy's indexing of `mx.np.ndarray`: ``x[key]`` and ``x[key] = value``.

Reading: basic keys (ints, slices, None, Ellipsis) give a view that shares memory when the
result is contiguous (a copy otherwise), as MXNet does; under autograd.record() the same key
is computed by registry operators (``slice`` then ``_np_reshape``) so the gradient flows.
Integer arrays and boolean masks (advanced indexing) give copies through ``take`` (with the
flat positions NumPy's indexing picks) or ``_contrib_boolean_mask``, recorded as well.

Writing: NumPy's assignment on the data, broadcasting the value; inside autograd.record(),
on an array of a recorded graph, through ``_slice_assign`` / ``_npi_boolean_mask_assign_*``
so that the gradient reaches both the old values and the value assigned (the array is
rebound to the result, as MXNet's ``out=`` operators rebind it).
"""
import numbers

import numpy as _onp

from .. import autograd_tape
from ..base import MXNetValueError
from ..ndarray.ndarray import NDArray
from ._dispatch import from_nd, invoke, np_class
from ._manipulation import broadcast_to, reshape

__all__ = ["getitem", "setitem", "normalize_key"]


def _is_int(k):
    return isinstance(k, (numbers.Integral, _onp.integer)) and not isinstance(k, (bool, _onp.bool_))


def _raw_index(k):
    """An index entry as NumPy takes it: arrays as host numpy arrays, the rest unchanged.

    A list, tuple or range inside the key is an integer (or boolean) array, as in NumPy.
    """
    if isinstance(k, NDArray):
        if k.ndim == 0 and _onp.dtype(k.dtype).kind in "iu":
            return int(k.item())
        return k.asnumpy()
    if isinstance(k, (list, tuple, range)):
        a = _onp.asarray(k)
        if a.dtype == object:
            raise IndexError(f"only integers, slices, ellipsis, None, and integer or boolean "
                             f"arrays are valid indices, got {k!r}")
        return a
    return k


def normalize_key(key):
    """The key as a tuple of NumPy index entries (arrays on the host)."""
    key = key if isinstance(key, tuple) else (key,)
    out = []
    for k in key:
        k = _raw_index(k)
        if isinstance(k, _onp.ndarray) and k.dtype.kind == "f":
            k = k.astype(_onp.int64)  # MXNet truncates float index arrays
        if not (k is None or k is Ellipsis or isinstance(k, slice) or _is_int(k)
                or isinstance(k, (_onp.ndarray, bool, _onp.bool_))):
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             f"(`None`) and integer or boolean arrays are valid indices, got "
                             f"{type(k).__name__}")
        out.append(k)
    return tuple(out)


def _is_basic(key):
    return all(k is None or k is Ellipsis or isinstance(k, slice) or _is_int(k) for k in key)


def _probe(shape):
    return _onp.broadcast_to(_onp.zeros((), _onp.bool_), shape)


def _expand(key, ndim):
    """The basic key with Ellipsis expanded and missing trailing axes as full slices."""
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{n_real} were indexed")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - n_real) + key[i + 1:]
    else:
        key = key + (slice(None),) * (ndim - n_real)
    return key


def _recorded(x):
    return x._entry is not None and autograd_tape.is_recording()


def getitem(x, key):
    """``x[key]`` for an `mx.np.ndarray` (see the module docstring).

    Raises:
        IndexError: an index out of range, too many indices, or an invalid index type.
    """
    if isinstance(key, tuple) and not key:
        return x
    key = normalize_key(key)
    cls = np_class()
    if _is_basic(key):
        if not _recorded(x):
            v = x._data[key]
            if not isinstance(v, type(x._data)):
                v = x._ctx.xp.asarray(v)
            elif not v.flags.c_contiguous:
                v = v.copy()
            return cls(v, x._ctx)
        return _basic_recorded(x, key)
    return _advanced(x, key)


def _basic_recorded(x, key):
    """Basic indexing by operators: ``slice`` over the real axes, then a reshape to NumPy's
    result shape (dropping int axes, adding None axes)."""
    target = _probe(x.shape)[key].shape
    full = _expand(key, x.ndim)
    begin, end, step = [], [], []
    ax = 0
    for k in full:
        if k is None:
            continue
        n = x.shape[ax]
        if _is_int(k):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {ax} with size {n}")
            k = int(k) % n
            begin.append(k), end.append(k + 1), step.append(1)
        else:
            start, stop, st = k.indices(n)
            begin.append(start)
            end.append(None if st < 0 and stop < 0 else stop)
            step.append(st)
        ax += 1
    out = invoke("slice", [x], {"begin": tuple(begin), "end": tuple(end), "step": tuple(step)},
                 fname="__getitem__")
    if out.shape != target:
        out = invoke("_np_reshape", [out], {"newshape": target}, fname="__getitem__")
    return out


def _advanced(x, key):
    """Integer-array and boolean-mask indexing (a copy, recorded)."""
    arrays = [k for k in key if isinstance(k, _onp.ndarray)]
    bools = [k for k in key if isinstance(k, _onp.ndarray) and k.dtype == _onp.bool_]
    if len(key) == 1 and len(bools) == 1 and key[0].ndim >= 1:
        mask = key[0]
        if mask.shape != x.shape[:mask.ndim]:
            raise IndexError(f"boolean index did not match indexed array along dimension 0; "
                             f"dimension is {x.shape[0] if x.ndim else 0} but corresponding "
                             f"boolean dimension is {mask.shape[0]}")
        flat = invoke("_np_reshape", [x], {"newshape": (-1,) + x.shape[mask.ndim:]},
                      fname="__getitem__")
        m = np_class()(x._ctx.xp.asarray(mask.reshape(-1)), x._ctx)
        return invoke("_npi_boolean_mask", [flat, m], {"axis": 0}, fname="__getitem__")
    if len(key) == 1 and len(arrays) == 1 and not bools:
        idx = key[0]
        n = x.shape[0] if x.ndim else 0
        if x.ndim == 0:
            raise IndexError("too many indices for array: array is 0-dimensional, but 1 were "
                             "indexed")
        if idx.size and (idx.min() < -n or idx.max() >= n):
            bad = int(idx.max() if idx.max() >= n else idx.min())
            raise IndexError(f"index {bad} is out of bounds for axis 0 with size {n}")
        ind = np_class()(x._ctx.xp.asarray(idx.astype(_onp.int64) % max(n, 1)), x._ctx)
        return invoke("_npi_take", [x, ind], {"axis": 0, "mode": "wrap"}, fname="__getitem__")
    # any other mix: the flat positions NumPy's indexing selects, then one take
    try:
        pos = _onp.arange(x.size, dtype=_onp.int64).reshape(x.shape)[key]
    except IndexError as e:
        raise IndexError(str(e)) from None
    flat = invoke("_np_reshape", [x], {"newshape": (-1,)}, fname="__getitem__")
    ind = np_class()(x._ctx.xp.asarray(_onp.ascontiguousarray(pos).reshape(-1)), x._ctx)
    out = invoke("_npi_take", [flat, ind], {"axis": 0, "mode": "wrap"}, fname="__getitem__")
    if pos.shape != (pos.size,):
        out = invoke("_np_reshape", [out], {"newshape": pos.shape}, fname="__getitem__")
    return out


def _value_raw(x, value):
    if isinstance(value, NDArray):
        if value._ctx != x._ctx:
            value = value.as_in_context(x._ctx)
        return value._data
    v = _onp.asarray(value)
    if v.dtype == object:
        raise TypeError(f"__setitem__: cannot assign a value of type {type(value).__name__}")
    return x._ctx.xp.asarray(v) if x._ctx.device_type != "cpu" else v


def setitem(x, key, value):
    """``x[key] = value`` for an `mx.np.ndarray` (see the module docstring).

    Raises:
        IndexError: as `getitem`.
        ValueError: a value that does not broadcast to the indexed shape; an in-place update
            inside autograd.record() of an array marked with attach_grad().
    """
    if not x.writable:
        raise ValueError("__setitem__: the array is read-only")
    vrec = isinstance(value, NDArray) and value._entry is not None
    if autograd_tape.is_recording() and (x._entry is not None or vrec):
        if isinstance(x._entry, tuple) and isinstance(x._entry[0], autograd_tape.Leaf):
            raise MXNetValueError(
                "ndarray.__setitem__: in-place assignment to an array with attach_grad() "
                "inside autograd.record() would cut it from its gradient; assign to a copy "
                "(y = x.copy(); y[key] = value) or outside record()")
        res = _assign_recorded(x, key, value)
        x._data, x._entry = res._data, res._entry
        return
    raw_key = () if isinstance(key, tuple) and not key else normalize_key(key)
    v = _value_raw(x, value)
    try:
        x._data[raw_key] = v
    except ValueError as e:
        raise ValueError(f"__setitem__: cannot assign a value of shape "
                         f"{getattr(v, 'shape', ())} to index {key!r} of an array of shape "
                         f"{x.shape}: {e}") from None


def _assign_recorded(x, key, value):
    """x with `value` written at `key`, as recorded operators (a new array)."""
    cls = np_class()
    if not isinstance(value, NDArray):
        value = cls(_value_raw(x, value).astype(x.dtype, copy=False), x._ctx)
    elif value.__class__ is not cls:
        value = from_nd(value)
    if value.dtype != x.dtype:
        value = value.astype(x.dtype)
    key = normalize_key(key) if not (isinstance(key, tuple) and not key) else ()
    if len(key) == 1 and isinstance(key[0], _onp.ndarray) and key[0].dtype == _onp.bool_:
        mask = cls(x._ctx.xp.asarray(key[0]), x._ctx)
        return invoke("_npi_boolean_mask_assign_tensor", [x, mask, value], {"start_axis": 0},
                      fname="__setitem__")
    if not _is_basic(key):
        # positions as a mask over the flattened array: every entry written once
        pos = _onp.arange(x.size, dtype=_onp.int64).reshape(x.shape)[key]
        vb = broadcast_to(value, pos.shape) if value.shape != pos.shape else value
        order = _onp.argsort(pos.reshape(-1), kind="stable")
        flat_pos = pos.reshape(-1)[order]
        keep = _onp.ones(flat_pos.size, bool)
        keep[:-1] = flat_pos[1:] != flat_pos[:-1]  # the last write wins, as in NumPy
        mask = _onp.zeros(x.size, bool)
        mask[flat_pos[keep]] = True
        picked = cls(x._ctx.xp.asarray(order[keep]), x._ctx)
        vals = invoke("_npi_take", [reshape(vb, (-1,)), picked], {"axis": 0, "mode": "wrap"},
                      fname="__setitem__")
        flat = reshape(x, (-1,))
        m = cls(x._ctx.xp.asarray(mask), x._ctx)
        out = invoke("_npi_boolean_mask_assign_tensor", [flat, m, vals], {"start_axis": 0},
                     fname="__setitem__")
        return reshape(out, x.shape)
    full = _expand(key, x.ndim) if key else (slice(None),) * x.ndim
    begin, end, step, region = [], [], [], []
    ax = 0
    for k in full:
        if k is None:
            continue
        n = x.shape[ax]
        if _is_int(k):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {ax} with size {n}")
            k = int(k) % n
            begin.append(k), end.append(k + 1), step.append(1)
            region.append(1)
        else:
            start, stop, st = k.indices(n)
            begin.append(start)
            end.append(None if st < 0 and stop < 0 else stop)
            step.append(st)
            region.append(len(range(start, stop, st)))
        ax += 1
    sel = _probe(x.shape)[key].shape if key else x.shape
    vb = broadcast_to(value, sel) if value.shape != sel else value
    vb = reshape(vb, tuple(region)) if tuple(region) != sel else vb
    return invoke("_npi_slice_assign", [x, vb], {"begin": tuple(begin), "end": tuple(end),
                                                 "step": tuple(step)}, fname="__setitem__")
