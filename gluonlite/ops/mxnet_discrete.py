"""MXNet 1.9.1's discrete samplers, computed as its CPU kernels compute them, so that a
seeded program draws MXNet's indices and counts: `mx.np.random.choice` and
`mx.np.random.multinomial` from the single stream (`mxnet_rng.SINGLE`), and the unique
Zipfian sampler (``_sample_unique_zipfian``, GluonNLP's log-uniform candidate sampler) from
the parallel one (`mxnet_rng.PARALLEL`).

The kernels, and what each reads from its stream:

- choice, uniform, with replacement: one 32-bit word a draw, the index ``word % a``;
- choice, uniform, without replacement: ``m = min(size, a - size)`` words, then a partial
  shuffle of ``range(a)`` (MXNet's "reservoir"), and a slice of it. Asking for all of a
  population (``size == a``) reads nothing and returns it in order, as MXNet does;
- choice, weighted, with replacement: one float32 uniform u a draw; the index is how many
  running sums of the weights (float32, unnormalized) fall below u;
- choice, weighted, without replacement: one float32 uniform a population element, the key
  ``log w - log(-log u)`` (Gumbel's trick, in float32), and the `size` largest keys;
- multinomial: one float64 uniform an experiment's draw, the category whose running sum of
  pvals (in pvals' type) first exceeds it, the last category when none does. With pvals as a
  list MXNet also fills ``len(pvals)`` uniforms more (its scratch space, then overwritten):
  they are read and dropped, so the stream moves on as MXNet's does;
- unique Zipfian: row r of a (rows, n) draw from twister ``r // ceil(rows / T)``, T = min(rows,
  1024), one float64 uniform x (two words) a try, the class ``lround(exp(x log range_max)) - 1``,
  tries until the row holds n distinct classes, in the order first drawn.
"""
import math

import numpy as np

from .mxnet_rng import PARALLEL, SINGLE, _log, canonical

__all__ = ["choice_indices", "multinomial_counts", "unique_zipfian"]


def _running_sum_float32(w):
    """float32 running sums of weights `w`, each step rounded as a C ``float`` accumulator
    rounds ``acc += w[k]`` (in double for float64 weights, then stored)."""
    if w.dtype == np.float32:
        return np.cumsum(w, dtype=np.float32)  # numpy's accumulate is sequential
    acc, out = np.float32(0), np.empty(len(w), np.float32)
    for k, v in enumerate(w.tolist()):
        acc = np.float32(float(acc) + v)
        out[k] = acc
    return out


def _count_below(acc, u):
    """For each u, how many of the running sums `acc` are below it (MXNet counts all of them:
    with negative weights the sums need not be sorted)."""
    if np.all(acc[1:] >= acc[:-1]):
        return np.searchsorted(acc, u, side="left").astype(np.int64)
    return (acc[None, :] < u[:, None]).sum(axis=1).astype(np.int64)


def choice_indices(a, size, replace=True, weights=None):
    """The indices ``_npi_choice`` draws from ``range(a)`` after the single stream's state.

    Args:
        a: the population's size (an int).
        size: the output's shape (a tuple; () for one draw).
        replace: whether an index may be drawn more than once.
        weights: None for uniform draws; else a 1-D float32 or float64 array of `a` weights,
            taken as they are (MXNet does not normalize them).

    Returns:
        int64 array of shape `size`.

    Raises:
        ValueError: `size` holds more draws than `a` without replacement.

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.mxnet_discrete import choice_indices
        mxnet_rng.seed(0)
        choice_indices(4, (4,), replace=False).tolist()   # [0, 1, 2, 3]: all of it, in order
    """
    n_out = int(np.prod(size, dtype=np.int64))
    if not replace and n_out > a:
        raise ValueError(f"_npi_choice: cannot take a larger sample than the population with "
                         f"replace=False: size {tuple(size)} holds {n_out} draws, a is {a}")
    tw = SINGLE.twister()
    if weights is not None:
        w = np.asarray(weights)
        w = w if w.dtype in (np.float32, np.float64) else w.astype(np.float32)
        u = canonical(tw.words(n_out if replace else a), np.float32)
        if replace:
            idx = _count_below(_running_sum_float32(w), u)
        else:
            # float32 logarithms, the C library's logf (mxnet_rng._log); logf of each weight
            # as a float
            with np.errstate(divide="ignore", invalid="ignore"):
                keys = -_log(-_log(u)) + _log(w.astype(np.float32))
            # the largest keys first; MXNet's std::sort leaves equal keys (zero weights) in
            # an order of its own, here they keep the population's
            idx = np.argsort(-keys, kind="stable")[:n_out]
        return idx.astype(np.int64).reshape(size)
    if replace:
        return (tw.words(n_out) % np.uint64(a)).astype(np.int64).reshape(size)
    m = min(n_out, a - n_out)
    split = a - m
    picks = (tw.words(m) % (np.arange(m, dtype=np.uint64) + np.uint64(split + 1))).tolist()
    order = list(range(a))
    for i, z in enumerate(picks):
        if z < split:
            order[z], order[i + split] = order[i + split], order[z]
    kept = order[a - n_out:] if 2 * n_out < a else order[:n_out]
    return np.array(kept, dtype=np.int64).reshape(size)


def multinomial_counts(n, pvals, size, from_list):
    """The counts ``_npi_multinomial`` draws: `n` draws an experiment over the categories of
    probabilities `pvals`, for each experiment of `size`.

    Args:
        n: draws an experiment.
        pvals: 1-D float array of the categories' probabilities, in the type MXNet computes
            in (float64 for a list, the array's own type otherwise).
        size: the experiments' shape (a tuple; () for one).
        from_list: whether pvals came as a list (MXNet then reads ``len(pvals)`` uniforms
            more and drops them).

    Returns:
        int64 array of shape ``size + (len(pvals),)``.

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.mxnet_discrete import multinomial_counts
        mxnet_rng.seed(0)
        int(multinomial_counts(10, np.array([0.5, 0.5]), (), True).sum())   # 10
    """
    k = len(pvals)
    shape = tuple(size) + (k,)
    experiments = int(np.prod(size, dtype=np.int64))
    if k == 0 or experiments == 0:
        return np.zeros(shape, np.int64)
    draws = experiments * n
    u = SINGLE.uniform(draws + (k if from_list else 0), np.float64)[:draws]
    acc = np.cumsum(pvals, dtype=pvals.dtype)  # sequential, in pvals' type, as the kernel
    # the first running sum above each uniform (pvals are non-negative: the sums are sorted);
    # none above: the last category
    cat = np.minimum(np.searchsorted(acc, u.astype(pvals.dtype), side="right"), k - 1)
    cell = np.repeat(np.arange(experiments) * k, n) + cat
    return np.bincount(cell, minlength=experiments * k).astype(np.int64).reshape(shape)


def _zipf_row(tw, n, log_range):
    """One row of `unique_zipfian` from twister `tw`: (its n classes, the tries taken)."""
    classes, tries = np.empty(0, np.int64), 0
    while len(classes) < n:
        k = 2 * (n - len(classes)) + 16  # tries read ahead (repeats are rare but for small ranges)
        words = tw.words(2 * k)
        v = np.exp(canonical(words, np.float64) * log_range)
        whole = np.floor(v)
        value = (whole + (v - whole >= 0.5)).astype(np.int64) - 1  # lround, for v >= 1
        _, first = np.unique(value, return_index=True)
        new = np.zeros(k, bool)
        new[first] = True
        new &= ~np.isin(value, classes)
        at = np.flatnonzero(new)[:n - len(classes)]
        if len(at) == n - len(classes):  # done within this read: the rest goes back
            used = int(at[-1]) + 1
            tw.unread(words[2 * used:])
        else:
            used = k
        classes = np.concatenate([classes, value[at]])
        tries += used
    return classes, tries


def unique_zipfian(range_max, rows, n):
    """``_sample_unique_zipfian``'s draw: for each of `rows` rows, `n` distinct classes of
    ``range(range_max)`` from MXNet's approximately log-uniform distribution, and the tries
    each row took.

    Args:
        range_max: the number of classes.
        rows: the number of rows.
        n: classes a row (at most `range_max`).

    Returns:
        (int64 array (rows, n), int64 array (rows,)).

    Example::

        from gluonlite.ops import mxnet_rng
        from gluonlite.ops.mxnet_discrete import unique_zipfian
        mxnet_rng.seed(0)
        classes, tries = unique_zipfian(10, 2, 10)
        sorted(classes[0].tolist()) == list(range(10))   # True: every class, once
    """
    out = np.zeros((rows, n), np.int64)
    tries = np.zeros(rows, np.int64)
    if rows <= 0 or n <= 0:
        return out, tries
    step = -(-rows // min(rows, 1024))
    log_range = math.log(range_max)
    for r in range(rows):
        out[r], tries[r] = _zipf_row(PARALLEL.twister(r // step), n, log_range)
    return out, tries
