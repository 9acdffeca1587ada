"""float32 ``expf`` and ``logf`` as the process's C library computes them, for kernels whose
MXNet counterpart calls them: MXNet's CPU `exp` and `log` of float32 (and float16) data,
libstdc++'s float normal distribution (MXNet's normal sampler takes ``logf`` of each point
it keeps), and mshadow's softmax (SoftmaxOutput in training: ``expf`` of each entry).

numpy's float32 exp and log are its own vectorized code. The correctly rounded value (the
float64 function rounded to float32) is what glibc's ``expf`` and ``logf`` return on nearly
every input, not all: ``logf`` differs on 1 positive float32 in about 5000 (1 in 140 of
uniform draws from (0, 1)), ``expf`` on 1 in 13000 of [-89, 89]. Where they differ, the
float64 value lies close to the midpoint between two float32 values. So every entry is
computed in float64, and the C library is asked (through ctypes, a call an entry) for the
entries whose float64 value lies within `MARGINS` of a midpoint: per binade of the result,
the farthest from a midpoint that the two differ, measured over every float32 input of
their domains by ``compat/libm_margins.py`` (glibc 2.36 on x86-64; the two functions'
code is the same since glibc 2.28). Results that are powers of two or subnormal are always
asked for.

Where the C library is not glibc (or none is found), the correctly rounded value is
returned (`has_c_library`).

Example::

    from gluonlite.ops import libm32
    libm32.logf(np.array([0.5, 0.25], np.float32))   # array([-0.6931472, -1.3862944], ...)
"""
import ctypes
import math
import os

import numpy as np

__all__ = ["expf", "logf", "like_mxnet", "has_c_library", "MARGINS", "RESULT_BINADES"]

# the binades (floor(log2 |v|)) of the measured results: logf over every positive finite
# float32, expf over [-89, 89] (below, its results are subnormal or 0; above 88.73, inf)
RESULT_BINADES = {"logf": (-24, 6), "expf": (-149, 127)}

# {(function, sign of the result): {binade of the result: the farthest from a float32
# midpoint, in units in the last place, that the C library's value differs from the
# correctly rounded one}}, rounded up in the sixth digit; a binade of RESULT_BINADES left
# out never differs. logf differs on 214 946 of the 1 065 353 216 inputs in (0, 1] and on
# 201 963 of the 1 073 741 823 above 1; expf on 170 635 of 2 237 923 329, in every binade
# from -129 to 127, by at most 0.00163688 units (compat/libm_margins.py lists each).
MARGINS = {
    ("logf", -1): {-23: 3.91156e-08, -21: 2.14577e-06, -13: 0.000470138, -11: 0.00152384,
                   -10: 0.00118553, -9: 0.0139887, -8: 0.0856466, -7: 0.287241,
                   -6: 0.201161, -5: 0.0844569, -4: 0.0445148, -3: 0.0244891,
                   -2: 0.0127161, -1: 0.0372467, 0: 0.019881, 1: 0.00971117,
                   2: 0.00488332, 3: 0.00241775, 4: 0.00121916, 5: 0.000608571,
                   6: 0.000287381},
    ("logf", 1): {-12: 0.000962012, -11: 0.00344817, -10: 0.0127302, -9: 0.0457985,
                  -8: 0.138759, -7: 0.31698, -6: 0.317664, -5: 0.10147,
                  -4: 0.317308, -3: 0.0656649, -2: 0.0126305, -1: 0.0379284,
                  0: 0.0193863, 1: 0.00965879, 2: 0.00479929, 3: 0.00245127,
                  4: 0.00124212, 5: 0.000610598, 6: 0.000298387},
    ("expf", 1): {b: 0.00163689 for b in range(-129, 128)},
}


def _library_functions():
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""   # "glibc 2.36"; not elsewhere
    except (AttributeError, ValueError, OSError):
        libc = ""
    if not libc.startswith("glibc"):
        return {}
    try:
        # glibc's soname; ctypes.util.find_library would run ldconfig (milliseconds)
        libm = ctypes.CDLL("libm.so.6")
    except OSError:
        return {}
    found = {}
    for name in ("expf", "logf"):
        f = getattr(libm, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        found[name] = f
    return found


_LIBM = _library_functions()


def has_c_library(name):
    """Whether `name` ('expf' or 'logf') is the C library's here (glibc found), rather than
    the correctly rounded value.

    Example::

        from gluonlite.ops import libm32
        libm32.has_c_library("logf")   # True on Linux with glibc
    """
    return name in _LIBM


def _thresholds(name):
    """By the result's sign and biased float32 exponent (its bits >> 23, 0..511): how far
    from the float32 it rounds to a float64 value must lie to be asked of the C library,
    (1/2 - margin) units in the last place of that binade; inf (never ask) in a binade
    where the two never differ, for inf and NaN and for a sign the function never gives,
    0 (always ask) for subnormal results."""
    table = [math.inf] * 512
    lo, hi = RESULT_BINADES[name]
    for sign, top in ((1, 0), (-1, 256)):
        if (name, sign) not in MARGINS:
            continue
        table[top] = 0.0
        for binade in range(max(lo, -126), min(hi, 127) + 1):
            margin = MARGINS[name, sign].get(binade)
            if margin is not None:
                table[top + binade + 127] = (0.5 - margin) * 2.0 ** (binade - 23)
    return np.array(table)


_THRESHOLDS = {name: _thresholds(name) for name in RESULT_BINADES}
_SMALLEST_HALF = 2.0 ** -150   # halfway between 0 and the smallest subnormal float32
_ASK_ALL = 16   # up to so many entries, asking each of the C library costs less than sifting
_U1, _U9, _U23, _U255 = (np.uint32(k) for k in (1, 9, 23, 255))   # no promotion per call


def _like_libm(name, x, exact):
    x = np.asarray(x, dtype=np.float32)
    v = exact(x.astype(np.float64))
    out = v.astype(np.float32)
    f = _LIBM.get(name)
    if f is None or out.size == 0:
        return out
    flat, vf, xf = out.reshape(-1), v.reshape(-1), x.reshape(-1)
    if flat.size <= _ASK_ALL:
        flat[:] = np.fromiter(map(f, xf.tolist()), np.float32, flat.size)
        return out
    bits = flat.view(np.uint32)
    top = bits >> _U23
    # near a float32 midpoint: |v - out| close to half an ulp of out's binade (a subnormal
    # result's threshold is 0: always asked)
    ask = np.abs(vf - flat) >= _THRESHOLDS[name][top]
    mantissa = bits << _U9
    if not mantissa.all():
        # an exact power of two has half that ulp below it: asked for, as a zero is near
        # half the smallest subnormal (inf has no mantissa either, and is never asked for)
        ask |= (mantissa == 0) & ((top & _U255) != _U255)
        zero = (bits << _U1) == 0
        ask[zero] = np.abs(vf[zero]) >= _SMALLEST_HALF / 2
    at = np.flatnonzero(ask)
    if at.size:
        flat[at] = np.fromiter(map(f, xf[at].tolist()), np.float32, at.size)
    return out


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
    return _like_libm("logf", x, np.log)


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
    return _like_libm("expf", x, np.exp)
