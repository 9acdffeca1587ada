"""Shape and arrangement operators of MXNet's NumPy dialect: reshape (NumPy's and npx's
codes), transpose, squeeze, joining (concatenate, stack, vstack, hstack, dstack,
column_stack), atleast_nd, hsplit/dsplit, broadcast_to, moveaxis, roll, flip, rot90, diag,
diagflat, diagonal, trace, tril, pad and diff, each with its gradient. Shapes are NumPy's:
0-d arrays and zero-size axes are ordinary shapes."""
from math import prod

import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import register, Params, ShapeError
from .rules import norm_axis, broadcast_shapes, unbroadcast

__all__ = ["np_reshape_target", "npx_reshape_target"]


def _k(ins, i=0):
    return None if ins[i] is None else tuple(ins[i])


# ---- reshape ---------------------------------------------------------------------------------
def np_reshape_target(name, shape, newshape):
    """NumPy's reshape of `shape` to `newshape` (one -1 inferred).

    Raises:
        ShapeError: more than one -1, or sizes that differ (naming operator `name`).

    Example::

        from gluonlite.ops.np_manip import np_reshape_target
        np_reshape_target("reshape", (2, 3, 4), (4, -1))    # (4, 6)
    """
    newshape = tuple(int(d) for d in newshape)
    size = prod(shape)
    if newshape.count(-1) > 1:
        raise ShapeError(f"{name}: can only specify one unknown dimension, got {newshape}")
    if any(d < -1 for d in newshape):
        raise ShapeError(f"{name}: negative dimension in {newshape} (only -1 is inferred; "
                         "npx.reshape takes MXNet's special codes)")
    if -1 in newshape:
        rest = prod(d for d in newshape if d != -1)
        if rest == 0 or size % rest:
            raise ShapeError(f"{name}: cannot reshape array of size {size} into shape "
                             f"{newshape}")
        newshape = tuple(size // rest if d == -1 else d for d in newshape)
    if prod(newshape) != size:
        raise ShapeError(f"{name}: cannot reshape array of shape {tuple(shape)} (size {size}) "
                         f"into shape {newshape}")
    return newshape


def npx_reshape_target(name, shape, newshape, reverse=False):
    """npx.reshape's target shape: NumPy's -1 plus MXNet's codes -2 (copy this dimension),
    -3 (skip a dimension of size 1), -4 (copy all the remaining), -5 (merge two dimensions),
    -6 (split one dimension into the next two values, one of which may be -1).

    Args:
        name: the operator's name, starting the error messages.
        shape: the input's shape.
        newshape: the requested shape, with the codes above.
        reverse: read both shapes from the right (default False).

    Returns:
        tuple: the output shape.

    Raises:
        ShapeError: codes that do not fit the input shape.

    Example::

        from gluonlite.ops.np_manip import npx_reshape_target
        npx_reshape_target("reshape", (2, 3, 4), (-2, -5))  # (2, 12)
    """
    src = list(shape)[::-1] if reverse else list(shape)
    spec = list(newshape)[::-1] if reverse else list(newshape)
    if reverse:  # -6's two values come after it: keep them after it when reversed
        fixed = []
        i = 0
        while i < len(spec):
            if i + 2 < len(spec) and spec[i + 2] == -6:
                fixed += [spec[i + 2], spec[i + 1], spec[i]]
                i += 3
            else:
                fixed.append(spec[i])
                i += 1
        spec = fixed
    out, i, j, infer = [], 0, 0, None
    while i < len(spec):
        d = spec[i]
        if d >= 0:
            out.append(d)
            j += 1
        elif d == -1:
            infer = len(out)
            out.append(-1)
            j += 1
        elif d == -2:
            out.append(src[j])
            j += 1
        elif d == -3:
            if src[j] != 1:
                raise ShapeError(f"{name}: -3 skips a dimension of size 1, got {src[j]} in "
                                 f"{tuple(shape)}")
            j += 1
        elif d == -4:
            out.extend(src[j:])
            j = len(src)
        elif d == -5:
            out.append(src[j] * src[j + 1])
            j += 2
        elif d == -6:
            a, b = spec[i + 1], spec[i + 2]
            if a == -1:
                a = src[j] // b
            if b == -1:
                b = src[j] // a
            if a * b != src[j]:
                raise ShapeError(f"{name}: -6 splits {src[j]} into {spec[i + 1]} x "
                                 f"{spec[i + 2]}, which does not fit")
            out.extend([a, b])
            j += 1
            i += 2
        else:
            raise ShapeError(f"{name}: unknown code {d} in {tuple(newshape)}")
        i += 1
    if infer is not None:
        rest = prod(d for k, d in enumerate(out) if k != infer)
        total = prod(shape)
        if rest == 0 or total % rest:
            raise ShapeError(f"{name}: cannot reshape {tuple(shape)} into {tuple(newshape)}")
        out[infer] = total // rest
    if reverse:
        out = out[::-1]
    if prod(out) != prod(shape):
        raise ShapeError(f"{name}: cannot reshape {tuple(shape)} into {tuple(newshape)} (sizes "
                         f"{prod(shape)} and {prod(out)})")
    return tuple(out)


def _reshape_vjp(p, rc, xs, ys, gys, need):
    return (gys[0].reshape(xs[0].shape),)


def _check_order(name, p):
    if p.order != "C":
        raise NotImplementedError(f"{name}: only C order is supported, got order={p.order!r}")


@register("_np_reshape", inputs=("a",), attrs={"newshape": A.Shape(), "order": A.Str("C")},
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      np_reshape_target("_np_reshape", ins[0], p.newshape)]),
          vjp=_reshape_vjp)
def _np_reshape(p, rc, a):
    """_np_reshape(a, newshape, order='C'): NumPy's reshape (one -1 inferred)."""
    _check_order("_np_reshape", p)
    return a.reshape(np_reshape_target("_np_reshape", a.shape, p.newshape))


@register("_npx_reshape", inputs=("a",),
          attrs={"newshape": A.Shape(), "reverse": A.Bool(False), "order": A.Str("C")},
          shape=lambda p, ins: (ins, [None if ins[0] is None else npx_reshape_target(
              "_npx_reshape", ins[0], p.newshape, p.reverse)]),
          vjp=_reshape_vjp, aliases=("_npi_reshape",))
def _npx_reshape(p, rc, a):
    """_npx_reshape(a, newshape, reverse=False, order='C'): reshape with MXNet's codes
    (see `npx_reshape_target`)."""
    _check_order("_npx_reshape", p)
    return a.reshape(npx_reshape_target("_npx_reshape", a.shape, p.newshape, p.reverse))


# ---- transpose, squeeze, moveaxis, swap ------------------------------------------------------
def _inverse(perm):
    """The inverse permutation, as a tuple of Python ints (what any array module takes)."""
    return tuple(int(i) for i in np.argsort(perm))


def _perm(name, axes, ndim):
    if axes is None or axes == ():
        return tuple(range(ndim))[::-1]
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    if len(axes) != ndim:
        raise ShapeError(f"{name}: axes {axes} don't match an array of {ndim} dimensions")
    perm = tuple(norm_axis(name, a, ndim) for a in axes)
    if len(set(perm)) != ndim:
        raise ShapeError(f"{name}: repeated axis in transpose, axes={axes}")
    return perm


@register("_np_transpose", inputs=("a",), attrs={"axes": A.Axis(None)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else tuple(
              ins[0][k] for k in _perm("_np_transpose", p.axes, len(ins[0])))]),
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.transpose(
              gys[0], _inverse(_perm("_np_transpose", p.axes, xs[0].ndim))),))
def _np_transpose(p, rc, a):
    """_np_transpose(a, axes=None): the axes permuted (reversed by default)."""
    return rc.xp.transpose(a, _perm("_np_transpose", p.axes, a.ndim)).copy()


def _squeeze_axes(name, axis, shape):
    if axis is None:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if not shape and all(a in (0, -1) for a in axes):  # NumPy lets a 0-d array squeeze axis 0
        return ()
    axes = tuple(norm_axis(name, a, len(shape)) for a in axes)
    for a in axes:
        if shape[a] != 1:
            raise ShapeError(f"{name}: cannot select an axis to squeeze out which has size "
                             f"not equal to one (axis {a} of shape {tuple(shape)})")
    return axes


@register("_np_squeeze", inputs=("a",), attrs={"axis": A.Axis(None)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else tuple(
              d for i, d in enumerate(ins[0])
              if i not in _squeeze_axes("_np_squeeze", p.axis, ins[0]))]),
          vjp=_reshape_vjp)
def _np_squeeze(p, rc, a):
    """_np_squeeze(a, axis=None): the array without length-1 axes (those of `axis`)."""
    axes = _squeeze_axes("_np_squeeze", p.axis, a.shape)
    return a.reshape(tuple(d for i, d in enumerate(a.shape) if i not in axes))


def _move_perm(name, ndim, src, dst):
    src = tuple(norm_axis(name, s, ndim) for s in src)
    dst = tuple(norm_axis(name, d, ndim) for d in dst)
    if len(src) != len(dst):
        raise ShapeError(f"{name}: source {src} and destination {dst} must have the same "
                         "number of elements")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError(f"{name}: repeated axis in source {src} or destination {dst}")
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tuple(order)


@register("_np_moveaxis", inputs=("a",), attrs={"source": A.Shape(), "destination": A.Shape()},
          shape=lambda p, ins: (ins, [None if ins[0] is None else tuple(
              ins[0][k] for k in _move_perm("_np_moveaxis", len(ins[0]), p.source,
                                             p.destination))]),
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.transpose(gys[0], _inverse(
              _move_perm("_np_moveaxis", xs[0].ndim, p.source, p.destination))),))
def _np_moveaxis(p, rc, a):
    """_np_moveaxis(a, source, destination): axes moved to new positions."""
    return rc.xp.transpose(a, _move_perm("_np_moveaxis", a.ndim, p.source, p.destination)).copy()


# ---- joining ---------------------------------------------------------------------------------
def _concat_shape(name, axis_of):
    def rule(p, ins):
        if any(s is None for s in ins):
            return ins, [None]
        shapes = [tuple(s) for s in ins]
        axis = axis_of(p, shapes)
        first = shapes[0]
        for s in shapes[1:]:
            if len(s) != len(first) or any(a != b for k, (a, b) in enumerate(zip(s, first))
                                             if k != axis):
                raise ShapeError(f"{name}: all the input array dimensions except for the "
                                 f"concatenation axis must match exactly, got {shapes}")
        out = list(first)
        out[axis] = sum(s[axis] for s in shapes)
        return ins, [tuple(out)]
    return rule


def _concat_vjp(axis_of):
    def vjp(p, rc, xs, ys, gys, need):
        axis = axis_of(p, [x.shape for x in xs])
        bounds = np.cumsum([0] + [x.shape[axis] for x in xs])
        g = gys[0]
        return tuple(g[(slice(None),) * axis + (slice(int(a), int(b)),)]
                     for a, b in zip(bounds[:-1], bounds[1:]))
    return vjp


def _dim_axis(name):
    def axis_of(p, shapes):
        if not shapes[0]:
            raise ShapeError(f"{name}: zero-dimensional arrays cannot be concatenated")
        return norm_axis(name, p.dim, len(shapes[0]))
    return axis_of


def _same_dtype_rule(p, ins):
    known = next((d for d in ins if d is not None), None)
    return [known if d is None else d for d in ins], [known]


def _register_join(name, axis_of, prep, doc, attrs):
    def kernel(p, rc, *xs):
        xs = [prep(x) for x in xs]
        return rc.xp.concatenate(xs, axis=axis_of(p, [x.shape for x in xs]))

    def shape(p, ins):
        ins2 = [None if s is None else prep_shape(prep, s) for s in ins]
        return ins, _concat_shape(name, axis_of)(p, ins2)[1]

    def vjp(p, rc, xs, ys, gys, need):
        prepped = [prep(x) for x in xs]
        gs = _concat_vjp(axis_of)(p, rc, prepped, ys, gys, need)
        return tuple(g.reshape(x.shape) for g, x in zip(gs, xs))

    kernel.__doc__ = doc
    register(name, variadic="num_args", attrs={"num_args": A.Int(), **attrs}, shape=shape,
             vjp=vjp)(kernel)


def prep_shape(prep, s):
    """The shape `prep` (an array adapter of a joining operator) gives an array of shape s.

    Args:
        prep: the adapter, a function of one array.
        s: the input shape.

    Returns:
        tuple: the shape of prep's result (computed on a broadcast zero, nothing allocated).

    Example::

        from gluonlite.ops.np_manip import prep_shape
        prep_shape(lambda a: a[None], (2, 3))      # (1, 2, 3)
    """
    return prep(np.broadcast_to(np.zeros((), np.bool_), s)).shape


_ident = lambda x: x  # noqa: E731
_register_join("_npi_concatenate", _dim_axis("_npi_concatenate"), _ident,
               "_npi_concatenate(*data, dim=0): arrays joined along axis `dim`.",
               {"dim": A.Int(0)})


def _as_2d_rows(x):
    return x.reshape(1, -1) if x.ndim < 2 else x


def _as_2d_cols(x):
    return x.reshape(-1, 1) if x.ndim < 2 else x


def _as_3d(x):
    if x.ndim == 0:
        return x.reshape(1, 1, 1)
    if x.ndim == 1:
        return x.reshape(1, -1, 1)
    if x.ndim == 2:
        return x.reshape(x.shape + (1,))
    return x


_register_join("_npi_vstack", lambda p, s: 0, _as_2d_rows,
               "_npi_vstack(*data): arrays stacked row-wise (1-D arrays as rows).", {})
_register_join("_npi_hstack", lambda p, s: 0 if len(s[0]) == 1 else 1,
               lambda x: x.reshape(1) if x.ndim == 0 else x,
               "_npi_hstack(*data): arrays stacked column-wise (1-D arrays joined).",
               {"dim": A.Int(1)})
_register_join("_npi_dstack", lambda p, s: 2, _as_3d,
               "_npi_dstack(*data): arrays stacked along a third axis.", {"dim": A.Int(2)})
_register_join("_npi_column_stack", lambda p, s: 1, _as_2d_cols,
               "_npi_column_stack(*data): 1-D arrays as columns of a 2-D array.", {})


def _stack_shape(p, ins):
    if any(s is None for s in ins):
        return ins, [None]
    shapes = {tuple(s) for s in ins}
    if len(shapes) != 1:
        raise ShapeError(f"_npi_stack: all input arrays must have the same shape, got "
                         f"{[tuple(s) for s in ins]}")
    s = tuple(ins[0])
    ax = norm_axis("_npi_stack", p.axis, len(s) + 1)
    return ins, [s[:ax] + (len(ins),) + s[ax:]]


@register("_npi_stack", variadic="num_args", attrs={"axis": A.Int(0), "num_args": A.Int()},
          shape=_stack_shape,
          vjp=lambda p, rc, xs, ys, gys, need: tuple(
              rc.xp.take(gys[0], i, axis=norm_axis("_npi_stack", p.axis, xs[0].ndim + 1))
              for i in range(len(xs))))
def _np_stack(p, rc, *xs):
    """_npi_stack(*data, axis=0): same-shape arrays joined along a new axis."""
    return rc.xp.stack(xs, axis=norm_axis("_npi_stack", p.axis, xs[0].ndim + 1))


def _atleast(name, n, fn):
    def shape(p, ins):
        return ins, [None if s is None else prep_shape(fn, s) for s in ins]

    def kernel(p, rc, *xs):
        outs = tuple(fn(x).copy() for x in xs)
        return outs if len(outs) != 1 else outs[0]  # one output: the array itself

    def vjp(p, rc, xs, ys, gys, need):
        return tuple(None if g is None else g.reshape(x.shape) for x, g in zip(xs, gys))

    kernel.__doc__ = f"{name}(*arys): each array with at least {n} dimensions."
    register(name, variadic="num_args", attrs={"num_args": A.Int()},
             outputs=lambda p: p.num_args, shape=shape, vjp=vjp, same_dtype=())(kernel)


_atleast("_np_atleast_1d", 1, np.atleast_1d)
_atleast("_np_atleast_2d", 2, np.atleast_2d)
_atleast("_np_atleast_3d", 3, np.atleast_3d)


# ---- splitting -------------------------------------------------------------------------------
def _split_parts(name, p, shape):
    ax = norm_axis(name, p.axis, len(shape))
    n = shape[ax]
    if p.sections > 0:  # the first n % sections parts one longer, as MXNet's split
        small, extra = divmod(n, p.sections)
        starts = [i * small + min(i, extra) for i in range(p.sections)]
    else:
        starts = list(p.indices)
    stops = starts[1:] + [n]
    return ax, [(min(a, n), max(min(b, n), min(a, n))) for a, b in zip(starts, stops)]


def _register_split(name, axis_rule, doc):
    def parts(p, shape):
        q = dict(p)
        q["axis"] = axis_rule(p, shape)
        return _split_parts(name, Params(q), shape)

    def nout(p):
        return p.sections if p.sections > 0 else len(p.indices)

    def shape(p, ins):
        s = _k(ins)
        if s is None:
            return ins, [None] * nout(p)
        if name == "_npi_dsplit" and len(s) < 3:
            raise ShapeError(f"{name}: dsplit only works on arrays of 3 or more dimensions")
        if name == "_npi_hsplit" and len(s) == 0:
            raise ShapeError(f"{name}: hsplit only works on arrays of 1 or more dimensions")
        ax, bounds = parts(p, s)
        return ins, [s[:ax] + (b - a,) + s[ax + 1:] for a, b in bounds]

    def kernel(p, rc, x):
        shape(p, [x.shape])
        ax, bounds = parts(p, x.shape)
        outs = tuple(x[(slice(None),) * ax + (slice(a, b),)].copy() for a, b in bounds)
        return outs if len(outs) != 1 else outs[0]  # one output: the array itself

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        ax, bounds = parts(p, x.shape)
        g = rc.xp.zeros(x.shape, x.dtype)
        for (a, b), gy in zip(bounds, gys):
            if gy is not None:
                g[(slice(None),) * ax + (slice(a, b),)] = gy
        return (g,)

    kernel.__doc__ = doc
    register(name, attrs={"indices": A.Shape(()), "axis": A.Int(0), "squeeze_axis": A.Bool(False),
                          "sections": A.Int(0)},
             outputs=nout, shape=shape, vjp=vjp)(kernel)


_register_split("_npi_hsplit", lambda p, s: 0 if len(s) == 1 else 1,
                "_npi_hsplit(data, indices, sections): parts along axis 1 (0 for 1-D data).")
_register_split("_npi_dsplit", lambda p, s: 2,
                "_npi_dsplit(data, indices, sections): parts along axis 2.")


# ---- broadcasting ----------------------------------------------------------------------------
def _bcast_target(name, s, shape):
    shape = tuple(shape)
    if -2 in shape:  # MXNet's -2: the input's dimension at that (right-aligned) position
        pad = len(shape) - len(s)
        shape = tuple(s[i - pad] if d == -2 and i >= pad else d for i, d in enumerate(shape))
    if len(shape) < len(s):
        raise ShapeError(f"{name}: cannot broadcast an array of shape {tuple(s)} to the "
                         f"smaller rank shape {shape}")
    try:
        out = broadcast_shapes(name, s, shape)
    except ShapeError:
        out = None
    if out != shape:
        raise ShapeError(f"{name}: operands could not be broadcast together with remapped "
                         f"shapes [original->remapped]: {tuple(s)} and requested shape {shape}")
    return shape


@register("_npi_broadcast_to", inputs=("array",), attrs={"shape": A.Shape()},
          shape=lambda p, ins: (ins, [None if ins[0] is None else _bcast_target(
              "_npi_broadcast_to", ins[0], p.shape)]),
          vjp=lambda p, rc, xs, ys, gys, need: (unbroadcast(gys[0], xs[0].shape),))
def _broadcast_to(p, rc, a):
    """_npi_broadcast_to(array, shape): the array broadcast to `shape` (NumPy's rules; a -2
    in `shape` keeps the input's dimension at that right-aligned position)."""
    return rc.xp.broadcast_to(a, _bcast_target("_npi_broadcast_to", a.shape, p.shape)).copy()


# ---- roll, flip, rot90 -----------------------------------------------------------------------
def _same(p, ins):
    return ins, [_k(ins)]


@register("_np_roll", attrs={"shift": A.Axis(None), "axis": A.Axis(None)}, shape=_same,
          vjp=lambda p, rc, xs, ys, gys, need: (_roll(p, rc.xp, gys[0], -1),))
def _np_roll(p, rc, data):
    """_np_roll(data, shift, axis=None): elements shifted along `axis` (the flattened array
    when None), wrapping around."""
    return _roll(p, rc.xp, data, 1)


def _roll(p, xp, x, sign):
    if p.shift is None:
        raise MXNetValueError("_np_roll: shift is required")
    shift = p.shift if isinstance(p.shift, tuple) else (p.shift,)
    shift = tuple(sign * s for s in shift)
    if p.axis is None:
        if len(shift) != 1:
            raise MXNetValueError("_np_roll: shift must be an int when axis is None")
        return xp.roll(x, shift[0])
    return xp.roll(x, shift if len(shift) > 1 else shift[0], axis=p.axis)


def _flip_axes(p, ndim):
    axes = p.axis if isinstance(p.axis, tuple) else (p.axis,)
    if p.axis is None:  # every axis; () flips none
        return tuple(range(ndim))
    return tuple(norm_axis("_npi_flip", a, ndim) for a in axes)


@register("_npi_flip", attrs={"axis": A.Axis(None)}, shape=_same,
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.flip(gys[0], _flip_axes(p, xs[0].ndim)),))
def _np_flip(p, rc, data):
    """_npi_flip(data, axis): the order of elements reversed along `axis` (every axis for
    None, none for ())."""
    return rc.xp.flip(data, _flip_axes(p, data.ndim)).copy()


def _rot_axes(p, ndim):
    axes = (0, 1) if p.axes is None else tuple(p.axes)
    if len(axes) != 2:
        raise ShapeError(f"_npi_rot90: len(axes) must be 2, got {axes}")
    a = tuple(norm_axis("_npi_rot90", k, ndim) for k in axes)
    if a[0] == a[1]:
        raise ShapeError(f"_npi_rot90: axes must be different, got {axes}")
    return a


def _rot_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    a, b = _rot_axes(p, len(s))
    if p.k % 2:
        s = list(s)
        s[a], s[b] = s[b], s[a]
        s = tuple(s)
    return ins, [s]


@register("_npi_rot90", attrs={"k": A.Int(1), "axes": A.Axis(None)}, shape=_rot_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.rot90(gys[0], -p.k,
                                                            _rot_axes(p, xs[0].ndim)),))
def _np_rot90(p, rc, data):
    """_npi_rot90(data, k=1, axes=(0, 1)): rotated by 90 degrees `k` times in the plane of
    `axes`."""
    return rc.xp.rot90(data, p.k, _rot_axes(p, data.ndim)).copy()


# ---- diagonals, triangles --------------------------------------------------------------------
def _diag_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    if len(s) == 1:
        n = s[0] + abs(p.k)
        return ins, [(n, n)]
    if len(s) == 2:
        return ins, [(max(0, min(s[0] + min(p.k, 0), s[1] - max(p.k, 0))),)]
    raise ShapeError(f"_np_diag: input must be 1-d or 2-d, got shape {s}")


def _diag_vjp(p, rc, xs, ys, gys, need):
    x, g = xs[0], gys[0]
    if x.ndim == 1:
        return (rc.xp.diagonal(g, p.k).copy(),)
    out = rc.xp.zeros(x.shape, g.dtype)
    n = g.shape[0]
    r = rc.xp.arange(n)
    rows, cols = (r, r + p.k) if p.k >= 0 else (r - p.k, r)
    out[rows, cols] = g
    return (out,)


@register("_np_diag", attrs={"k": A.Int(0)}, shape=_diag_shape, vjp=_diag_vjp)
def _np_diag(p, rc, data):
    """_np_diag(data, k=0): the k-th diagonal of a 2-D array, or a 2-D array with a 1-D
    array on its k-th diagonal."""
    _diag_shape(p, [data.shape])
    return rc.xp.diag(data, p.k).copy()


@register("_np_diagflat", attrs={"k": A.Int(0)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      ((prod(ins[0]) + abs(p.k),) * 2)]),
          vjp=lambda p, rc, xs, ys, gys, need: (
              rc.xp.diagonal(gys[0], p.k).reshape(xs[0].shape),))
def _np_diagflat(p, rc, data):
    """_np_diagflat(data, k=0): a 2-D array with the flattened input on diagonal k."""
    return rc.xp.diagflat(data, p.k)


def _diagonal_axes(name, p, ndim):
    if ndim < 2:
        raise ShapeError(f"{name}: the input must have at least 2 dimensions")
    a, b = norm_axis(name, p.axis1, ndim), norm_axis(name, p.axis2, ndim)
    if a == b:
        raise ShapeError(f"{name}: axis1 and axis2 cannot be the same ({p.axis1}, {p.axis2})")
    return a, b


_DIAGONAL_ATTRS = {"offset": A.Int(0), "axis1": A.Int(0), "axis2": A.Int(1)}


def _diagonal_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    _diagonal_axes("_np_diagonal", p, len(s))
    return ins, [np.diagonal(np.broadcast_to(np.zeros((), np.bool_), s), p.offset, p.axis1,
                             p.axis2).shape]


def _diagonal_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    out = rc.xp.zeros(x.shape, gys[0].dtype)
    idx = np.diagonal(np.arange(x.size).reshape(x.shape), p.offset, p.axis1, p.axis2)
    out.reshape(-1)[rc.xp.asarray(idx.reshape(-1))] = gys[0].reshape(-1)
    return (out,)


@register("_np_diagonal", attrs=_DIAGONAL_ATTRS, shape=_diagonal_shape, vjp=_diagonal_vjp)
def _np_diagonal(p, rc, data):
    """_np_diagonal(data, offset=0, axis1=0, axis2=1): the diagonals of the (axis1, axis2)
    planes, in a new last axis."""
    _diagonal_axes("_np_diagonal", p, data.ndim)
    return rc.xp.diagonal(data, p.offset, p.axis1, p.axis2).copy()


def _trace_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    a, b = _diagonal_axes("_np_trace", p, len(s))
    return ins, [tuple(d for i, d in enumerate(s) if i not in (a, b))]


def _trace_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    a, b = _diagonal_axes("_np_trace", p, x.ndim)
    eye = rc.xp.eye(x.shape[a], x.shape[b], p.offset, dtype=gys[0].dtype)
    rest = [i for i in range(x.ndim) if i not in (a, b)]
    g = gys[0].reshape(gys[0].shape + (1, 1))
    full = g * eye
    order = rest + [a, b]
    return (rc.xp.transpose(full, _inverse(order)).copy(),)


@register("_np_trace", attrs=_DIAGONAL_ATTRS, shape=_trace_shape, vjp=_trace_vjp)
def _np_trace(p, rc, data):
    """_np_trace(data, offset=0, axis1=0, axis2=1): the sum along the diagonals."""
    _diagonal_axes("_np_trace", p, data.ndim)
    return rc.xp.asarray(rc.xp.trace(data, p.offset, p.axis1, p.axis2)).astype(data.dtype)


def _tril_mask(xp, shape, k):
    rows, cols = shape[-2], shape[-1]
    return xp.asarray(np.tri(rows, cols, k, dtype=bool))


def _tril_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    return ins, [(s[0], s[0]) if len(s) == 1 else s]


@register("_npi_tril", attrs={"k": A.Int(0)}, shape=_tril_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (_tril_vjp(rc.xp, xs[0], gys[0], p.k),))
def _np_tril(p, rc, data):
    """_npi_tril(data, k=0): the lower triangle (below diagonal k) of each matrix; a 1-D
    array is taken as a row repeated, as NumPy does."""
    return _tril(rc.xp, data, p.k)


def _tril_vjp(xp, x, g, k):
    g = _tril(xp, g, k)
    return g.sum(axis=0) if x.ndim == 1 else g


def _tril(xp, x, k):
    if x.ndim == 1:
        x = xp.broadcast_to(x, (x.shape[0], x.shape[0]))
    return xp.where(_tril_mask(xp, x.shape, k), x, xp.zeros((), x.dtype))


# ---- pad, diff -------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "maximum", "minimum")


def _pad_width(p, ndim):
    pw = p.pad_width
    pw = tuple(tuple(int(v) for v in (w if isinstance(w, (tuple, list)) else (w, w)))
               for w in pw)
    if len(pw) == 1:
        pw = pw * ndim
    if len(pw) != ndim:
        raise ShapeError(f"_npi_pad: pad_width {p.pad_width} does not fit an array of {ndim} "
                         "dimensions")
    return pw


def _pad_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    return ins, [tuple(d + a + b for d, (a, b) in zip(s, _pad_width(p, len(s))))]


def _pad_vjp(p, rc, xs, ys, gys, need):
    x, g = xs[0], gys[0]
    pw = _pad_width(p, x.ndim)
    if p.mode != "constant":
        # the gradient of a padding that copies values: scatter-add through the index map
        idx = np.pad(np.arange(x.size).reshape(x.shape), pw, mode=p.mode,
                     **({"reflect_type": p.reflect_type}
                        if p.mode in ("reflect", "symmetric") else {}))
        out = np.zeros(x.size, g.dtype)
        np.add.at(out, idx.reshape(-1), rc.xp.asnumpy(g).reshape(-1)
                  if hasattr(rc.xp, "asnumpy") else g.reshape(-1))
        return (rc.xp.asarray(out.reshape(x.shape)),)
    return (g[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pw))].copy(),)


@register("_npi_pad", attrs={"pad_width": A.Any(), "mode": A.Enum(*_PAD_MODES,
                                                                   default="constant"),
                             "constant_value": A.Float(0.0), "reflect_type": A.Str("even")},
          shape=_pad_shape, vjp=_pad_vjp)
def _np_pad(p, rc, data):
    """_npi_pad(data, pad_width, mode='constant', constant_value=0, reflect_type='even'):
    NumPy's pad with the modes MXNet 1.9.1 has."""
    pw = _pad_width(p, data.ndim)
    if p.mode == "constant":
        return rc.xp.pad(data, pw, mode="constant", constant_values=p.constant_value)
    if p.mode in ("reflect", "symmetric"):
        return rc.xp.pad(data, pw, mode=p.mode, reflect_type=p.reflect_type)
    return rc.xp.pad(data, pw, mode=p.mode)


def _diff_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    ax = norm_axis("_npi_diff", p.axis, len(s))
    out = list(s)
    out[ax] = max(0, s[ax] - p.n)
    return ins, [tuple(out)]


def _diff_vjp(p, rc, xs, ys, gys, need):
    x, g = xs[0], gys[0]
    ax = norm_axis("_npi_diff", p.axis, x.ndim)
    for _ in range(p.n):  # the transpose of one difference: -g_i + g_{i-1}, padded
        pad = [(0, 0)] * g.ndim
        pad[ax] = (1, 1)
        gp = rc.xp.pad(g, pad)
        lo = (slice(None),) * ax
        g = gp[lo + (slice(0, -1),)] - gp[lo + (slice(1, None),)]
    return (g.reshape(x.shape),)


@register("_npi_diff", inputs=("a",), attrs={"n": A.Int(1), "axis": A.Int(-1)},
          shape=_diff_shape, vjp=_diff_vjp)
def _np_diff(p, rc, a):
    """_npi_diff(a, n=1, axis=-1): the n-th discrete difference along `axis`."""
    if p.n < 0:
        raise MXNetValueError(f"_npi_diff: order must be non-negative but got {p.n}")
    return rc.xp.diff(a, p.n, norm_axis("_npi_diff", p.axis, a.ndim))
