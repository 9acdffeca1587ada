"""float32 ``expf`` and ``logf`` as the process's C library computes them, for kernels whose
MXNet counterpart calls them: MXNet's CPU `exp` and `log` of float32 (and float16) data,
libstdc++'s float normal distribution (MXNet's normal sampler takes ``logf`` of each point
it keeps), and mshadow's softmax (SoftmaxOutput in training: ``expf`` of each entry).

numpy's float32 exp and log are its own vectorized code, and the correctly rounded value
(the float64 function rounded to float32) is not glibc's everywhere either: ``logf``
differs from it on 1 positive float32 in about 5000 (1 in 140 of uniform draws from
(0, 1)), ``expf`` on 1 in 13000 of [-89, 89].

glibc's two functions (the same code since glibc 2.28) evaluate a small table and a
polynomial in float64 and round that float64 value to float32 once. This module does the
same arithmetic in numpy, step for step:

- ``logf``: x = 2^k z with z near one of 16 table points c; log(x) = k ln2 + log(c) +
  log1p(z/c - 1), the last by a degree-4 polynomial (`_LOGF_TABLE`, `_LOGF_POLY`);
- ``expf``: x 32/ln2 = n + r, n rounded to an integer; exp(x) = 2^(n/32) 2^(r/32), the
  first from a table of 2^(j/32) (`_exp2_table`) and the exponent, the second by a cubic.

glibc built for a processor with fused multiply-adds (as x86-64's is chosen at run time)
rounds some of those steps once where numpy rounds twice, so the float64 values can differ
in their last bits; the float32 result differs only where the float64 value lies that
close to the midpoint between two float32 values. Those entries, within `ASK_UNITS`
float64 units of a midpoint (about one in a million), are asked of the C library itself
through ctypes. ``compat/libm_check.py`` checks this against the C library on every float32
input: the arithmetic's float32 value is glibc 2.36's on all 2 139 095 039 positive finite
inputs of logf, and on all but 2 of the 2 239 863 195 inputs of expf in [-104, 88.8], both
12 units from a midpoint; with the asked entries, every one is glibc's.

``expf`` first takes the correctly rounded value, which is glibc's except within
`EXPF_MARGIN` of a midpoint (measured by ``compat/libm_check.py`` over [-89, 89]), and
does glibc's arithmetic only for the entries that close (about one in 300) and for
subnormal results; when there are few of them, it asks the C library for each instead. A
call of `ASK_ALL` entries or fewer asks the C library for every entry.

Where the C library is not glibc 2.28 or later, or its values fail a check against this
arithmetic on first use, the correctly rounded value is returned (`has_c_library`).

Example::

    from gluonlite.ops import libm32
    libm32.logf(np.array([0.5, 0.25], np.float32))   # array([-0.6931472, -1.3862944], ...)
"""
import ctypes
import functools
import os
from decimal import Decimal, localcontext

import numpy as np

__all__ = ["expf", "logf", "like_mxnet", "has_c_library", "ASK_UNITS", "EXPF_MARGIN", "ASK_ALL"]

_h = float.fromhex


def _f64(*values):
    # constants as 0-d arrays: numpy converts a Python scalar operand on every call, about
    # half a microsecond each, which is most of a call's time on arrays of a few hundred
    return tuple(np.array(v, np.float64) for v in values)


def _u32(*values):
    return tuple(np.array(v, np.uint32) for v in values)


# glibc's logf data: 16 points c spaced over [0x3f330000, 2 * that) as float32 bit patterns,
# each as (1/c, log(c)) rounded to float64, and log1p's polynomial A0 r^4 + A1 r^3 + A2 r^2
_LOGF_TABLE = np.array([[_h(invc), _h(logc)] for invc, logc in [
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"),
    ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"),
    ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"),
    ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"),
    ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"),
    ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"),
    ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"),
    ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"),
    ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"),
]])
_LOGF_INVC, _LOGF_LOGC = np.ascontiguousarray(_LOGF_TABLE.T)
_LOGF_POLY = _f64(_h("-0x1.00ea348b88334p-2"), _h("0x1.5575b0be00b6ap-2"),
                  _h("-0x1.ffffef20a4123p-2"))
_LN2, _ONE = _f64(_h("0x1.62e42fefa39efp-1"), 1.0)
# z's range starts at _LOGF_OFF (about 0.7); the bits of normal finite positive inputs lie
# _NORMAL_SPAN from the smallest; the table index is the 4 bits below the exponent
_LOGF_OFF, _SMALLEST_NORMAL, _NORMAL_SPAN, _INDEX_SHIFT, _INDEX_MASK, _EXPONENT_FIELD = _u32(
    0x3f330000, 0x00800000, 0x7f800000 - 0x00800000, 23 - 4, 15, 0x1ff << 23)
_EXPONENT_SHIFT = np.array(23, np.int32)

# glibc's expf data: 32 steps a power of two, the shift that rounds to an integer in float64
# addition, and 2^(r/32)'s cubic with the 1/32 folded into its coefficients
_EXP_STEPS = 32
_EXP_INV_LN2_N, _EXP_SHIFT = _f64(_h("0x1.71547652b82fep+0") * _EXP_STEPS, _h("0x1.8p+52"))
_EXP_POLY = _f64(_h("0x1.c6af84b912394p-5") / _EXP_STEPS ** 3,
                 _h("0x1.ebfce50fac4f3p-3") / _EXP_STEPS ** 2,
                 _h("0x1.62e42ff0c52d6p-1") / _EXP_STEPS)
# beyond these expf's result is 0 or inf; clipping keeps the integer parts small
_EXP_LO, _EXP_HI = -104.0, 89.0
_EXP_SUBNORMAL_BELOW = np.float32(-87.33)   # exp(x) < 2^-126, a subnormal float32, below

# float64 units from a float32 midpoint within which the C library is asked: twenty times
# the farthest that fused multiply-adds moved a float32 result (12 units)
ASK_UNITS = 256
# the farthest from a float32 midpoint, in units in the last place, that glibc's expf and
# the correctly rounded value differ (170 588 inputs with normal results, every binade alike)
EXPF_MARGIN = 0.00163689
ASK_ALL = 16   # up to so many entries, asking each of the C library costs less than the sift
# a call of glibc's arithmetic costs about as much as asking the C library for so many entries
_ASK_BELOW_EMULATING = 64
_BLOCK = 1 << 15

_F32_DROPPED = 29   # float64 mantissa bits below float32's
_LOW = np.array((1 << _F32_DROPPED) - 1, np.int64)
_HALF = 1 << (_F32_DROPPED - 1)   # the dropped bits of a midpoint
_EXPF_UNITS = int(EXPF_MARGIN * (1 << _F32_DROPPED)) + 1


@functools.cache
def _exp2_table():
    """2^(j/32) for j in 0..31, rounded to float64 (from 60 decimal digits)."""
    with localcontext() as ctx:
        ctx.prec = 60
        return np.array([float(Decimal(2) ** (Decimal(j) / _EXP_STEPS)) for j in range(_EXP_STEPS)])


def _glibc_logf(x):
    """The float64 value glibc's logf rounds to float32, for float32 array `x`."""
    ix = x.view(np.uint32)
    special = (ix - _SMALLEST_NORMAL) >= _NORMAL_SPAN
    any_special = special.any()
    if any_special:
        # zero, subnormal, negative, inf and NaN inputs: subnormals are scaled up by 2^23
        # into the normal range (their exponent taken back below); the rest set at the end
        ix = ix.copy()
        sub = special & (ix > 0) & (ix < _SMALLEST_NORMAL)
        ix[sub] = (x[sub] * np.float32(2.0 ** 23)).view(np.uint32) - np.uint32(23 << 23)
    tmp = ix - _LOGF_OFF
    i = ((tmp >> _INDEX_SHIFT) & _INDEX_MASK).astype(np.intp)   # intp: a fast gather
    k = tmp.view(np.int32) >> _EXPONENT_SHIFT   # arithmetic shift: a negative exponent stays
    z = (ix - (tmp & _EXPONENT_FIELD)).view(np.float32).astype(np.float64)
    r = z * _LOGF_INVC[i] - _ONE
    y0 = _LOGF_LOGC[i] + k * _LN2
    a0, a1, a2 = _LOGF_POLY
    r2 = r * r
    y = a1 * r + a2
    y = a0 * r2 + y
    y = y * r2 + (y0 + r)
    if any_special:
        with np.errstate(divide="ignore", invalid="ignore"):
            y[special & ~sub] = np.log(x[special & ~sub].astype(np.float64))
    return y


def _glibc_expf(x):
    """The float64 value glibc's expf rounds to float32, for float32 array `x` (NaN, and
    inputs beyond the float32 range of results, give NaN, inf or 0 as glibc's do)."""
    xd = np.clip(x.astype(np.float64), _EXP_LO, _EXP_HI)
    z = _EXP_INV_LN2_N * xd
    kd = z + _EXP_SHIFT   # rounds z to an integer, ties to even
    kd -= _EXP_SHIFT
    r = z - kd
    with np.errstate(invalid="ignore"):
        n = kd.astype(np.int64)   # a NaN's is garbage, and its y NaN whatever the scale
    scale = np.ldexp(_exp2_table()[n & 31], (n >> 5).astype(np.int32))
    c0, c1, c2 = _EXP_POLY
    p = c0 * r + c1
    y = c2 * r + _ONE
    y = p * (r * r) + y
    return y * scale


def _near_midpoint(y, units):
    """Where float64 `y` lies within `units` float64 units of a midpoint between two
    float32 values (its dropped mantissa bits within `units` of 1000...0), for results in
    float32's normal range."""
    below, width = _band(units)
    low = y.view(np.int64) - below
    low &= _LOW
    return low <= width


@functools.cache
def _band(units):
    return np.array(_HALF - units, np.int64), np.array(2 * units, np.int64)


def _near_subnormal_midpoint(y, units):
    """`_near_midpoint` for results below float32's normal range (grid 2^-149)."""
    m = y * 2.0 ** 149
    return np.abs(m - np.floor(m) - 0.5) <= m * (units * 2.0 ** -52)


def _library_functions():
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""   # "glibc 2.36"; not elsewhere
    except (AttributeError, ValueError, OSError):
        libc = ""
    name, _, version = libc.partition(" ")
    try:
        major_minor = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return {}
    if name != "glibc" or major_minor < (2, 28):   # older logf is other arithmetic
        return {}
    try:
        # glibc's soname; ctypes.util.find_library would run ldconfig (milliseconds)
        libm = ctypes.CDLL("libm.so.6")
    except OSError:
        return {}
    found = {}
    for fname in ("expf", "logf"):
        f = getattr(libm, fname)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        found[fname] = f
    return found


_LIBM = _library_functions()

# inputs on which glibc's logf and expf differ from the correctly rounded value (and some
# that do not), to check on first use that the C library is the arithmetic written here
_PROBES = {"logf": np.array([0x688440cc, 0x3f6b9af4, 0x3e0afeec, 0x3f92de1c, 0x00000001,
                             0x3f800001, 0x7f7fffff, 0x3dcccccd], np.uint32).view(np.float32),
           "expf": np.array([0x3df9d2bd, 0x3bf668ba, 0xbc75826e, 0xc1496e47, 0x42b17217,
                             0xbf000000, 0xc2ce0000, 0x41200000], np.uint32).view(np.float32)}


@functools.cache
def _checked(name):
    """The C library's `name`, once its values on `_PROBES` are this module's arithmetic's."""
    f = _LIBM.get(name)
    if f is None:
        return None
    x = _PROBES[name]
    y = (_glibc_logf if name == "logf" else _glibc_expf)(x).astype(np.float32)
    libm = np.fromiter(map(f, x.tolist()), np.float32, x.size)
    return f if np.array_equal(libm.view(np.uint32), y.view(np.uint32)) else None


def has_c_library(name):
    """Whether `name` ('expf' or 'logf') gives the C library's values here (glibc 2.28 or
    later found, and its arithmetic this module's), rather than the correctly rounded value.

    Args:
        name: 'expf' or 'logf'.

    Returns:
        bool.

    Example::

        from gluonlite.ops import libm32
        libm32.has_c_library("logf")   # True on Linux with glibc
    """
    return _checked(name) is not None


def _ask(f, out, x, at):
    if at.size:
        out[at] = np.fromiter(map(f, x[at].tolist()), np.float32, at.size)


def _logf_flat(f, x):
    out = np.empty(x.shape, np.float32)
    # blocks keep the float64 temporaries in cache (a whole million-entry array: 1.5x longer)
    for start in range(0, x.size, _BLOCK):
        xb = x[start:start + _BLOCK]
        y = _glibc_logf(xb)
        out[start:start + _BLOCK] = y
        _ask(f, out, x, start + np.flatnonzero(_near_midpoint(y, ASK_UNITS)))
    return out


def _expf_flat(f, x):
    with np.errstate(over="ignore"):
        v = np.exp(x.astype(np.float64))
        out = v.astype(np.float32)
    sift = _near_midpoint(v, _EXPF_UNITS)
    if not x.min() >= _EXP_SUBNORMAL_BELOW:   # a NaN's min, too
        sift |= x < _EXP_SUBNORMAL_BELOW
    at = np.flatnonzero(sift)
    if at.size <= _ASK_BELOW_EMULATING:
        _ask(f, out, x, at)
        return out
    xa = x[at]
    with np.errstate(over="ignore", under="ignore"):
        y = _glibc_expf(xa)
        out[at] = y.astype(np.float32)
    sub = xa < _EXP_SUBNORMAL_BELOW
    near = _near_midpoint(y, ASK_UNITS)
    near[sub] = _near_subnormal_midpoint(y[sub], ASK_UNITS)
    _ask(f, out, x, at[near])
    return out


def _like_libm(name, x, flat_kernel, exact):
    x = np.asarray(x, dtype=np.float32)
    f = _checked(name)
    if f is None or x.size == 0:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return exact(x.astype(np.float64)).astype(np.float32)
    xf = x.reshape(-1)
    if xf.size <= ASK_ALL:
        out = np.fromiter(map(f, xf.tolist()), np.float32, xf.size)
    else:
        out = flat_kernel(f, xf)
    return out.reshape(x.shape)


def like_mxnet(name, xp, x):
    """MXNet's CPU `exp` or `log` (`name`) of `x` on array module `xp`: numpy float32 and
    float16 data take the C library's ``expf`` / ``logf`` (float16 by way of float32, back
    to float16), as MXNet's kernels do; anything else `xp`'s own function.

    Args:
        name: 'exp' or 'log'.
        xp: the array module of the call (numpy, or a GPU one).
        x: an array of that module.

    Returns:
        array: of x's shape and dtype.

    Example::

        from gluonlite.ops import libm32
        libm32.like_mxnet("exp", np, np.array([1.0], np.float16))   # array([2.719], ...)
    """
    if xp is np and x.dtype in (np.float32, np.float16):
        return (expf if name == "exp" else logf)(x).astype(x.dtype, copy=False)
    return getattr(xp, name)(x)


def logf(x):
    """The C library's ``logf`` of each float32 entry (glibc's, to the bit; see the module).

    Args:
        x: float32 array (or anything numpy makes one of).

    Returns:
        array: float32, of x's shape.

    Example::

        from gluonlite.ops import libm32
        libm32.logf(np.array([1.0, 0.1], np.float32))   # array([ 0.       , -2.3025851], ...)
    """
    return _like_libm("logf", x, _logf_flat, np.log)


def expf(x):
    """The C library's ``expf`` of each float32 entry (glibc's, to the bit; see the module).

    Args:
        x: float32 array (or anything numpy makes one of).

    Returns:
        array: float32, of x's shape.

    Example::

        from gluonlite.ops import libm32
        libm32.expf(np.array([0.0, -1.0], np.float32))   # array([1.        , 0.36787945], ...)
    """
    return _like_libm("expf", x, _expf_flat, np.exp)
