"""MXNet 1.9.1's CPU samplers over its random streams (`mxnet_rng`), computed as its kernels
compute them, so that a seeded program draws MXNet's numbers:

- over the parallel stream: `nd.random`'s uniform, normal, exponential and randint, Dropout's
  mask, and the rejection samplers, gamma (`mxnet_gamma`), Poisson and the negative
  binomials, which step along MXNet's runs all at once (`_Lanes`; a Poisson draw of few
  counts, such as a forecast's time step, counts them in Python scalars instead);
- over the single stream: `mx.np.random`'s uniform and normal, its samplers made from one
  uniform each (exponential, rayleigh, weibull, pareto, power, logistic, gumbel),
  bernoulli and shuffle, and the single draws of one C++ distribution object that MXNet's
  random image operators make (`single_coin`, `single_uniform32`, `single_normal32`).

Each computes in the types MXNet's kernel does: the parameters in their own type (float32 for
the operators whose parameters are attributes), the draws in the output's float type
(float64 for float16 and integer outputs), the arithmetic in C++'s promotion of the two;
float16 is reached through float32, as mshadow's half type converts.
"""
import array
import math

import numpy as np
from scipy.special import gammaln

from .mxnet_gamma import accept, below_one, constants, gamma_values
from .mxnet_rng import _NONE, PARALLEL, SINGLE, canonical, polar

__all__ = ["uniform", "normal", "exponential", "randint", "dropout_mask", "np_uniform",
           "np_normal", "gamma", "poisson", "negative_binomial", "generalized_negative_binomial",
           "np_from_uniform", "np_bernoulli", "np_gamma", "shuffle_order", "single_coin",
           "single_uniform32", "single_normal32", "rnn_dropout_scale", "distinct_ints"]


def _out(v, dtype):
    # `v` is the sampler's own new array: returned as it is when it has the dtype already
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        v = np.asarray(v).astype(np.float32, copy=False)
    return np.asarray(v).astype(dtype, copy=False)


# draws of at least this many values are scaled in place (`_affine`); below, the checks cost
# more than the arrays they save
_IN_PLACE = 1 << 16


def _affine(x, scale, shift):
    """``x * scale + shift`` for the sampler's own new array `x`, in place over a large x where
    numpy would make an array of x's dtype and shape anyway: the same numbers, and a draw of
    100 million values makes no second and third array of its size (each paged in afresh)."""
    if (x.size >= _IN_PLACE and np.result_type(x, scale, shift) == x.dtype
            and np.broadcast_shapes(x.shape, np.shape(scale), np.shape(shift)) == x.shape):
        np.multiply(x, scale, out=x)
        return np.add(x, shift, out=x)
    return x * scale + shift


def _draw_type(dtype):
    return np.float32 if np.dtype(dtype) == np.float32 else np.float64


def uniform(low, high, size, dtype):
    """Samples of U[low, high) as MXNet's ``_random_uniform`` / ``_sample_uniform`` draw them:
    ``low + (high - low) * u`` from the parallel stream, in the output's order.

    Args:
        low: the lower bounds, a numpy scalar or array (broadcasting to `size`) of the
            parameters' type.
        high: the upper bounds, as `low`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(42)
        mxnet_samplers.uniform(np.float32(-1), np.float32(2), (2,), np.float32)
        # array([1.4872808, 1.2435048], dtype=float32): MXNet's after mx.random.seed(42)
    """
    u = PARALLEL.uniform(math.prod(size), _draw_type(dtype)).reshape(size)
    return _out(_affine(u, high - low, low), dtype)  # low + (high - low) * u


def normal(loc, scale, size, dtype):
    """Samples of N(loc, scale**2) as MXNet's ``_random_normal`` / ``_sample_normal`` draw
    them: ``z * scale + loc``, z from the parallel stream's polar method.

    Args:
        loc: the means, a numpy scalar or array (broadcasting to `size`).
        scale: the standard deviations, as `loc`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        mxnet_samplers.normal(np.float32(0), np.float32(1), (1000,), np.float32).std() > 0.9  # True
    """
    z = PARALLEL.normal(math.prod(size), _draw_type(dtype)).reshape(size)
    return _out(_affine(z, scale, loc), dtype)


def exponential(lam, size, dtype):
    """Samples of the exponential distribution of rate `lam` as MXNet draws them:
    ``-log(1 - u) / lam`` in double precision.

    Args:
        lam: numpy scalar or array (broadcasting to `size`).
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        bool((mxnet_samplers.exponential(np.float32(2), (5,), np.float32) >= 0).all())   # True
    """
    u = PARALLEL.uniform(math.prod(size), _draw_type(dtype)).reshape(size)
    return _out(-np.log(1.0 - u.astype(np.float64)) / np.asarray(lam, np.float64), dtype)


def randint(low, high, size, dtype):
    """Integers in [low, high) as MXNet's ``_random_randint`` draws them: two words a value,
    ``((w1 << 31) + w2) % (high - low) + low``.

    Args:
        low: the smallest integer drawn.
        high: one more than the largest (low < high).
        size: the output's shape.
        dtype: the output's integer dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        bool((mxnet_samplers.randint(3, 7, (9,), np.int32) < 7).all())   # True
    """
    w = PARALLEL.words(math.prod(size), 2).astype(np.int64)
    v = (w[0::2] << 31) + w[1::2]
    return (v % (int(high) - int(low)) + int(low)).astype(dtype).reshape(size)


def dropout_mask(shape, p, dtype, shared_axes=False):
    """Dropout's mask as MXNet's CPU kernel draws it: 1 / (1 - p) where a uniform of the
    parallel stream (in the data's float type, then float32) is at most 1 - p (below it when
    the mask is shared along `axes`), else 0.

    Args:
        shape: the mask's shape (the data's, with shared axes of size 1).
        p: the drop probability, 0 <= p < 1.
        dtype: the data's dtype.
        shared_axes: whether Dropout's `axes` shares the mask.

    Returns:
        numpy array of `shape` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        sorted(set(mxnet_samplers.dropout_mask((100,), 0.5, np.float32).tolist()))   # [0.0, 2.0]
    """
    pkeep = np.float32(1) - np.float32(p)
    u = PARALLEL.uniform(math.prod(shape), _draw_type(dtype)).astype(np.float32)
    keep = (u < pkeep) if shared_axes else (u <= pkeep)
    return _out(keep * (np.float32(1) / pkeep), dtype).reshape(shape)


def np_uniform(low, high, size, dtype):
    """Samples of U[low, high) as ``mx.np.random.uniform`` draws them: float32 uniforms of the
    single stream, ``low + u * (high - low)``.

    Args:
        low: the lower bounds, a numpy scalar or array (broadcasting to `size`).
        high: the upper bounds, as `low`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        bool((mxnet_samplers.np_uniform(np.float32(0), np.float32(1), (4,), np.float32) < 1).all())
        # True
    """
    u = SINGLE.uniform(math.prod(size), np.float32).reshape(size)
    return _out(_affine(u, high - low, low), dtype)  # low + u * (high - low)


def np_normal(loc, scale, size, dtype):
    """Samples of N(loc, scale**2) as ``mx.np.random.normal`` draws them: float32 normals of
    the single stream (both of each polar pair), ``loc + z * scale``.

    Args:
        loc: the means, a numpy scalar or array (broadcasting to `size`).
        scale: the standard deviations, as `loc`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        mxnet_samplers.np_normal(np.float32(0), np.float32(1), (3,), np.float32).shape   # (3,)
    """
    z = SINGLE.normal(math.prod(size), np.float32).reshape(size)
    return _out(_affine(z, scale, loc), dtype)  # loc + z * scale


# ---- samplers whose values take a varying number of words (rejection) ---------------------------
# MXNet's kernel draws run t's values one after another from twister t, each value taking as
# many words as its rejection loop needs. Here the runs are lanes stepped together: value j of
# every run at once, each lane reading its own twister's words in order, so the loops are
# vectorized across the (up to 1024) runs and sequential only along a run.
_SLAB_MAX = 256  # most words a Poisson count looks at in one pass (a row holds 1024)
_SLAB = 32  # words a Poisson count looks at in its first pass (a longer count takes more)


class _Lanes:
    """One reader per run of a draw of `n` values over the parallel stream: each run's words
    come from its twister's read-ahead row (`PARALLEL.look`), looked at and then marked read
    as a step uses them; what a draw leaves in the rows stays its twisters' next words."""

    def __init__(self, n):
        runs = PARALLEL.runs(n)
        self.next = np.array([s for _, s, _ in runs], dtype=np.int64)
        self.stop = np.array([e for _, _, e in runs], dtype=np.int64)

    def peek(self, lanes, k):
        """The next `k` words (k <= `_SLAB_MAX`) of each lane in `lanes` (ascending),
        (len(lanes), k), left unread."""
        return PARALLEL.look(lanes, k)

    def skip(self, lanes, counts):
        """Mark the next `counts` words of each lane in `lanes` read (peeked before)."""
        PARALLEL.skip(lanes, counts)

    def words(self, lanes, k):
        """The next `k` words of each lane in `lanes`: (len(lanes), k)."""
        w = self.peek(lanes, k)
        self.skip(lanes, k)
        return w

    def uniform(self, lanes, ftype):
        per = 1 if ftype == np.float32 else 2
        return canonical(self.words(lanes, per).ravel(), ftype)

    def normal(self, lanes, ftype):
        """One normal per lane (a fresh distribution object: one value per accepted pair)."""
        per = 1 if ftype == np.float32 else 2
        z = np.empty(len(lanes), dtype=ftype)
        todo = np.arange(len(lanes))
        while len(todo):
            u = canonical(self.words(lanes[todo], 2 * per).ravel(), ftype)
            ok, _, ys = polar(u[0::2], u[1::2], ftype)
            z[todo[ok]] = ys
            todo = todo[~ok]
        return z


def _gamma(lanes, ids, a, b, ftype):
    """One Gamma(a, scale b) value per lane in `ids` (a, b: their parameters), by MXNet's
    Marsaglia-Tsang loop in `ftype`, a step at a time (the negative binomials, which draw a
    Poisson count after each gamma value; a plain gamma draw is `gamma_values`)."""
    d, k, c = constants(a, ftype)
    out = np.empty(len(ids), dtype=ftype)
    todo = np.arange(len(ids))
    while len(todo):
        z = lanes.normal(ids[todo], ftype)
        live = z > -k[todo]
        t = todo[live]
        z = z[live]
        u = lanes.uniform(ids[t], ftype)
        acc, v = accept(z, np.log(1.0 - u.astype(np.float64)), d[t], c[t], ftype)
        done = t[acc]
        out[done] = d[done] * v[acc] * b[done].astype(ftype)
        small = done[a[done] < 1]
        if len(small):
            out[small] = below_one(out[small], lanes.uniform(ids[small], ftype), a[small],
                                   ftype)
        left = np.ones(len(todo), dtype=bool)
        left[np.nonzero(live)[0][acc]] = False
        todo = todo[left]
    return out


_PI32 = np.float32(3.1415926)


def _product_bound(lam):
    """exp(-lam) in float32 of float32 rates below 12: the running product's stop."""
    return np.exp(-lam.astype(np.float64)).astype(np.float32)


def _lorentz(u):
    """tan(pi u) of float32 uniforms, in float32 (pi u in float32, tan in double): the
    Lorentzian rejection's y of each word."""
    return np.tan((_PI32 * u).astype(np.float64)).astype(np.float32)


def _rejection_constants(lam):
    """sqrt(2 lam), log lam and lam log lam - lgamma(lam + 1) of float32 rates from 12: the
    Lorentzian rejection's constants, each rounded to float32 where MXNet's kernel rounds
    it."""
    lam64 = lam.astype(np.float64)
    sq = np.sqrt(2.0 * lam64).astype(np.float32)
    loglam = np.log(lam64).astype(np.float32)
    return sq, loglam, lam * loglam - _lgamma32(lam64 + 1.0)


def _poisson(lanes, ids, lam):
    """One Poisson(lam) count per lane in `ids`, by MXNet's float32 kernel: products of
    uniforms below 12, Numerical Recipes' rejection from a Lorentzian above."""
    lam = lam.astype(np.float32)
    out = np.zeros(len(ids), dtype=np.int64)
    small = np.nonzero(lam < 12)[0]
    if len(small):
        # the count is how many uniforms the running float32 product takes past the first
        # before it is at most exp(-lam): read a slab of words ahead, multiply it out in
        # order (numpy's accumulate rounds each product as the C loop does), and read as
        # many as the count used
        t = _product_bound(lam[small])
        live, prod, width = np.arange(len(small)), None, _SLAB
        while len(live):
            u = canonical(lanes.peek(ids[small[live]], width).ravel(),
                          np.float32).reshape(len(live), width)
            if prod is not None:  # a product carried over from a slab too short
                u[:, 0] = u[:, 0] * prod
            run = np.multiply.accumulate(u, axis=1)
            below = run <= t[live, None]
            hit = below.any(axis=1)
            first = np.argmax(below, axis=1)
            out[small[live]] += np.where(hit, first, width)
            lanes.skip(ids[small[live]], np.where(hit, first + 1, width))
            # the rest go on with the product so far (a rate near 12 runs past 32 rarely)
            prod, live = run[~hit, -1], live[~hit]
            width = min(2 * width, _SLAB_MAX)
    big = np.nonzero(lam >= 12)[0]
    if len(big):
        lb = lam[big]
        sq, loglam, g = _rejection_constants(lb)
        live, width = np.arange(len(big)), max(_SLAB // 2, 3)
        while len(live):
            # Every word of a slab read ahead as an attempt's first: the Lorentzian's point
            # there, whether its count is non-negative (else the next word is tried), and
            # whether the word after accepts it. Each lane then follows its attempts
            # through the slab: the next usable point, accepted or two words on.
            lane = ids[big[live]]
            u = canonical(lanes.peek(lane, width).ravel(), np.float32).reshape(len(live), width)
            y = _lorentz(u)
            em = sq[live, None] * y + lb[live, None]
            usable = em >= 0
            em = np.floor(em)
            ex = (em * loglam[live, None] - _lgamma32(em.astype(np.float64) + 1.0)
                  - g[live, None])
            t = (0.9 * (1.0 + (y * y).astype(np.float64))
                 * np.exp(ex.astype(np.float64)).astype(np.float32)).astype(np.float32)
            accept = np.zeros_like(usable)
            accept[:, :-1] = usable[:, :-1] & ~(u[:, 1:] > t[:, :-1])
            big_k = width + 1
            nxt = np.where(usable, np.arange(width), big_k)
            nxt = np.minimum.accumulate(nxt[:, ::-1], axis=1)[:, ::-1]
            nxt = np.concatenate([nxt, np.full((len(live), 2), big_k)], axis=1)
            r = np.arange(len(live))
            at, done = np.zeros(len(live), np.int64), np.zeros(len(live), bool)
            while True:
                k = nxt[r, np.minimum(at, width)]
                inside = k < width - 1  # the point and its accepting word are in the slab
                hit = ~done & inside & accept[r, np.minimum(k, width - 1)]
                out[big[live[hit]]] = em[r[hit], k[hit]].astype(np.int64)
                done |= hit
                go = ~done & inside
                if not go.any():
                    break
                at = np.where(go, k + 2, at)
            # a lane not done read its slab up to its next usable point (the words before
            # it are the inner loop's retries): read those words and go on from that point
            # with a fresh slab
            k = np.minimum(nxt[r, np.minimum(at, width)], width)
            lanes.skip(lane, np.where(done, k + 2, k))
            live = live[~done]
    return out


def _lgamma32(x):
    """lgammaf of float32(x), rounded to float32 (MXNet's kernel calls the C library's)."""
    return gammaln(np.asarray(x, np.float64).astype(np.float32).astype(np.float64)).astype(
        np.float32)


# The cost model that picks, for a Poisson draw, the stepped `_poisson` or `_poisson_narrow`
# (microseconds, one thread, measured on this project's machine): a vectorized step of
# `_poisson` over every run, whatever their number (counts of rates below 12 only, or some
# from 12); a count in Python scalars, per word read below rate 12 and per count from 12.
_SMALL_STEP_US, _STEP_US, _WORD_US, _REJECTION_US = 40.0, 150.0, 0.25, 5.0
_CHUNK = 128  # words a run reads from its twister at a time in `_poisson_narrow`
# lgamma32(m + 1) of whole m met by `_poisson_narrow`'s rejections, kept between draws (a
# forecast's steps meet the same few hundred points); filled `_LGAMMA_SPAN` points at a time
# around a miss, as one vectorized call costs what a few scalar ones do
_LGAMMA = {}
_LGAMMA_SPAN = 64
_LGAMMA_MAX = 1 << 16  # entries kept at most (whole float32 values below 2**23 only)


def _lgamma_of(em):
    """lgamma32(em + 1) of a whole float32 value `em` >= 0 (a Python float)."""
    hit = _LGAMMA.get(em)
    if hit is not None:
        return hit
    if em >= 8388608.0:  # past 2**23 the neighbours are not whole steps of 1: one value
        return float(_lgamma32(em + 1.0))
    if len(_LGAMMA) >= _LGAMMA_MAX:
        _LGAMMA.clear()
    lo = max(0.0, em - _LGAMMA_SPAN // 2)
    ms = np.arange(lo, min(lo + _LGAMMA_SPAN, 8388608.0))
    _LGAMMA.update(zip(ms.tolist(), _lgamma32(ms + 1.0).tolist()))
    return _LGAMMA[em]


def _narrow_is_cheaper(n, lam):
    """Whether `_poisson_narrow` is expected to be faster than stepping every run at once."""
    runs = PARALLEL.runs(n)
    if not runs or not (lam < 1e30).all():  # (rates near float32's top overflow a step)
        return False
    per_run = max(e - s for _, s, e in runs)
    small = lam < 12
    step = _SMALL_STEP_US if small.all() else _STEP_US
    return np.where(small, _WORD_US * (lam + 1.0), _REJECTION_US).sum() < step * per_run


def _poisson_narrow(n, lam):
    """The counts of a Poisson draw (rates `lam`, float32, (n,)), each run's counts one after
    another in Python scalars: a count costs a few microseconds, where a step of `_poisson`
    costs about a hundred whatever the number of runs, so a draw of a few hundred counts (a
    forecast's time step: a few runs of dozens) would take dozens of such steps.

    The arithmetic is `_poisson`'s, operation for operation: each float32 operation done in
    double and rounded to float32 (exact, as double holds more than twice float's digits),
    and what `_poisson` computes on whole arrays (exp(-lam), the rates' constants, tan of the
    words, lgamma of the points) computed here by the same numpy and scipy functions; the
    exponential of a point's exponent is the C library's (`math.exp`, numpy's on a scalar
    costs four times as much), where `_poisson` takes numpy's: the two double results, a
    unit apart at most, round to one float32 value but about once in 2**29."""
    # A double rounded to float32 by storing it into a one-entry float32 array and reading
    # it back: 0.1 us, where struct's pack and unpack take 0.2 (every count makes 1 to 8 such
    # roundings, written out inline: a function call would cost as much again).
    r32 = array.array("f", [0.0])
    small = (lam < 12).tolist()
    t = _product_bound(lam).tolist()
    big = np.where(lam < 12, np.float32(12), lam)  # the rates from 12 (12 for the rest)
    sq, loglam, g = (a.tolist() for a in _rejection_constants(big))
    big = big.tolist()
    exp, floor, lgammas = math.exp, math.floor, _LGAMMA
    out = [0.0] * n
    for i, start, stop in PARALLEL.runs(n):
        tw = PARALLEL.twister(i)
        words, u, y, k = _NONE, [], [], 0
        for v in range(start, stop):
            if small[v]:
                if k == len(u):
                    words, u, y, k = _chunk(tw)
                prod, x, tv = u[k], 0, t[v]
                k += 1
                while prod > tv:
                    x += 1
                    if k == len(u):
                        words, u, y, k = _chunk(tw)
                    r32[0] = prod * u[k]
                    prod = r32[0]
                    k += 1
                out[v] = x
                continue
            sqv, lv, loglv, gv = sq[v], big[v], loglam[v], g[v]
            while True:
                while True:  # a usable point
                    if k == len(u):
                        words, u, y, k = _chunk(tw)
                    yk = y[k]
                    r32[0] = sqv * yk
                    r32[0] = r32[0] + lv
                    em = r32[0]
                    k += 1
                    if em >= 0:
                        break
                if em < 8388608.0:  # float32 values from 2**23 on are whole
                    em = float(floor(em))
                lg = lgammas.get(em)
                if lg is None:
                    lg = _lgamma_of(em)
                r32[0] = em * loglv
                r32[0] = r32[0] - lg
                r32[0] = r32[0] - gv
                ex = r32[0]
                # (float32 holds no e^ex from 88.8 on: math.exp raises where numpy gives inf)
                e = exp(ex) if not ex > 88.8 else math.inf
                r32[0] = yk * yk
                square = r32[0]
                r32[0] = e
                r32[0] = 0.9 * (1.0 + square) * r32[0]
                bound = r32[0]
                if k == len(u):
                    words, u, y, k = _chunk(tw)
                k += 1
                if not u[k - 1] > bound:
                    out[v] = em
                    break
        tw.unread(words[k:])
    return np.array(out, dtype=np.float32).astype(np.int64)


def _chunk(tw):
    """The next `_CHUNK` words of twister `tw`: (words, their float32 uniforms as floats,
    tan(pi u) of each, 0). The tangents are made for every chunk, whether a rejection reads
    them or not: cheaper than a second chunk made when a run's counts turn from rates below
    12 to rates above."""
    w = tw.words(_CHUNK)
    u32 = canonical(w, np.float32)
    return w, u32.tolist(), _lorentz(u32).tolist(), 0


def _run(n, params, value):
    """Values 0..n-1 of a rejection sampler: `value(lanes, ids, *params at them)` gives one
    value per live lane, run after run in MXNet's order."""
    lanes = _Lanes(n)
    flat = [np.broadcast_to(np.asarray(p), (n,)) for p in params]
    out = None
    while True:
        ids = np.nonzero(lanes.next < lanes.stop)[0]
        if not len(ids):
            break
        at = lanes.next[ids]
        v = value(lanes, ids, *[p[at] for p in flat])
        if out is None:
            out = np.empty(n, dtype=v.dtype)
        out[at] = v
        lanes.next[ids] += 1
    return out if out is not None else np.empty(0)


def _flat_params(size, *params):
    n = math.prod(size)
    return n, [np.broadcast_to(np.asarray(p), size).ravel() for p in params]


def gamma(alpha, beta, size, dtype):
    """Samples of Gamma(alpha, scale beta) as MXNet's ``_random_gamma`` / ``_sample_gamma``
    draw them from the parallel stream (Marsaglia and Tsang's method; for alpha < 1 one more
    uniform to the power 1/alpha).

    Args:
        alpha: the shapes, a numpy scalar or array (broadcasting to `size`), positive.
        beta: the scales, as `alpha`.
        size: the output's shape.
        dtype: the output's dtype (float16 and float32 compute in float32, float64 in float64).

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        g = mxnet_samplers.gamma(np.float32(2), np.float32(3), (20000,), np.float32)
        abs(g.mean() - 6) < 0.2   # True: the mean is alpha * beta
    """
    ftype = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    n, (a, b) = _flat_params(size, alpha, beta)
    return _out(gamma_values(a, b, n, ftype), dtype).reshape(size)


def poisson(lam, size, dtype):
    """Samples of Poisson(lam) as MXNet's ``_random_poisson`` / ``_sample_poisson`` draw
    them from the parallel stream, in float32.

    Args:
        lam: the rates, a numpy scalar or array (broadcasting to `size`), non-negative.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        p = mxnet_samplers.poisson(np.float32(4), (20000,), np.float32)
        abs(p.mean() - 4) < 0.1   # True
    """
    n, (lam,) = _flat_params(size, lam)
    lam = lam.astype(np.float32)
    if _narrow_is_cheaper(n, lam):
        return _out(_poisson_narrow(n, lam), dtype).reshape(size)
    v = _run(n, (lam,), lambda lanes, ids, lam: _poisson(lanes, ids, lam))
    return _out(v, dtype).reshape(size)


def negative_binomial(k, p, size, dtype):
    """Samples of the negative binomial distribution (k failures, success probability p) as
    MXNet draws them: a Poisson count whose rate is Gamma(k, scale (1 - p) / p), in float32.

    Args:
        k: the numbers of failures, a numpy scalar or array (broadcasting to `size`).
        p: the success probabilities, as `k`, in (0, 1].
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        s = mxnet_samplers.negative_binomial(np.float32(3), np.float32(0.5), (20000,),
                                             np.float32)
        abs(s.mean() - 3) < 0.15   # True: the mean is k (1 - p) / p
    """
    n, (k, p) = _flat_params(size, k, p)

    def value(lanes, ids, k, p):
        k32, p32 = k.astype(np.float32), p.astype(np.float32)
        beta = ((1.0 - p32.astype(np.float64)) / p32).astype(np.float32)
        return _poisson(lanes, ids, _gamma(lanes, ids, k32, beta, np.float32))
    return _out(_run(n, (k, p), value), dtype).reshape(size)


def generalized_negative_binomial(mu, alpha, size, dtype):
    """Samples of the generalized negative binomial distribution (mean mu, dispersion alpha)
    as MXNet draws them: a Poisson count whose rate is Gamma(1 / alpha, scale alpha * mu), or
    mu where alpha is 0, in float32.

    Args:
        mu: the means, a numpy scalar or array (broadcasting to `size`), non-negative.
        alpha: the dispersions, as `mu`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        s = mxnet_samplers.generalized_negative_binomial(np.float32(2), np.float32(0.5),
                                                         (20000,), np.float32)
        abs(s.mean() - 2) < 0.1   # True
    """
    n, (mu, alpha) = _flat_params(size, mu, alpha)

    def value(lanes, ids, mu, alpha):
        lam = mu.astype(np.float32)
        g = np.nonzero(alpha != 0)[0]
        if len(g):
            a = alpha[g]
            shape = (a.dtype.type(1) / a).astype(np.float32)
            scale = (a * mu[g]).astype(np.float32)
            lam = lam.copy()
            lam[g] = _gamma(lanes, ids[g], shape, scale, np.float32)
        return _poisson(lanes, ids, lam)
    return _out(_run(n, (mu, alpha), value), dtype).reshape(size)


# ---- mx.np.random's samplers made from one uniform each ------------------------------------------
def _log(x):
    """log in double of float32 values: the kernels below call C's double ``log`` and ``exp``
    on their float32 noise and round where they store a float."""
    return np.log(np.asarray(x, np.float32).astype(np.float64))


_F32 = np.float32


def _powf(x, e):
    """C's powf of float32 arguments, correctly rounded."""
    return np.power(np.asarray(x, _F32).astype(np.float64),
                    np.asarray(e, _F32).astype(np.float64)).astype(_F32)


# each from float32 uniforms u of the single stream, as MXNet's kernel computes it: the
# functions in double, the noise kept in float32 where the kernel stores it (with array
# parameters `arr` the exponential's and pareto's kernels store it, with numbers they do
# not), the parameters' type for the rest
_FROM_UNIFORM = {
    "exponential": lambda u, arr, scale: (-_log(u)).astype(_F32) * scale if arr
    else -scale * _log(u),
    "rayleigh": lambda u, arr, scale: scale * np.sqrt(-2 * _log(u)).astype(_F32),
    "weibull": lambda u, arr, a: _powf(-_log(u), 1 / a),
    "pareto": lambda u, arr, a: (np.exp(((-_log(u)).astype(_F32) / a).astype(np.float64))
                                 if arr else np.exp(-_log(u) / a)) - 1,
    "powerd": lambda u, arr, a: _powf(_F32(1) - u, 1 / a),
    "logistic": lambda u, arr, loc, scale: loc + (_log(u) - _log(_F32(1) - u)).astype(_F32)
    * scale,
    "gumbel": lambda u, arr, loc, scale: loc + (-np.log(-_log(u))).astype(_F32) * scale,
}


def np_from_uniform(kind):
    """``mx.np.random``'s sampler `kind` (one of exponential, rayleigh, weibull, pareto,
    powerd, logistic, gumbel) as MXNet draws it: one float32 uniform of the single stream per
    value, through the distribution's inverse CDF.

    Args:
        kind: the sampler's name, a key of `_FROM_UNIFORM`.

    Returns:
        ``draw(*params, size, dtype)``, params as `np_uniform`'s.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        e = mxnet_samplers.np_from_uniform("exponential")(np.float32(2), (20000,), np.float32)
        abs(e.mean() - 2) < 0.1   # True
    """
    transform = _FROM_UNIFORM[kind]
    # power's kernel draws one uniform more than its values (its error flag's slot)
    spare = 1 if kind == "powerd" else 0

    def draw(*args):
        *params, size, dtype = args
        n = math.prod(size)
        u = SINGLE.uniform(n + spare, np.float32)[:n].reshape(size)
        arrays = any(np.ndim(p) for p in params)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _out(transform(u, arrays, *params), dtype)
    draw.__doc__ = f"mx.np.random.{kind}'s draws from MXNet's single stream."
    return draw


def np_bernoulli(v, logit, size):
    """``mx.np.random.bernoulli``'s 0/1 draws as MXNet makes them: a float32 uniform u of the
    single stream per value, 1 where the probability is above u (where the logit is above
    u's logit, ``log u - log(1 - u)`` in double, kept in float32).

    Args:
        v: the probabilities, or the logits when `logit`: a float32 number or an array
            broadcasting to `size`.
        logit: whether `v` holds logits.
        size: the output's shape.

    Returns:
        bool array of `size`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        abs(mxnet_samplers.np_bernoulli(np.float32(0.3), False, (20000,)).mean() - 0.3) < 0.02
        # True
    """
    u = SINGLE.uniform(math.prod(size), np.float32).reshape(size)
    if logit:
        with np.errstate(divide="ignore"):
            u = (_log(u) - _log(_F32(1) - u)).astype(_F32)
    return v > u


def np_gamma(shape, scale, size, dtype):
    """``mx.np.random.gamma``'s samples as MXNet draws them (its own kernel, not `gamma`'s):
    per round, two float64 uniforms and two float64 normals a value from the single stream
    (all the uniforms, then all the normals), one Marsaglia-Tsang attempt a value with the
    squeeze test, the second uniform for shapes below 1; values that failed are drawn again in
    a new round, which again reads two uniforms and two normals for every value.

    Args:
        shape: the shapes, a number (float32) or an array broadcasting to `size`, positive.
        scale: the scales, as `shape`.
        size: the output's shape.
        dtype: the output's dtype.

    Returns:
        numpy array of `size` and `dtype`.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        g = mxnet_samplers.np_gamma(np.float32(3), np.float32(2), (20000,), np.float32)
        abs(g.mean() - 6) < 0.2   # True
    """
    n = math.prod(size)
    a = np.broadcast_to(np.asarray(shape), size).ravel()
    b = np.broadcast_to(np.asarray(scale), size).ravel().astype(np.float64)
    a64 = a.astype(np.float64)
    d = np.where(a64 < 1, a64 + 2.0 / 3.0, a64 - 1.0 / 3.0)
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.full(n, -1.0)
    todo = np.arange(n)
    while len(todo):
        u = SINGLE.uniform(2 * n, np.float64).reshape(n, 2)
        z = SINGLE.normal(2 * n, np.float64).reshape(n, 2)
        u0, z0 = u[todo, 0], z[todo, 0]
        ocn = 1 + c[todo] * z0
        v = ocn * ocn * ocn
        zz = z0 * z0
        with np.errstate(invalid="ignore", divide="ignore"):
            # the kernel's logf: float32 logs of the double values, back in double
            log_u = _log(u0.astype(_F32)).astype(_F32).astype(np.float64)
            log_v = _log(v.astype(_F32)).astype(_F32).astype(np.float64)
            ok = (v > 0) & ((u0 <= 1 - 0.0331 * zz * zz)
                            | (log_u < 0.5 * zz + d[todo] * (1 - v + log_v)))
        sample = d[todo] * v * b[todo]
        below = a64[todo] < 1
        if below.any():
            e = (1.0 / a64[todo][below]).astype(np.float64)
            sample[below] = sample[below] * _powf(u[todo[below], 1], e).astype(np.float64)
        out[todo[ok]] = sample[ok]
        todo = todo[~ok]
    return _out(out, dtype).reshape(size)


# ---- shuffling --------------------------------------------------------------------------------
_M32 = 0xFFFFFFFF


def _bounded(tw, ranges):
    """libstdc++'s (before GCC 11) ``uniform_int_distribution(0, r - 1)`` for each r of
    `ranges` in turn, from twister `tw`: a word w below ``r * (2**32 - 1) // r`` gives
    ``w // ((2**32 - 1) // r)``; a word above is thrown away and the next one taken (rare:
    under r in 2**32). Vectorized: the words are read for all ranges at once and, at a thrown
    word, read again from there."""
    ranges = np.asarray(ranges, dtype=np.int64)
    out = np.empty(len(ranges), dtype=np.int64)
    at = 0
    while at < len(ranges):
        r = ranges[at:]
        words = tw.words(len(r))
        w = words.astype(np.int64)
        scaling = _M32 // r
        bad = w >= r * scaling
        stop = int(np.argmax(bad)) if bad.any() else len(r)
        out[at:at + stop] = w[:stop] // scaling[:stop]
        # a thrown word is used up; the value there is drawn again from the next word
        tw.unread(words[stop + 1:])
        at += stop
    return out


def shuffle_order(n, one_dim):
    """The order ``_shuffle`` puts the first axis of an array of `n` rows in, as MXNet's CPU
    kernel shuffles with its single stream: a 1-D array by libstdc++'s Fisher-Yates from the
    front (row i swapped with a row drawn from 0..i), a higher one by its own from the back
    (row i with one drawn from 0..i, i from n - 1 down).

    Args:
        n: the number of rows.
        one_dim: whether the array is 1-D.

    Returns:
        int64 array: the shuffled array is ``data[order]``.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        sorted(mxnet_samplers.shuffle_order(5, True).tolist())   # [0, 1, 2, 3, 4]
    """
    order = list(range(n))
    if n < 2:
        return np.array(order, dtype=np.int64)
    steps = range(1, n) if one_dim else range(n - 1, 0, -1)
    picks = _bounded(SINGLE.twister(), [i + 1 for i in steps]).tolist()
    for i, j in zip(steps, picks):
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def single_coin(p=0.5):
    """One draw of libstdc++'s ``std::bernoulli_distribution(p)`` on the single stream: True
    when a float64 canonical uniform (two words) is below `p`. MXNet's random image flips
    draw one a call.

    Args:
        p: the probability of True.

    Returns:
        bool.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        mxnet_samplers.single_coin(1.0)   # True: every uniform is below 1
    """
    return bool(SINGLE.uniform(1, np.float64)[0] < p)


def single_uniform32(a, b):
    """One draw of ``std::uniform_real_distribution<float>(a, b)`` on the single stream:
    ``u * (b - a) + a`` in float32 from one word. MXNet's random image enhancements (and
    each step of its color jitter) draw one a call.

    Args:
        a: the low end (a float32 attribute in MXNet).
        b: the high end.

    Returns:
        numpy.float32.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        0.5 <= mxnet_samplers.single_uniform32(0.5, 1.5) < 1.5   # True
    """
    a, b = np.float32(a), np.float32(b)
    return SINGLE.uniform(1, np.float32)[0] * (b - a) + a


def single_normal32(n, mean, std):
    """`n` draws of one ``std::normal_distribution<float>(mean, std)`` object on the single
    stream: the polar method's pairs, both values of each (the second kept for the next
    call), each scaled ``z * std + mean`` in float32. MXNet's random lighting draws 3 a call.

    Args:
        n: the number of draws.
        mean: the mean.
        std: the standard deviation.

    Returns:
        float32 array of `n` values.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        mxnet_samplers.single_normal32(3, 0.0, 0.1).shape   # (3,)
    """
    return SINGLE.normal(n, np.float32) * np.float32(std) + np.float32(mean)


def rnn_dropout_scale(shape, p, dtype):
    """The factors the fused RNN operator's native CPU kernel multiplies a layer's output by
    in training (MXNet's oneDNN path, which its pip wheel takes for float32, has no dropout):
    one float32 uniform u a value from the single stream, in the output's order, the value
    dropped when ``u < p`` and the others scaled by ``1 / (1 - p)``.

    Args:
        shape: the layer output's shape, (T, N, D * H).
        p: the dropout rate (a float32 attribute in MXNet).
        dtype: the output's dtype.

    Returns:
        array of `dtype` and `shape`: 0 or ``1 / (1 - p)``.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_rng.seed(0)
        m = mxnet_samplers.rnn_dropout_scale((2, 3, 4), 0.5, np.float32)
        sorted(set(m.ravel().tolist())) in ([0.0, 2.0], [0.0], [2.0])   # True
    """
    p = np.float32(p)
    keep = SINGLE.uniform(math.prod(shape), np.float32) >= p
    scale = np.dtype(dtype).type(1) / np.dtype(dtype).type(np.float32(1) - p)
    return (keep * scale).astype(dtype).reshape(shape)


def distinct_ints(tw, size, num):
    """`num` distinct integers of ``range(size)`` as MXNet's DGL sampler draws them: libstdc++'s
    ``uniform_int_distribution`` on twister `tw` (`mxnet_rng.standalone`) until `num` are
    distinct, sorted.

    Args:
        tw: the twister.
        size: the range's size.
        num: how many distinct ones (at most `size`).

    Returns:
        sorted int64 array of `num` values.

    Example::

        from gluonlite.ops import mxnet_rng, mxnet_samplers
        mxnet_samplers.distinct_ints(mxnet_rng.standalone(1), 10, 10).tolist() == list(range(10))
        # True
    """
    seen = set()
    while len(seen) < num:
        for v in _bounded(tw, [size] * max(num - len(seen), 4)).tolist():
            seen.add(v)
            if len(seen) == num:
                break
    return np.array(sorted(seen), dtype=np.int64)
