"""`sym`: symbolic graphs. Every registered operator is a function here, generated from the
same registry as `nd`, plus `var`, `Group`, `load`/`load_json` and `contrib` (control flow)."""
import numpy as _np

from .. import ops as _ops  # noqa: F401  (registers the operators)
from ..base import normalize_dtype
from .symbol import Symbol, Node, var, Variable, Group, apply_op
from .json_io import load, load_json
from .naming import Prefix
from . import register as _register
from . import history as _history  # noqa: F401  (installs autograd.get_symbol's builder)
from .register import fn as _fn

_register.populate(globals())


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(shape)


def zeros(shape, dtype=None, **kwargs):
    """A node producing zeros of `shape`.

    Args:
        shape: the output's shape, an int or a tuple of ints.
        dtype: the element type (default None: float32).
        **kwargs: more attributes of the ``_zeros`` node (``name``, ``ctx``, ``attr``).

    Returns:
        Symbol: a node with no inputs producing the zeros.

    Example::

        sym.zeros((2, 2)).eval()[0].asnumpy()   # [[0. 0.] [0. 0.]]
    """
    return _fn("_zeros")(shape=_shape(shape), dtype=normalize_dtype(dtype or "float32").name,
                         **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A node producing ones of `shape`.

    Args:
        shape: the output's shape, an int or a tuple of ints.
        dtype: the element type (default None: float32).
        **kwargs: more attributes of the ``_ones`` node (``name``, ``ctx``, ``attr``).

    Returns:
        Symbol: a node with no inputs producing the ones.

    Example::

        (sym.var('x') + sym.ones(2)).eval(x=nd.array([1, 2]))[0].asnumpy()   # [2. 3.]
    """
    return _fn("_ones")(shape=_shape(shape), dtype=normalize_dtype(dtype or "float32").name,
                        **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A node producing `val` everywhere in `shape`.

    Args:
        shape: the output's shape, an int or a tuple of ints.
        val: the fill value, a number.
        dtype: the element type (default None: float32).
        **kwargs: more attributes of the ``_full`` node (``name``, ``ctx``, ``attr``).

    Returns:
        Symbol: a node with no inputs producing the filled array.

    Example::

        sym.full((1, 3), 5).eval()[0].asnumpy()   # [[5. 5. 5.]]
    """
    return _fn("_full")(shape=_shape(shape), value=val,
                        dtype=normalize_dtype(dtype or "float32").name, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, dtype=None, **kwargs):
    """A node producing evenly spaced values.

    Args:
        start: the first value; with `stop` None, the stop, and the values start at 0.
        stop: the end of the interval, not included (default None: see `start`).
        step: the spacing of the values (default 1.0).
        repeat: how many times each value is repeated in a row (default 1).
        dtype: the element type (default None: float32).
        **kwargs: more attributes of the ``_arange`` node (``name``, ``infer_range``).

    Returns:
        Symbol: a node with no inputs producing the 1-D array of values.

    Example::

        sym.arange(0, 6, step=2).eval()[0].asnumpy()   # [0. 2. 4.]
    """
    return _fn("_arange")(start=start, stop=stop, step=step, repeat=repeat,
                          dtype=normalize_dtype(dtype or "float32").name, **kwargs)


def concat(*data, dim=1, **kwargs):
    """Join along axis `dim`.

    Example::

        z = sym.concat(sym.var('a'), sym.var('b'), dim=0)
        z.eval(a=nd.array([1]), b=nd.array([2, 3]))[0].asnumpy()   # [1. 2. 3.]
    """
    return _fn("Concat")(*data, dim=dim, **kwargs)


def stack(*data, axis=0, **kwargs):
    """Join along a new axis.

    Args:
        *data: the Symbols to stack (their outputs must have one shape).
        axis: the position of the new axis in the output (default 0).
        **kwargs: more attributes of the ``stack`` node (``name``).

    Returns:
        Symbol: the node, whose output has one more axis of length len(data).

    Example::

        z = sym.stack(sym.var('a'), sym.var('b'))
        z.eval(a=nd.array([1, 2]), b=nd.array([3, 4]))[0].shape   # (2, 2)
    """
    return _fn("stack")(*data, axis=axis, **kwargs)


def _scalar_or_sym(lhs, rhs, name, scalar_name):
    hint = name
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return apply_op(name, lhs, rhs, hint=hint)
    if isinstance(lhs, Symbol):
        return apply_op(scalar_name, lhs, scalar=rhs, hint=hint + "scalar")
    if isinstance(rhs, Symbol):
        return apply_op(scalar_name, rhs, scalar=lhs, hint=hint + "scalar")
    raise TypeError("at least one argument must be a Symbol")


def maximum(lhs, rhs):
    """Elementwise maximum of symbols and/or scalars (nodes named _maximum0, _maximumscalar0).

    Args:
        lhs: a Symbol or a number.
        rhs: a Symbol or a number (two Symbols' outputs must have one shape).

    Returns:
        Symbol: the ``_maximum`` node (two Symbols) or ``_maximum_scalar`` node.

    Raises:
        TypeError: if neither operand is a Symbol.

    Example::

        z = sym.maximum(sym.var('x'), 0)
        z.name                                           # '_maximumscalar0'
        z.eval(x=nd.array([-1, 2]))[0].asnumpy()         # [0. 2.]
    """
    return _scalar_or_sym(lhs, rhs, "_maximum", "_maximum_scalar")


def minimum(lhs, rhs):
    """Elementwise minimum of symbols and/or scalars (nodes named _minimum0, _minimumscalar0).

    Args:
        lhs: a Symbol or a number.
        rhs: a Symbol or a number (two Symbols' outputs must have one shape).

    Returns:
        Symbol: the ``_minimum`` node (two Symbols) or ``_minimum_scalar`` node.

    Raises:
        TypeError: if neither operand is a Symbol.

    Example::

        z = sym.minimum(sym.var('x'), sym.var('y'))
        z.eval(x=nd.array([1, 5]), y=nd.array([3, 3]))[0].asnumpy()   # [1. 3.]
    """
    return _scalar_or_sym(lhs, rhs, "_minimum", "_minimum_scalar")


def power(base, exp):
    """`base` ** `exp`, each a Symbol or a number (nodes named _power0, _powerscalar0,
    _rpowerscalar0 as MXNet names them); two numbers give a number.

    Example::

        z = sym.pow(sym.var('x'), 2)
        z.eval(x=nd.array([1, 2, 3]))[0].asnumpy()   # [1. 4. 9.]
        sym.power(2, 3)                              # 8
    """
    if isinstance(base, Symbol) and isinstance(exp, Symbol):
        return apply_op("_power", base, exp, hint="_power")
    if isinstance(base, Symbol):
        return apply_op("_power_scalar", base, scalar=exp, hint="_powerscalar")
    if isinstance(exp, Symbol):
        return apply_op("_rpower_scalar", exp, scalar=base, hint="_rpowerscalar")
    return base ** exp


pow = power  # noqa: A001  (MXNet's name)

from . import contrib  # noqa: E402
from . import _internal  # noqa: E402,F401
from .functions import *  # noqa: E402,F401,F403  (MXNet's symbol-or-scalar functions)
from . import linalg  # noqa: E402,F401
from .custom import Custom  # noqa: E402,F401
from . import random  # noqa: E402,F401
from . import image  # noqa: E402,F401
from . import sparse  # noqa: E402,F401

from ..ops import fluent as _fluent  # noqa: E402

_fluent.install(Symbol, globals(), "Symbol")
from . import numpy as np  # noqa: E402  (mx.sym.np: the NumPy dialect, symbolic)
from . import numpy_extension as npx  # noqa: E402
# MXNet's modules of the operator functions, last: they repeat the namespaces above
from . import (gen_op, gen__internal, gen_contrib, gen_image, gen_linalg,  # noqa: E402,F401
               gen_random, gen_sparse, op)
from ..ops.missing_names import missing_attribute  # noqa: E402


def __getattr__(name):
    # A name MXNet 1.9.1 has here is reported as an operator gluonlite lacks, not as a typo.
    if name.startswith("__"):
        raise AttributeError(name)
    raise missing_attribute("symbol", name)
