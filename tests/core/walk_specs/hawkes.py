"""Registry-walk entry of `_contrib_hawkesll` (`gluonlite.ops.hawkes`): a direct O(T^2)
numpy reference of the marked Hawkes log-likelihood (tests/ops_math/test_contrib_hawkes.py
holds the operator against closed forms)."""
import numpy as np

from .common import C, Idx, Pos


def _hawkes_ref(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    N, K = lda.shape
    ll, out = np.zeros(N), np.zeros((N, K))
    for n in range(N):
        L, T = int(valid_length[n]), max_time[n]
        t, m = np.cumsum(lags[n][:L]), marks[n][:L].astype(int)
        for j in range(L):
            k = m[j]
            s = state[n, k] * np.exp(-beta[k] * t[j]) + sum(
                np.exp(-beta[k] * (t[j] - t[i])) for i in range(j) if m[i] == k)
            ll[n] += np.log(lda[n, k] + alpha[k] * beta[k] * s)
        for k in range(K):
            mine = t[m == k]
            comp = state[n, k] * (1 - np.exp(-beta[k] * T)) + \
                np.sum(1 - np.exp(-beta[k] * (T - mine)))
            ll[n] -= lda[n, k] * T + alpha[k] * comp
            out[n, k] = state[n, k] * np.exp(-beta[k] * T) + np.sum(np.exp(-beta[k] * (T - mine)))
    return ll, out


def _hawkes_grad(arrays, head_grads):
    """The gradient of the log-likelihood output only (as MXNet's backward), by central
    differences of the reference."""
    g = head_grads[0]
    grads = []
    for i in range(4):
        a = arrays[i]
        d = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[i][idx] += 1e-6
            lo[i][idx] -= 1e-6
            d[idx] = np.sum(g * (_hawkes_ref(*hi)[0] - _hawkes_ref(*lo)[0])) / 2e-6
        grads.append(d)
    return grads + [None] * 4


SPECS = {
    "_contrib_hawkesll": C(
        [Pos(2, 3), Pos(3), Pos(3), Pos(2, 3), Idx([[0.5, 1.0, 0.25, 2.0], [1.5, 0.5, 0.5, 1.0]]),
         Idx([[0, 1, 0, 2], [2, 2, 1, 0]]), Idx([4, 3]), Idx([6.0, 5.0])],
        ref=_hawkes_ref, grad=_hawkes_grad, rtol=1e-3),
}
