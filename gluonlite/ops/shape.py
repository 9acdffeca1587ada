"""Shape operators: reshape, reshape_like, expand_dims, squeeze, transpose, flatten, concat,
stack, split, slice, slice_axis, broadcast_to, swapaxes, SequenceMask, SequenceLast."""
import functools
from math import prod

import numpy as np

from . import attrs as A
from .fast import Fast
from .registry import ShapeError, ShapeRule, register
from .rules import norm_axis, fmt_shapes, same_shape
from .sparse import reduce as sparse_shapes

# Fast paths shared by many operators here: the gradient reads only the shapes; the forward
# is its input reshaped (a compiled plan calls reshape with the shape it knows).
_SHAPES_ONLY = Fast(saves=())
_A_VIEW = Fast(saves=(), reshapes=True)


def reshape_target(shape, spec, reverse=False):
    """MXNet's reshape codes: 0 copy a dim, -1 infer one, -2 copy the rest, -3 merge two,
    -4 split one into the next two values (one may be -1).

    Args:
        shape: the input's shape.
        spec: the target, with the codes above.
        reverse: read both from the right (default False).

    Returns:
        tuple: the output shape.

    Raises:
        ShapeError: the target does not hold the same number of elements.

    Example::

        from gluonlite.ops.shape import reshape_target
        reshape_target((2, 3, 4), (0, -1)), reshape_target((2, 3, 4), (-3, -2))
        # ((2, 12), (6, 4))
    """
    src, spec = list(shape), list(spec)
    if reverse:
        src, spec = src[::-1], spec[::-1]
    out, i, j, infer = [], 0, 0, None
    while j < len(spec):
        s = spec[j]
        if s == 0:
            out.append(src[i])
            i += 1
        elif s == -1:
            infer = len(out)
            out.append(1)
            i += 1
        elif s == -2:
            out.extend(src[i:])
            i = len(src)
        elif s == -3:
            out.append(src[i] * src[i + 1])
            i += 2
        elif s == -4:
            a, b = spec[j + 1], spec[j + 2]
            if a == -1:
                a = src[i] // b
            if b == -1:
                b = src[i] // a
            out.extend([a, b])
            i += 1
            j += 2
        else:
            out.append(s)
            i += 1
        j += 1
    if reverse:
        out = out[::-1]
        if infer is not None:
            infer = len(out) - 1 - infer
    total = prod(shape)
    if infer is not None:
        rest = prod([d for k, d in enumerate(out) if k != infer])
        if rest == 0 or total % rest:
            raise ShapeError(f"reshape: cannot reshape {tuple(shape)} into {tuple(spec)}")
        out[infer] = total // rest
    if prod(out) != total:
        raise ShapeError(f"reshape: cannot reshape {tuple(shape)} into {tuple(out)}: sizes "
                         f"{total} and {prod(out)} differ")
    return tuple(out)


def _reshape_vjp(p, rc, xs, ys, gys, need):
    return (gys[0].reshape(xs[0].shape),)


def _legacy_target(shape, target, keep_highest):
    """MXNet's deprecated Reshape(target_shape=...): one 0 in `target` is inferred from the
    size (no other codes); keep_highest keeps the first axis of `shape`."""
    out = list(target)
    start = 1 if keep_highest else 0
    if keep_highest and out:
        out[0] = shape[0]
    zeros = [i for i in range(start, len(out)) if out[i] == 0]
    if len(zeros) == 1:
        rest = prod(out[:zeros[0]] + out[zeros[0] + 1:])
        out[zeros[0]] = prod(shape) // rest if rest else 0
    if prod(out) != prod(shape):
        raise ShapeError(f"reshape: cannot reshape {tuple(shape)} into target_shape="
                         f"{tuple(target)}: sizes {prod(shape)} and {prod(out)} differ")
    return tuple(out)


def _reshaped(p, shape):
    if p.shape or not p.target_shape:
        return reshape_target(shape, p.shape, p.reverse)
    # target_shape is MXNet's deprecated spelling, with its own rule for 0
    return _legacy_target(shape, p.target_shape, p.keep_highest)


@register("Reshape", fast=_A_VIEW, aliases=("reshape",), vjp=_reshape_vjp,
          attrs={"shape": A.Shape(()), "reverse": A.Bool(False), "target_shape": A.Shape(()),
                 "keep_highest": A.Bool(False)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else _reshaped(p, ins[0])]))
def _reshape(p, rc, x):
    """reshape(data, shape, reverse=False): a new shape, with MXNet's special codes."""
    return x.reshape(_reshaped(p, x.shape))


def _like_range(side, begin, end, ndim):
    """The axes [begin, end) of `side` ('lhs' or 'rhs'), negatives counted from the end;
    None means 0 (begin) or ndim (end). The range must not be empty, as in MXNet."""
    b = 0 if begin is None else begin + ndim if begin < 0 else begin
    e = ndim if end is None else end + ndim if end < 0 else end
    if not 0 <= b < e <= ndim:
        raise ShapeError(f"reshape_like: {side}_begin={begin}, {side}_end={end} do not select a "
                         f"non-empty range of the {ndim} axes of {side}")
    return b, e


def reshape_like_target(p, lhs, rhs):
    """The shape reshape_like gives: ``lhs[:lhs_begin] + rhs[rhs_begin:rhs_end] +
    lhs[lhs_end:]``.

    Args:
        p: reshape_like's parsed attributes (lhs_begin, lhs_end, rhs_begin, rhs_end; None:
            the whole shape's start or end; negative counts from the end).
        lhs: the shape of the array reshaped.
        rhs: the shape whose range is taken.

    Returns:
        tuple: the output shape.

    Raises:
        ShapeError: an empty or out-of-range axis range, or a target whose size differs from
            lhs's.

    Example::

        from gluonlite.ops.shape import reshape_like_target
        op = mx.ops.get("reshape_like")
        reshape_like_target(op.parse({})[0], (2, 3), (3, 2))   # (3, 2)
    """
    lb, le = _like_range("lhs", p.lhs_begin, p.lhs_end, len(lhs))
    rb, re = _like_range("rhs", p.rhs_begin, p.rhs_end, len(rhs))
    out = tuple(lhs[:lb]) + tuple(rhs[rb:re]) + tuple(lhs[le:])
    if prod(out) != prod(lhs):
        raise ShapeError(f"reshape_like: cannot reshape lhs of shape {tuple(lhs)} into {out} "
                         f"(from rhs of shape {tuple(rhs)}): sizes {prod(lhs)} and {prod(out)} "
                         "differ")
    return out


def _reshape_like_shape(p, ins):
    lhs, rhs = ins
    if lhs is None or rhs is None:
        return ins, [None]
    return ins, [reshape_like_target(p, lhs, rhs)]


@register("reshape_like", inputs=("lhs", "rhs"), nondiff=("rhs",), shape=_reshape_like_shape,
          dtype=lambda p, ins: (ins, [ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0].reshape(xs[0].shape), None),
          attrs={"lhs_begin": A.OptionalInt(), "lhs_end": A.OptionalInt(),
                 "rhs_begin": A.OptionalInt(), "rhs_end": A.OptionalInt()})
def _reshape_like(p, rc, lhs, rhs):
    """reshape_like(lhs, rhs, lhs_begin=None, lhs_end=None, rhs_begin=None, rhs_end=None):
    `lhs` with axes lhs_begin..lhs_end replaced by rhs's axes rhs_begin..rhs_end (by default
    all of them: lhs in rhs's shape). Only `lhs` gets a gradient; rhs's dtype is free.
    """
    return lhs.reshape(reshape_like_target(p, lhs.shape, rhs.shape))


@register("_identity_with_attr_like_rhs", inputs=("lhs", "rhs"), nondiff=("rhs",),
          same_dtype=("lhs", "rhs"), shape=same_shape("_identity_with_attr_like_rhs"),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0], None))
def _identity_with_attr_like_rhs(p, rc, lhs, rhs):
    """_identity_with_attr_like_rhs(lhs, rhs): `lhs` unchanged, declared to have `rhs`'s shape
    and dtype, so that shape inference can carry rhs's shape to lhs (and back). rhs gets no
    gradient (zeros).
    """
    return lhs.copy()


def _expand_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    s = list(ins[0])
    ax = norm_axis("expand_dims", p.axis, len(s) + 1)
    return ins, [tuple(s[:ax] + [1] + s[ax:])]


@register("expand_dims", fast=_A_VIEW, vjp=_reshape_vjp, attrs={"axis": A.Int()},
          shape=_expand_shape)
def _expand_dims(p, rc, x):
    """expand_dims(data, axis): a new axis of length 1."""
    return x.reshape(_expand_shape(p, [x.shape])[1][0])


def _squeeze_shape(p, ins):
    s = ins[0]
    if s is None:
        return ins, [None]
    if p.axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = p.axis if isinstance(p.axis, tuple) else (p.axis,)
        axes = {norm_axis("squeeze", a, len(s)) for a in axes}
        for a in axes:
            if s[a] != 1:
                raise ShapeError(f"squeeze: axis {a} of shape {tuple(s)} has length {s[a]}, not 1")
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return ins, [out or (1,)]


@register("squeeze", fast=_A_VIEW, vjp=_reshape_vjp, attrs={"axis": A.Axis(None)},
          shape=_squeeze_shape)
def _squeeze(p, rc, x):
    """squeeze(data, axis=None): remove axes of length 1 (a result never has 0 dims)."""
    return x.reshape(_squeeze_shape(p, [x.shape])[1][0])


@register("Flatten", fast=_A_VIEW, aliases=("flatten",), vjp=_reshape_vjp,
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      (ins[0][0], prod(ins[0][1:]))]))
def _flatten(p, rc, x):
    """Flatten(data): reshape to (batch, -1)."""
    return x.reshape(x.shape[0], -1)


def _perm(p, ndim):
    if not p.axes:
        return tuple(range(ndim))[::-1]
    if sorted(a % ndim for a in p.axes) != list(range(ndim)):
        raise ShapeError(f"transpose: axes {p.axes} is not a permutation of {ndim} axes")
    return tuple(a % ndim for a in p.axes)


def _transpose_infer(p, ins):
    return ins, [None if ins[0] is None else tuple(ins[0][a] for a in _perm(p, len(ins[0])))]


# As MXNet's, the rule fills unknown dimensions from the output's (permuted back).
_transpose_shape = ShapeRule(_transpose_infer, fills_back=lambda p: True)


@register("transpose", fast=_SHAPES_ONLY, attrs={"axes": A.Shape(())}, shape=_transpose_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (
              gys[0].transpose(tuple(int(a) for a in np.argsort(_perm(p, xs[0].ndim)))),))
def _transpose(p, rc, x):
    """transpose(data, axes=()): permute axes (reverse them when axes is empty)."""
    return rc.xp.ascontiguousarray(x.transpose(_perm(p, x.ndim)))


@register("SwapAxis", fast=_SHAPES_ONLY, aliases=("swapaxes",),
          attrs={"dim1": A.Int(0), "dim2": A.Int(0)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else _swap(list(ins[0]), p)]),
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.swapaxes(gys[0], p.dim1, p.dim2),))
def _swapaxes(p, rc, x):
    """swapaxes(data, dim1, dim2): exchange two axes."""
    return rc.xp.ascontiguousarray(rc.xp.swapaxes(x, p.dim1, p.dim2))


def _swap(s, p):
    s[p.dim1], s[p.dim2] = s[p.dim2], s[p.dim1]
    return tuple(s)


# ---- joining and splitting -------------------------------------------------------------------
def _concat_infer(p, ins):
    known = [s for s in ins if s is not None]
    if len(known) < len(ins):
        return ins, [None]
    ax = norm_axis("concat", p.dim, len(known[0]), "dim")
    for s in known:
        if len(s) != len(known[0]) or any(a != b for i, (a, b) in enumerate(zip(s, known[0]))
                                          if i != ax):
            raise ShapeError(f"concat: inputs must match except along dim={p.dim}, got "
                             f"{fmt_shapes(ins)}")
    out = list(known[0])
    out[ax] = sum(s[ax] for s in known)
    return ins, [tuple(out)]


# As MXNet's, the rule fills unknown dimensions off the axis from the output's.
_concat_shape = ShapeRule(_concat_infer, fills_back=lambda p: True)


def _concat_vjp(p, rc, xs, ys, gys, need):
    ax = p.dim % xs[0].ndim
    # host ints, not a numpy array: the split points are metadata for any array module
    cuts = [int(c) for c in np.cumsum([x.shape[ax] for x in xs])[:-1]]
    return tuple(rc.xp.split(gys[0], cuts, axis=ax))


@register("Concat", fast=_SHAPES_ONLY, aliases=("concat",), variadic="num_args", vjp=_concat_vjp,
          storage=sparse_shapes.CONCAT,
          attrs={"num_args": A.Int(), "dim": A.Int(1)}, shape=_concat_shape)
def _concat(p, rc, *xs):
    """concat(*data, dim=1): join arrays along an existing axis."""
    return rc.xp.concatenate(xs, axis=norm_axis("concat", p.dim, xs[0].ndim, "dim"))


def _stack_shape(p, ins):
    known = [s for s in ins if s is not None]
    if not known:
        return ins, [None]
    for s in known:
        if tuple(s) != tuple(known[0]):
            raise ShapeError(f"stack: inputs must have the same shape, got {fmt_shapes(ins)}")
    s = list(known[0])
    ax = norm_axis("stack", p.axis, len(s) + 1)
    return [tuple(known[0])] * len(ins), [tuple(s[:ax] + [len(ins)] + s[ax:])]


@register("stack", fast=_SHAPES_ONLY, variadic="num_args",
          attrs={"num_args": A.Int(), "axis": A.Int(0)},
          shape=_stack_shape,
          vjp=lambda p, rc, xs, ys, gys, need: tuple(
              rc.xp.moveaxis(gys[0], p.axis % (xs[0].ndim + 1), 0)))
def _stack(p, rc, *xs):
    """stack(*data, axis=0): join same-shape arrays along a new axis."""
    return rc.xp.stack(xs, axis=p.axis)


def _split_infer(p, ins):
    if p.num_outputs < 1:
        raise ShapeError(f"split: num_outputs must be at least 1, got {p.num_outputs}")
    s = ins[0]
    if s is None:
        return ins, [None] * p.num_outputs
    ax = norm_axis("split", p.axis, len(s))
    if s[ax] % p.num_outputs:
        raise ShapeError(f"split: axis {p.axis} of shape {tuple(s)} (length {s[ax]}) does not "
                         f"divide into num_outputs={p.num_outputs} parts")
    out = list(s)
    out[ax] //= p.num_outputs
    if p.squeeze_axis:
        if out[ax] != 1:
            raise ShapeError("split: squeeze_axis=True needs parts of length 1 along the axis")
        del out[ax]
    return ins, [tuple(out) or (1,)] * p.num_outputs


# As MXNet's, the rule fills unknown dimensions off the axis from the outputs'.
_split_shape = ShapeRule(_split_infer, fills_back=lambda p: True)


def _split_parts(p, shape):
    """(axis, part length, one basic index per part) of SliceChannel on `shape`.

    With squeeze_axis an int index drops the axis (a view); a 1-d input keeps a length-1 slice
    instead, since MXNet has no 0-d arrays.
    """
    return _split_index(p.num_outputs, p.axis, p.squeeze_axis, tuple(shape))


@functools.lru_cache(maxsize=1024)
def _split_index(num_outputs, axis, squeeze_axis, shape):
    # Cached: a loop body splits the same shape at every step.
    ax = norm_axis("split", axis, len(shape))
    n = shape[ax] // max(num_outputs, 1)
    lead = (slice(None),) * ax
    if squeeze_axis and len(shape) > 1:
        return ax, n, tuple(lead + (k,) for k in range(num_outputs))
    return ax, n, tuple(lead + (slice(k * n, (k + 1) * n),) for k in range(num_outputs))


def _split_vjp(p, rc, xs, ys, gys, need):
    x, xp = xs[0], rc.xp
    ax, n, index = _split_parts(p, x.shape)
    if all(gy is not None for gy in gys):  # one pass (an LSTM's four gates, every step)
        join = xp.stack if p.squeeze_axis and x.ndim > 1 else xp.concatenate
        return (join(gys, axis=ax).astype(x.dtype, copy=False),)
    g = xp.zeros_like(x)
    for i, gy in zip(index, gys):
        if gy is not None:
            g[i] = gy
    return (g,)


# Its fast paths: the gradient written into the caller's array (a loop's reverse pass gives
# its gate gradient's row), the parts as views of the input in a compiled plan.
def _split_vjp_into(p, rc, xs, ys, gys, need, dests=None):
    g = None if dests is None else dests[0]
    if g is None:
        return _split_vjp(p, rc, xs, ys, gys, need)
    ax, n, index = _split_parts(p, xs[0].shape)
    if all(gy is not None for gy in gys):
        join = rc.xp.stack if p.squeeze_axis and xs[0].ndim > 1 else rc.xp.concatenate
        return (join(gys, axis=ax, out=g),)
    g.fill(0)
    for i, gy in zip(index, gys):
        if gy is not None:
            g[i] = gy
    return (g,)


@register("SliceChannel", aliases=("split",), outputs=lambda p: p.num_outputs,
          attrs={"num_outputs": A.Int(), "axis": A.Int(1), "squeeze_axis": A.Bool(False)},
          shape=_split_shape, vjp=_split_vjp,
          fast=Fast(saves=(), vjp=_split_vjp_into, writes_dests=True,
                    views=lambda p, shape: _split_parts(p, shape)[2]))
def _split(p, rc, x):
    """split(data, num_outputs, axis=1, squeeze_axis=False): equal parts along an axis
    (views of `data`; squeeze_axis drops the axis when the parts have length 1)."""
    ax, n, index = _split_parts(p, x.shape)
    if n * p.num_outputs != x.shape[ax] or (p.squeeze_axis and n != 1):
        _split_shape(p, [x.shape])  # raises the ShapeError that says what does not fit
    return tuple(x[i] for i in index)


# ---- slicing ---------------------------------------------------------------------------------
def _slices(p, shape):
    begin, end = p.begin, p.end
    step = p.step or (None,) * len(begin)
    if len(begin) != len(end) or len(begin) > len(shape):
        raise ShapeError(f"slice: begin {begin} and end {end} do not fit shape {tuple(shape)}")
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


def _slice_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    sl = _slices(p, ins[0])
    # a dimension unknown in the input (-1) stays unknown, as MXNet's slice infers it
    out = tuple(-1 if d == -1 else len(range(*s.indices(d))) for s, d in zip(sl, ins[0])) \
        + tuple(ins[0][len(sl):])
    return ins, [out]


def _opt_tuple(v):
    v = A._literal(v) if isinstance(v, str) else v
    if isinstance(v, (int, np.integer)):  # one bound, for axis 0 (MXNet reads "1" as (1,))
        v = (v,)
    return None if v is None else tuple(None if e in (None, "None") else int(e) for e in v)


def _slice_vjp(p, rc, xs, ys, gys, need):
    g = rc.xp.zeros_like(xs[0])
    g[_slices(p, xs[0].shape)] = gys[0]
    return (g,)


@register("slice", fast=_SHAPES_ONLY, aliases=("crop",), vjp=_slice_vjp,
          shape=ShapeRule(_slice_shape, partial=True),  # reads partly known shapes itself
          attrs={"begin": A.Attr(_opt_tuple), "end": A.Attr(_opt_tuple),
                 "step": A.Attr(_opt_tuple, ())}, storage=sparse_shapes.SLICE)
def _slice(p, rc, x):
    """slice(data, begin, end, step=()): basic slicing; None entries mean the whole axis."""
    return x[_slices(p, x.shape)].copy()


def _slice_axis_range(p, shape):
    ax = norm_axis("slice_axis", p.axis, len(shape))
    return ax, slice(p.begin, p.end).indices(shape[ax])[:2]


def _slice_axis_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    ax = norm_axis("slice_axis", p.axis, len(ins[0]))
    out = list(ins[0])
    if out[ax] != -1:  # an unknown dimension (-1) stays unknown, as MXNet infers it
        _, (b, e) = _slice_axis_range(p, ins[0])
        out[ax] = max(e - b, 0)
    return ins, [tuple(out)]


def _slice_axis_vjp(p, rc, xs, ys, gys, need):
    ax, (b, e) = _slice_axis_range(p, xs[0].shape)
    g = rc.xp.zeros_like(xs[0])
    g[(slice(None),) * ax + (slice(b, e),)] = gys[0]
    return (g,)


@register("slice_axis", fast=_SHAPES_ONLY, vjp=_slice_axis_vjp,
          shape=ShapeRule(_slice_axis_shape, partial=True),  # reads partly known shapes itself
          attrs={"axis": A.Int(), "begin": A.Int(), "end": A.OptionalInt()})
def _slice_axis(p, rc, x):
    """slice_axis(data, axis, begin, end): entries begin..end (end may be None) of one axis."""
    ax, (b, e) = _slice_axis_range(p, x.shape)
    return x[(slice(None),) * ax + (slice(b, e),)].copy()


def _bcast_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    src, tgt = tuple(ins[0]), tuple(p.shape)
    if len(src) != len(tgt):
        raise ShapeError(f"broadcast_to: cannot broadcast {src} to {tgt} (different ndim)")
    out = tuple(s if t == 0 else t for s, t in zip(src, tgt))
    for s, t in zip(src, out):
        if s != t and s != 1:
            raise ShapeError(f"broadcast_to: cannot broadcast {src} to {tgt}")
    return ins, [out]


@register("broadcast_to", fast=_SHAPES_ONLY, attrs={"shape": A.Shape()}, shape=_bcast_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (
              gys[0].sum(axis=tuple(i for i, (a, b) in enumerate(zip(xs[0].shape, ys[0].shape))
                                    if a != b), keepdims=True),))
def _broadcast_to(p, rc, x):
    """broadcast_to(data, shape): repeat axes of length 1 (0 in shape keeps that axis)."""
    return rc.xp.ascontiguousarray(rc.xp.broadcast_to(x, _bcast_shape(p, [x.shape])[1][0]))


# ---- sequences ---------------------------------------------------------------------------------
def _seq_inputs(p):
    return ["data", "sequence_length"] if p.use_sequence_length else ["data"]


def _seq_length_ins(op, s, n, ins):
    """The input shapes of a sequence operator reading lengths: data `s`, sequence_length
    (n,) (one per sequence).

    Raises:
        ShapeError: sequence_length has another shape.
    """
    if ins[1] is not None and tuple(ins[1]) != (n,):
        raise ShapeError(f"{op}: sequence_length must have shape ({n},) (one length per "
                         f"sequence of data {tuple(s)}), got {tuple(ins[1])}")
    return [s, (n,)]


def _seq_mask(p, rc, x, lengths):
    """A 0/1 mask broadcastable to x: 1 where the time index < the sequence's length."""
    t_axis, b_axis = (0, 1) if p.axis == 0 else (1, 0)
    t = rc.xp.arange(x.shape[t_axis]).reshape((-1, 1) if t_axis == 0 else (1, -1))
    lens = lengths.astype(np.int64).reshape((1, -1) if t_axis == 0 else (-1, 1))
    keep = t < lens
    return keep.reshape(keep.shape + (1,) * (x.ndim - 2))


@register("SequenceMask", inputs=_seq_inputs, nondiff=("sequence_length",),
          signature=("data", "sequence_length"),
          attrs={"use_sequence_length": A.Bool(False), "value": A.Float(0.0), "axis": A.Int(0)},
          shape=lambda p, ins: (ins, [ins[0]]),
          dtype=lambda p, ins: (ins, [ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: (
              (gys[0] * _seq_mask(p, rc, xs[0], xs[1]) if p.use_sequence_length else gys[0]),
              None)[:len(xs)])
def _sequence_mask(p, rc, x, lengths=None):
    """SequenceMask(data, sequence_length, use_sequence_length, value=0, axis=0): set entries
    past each sequence's length to `value` (data is (T, N, ...) for axis 0)."""
    if not p.use_sequence_length:
        return x.copy()
    return rc.xp.where(_seq_mask(p, rc, x, lengths), x, x.dtype.type(p.value))


def _seq_last_shape(p, ins):
    s = ins[0]
    if s is None:
        return ins, [None] * 1
    if p.axis not in (0, 1):
        raise ShapeError(f"SequenceLast: axis must be 0 or 1, got {p.axis}")
    if len(s) < 2:
        raise ShapeError(f"SequenceLast: data must have at least 2 dimensions, got shape "
                         f"{tuple(s)}")
    if p.use_sequence_length:
        ins = _seq_length_ins("SequenceLast", s, s[1 - p.axis], ins)
    return ins, [tuple(d for i, d in enumerate(s) if i != p.axis)]


def _seq_last_index(p, rc, x, lengths):
    """Index arrays picking each sequence's last valid step (length - 1; a length of 0 takes
    step 0, where MXNet reads out of bounds)."""
    steps, n = x.shape[p.axis], x.shape[1 - p.axis]
    if p.use_sequence_length:
        t = rc.xp.clip(lengths.astype(np.int64) - 1, 0, steps - 1)
    else:
        t = rc.xp.full((n,), steps - 1, dtype=np.int64)
    b = rc.xp.arange(n)
    return (t, b) if p.axis == 0 else (b, t)


def _seq_last_vjp(p, rc, xs, ys, gys, need):
    g = rc.xp.zeros_like(xs[0])
    g[_seq_last_index(p, rc, xs[0], xs[1] if len(xs) > 1 else None)] = gys[0]
    return (g, None)[:len(xs)]


@register("SequenceLast", inputs=_seq_inputs, nondiff=("sequence_length",),
          signature=("data", "sequence_length"),
          attrs={"use_sequence_length": A.Bool(False), "axis": A.Int(0)},
          shape=_seq_last_shape, dtype=lambda p, ins: (ins, [ins[0]]), vjp=_seq_last_vjp)
def _sequence_last(p, rc, x, lengths=None):
    """SequenceLast(data, sequence_length, use_sequence_length=False, axis=0): each sequence's
    last valid step. data is (T, N, ...) for axis 0 or (N, T, ...) for axis 1; the result is
    (N, ...): ``data[length[b] - 1, b]`` (the last step when use_sequence_length is False)."""
    return x[_seq_last_index(p, rc, x, lengths)]
