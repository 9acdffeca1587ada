"""The CTC loss operator (``CTCLoss``, alias ``ctc_loss``, ``_contrib_CTCLoss``,
``_contrib_ctc_loss``): Graves et al.'s connectionist temporal classification, by the
forward-backward algorithm in log space, vectorised over the batch.

``CTCLoss(data, label, data_lengths=None, label_lengths=None, use_data_lengths=False,
use_label_lengths=False, blank_label='first')``:

- ``data``: (T, N, C) unnormalised scores (a softmax over C is taken inside);
- ``label``: (N, L) class indices. With ``blank_label='first'`` the blank is class 0 and
  labels are 1..C-1, padded with 0; with ``'last'`` the blank is C-1, labels 0..C-2, padded
  with -1. Without ``use_label_lengths`` a label ends at its first padding value;
- ``data_lengths``/``label_lengths``: (N,) lengths, read when the ``use_*`` flag is set;
- returns the (N,) negative log-likelihoods; the gradient flows to ``data`` only.

Reference semantics (one sample, ``l'`` the label with blanks around every symbol)::

    alpha[0] = [p[0, blank], p[0, l'1], 0, ...]
    alpha[t, s] = (alpha[t-1, s] + alpha[t-1, s-1] + skip * alpha[t-1, s-2]) * p[t, l's]
    loss = -log(alpha[T-1, S-1] + alpha[T-1, S-2])
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register

__all__ = []

_NEG = -np.inf


def _inputs(p):
    names = ["data", "label"]
    if p.use_data_lengths:
        names.append("data_lengths")
    if p.use_label_lengths:
        names.append("label_lengths")
    return names


def _lengths(p, rc, xs):
    """(data lengths, label lengths, extended labels, their lengths, blank) as host arrays."""
    data, label = xs[0], xs[1]
    T, N, C = data.shape
    rest = list(xs[2:])
    host = (lambda a: a) if rc.xp is np else (lambda a: rc.xp.asnumpy(a))
    lab = np.asarray(host(label)).astype(np.int64).reshape(N, -1)
    t_len = (np.asarray(host(rest.pop(0))).astype(np.int64).reshape(N) if p.use_data_lengths
             else np.full(N, T, np.int64))
    blank = 0 if p.blank_label == "first" else C - 1
    pad = 0 if p.blank_label == "first" else -1
    if p.use_label_lengths:
        l_len = np.asarray(host(rest.pop(0))).astype(np.int64).reshape(N)
    else:
        is_pad = lab == pad
        l_len = np.where(is_pad.any(axis=1), is_pad.argmax(axis=1), lab.shape[1])
    if (t_len > T).any() or (t_len < 0).any():
        raise ShapeError(f"CTCLoss: data_lengths must lie in [0, {T}], got {t_len.tolist()}")
    if (l_len > lab.shape[1]).any() or (l_len < 0).any():
        raise ShapeError(f"CTCLoss: label_lengths must lie in [0, {lab.shape[1]}], got "
                         f"{l_len.tolist()}")
    L = lab.shape[1]
    S = 2 * L + 1
    ext = np.full((N, S), blank, np.int64)
    ext[:, 1::2] = np.where(np.arange(L) < l_len[:, None], lab, blank)
    if ((ext < 0) | (ext >= C)).any():
        raise ShapeError(f"CTCLoss: labels must be class indices in [0, {C}), got "
                         f"{sorted(set(ext[(ext < 0) | (ext >= C)].tolist()))}")
    return t_len, l_len, ext, 2 * l_len + 1, blank


def _lse(*xs):
    m = np.max(np.stack(xs), axis=0)
    safe = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        return safe + np.log(sum(np.exp(x - safe) for x in xs))


def _forward_backward(logp, ext, s_len, t_len, blank):
    """alpha, beta (T, N, S) in log space and the (N,) log-likelihoods."""
    T, N, _ = logp.shape
    S = ext.shape[1]
    n = np.arange(N)
    lp = logp[:, n[:, None], ext]                      # (T, N, S): log p of l'_s at t
    inside = np.arange(S)[None, :] < s_len[:, None]    # (N, S)
    skip = np.zeros((N, S), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = np.full((N, S), _NEG)
    alpha = np.full((T, N, S), _NEG)
    a0 = neg.copy()
    a0[:, 0] = lp[0, :, 0]
    a0[:, 1] = np.where(s_len > 1, lp[0, :, 1], _NEG)
    alpha[0] = np.where(inside & (t_len[:, None] > 0), a0, _NEG)
    for t in range(1, T):
        prev = alpha[t - 1]
        s1 = np.concatenate([neg[:, :1], prev[:, :-1]], axis=1)
        s2 = np.where(skip, np.concatenate([neg[:, :2], prev[:, :-2]], axis=1), _NEG)
        a = _lse(prev, s1, s2) + lp[t]
        alpha[t] = np.where(inside & (t < t_len)[:, None], a, _NEG)
    last = np.maximum(t_len - 1, 0)
    end = alpha[last, n]                               # (N, S)
    e1 = end[n, s_len - 1]
    e2 = np.where(s_len > 1, end[n, np.maximum(s_len - 2, 0)], _NEG)
    loglik = _lse(e1, e2)
    loglik = np.where(t_len > 0, loglik, np.where(s_len == 1, 0.0, _NEG))
    beta = np.full((T, N, S), _NEG)
    for t in range(T - 1, -1, -1):
        start = neg.copy()
        start[n, s_len - 1] = lp[t, n, s_len - 1]
        two = np.maximum(s_len - 2, 0)
        start[n, two] = np.where(s_len > 1, lp[t, n, two], start[n, two])
        if t + 1 < T:
            nxt = beta[t + 1]
            s1 = np.concatenate([nxt[:, 1:], neg[:, :1]], axis=1)
            sk = np.concatenate([skip[:, 2:], np.zeros((N, 2), bool)], axis=1)
            s2 = np.where(sk, np.concatenate([nxt[:, 2:], neg[:, :2]], axis=1), _NEG)
            rec = _lse(nxt, s1, s2) + lp[t]
        else:
            rec = neg
        b = np.where((t == t_len - 1)[:, None], start, rec)
        beta[t] = np.where(inside & (t < t_len)[:, None], b, _NEG)
    return alpha, beta, loglik


def _ctc_kernel(p, rc, *xs):
    """CTCLoss(data, label, [data_lengths], [label_lengths], use_data_lengths=False,
    use_label_lengths=False, blank_label='first'): the (N,) CTC negative log-likelihoods of
    the labels under softmax(data) (T, N, C); see `gluonlite.ops.ctc`."""
    data = xs[0]
    t_len, _, ext, s_len, blank = _lengths(p, rc, xs)
    host = data if rc.xp is np else rc.xp.asnumpy(data)
    x = host.astype(np.float64)
    logp = x - x.max(axis=2, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=2, keepdims=True))
    alpha, beta, loglik = _forward_backward(logp, ext, s_len, t_len, blank)
    loss = -loglik
    # d loss / d data = softmax - posterior of each class at each step (zero past the length)
    T, N, C = logp.shape
    with np.errstate(invalid="ignore", over="ignore"):
        occ = np.exp(alpha + beta + loss[None, :, None]
                     - logp[:, np.arange(N)[:, None], ext])
    occ = np.where(np.isfinite(occ), occ, 0.0)
    post = np.zeros((T, N, C))
    tt, nn, ss = np.meshgrid(np.arange(T), np.arange(N), np.arange(ext.shape[1]),
                             indexing="ij")
    np.add.at(post, (tt, nn, ext[nn, ss]), occ)
    grad = np.exp(logp) - post
    grad[np.arange(T)[:, None] >= t_len[None, :]] = 0.0
    grad[:, ~np.isfinite(loss)] = 0.0
    xp = rc.xp
    return (xp.asarray(loss.astype(data.dtype)), xp.asarray(grad.astype(data.dtype)))


def _ctc_vjp(p, rc, xs, ys, gys, need):
    g = gys[0]
    gx = None if g is None else ys[1] * g.reshape(1, -1, 1)
    return (gx,) + (None,) * (len(xs) - 1)


def _ctc_shape(p, ins):
    d, lab = ins[0], ins[1]
    if d is None:
        return ins, [None, None]
    if len(d) != 3:
        raise ShapeError(f"CTCLoss: data must be (sequence length, batch, classes), got "
                         f"shape {tuple(d)}")
    T, N, C = d
    if lab is not None and (len(lab) != 2 or lab[0] != N):
        raise ShapeError(f"CTCLoss: label must be (batch, label length) with batch {N}, got "
                         f"shape {tuple(lab)}")
    out = list(ins)
    for i in range(2, len(ins)):
        if out[i] is not None and tuple(out[i]) != (N,):
            raise ShapeError(f"CTCLoss: lengths must have shape ({N},), got {tuple(out[i])}")
        out[i] = (N,)
    return out, [(N,), tuple(d)]


register("CTCLoss", aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
         inputs=_inputs, signature=("data", "label", "data_lengths", "label_lengths"),
         outputs=2, visible=1, nondiff=("label", "data_lengths", "label_lengths"),
         attrs={"use_data_lengths": A.Bool(False), "use_label_lengths": A.Bool(False),
                "blank_label": A.Enum("first", "last", default="first")},
         shape=_ctc_shape, vjp=_ctc_vjp, same_dtype=("data",),
         dtype=lambda p, ins: ([ins[0]] + [d or ins[0] for d in ins[1:]], [ins[0]] * 2)
         )(_ctc_kernel)
