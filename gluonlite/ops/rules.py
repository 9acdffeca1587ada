"""Shared shape and dtype rules, and the gradient helper for broadcasting."""
import numpy as np

from .accumulate import wide_sum
from .registry import ShapeError, ShapeRule

__all__ = ["same_shape", "broadcast_shapes", "broadcast_rule", "unbroadcast", "fmt_shapes",
           "keep_dtype", "norm_axis"]


def fmt_shapes(shapes):
    """Shapes as text for messages, '?' where unknown.

    Args:
        shapes: a sequence of shapes (tuples or lists), None for an unknown one.

    Returns:
        str: the shapes joined by ', '.

    Example::

        from gluonlite.ops.rules import fmt_shapes
        fmt_shapes([(2, 3), None])      # '(2, 3), ?'
    """
    return ", ".join("?" if s is None else str(tuple(s)) for s in shapes)


def same_shape(name):
    """Rule for operators whose inputs and outputs all share one shape.

    Args:
        name: the operator's name, starting the error messages.

    Returns:
        ShapeRule: ``rule(p, ins) -> (input shapes, [output shape])``, filling the unknown
        shapes from a known one; it raises ShapeError when two known shapes differ.

    Example::

        from gluonlite.ops.rules import same_shape
        rule = same_shape("relu")
        rule(None, [(4, 5)])            # ([(4, 5)], [(4, 5)])
    """
    def rule(p, ins):
        known = [s for s in ins if s is not None]
        if not known:
            return ins, [None]
        s = tuple(known[0])
        for k in known[1:]:
            if tuple(k) != s:
                raise ShapeError(f"{name}: inputs must have the same shape, got {fmt_shapes(ins)}")
        return [s] * len(ins), [s]
    # inference may also carry a partly known output back to the inputs
    return ShapeRule(rule, all_same=True)


def same_binary_shape(name):
    """Rule for a binary operator whose lhs and rhs must share one shape (no broadcasting);
    the error names lhs and rhs.

    Args:
        name: the operator's name, starting the error messages.

    Returns:
        ShapeRule: as `same_shape`'s, raising ShapeError naming lhs and rhs.

    Example::

        from gluonlite.ops.rules import same_binary_shape
        rule = same_binary_shape("elemwise_add")
        rule(None, [(2, 3), None])      # ([(2, 3), (2, 3)], [(2, 3)])
    """
    rule = same_shape(name)

    def wrapped(p, ins):
        try:
            return rule(p, ins)
        except ShapeError:
            raise ShapeError(f"{name}: lhs and rhs must have the same shape, got "
                             f"{tuple(ins[0])} and {tuple(ins[1])}") from None
    return ShapeRule(wrapped, all_same=True)


def broadcast_shapes(name, a, b):
    """numpy/MXNet broadcasting of two shapes (the shorter is padded with 1s in front).

    Args:
        name: the operator's name, starting the error message.
        a: the first shape, a sequence of ints.
        b: the second shape.

    Returns:
        tuple: the broadcast shape.

    Raises:
        ShapeError: if the shapes differ on an axis where neither is 1.

    Example::

        from gluonlite.ops.rules import broadcast_shapes
        broadcast_shapes("add", (4, 1, 3), (5, 1))  # (4, 5, 3)
    """
    n = max(len(a), len(b))
    a0, b0 = tuple(a), tuple(b)
    a, b = (1,) * (n - len(a)) + a0, (1,) * (n - len(b)) + b0
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ShapeError(f"{name}: shapes {a0} and {b0} cannot be broadcast together")
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_rule(name):
    """Rule for binary broadcasting operators.

    Args:
        name: the operator's name, starting the error messages.

    Returns:
        function: ``rule(p, ins) -> (ins, [output shape])``, the output None while an input
        is unknown; it raises ShapeError for shapes that do not broadcast.

    Example::

        from gluonlite.ops.rules import broadcast_rule
        rule = broadcast_rule("broadcast_add")
        rule(None, [(2, 1), (3,)])      # ([(2, 1), (3,)], [(2, 3)])
    """
    def rule(p, ins):
        a, b = ins
        if a is None or b is None:
            return ins, [None]
        return ins, [broadcast_shapes(name, a, b)]
    return rule


def unbroadcast(g, shape):
    """Sum gradient `g` over the axes along which an input of `shape` was broadcast.

    Example::

        from gluonlite.ops.rules import unbroadcast
        g = np.ones((2, 3))
        unbroadcast(g, (1, 3))          # array([[2., 2., 2.]])
    """
    if g.shape == tuple(shape):
        return g
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(i + extra for i, s in enumerate(shape)
                                       if s == 1 and g.shape[i + extra] != 1)
    if not axes:
        return g.reshape(shape)
    if isinstance(g, np.ndarray):
        # summed wider and rounded once, as MXNet's broadcast gradients are (its compensated
        # reducer: `accumulate`)
        return wide_sum(np, g, axes, keepdims=True).reshape(shape)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


def keep_dtype(p, ins):
    """dtype rule: outputs take the first input's dtype; other inputs are left free.

    Args:
        p: the operator's attributes (not used).
        ins: the input dtypes, None for an unknown one.

    Returns:
        (list, list): `ins` unchanged, and [the first input's dtype].

    Example::

        from gluonlite.ops.rules import keep_dtype
        keep_dtype(None, [np.dtype("float16"), None])
        # ([dtype('float16'), None], [dtype('float16')])
    """
    d = ins[0]
    return ins, [d]


def norm_axis(name, axis, ndim, arg="axis"):
    """Normalize a possibly negative axis; raise ValueError naming `name` when out of range.

    Args:
        name: the operator's name, starting the error message.
        axis: the axis, an int (negative counts from the end).
        ndim: the number of dimensions (0 is treated as 1).
        arg: the argument's name in the message (default 'axis').

    Returns:
        int: the axis in [0, ndim).

    Raises:
        ShapeError: (a ValueError) if axis is out of range.

    Example::

        from gluonlite.ops.rules import norm_axis
        norm_axis("sum", -1, 3)         # 2; norm_axis("sum", 3, 3) raises ShapeError
    """
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"{name}: {arg}={axis} is out of range for an array of {ndim} dimensions")
    return axis % max(ndim, 1)
