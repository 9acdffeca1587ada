"""`mx.np`'s elementwise functions (NumPy's ufuncs), each a front end of one registry
operator: an array with an array calls the binary operator (``_npi_add``), an array with a
Python number the scalar operator (``_npi_add_scalar``, or its reverse ``_npi_rsubtract_scalar``
with the number first), two numbers NumPy itself. NumPy's ufunc keywords (``where``,
``casting``, ``order``, ``dtype``, ``subok``) are accepted at their defaults only, as in MXNet
1.9.1: a legal other value raises NotImplementedError, an illegal one TypeError.

Example::

    x = mx.np.array([1., 2.])
    mx.np.add(x, 1)        # array([2., 3.]): _npi_add_scalar(x, scalar=1, is_int=True)
    mx.np.subtract(1, x)   # array([ 0., -1.]): _npi_rsubtract_scalar(x, scalar=1)
"""
import numbers

import numpy as _onp

from ..base import MXNetTypeError
from ..util import _check_ufunc_kwargs
from ._dispatch import invoke, is_symbolic
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol

__all__ = []  # filled below


def _is_array(x):
    return isinstance(x, (NDArray, Symbol))


def _is_scalar(x):
    return isinstance(x, (numbers.Number, _onp.bool_)) and not isinstance(x, _onp.ndarray)


def _scalar_attrs(s):
    if isinstance(s, (_onp.generic,)):
        s = s.item()
    return {"scalar": float(s), "is_int": isinstance(s, (int, _onp.integer))}


def binary(x1, x2, out, fname, op, scalar_op, rscalar_op, pyfn):
    """Dispatch binary function `fname` (see the module docstring).

    Raises:
        TypeError: an operand that is neither an array nor a Python number.
    """
    a1, a2 = _is_array(x1), _is_array(x2)
    if a1 and a2:
        return invoke(op, [x1, x2], {}, out=out, fname=fname)
    if a1 and _is_scalar(x2):
        return invoke(scalar_op, [x1], _scalar_attrs(x2), out=out, fname=fname)
    if a2 and _is_scalar(x1):
        return invoke(rscalar_op, [x2], _scalar_attrs(x1), out=out, fname=fname)
    if _is_scalar(x1) and _is_scalar(x2):
        return pyfn(x1, x2)
    bad = x2 if a1 or _is_scalar(x1) else x1
    raise MXNetTypeError(f"{fname}: type {type(bad).__name__} not supported (operands must be "
                         "mxnet.numpy.ndarray or Python numbers)")


def unary(x, out, fname, op, pyfn, attrs=None):
    """Dispatch unary function `fname` on an array (one operator) or a number (NumPy)."""
    if _is_array(x):
        return invoke(op, [x], attrs or {}, out=out, fname=fname)
    if _is_scalar(x):
        return pyfn(x)
    raise MXNetTypeError(f"{fname}: type {type(x).__name__} not supported (the operand must be "
                         "an mxnet.numpy.ndarray or a Python number)")


# The docstring examples of the functions made below: the result each prints, and the
# operand where the default (np.array([1., 2.]) for x1 with x2 = 2; np.array([0.5, 1.])
# for a unary function) does not fit
_EXAMPLE_OPERAND = {
    **{name: "mx.np.array([1, 2], dtype='int32')" for name in
       ("lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert")},
    "arccosh": "mx.np.array([1., 2.])", "arctanh": "mx.np.array([0., 0.5])",
}
_EXAMPLE_RESULT = {
    'add': 'array([3., 4.])',
    'subtract': 'array([-1., 0.])',
    'multiply': 'array([2., 4.])',
    'true_divide': 'array([0.5, 1. ])',
    'divide': 'array([0.5, 1. ])',
    'mod': 'array([1., 0.])',
    'remainder': 'array([1., 0.])',
    'power': 'array([1., 4.])',
    'maximum': 'array([2., 2.])',
    'minimum': 'array([1., 2.])',
    'hypot': 'array([2.236068, 2.828427])',
    'arctan2': 'array([0.46364763, 0.7853981 ])',
    'copysign': 'array([1., 2.])',
    'lcm': 'array([2, 2], dtype=int32)',
    'ldexp': 'array([4., 8.])',
    'bitwise_and': 'array([0, 2], dtype=int32)',
    'bitwise_or': 'array([3, 2], dtype=int32)',
    'bitwise_xor': 'array([3, 0], dtype=int32)',
    'equal': 'array([False, True])',
    'not_equal': 'array([ True, False])',
    'greater': 'array([False, False])',
    'greater_equal': 'array([False, True])',
    'less': 'array([ True, False])',
    'less_equal': 'array([ True, True])',
    'absolute': 'array([0.5, 1. ])',
    'abs': 'array([0.5, 1. ])',
    'fabs': 'array([0.5, 1. ])',
    'negative': 'array([-0.5, -1. ])',
    'reciprocal': 'array([2., 1.])',
    'sign': 'array([1., 1.])',
    'rint': 'array([0., 1.])',
    'ceil': 'array([1., 1.])',
    'floor': 'array([0., 1.])',
    'trunc': 'array([0., 1.])',
    'fix': 'array([0., 1.])',
    'square': 'array([0.25, 1. ])',
    'sqrt': 'array([0.70710677, 1. ])',
    'cbrt': 'array([0.7937005, 1. ])',
    'exp': 'array([1.6487212, 2.7182817])',
    'expm1': 'array([0.6487213, 1.7182819])',
    'log': 'array([-0.6931472, 0. ])',
    'log10': 'array([-0.30103, 0. ])',
    'log2': 'array([-1., 0.])',
    'log1p': 'array([0.4054651, 0.6931472])',
    'sin': 'array([0.47942555, 0.84147096])',
    'cos': 'array([0.87758255, 0.5403023 ])',
    'tan': 'array([0.5463025, 1.5574077])',
    'arcsin': 'array([0.5235988, 1.5707964])',
    'arccos': 'array([1.0471976, 0. ])',
    'arctan': 'array([0.4636476, 0.7853982])',
    'degrees': 'array([28.647888, 57.295776])',
    'rad2deg': '180.0',
    'radians': 'array([0.00872665, 0.01745329])',
    'deg2rad': '3.141592653589793',
    'sinh': 'array([0.5210953, 1.1752012])',
    'cosh': 'array([1.127626 , 1.5430807])',
    'tanh': 'array([0.4621172, 0.7615942])',
    'arcsinh': 'array([0.4812118, 0.8813736])',
    'arccosh': 'array([0. , 1.316958])',
    'arctanh': 'array([0. , 0.54930615])',
    'logical_not': 'array([False, False])',
    'bitwise_not': 'array([-2, -3], dtype=int32)',
    'invert': 'array([-2, -3], dtype=int32)',
    'isnan': 'array([False, False])',
    'isinf': 'array([False, False])',
    'isfinite': 'array([ True, True])',
    'isposinf': 'array([False, False])',
    'isneginf': 'array([False, False])',
}


def _example(fname, binary):
    """The ``Example::`` section of ufunc `fname` (binary: with a second operand 2)."""
    if fname in ("deg2rad", "rad2deg"):  # Python numbers only (see _SCALAR_ONLY)
        call = ("float(mx.np.deg2rad(180.0))" if fname == "deg2rad"
                else "float(mx.np.rad2deg(np.pi))")
    else:
        x = _EXAMPLE_OPERAND.get(fname, "mx.np.array([1., 2.])" if binary
                                 else "mx.np.array([0.5, 1.])")
        call = f"mx.np.{fname}(x, 2)" if binary else f"mx.np.{fname}(x)"
        call = f"x = {x}\n    {call}"
    return f"Example::\n\n    {call}   # {_EXAMPLE_RESULT[fname]}\n"


def _make_binary(fname, op, scalar_op, rscalar_op=None, doc=""):
    pyfn = getattr(_onp, fname, None)
    rscalar_op = rscalar_op or scalar_op

    def f(x1, x2, out=None, **kwargs):
        _check_ufunc_kwargs(fname, kwargs)
        return binary(x1, x2, out, fname, op, scalar_op, rscalar_op, pyfn)
    f.__name__ = f.__qualname__ = fname
    f.__doc__ = (f"{fname}(x1, x2, out=None): {doc}, elementwise with NumPy's broadcasting "
                 f"(operator {op}; {scalar_op} with a Python number).\n\n"
                 "Args:\n"
                 "    x1: the first operand: an `mx.np.ndarray`, a numpy symbol or a Python "
                 "number.\n"
                 "    x2: the second operand, as `x1`; the two shapes must broadcast "
                 "together.\n"
                 "    out: default None: a new array holds the result; else an `mx.np.ndarray` "
                 "of the\n        result's shape and dtype that receives it (and is "
                 "returned).\n"
                 "    **kwargs: NumPy's ufunc keywords (`where`, `casting`, `order`, `dtype`, "
                 "`subok`),\n        accepted at their default values only.\n\n"
                 "Returns:\n    An `mx.np.ndarray` (a numpy symbol for symbolic operands) of the "
                 "broadcast shape,\n    or NumPy's result when both operands are numbers.\n\n"
                 "Raises:\n    TypeError: operands of dtypes MXNet 1.9.1 does not mix, an "
                 "operand that is not an array\n        or a number, an `out` of another dtype, "
                 "or an unknown ufunc keyword.\n"
                 "    ValueError: an `out` of another shape.\n"
                 "    NotImplementedError: a ufunc keyword at a legal value other than its "
                 "default.\n\n"
                 + _example(fname, True))
    __all__.append(fname)
    return f


_BOOL_RESULT = ("isnan", "isinf", "isfinite", "isposinf", "isneginf")
# MXNet 1.9.1 defines these but its operator is missing: arrays raise AttributeError there
_SCALAR_ONLY = {"deg2rad": "radians", "rad2deg": "degrees"}


def _make_unary(fname, op, doc, pyname=None):
    pyfn = getattr(_onp, pyname or fname)

    def f(x, out=None, **kwargs):
        _check_ufunc_kwargs(fname, kwargs)
        if fname in _BOOL_RESULT and out is not None and getattr(out, "dtype", None) != _onp.bool_:
            raise TypeError(f"{fname}: the `out` parameter should be a boolean array")
        if fname in _SCALAR_ONLY and _is_array(x):
            raise AttributeError(f"module 'mxnet.ndarray.numpy._internal' has no attribute "
                                 f"'{fname}' (MXNet 1.9.1's np.{fname} takes Python numbers "
                                 f"only; use np.{_SCALAR_ONLY[fname]} on arrays)")
        return unary(x, out, fname, op, pyfn)
    f.__name__ = f.__qualname__ = fname
    extra, out_dtype = "", "of another dtype"
    if fname in _BOOL_RESULT:
        out_dtype = "that is not bool"
    if fname in _SCALAR_ONLY:
        extra = (f"\n    AttributeError: an array operand (MXNet 1.9.1 has no operator for "
                 f"it; use\n        np.{_SCALAR_ONLY[fname]} on arrays).")
    f.__doc__ = (f"{fname}(x, out=None): {doc}, elementwise (operator {op}; a Python number "
                 f"gives NumPy's result).\n\n"
                 "Args:\n"
                 "    x: the operand: an `mx.np.ndarray`, a numpy symbol or a Python number.\n"
                 "    out: default None: a new array holds the result; else an `mx.np.ndarray` "
                 "of the\n        result's shape and dtype that receives it (and is "
                 "returned).\n"
                 "    **kwargs: NumPy's ufunc keywords (`where`, `casting`, `order`, `dtype`, "
                 "`subok`),\n        accepted at their default values only.\n\n"
                 "Returns:\n    An `mx.np.ndarray` (a numpy symbol for a symbolic operand) of "
                 "`x`'s shape, or NumPy's\n    result when `x` is a number.\n\n"
                 "Raises:\n    TypeError: an operand that is not an array or a number, an `out` "
                 f"{out_dtype},\n        or an unknown ufunc keyword.\n"
                 "    ValueError: an `out` of another shape.\n"
                 "    NotImplementedError: a ufunc keyword at a legal value other than its "
                 f"default.{extra}\n\n"
                 + _example(fname, False))
    __all__.append(fname)
    return f


add = _make_binary("add", "_npi_add", "_npi_add_scalar", doc="x1 + x2")
subtract = _make_binary("subtract", "_npi_subtract", "_npi_subtract_scalar",
                        "_npi_rsubtract_scalar", doc="x1 - x2")
multiply = _make_binary("multiply", "_npi_multiply", "_npi_multiply_scalar", doc="x1 * x2")
true_divide = _make_binary("true_divide", "_npi_true_divide", "_npi_true_divide_scalar",
                           "_npi_rtrue_divide_scalar", doc="x1 / x2 (integers give float32)")
divide = _make_binary("divide", "_npi_true_divide", "_npi_true_divide_scalar",
                      "_npi_rtrue_divide_scalar", doc="x1 / x2 (as true_divide)")
mod = _make_binary("mod", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar",
                   doc="x1 mod x2 (the sign of x2)")
remainder = _make_binary("remainder", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar",
                         doc="x1 mod x2 (as mod)")
power = _make_binary("power", "_npi_power", "_npi_power_scalar", "_npi_rpower_scalar",
                     doc="x1 ** x2")
maximum = _make_binary("maximum", "_npi_maximum", "_npi_maximum_scalar",
                       doc="the larger of x1 and x2")
minimum = _make_binary("minimum", "_npi_minimum", "_npi_minimum_scalar",
                       doc="the smaller of x1 and x2")
hypot = _make_binary("hypot", "_npi_hypot", "_npi_hypot_scalar",
                     doc="sqrt(x1**2 + x2**2)")
arctan2 = _make_binary("arctan2", "_npi_arctan2", "_npi_arctan2_scalar",
                       "_npi_rarctan2_scalar", doc="the angle of point (x2, x1)")
copysign = _make_binary("copysign", "_npi_copysign", "_npi_copysign_scalar",
                        "_npi_rcopysign_scalar",
                        doc="the absolute value of x1 with the sign of x2")
lcm = _make_binary("lcm", "_npi_lcm", "_npi_lcm_scalar", doc="the least common multiple")
ldexp = _make_binary("ldexp", "_npi_ldexp", "_npi_ldexp_scalar", "_npi_rldexp_scalar",
                     doc="x1 * 2**x2")
bitwise_and = _make_binary("bitwise_and", "_npi_bitwise_and", "_npi_bitwise_and_scalar",
                           doc="x1 & x2")
bitwise_or = _make_binary("bitwise_or", "_npi_bitwise_or", "_npi_bitwise_or_scalar",
                          doc="x1 | x2")
bitwise_xor = _make_binary("bitwise_xor", "_npi_bitwise_xor", "_npi_bitwise_xor_scalar",
                           doc="x1 ^ x2")


def _compare(fname, op, flipped):
    # a number first compares the other way round: 1 < x is x > 1
    f = _make_binary(fname, f"_npi_{op}", f"_npi_{op}_scalar", f"_npi_{flipped}_scalar",
                     doc=f"x1 {fname.replace('_', ' ')} x2 (a bool array)")
    return f


equal = _compare("equal", "equal", "equal")
not_equal = _compare("not_equal", "not_equal", "not_equal")
greater = _compare("greater", "greater", "less")
greater_equal = _compare("greater_equal", "greater_equal", "less_equal")
less = _compare("less", "less", "greater")
less_equal = _compare("less_equal", "less_equal", "greater_equal")

for _fname, _op, _doc in [
        ("absolute", "_npi_absolute", "the absolute value"),
        ("abs", "_npi_absolute", "the absolute value"),
        ("fabs", "_npi_absolute", "the absolute value"),
        ("negative", "_npi_negative", "-x"), ("reciprocal", "_npi_reciprocal", "1 / x"),
        ("sign", "_npi_sign", "the sign (-1, 0 or 1)"),
        ("rint", "_npi_rint", "the nearest integer (halves to even)"),
        ("ceil", "_npi_ceil", "the smallest integer >= x"),
        ("floor", "_npi_floor", "the largest integer <= x"),
        ("trunc", "_npi_trunc", "the integer part"), ("fix", "_npi_fix", "the integer part"),
        ("square", "_npi_square", "x**2"), ("sqrt", "_npi_sqrt", "the square root"),
        ("cbrt", "_npi_cbrt", "the cube root"), ("exp", "_npi_exp", "e**x"),
        ("expm1", "_npi_expm1", "e**x - 1"), ("log", "_npi_log", "the natural logarithm"),
        ("log10", "_npi_log10", "the base-10 logarithm"),
        ("log2", "_npi_log2", "the base-2 logarithm"), ("log1p", "_npi_log1p", "log(1 + x)"),
        ("sin", "_npi_sin", "the sine"), ("cos", "_npi_cos", "the cosine"),
        ("tan", "_npi_tan", "the tangent"), ("arcsin", "_npi_arcsin", "the inverse sine"),
        ("arccos", "_npi_arccos", "the inverse cosine"),
        ("arctan", "_npi_arctan", "the inverse tangent"),
        ("degrees", "_npi_degrees", "radians in degrees"),
        ("rad2deg", "_npi_degrees", "radians in degrees"),
        ("radians", "_npi_radians", "degrees in radians"),
        ("deg2rad", "_npi_radians", "degrees in radians"),
        ("sinh", "_npi_sinh", "the hyperbolic sine"),
        ("cosh", "_npi_cosh", "the hyperbolic cosine"),
        ("tanh", "_npi_tanh", "the hyperbolic tangent"),
        ("arcsinh", "_npi_arcsinh", "the inverse hyperbolic sine"),
        ("arccosh", "_npi_arccosh", "the inverse hyperbolic cosine"),
        ("arctanh", "_npi_arctanh", "the inverse hyperbolic tangent"),
        ("logical_not", "_npi_logical_not", "not x (a bool array)"),
        ("bitwise_not", "_npi_bitwise_not", "~x"), ("invert", "_npi_bitwise_not", "~x"),
        ("isnan", "_npi_isnan", "whether x is nan"), ("isinf", "_npi_isinf", "whether x is ±inf"),
        ("isfinite", "_npi_isfinite", "whether x is finite"),
        ("isposinf", "_npi_isposinf", "whether x is +inf"),
        ("isneginf", "_npi_isneginf", "whether x is -inf")]:
    globals()[_fname] = _make_unary(_fname, _op, _doc,
                                    pyname={"rad2deg": "degrees", "deg2rad": "radians",
                                            "fabs": "abs"}.get(_fname, _fname))


def around(x, decimals=0, out=None, **kwargs):
    """Values rounded to `decimals` places, halves to even (NumPy's around; operator
    _npi_around). A number gives NumPy's result.

    Args:
        x: an `mx.np.ndarray`, a numpy symbol or a Python number.
        decimals (int): default 0: the number of decimal places to keep; a negative value
            rounds to tens, hundreds, ...
        out: default None: a new array holds the result; else an `mx.np.ndarray` of `x`'s
            shape and dtype that receives it (and is returned).
        **kwargs: none is accepted (any raises TypeError).

    Returns:
        An array of `x`'s shape and dtype, or NumPy's result for a number.

    Raises:
        TypeError: float16 data (MXNet 1.9.1 refuses it), or a keyword it does not take.

    Example::

        mx.np.around(mx.np.array([0.5, 1.5, 2.675]), 2)   # array([0.5 , 1.5 , 2.68])
    """
    if kwargs:
        raise TypeError(f"around: unexpected keyword argument {next(iter(kwargs))!r}")
    if _is_array(x):
        return invoke("_npi_around", [x], {"decimals": decimals}, out=out, fname="around")
    return _onp.around(x, decimals)


def round(x, decimals=0, out=None, **kwargs):  # pylint: disable=redefined-builtin
    """As `around`: values rounded to `decimals` places, halves to even.

    Args:
        x: an `mx.np.ndarray`, a numpy symbol or a Python number.
        decimals (int): default 0: the number of decimal places to keep.
        out: default None: a new array holds the result; else an `mx.np.ndarray` that
            receives it (and is returned).
        **kwargs: none is accepted (any raises TypeError).

    Returns:
        An array of `x`'s shape and dtype, or NumPy's result for a number.

    Raises:
        TypeError: float16 data, or a keyword it does not take.

    Example::

        mx.np.round(mx.np.array([1.26, 2.5]), decimals=1)  # array([1.3, 2.5])
    """
    return around(x, decimals, out=out, **kwargs)


round_ = round
__all__ += ["around", "round", "round_"]


def _np_version_of(fname):
    return getattr(_onp, fname)


def is_binary_operand(x):
    """Whether `x` can be an operand of a binary function (array, symbol or number)."""
    return _is_array(x) or _is_scalar(x)


def symbolic(*xs):
    """Whether the operands build a graph node."""
    return is_symbolic(xs)
