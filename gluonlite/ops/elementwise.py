"""Elementwise operators: unary math, activations, binary arithmetic and comparisons, with
broadcasting, same-shape (``elemwise_*``) and scalar variants."""
import functools
import math
from collections import namedtuple

import numpy as np

from ..base import MXNetTypeError
from . import attrs as A
from . import gelu_fast, libm32, mxnet_samplers, normal_cdf, onednn_eltwise
from .fast import Fast
from .registry import ShapeError, ShapeRule, get, register
from .relu_fast import max_zero
from .rules import same_binary_shape, same_shape, broadcast_rule, unbroadcast, keep_dtype
from .sparse import elementwise as sparse

try:  # scipy's expit is a single fast ufunc on numpy arrays
    from scipy.special import expit as _expit
except ImportError:  # pragma: no cover - scipy is a dependency
    _expit = None


# From this many elements on, numpy's sigmoid is 1 / (1 + exp(-x)) in four passes with one
# `exp` (numpy's SIMD exp: about half the time per element of scipy's scalar expit loop in
# float32, more than paying for the passes and the errstate that keeps exp's overflow to inf,
# a sigmoid of exactly 0, quiet); below it, expit's one call costs less. float16 and other
# dtypes keep expit.
_SIGMOID_EXP_MIN = 2048
_SIGMOID_EXP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def sigmoid_into(xp, x, out):
    """Logistic sigmoid of x written into out (stable for large |x|).

    Args:
        xp: the array module of the arrays (numpy or cupy).
        x: the input array.
        out: the array of x's shape to write into.

    Returns:
        array: `out`.

    Example::

        from gluonlite.ops.elementwise import sigmoid_into
        out = np.empty(2)
        sigmoid_into(np, np.array([0.0, 1000.0]), out)
        out                 # array([0.5, 1. ])
    """
    if xp is np and _expit is not None:
        if x.size < _SIGMOID_EXP_MIN or x.dtype != out.dtype \
                or out.dtype not in _SIGMOID_EXP_DTYPES:
            return _expit(x, out=out)
        with np.errstate(over="ignore"):
            xp.negative(x, out=out)
            xp.exp(out, out=out)
        out += 1
        return xp.divide(1, out, out=out)
    xp.negative(x, out=out)
    xp.exp(out, out=out)
    out += 1
    return xp.reciprocal(out, out=out)


class _Forward(namedtuple("_Forward", ["fn", "ufunc"])):
    """A unary forward ``fn(xp, x, out)`` writing into `out`, and the array function a
    compiled plan may call in its place (`Fast.ufunc`'s name, or ``xp -> function``)."""


def _ufunc(f):
    """The forward of a unary operator that is the array module's function `f`."""
    def fn(xp, x, out):
        return getattr(xp, f)(x, out=out)
    return _Forward(fn, f)


def _rounded_once(f):
    """The forward of a unary operator that is the array module's function `f`, which numpy
    computes in float32 up to 1 ulp from the correctly rounded value (exp and log: a third of
    all inputs). numpy float32 goes through float64 and is rounded once, giving the numbers
    MXNet's C library gives (exp(1) is 2.7182817, not 2.718282)."""
    def fn(xp, x, out):
        if xp is np and x.dtype == np.float32:
            return getattr(np, f)(x, out=out, dtype=np.float64)
        return getattr(xp, f)(x, out=out)
    # plans on numpy call `fn` (through `into`); other array modules' function directly
    return _Forward(fn, lambda xp: None if xp is np else getattr(xp, f))


def _c_library(f):
    """The forward of exp or log (`f`): on numpy, float32 and float16 data take the C
    library's ``expf`` / ``logf`` (`libm32`: glibc's, bit for bit), as MXNet's CPU kernels
    call them (float16 by way of float32); float64 and other array modules keep `_rounded_once`."""
    rounded = _rounded_once(f)

    def fn(xp, x, out):
        if xp is np and x.dtype in (np.float32, np.float16):
            y = libm32.like_mxnet(f, xp, x)
            if out is None:
                return y
            out[...] = y
            return out
        return rounded.fn(xp, x, out)
    return _Forward(fn, rounded.ufunc)


def _no_bool(name):
    """The dtype rule of an operator whose MXNet kernel has no bool case (the math
    functions, rounding, sign): bool data is refused, as MXNet refuses it ("Unknown type
    enum 7"); any other dtype is kept."""
    def rule(p, ins):
        if ins[0] is not None and np.dtype(ins[0]) == np.bool_:
            _refuse_bool(name)
        return ins, [ins[0]]
    return rule


def _refuse_bool(name):
    raise MXNetTypeError(f"{name}: bool data is not supported (MXNet: Unknown type enum 7)")


def _int_safe(fwd):
    """`fwd` that also takes integer data, as MXNet's kernels do: where the array
    module refuses to write a float result into an integer output (sqrt, exp, log of
    int32), it computes in float64 and truncates into the output's dtype."""
    def safe(xp, x, out):
        try:
            return fwd(xp, x, out)
        except TypeError:  # numpy's UFuncTypeError: no same-kind cast to an integer output
            if x.dtype.kind == "f":
                raise
            out[...] = fwd(xp, x.astype(np.float64), xp.empty(x.shape, np.float64))
            return out
    return safe


# What a unary gradient reads: the input, the output, or nothing but the gradient.
_READS = {"x": ("data",), "y": ("outputs",), "": ()}


def _form(value, grads):
    """`Fast.elementwise` of an operator whose form does not depend on its params."""
    pair = (value, tuple(grads))
    return lambda p: pair


def _unary(name, forward, grad, reads=None, *, grad_out=None, passes_grad=(), aliases=(),
           doc=None, bool_ok=False, expr=None):
    """Register a unary operator: ``forward(xp, x, out)`` writes the result into `out` (a
    `_Forward` also names the array function a plan may call), ``grad(xp, x, y, g) -> dx``
    is its gradient, the math alone. Bool data is refused (as by MXNet's math kernels)
    unless `bool_ok`.

    With `reads` ("x", "y" or "": what the gradient reads) the operator gets its fast paths:
    the forward into a given output, the array function, what a plan keeps for the
    gradient, the gradient rule called directly (`grad_out`: the same rule taking ``out=``,
    for a loop's reverse pass) and `passes_grad`; with `expr` (``expr(xp, x) -> y``, ufuncs
    and operators only) also its elementwise form (`Fast.elementwise`), `grad` being one.
    """
    fwd, ufunc = forward if isinstance(forward, _Forward) else (forward, None)
    fwd = _int_safe(fwd)

    def kernel(p, rc, x):
        if x.dtype == np.bool_ and not bool_ok:
            _refuse_bool(name)
        return fwd(rc.xp, x, rc.xp.empty_like(x))

    def vjp(p, rc, xs, ys, gys, need):
        return (grad(rc.xp, xs[0], ys[0], gys[0]),)

    def into(p, rc, outs, x):
        fwd(rc.xp, x, outs[0])

    fast = None if reads is None else Fast(
        into=into, saves=_READS[reads], ufunc=None if ufunc is None else (ufunc, {}),
        passes_grad=passes_grad, grads=None if grad is None else (grad_out or grad,),
        grads_out=grad_out is not None, elementwise=None if expr is None else _form(
            lambda xp, p, x: expr(xp, x), (lambda xp, p, xs, y, g: grad(xp, xs[0], y, g),)))
    kernel.__doc__ = doc or f"Elementwise {name}."
    register(name, aliases=aliases, vjp=vjp if grad else None, shape=same_shape(name),
             dtype=None if bool_ok else _no_bool(name), fast=fast,
             storage=sparse.UNARY_RULES.get(name))(kernel)


# name, forward, gradient, what the gradient reads (None: no fast paths)
_unary("negative", _ufunc("negative"), lambda xp, x, y, g: -g, "",
       doc="Elementwise -x.", expr=lambda xp, x: -x)
_unary("abs", _ufunc("abs"), lambda xp, x, y, g: g * mxnet_sign(xp, x), "x",
       doc="Elementwise |x|.")
_unary("exp", _c_library("exp"), lambda xp, x, y, g: g * y, "y", doc="Elementwise e**x.")
_unary("log", _c_library("log"), lambda xp, x, y, g: g / x, "x",
       doc="Elementwise natural logarithm.")
_unary("sqrt", _ufunc("sqrt"), lambda xp, x, y, g: g / (2 * y), "y",
       doc="Elementwise square root.")
_unary("square", _ufunc("square"), lambda xp, x, y, g: 2 * x * g, "x",
       doc="Elementwise x**2.", expr=lambda xp, x: x * x)
_unary("reciprocal", _ufunc("reciprocal"), lambda xp, x, y, g: -g * y * y, "y",
       doc="Elementwise 1/x.")


def _through_float64(fn):
    """A forward computing ``fn(xp, x)``, an expression of several functions; numpy float32
    goes through float64 and is rounded once, as in `_rounded_once`."""
    def fwd(xp, x, out):
        if xp is np and x.dtype == np.float32:
            x = x.astype(np.float64)
        out[...] = fn(xp, x)
        return out
    return fwd


# Trigonometric, hyperbolic and other math functions, with MXNet's names. None runs inside an
# RNN loop, so each is computed as exactly as `_rounded_once` allows.
_LN2, _LN10 = float(np.log(2.0)), float(np.log(10.0))
for _name, _grad, _doc in [
        ("sin", lambda xp, x, y, g: g * xp.cos(x), "sine"),
        ("cos", lambda xp, x, y, g: -g * xp.sin(x), "cosine"),
        ("tan", lambda xp, x, y, g: g * (1 + y * y), "tangent"),
        ("arcsin", lambda xp, x, y, g: g / xp.sqrt(1 - x * x), "inverse sine"),
        ("arccos", lambda xp, x, y, g: -g / xp.sqrt(1 - x * x), "inverse cosine"),
        ("arctan", lambda xp, x, y, g: g / (1 + x * x), "inverse tangent"),
        ("sinh", lambda xp, x, y, g: g * xp.cosh(x), "hyperbolic sine"),
        ("cosh", lambda xp, x, y, g: g * xp.sinh(x), "hyperbolic cosine"),
        ("arcsinh", lambda xp, x, y, g: g / xp.sqrt(x * x + 1), "inverse hyperbolic sine"),
        ("arccosh", lambda xp, x, y, g: g / xp.sqrt(x * x - 1), "inverse hyperbolic cosine"),
        ("arctanh", lambda xp, x, y, g: g / (1 - x * x), "inverse hyperbolic tangent"),
        ("log2", lambda xp, x, y, g: g / (x * _LN2), "base-2 logarithm"),
        ("log10", lambda xp, x, y, g: g / (x * _LN10), "base-10 logarithm"),
        ("log1p", lambda xp, x, y, g: g / (1 + x), "log(1 + x), exact near 0"),
        ("expm1", lambda xp, x, y, g: g * (y + 1), "exp(x) - 1, exact near 0"),
        ("cbrt", lambda xp, x, y, g: g / (3 * y * y), "cube root")]:
    _unary(_name, _rounded_once(_name), _grad, doc=f"Elementwise {_doc}.")
# MXNet's conversion factors are float32 quotients (180 / float32 pi), in every dtype
_DEG = float(np.float32(180) / np.float32(np.pi))
_RAD = float(np.float32(np.pi) / np.float32(180))


def _times(c):
    def fwd(xp, x, out):
        out[...] = x * c
        return out
    return fwd


_unary("degrees", _times(_DEG), lambda xp, x, y, g: g * _DEG,
       doc="Elementwise radians to degrees (x * 57.29578, MXNet's float32 factor).")
_unary("radians", _times(_RAD), lambda xp, x, y, g: g * _RAD,
       doc="Elementwise degrees to radians (x * 0.017453292, MXNet's float32 factor).")
_rsqrt_rounded_once = _through_float64(lambda xp, x: 1 / xp.sqrt(x))


def _rsqrt(xp, x, out):
    """1 / sqrt(x): on numpy float32 in two float32 roundings, MXNet's ``1.0f / sqrtf(x)``
    (the value rounded once through float64 differs on a quarter of the entries)."""
    if xp is np and x.dtype == np.float32:
        np.sqrt(x, out=out)
        return np.divide(np.float32(1), out, out=out)
    return _rsqrt_rounded_once(xp, x, out)


_unary("rsqrt", _rsqrt,
       # |y| for the last factor: at -0, y is -inf and MXNet's -0.5 / (x * sqrt(x)) is -inf
       lambda xp, x, y, g: -0.5 * g * y * y * xp.abs(y), doc="Elementwise 1/sqrt(x).")
_unary("rcbrt", _through_float64(lambda xp, x: 1 / xp.cbrt(x)),
       lambda xp, x, y, g: -g * y / (3 * x), doc="Elementwise 1/cbrt(x).")


def mxnet_sign(xp, x):
    """sign as MXNet's kernel computes it: -1, 0 or 1, and 0 for NaN (numpy's is NaN); the
    slope of abs and of the L1 norm.

    Args:
        xp: the array module (numpy, CuPy, or the recording module of a second derivative).
        x: the array.

    Returns:
        An array of x's shape and dtype.

    Example::

        from gluonlite.ops.elementwise import mxnet_sign
        mxnet_sign(np, np.array([-2.0, np.nan, 3.0]))   # array([-1.,  0.,  1.])
    """
    y = xp.sign(x)
    if getattr(xp, "operator", None) is not None:  # recorded: the sign operator (this kernel)
        return y
    if y.dtype.kind == "f":
        nan = y != y
        if xp is not np or nan.any():  # a device array is not tested on the host
            xp.copyto(y, 0, where=nan)
    return y


def _piecewise_constant(name, doc):
    """An operator whose gradient is zero wherever it exists (MXNet's rule: zeros)."""
    def kernel(p, rc, x):
        if x.dtype == np.bool_:
            _refuse_bool(name)
        if x.dtype.kind in "iu" and name != "sign":
            # integers are their own floor, ceil and integer part, in their dtype (numpy
            # before 2.0 computes these in float64)
            return x.copy()
        return mxnet_sign(rc.xp, x) if name == "sign" else getattr(rc.xp, name)(x)
    kernel.__doc__ = doc
    register(name, shape=same_shape(name), nondiff=("data",), dtype=_no_bool(name),
             storage=sparse.UNARY_RULES.get(name))(kernel)


_piecewise_constant("sign", "Elementwise sign: -1, 0 or 1.")
_piecewise_constant("floor", "Elementwise largest integer <= x.")
_piecewise_constant("ceil", "Elementwise smallest integer >= x.")
_piecewise_constant("trunc", "Elementwise integer part, towards zero.")
_piecewise_constant("fix", "Elementwise integer part, towards zero (as trunc).")


@register("rint", shape=same_shape("rint"), nondiff=("data",), dtype=_no_bool("rint"),
          storage=sparse.UNARY_RULES["rint"])
def _rint(p, rc, x):
    """Elementwise nearest integer, halves down (MXNet's rint: -2.5 -> -3, 2.5 -> 2)."""
    if x.dtype == np.bool_:
        _refuse_bool("rint")
    return rint_halves_down(rc.xp, x)


def rint_halves_down(xp, x):
    """The nearest integer with halves rounded down, as MXNet's rint kernel (shared by
    `nd.rint` and `np.rint`) computes it: -2.5 -> -3, 2.5 -> 2 (numpy's rint rounds them to
    the even neighbour).

    Args:
        xp: the array module (numpy or CuPy).
        x: the array.

    Returns:
        An array of x's shape and dtype.

    Example::

        from gluonlite.ops.elementwise import rint_halves_down
        rint_halves_down(np, np.array([-2.5, -0.5, 1.5, 2.6]))   # [-3., -1., 1., 3.]
    """
    f = xp.floor(x)
    return xp.where(x - f > 0.5, f + 1, f).astype(x.dtype, copy=False)


@register("round", shape=same_shape("round"), nondiff=("data",), dtype=_no_bool("round"),
          storage=sparse.UNARY_RULES["round"])
def _round(p, rc, x):
    """Elementwise nearest integer, halves away from zero (MXNet's round, unlike numpy's)."""
    if x.dtype == np.bool_:
        _refuse_bool("round")
    xp = rc.xp
    return (xp.sign(x) * xp.floor(xp.abs(x) + 0.5)).astype(x.dtype, copy=False)


# The activations. sigmoid's and tanh's gradients also come written in place, for a loop's
# reverse pass (one array per step instead of three).
def _sigmoid_grad_out(xp, x, y, g, out=None):
    t = xp.subtract(1, y, out=out)
    t *= y
    t *= g
    return t


def _tanh_grad_out(xp, x, y, g, out=None):
    t = xp.multiply(y, y, out=out)
    xp.subtract(1, t, out=t)
    t *= g
    return t


def _sigmoid(xp, x, out):
    """MXNet's kernel: ``1.0f / (1.0f + expf(-x))`` in float32 with the C library's expf
    (`libm32`), for numpy float32 and float16 data; `sigmoid_into` otherwise."""
    if xp is np and x.dtype in (np.float32, np.float16):
        e = libm32.expf(-x.astype(np.float32))
        e += np.float32(1)
        out[...] = np.divide(np.float32(1), e, out=e)
        return out
    return sigmoid_into(xp, x, out)


_unary("sigmoid", _Forward(_sigmoid, lambda xp: None),
       lambda xp, x, y, g: g * (y * (1 - y)), "y", grad_out=_sigmoid_grad_out,
       doc="Elementwise logistic sigmoid 1/(1+exp(-x)).",
       expr=lambda xp, x: 1 / (1 + xp.exp(-x)))
_unary("tanh", _ufunc("tanh"), lambda xp, x, y, g: g * (1 - y * y), "y",
       grad_out=_tanh_grad_out, doc="Elementwise tanh.", expr=lambda xp, x: xp.tanh(x))
_unary("relu", lambda xp, x, out: max_zero(np.maximum, x, out) if xp is np else
       xp.maximum(x, 0, out=out),
       lambda xp, x, y, g: g * xp.sign(y), "y",
       doc="Elementwise max(x, 0); NaN stays NaN, and so does its gradient (MXNet 1.9.1's "
           "relu). The gradient is g * sign(y): 1 above 0, 0 below.",
       expr=lambda xp, x: xp.maximum(x, 0))
_unary("softsign", lambda xp, x, out: xp.divide(x, 1 + xp.abs(x), out=out),
       lambda xp, x, y, g: g / xp.square(1 + xp.abs(x)), "x", doc="Elementwise x/(1+|x|).",
       expr=lambda xp, x: x / (1 + xp.abs(x)))
_unary("softrelu", lambda xp, x, out: xp.logaddexp(x, 0, out=out),
       lambda xp, x, y, g: g * sigmoid_into(xp, x, xp.empty_like(x)), "x",
       doc="log(1+exp(x)).")
_unary("_copy", lambda xp, x, out: xp.copyto(out, x) or out, lambda xp, x, y, g: g, "",
       passes_grad=(0,), aliases=("identity",), doc="A copy of x (identity).", bool_ok=True,
       expr=lambda xp, x: x)


def _no_grad_like(value):
    def kernel(p, rc, x):
        return rc.xp.full_like(x, value)
    kernel.__doc__ = f"An array of {value}s with x's shape and dtype."
    return kernel


def _fill_into(value):
    def into(p, rc, outs, x):
        outs[0].fill(value)
    return into


# in a fused kernel the constant itself, broadcast where it meets an array
register("zeros_like", shape=same_shape("zeros_like"), nondiff=("data",),
         fast=Fast(into=_fill_into(0), elementwise=_form(lambda xp, p, x: 0.0, (None,))),
         storage=sparse.ZEROS_LIKE)(_no_grad_like(0))
register("ones_like", shape=same_shape("ones_like"), nondiff=("data",),
         fast=Fast(into=_fill_into(1), elementwise=_form(lambda xp, p, x: 1.0, (None,))))(
    _no_grad_like(1))


@register("logical_not", shape=same_shape("logical_not"), nondiff=("data",))
def _logical_not(p, rc, x):
    """1 where x is 0, else 0, in x's dtype (no gradient, as in MXNet)."""
    return (x == 0).astype(x.dtype)


@register("BlockGrad", aliases=("stop_gradient",), shape=same_shape("BlockGrad"),
          nondiff=("data",), storage=sparse.IDENTITY)
def _block_grad(p, rc, x):
    """x itself, with no gradient flowing back."""
    return x.copy()


_ACT_TYPES = ("relu", "sigmoid", "tanh", "softrelu", "softsign")


def _act(p):
    """The unary operator an Activation node applies (every rule is that operator's)."""
    return get(p.act_type)


def act_relu(xp, x, out=None):
    """Activation's relu: max(x, 0), where a float32 NaN gives 0, as MXNet 1.9.1's CPU build
    (its oneDNN kernel) gives it; other dtypes keep NaN, as does the `relu` operator.

    Args:
        xp: the array module.
        x: the data.
        out: where to write (x's shape and dtype; may be `x`), or None for a new array.

    Returns:
        `out`, or the new array.

    Example::

        from gluonlite.ops.elementwise import act_relu
        act_relu(np, np.array([-1.0, np.nan, 2.0], np.float32))   # [0., 0., 2.]
    """
    if xp is np:  # numpy's vectorised loop wants an array operand, not the scalar 0
        return max_zero(np.fmax if x.dtype == np.float32 else np.maximum, x, out)
    return (xp.fmax if x.dtype == np.float32 else xp.maximum)(x, 0, out=out)


# Activation's sigmoid keeps numpy's fast kernel (`sigmoid_into`), apart from the `sigmoid`
# operator (the C library's expf, as MXNet's elementwise kernel): MXNet runs Activation
# through oneDNN's own approximation, which neither gives, and recurrent cells' loops pay for
# every pass of it.
def _fast_sigmoid(p, x):
    return p.act_type == "sigmoid" and x.dtype.kind == "f"


# MXNet's CPU build runs a float32 Activation of 1 to 5 axes through oneDNN; its softrelu
# there is oneDNN's own arithmetic, which `onednn_eltwise` gives to the bit (sigmoid and
# tanh stay numpy's: see above)
def _onednn_softrelu(p, xp, x):
    return (p.act_type == "softrelu" and xp is np and x.dtype == np.float32
            and 1 <= x.ndim <= 5)


def _activation_into(p, rc, outs, x):
    if p.act_type == "relu":
        act_relu(rc.xp, x, out=outs[0])
    elif _fast_sigmoid(p, x):
        sigmoid_into(rc.xp, x, outs[0])
    elif _onednn_softrelu(p, rc.xp, x):
        outs[0][...] = onednn_eltwise.soft_relu(x)
    else:
        _act(p).fast.into(p, rc, outs, x)


def _activation_vjp(p, rc, xs, ys, gys, need):
    if _onednn_softrelu(p, rc.xp, xs[0]):
        return (onednn_eltwise.soft_relu_grad(xs[0], gys[0]),)
    return _act(p).vjp(p, rc, xs, ys, gys, need)


@register("Activation", shape=same_shape("Activation"), attrs={"act_type": A.Enum(*_ACT_TYPES)},
          vjp=_activation_vjp,
          fast=Fast(into=_activation_into, saves=lambda p: _act(p).fast.saves,
                    elementwise=lambda p: (_act(p).fast.elementwise or (lambda q: None))(p)))
def _activation(p, rc, x):
    """Activation(data, act_type): relu, sigmoid, tanh, softrelu or softsign. relu of a
    float32 NaN is 0 here (MXNet's Activation), while `relu` keeps NaN (MXNet's relu)."""
    if p.act_type == "relu":
        return act_relu(rc.xp, x)
    if _fast_sigmoid(p, x):
        return sigmoid_into(rc.xp, x, rc.xp.empty_like(x))
    if _onednn_softrelu(p, rc.xp, x):
        return onednn_eltwise.soft_relu(x)
    return _act(p).kernel(p, rc, x)


def _prelu_gamma_shape(gshape, dshape):
    """Where PReLU's gamma lies along data of `dshape`: its axes, right-aligned, fill data
    axes 0 and 1 (each equal to the data's or 1), 1 everywhere else; so (C,) is one slope per
    channel, (1,) one for all, (N, C) one per sample and channel (MXNet's rule).

    Raises:
        ShapeError: gamma does not fit that way.
    """
    out, s = [1] * len(dshape), len(gshape) - 1
    for i in range(len(dshape) - 1, -1, -1):
        if s >= 0 and i <= 1 and gshape[s] in (dshape[i], 1):
            out[i] = gshape[s]
            s -= 1
    if s != -1:
        raise ShapeError(f"LeakyReLU: gamma of shape {tuple(gshape)} does not broadcast to "
                         f"data {tuple(dshape)} along its axes 0 and 1 (per channel: "
                         f"{(dshape[1],) if len(dshape) > 1 else tuple(dshape)}, or (1,))")
    return tuple(out)


def _prelu_gamma(x, gamma):
    """PReLU's slope shaped to broadcast against x (see `_prelu_gamma_shape`)."""
    return gamma.reshape(_prelu_gamma_shape(gamma.shape, x.shape))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _erf(xp, x):
    if xp is np:
        from scipy.special import erf
        return erf(x)
    try:
        from cupyx.scipy.special import erf
        return erf(x)
    except ImportError:  # an array module without cupyx: computed on the host, explicitly
        from scipy.special import erf
        return xp.asarray(erf(xp.asnumpy(x)))


_SQRT2, _SQRT_2PI = math.sqrt(2.0), math.sqrt(2.0 * math.pi)  # Python floats: weak types


def _leaky_fwd(p, rc, x, gamma=None):
    """LeakyReLU(data, gamma=None, act_type='leaky', slope=0.25, lower_bound=0.125,
    upper_bound=0.334): leaky (x if x > 0 else slope * x), elu (slope * (exp(x) - 1) below 0),
    selu (lambda * (x if x > 0 else alpha * (exp(x) - 1)), SELU's constants), gelu
    (x * Phi(x): `normal_cdf.gelu_float32` on float32 data, 0.5 * x * (1 + erf(x / sqrt(2)))
    on others), prelu (a learned slope `gamma` per channel of axis 1)
    or rrelu (in training a random slope per entry drawn from U(lower_bound, upper_bound),
    kept as a hidden output; their mean otherwise)."""
    xp = rc.xp
    t = x.dtype.type
    if p.act_type == "leaky":
        return xp.where(x > 0, x, x * t(p.slope))
    if p.act_type == "elu":
        return xp.where(x > 0, x, (p.slope * xp.expm1(xp.minimum(x, 0))).astype(x.dtype))
    if p.act_type == "selu":
        neg = (_SELU_ALPHA * xp.expm1(xp.minimum(x, 0))).astype(x.dtype)
        return (t(_SELU_LAMBDA) * xp.where(x > 0, x, neg)).astype(x.dtype, copy=False)
    if p.act_type == "gelu":
        if x.dtype == np.float32:
            return normal_cdf.gelu_float32(xp, x)
        # in the data's dtype, as MXNet computes it: Python floats, since a numpy float64
        # constant would make numpy compute a float32 erf in float64, at twice the time
        return (0.5 * x * (1 + _erf(xp, x / _SQRT2))).astype(x.dtype, copy=False)
    if p.act_type == "rrelu":
        if rc.is_train:
            # as MXNet's kernel draws them (its CPU build crashes before: it asks for no
            # generator): U[0, 1) from the parallel stream, scaled in the data's type
            d = np.dtype(x.dtype).type
            u = mxnet_samplers.uniform(d(0), d(1), x.shape, x.dtype)
            slope = xp.asarray((u * d(np.float32(p.upper_bound) - np.float32(p.lower_bound))
                                + d(p.lower_bound)).astype(x.dtype, copy=False))
        else:
            slope = xp.full(x.shape, (p.lower_bound + p.upper_bound) / 2, dtype=x.dtype)
        mask = xp.where(x > 0, t(1), slope)
        return x * mask, mask
    return xp.where(x > 0, x, x * _prelu_gamma(x, gamma))


def _leaky_vjp(p, rc, xs, ys, gys, need):
    x, y, g = xs[0], ys[0], gys[0]
    xp = rc.xp
    if p.act_type == "leaky":
        if x.dtype == np.float32:  # MXNet's float32 kernel (oneDNN's) passes NaN's gradient
            return (g * xp.where(x <= 0, p.slope, 1).astype(g.dtype),)
        return (g * xp.where(x > 0, 1, p.slope).astype(g.dtype),)
    if p.act_type == "elu":
        return (g * xp.where(x > 0, 1, y + p.slope).astype(g.dtype),)
    if p.act_type == "selu":
        return (g * xp.where(x > 0, _SELU_LAMBDA, y + _SELU_LAMBDA * _SELU_ALPHA),)
    if p.act_type == "gelu":
        # Phi(x) = y / x away from 0 (and 1/2 at 0): written from the output, so the rule
        # records with the registered operators only.
        safe = xp.where(x == 0, 1, x)
        phi = xp.where(x == 0, 0.5, y / safe)
        return (g * (phi + x * xp.exp(-0.5 * x * x) / _SQRT_2PI),)
    if p.act_type == "rrelu":
        return (g * ys[1],)
    gamma = xs[1]
    gx = g * xp.where(x > 0, 1, _prelu_gamma(x, gamma)).astype(g.dtype)
    gg = unbroadcast(g * xp.where(x > 0, 0, x), _prelu_gamma(x, gamma).shape)
    return gx, gg.reshape(gamma.shape)


def _leaky_shape(p, ins):
    if p.act_type != "prelu":
        ins, outs = same_shape("LeakyReLU")(p, ins)
        return ins, outs * (2 if p.act_type == "rrelu" else 1)
    d = ins[0]
    if d is None:
        return ins, [None]
    c = (d[1],) if len(d) > 1 else (d[0],)
    if ins[1] is not None:
        _prelu_gamma_shape(tuple(ins[1]), tuple(d))
    ins[1] = tuple(ins[1]) if ins[1] is not None else c
    return ins, [tuple(d)]


def _leaky_fast(p, rc, x, gamma=None):
    """The leaky form with a slope in (0, 1] on a numpy float array as ``max(slope*x, x)``:
    the same element chosen as ``where(x > 0, x, slope*x)`` (at 0, -0, inf and NaN too), in
    two vectorised passes instead of a mask, a product and a select (about 10x faster); gelu
    a block at a time (`gelu_fast`, the same numbers)."""
    if p.act_type == "leaky" and rc.xp is np and x.dtype.kind == "f":
        slope = x.dtype.type(p.slope)
        if 0 < slope <= 1:  # in the data's dtype: a slope that rounds to 0 makes inf*0 NaN
            y = x * slope
            return np.maximum(y, x, out=y)
    if p.act_type == "gelu" and gelu_fast.usable(rc.xp, x):
        return gelu_fast.forward(x)
    return _leaky_fwd(p, rc, x, gamma)


def _leaky_into(p, rc, outs, x, gamma=None):
    """`_leaky_fast` into `outs`; gelu in place (a fused product's epilogue passes its
    output block as both)."""
    if p.act_type == "gelu" and gelu_fast.usable(rc.xp, x, outs[0]):
        gelu_fast.forward(x, out=outs[0])
        return
    res = _leaky_fast(p, rc, x, gamma)
    for o, r in zip(outs, res if isinstance(res, tuple) else (res,)):
        rc.xp.copyto(o, r, casting="unsafe")


def _leaky_fast_vjp(p, rc, xs, ys, gys, need):
    if p.act_type == "gelu" and gelu_fast.usable(rc.xp, xs[0], ys[0], gys[0]):
        return (gelu_fast.backward(xs[0], ys[0], gys[0]),)
    return _leaky_vjp(p, rc, xs, ys, gys, need)


register("LeakyReLU", vjp=_leaky_vjp, shape=_leaky_shape, signature=("data", "gamma"),
         inputs=lambda p: ["data", "gamma"] if p.act_type == "prelu" else ["data"],
         outputs=lambda p: 2 if p.act_type == "rrelu" else 1, visible=1,
         random=True,
         attrs={"act_type": A.Enum("leaky", "elu", "prelu", "selu", "gelu", "rrelu",
                                   default="leaky"),
                "slope": A.Float(0.25), "lower_bound": A.Float(0.125),
                "upper_bound": A.Float(0.334)},
         fast=Fast(kernel=_leaky_fast, into=_leaky_into, vjp=_leaky_fast_vjp))(_leaky_fwd)


@register("clip", shape=same_shape("clip"), attrs={"a_min": A.Float(), "a_max": A.Float()},
          storage=sparse.CLIP,
          vjp=lambda p, rc, xs, ys, gys, need:
          (gys[0] * rc.xp.logical_and(xs[0] >= p.a_min, xs[0] <= p.a_max),))
def _clip(p, rc, x):
    """clip(data, a_min, a_max): x limited to [a_min, a_max]."""
    if x.dtype.kind in "iub":  # integers compared with the float bounds (which may lie
        xp = rc.xp             # outside the dtype's range), a bound taken is truncated
        y = xp.where(x < p.a_min, p.a_min, xp.where(x > p.a_max, p.a_max, x))
        return y.astype(x.dtype)
    return rc.xp.clip(x, x.dtype.type(p.a_min), x.dtype.type(p.a_max))


@register("Cast", aliases=("cast",), shape=same_shape("Cast"), attrs={"dtype": A.Dtype()},
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype)]),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0].astype(xs[0].dtype),))
def _cast(p, rc, x):
    """Cast(data, dtype): x converted to `dtype`."""
    return x.astype(p.dtype)


# ---- binary ----------------------------------------------------------------------------
# MXNet's kernels evaluate a rule on integer data as C code in the data's type, and the
# helpers below give those values: an integer quotient truncates towards zero, a float
# value converts by truncation, a power goes through single-precision `powf` (3 ** 19 is
# 1162261504 in int32 there) and a logarithm through double precision (its `math::` wrappers
# take integers to float for binary functions, to double for unary ones).
def _mod_grad(x, g, dg):
    """A gradient of mod: `dg()` (the head gradient g times the derivative) for floating
    data x, zeros for integers, as MXNet's kernels have it (its mod_grad, mod_rgrad and
    rmod_grad are 0 for every integer type: a remainder of integers has no slope)."""
    return g * 0 if _is_int(x) else dg()


def _is_int(x):
    """Whether x (an array, or an NDArray while a gradient is recorded) holds integers."""
    return np.dtype(x.dtype).kind in "iub"


def _as_c(xp, v, dtype):
    """Values `v` as C converts them to the integer `dtype`: floats truncated towards zero,
    out-of-range integers wrapped (-1 is 255 in uint8)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if v.dtype.kind == "f":
            return xp.trunc(v).astype(dtype)
        return v.astype(dtype)


def _c_div(xp, a, b):
    """a / b of integer arrays (or ints) as C divides them, in int64: the quotient
    truncated towards zero (numpy's // floors instead)."""
    a, b = xp.asarray(a, dtype=np.int64), xp.asarray(b, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = xp.trunc(xp.true_divide(a, b))
    return _as_c(xp, q, np.int64)


def _powf(xp, a, b):
    """a ** b of integer data in single precision, as MXNet's `math::pow` computes it (C's
    powf, correctly rounded: numpy's float32 power is an ulp off, 11 ** 7 is 19487170)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return xp.power(xp.asarray(a, dtype=np.float64),
                        xp.asarray(b, dtype=np.float64)).astype(np.float32)


def _log_double(xp, a):
    """log of integer data in double precision, as MXNet's unary `math::log` computes it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.log(xp.asarray(a, dtype=np.float64))


@functools.lru_cache(maxsize=None)
def _mxnet_mod(xp):
    """MXNet's remainder for array module `xp`, ``mod(a, b, out=None, **kw)``: numpy's
    (the result takes the divisor's sign) except where the divisor is 0, where MXNet's
    kernel returns 0 (numpy gives NaN for floats, and 0 already for integers)."""
    def mod(a, b, out=None, **kw):
        y = xp.mod(a, b, out=out, **kw)
        zero = b == 0   # a bool for a Python scalar divisor
        if isinstance(zero, bool):
            if zero:
                y[...] = 0
        elif xp is not np or zero.any():  # a device array is not tested on the host
            xp.copyto(y, 0, where=zero)
        return y
    return mod


@functools.lru_cache(maxsize=None)
def _mxnet_power(xp):
    """MXNet's power for array module `xp`, ``power(a, b, out=None, **kw)``: numpy's, except
    that numpy 2 takes a power by a single 0.5 as a square root, NaN at -inf, where C's pow
    (MXNet's kernel, and numpy's general loop) gives +inf."""
    if xp is not np:  # a device's pow is C's
        return xp.power

    def power(a, b, out=None, **kw):
        y = xp.power(a, b, out=out, **kw)
        if getattr(b, "size", 1) == 1 and b == 0.5:
            ninf = xp.asarray(a) == -np.inf   # a may be the scalar of (-inf) ** x
            if ninf.any():
                xp.copyto(y, np.inf, where=ninf)
        return y
    return power


# array functions whose name numpy has with another rule at the edges: what MXNet computes
_MXNET_FUNCTIONS = {"mod": _mxnet_mod, "power": _mxnet_power}


def _fast_ufunc(name):
    """What `Fast.ufunc` names for the array function `name`: the name itself, or where
    MXNet's rule differs at the edges (`_MXNET_FUNCTIONS`), ``xp -> mxnet_function``."""
    return name if name not in _MXNET_FUNCTIONS else (lambda xp: mxnet_function(xp, name))


def mxnet_function(xp, name):
    """The array function `name` of array module `xp` as MXNet's kernels compute it: xp's
    own, or where numpy's rule at the edges differs from MXNet's, a function with xp's
    signature that follows MXNet (``mod``: 0 where the divisor is 0; ``power``: +inf for
    -inf to the power 0.5).

    Args:
        xp: the array module (numpy, or CuPy).
        name: the array function's name ("mod", "power", "add", ...).

    Returns:
        A function ``f(a, b, out=None, **kw)``.

    Example::

        from gluonlite.ops.elementwise import mxnet_function
        mxnet_function(np, "mod")(np.array([5.0, 5.0]), np.array([3.0, 0.0]))  # [2., 0.]
    """
    special = _MXNET_FUNCTIONS.get(name)
    return special(xp) if special is not None else getattr(xp, name)


def _int_or(x, int_rule, float_rule):
    """A rule with MXNet's integer semantics: `int_rule()` for integer data x, else
    `float_rule()` (each a thunk)."""
    return int_rule() if _is_int(x) else float_rule()


def _div_grads():
    def ga(xp, a, b, y, g):  # g * (1 / b)
        return _int_or(a, lambda: g * _as_c(xp, _c_div(xp, 1, b), a.dtype), lambda: g / b)

    def gb(xp, a, b, y, g):  # g * (-a / b**2)
        def integer():
            a64, b64 = xp.asarray(a, dtype=np.int64), xp.asarray(b, dtype=np.int64)
            return g * _as_c(xp, _c_div(xp, -a64, b64 * b64), a.dtype)
        return _int_or(a, integer, lambda: -g * a / (b * b))
    return ga, gb


def _power_grads():
    def ga(xp, a, b, y, g):  # g * b * a ** (b - 1)
        return _int_or(a, lambda: g * _as_c(xp, xp.asarray(b, dtype=np.float32)
                                                * _powf(xp, a, b - 1), a.dtype),
                       lambda: g * b * a ** (b - 1))

    def gb(xp, a, b, y, g):  # g * a ** b * log(a)
        return _int_or(a, lambda: g * _as_c(xp, _powf(xp, a, b) * _log_double(xp, a), a.dtype),
                       lambda: g * y * xp.log(a))
    return ga, gb


def _int_power(xp, a, b):
    """power of integer data: `powf`, then converted as C converts (see `_powf`)."""
    return _as_c(xp, _powf(xp, a, b), a.dtype)


# Per kind: the array function, the gradients with respect to lhs and to rhs
# (f(xp, a, b, y, g), each computed only when its input needs it), and what they read.
_BINARY = {
    "add": ("add", lambda xp, a, b, y, g: g, lambda xp, a, b, y, g: g, ()),
    "sub": ("subtract", lambda xp, a, b, y, g: g, lambda xp, a, b, y, g: -g, ()),
    "mul": ("multiply", lambda xp, a, b, y, g: g * b, lambda xp, a, b, y, g: g * a,
            ("lhs", "rhs")),
    "div": ("divide", *_div_grads(), ("lhs", "rhs")),
    "mod": ("mod", lambda xp, a, b, y, g: _mod_grad(a, g, lambda: g),
            lambda xp, a, b, y, g: _mod_grad(a, g, lambda: -g * xp.floor(a / b)), None),
    "power": ("power", *_power_grads(), None),
    "maximum": ("maximum", lambda xp, a, b, y, g: g * (a >= b),
                lambda xp, a, b, y, g: g * (a < b), ("lhs", "rhs")),
    "minimum": ("minimum", lambda xp, a, b, y, g: g * (a <= b),
                lambda xp, a, b, y, g: g * (a > b), ("lhs", "rhs")),
    "hypot": ("hypot", lambda xp, a, b, y, g: g * a / y, lambda xp, a, b, y, g: g * b / y,
              None),
}
# kinds whose integer forward is not the array function's (numpy refuses negative integer
# exponents; MXNet gives powf's value truncated)
_INT_FORWARD = {"power": _int_power}

# Fast paths of the same-shape operators (no broadcast, so no reduction): inputs whose
# gradient is the output's gradient itself, and gradient rules that also write into out=.
_PASSES = {"add": (0, 1), "sub": (0,)}
# kinds whose rules are expressions of ufuncs (`Fast.elementwise`)
_FUSABLE = ("add", "sub", "mul", "div", "maximum", "minimum")
_GRADS_OUT = {"mul": (lambda xp, a, b, y, g, out=None: xp.multiply(g, b, out=out),
                      lambda xp, a, b, y, g, out=None: xp.multiply(g, a, out=out))}


def _binary(name, kind, shape_rule, aliases=()):
    fn, grad_a, grad_b, reads = _BINARY[kind]
    # Same-shape operators never broadcast: their gradients need no reduction.
    same = shape_rule is same_binary_shape

    int_forward = _INT_FORWARD.get(kind)

    def kernel(p, rc, a, b):
        if a.dtype == np.bool_:
            raise MXNetTypeError(f"Operator {name} does not support boolean type")
        if int_forward is not None and a.dtype.kind in "iu":
            return int_forward(rc.xp, a, b)
        return mxnet_function(rc.xp, fn)(a, b).astype(a.dtype, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        (a, b), xp, y, g = xs, rc.xp, ys[0], gys[0]
        ga = grad_a(xp, a, b, y, g) if need[0] else None
        gb = grad_b(xp, a, b, y, g) if need[1] else None
        if same:
            return ga, gb
        return (None if ga is None else unbroadcast(ga, a.shape),
                None if gb is None else unbroadcast(gb, b.shape))

    def into(p, rc, outs, a, b):
        if int_forward is not None and a.dtype.kind in "iu":
            outs[0][...] = int_forward(rc.xp, a, b)
        else:
            mxnet_function(rc.xp, fn)(a, b, out=outs[0], casting="unsafe")

    kernel.__doc__ = f"{name}(lhs, rhs): elementwise {fn}" + (
        " with broadcasting." if name.startswith("broadcast") else " of same-shape arrays.")
    grads_out = _GRADS_OUT.get(kind) if same else None
    # the elementwise form (a broadcast operator's where its operands have one shape)
    form = None if kind not in _FUSABLE else _form(
        lambda xp, p, a, b: getattr(xp, fn)(a, b),
        (lambda xp, p, xs, y, g: grad_a(xp, *xs, y, g),
         lambda xp, p, xs, y, g: grad_b(xp, *xs, y, g)))
    fast = Fast(into=into, saves=reads, ufunc=(_fast_ufunc(fn), {"casting": "unsafe"}),
                passes_grad=_PASSES.get(kind, ()) if same else (),
                grads=(grads_out or (grad_a, grad_b)) if same else None,
                grads_out=grads_out is not None, elementwise=form)
    storage = None
    if kind in ("add", "sub", "mul", "div"):
        storage = sparse.elemwise_rule(kind) if same else sparse.broadcast_rule(kind)
    elif kind in ("maximum", "minimum", "hypot") and same:
        storage = sparse.elemwise_rule(kind)  # MXNet 1.9.1 has their sparse kernels too
    register(name, inputs=("lhs", "rhs"), vjp=vjp, shape=shape_rule(name), dtype=keep_dtype,
             aliases=aliases, fast=fast, storage=storage)(kernel)


for _kind, _alias in [("add", ("broadcast_plus",)), ("sub", ("broadcast_minus",)), ("mul", ()),
                      ("div", ()), ("mod", ()), ("power", ()), ("maximum", ()), ("minimum", ()),
                      ("hypot", ())]:
    _binary(f"broadcast_{_kind}", _kind, broadcast_rule, _alias)
for _kind, _alias in [("add", ("_plus", "_add", "_Plus")), ("sub", ("_minus", "_sub")),
                      ("mul", ("_mul",)), ("div", ("_div",))]:
    _binary(f"elemwise_{_kind}", _kind, same_binary_shape, _alias)
for _kind in ("mod", "power", "maximum", "minimum", "hypot"):
    _binary(f"_{_kind}", _kind, same_binary_shape)

# ---- with a scalar -----------------------------------------------------------------------


def _int_scalar(s, dtype):
    """The scalar as MXNet's kernels see it with integer data: converted to the data's type
    like a C cast (truncated towards zero, then wrapped: 2.5 -> 2, 300 -> 44 for uint8)."""
    s = float(s)
    return np.array(int(s) if np.isfinite(s) else 0, dtype=np.int64).astype(dtype)


def _scalar_dtype(p, ins):
    """dtype rule of the scalar operators: the data's dtype; bool data gives int64, as MXNet
    1.9.1 computes bool with a scalar in int64."""
    d = ins[0]
    return ins, [None if d is None else (np.dtype(np.int64) if d == np.bool_ else d)]


def _scalar_op(name, fn, grad, saves=None, passes_grad=(), nondiff=False, via_powf=False,
               fusable=False):
    """x (op) scalar, from the array function `fn` (a name; "r" in front: the scalar comes
    first) and ``grad(xp, x, s, y, g) -> dx``; the result keeps x's dtype (int64 for bool).
    Integer data sees the scalar cast to its type (see `_int_scalar`), in the gradient too;
    `via_powf`: integer data computes in single precision and converts back as C does
    (powers: MXNet's `powf`, and numpy refuses negative integer exponents). `saves`,
    `passes_grad`: the gradient's fast paths (`Fast`); `fusable`: `fn` and `grad` are ufunc
    expressions (`Fast.elementwise`, float data)."""
    swap = fn.startswith("r")
    fn = fn[1:] if swap else fn

    def f(xp, x, s, out):
        g = mxnet_function(xp, fn)
        return g(s, x, out=out) if swap else g(x, s, out=out)

    def kernel(p, rc, x):
        if x.dtype == np.bool_:
            x = x.astype(np.int64)
        if x.dtype.kind == "f":
            return f(rc.xp, x, p.scalar, None).astype(x.dtype, copy=False)
        if via_powf:
            s = _int_scalar(p.scalar, x.dtype)
            return _as_c(rc.xp, _powf(rc.xp, s, x) if swap else _powf(rc.xp, x, s), x.dtype)
        return f(rc.xp, x, _int_scalar(p.scalar, x.dtype), None).astype(x.dtype, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        s = _int_scalar(p.scalar, gys[0].dtype) if _is_int(x) else p.scalar
        return (grad(rc.xp, x, s, ys[0], gys[0]).astype(x.dtype, copy=False),)

    def into(p, rc, outs, x):  # float data in place
        outs[0][...] = kernel(p, rc, x) if x.dtype.kind != "f" else f(rc.xp, x, p.scalar,
                                                                       outs[0])

    kernel.__doc__ = f"{name}(data, scalar): elementwise with a Python scalar."
    # what a compiled plan calls for float data
    form = None if not fusable else _form(
        (lambda xp, p, x: getattr(xp, fn)(p.scalar, x)) if swap else
        (lambda xp, p, x: getattr(xp, fn)(x, p.scalar)),
        (lambda xp, p, xs, y, g: grad(xp, xs[0], p.scalar, y, g),))
    fast = Fast(into=into, saves=saves, passes_grad=passes_grad,
                ufunc=(_fast_ufunc(fn), {}, "left" if swap else "right"), elementwise=form)
    kind = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div"}.get(fn)
    register(name, attrs={"scalar": A.Float(), "is_int": A.Bool(True)},
             shape=same_shape(name), vjp=None if nondiff else vjp, dtype=_scalar_dtype,
             nondiff=("data",) if nondiff else (), fast=fast,
             storage=None if kind is None else sparse.scalar_rule(kind, swap))(kernel)


# name, array function, gradient, what the gradient reads, inputs it passes unchanged
_scalar_op("_plus_scalar", "add", lambda xp, x, s, y, g: g, (), (0,), fusable=True)
_scalar_op("_minus_scalar", "subtract", lambda xp, x, s, y, g: g, (), (0,), fusable=True)
_scalar_op("_rminus_scalar", "rsubtract", lambda xp, x, s, y, g: -g, (), fusable=True)
_scalar_op("_mul_scalar", "multiply", lambda xp, x, s, y, g: g * s, (), fusable=True)
_scalar_op("_div_scalar", "divide", lambda xp, x, s, y, g: g / s, (), fusable=True)
_scalar_op("_rdiv_scalar", "rdivide", lambda xp, x, s, y, g: _int_or(
    x, lambda: g * _as_c(xp, _c_div(xp, -int(s), xp.asarray(x, dtype=np.int64) ** 2), x.dtype),
    lambda: -g * y / x), ("data", "outputs"), fusable=True)
_scalar_op("_mod_scalar", "mod", lambda xp, x, s, y, g: _mod_grad(x, g, lambda: g), ("data",))
_scalar_op("_rmod_scalar", "rmod",
           lambda xp, x, s, y, g: _mod_grad(x, g, lambda: -g * xp.floor(s / x)), ("data",))
_scalar_op("_power_scalar", "power", lambda xp, x, s, y, g: _int_or(
    x, lambda: g * _as_c(xp, np.float32(s) * _powf(xp, x, int(s) - 1), x.dtype),
    lambda: g * s * x ** (s - 1)), ("data",), via_powf=True)
_scalar_op("_rpower_scalar", "rpower", lambda xp, x, s, y, g: _int_or(
    y, lambda: g * _as_c(xp, xp.asarray(y, dtype=np.float32) * _log_double(xp, s),
                           y.dtype),
    lambda: g * y * np.log(s)), ("outputs",), via_powf=True)
_scalar_op("_maximum_scalar", "maximum", lambda xp, x, s, y, g: g * (x >= s), ("data",))
_scalar_op("_minimum_scalar", "minimum", lambda xp, x, s, y, g: g * (x <= s), ("data",))
_scalar_op("_hypot_scalar", "hypot", lambda xp, x, s, y, g: g * x / y, ("data", "outputs"))


def _where_shape(p, ins):
    c, x, y = ins
    if c is None:
        # as in MXNet, nothing is inferred before the condition's shape is known
        return ins, [None]
    known = [s for s in (x, y) if s is not None]
    if len(known) == 2 and tuple(x) != tuple(y):
        raise ShapeError(f"where: x and y must have the same shape, got {tuple(x)} and {tuple(y)}")
    if not known:
        return ins, [None]
    s = tuple(known[0])
    if c is not None and tuple(c) != s and not (len(c) == 1 and c[0] == s[0]):
        raise ShapeError(f"where: condition must have the shape of x {s} or be 1-D of length "
                         f"{s[0]}, got {tuple(c)}")
    return [c if c is not None else s, s, s], [s]



def _where_cond(c, x):
    """The condition as a mask broadcastable to x (a 1-D condition selects rows)."""
    mask = c != 0
    return mask.reshape(mask.shape + (1,) * (x.ndim - 1)) if mask.shape != x.shape else mask


@register("where", inputs=("condition", "x", "y"), nondiff=("condition",),
          dtype=lambda p, ins: (ins, [ins[1] if ins[1] is not None else ins[2]]),
          # a partly known condition counts as unknown (MXNet); x and y have the output's shape
          shape=ShapeRule(_where_shape, whole_inputs=(0,), output_shape_inputs=(1, 2)),
          vjp=lambda p, rc, xs, ys, gys, need: (
              None, gys[0] * _where_cond(xs[0], xs[1]),
              gys[0] * rc.xp.logical_not(_where_cond(xs[0], xs[1]))))
def _where(p, rc, c, x, y):
    """where(condition, x, y): x where condition is non-zero, else y. condition has x's shape
    or is 1-D with one entry per row of x."""
    return rc.xp.where(_where_cond(c, x), x, y)


@register("add_n", aliases=("ElementWiseSum",), variadic="num_args",
          attrs={"num_args": A.Int()}, storage=sparse.ADD_N,
          shape=lambda p, ins: same_shape("add_n")(p, ins),
          vjp=lambda p, rc, xs, ys, gys, need: tuple(gys[0] for _ in xs))
def _add_n(p, rc, *xs):
    """add_n(*args): the elementwise sum of same-shape arrays."""
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return out
