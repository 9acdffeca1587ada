"""Elementwise operators of MXNet's NumPy dialect (`mx.np`): binary operators with NumPy's
broadcasting and MXNet 1.9.1's dtype promotion, comparisons giving bool arrays, and the
unary functions whose NumPy meaning differs from the legacy operator of the same math.

Where the legacy operator already computes what NumPy's function computes (``sin``, ``exp``,
the scalar arithmetic operators, ``broadcast_maximum``), the `_npi_` name is an alias of it
(`np_aliases`): one definition, two front ends, as DESIGN.md asks.

MXNet 1.9.1's promotion rules (what `tests/fixtures/np_dtypes_mxnet.json`, made by
`tests/fixtures/make_np_dtypes.py` on MXNet 1.9.1, pins), by the kind of each operator:

- ``mixed`` (add, multiply, power): bool gives way to anything; two integers give the wider
  (int8 with uint8 is refused); an integer with a float gives the float; two floats the wider.
- ``float_mix`` (subtract, mod): equal dtypes (bool refused), or a float with anything: the
  float (the wider of two floats); two different integers are refused.
- ``divide`` (true_divide): equal integers (or bools) give float32 (float64 under
  ``npx.set_np(dtype=True)``); an integer with a float gives the float; equal floats keep it;
  anything else is refused.
- ``same`` (the comparisons, copysign, arctan2, hypot, lcm, ldexp, bitwise): both dtypes
  equal; comparisons give bool.

hypot and arctan2 take float operands only. With integer operands ldexp is computed in float64
and truncated back, as MXNet's kernel does.
"""
from functools import lru_cache

import numpy as np

from ..base import MXNetTypeError
from . import attrs as A
from .elementwise import mxnet_function, rint_halves_down
from .registry import register
from .rules import broadcast_rule, same_shape, unbroadcast
from ..util import is_np_default_dtype

__all__ = ["promote", "BINARY", "SCALAR", "UNARY"]

_INT_RANK = {np.dtype(np.int8): 1, np.dtype(np.uint8): 1, np.dtype(np.int32): 2,
             np.dtype(np.int64): 3}
_FLOAT_RANK = {np.dtype(np.float16): 1, np.dtype(np.float32): 2, np.dtype(np.float64): 3}
_BOOL = np.dtype(np.bool_)


def _default_float():
    return np.dtype(np.float64 if is_np_default_dtype() else np.float32)


def _refuse(name, a, b):
    raise MXNetTypeError(f"{name}: operands of dtypes {a.name} and {b.name} are not supported "
                         "together (MXNet 1.9.1 refuses this mix); convert one with astype()")


@lru_cache(maxsize=None)
def _promote(kind, name, a, b, default_float):
    if kind == "same":
        if a != b:
            _refuse(name, a, b)
        return a
    fa, fb = a in _FLOAT_RANK, b in _FLOAT_RANK
    if kind == "divide":
        if a == b:
            return a if fa else default_float
        if fa != fb:
            return a if fa else b
        _refuse(name, a, b)
    if fa and fb:
        return a if _FLOAT_RANK[a] >= _FLOAT_RANK[b] else b
    if fa or fb:
        return a if fa else b
    if a == b:
        if kind == "float_mix" and a == _BOOL:
            _refuse(name, a, b)
        return a
    if kind == "float_mix":
        _refuse(name, a, b)
    # "mixed": bool gives way; two integers the wider (int8 with uint8 refused)
    if a == _BOOL or b == _BOOL:
        return b if a == _BOOL else a
    if _INT_RANK[a] == _INT_RANK[b]:
        _refuse(name, a, b)
    return a if _INT_RANK[a] > _INT_RANK[b] else b


def promote(kind, name, a, b):
    """The dtype MXNet 1.9.1 computes binary operator `name` of `kind` in, for operand dtypes
    `a` and `b` (see the module docstring).

    Raises:
        TypeError (MXNetError): a mix MXNet refuses, naming the operator and both dtypes.

    Example::

        from gluonlite.ops.np_elemwise import promote
        promote('mixed', '_npi_add', np.dtype('int32'), np.dtype('float16'))   # dtype('float16')
    """
    return _promote(kind, name, np.dtype(a), np.dtype(b), _default_float())


def _compute(xp, fn, a, b, dt, via_float):
    """``fn(a, b)`` computed in `dt` (the operands cast to it); integer results of a float
    function come from float64 and are truncated, as MXNet's kernels cast them."""
    # (silent at float edges: operators run with numpy's errors ignored, ops/float_errors.py)
    if via_float and dt.kind in "biu":
        return fn(xp, a.astype(np.float64), b.astype(np.float64)).astype(dt)
    return fn(xp, a.astype(dt, copy=False), b.astype(dt, copy=False))


def _atan2(xp, a, b):
    """arctan2 with float32 (and float16) operands computed in float64 and rounded once, as
    MXNet's kernel gives it."""
    dt = xp.result_type(a, b)
    if dt in (np.float32, np.float16):
        return xp.arctan2(xp.asarray(a, np.float64), xp.asarray(b, np.float64)).astype(dt)
    return xp.arctan2(a, b)


def _safe_log(xp, a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.log(a)


# name -> (kind, forward fn(xp, a, b), grad lhs, grad rhs, computed via float64 for integers,
# bool output). Gradients are g(xp, a, b, y, g) in the computing dtype.
BINARY = {
    "_npi_add": ("mixed", lambda xp, a, b: xp.add(a, b),
                 lambda xp, a, b, y, g: g, lambda xp, a, b, y, g: g, False, False),
    "_npi_subtract": ("float_mix", lambda xp, a, b: xp.subtract(a, b),
                      lambda xp, a, b, y, g: g, lambda xp, a, b, y, g: -g, False, False),
    "_npi_multiply": ("mixed", lambda xp, a, b: xp.multiply(a, b),
                      lambda xp, a, b, y, g: g * b, lambda xp, a, b, y, g: g * a, False, False),
    "_npi_true_divide": ("divide", lambda xp, a, b: xp.true_divide(a, b),
                         lambda xp, a, b, y, g: g / b, lambda xp, a, b, y, g: -g * a / (b * b),
                         False, False),
    "_npi_mod": ("float_mix", lambda xp, a, b: mxnet_function(xp, "mod")(a, b),
                 lambda xp, a, b, y, g: g, lambda xp, a, b, y, g: -g * xp.floor(a / b),
                 False, False),
    "_npi_power": ("mixed", lambda xp, a, b: xp.power(a, b),
                   lambda xp, a, b, y, g: g * b * xp.power(a, b - 1),
                   lambda xp, a, b, y, g: g * y * _safe_log(xp, a), True, False),
    "_npi_copysign": ("same", lambda xp, a, b: xp.copysign(a, b),
                      lambda xp, a, b, y, g: g * xp.where(a * b >= 0, 1, -1).astype(g.dtype),
                      lambda xp, a, b, y, g: xp.zeros_like(g), True, False),
    "_npi_arctan2": ("same", lambda xp, a, b: _atan2(xp, a, b),
                     lambda xp, a, b, y, g: g * b / (a * a + b * b),
                     lambda xp, a, b, y, g: -g * a / (a * a + b * b), True, False),
    "_npi_hypot": ("same", lambda xp, a, b: xp.hypot(a, b),
                   lambda xp, a, b, y, g: g * a / y, lambda xp, a, b, y, g: g * b / y,
                   True, False),
    "_npi_ldexp": ("same", lambda xp, a, b: a * xp.power(2.0, b),
                   lambda xp, a, b, y, g: g * xp.power(2.0, b).astype(g.dtype),
                   lambda xp, a, b, y, g: g * y * np.log(2.0), True, False),
    "_npi_lcm": ("same", lambda xp, a, b: xp.lcm(a.astype(np.int64), b.astype(np.int64))
                 if a.dtype == _BOOL else xp.lcm(a, b), None, None, False, False),
    "_npi_bitwise_and": ("same", lambda xp, a, b: xp.bitwise_and(a, b), None, None, False, False),
    "_npi_bitwise_or": ("same", lambda xp, a, b: xp.bitwise_or(a, b), None, None, False, False),
    "_npi_bitwise_xor": ("same", lambda xp, a, b: xp.bitwise_xor(a, b), None, None, False, False),
    "_npi_equal": ("same", lambda xp, a, b: xp.equal(a, b), None, None, False, True),
    "_npi_not_equal": ("same", lambda xp, a, b: xp.not_equal(a, b), None, None, False, True),
    "_npi_greater": ("same", lambda xp, a, b: xp.greater(a, b), None, None, False, True),
    "_npi_greater_equal": ("same", lambda xp, a, b: xp.greater_equal(a, b), None, None, False,
                           True),
    "_npi_less": ("same", lambda xp, a, b: xp.less(a, b), None, None, False, True),
    "_npi_less_equal": ("same", lambda xp, a, b: xp.less_equal(a, b), None, None, False, True),
}

# Which dtypes each family takes (MXNet refuses the others).
_INT_ONLY = ("_npi_lcm",)  # (and bool, as MXNet's lcm takes it)
_INT_OR_BOOL = ("_npi_bitwise_and", "_npi_bitwise_or", "_npi_bitwise_xor")
_FLOAT_ONLY = ("_npi_arctan2", "_npi_hypot")
_NO_BOOL = ("_npi_copysign", "_npi_ldexp", "_npi_maximum", "_npi_minimum")


def _check_kind(name, dt):
    if name in _NO_BOOL and dt.kind == "b":
        raise MXNetTypeError(f"{name}: bool operands are not supported (MXNet: Unknown type "
                             "enum 7)")
    if name in _INT_ONLY and dt.kind not in "biu":
        raise MXNetTypeError(f"{name}: integer operands only, got {dt.name}")
    if name in _INT_OR_BOOL and dt.kind not in "biu":
        raise MXNetTypeError(f"{name}: integer or bool operands only, got {dt.name}")
    if name in _FLOAT_ONLY and dt.kind != "f":
        raise MXNetTypeError(f"{name}: Do not support `{'bool' if dt.kind == 'b' else 'int'}` "
                             f"as input (got {dt.name}); float operands only")


def _binary_dtype(name, kind, out_bool):
    def rule(p, ins):
        a, b = ins
        if a is None or b is None:
            return ins, [np.dtype(np.bool_) if out_bool else None]
        dt = promote(kind, name, a, b)
        _check_kind(name, dt)
        return ins, [np.dtype(np.bool_) if out_bool else dt]
    return rule


def _binary(name):
    kind, fn, ga, gb, via_float, out_bool = BINARY[name]

    def kernel(p, rc, a, b):
        dt = promote(kind, name, a.dtype, b.dtype)
        _check_kind(name, dt)
        r = _compute(rc.xp, fn, a, b, dt, via_float)
        return r if out_bool else r.astype(dt, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        (a, b), xp, y, g = xs, rc.xp, ys[0], gys[0]
        dt = y.dtype
        a2, b2 = a.astype(dt, copy=False), b.astype(dt, copy=False)
        out = []
        for j, (rule, x) in enumerate(((ga, a), (gb, b))):
            if not need[j] or x.dtype.kind not in "f":
                out.append(None if not need[j] else xp.zeros(x.shape, x.dtype))
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                gx = rule(xp, a2, b2, y, g)
            out.append(unbroadcast(xp.asarray(gx), x.shape).astype(x.dtype, copy=False))
        return tuple(out)

    kernel.__doc__ = (f"{name}(lhs, rhs): NumPy's {name[5:]} with broadcasting and MXNet's "
                      f"dtype rule '{kind}'" + (" (a bool array)." if out_bool else "."))
    register(name, inputs=("lhs", "rhs"), shape=broadcast_rule(name), same_dtype=(),
             dtype=_binary_dtype(name, kind, out_bool),
             vjp=vjp if ga is not None else None,
             nondiff=() if ga is not None else ("lhs", "rhs"))(kernel)


for _name in BINARY:
    _binary(_name)


# ---- with a scalar -----------------------------------------------------------------------
def _scalar_value(s, dt):
    """The scalar as MXNet's kernels see it for data of dtype `dt`: a float for float data, a
    C-cast integer (truncated, wrapped) for integer data."""
    if dt.kind == "f":
        return dt.type(s)
    s = float(s)
    return np.array(int(s) if np.isfinite(s) else 0, dtype=np.int64).astype(dt)


# name -> (forward fn(xp, x, s), grad g(xp, x, s, y, g) or None, result dtype rule
# ('keep': the data's, bool -> int64; 'float': integers give the default float; 'bool'),
# via float64 for integers)
SCALAR = {
    "_npi_true_divide_scalar": (lambda xp, x, s: xp.true_divide(x, s),
                                lambda xp, x, s, y, g: g / s, "float", False),
    "_npi_rtrue_divide_scalar": (lambda xp, x, s: xp.true_divide(s, x),
                                 lambda xp, x, s, y, g: -g * s / (x * x), "float", False),
    "_npi_copysign_scalar": (lambda xp, x, s: xp.copysign(x, s),
                             lambda xp, x, s, y, g: g * np.where(x * s >= 0, 1, -1).astype(
                                 g.dtype), "keep", True),
    "_npi_rcopysign_scalar": (lambda xp, x, s: xp.copysign(s, x),
                              lambda xp, x, s, y, g: xp.zeros_like(g), "keep", True),
    "_npi_arctan2_scalar": (lambda xp, x, s: xp.arctan2(x, s),
                            lambda xp, x, s, y, g: g * s / (x * x + s * s), "keep", True),
    "_npi_rarctan2_scalar": (lambda xp, x, s: xp.arctan2(s, x),
                             lambda xp, x, s, y, g: -g * s / (x * x + s * s), "keep", True),
    "_npi_ldexp_scalar": (lambda xp, x, s: x * np.power(2.0, s),
                          lambda xp, x, s, y, g: g * np.power(2.0, s), "keep", True),
    "_npi_rldexp_scalar": (lambda xp, x, s: s * xp.power(2.0, x),
                           lambda xp, x, s, y, g: g * y * np.log(2.0), "keep", True),
    "_npi_lcm_scalar": (lambda xp, x, s: xp.lcm(x, s), None, "keep", False),
    "_npi_bitwise_and_scalar": (lambda xp, x, s: xp.bitwise_and(x, s), None, "keep", False),
    "_npi_bitwise_or_scalar": (lambda xp, x, s: xp.bitwise_or(x, s), None, "keep", False),
    "_npi_bitwise_xor_scalar": (lambda xp, x, s: xp.bitwise_xor(x, s), None, "keep", False),
    "_npi_equal_scalar": (lambda xp, x, s: xp.equal(x, s), None, "bool", False),
    "_npi_not_equal_scalar": (lambda xp, x, s: xp.not_equal(x, s), None, "bool", False),
    "_npi_greater_scalar": (lambda xp, x, s: xp.greater(x, s), None, "bool", False),
    "_npi_greater_equal_scalar": (lambda xp, x, s: xp.greater_equal(x, s), None, "bool", False),
    "_npi_less_scalar": (lambda xp, x, s: xp.less(x, s), None, "bool", False),
    "_npi_less_equal_scalar": (lambda xp, x, s: xp.less_equal(x, s), None, "bool", False),
}


def _scalar_out_dtype(name, rule, dt):
    dt = np.dtype(dt)
    if rule == "bool":
        return _BOOL
    if rule == "float":
        return dt if dt.kind == "f" else _default_float()
    if name.startswith("_npi_bitwise"):
        if dt.kind not in "biu":
            raise MXNetTypeError(f"{name}: integer or bool data only, got {dt.name}")
        return dt
    if name == "_npi_lcm_scalar" and dt.kind not in "iu":
        raise MXNetTypeError(f"{name}: integer data only, got {dt.name}")
    return np.dtype(np.int64) if dt == _BOOL else dt


def _scalar(name):
    fn, grad, rule, via_float = SCALAR[name]

    def kernel(p, rc, x):
        dt = _scalar_out_dtype(name, rule, x.dtype)
        xp = rc.xp
        if rule == "bool":
            if x.dtype == _BOOL:  # MXNet casts the scalar to bool: (bool array == 2) is x
                return fn(xp, x, bool(p.scalar))
            return fn(xp, x, _scalar_value(p.scalar, x.dtype))
        if rule == "float" and x.dtype.kind != "f":
            with np.errstate(divide="ignore", invalid="ignore"):
                return fn(xp, x.astype(dt), dt.type(p.scalar)).astype(dt, copy=False)
        s = _scalar_value(p.scalar, dt)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if via_float and dt.kind in "iu":
                return fn(xp, x.astype(np.float64), float(s)).astype(dt)
            return xp.asarray(fn(xp, x.astype(dt, copy=False), s)).astype(dt, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            gx = grad(rc.xp, x, x.dtype.type(p.scalar), ys[0], gys[0])
        return (rc.xp.asarray(gx).astype(x.dtype, copy=False),)

    def dtype(p, ins):
        return ins, [None if ins[0] is None else _scalar_out_dtype(name, rule, ins[0])]

    kernel.__doc__ = f"{name}(data, scalar, is_int): NumPy's {name[5:-7]} with a Python scalar."
    register(name, attrs={"scalar": A.Float(), "is_int": A.Bool(True)}, shape=same_shape(name),
             dtype=dtype, vjp=vjp if grad is not None else None,
             nondiff=() if grad is not None else ("data",))(kernel)


for _name in SCALAR:
    _scalar(_name)


# ---- unary ---------------------------------------------------------------------------------
def _is_bool_out(name):
    return name in ("_npi_logical_not", "_npi_isnan", "_npi_isinf", "_npi_isfinite",
                    "_npi_isposinf", "_npi_isneginf")


# name -> (forward fn(xp, x, p), the output dtype: 'keep' or 'bool')
UNARY = {
    "_npi_logical_not": lambda xp, x, p: xp.logical_not(x),
    "_npi_isnan": lambda xp, x, p: xp.isnan(x),
    "_npi_isinf": lambda xp, x, p: xp.isinf(x),
    "_npi_isfinite": lambda xp, x, p: xp.isfinite(x),
    "_npi_isposinf": lambda xp, x, p: xp.isposinf(x),
    "_npi_isneginf": lambda xp, x, p: xp.isneginf(x),
    "_npi_bitwise_not": lambda xp, x, p: xp.invert(x),
    "_npi_rint": lambda xp, x, p: rint_halves_down(xp, x),   # MXNet's, not numpy's
    "_npi_around": lambda xp, x, p: xp.around(x, p.decimals),
}


def _unary(name):
    fn = UNARY[name]
    out_bool = _is_bool_out(name)

    def kernel(p, rc, x):
        if name == "_npi_bitwise_not" and x.dtype.kind == "f":
            raise MXNetTypeError(f"{name}: integer or bool data only, got {x.dtype.name}")
        if name == "_npi_around" and x.dtype == np.float16:
            raise MXNetTypeError(f"{name}: float16 data is not supported (as in MXNet 1.9.1)")
        if name in ("_npi_around", "_npi_rint") and x.dtype == _BOOL:
            raise MXNetTypeError(f"{name}: bool data is not supported (MXNet: Unknown type "
                                 "enum 7)")
        r = rc.xp.asarray(fn(rc.xp, x, p))
        return r if out_bool else r.astype(x.dtype, copy=False)

    kernel.__doc__ = f"{name}(x): NumPy's {name[5:]}" + (" (a bool array)." if out_bool else ".")
    register(name, inputs=("x",), shape=same_shape(name),
             attrs={"decimals": A.Int(0)} if name == "_npi_around" else None,
             dtype=(lambda p, ins: (ins, [_BOOL])) if out_bool else None,
             nondiff=("x",))(kernel)


for _name in UNARY:
    _unary(_name)
