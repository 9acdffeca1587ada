"""Walk entries of the CTC loss operator (`gluonlite.ops.ctc`): values against a plain
per-sample forward recursion in probability space, the gradient against finite
differences (the walk's own check)."""
import numpy as np

from .common import C, Idx


def _ctc_one(x, label, blank):
    """-log p(label | x) for one sample: x (T, C) scores, label a list of classes."""
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ext = [blank]
    for c in label:
        ext += [c, blank]
    a = np.zeros(len(ext))
    a[0] = p[0, ext[0]]
    if len(ext) > 1:
        a[1] = p[0, ext[1]]
    for t in range(1, len(x)):
        new = np.zeros_like(a)
        for s in range(len(ext)):
            v = a[s] + (a[s - 1] if s >= 1 else 0)
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                v += a[s - 2]
            new[s] = v * p[t, ext[s]]
        a = new
    return -np.log(a[-1] + (a[-2] if len(ext) > 1 else 0))


def _ref(data, label, t_len=None, l_len=None, blank_label="first"):
    T, N, C_ = data.shape
    blank, pad = (0, 0) if blank_label == "first" else (C_ - 1, -1)
    out = []
    for b in range(N):
        lab = [int(v) for v in label[b]]
        n = int(l_len[b]) if l_len is not None else (lab.index(pad) if pad in lab else len(lab))
        t = int(t_len[b]) if t_len is not None else T
        out.append(_ctc_one(data[:t, b], lab[:n], blank))
    return np.array(out)


SPECS = {
    "CTCLoss": [
        C([(5, 2, 4), Idx([[1, 2, 0], [3, 3, 0]])], ref=_ref),
        C([(5, 3, 4), Idx([[1, 2, -1], [0, -1, -1], [2, 2, 1]]), Idx([5, 3, 4]),
           Idx([2, 1, 3])],
          {"use_data_lengths": True, "use_label_lengths": True, "blank_label": "last"},
          ref=lambda d, lab, tl, ll: _ref(d, lab, tl, ll, "last")),
    ],
}
