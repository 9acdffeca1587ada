"""softmax and log_softmax as MXNet 1.9.1's CPU build computes them: through oneDNN 2.4's
AVX-512 kernel, to the last bit.

MXNet hands a float32 softmax or log_softmax over the last axis of a 1- to 4-axis array (no
temperature, no length) to oneDNN, and so does SoftmaxOutput in inference. That kernel does
not compute the correctly rounded exp, divide and log: its numbers differ from numpy's in
the last bit on most entries (a quarter to two thirds of them equal on rows of 2 to 1000; a
tenth of log_softmax's). gluonlite's softmax and log_softmax take its arithmetic for calls
of up to `EXACT_ENTRIES` entries (`applies` says why not beyond). These are its steps:

- **exp** (`exp`): ``x = 2^n * e^r`` with ``n = floor(x * log2(e) + 1/2)`` in float32 and
  ``r = x - n * ln 2`` in one fused multiply-add, then ``e^r`` by a degree-5 polynomial
  in fused multiply-adds, then ``* 2^(n-1) * 2``. Below ``log(FLT_MIN)`` the result is 0,
  and so is every result whose ``n - 1`` is -127 (the power's bits come out as zero).
- **row sums** (`row_sums`): sixteen lanes, lane ``j`` adding entries ``j, j + 16, ...`` in
  order, then the lanes folded in halves (``j`` with ``j + 8``, then ``j + 4``, ``+2``, ``+1``).
- **normalization**: each entry times ``1 / sum``, the reciprocal rounded first.
- **gradient** (`softmax_grad`): ``y * (g - s)`` with ``s`` the lane-ordered sum of ``g * y``.
- **log_softmax** (`log_softmax`): ``(x - max) - log(sum)``, the sum of the same exp in
  the same order, its log oneDNN's (`log`): ``x = 2^e m``, ``r`` a multiple of 1/32 near
  ``1/m`` from a table indexed by m's top five mantissa bits, ``log(x) = e ln2 - log(r) +
  log1p(m r - 1)``, log1p by a degree-5 polynomial in fused multiply-adds, and the two
  parts added with one correction; its gradient (`log_softmax_grad`) ``g - exp(y) * s``
  in one fused multiply-add, ``s`` the lane-ordered sum of ``g``.

A float32 fused multiply-add is computed in float64 (`fma32`): the product of two float32
values is exact there, and so is the sum in this polynomial except when its argument is
small (below 1/16). Only there can rounding twice (to float64, then to float32) differ from
rounding once, when the float64 sum falls exactly halfway between two float32 values; those
entries are found and rounded by the exact residual of the sum.

The numbers here are MXNet's on a CPU with AVX-512 (oneDNN picks its widest kernel). On an
AVX2-only CPU MXNet's kernel has eight lanes, so its sums of rows longer than eight entries
are added in another order.

Example::

    from gluonlite.ops import onednn_softmax
    onednn_softmax.softmax(np.array([[1.0, 2.0, 3.0]], np.float32))
    # array([[0.09003057, 0.24472848, 0.6652409 ]], dtype=float32)
"""
import math

import numpy as np

__all__ = ["applies", "exp", "log", "fma32", "row_sums", "softmax", "softmax_grad",
           "log_softmax", "log_softmax_grad", "LANES", "BLOCK", "ENABLED", "EXACT_ENTRIES"]

ENABLED = True        # False: numpy's exp and division (benchmarks switch it to measure)
EXACT_ENTRIES = 1 << 16  # the largest softmax (entries) `applies` to; None: no limit
LANES = 16            # float32 lanes of an AVX-512 register: the row sums' order
BLOCK = 1 << 15       # entries a block of rows holds (its float64 scratch stays in L2)


def applies(size):
    """Whether a softmax of `size` entries (a call's whole array) takes oneDNN's arithmetic.

    oneDNN's exp costs about 8 ns an entry here against numpy's 0.5, and its softmax 5 to 6
    times numpy's. On a classifier's outputs that is nothing; on a transformer's attention
    scores, whose inputs come from products that already differ from MXNet's in their last
    bits, it would add a tenth to an inference for no equal number. So a softmax of more
    than `EXACT_ENTRIES` entries keeps numpy's exp and division: within 1.5e-6 of MXNet's,
    relatively (oneDNN's exp is up to 5 units in the last place off far below 0, and 0
    below about e^-87, where numpy's is not).

    Args:
        size: the number of entries of the softmax's data.

    Returns:
        bool.

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.applies(32 * 1000), onednn_softmax.applies(12 * 128 * 128)
        # (True, False)
    """
    return ENABLED and (EXACT_ENTRIES is None or size <= EXACT_ENTRIES)


def _f32(bits):
    return np.array(bits, np.uint32).view(np.float32)[()]


# oneDNN 2.4's exp constants, as float32 bit patterns: log2(e), ln 2, the clamps
# log(FLT_MAX) and log(FLT_MIN), and the polynomial's coefficients of r^1 .. r^5 (r^0's is 1)
_LOG2E, _LN2 = _f32(0x3fb8aa3b), _f32(0x3f317218)
_HI, _LO = _f32(0x42b17218), _f32(0xc2aeac50)
_POLY = tuple(_f32(b) for b in (0x3f7ffffb, 0x3efffee3, 0x3e2aad40, 0x3d2b9d0d, 0x3c07cfce))
# oneDNN 2.4's log constants: r, a multiple of 1/32 near 1/m picked by m's top five mantissa
# bits (as r * 32), -log(r) with the exponent's bias folded in (rounded to float32), and
# log1p's polynomial coefficients of z^2 .. z^5 (z's is 1)
_LOG_R32 = (32, 31, 30, 29, 28, 27, 27, 26, 25, 25, 24, 24, 23, 23, 22, 22,
            42, 42, 40, 40, 40, 38, 38, 36, 36, 36, 36, 34, 34, 34, 32, 32)
_LOG_R = (np.array(_LOG_R32, np.float64) / 32).astype(np.float32)
_LOG_OFFSET = np.array([-math.log(k / 32) - 127 * math.log(2) for k in _LOG_R32]).astype(
    np.float32)
_LOG_POLY = tuple(_f32(b) for b in (0xbf000000, 0x3eaaaaab, 0xbe8004ab, 0x3e4cc8a3))
_SMALL_R = 0.0625   # below it a multiply-add's float64 sum can be inexact (module docstring)
_BELOW_F32 = np.uint64((1 << 29) - 1)   # a float64's bits that a float32 rounds away
_HALFWAY = np.uint64(1 << 28)           # ... when it lies halfway between two float32


def _halfway(s64, bits=None, out=None):
    """Whether each float64 entry of `s64` lies exactly halfway between two float32 values
    (its bits below float32's precision are a one and zeros): the only float64 sums whose
    rounding to float32 can differ from a single rounding. `bits` (uint64) and `out` (bool),
    of s64's shape, are optional scratch for the masked bits and the result."""
    bits = np.bitwise_and(s64.view(np.uint64), _BELOW_F32, out=bits)
    return np.equal(bits, _HALFWAY, out=out)


def fma32(a, b, c):
    """The float32 fused multiply-add ``a * b + c`` rounded once, as the CPU's ``vfmadd``
    gives it (numpy has no fused multiply-add).

    The product of two float32 values is exact in float64; the float64 sum is rounded, and
    where it lands exactly halfway between two float32 values the exact residual of the sum
    says which way the single rounding goes.

    Args:
        a: float32 array or scalar, the first factor.
        b: float32 array or scalar, the second factor (broadcasting with `a`).
        c: float32 array or scalar, the addend (broadcasting with the product).

    Returns:
        array: float32, of the broadcast shape.

    Example::

        from gluonlite.ops import onednn_softmax
        a = c = np.float32(1 + 2.0 ** -23)
        b = np.float32(2.0 ** -24 * (1 - 2.0 ** -23))
        # a * b + c lies just below halfway between two float32 values: rounded once it
        # goes down, 1.0000001; through a float64 sum (itself halfway) it would go up
        onednn_softmax.fma32(a, b, c)   # 1.0000001
    """
    a, b, c = (np.asarray(v, dtype=np.float32) for v in (a, b, c))
    prod = np.multiply(a, b, dtype=np.float64)
    out = np.add(prod, c, dtype=np.float64)
    shape = out.shape
    prod, cs = np.broadcast_to(prod, shape).ravel(), np.broadcast_to(c, shape).ravel()
    with np.errstate(over="ignore"):   # beyond float32's range: inf, as the CPU's
        rounded = out.astype(np.float32).ravel()
    # only a float64 sum that fell halfway between two float32 values can round wrong
    tie = _halfway(out.reshape(-1))
    _fix_halfway(rounded, prod, cs, np.flatnonzero(tie))
    return rounded.reshape(shape)


def _fix_halfway(out, prod, c, where):
    """Round once the entries of float32 `out` (= float32(prod + c) through float64) whose
    float64 sum fell exactly halfway between two float32 values while the exact sum did not:
    `prod` exact in float64 (flat, or of out's shape), `c` a float32 constant or flat array,
    `where` the flat indices of the only entries whose float64 sum can be inexact."""
    if not where.size:
        return
    t = prod.ravel()[where]
    cw = np.float64(c) if np.ndim(c) == 0 else c[where].astype(np.float64)
    s = t + cw
    tie = _halfway(s)
    if not tie.any():
        return
    at, t, s = where[tie], t[tie], s[tie]
    cw = cw if np.ndim(cw) == 0 else cw[tie]
    back = s - t
    side = np.sign((t - (s - back)) + (cw - back))  # of prod + c - s, exactly
    flat = out.ravel()
    f = flat[at]
    # round-half-even chose a side; the exact sum, off the halfway point, picks its own
    wrong = (side != 0) & (np.sign(f.astype(np.float64) - s) != side)
    f[wrong] = np.nextafter(f[wrong], (np.float32(np.inf) * side[wrong]).astype(np.float32))
    flat[at] = f


def _exp_into(x, out, work):
    """`exp` of the flat float32 block `x` into `out` (x's size), with `work` the scratch
    of `_scratch(x.size)`."""
    m = x.size
    t, n, power, r64, prod = (w[:m] for w in work)
    # the kernel clamps with min then max, whose NaN operand gives the bound: NaN is
    # taken as log(FLT_MAX)
    np.fmin(x, _HI, out=t)
    np.maximum(t, _LO, out=t)
    np.multiply(t, _LOG2E, out=n)
    n += np.float32(0.5)
    np.floor(n, out=n)
    # r = t - n ln2 in one rounding: n ln2 (8 x 24 bits) and the difference are exact here
    np.copyto(r64, t)
    np.copyto(prod, n)
    prod *= np.float64(_LN2)
    r64 -= prod
    np.copyto(t, r64, casting="same_kind")   # t now holds r, rounded to float32
    np.copyto(r64, t)
    small = np.flatnonzero(np.abs(t) < _SMALL_R)
    # 2^(n - 1) from its exponent bits: n - 1 = -127 gives 0, as oneDNN's does
    np.copyto(power, n, casting="unsafe")
    power += 126
    power <<= 23
    scale = power.view(np.float32)
    under = x < _LO
    if under.any():
        scale[under] = 0
    # the polynomial, each multiply-add rounded once to float32 (module docstring)
    np.multiply(r64, np.float64(_POLY[4]), out=prod)
    np.add(prod, np.float64(_POLY[3]), out=out, casting="same_kind")
    _fix_halfway(out, prod, _POLY[3], small)
    for c in (_POLY[2], _POLY[1], _POLY[0], np.float32(1)):
        np.multiply(out, r64, out=prod)
        np.add(prod, np.float64(c), out=out, casting="same_kind")
        _fix_halfway(out, prod, c, small)
    out *= scale
    out *= np.float32(2)
    return out


def _scratch(m):
    return (np.empty(m, np.float32), np.empty(m, np.float32), np.empty(m, np.int32),
            np.empty(m, np.float64), np.empty(m, np.float64))


def exp(x):
    """oneDNN 2.4's exp of float32 entries (its softmax kernel's), bit for bit (NaN is taken
    as log(FLT_MAX), as the kernel's clamp takes it).

    Args:
        x: float32 array, any shape, finite.

    Returns:
        array: a new float32 array of x's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.exp(np.array([0.0, -1.0, -100.0], np.float32))
        # array([1.        , 0.36787948, 0.        ], dtype=float32): e^-1 is 0.36787944...
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    flat, out = x.ravel(), np.empty(x.size, np.float32)
    work = _scratch(min(x.size, BLOCK))
    for s in range(0, x.size, BLOCK):
        _exp_into(flat[s:s + BLOCK], out[s:s + BLOCK], work)
    return out.reshape(x.shape)


def log(x):
    """oneDNN 2.4's log of positive float32 entries (its log_softmax kernel's, applied to the
    row sums), bit for bit; 0 gives -inf and a negative entry NaN.

    Args:
        x: float32 array, any shape.

    Returns:
        array: a new float32 array of x's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.log(np.array([1.0, 10.0], np.float32))   # array([0., 2.3025851], ...)
    """
    shape = np.shape(x)
    x = np.asarray(x, dtype=np.float32).reshape(-1)
    bits = x.view(np.uint32)
    t = (bits >> np.uint32(18)) & np.uint32(31)
    # m's top half moves down an octave (its exponent up one), so m r - 1 stays small
    up = t >> np.uint32(4)
    e = ((bits >> np.uint32(23)) + up).astype(np.float32)   # biased: _LOG_OFFSET holds it
    m = ((bits & np.uint32(0x7fffff)) | ((np.uint32(127) ^ up) << np.uint32(23))).view(
        np.float32)
    z = fma32(_LOG_R[t], m, np.float32(-1))
    p = np.full(x.size, _LOG_POLY[3], np.float32)
    for c in (_LOG_POLY[2], _LOG_POLY[1], _LOG_POLY[0], np.float32(1)):
        p = fma32(p, z, c)
    p *= z
    whole = fma32(e, _LN2, _LOG_OFFSET[t])
    # the two parts added, then the sum corrected once by what the addition lost
    hi = p + whole
    out = hi + ((hi - whole) - p)
    with np.errstate(invalid="ignore"):
        out[x == 0] = -np.inf
        out[x < 0] = np.nan
    return out.reshape(shape)


def row_sums(a):
    """Sums of the rows of float32 `a` (rows, n) in oneDNN's AVX-512 order: `LANES` lanes,
    lane j adding entries j, j + 16, ... in order, then folded in halves.

    Args:
        a: float32 array (rows, n).

    Returns:
        array: float32 (rows, 1).

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.row_sums(np.ones((2, 20), np.float32))   # [[20.], [20.]]
    """
    rows, n = a.shape
    width = -(-n // LANES) * LANES
    if width != n:
        padded = np.zeros((rows, width), np.float32)
        padded[:, :n] = a
        a = padded
    # numpy reduces a middle axis one slice after another, in order (the suite pins it)
    lanes = np.add.reduce(a.reshape(rows, width // LANES, LANES), axis=1)
    half = LANES // 2
    while half:
        lanes = lanes[:, :half] + lanes[:, half:2 * half]
        half //= 2
    return lanes


def _row_blocks(rows, n):
    """(rows a block holds, [(start, stop)] of the blocks) over `rows` rows of `n`."""
    step = min(rows, max(1, BLOCK // max(1, n)))
    return step, [(s, min(rows, s + step)) for s in range(0, rows, step)]


def softmax(z):
    """softmax over the last axis of finite float32 `z` as oneDNN 2.4 computes it (rows
    holding NaN or +inf are `gluonlite.ops.nn`'s to give oneDNN's way).

    Args:
        z: float32 array (..., n), n >= 1.

    Returns:
        array: a new float32 array of z's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.softmax(np.zeros((1, 4), np.float32))   # [[0.25, 0.25, 0.25, 0.25]]
    """
    return _forward(z, take_log=False)


def _forward(z, take_log):
    """softmax (or log_softmax) over the last axis of float32 `z`, a block of rows at a time:
    each row less its maximum, its exp, the lane-ordered sum; then the product by the
    reciprocal (or the difference with the log)."""
    z = np.ascontiguousarray(z, dtype=np.float32)
    if z.size == 0:
        return z.copy()
    n = z.shape[-1]
    rows = z.reshape(-1, n)
    out = np.empty_like(rows)
    step, blocks = _row_blocks(rows.shape[0], n)
    work = _scratch(step * n)
    spare = np.empty(step * n, np.float32)
    for s, e in blocks:
        block, dest = rows[s:e], out[s:e]
        other = spare[:(e - s) * n].reshape(e - s, n)
        # softmax exponentiates into its output, log_softmax keeps the shifted rows there
        shifted, exps = (dest, other) if take_log else (other, dest)
        # the maximum starts at -FLT_MAX, as the kernel's does
        np.subtract(block, np.maximum(block.max(axis=1, keepdims=True),
                                      np.finfo(np.float32).min), out=shifted)
        _exp_into(shifted.ravel(), exps.ravel(), work)
        if take_log:
            dest -= log(row_sums(exps))
        else:
            dest *= np.float32(1) / row_sums(exps)
    return out.reshape(z.shape)


def softmax_grad(y, g):
    """The gradient of softmax over the last axis as oneDNN 2.4's backward kernel computes
    it: ``y * (g - s)``, s the lane-ordered row sums of ``g * y``.

    Args:
        y: softmax's float32 output (..., n).
        g: the float32 gradient of y, of y's shape.

    Returns:
        array: a new float32 array of y's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        y = np.full((1, 4), 0.25, np.float32)
        onednn_softmax.softmax_grad(y, np.eye(4, dtype=np.float32)[:1])[0, 0]   # 0.1875
    """
    def block(yb, gb, dest):
        np.multiply(gb, yb, out=dest)
        np.subtract(gb, row_sums(dest), out=dest)
        dest *= yb
    return _backward(y, g, block)


def _backward(y, g, block):
    """A new float32 array of y's shape, written by ``block(y_rows, g_rows, out_rows)`` a
    block of rows (..., n) at a time."""
    if y.size == 0:
        return np.zeros(y.shape, np.float32)
    n = y.shape[-1]
    y2 = np.ascontiguousarray(y, dtype=np.float32).reshape(-1, n)
    g2 = np.ascontiguousarray(g, dtype=np.float32).reshape(-1, n)
    out = np.empty_like(y2)
    for s, e in _row_blocks(y2.shape[0], n)[1]:
        block(y2[s:e], g2[s:e], out[s:e])
    return out.reshape(y.shape)


def log_softmax(z):
    """log_softmax over the last axis of finite float32 `z` as oneDNN 2.4 computes it:
    ``(z - max) - log(sum)``, the sum oneDNN's exp of ``z - max`` in its lane order, the log
    its own (`log`).

    Args:
        z: float32 array (..., n), n >= 1.

    Returns:
        array: a new float32 array of z's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        onednn_softmax.log_softmax(np.zeros((1, 4), np.float32))   # [[-1.3862944] * 4]
    """
    return _forward(z, take_log=True)


def log_softmax_grad(y, g):
    """The gradient of log_softmax over the last axis as oneDNN 2.4's backward kernel
    computes it: ``g - exp(y) * s`` in one fused multiply-add, s the lane-ordered row sums
    of g and exp oneDNN's (`exp`).

    Args:
        y: log_softmax's float32 output (..., n).
        g: the float32 gradient of y, of y's shape.

    Returns:
        array: a new float32 array of y's shape.

    Example::

        from gluonlite.ops import onednn_softmax
        y = np.full((1, 4), np.log(0.25), np.float32)
        onednn_softmax.log_softmax_grad(y, np.eye(4, dtype=np.float32)[:1])[0, 0]   # 0.75
    """
    def block(yb, gb, dest):
        minus_exp = exp(yb)
        np.negative(minus_exp, out=minus_exp)
        dest[...] = fma32(minus_exp, row_sums(gb), gb)
    return _backward(y, g, block)
