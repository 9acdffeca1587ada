"""MXNet 1.9.1's CPU random streams, draw for draw: a program that seeds `mx.random.seed(s)`
gets MXNet's numbers from the samplers that read these streams.

MXNet's CPU keeps two kinds of generator, each a Mersenne Twister (C++'s ``std::mt19937``),
reseeded by ``mx.random.seed(s)`` from ``base = s * 127`` (modulo 2**32; 0 before any seed):

- **the parallel stream** (`PARALLEL`): 1024 twisters, twister i seeded with ``base + i``.
  An operator that draws N values splits them into ``T = min(ceil(N / 64), 1024)`` runs of
  ``ceil(N / T)`` values, run t drawn in order from twister t; the next operator starts again
  at twister 0, where the last one left it. `nd.random`'s samplers and Dropout draw here.
- **the single stream** (`SINGLE`): one twister seeded with ``base``. `mx.np.random`'s
  uniform and normal draw here.

Values are made from the twisters' 32-bit words as the C++ library MXNet was built with
(libstdc++) makes them:

- a canonical uniform in [0, 1): in float32 one word w, ``float32(w) / 2**32``; in float64
  two words, ``(w1 + w2 * 2**32) / 2**64`` rounded once; a value rounding to 1 is the
  largest below 1;
- a normal: Marsaglia's polar method on two such uniforms of the same precision, retried
  until the point falls inside the unit circle. The parallel stream's samplers keep one value
  of each accepted pair (a fresh distribution object per value); the single stream keeps
  both (one object for the whole array).

The uniforms, and so uniform samples, integers, exponentials' draws and Dropout's masks, are
MXNet's bit for bit. So are the normals: each goes through the C library's ``log`` (in
float32 its ``logf``, by way of `libm32`, which asks the C library itself wherever glibc's
``logf`` is not the correctly rounded value).
"""
import math

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from . import libm32

__all__ = ["PARALLEL", "SINGLE", "seed", "canonical", "state", "set_state", "standalone"]

_MASK = 0xFFFFFFFF
_SEED_SCALE = 127  # MXNet's seed multiplier (its `kRandMagic`)
_STATES = 1024  # twisters of the parallel stream (MXNet's `kNumRandomStates`)
_MIN_RUN = 64  # values drawn at least per twister (its `kMinNumRandomPerThread`)
_TWO32 = 4294967296.0
_MARK_EVERY = 1 << 22  # words between the states a twister keeps for a restore (about 13 ms)
_MARKS = 4  # states kept, newest last
_KEEP_VIEW = 1 << 18  # largest read-ahead block (words) a twister keeps a view into (`unread`)
# runs at least this long (values) make a uniform draw run by run (`_Twisters.uniform`):
# 0.93 of the time at runs of 4096 (4 million values), 1.4 times at runs of 1024
_RUN_BY_RUN = 4096
# the most the single stream's large draws take at a time: values a uniform draw converts,
# words a round of normals reads
_SINGLE_CHUNK = 1 << 20
_NORMAL_ROUND = 4096  # most values a run keeps in one round of `_Twisters.normal`
# A draw over at least `_AHEAD_RUNS` runs, each reading at most a quarter of `_AHEAD_WIDTH`
# words, takes them from rows its twisters read ahead (`_Ahead`): one gather for all the runs
# in place of a call per twister (1.3 us a run). A uniform draw of 24 576 values (384 runs of
# 64, a Dropout mask) takes 0.12 ms against 0.45, of 104 000 (1020 runs) 0.5 against 1.4.
# 1024 rows of 1024 32-bit words are 4 MB.
_AHEAD_RUNS = 64
_AHEAD_WIDTH = 1024
_NONE = np.empty(0, np.uint64)
# `canonical`'s constants: the scale of a word (two words) and the largest uniform below 1
_SCALE32, _SCALE64 = np.float32(1.0 / _TWO32), 1.0 / _TWO32 ** 2
_BELOW_ONE32 = np.nextafter(np.float32(1), np.float32(0))
_BELOW_ONE64 = np.nextafter(1.0, 0.0)
_SHIFT32 = np.uint64(32)


class _Unseeded(ISeedSequence):
    """A seed sequence of zeros: a new MT19937 is reseeded at once (`_Twister.seed`), so the
    entropy numpy would gather for it (half of the 0.1-0.2 ms a new one costs) is skipped.

    The zeros are a list, not an array: MT19937's constructor copies them into its state one
    index at a time, which costs 30 us from an array (a numpy scalar made per word) and 2-4 us
    from a list."""

    def generate_state(self, n_words, dtype=np.uint32):
        return [0] * n_words


_UNSEEDED = _Unseeded()


class _Twister:
    """One ``std::mt19937`` (numpy's MT19937 with the reference seeding, which numpy keeps as
    its legacy seeding) that counts the words drawn since its seed, so that a snapshot of it
    is two numbers and a restore replays the count: from the seed, or from the newest of the
    states it keeps every `_MARK_EVERY` words at or before the count (so a restore costs at
    most that many words however long the process has drawn). The numpy object is made once
    (about 3 us) and reseeded in place (2 us)."""

    def __init__(self):
        self._bg = np.random.MT19937(_UNSEEDED)
        self.seed_value, self.drawn = None, 0
        self._back = _NONE  # words drawn ahead and handed back (`unread`), read first
        self._made = 0  # words the numpy twister has made since the seed
        self._marks = []  # (words made, its state), oldest first

    def seed(self, s):
        self._bg._legacy_seeding(s & _MASK)
        self.seed_value, self.drawn = s & _MASK, 0
        self._back, self._made, self._marks = _NONE, 0, []

    def _raw(self, n):
        if self._made - (self._marks[-1][0] if self._marks else 0) >= _MARK_EVERY:
            self._marks = self._marks[-(_MARKS - 1):] + [(self._made, self._bg.state)]
        self._made += n
        return self._bg.random_raw(n)

    def words(self, n):
        """The next `n` words (uint64 array): the twister's own, a view of words handed back
        (`unread`), or both, copied into one array (`into`)."""
        back = self._back
        if not len(back):
            self.drawn += n
            return self._raw(n)
        if len(back) < n:
            out = np.empty(n, dtype=np.uint64)
            self.into(out)
            return out
        self.drawn += n
        self._back = back[n:] if len(back) > n else _NONE
        return back[:n]

    def into(self, out):
        """Write the next ``len(out)`` words into `out` (a 1-D uint64 array or view), so that
        a block filled twister by twister holds each word after one copy (through `words`,
        two: into an array of its own, then into the block)."""
        n, back = len(out), self._back
        self.drawn += n
        k = min(len(back), n)  # the words handed back come first
        if k:
            out[:k] = back[:k]
            # an empty view would keep the block it was cut from alive
            self._back = back[k:] if len(back) > k else _NONE
        if k < n:
            out[k:] = self._raw(n - k)

    def unread(self, w):
        """Hand back words read ahead but not used: the next `words` reads them first.

        A view into a sampler's read-ahead block is kept as it is, not copied (a copy a lane
        was a tenth of a normal draw's time); the block then lives until every twister has
        read past its part, so one over `_KEEP_VIEW` words is copied out of instead. The
        caller must not write into `w` afterwards."""
        if len(w):
            self.drawn -= len(w)
            if len(self._back):
                self._back = np.concatenate([w, self._back])
            else:
                # the block `w` was cut from (numpy's base is its owner; a buffer that is not
                # an array counts as w's own)
                whole = w.base if isinstance(w.base, np.ndarray) else w
                self._back = w if whole.size <= _KEEP_VIEW else w.copy()

    def replay(self, s, drawn):
        """Put the twister where it was `drawn` words after seed `s`."""
        marks = [m for m in self._marks if m[0] <= drawn] if self.seed_value == s & _MASK else []
        self.seed(s)
        if marks:
            self._made, state = marks[-1]
            self._bg.state = state
            self._marks = marks
            self.drawn = self._made
        while self.drawn < drawn:
            self.words(min(drawn - self.drawn, 1 << 22))


def canonical(words, dtype):
    """Uniforms in [0, 1) of `dtype` from 32-bit `words` as libstdc++ makes them: one word a
    float32 value, two (low first) a float64 one.

    Args:
        words: uint32 or uint64 array of twister outputs; for float64 of even length.
        dtype: numpy float32 or float64.

    Returns:
        array of `dtype`, one value per word (float32) or per pair of words (float64).

    Example::

        from gluonlite.ops.mxnet_rng import canonical
        canonical(np.array([0, 2**31], np.uint32), np.float32)   # array([0. , 0.5], ...)
    """
    w = np.asarray(words)
    if np.dtype(dtype) == np.float32:
        u = w.astype(np.float32)  # from 32 or 64 bits: the word's value rounded once
        u *= _SCALE32
        top = _BELOW_ONE32
    else:
        # (w1 + w2 * 2**32) rounded to double once, then scaled (exactly) by 2**-64
        w = w.astype(np.uint64, copy=False)
        u = (w[0::2] | (w[1::2] << _SHIFT32)).astype(np.float64)
        u *= _SCALE64
        top = _BELOW_ONE64
    return np.minimum(u, top, out=u)


def polar(u1, u2, dtype):
    """Marsaglia's polar method on pairs of canonical uniforms, as libstdc++ computes it in
    `dtype`: the point (2 u1 - 1, 2 u2 - 1) is kept when inside the unit circle (and not the
    centre), and gives the two normals x * mult and y * mult (libstdc++ returns y's first).

    Args:
        u1: canonical uniforms of `dtype`, the first of each pair.
        u2: the second of each pair, as `u1`.
        dtype: numpy float32 or float64, the type of the arithmetic.

    Returns:
        (accepted mask of u1's length, x * mult, y * mult): the normals of the accepted
        pairs only, in order.

    Example::

        from gluonlite.ops.mxnet_rng import polar
        ok, xs, ys = polar(np.array([0.5, 0.9], np.float32), np.array([0.75, 0.99], np.float32),
                           np.float32)
        ok.tolist()   # [True, False]: (0, 0.5) is inside the circle, (0.8, 0.98) outside
    """
    x, y, r2, ok = _points(u1, u2, dtype)
    mult = _mult(r2[ok])
    return ok, x[ok] * mult, y[ok] * mult


def _points(u1, u2, dtype):
    """The polar method's points of uniform pairs (arrays of one shape), in `dtype`:
    (x, y, r2, accepted mask)."""
    f = np.dtype(dtype).type
    # libstdc++ computes 2u - 1 in double and rounds it to the result type once; 2u is
    # exact, so one subtraction in that type rounds the same
    x = f(2) * u1.astype(dtype, copy=False) - f(1)
    y = f(2) * u2.astype(dtype, copy=False) - f(1)
    r2 = x * x + y * y
    return x, y, r2, (r2 <= 1) & (r2 != 0)


def _mult(r2):
    """``sqrt(-2 log r2 / r2)`` of accepted points' `r2`, in its type: a normal is x or y
    times it."""
    return np.sqrt(r2.dtype.type(-2) * _log(r2) / r2)


def _log(r):
    """The natural logarithm as MXNet's C library computes it: in float64 the C library's
    own (Python's `math.log`; numpy's vectorized log is off by one bit in up to a fifth of
    values on some numpy builds), in float32 its `logf` (`libm32`: glibc's differs from the
    correctly rounded value on about 1 accepted point in 140). Any shape."""
    if r.dtype == np.float64:
        return np.fromiter(map(math.log, r.ravel().tolist()), np.float64,
                           r.size).reshape(r.shape)
    return libm32.logf(r)


def _uniforms_into(out, pieces, per):
    """Fill `out` piece by piece, (twister, start, stop) each, with the canonical uniforms of
    the twister's next words (`per` a value), so that a large draw's words are never all
    held at once; returns `out`."""
    for tw, start, stop in pieces:
        out[start:stop] = canonical(tw.words(per * (stop - start)), out.dtype)
    return out


def _normal_run(tw, n, dtype):
    """`n` normals of `dtype` from twister `tw` alone, one per accepted pair, as
    `_Twisters.normal` draws a run: rounds of as many pairs as the run still needs and a
    third more, the words after the last pair kept handed back."""
    out = np.empty(n, dtype=dtype)
    per = 1 if np.dtype(dtype) == np.float32 else 2
    at = 0
    while at < n:
        k = n - at
        words = tw.words(2 * per * (k + k // 3 + 8))
        u = canonical(words, dtype)
        _, y, r2, ok = _points(u[0::2], u[1::2], dtype)
        kept = np.flatnonzero(ok)[:k]
        out[at:at + len(kept)] = y[kept] * _mult(r2[kept])
        if len(kept) == k:
            tw.unread(words[2 * per * (int(kept[-1]) + 1):])
        at += len(kept)
    return out


def _refill(row, at, tw):
    """Move a read-ahead row's unread words (from column `at` on) to its front and fill the
    rest with twister `tw`'s next words, so that the row again holds the twister's next
    ``len(row)`` words from column 0."""
    rest = len(row) - at
    row[:rest] = row[at:]
    tw.into(row[rest:])


class _Ahead:
    """Words read ahead from twisters 0..T-1 of the parallel stream, a row of `width` words
    each (`_AHEAD_WIDTH` when made; 32-bit, as the twisters make them), and the next unread
    column of each row: what draws over many short runs read, so that a draw gathers all its
    runs' words at once and a twister is called only when its row runs short. A draw of a
    fixed number of words a value reads them (`take`); a sampler whose values take a varying
    number looks at each run's next words first and then says how many it used (`peek`,
    `skip`).

    A row's unread words are its twister's next ones: the twister has read them (they count
    in its `drawn`), and any words it holds handed back come after them. Anything else that
    reads the twister hands them back to it first (`hand_back`)."""

    def __init__(self):
        self.width = _AHEAD_WIDTH
        self.block = np.empty((0, self.width), dtype=np.uint32)
        self.at = np.empty(0, dtype=np.int64)

    def hand_back(self, i, tw):
        """Give twister `i` (`tw`) its row's unread words back (a copy: the row is refilled
        later); the row is then empty."""
        if i < len(self.at) and self.at[i] < self.width:
            tw.unread(self.block[i, self.at[i]:].astype(np.uint64))
            self.at[i] = self.width

    def hand_all_back(self, pool):
        """`hand_back` every row (before a snapshot of the twisters' counts)."""
        for i in np.flatnonzero(self.at < self.width).tolist():
            self.hand_back(i, pool[i])

    def _grow(self, t):
        """Rows for twisters up to t - 1 (the new ones empty)."""
        if t > len(self.at):
            block = np.empty((t, self.width), dtype=np.uint32)
            block[:len(self.at)] = self.block
            self.block = block
            self.at = np.concatenate([self.at, np.full(t - len(self.at), self.width)])

    def peek(self, twister, lanes, k):
        """The next `k` words (at most the rows' `width`) of each twister in `lanes` (an
        ascending int array; a rejection sampler's step may have none left), a
        (len(lanes), k) uint32 array of its own, left unread until `skip`; ``twister(i)`` as
        `take`'s."""
        w = self.width
        if not len(lanes):
            return np.empty((0, k), dtype=np.uint32)
        self._grow(int(lanes[-1]) + 1)
        for r in lanes[self.at[lanes] > w - k].tolist():
            _refill(self.block[r], int(self.at[r]), twister(r))
            self.at[r] = 0
        at = self.at[lanes]
        a, lo, hi = int(at[0]), int(lanes[0]), int(lanes[-1]) + 1
        if hi - lo == len(lanes) and (at[:-1] == a).all():
            # draws of one size keep the rows in step (the last run of a draw may be shorter,
            # its row a few words on): two slices
            out = np.empty((len(lanes), k), dtype=np.uint32)
            out[:-1] = self.block[lo:hi - 1, a:a + k]
            b = int(at[-1])
            out[-1] = self.block[hi - 1, b:b + k]
            return out
        return self.block.ravel().take((lanes * w + at)[:, None] + np.arange(k))

    def skip(self, lanes, used):
        """Mark the first used[i] words (peeked before) of twister lanes[i]'s row read."""
        self.at[lanes] += used

    def take(self, twister, t, k, last):
        """The next words of twisters 0..t-1: `k` of each, `last` (at most k) of the last,
        in run order, a flat uint32 array; ``twister(i)`` gives twister i, seeded, for a row
        that runs out (k at most the rows' `width`)."""
        lanes = np.arange(t)
        words = self.peek(twister, lanes, k)
        used = np.full(t, k)
        used[-1] = last
        self.skip(lanes, used)
        return words.ravel()[:(t - 1) * k + last]


class _Twisters:
    """The parallel stream: `_STATES` twisters, each seeded the first time it is used after a
    seed (most operators use a few)."""

    def __init__(self):
        self.base = 0
        self._pool = []
        self._live = set()  # twisters seeded for the present base
        self._ahead = _Ahead()

    def seed(self, base):
        self.base = base & _MASK
        self._live = set()
        # each twister is reseeded when next used: what was read ahead is dropped
        self._ahead = _Ahead()

    def twister(self, i):
        """Twister `i`, seeded for the present base, with every word it has read ahead for a
        draw handed back to it: a caller reads it as a plain ``std::mt19937``."""
        t = self._seeded(i)
        self._ahead.hand_back(i, t)
        return t

    def _seeded(self, i):
        while len(self._pool) <= i:
            self._pool.append(_Twister())
        t = self._pool[i]
        if i not in self._live:
            t.seed(self.base + i)
            self._live.add(i)
        return t

    @staticmethod
    def _split(n):
        """(runs, values a run, values of the last run) of a draw of `n` > 0 values."""
        step = -(-n // min(-(-n // _MIN_RUN), _STATES))
        runs = -(-n // step)
        return runs, step, n - (runs - 1) * step

    @staticmethod
    def runs(n):
        """[(twister, start, stop)] of an operator drawing `n` values (MXNet's LaunchRNG)."""
        if n <= 0:
            return []
        t, step, _ = _Twisters._split(n)
        return [(i, i * step, min(n, (i + 1) * step)) for i in range(t)]

    def words(self, n, per=1):
        """`per` consecutive words for each of `n` values, in the values' order: (n * per,),
        uint32 or uint64."""
        if n > 0:
            t, step, last = self._split(n)
            if t >= _AHEAD_RUNS and 4 * per * step <= self._ahead.width:
                return self._ahead.take(self._seeded, t, per * step, per * last)
        return np.concatenate([self.twister(i).words(per * (e - s))
                               for i, s, e in self.runs(n)] or [np.empty(0, np.uint64)])

    def rows(self, twisters, width):
        """The next `width` words of each of `twisters`, one row each: (len, width), filled
        in place (`_Twister.into`): a draw over many runs pays a few microseconds a run
        here."""
        out = np.empty((len(twisters), width), dtype=np.uint64)
        for row, tw in zip(out, twisters):
            tw.into(row)
        return out

    def peek(self, lanes, k):
        """The next `k` words of each twister in `lanes` (ascending run indices, at least
        one), one row each, left unread: returns (words, read), words (len(lanes), k) uint32
        or uint64, where ``read(used)`` marks the first used[i] words of row i read and leaves
        the rest the twister's next words.

        Over `_AHEAD_RUNS` twisters or more, with rows of at most half the read-ahead width,
        the words come from the rows read ahead (`_Ahead.peek`: one gather for all, a
        twister called when its row runs short); otherwise each twister is read into its
        row (`rows`) and ``read`` hands its unused words back."""
        lanes = np.asarray(lanes, dtype=np.int64)
        if len(lanes) >= _AHEAD_RUNS and 2 * k <= self._ahead.width:
            return self.look(lanes, k), lambda used: self.skip(lanes, used)
        tws = [self.twister(i) for i in lanes.tolist()]
        words = self.rows(tws, k)

        def read(used):
            for tw, row, u in zip(tws, words, np.asarray(used).tolist()):
                tw.unread(row[u:])
        return words, read

    def look(self, lanes, k):
        """The next `k` words (at most the rows' width) of each twister in `lanes`
        (ascending run indices, any number, none included) from the rows read ahead:
        (len(lanes), k) uint32, left unread until `skip`. For a sampler that looks a few
        words ahead at every step of its runs (the rejection samplers' `_Lanes`), so that a
        twister is called only when its row runs short."""
        return self._ahead.peek(self._seeded, np.asarray(lanes, dtype=np.int64), k)

    def skip(self, lanes, used):
        """Mark the first used[i] words `look` gave of twister lanes[i] read."""
        self._ahead.skip(lanes, used)

    def uniform(self, n, dtype):
        """`n` canonical uniforms of `dtype` (float64 for anything but float32).

        A draw whose runs are long (`_RUN_BY_RUN` values or more each) is made run by run
        into the output, so that its words (8 bytes each, one or two a value) are never all
        held at once: 0.42 of the time on a 100-million-value draw (a VGG Dense layer's
        initialization), which otherwise spent most of it paging in the words' array."""
        f32 = np.dtype(dtype) == np.float32
        per, ftype = (1, np.float32) if f32 else (2, np.float64)
        if n <= 0 or self._split(n)[1] < _RUN_BY_RUN:
            return canonical(self.words(n, per), ftype)
        return _uniforms_into(np.empty(n, dtype=ftype),
                              [(self.twister(i), s, e) for i, s, e in self.runs(n)], per)

    def normal(self, n, dtype):
        """`n` standard normals of `dtype` (float32 or float64), one per accepted pair.

        In rounds over every twister still short of values: each reads as many pairs as the
        neediest still wants this round (`_NORMAL_ROUND` at most; more pairs than values: 4
        pairs in 5 are kept), laid out one row a twister; a twister keeps its first accepted
        pairs up to its round's need, in order, at its run's next places, and hands back the
        words after the last pair it kept. A draw of one run (64 values or fewer) reads its
        one twister the same way without the rows' bookkeeping (`_normal_run`: a third of the
        time)."""
        runs = self.runs(n)
        if len(runs) == 1:
            return _normal_run(self.twister(0), n, dtype)
        out = np.empty(n, dtype=dtype)
        per = 1 if np.dtype(dtype) == np.float32 else 2
        at = np.array([s for _, s, _ in runs], dtype=np.int64)
        need = np.array([e - s for _, s, e in runs], dtype=np.int64)
        live = np.arange(len(runs))
        while len(live):
            # at most `_NORMAL_ROUND` values a run a round: a large draw's rows stay tens of
            # megabytes (all at once, 23 million values read 2 GB of words)
            k = np.minimum(need[live], _NORMAL_ROUND)
            width = int(k.max() + k.max() // 3 + 8)  # pairs a row
            rows, read = self.peek(live, 2 * per * width)
            u = canonical(rows.ravel(), dtype).reshape(len(live), 2 * width)
            _, y, r2, ok = _points(u[:, 0::2], u[:, 1::2], dtype)
            rank = np.cumsum(ok, axis=1)
            keep = ok & (rank <= k[:, None])
            values = y[keep] * _mult(r2[keep])
            got = np.minimum(rank[:, -1], k)
            # the kept values go to each row's run in order: row-major order is run order
            dest = np.repeat(at[live] - np.cumsum(got) + got, got) + np.arange(got.sum())
            out[dest] = values
            # a row that kept its round's values has read up to its last kept pair, any
            # other row all of its words
            last = np.argmax(rank >= k[:, None], axis=1)
            read(np.where(got == k, 2 * per * (last + 1), rows.shape[1]))
            at[live] += got
            need[live] -= got
            live = live[need[live] > 0]
        return out

    def state(self):
        self._ahead.hand_all_back(self._pool)
        return self.base, {i: self._pool[i].drawn for i in self._live}

    def set_state(self, st):
        self._ahead = _Ahead()  # each twister below is replayed to its count
        self.base, drawn = st
        self._live = set(drawn)
        for i, count in drawn.items():
            while len(self._pool) <= i:
                self._pool.append(_Twister())
            self._pool[i].replay(self.base + i, count)


class _Single:
    """The single stream: one twister, seeded on first use after a seed."""

    def __init__(self):
        self.base = 0
        self._tw = None
        self._live = False

    def seed(self, base):
        self.base = base & _MASK
        self._live = False

    def twister(self):
        if self._tw is None:
            self._tw = _Twister()
        if not self._live:
            self._tw.seed(self.base)
            self._live = True
        return self._tw

    def uniform(self, n, dtype):
        """`n` canonical uniforms of `dtype` (float64 for anything but float32), converted
        `_SINGLE_CHUNK` values at a time into the output: the words of a large draw are
        never all held at once (`_Twisters.uniform`)."""
        f32 = np.dtype(dtype) == np.float32
        per, ftype = (1, np.float32) if f32 else (2, np.float64)
        tw = self.twister()
        if n <= _SINGLE_CHUNK:
            return canonical(tw.words(per * n), ftype)
        return _uniforms_into(np.empty(n, dtype=ftype),
                              [(tw, at, min(n, at + _SINGLE_CHUNK))
                               for at in range(0, n, _SINGLE_CHUNK)], per)

    def normal(self, n, dtype):
        """`n` standard normals: both values of each accepted pair, y's first."""
        out = np.empty(n, dtype=dtype)
        per = 1 if np.dtype(dtype) == np.float32 else 2
        tw, at = self.twister(), 0
        while at < n:
            # each accepted pair gives two values; a round reads no more pairs than the
            # values left need, so none is read past the draw (at most `_SINGLE_CHUNK`
            # words a round: a large draw's words are never all held at once)
            pairs = min(-(-(n - at) // 2), _SINGLE_CHUNK // (2 * per))
            u = canonical(tw.words(2 * per * pairs), dtype)
            _, xs, ys = polar(u[0::2], u[1::2], dtype)
            got = np.stack([ys, xs], axis=1).ravel()
            take = min(len(got), n - at)
            out[at:at + take] = got[:take]
            at += take
        # an odd count leaves the pair's second value with the distribution object, which
        # MXNet drops with it: nothing to keep
        return out

    def state(self):
        return self.base, (self._tw.drawn if self._live else None)

    def set_state(self, st):
        self.base, drawn = st
        self._live = drawn is not None
        if drawn is not None:
            if self._tw is None:
                self._tw = _Twister()
            self._tw.replay(self.base, drawn)


PARALLEL = _Twisters()
SINGLE = _Single()


def seed(n, device=False):
    """Reseed both streams as ``mx.random.seed(n)`` does MXNet's (base n * 127 mod 2**32).

    Args:
        n: the seed, any int (taken modulo 2**32, as MXNet's C API takes an unsigned int).
        device: True for ``mx.random.seed(n, ctx)`` with a context: MXNet then seeds the
            single stream with n itself (the parallel one as without).

    Example::

        from gluonlite.ops import mxnet_rng
        mxnet_rng.seed(42); a = mxnet_rng.PARALLEL.uniform(3, np.float32)
        mxnet_rng.seed(42); b = mxnet_rng.PARALLEL.uniform(3, np.float32)
        bool((a == b).all())   # True
    """
    base = (int(n) & _MASK) * _SEED_SCALE
    PARALLEL.seed(base)
    SINGLE.seed(int(n) if device else base)


def state():
    """A snapshot of both streams, for `set_state` (an executor replays a forward's draws).

    Example::

        from gluonlite.ops import mxnet_rng
        s = mxnet_rng.state(); a = mxnet_rng.SINGLE.uniform(2, np.float32)
        mxnet_rng.set_state(s); b = mxnet_rng.SINGLE.uniform(2, np.float32)
        bool((a == b).all())   # True
    """
    return PARALLEL.state(), SINGLE.state()


def set_state(st):
    """Put both streams back where `state` found them.

    Args:
        st: what `state` returned.

    Example::

        from gluonlite.ops import mxnet_rng
        mxnet_rng.set_state(mxnet_rng.state())   # a no-op
    """
    PARALLEL.set_state(st[0])
    SINGLE.set_state(st[1])


def standalone(s):
    """A ``std::mt19937`` of its own, seeded with `s`, as an MXNet kernel makes one from a
    word it drew (the DGL samplers make one per vertex): it reads words (``words(n)``, a
    uint64 array) and takes back the ones read ahead (``unread``).

    Args:
        s: the seed (taken modulo 2**32).

    Returns:
        the twister.

    Example::

        from gluonlite.ops import mxnet_rng
        mxnet_rng.standalone(5489).words(1)   # array([3499211612], dtype=uint64): mt19937's first
    """
    tw = _Twister()
    tw.seed(int(s))
    return tw
