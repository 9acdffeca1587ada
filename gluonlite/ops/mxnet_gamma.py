"""MXNet's gamma sampler over its parallel stream (`mxnet_rng`), vectorized across its runs: the
values MXNet's ``_random_gamma`` / ``_sample_gamma`` draw after a seed.

MXNet draws run t's values one after another from twister t, each by Marsaglia and Tsang's
loop: a standard normal z (polar pairs of uniforms until one falls inside the unit circle),
retried while z <= -k; then one uniform u, accepted when
``log(1 - u) < z**2 / 2 + d (1 - V + log V)`` with ``V = (1 + c z)**3``; for a shape below 1
one more uniform to the power 1/shape. So where a value starts in its twister's words depends
on every value before it in the run.

Here every run is a lane, and a block of each lane's words is read ahead into a window. What
a start position gives does not depend on the parameters: whether the pair of uniforms there
is accepted, its normal, the next accepted pair at or after it (`nxt`), and ``log(1 - u)``.
From those, each lane's next `_BLOCK` values are placed by following `nxt` (one gather per
value for all lanes at once), as if each value took the first accepted pair and its uniform
accepted it; one vectorized pass then checks every placed value, and each lane keeps its values
up to its first that failed (a normal at or below -k, or a rejection, about one value in 20
to 50), which continues after the words that attempt used. Lanes run off their window's end
read a new one; the words a window looked at and did not use stay their twisters' next
(`mxnet_rng`'s ``PARALLEL.peek``).
"""
import math

import numpy as np

from .mxnet_rng import PARALLEL, _mult, _points, canonical

__all__ = ["gamma_values", "constants", "accept", "below_one"]

_BLOCK = 32  # values placed per lane before a check
_WINDOW = 4096  # most words a lane reads ahead at a time
_SLACK = 32  # words a window holds beyond 4 a value


def constants(a, ftype):
    """Marsaglia and Tsang's constants of each shape: d = a - 1/3 (a + 2/3 below 1),
    k = sqrt(9 d), c = 1 / k, computed in double and rounded to `ftype` where MXNet's C++
    rounds them.

    Args:
        a: the shapes, an array.
        ftype: numpy float32 or float64.

    Returns:
        (d, k, c), arrays of `ftype` and a's shape.

    Example::

        from gluonlite.ops.mxnet_gamma import constants
        d, k, c = constants(np.array([4.0 / 3]), np.float64)
        float(d[0]), float(k[0])   # (1.0, 3.0)
    """
    a64 = a.astype(np.float64)
    d = np.where(a64 < 1, a64 + 2.0 / 3.0, a64 - 1.0 / 3.0).astype(ftype)
    k = np.sqrt(9.0 * d.astype(np.float64)).astype(ftype)
    c = (1.0 / k.astype(np.float64)).astype(ftype)
    return d, k, c


def accept(z, log1m_u, d, c, ftype):
    """Marsaglia and Tsang's test of normals `z` (above -k) with uniforms u: accepted when
    ``log(1 - u) < z**2 / 2 + d (1 - V + log V)``, V = (1 + c z)**3, V in `ftype` and the test
    in double, each step rounded where MXNet's C++ rounds it.

    Args:
        z: the normals, of `ftype`.
        log1m_u: ``log(1 - u)`` of the uniforms, float64, z's shape.
        d: the constants d of `constants`, z's shape.
        c: the constants c, as `d`.
        ftype: numpy float32 or float64.

    Returns:
        (accepted mask, V); a value accepted is d * V * scale.

    Example::

        from gluonlite.ops.mxnet_gamma import accept, constants
        d, k, c = constants(np.array([2.0]), np.float64)
        ok, v = accept(np.array([0.0]), np.log(np.array([0.5])), d, c, np.float64)
        bool(ok[0]), float(v[0])   # (True, 1.0): z = 0 gives V = 1, and log 0.5 < 0
    """
    x = (1.0 + (c * z).astype(np.float64)).astype(ftype)
    v = x * x * x
    v64, z64 = v.astype(np.float64), z.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):  # log V of V <= 0: NaN, rejected
        rhs = 0.5 * z64 * z64 + d.astype(np.float64) * (1.0 - v64 + np.log(v64))
    return log1m_u < rhs, v


def below_one(vals, u2, a, ftype):
    """Values of shapes `a` below 1 times a further uniform `u2` to the power 1/a, with the C
    library's pow in double (numpy's, and float32's, differ in the last bit).

    Args:
        vals: the values accepted for shape a + 1, of `ftype`.
        u2: the uniforms, vals' shape.
        a: the shapes (below 1), vals' shape.
        ftype: numpy float32 or float64.

    Returns:
        array of `ftype`, vals' shape.

    Example::

        from gluonlite.ops.mxnet_gamma import below_one
        below_one(np.array([2.0]), np.array([0.25]), np.array([0.5]), np.float64)
        # array([0.125]): 2 * 0.25 ** 2
    """
    e = (1.0 / a.astype(np.float64)).astype(ftype)
    pw = np.fromiter(map(math.pow, u2.astype(np.float64).tolist(), e.tolist()), np.float64,
                     len(e))
    return (vals * pw).astype(ftype)


class _Window:
    """What an attempt starting at each of a window's words gives, for each lane: `words` is
    one row a lane of its run's next words (uint32 or uint64).

    Every table holds one row of `row` entries a lane, and a position is a flat index into
    them (the lane's row start plus its word): one `take` reads a position's entry for all
    lanes and values of a block at once, where a (lane, word) index pair costs two gathers
    and a broadcast. Rows run past the words (`end`) to `row`, so that the positions an
    attempt's checks read are indices without clipping; past the words a position holds no
    accepted pair and its attempt does not fit (`fits`)."""

    def __init__(self, words, ftype):
        self.per = per = 1 if ftype == np.float32 else 2
        if per == 1:
            u = canonical(words.ravel(), np.float32).reshape(words.shape)
        else:  # the uniform starting at each word: that word and the next
            pairs = np.stack([words[:, :-1], words[:, 1:]], axis=-1)
            u = canonical(pairs.ravel(), np.float64).reshape(words.shape[0], -1)
        lanes, end = u.shape
        # an attempt reads its pair's uniforms at q and q + per and its test's at q + 2 per
        self.end, self.row = end, end + 2 * per + 1
        self.base = np.arange(lanes, dtype=np.int64) * self.row
        n_pair = end - per  # the pair at q reads the uniforms at q and q + per
        _, y, r2, ok = _points(u[:, :n_pair], u[:, per:per + n_pair], ftype)

        def table(x, fill):
            t = np.full((lanes, self.row), fill, dtype=x.dtype)
            t[:, :x.shape[1]] = x
            return t.ravel()

        self.u = table(u, 0.5)
        self.y = table(y, 0)
        # the normal needs the radius of accepted pairs only: a rejected one's any finite value
        self.r2 = table(np.where(ok, r2, r2.dtype.type(0.5)), 0.5)
        # the next accepted pair at or after q (none: `end`); attempts step by a pair's words
        idx = np.where(ok, np.arange(n_pair), end)
        nxt = np.full((lanes, self.row), end, dtype=np.int64)
        step = 2 * per
        for r0 in range(step):
            col = idx[:, r0::step]
            nxt[:, r0:n_pair:step] = np.minimum.accumulate(col[:, ::-1], axis=1)[:, ::-1]
        self._nxt_local = nxt
        self.nxt = (nxt + self.base[:, None]).ravel()
        self.jump = self._jumps(3)
        self._jump_small = None

    def _jumps(self, words):
        """Where the next value starts if the one starting at each position keeps its first
        pair and is accepted, an attempt of `words` uniforms (3; 4 for a shape below 1), as
        flat positions: one gather a value."""
        return (np.minimum(self._nxt_local + words * self.per, self.end)
                + self.base[:, None]).ravel()

    def fits(self, at, lanes, words):
        """Whether the attempts at flat positions `at` (of `lanes`, broadcasting) have their
        `words` words (an int or array) inside the window."""
        return at + words <= self.base[lanes] + self.end

    def normal_at(self, q):
        """The normal y * sqrt(-2 log r2 / r2) of the accepted pairs at flat positions `q`,
        computed as `mxnet_rng.polar` computes it (a rejected pair's: any finite value, never
        kept)."""
        return self.y.take(q) * _mult(self.r2.take(q))

    def log1m_at(self, q):
        """``log(1 - u)`` in double of the uniforms at flat positions `q`."""
        return np.log(1.0 - self.u.take(q).astype(np.float64))

    @property
    def jump_small(self):
        """`jump` for a shape below 1 (one word more), made when a block holds one."""
        if self._jump_small is None:
            self._jump_small = self._jumps(4)
        return self._jump_small


def gamma_values(a, b, n, ftype):
    """The `n` values of a gamma draw from the parallel stream, value i with shape a[i] and
    scale b[i] (arrays of n values), computed in `ftype` (float32 or float64) as MXNet's
    kernel computes them.

    Args:
        a: the shapes, (n,), positive.
        b: the scales, (n,).
        n: the number of values.
        ftype: numpy float32 or float64.

    Returns:
        (n,) array of `ftype`.

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.mxnet_gamma import gamma_values
        mxnet_rng.seed(0)
        g = gamma_values(np.full(5000, 2.0, np.float32), np.ones(5000, np.float32), 5000,
                         np.float32)
        abs(g.mean() - 2) < 0.1   # True
    """
    out = np.empty(n, dtype=ftype)
    runs = PARALLEL.runs(n)
    if not runs:
        return out
    nxt_value = np.array([s for _, s, _ in runs], dtype=np.int64)
    stop = np.array([e for _, _, e in runs], dtype=np.int64)
    d, k, c = constants(a, ftype)
    small = (a.astype(np.float64) < 1)
    per = 1 if ftype == np.float32 else 2
    slack = _SLACK
    while (nxt_value < stop).any():
        live = np.nonzero(nxt_value < stop)[0]
        left = int((stop[live] - nxt_value[live]).max())
        # a value takes 3.5 words on average (a pair is kept 4 times in 5)
        # (at least one attempt's words, so that every table has a position)
        width = max(4 * per, min(max(_WINDOW, slack), per * (4 * left + slack)))
        words, read = PARALLEL.peek(live, width)
        win = _Window(words, ftype)
        before = nxt_value.copy()
        pos = np.zeros(len(live), dtype=np.int64)
        nxt_value[live] = _fill(win, pos, nxt_value[live], stop[live], (a, b, d, k, c, small),
                                out, ftype)
        read(pos)
        if (nxt_value == before).all():
            # no lane placed a value: one needs more words than the window held (a long run
            # of rejections, vanishingly rare); read further ahead
            slack *= 2
    return out


def _fill(win, pos, j, stop, params, out, ftype):
    """Place and check values block by block until every lane is done or has run off its
    window; `pos` (each lane's word in its window) is advanced in place. Returns each lane's
    next value.

    A block's arrays are (step, lane): row s is every lane's s-th value of the block."""
    a, b, d, k, c, small = params
    per = win.per
    g = win.base + pos  # flat positions
    while True:
        todo = np.nonzero(j < stop)[0]
        if not len(todo):
            break
        m = len(todo)
        steps = min(_BLOCK, int((stop[todo] - j[todo]).max()))
        value = j[todo] + np.arange(steps)[:, None]
        inside = value < stop[todo]
        vi = np.minimum(value, stop[todo] - 1)
        sv = small.take(vi)
        any_small = sv.any()
        # each value's start if every value before it in the block keeps its first pair
        starts = np.empty((steps + 1, m), dtype=np.int64)
        starts[0] = g[todo]
        for s in range(steps):
            if any_small:
                starts[s + 1] = np.where(sv[s], win.jump_small.take(starts[s]),
                                         win.jump.take(starts[s]))
            else:
                starts[s + 1] = win.jump.take(starts[s])
        p, starts = starts[steps], starts[:steps]
        at = win.nxt.take(starts)
        ok_window = win.fits(at, todo, (3 + sv) * per if any_small else 3 * per)
        z = win.normal_at(at)
        alive = z > -k.take(vi)
        lhs = win.log1m_at(at + 2 * per)
        accepted, v = accept(z, lhs, d.take(vi), c.take(vi), ftype)
        # a row of False below the block: a lane whose values all pass stops there
        good = np.zeros((steps + 1, m), dtype=bool)
        np.logical_and(accepted, alive, out=good[:steps])
        good[:steps] &= ok_window
        good[:steps] &= inside
        first = good.argmin(axis=0)
        kept = np.flatnonzero(np.arange(steps)[:, None] < first)
        dest = value.ravel().take(kept)
        vals = d.take(dest) * v.ravel().take(kept) * b.take(dest).astype(ftype)
        sm = small.take(dest)
        if sm.any():  # one more uniform, to the power 1/shape
            u2 = win.u.take(at.ravel().take(kept[sm]) + 3 * per)
            vals[sm] = below_one(vals[sm], u2, a[dest[sm]], ftype)
        out[dest] = vals
        # where each lane goes on: after its block, or after its first failed attempt
        failed = first < steps
        f = np.minimum(first, steps - 1) * m + np.arange(m)
        fq = at.ravel().take(f)
        stuck = failed & ~(ok_window.ravel().take(f) & inside.ravel().take(f))
        retry = fq + np.where(alive.ravel().take(f), 3 * per, 2 * per)
        g[todo] = np.where(failed, np.where(stuck, starts.ravel().take(f), retry), p)
        j[todo] += first
        # a lane that ran off its window, or whose block ended past its last value, stops
        # at the value it could not place (the next window starts there)
        if (stuck & (j[todo] < stop[todo])).any():
            break
    pos[:] = g - win.base
    return j
