"""`_contrib_hawkesll` (`nd.contrib.hawkesll`): the log-likelihood of marked point processes
under a self-exciting (Hawkes) model with exponential kernels, and its gradient.

For sequence n with events at times ``t_j`` (the running sums of `lags`, the first
`valid_length[n]` of them) and marks ``m_j`` in [0, K), mark k has the intensity

    lambda_k(t) = lda[n, k] + alpha[k] * beta[k] * S_k(t),
    S_k(t) = state[n, k] * exp(-beta[k] t) + sum over earlier events i of mark k of
             exp(-beta[k] (t - t_i)),

and the log-likelihood over [0, max_time[n]] = T is

    sum_j log lambda_{m_j}(t_j)
    - sum_k (lda[n, k] T + alpha[k] (state[n, k] (1 - exp(-beta[k] T))
                                     + sum_{i of mark k} (1 - exp(-beta[k] (T - t_i))))).

The second output is S_k(T), the state to carry into the next interval.
"""
import numpy as np

from .registry import ShapeError, register

__all__ = []

_INPUTS = ("lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time")


def _shape(p, ins):
    lda, alpha, beta, state, lags, marks, vl, mt = ins
    if lda is None:
        return ins, [None, None]
    if len(lda) != 2:
        raise ShapeError(f"hawkesll: lda must be (N, K), got {tuple(lda)}")
    n, k = lda
    for name, s, want in (("alpha", alpha, (k,)), ("beta", beta, (k,)), ("state", state, (n, k)),
                          ("valid_length", vl, (n,)), ("max_time", mt, (n,))):
        if s is not None and tuple(s) != want:
            raise ShapeError(f"hawkesll: {name} must have shape {want}, got {tuple(s)}")
    for name, s in (("lags", lags), ("marks", marks)):
        if s is not None and (len(s) != 2 or s[0] != n):
            raise ShapeError(f"hawkesll: {name} must be (N, T) with N={n}, got {tuple(s)}")
    ins = [tuple(lda), (k,), (k,), (n, k), lags, marks, (n,), (n,)]
    return ins, [(n,), (n, k)]


def _sequence(lda, alpha, beta, s0, lags, marks, length, horizon, want_grad):
    """One sequence: (log-likelihood, final state, gradients (lda, alpha, beta, state) or
    None). Float64 throughout."""
    K = lda.shape[0]
    t = np.cumsum(lags[:length])
    m = marks[:length].astype(np.int64)
    ll = 0.0
    g_lda, g_alpha, g_beta, g_s0 = (np.zeros(K) for _ in range(4))
    # per mark: S (the sum of decayed kernels at the last event of that mark), its derivative
    # in beta, and the time of that event
    S = s0.copy()
    dS = np.zeros(K)
    last = np.zeros(K)
    ds0 = np.ones(K)     # dS / d state (decays with S)
    for tj, k in zip(t, m):
        dt = tj - last[k]
        decay = np.exp(-beta[k] * dt)
        dS[k] = (dS[k] - dt * S[k]) * decay
        S[k] *= decay
        ds0[k] *= decay
        last[k] = tj
        lam = lda[k] + alpha[k] * beta[k] * S[k]
        ll += np.log(lam)
        if want_grad:
            g_lda[k] += 1.0 / lam
            g_alpha[k] += beta[k] * S[k] / lam
            g_beta[k] += alpha[k] * (S[k] + beta[k] * dS[k]) / lam
            g_s0[k] += alpha[k] * beta[k] * ds0[k] / lam
        S[k] += 1.0
    # the compensator
    ll -= np.sum(lda) * horizon
    end_decay = np.exp(-beta * horizon)
    comp = s0 * (1 - end_decay)
    d_comp = s0 * horizon * end_decay
    tail = np.exp(-beta[m] * (horizon - t))
    np.add.at(comp, m, 1 - tail)
    np.add.at(d_comp, m, (horizon - t) * tail)
    ll -= np.sum(alpha * comp)
    out_state = S * np.exp(-beta * (horizon - last))
    if not want_grad:
        return ll, out_state, None
    g_lda -= horizon
    g_alpha -= comp
    g_beta -= alpha * d_comp
    g_s0 -= alpha * (1 - end_decay)
    return ll, out_state, (g_lda, g_alpha, g_beta, g_s0)


def _run(xs, want_grad):
    """(log-likelihoods (N,), final states (N, K), per-sequence gradients of the
    log-likelihood in lda, alpha, beta, state, each (N, K), or None) on host arrays."""
    lda, alpha, beta, state, lags = [np.asarray(x, np.float64) for x in xs[:5]]
    marks, vl, mt = np.asarray(xs[5]), np.asarray(xs[6]), np.asarray(xs[7], np.float64)
    N, K = lda.shape
    ll = np.zeros(N)
    out_state = np.zeros((N, K))
    grads = np.zeros((4, N, K)) if want_grad else None
    for n in range(N):
        length = int(min(max(vl[n], 0), lags.shape[1]))
        ll[n], out_state[n], g = _sequence(lda[n], alpha, beta, state[n], lags[n], marks[n],
                                           length, mt[n], want_grad)
        if want_grad:
            grads[:, n] = g
    return ll, out_state, grads


def _host(xp, xs):
    return [x if xp is np or x is None else xp.asnumpy(x) for x in xs]


def _vjp(p, rc, xs, ys, gys, need):
    # MXNet's backward reads only the log-likelihood's gradient (not the state output's)
    xp = rc.xp
    if gys[0] is None:
        return (None,) * 8
    host = _host(xp, xs)
    _, _, grads = _run(host, True)
    g = np.asarray(_host(xp, [gys[0]])[0], np.float64)[:, None]
    res = [g * grads[0], (g * grads[1]).sum(axis=0), (g * grads[2]).sum(axis=0), g * grads[3]]
    return tuple(xp.asarray(r.astype(x.dtype)) if want else None
                 for r, x, want in zip(res, xs, need)) + (None,) * 4


@register("_contrib_hawkesll", inputs=_INPUTS, outputs=2, shape=_shape, vjp=_vjp,
          nondiff=("lags", "marks", "valid_length", "max_time"),
          dtype=lambda p, ins: (ins, [ins[0], ins[0]]))
def _hawkesll(p, rc, lda, alpha, beta, state, lags, marks, valid_length, max_time):
    """hawkesll(lda, alpha, beta, state, lags, marks, valid_length, max_time): the
    log-likelihood of each sequence under a marked Hawkes process with exponential kernels,
    (N,), and the final state (N, K) (see the module's docstring)."""
    xp = rc.xp
    host = _host(xp, (lda, alpha, beta, state, lags, marks, valid_length, max_time))
    ll, out_state, _ = _run(host, False)
    dt = lda.dtype
    return xp.asarray(ll.astype(dt)), xp.asarray(out_state.astype(dt))
