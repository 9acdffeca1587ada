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
read a new one; the words read ahead and not used go back to the twisters.
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
    """Each lane's next `width` words and what an attempt starting at each of them gives."""

    def __init__(self, twisters, width, ftype):
        self.per = per = 1 if ftype == np.float32 else 2
        self.words = PARALLEL.rows(twisters, width)
        w = self.words
        if per == 1:
            u = canonical(w.ravel(), np.float32).reshape(w.shape)
        else:  # the uniform starting at each word: that word and the next
            pairs = np.stack([w[:, :-1], w[:, 1:]], axis=-1)
            u = canonical(pairs.ravel(), np.float64).reshape(w.shape[0], -1)
        self.u = u
        n_pair = u.shape[1] - per  # the pair at p reads the uniforms at p and p + per
        _, y, r2, ok = _points(u[:, :n_pair], u[:, per:per + n_pair], ftype)
        # the normal and log(1 - u) are needed where attempts land only (`normal_at`,
        # `log1m_at`): a few values a lane, against a whole window of positions
        self.y, self.r2, self.ok = y, r2, ok
        # the next accepted pair at or after p: attempts step by a pair's words (2 per)
        big = np.iinfo(np.int64).max // 2
        idx = np.where(ok, np.arange(n_pair), big)
        nxt = np.empty_like(idx)
        step = 2 * per
        for r0 in range(step):
            col = idx[:, r0::step]
            nxt[:, r0::step] = np.minimum.accumulate(col[:, ::-1], axis=1)[:, ::-1]
        # positions run to the window's end (`end`, where no attempt fits: the next pair
        # `big`), so that a position is always an index
        self.end = end = u.shape[1]
        self.nxt = np.concatenate([nxt, np.full((nxt.shape[0], end + 1 - n_pair), big)],
                                  axis=1)
        self.n_pair, self.big = n_pair, big
        # where the next value starts if the one starting at p keeps its first pair and is
        # accepted (shape at least 1; below 1 one word more): one gather a value
        self.jump = np.minimum(self.nxt + 3 * per, end)
        self._jump_small = None

    def normal_at(self, lanes, q):
        """The normal y * sqrt(-2 log r2 / r2) of the accepted pairs at positions `q` of
        `lanes` (arrays of one shape), computed as `mxnet_rng.polar` computes it."""
        r = self.r2[lanes, q]
        # a position past the last accepted pair gathers a rejected one: any finite value
        # (it is never kept)
        return self.y[lanes, q] * _mult(np.where(self.ok[lanes, q], r, r.dtype.type(0.5)))

    def log1m_at(self, lanes, q):
        """``log(1 - u)`` in double of the uniforms at positions `q` of `lanes`."""
        return np.log(1.0 - self.u[lanes, q].astype(np.float64))

    @property
    def jump_small(self):
        """`jump` for a shape below 1 (one word more), made when a block holds one."""
        if self._jump_small is None:
            self._jump_small = np.minimum(self.nxt + 4 * self.per, self.end)
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
    twisters = [PARALLEL.twister(i) for i, _, _ in runs]
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
        win = _Window([twisters[i] for i in live], width, ftype)
        before = nxt_value.copy()
        pos = np.zeros(len(live), dtype=np.int64)
        nxt_value[live] = _fill(win, pos, nxt_value[live], stop[live], (a, b, d, k, c, small),
                                out, ftype)
        for lane, (i, p) in enumerate(zip(live.tolist(), pos.tolist())):
            twisters[i].unread(win.words[lane, p:])
        if (nxt_value == before).all():
            # no lane placed a value: one needs more words than the window held (a long run
            # of rejections, vanishingly rare); read further ahead
            slack *= 2
    return out


def _fill(win, pos, j, stop, params, out, ftype):
    """Place and check values block by block until every lane is done or has run off its
    window; `pos` (each lane's position in its window) is advanced in place. Returns each
    lane's next value."""
    a, b, d, k, c, small = params
    per, lanes = win.per, np.arange(len(pos))
    n_u = win.u.shape[1]
    while True:
        todo = np.nonzero(j < stop)[0]
        if not len(todo):
            return j
        lt = lanes[todo]
        steps = min(_BLOCK, int((stop[todo] - j[todo]).max()))
        starts = np.empty((len(todo), steps), dtype=np.int64)
        value = j[todo, None] + np.arange(steps)
        inside = value < stop[todo, None]
        vi = np.minimum(value, stop[todo, None] - 1)
        p = pos[todo]
        sv = small[vi]
        any_small = sv.any()
        for s in range(steps):
            starts[:, s] = p
            if any_small:
                p = np.where(sv[:, s], win.jump_small[lt, p], win.jump[lt, p])
            else:
                p = win.jump[lt, p]
        at = win.nxt[lt[:, None], starts]
        ok_window = at + (3 + small[vi]) * per <= n_u  # the attempt's words are all here
        qc = np.minimum(at, win.n_pair - 1)
        z = win.normal_at(lt[:, None], qc)
        alive = z > -k[vi]
        lhs = win.log1m_at(lt[:, None], np.minimum(qc + 2 * per, n_u - 1))
        accepted, v = accept(z, lhs, d[vi], c[vi], ftype)
        accepted &= alive
        good = accepted & ok_window & inside
        first = np.where(good.all(axis=1), steps, np.argmin(good, axis=1))
        keep = np.arange(steps) < first[:, None]
        rows, cols = np.nonzero(keep)
        dest = value[rows, cols]
        vals = d[dest] * v[rows, cols] * b[dest].astype(ftype)
        sm = small[dest]
        if sm.any():  # one more uniform, to the power 1/shape
            u2 = win.u[lt[rows[sm]], at[rows[sm], cols[sm]] + 3 * per]
            vals[sm] = below_one(vals[sm], u2, a[dest[sm]], ftype)
        out[dest] = vals
        # where each lane goes on: after its block, or after its first failed attempt
        r = np.arange(len(todo))
        f = np.minimum(first, steps - 1)
        failed = first < steps
        fq = at[r, f]
        fstart = starts[r, f]
        stuck = failed & (~ok_window[r, f] | ~inside[r, f])
        retry = np.where(alive[r, f], fq + 3 * per, fq + 2 * per)
        newp = np.where(failed, np.where(stuck, fstart, retry), p)
        # a lane that ran off its window, or whose block ended past its last value, stops
        # at the value it could not place (the next window starts there)
        pos[todo] = newp
        j[todo] = j[todo] + first
        if stuck.any() and (stuck & (j[todo] < stop[todo])).any():
            return j
