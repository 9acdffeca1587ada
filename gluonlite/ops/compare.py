"""Comparison and logical operators, from one table.

Each row gives three operators, all returning 1 where the relation holds and 0 elsewhere, in
the dtype of the (left) data input, and no gradient (MXNet's rule: zeros):

- ``broadcast_<name>(lhs, rhs)``: with numpy broadcasting;
- ``_<name>(lhs, rhs)``: same-shape inputs (what ``sym`` arithmetic between symbols builds);
- ``_<name>_scalar(data, scalar)``: against a Python scalar, cast to data's dtype first when
  data is an integer array (MXNet's rule: ``int_array == 2.5`` compares with 2); bool data
  gives int64.
"""
import numpy as np

from . import attrs as A
from .fast import Fast
from .registry import register
from .rules import broadcast_rule, keep_dtype, same_binary_shape, same_shape
from .sparse import elementwise as sparse

# The comparisons with a scalar that keep a sparse storage where 0 compares False (their
# rule's kind in `gluonlite.ops.sparse.elementwise`), by array function.
_SPARSE_KIND = {"equal": "eq", "not_equal": "ne", "greater": "gt", "greater_equal": "ge",
                "less": "lt", "less_equal": "le"}

# name: (array module function, what it tests, for docstrings)
_TABLE = {
    "equal": ("equal", "lhs == rhs"),
    "not_equal": ("not_equal", "lhs != rhs"),
    "greater": ("greater", "lhs > rhs"),
    "greater_equal": ("greater_equal", "lhs >= rhs"),
    "lesser": ("less", "lhs < rhs"),
    "lesser_equal": ("less_equal", "lhs <= rhs"),
    "logical_and": ("logical_and", "lhs and rhs are both non-zero"),
    "logical_or": ("logical_or", "lhs or rhs is non-zero"),
    "logical_xor": ("logical_xor", "exactly one of lhs and rhs is non-zero"),
}


def _legacy(name, scalar=False):
    """MXNet's older spelling of a row's operator, still in its registry (and old JSON):
    ``_Not_Equal`` for ``_not_equal``, ``_NotEqualScalar`` for ``_not_equal_scalar``."""
    words = [w.capitalize() for w in name.split("_")]
    return "_" + ("".join(words) + "Scalar" if scalar else "_".join(words))


def _pair(name, fn, what, shape_rule, aliases=()):
    def kernel(p, rc, a, b):
        return getattr(rc.xp, fn)(a, b).astype(a.dtype)

    kernel.__doc__ = (f"{name}(lhs, rhs): 1 where {what}, else 0, in lhs's dtype"
                      + (" (broadcasting)." if name.startswith("broadcast") else
                         " (same shapes)."))
    register(name, inputs=("lhs", "rhs"), shape=shape_rule(name), dtype=keep_dtype,
             nondiff=("lhs", "rhs"), same_dtype=("lhs", "rhs"), aliases=aliases)(kernel)


def _scalar_value(p, x):
    """The scalar as MXNet's kernels see it: as given for float data; for integer data
    converted like a C cast (truncated towards zero, then wrapped: 2.5 -> 2, 300 -> 44 for
    uint8), the same rule as the arithmetic scalar operators."""
    if x.dtype.kind == "f":
        return p.scalar
    s = float(p.scalar)
    return np.array(int(s) if np.isfinite(s) else 0, dtype=np.int64).astype(x.dtype)


def _as_number(x):
    """bool data computes in int64, as MXNet 1.9.1's scalar operators do."""
    return x.astype(np.int64) if x.dtype == np.bool_ else x


def _scalar_dtype(p, ins):
    d = ins[0]
    return ins, [None if d is None else (np.dtype(np.int64) if d == np.bool_ else d)]


def _scalar(name, fn, what, aliases=()):
    def kernel(p, rc, x):
        x = _as_number(x)
        return getattr(rc.xp, fn)(x, _scalar_value(p, x)).astype(x.dtype)

    def into(p, rc, outs, x):
        x = _as_number(x)
        getattr(rc.xp, fn)(x, _scalar_value(p, x), out=outs[0], casting="unsafe")

    kernel.__doc__ = (f"{name}(data, scalar): 1 where {what.replace('lhs', 'data')} "
                      f"(rhs: the scalar), else 0, in data's dtype.")
    register(name, attrs={"scalar": A.Float(1.0), "is_int": A.Bool(True)},
             shape=same_shape(name), dtype=_scalar_dtype, nondiff=("data",),
             aliases=aliases, fast=Fast(into=into),
             storage=sparse.scalar_rule(_SPARSE_KIND[fn]) if fn in _SPARSE_KIND else None)(kernel)


for _name, (_fn, _what) in _TABLE.items():
    _pair(f"broadcast_{_name}", _fn, _what, broadcast_rule)
    _pair(f"_{_name}", _fn, _what, same_binary_shape, aliases=(_legacy(_name),))
    _scalar(f"_{_name}_scalar", _fn, _what, aliases=(_legacy(_name, scalar=True),))
