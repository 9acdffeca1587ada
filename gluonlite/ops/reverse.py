"""Reversing operators: `reverse` (alias `flip`) along whole axes, and `SequenceReverse`, which
reverses each sequence of a padded batch within its own length. Both are permutations that
are their own inverse, so each one's gradient is the operator applied to the output gradient."""
import numpy as np

from . import attrs as A
from .fast import Fast
from .registry import register, ShapeError
from .rules import norm_axis
from .shape import _seq_inputs, _seq_length_ins


def _flip_axes(p, ndim):
    """The axes `reverse` flips: each axis named an odd number of times (naming one twice
    flips it back, as in MXNet), negatives counted from the end."""
    axes = p.axis if isinstance(p.axis, tuple) else (p.axis,)
    odd = set()
    for a in axes:
        odd ^= {norm_axis("reverse", a, ndim)}
    return sorted(odd)


def _flip_index(p, ndim):
    flipped = _flip_axes(p, ndim)
    return tuple(slice(None, None, -1) if i in flipped else slice(None) for i in range(ndim))


def _reverse_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    _flip_axes(p, len(ins[0]))  # raises the ShapeError naming an out-of-range axis
    return ins, [tuple(ins[0])]


@register("reverse", aliases=("flip",), attrs={"axis": A.Axis()}, shape=_reverse_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0][_flip_index(p, gys[0].ndim)].copy(),),
          fast=Fast(saves=()))
def _reverse(p, rc, x):
    """reverse(data, axis) (also `flip`): the entries of `data` in reverse order along each
    axis in `axis` (an int or a tuple of ints).
    """
    return x[_flip_index(p, x.ndim)].copy()


def _seq_reverse_shape(p, ins):
    if p.axis != 0:
        raise ShapeError(f"SequenceReverse: axis must be 0 (data laid out as (T, N, ...)), got "
                         f"{p.axis}")
    s = ins[0]
    if s is None:
        return ins, [None]
    if len(s) < 2:
        raise ShapeError(f"SequenceReverse: data must have at least 2 dimensions (T, N, ...), "
                         f"got shape {tuple(s)}")
    if p.use_sequence_length:
        ins = _seq_length_ins("SequenceReverse", s, s[1], ins)
    return ins, [tuple(s)]


def _seq_reverse_index(rc, x, lengths):
    """(time, batch) index arrays: step t of sequence b reads step ``length[b] - 1 - t`` while
    t < length[b], and step t itself past it (lengths clipped to [0, T])."""
    xp, steps = rc.xp, x.shape[0]
    t = xp.arange(steps).reshape(-1, 1)
    n = xp.clip(lengths.astype(np.int64), 0, steps).reshape(1, -1)
    src = xp.where(t < n, n - 1 - t, t)
    return src, xp.arange(x.shape[1]).reshape(1, -1)


def _seq_reverse_vjp(p, rc, xs, ys, gys, need):
    if not p.use_sequence_length:
        return (gys[0][::-1].copy(),)
    return (gys[0][_seq_reverse_index(rc, xs[0], xs[1])], None)


@register("SequenceReverse", inputs=_seq_inputs, nondiff=("sequence_length",),
          signature=("data", "sequence_length"),
          attrs={"use_sequence_length": A.Bool(False), "axis": A.Int(0)},
          shape=_seq_reverse_shape, dtype=lambda p, ins: (ins, [ins[0]]), vjp=_seq_reverse_vjp,
          fast=Fast(saves=("sequence_length",)))
def _sequence_reverse(p, rc, x, lengths=None):
    """SequenceReverse(data, sequence_length=None, use_sequence_length=False, axis=0): data is
    (T, N, ...); with use_sequence_length each sequence b has its first ``sequence_length[b]``
    steps reversed and its padding left in place, otherwise the whole time axis is reversed.

    Example: with lengths [2, 3], columns ``[a0 a1 pad]`` and ``[b0 b1 b2]`` become
    ``[a1 a0 pad]`` and ``[b2 b1 b0]``.
    """
    if not p.use_sequence_length:
        return x[::-1].copy()
    return x[_seq_reverse_index(rc, x, lengths)]
