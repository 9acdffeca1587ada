"""Checking random generators against a distribution: the sample mean and variance within
three standard errors, and chi-square tests over buckets (repeated, to bound flakiness)."""
import numpy as np

__all__ = ["gen_buckets_probs_with_ppf", "mean_check", "var_check", "chi_square_check",
           "verify_generator"]


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """`nbuckets` equally likely buckets of a continuous distribution from its quantile
    function.

    Args:
        ppf: the quantile function (inverse CDF), probability -> value.
        nbuckets: how many buckets.

    Returns:
        (buckets, probs): ``[(low, high), ...]`` and ``[1 / nbuckets] * nbuckets``.

    Raises:
        ValueError: `nbuckets` is not positive.

    Example::

        uniform_ppf = lambda q: q   # the quantile function of U(0, 1)
        buckets, probs = mx.test_utils.gen_buckets_probs_with_ppf(uniform_ppf, 4)
        buckets[1], probs   # ((0.25, 0.5), [0.25, 0.25, 0.25, 0.25])
    """
    if nbuckets <= 0:
        raise ValueError(f"gen_buckets_probs_with_ppf: nbuckets must be positive, got {nbuckets}")
    buckets = [(ppf(i / nbuckets), ppf((i + 1) / nbuckets)) for i in range(nbuckets)]
    return buckets, [1.0 / nbuckets] * nbuckets


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of ``generator(nsamples)`` lies within three standard errors
    (``3 * sigma / sqrt(nsamples)``) of `mu`.

    Args:
        generator: ``generator(n)`` -> n samples.
        mu: the expected mean.
        sigma: the expected standard deviation.
        nsamples: default 1000000: the number of samples drawn.

    Returns:
        A bool.

    Example::

        rng = np.random.RandomState(0)
        mx.test_utils.mean_check(lambda n: rng.normal(0, 1, size=n), 0, 1, nsamples=10000)   # True
    """
    mean = np.asarray(generator(nsamples)).mean()
    half = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - half < mean < mu + half)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance of ``generator(nsamples)`` lies within three standard
    errors (``3 * sqrt(2 * sigma**4 / (nsamples - 1))``) of ``sigma ** 2``.

    Args:
        generator: ``generator(n)`` -> n samples.
        sigma: the expected standard deviation.
        nsamples: default 1000000: the number of samples drawn.

    Returns:
        A bool.

    Example::

        rng = np.random.RandomState(0)
        mx.test_utils.var_check(lambda n: rng.normal(0, 2, size=n), 2, nsamples=10000)   # True
    """
    var = np.asarray(generator(nsamples)).var(ddof=1)
    half = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - half < var < sigma ** 2 + half)


def _bucket_counts(samples, buckets):
    samples = np.asarray(samples).ravel()
    if isinstance(buckets[0], (list, tuple)):  # continuous: [low, high) ranges
        for i, (lo, hi) in enumerate(buckets):
            if lo > hi or (i + 1 < len(buckets) and hi > buckets[i + 1][0]):
                raise ValueError("chi_square_check: buckets must be ascending (low, high) ranges "
                                 f"that do not overlap; bucket {i} is {(lo, hi)}")
        return np.array([((samples >= lo) & (samples < hi)).sum() for lo, hi in buckets])
    return np.array([(samples == b).sum() for b in buckets])


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """A chi-square test of ``generator(nsamples)`` against bucket probabilities.

    Args:
        generator: ``generator(n)`` draws n samples.
        buckets: ascending ``(low, high)`` ranges (a continuous distribution; a sample
            counts in ``low <= x < high``) or the possible values (a discrete one).
        probs: the probability of each bucket.
        nsamples: how many samples to draw.

    Returns:
        (p, observed counts, expected counts); p above 0.05 or so means the samples fit.

    Raises:
        ValueError: buckets and probs of different lengths, overlapping buckets, or samples
            that fall in no bucket (the buckets must cover the distribution).

    Example::

        import scipy.stats
        buckets, probs = mx.test_utils.gen_buckets_probs_with_ppf(scipy.stats.norm.ppf, 5)
        rng = np.random.RandomState(0)
        gen = lambda n: rng.normal(size=n)
        p, observed, expected = mx.test_utils.chi_square_check(gen, buckets, probs)
        bool(p > 0.05)   # True: the samples fit N(0, 1)
    """
    from scipy import stats
    buckets, probs = list(buckets), np.asarray(probs, dtype=np.float64)
    if len(buckets) != len(probs) or not buckets:
        raise ValueError(f"chi_square_check: got {len(buckets)} buckets and {len(probs)} probs; "
                         "give one probability per bucket")
    observed = _bucket_counts(generator(nsamples), buckets)
    if observed.sum() != nsamples:
        raise ValueError(f"chi_square_check: {nsamples - observed.sum()} of {nsamples} samples "
                         "fall in no bucket; the buckets must cover the distribution")
    expected = nsamples * probs / probs.sum()
    _, p = stats.chisquare(f_obs=observed, f_exp=expected)
    return p, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Run `chi_square_check` `nrepeat` times and require that at least a fraction
    `success_rate` of them have p above `alpha`.

    Args:
        generator: ``generator(n)`` -> n samples.
        buckets: the buckets of `chi_square_check`: (low, high) ranges, or discrete values.
        probs: the expected probability of each bucket.
        nsamples: default 1000000: the samples per run.
        nrepeat: default 5: the number of runs.
        success_rate: default 0.2: the fraction of runs that must pass.
        alpha: default 0.05: a run passes when its p value is above it.

    Returns:
        The list of p values.

    Raises:
        AssertionError: too few runs pass; the message gives every run's p value and counts.

    Example::

        rng = np.random.RandomState(0)
        buckets, probs = [0, 1, 2], [0.25, 0.5, 0.25]   # a discrete distribution's values
        gen = lambda n: rng.binomial(2, 0.5, size=n)
        ps = mx.test_utils.verify_generator(gen, buckets, probs, nsamples=10000)   # passes
        len(ps)   # 5: one p value per run
    """
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    ps = [r[0] for r in runs]
    if sum(p > alpha for p in ps) < nrepeat * success_rate:
        detail = "; ".join(f"p={p:.3g} observed={list(o)} expected={list(np.round(e, 1))}"
                           for p, o, e in runs)
        raise AssertionError(f"verify_generator: {sum(p > alpha for p in ps)} of {nrepeat} "
                             f"chi-square runs have p > {alpha}, fewer than the "
                             f"{success_rate:.0%} required: {detail}; buckets={buckets}")
    return ps
