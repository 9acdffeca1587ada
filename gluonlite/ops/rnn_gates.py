"""The elementwise gate math of one recurrent step, in place, in as few array passes as
numpy allows (the fused `RNN` kernels in `gluonlite.ops.rnn` call these).

Each kernel works on preallocated (N, G) buffers and allocates nothing. What makes them
cheap is the form of their input: the matrix products hand over the *negated*
pre-activations ``-(i2h + h2h)``, which ``xp.subtract(neg_i2h, h2h, out=a)`` forms with no
extra pass when the input projection of every step was negated once, together with its
bias, before the loop (`negate_projection`). From ``-x`` one ``exp`` call gives
``e = exp(-x)`` for every gate at once and ``sigmoid(x) = 1 / (1 + e)``; the tanh gate of an
LSTM rides along in the same call as ``tanh(g) = 2 * sigmoid(2g) - 1``, its columns doubled
once per sequence (in the input projection and the recurrent weight's copy), so one divide
by `lstm_numerators` over ``1 + e`` gives all four gates. numpy's ``exp`` is its cheapest
transcendental (about half the time per element of scipy's ``expit`` and of ``tanh`` in
float32 on AVX2), and it is called once per step over all the gates instead of once per gate.

``exp`` of a large negated pre-activation overflows to ``inf`` on purpose (the sigmoid is
then exactly 0): run the kernels inside `quiet` so numpy does not warn about it.

Kernels (``xp``: the array module; the (N, G) buffers may be row slices of larger arrays):

- `lstm_gates_doubled(xp, a, c_prev, c_new, tc, h, t1, num, ...)`: an LSTM step from the
  negated pre-activations with the g columns doubled (MXNet's gate order i, f, g, o).
- `lstm_grad_factors`, `lstm_gate_grads`, `gru_grad_factors`: the backward's elementwise
  work from the forward's saved outputs (its derivatives need no gradient, so a whole
  sequence's can be taken at once before the reverse loop).
- `step_weight`, `transposed`: the recurrent weight laid out for the per-step product.
- `constant`: a cached 0-d operand instead of a Python number, which numpy converts on
  every call.

Example::

    from gluonlite.ops.rnn_gates import (lstm_gates_doubled, lstm_numerators,
                                         negate_projection, quiet)
    T, N, I, H = 3, 2, 4, 5
    x, wx, wh = np.ones((T, N, I)), np.full((4 * H, I), 0.1), np.full((4 * H, H), 0.1)
    b = np.zeros(4 * H)
    num = lstm_numerators(np, H, x.dtype)                 # 1, 1, 2, 1 per gate block
    pre = (x @ wx.T) * num                                # before the loop, (T, N, 4H)
    neg = negate_projection(np, pre, -b * num)
    whT2 = (wh * num[:, None]).T                          # wh.T, g columns doubled
    h, c = np.zeros((N, H)), np.zeros((N, H))
    c_next, tc, h_next, t1 = (np.empty((N, H)) for _ in range(4))
    tmp = np.empty((N, 4 * H))
    with quiet(np):
        for t in range(T):
            np.dot(h, whT2, out=tmp)
            np.subtract(neg[t], tmp, out=neg[t])          # -(i2h + h2h)
            lstm_gates_doubled(np, neg[t], c, c_next, tc, h_next, t1, num)
            h, c, h_next, c_next = h_next, c_next, h, c
    h.shape                 # (2, 5): the hidden state after T steps
"""
import contextlib
import functools

import numpy as np

__all__ = ["quiet", "negate_projection",
           "transposed", "step_weight", "lstm_grad_factors", "lstm_gate_grads",
           "gru_grad_factors", "constant", "lstm_numerators", "lstm_gates_doubled",
           "lstm_cell", "lstm_cell_grad", "gru_cell", "gru_cell_grad", "rnn_cell",
           "rnn_cell_grad", "fused"]

# Rows of a weight copied per call in `transposed`: a (128, in) block and its transpose stay
# in L2, where one strided copy of the whole matrix misses the cache on every element.
_TILE = 128


def quiet(xp):
    """A context in which `exp` overflowing to inf (a saturated sigmoid) does not warn.

    Args:
        xp: the array module (numpy warns; other modules do not, and get a null context).

    Returns:
        A context manager.

    Example::

        from gluonlite.ops import rnn_gates
        a = np.array([1000.0])
        with rnn_gates.quiet(np):
            np.exp(a, out=a)        # inf, without an overflow warning
    """
    if xp is np:
        return np.errstate(over="ignore")
    return contextlib.nullcontext()


def negate_projection(xp, proj, neg_bias):
    """``proj <- neg_bias - proj`` in place (one pass): the input projection of every step
    turned into the negated form the gate kernels start from.

    Args:
        xp: the array module.
        proj: (..., G) array, ``x @ Wx.T`` (overwritten).
        neg_bias: (G,) array, minus the bias to add.

    Returns:
        `proj`.

    Example::

        from gluonlite.ops import rnn_gates
        g = np.array([1.0, 2.0])
        rnn_gates.negate_projection(np, g, np.array([-0.5, -0.5]))  # array([-1.5, -2.5])
    """
    return xp.subtract(neg_bias, proj, out=proj)


def transposed(xp, w, out=None):
    """A C-contiguous copy of ``w.T``, copied in row blocks that stay in cache (about half
    the time of one strided copy of a megabyte-sized weight).

    Args:
        xp: the array module.
        w: (G, K) array.
        out: None or a (K, G) array to write into.

    Returns:
        The (K, G) array.

    Example::

        from gluonlite.ops import rnn_gates
        rnn_gates.transposed(np, np.ones((4, 3))).shape    # (3, 4)
    """
    G, K = w.shape
    if out is None:
        out = xp.empty((K, G), dtype=w.dtype)
    if xp is not np:
        xp.copyto(out, w.T)
        return out
    for r in range(0, G, _TILE):
        np.copyto(out[:, r:r + _TILE], w[r:r + _TILE].T)
    return out


def step_weight(xp, w, steps, batch, empty=None):
    """The right operand of the per-step product ``h @ w.T`` of a recurrence, (K, G): a
    C-contiguous transposed copy where it pays, else the view ``w.T``.

    OpenBLAS multiplies ``(N, K) @ (K, G)`` a fifth to a quarter faster from a (K, G) array
    than from the transposed view of the (G, K) weight MXNet's layout stores (measured in
    float32 at K = 512, G = 512..2048, batch 1 and 32); the copy costs about the time of
    70-100 batch-1 or 7 batch-32 steps' savings (more on a loaded machine), so it is made
    from ``steps * batch >= 256`` on.

    Args:
        xp: the array module.
        w: (G, K) weight as stored.
        steps: the number of products that will read it.
        batch: their batch size.
        empty: None or ``empty(shape, dtype)`` giving the copy's buffer.

    Returns:
        A (K, G) array equal to ``w.T``.

    Example::

        from gluonlite.ops import rnn_gates
        wh = np.ones((8, 2))
        rnn_gates.step_weight(np, wh, 100, 32).flags.c_contiguous   # True: a copy pays here
        rnn_gates.step_weight(np, wh, 100, 1).base is wh            # True: the view wh.T
    """
    if steps * batch < 256 or w.ndim != 2:
        return w.T
    out = None if empty is None else empty((w.shape[1], w.shape[0]), w.dtype)
    return transposed(xp, w, out)


def lstm_grad_factors(xp, a, tc, v, k):
    """The factors of an LSTM's backward that need no gradient, from the forward's saved
    outputs (a step's or a whole sequence's, along the leading axes).

    Args:
        xp: the array module.
        a: (..., 4H) the activations ``sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)``.
        tc: (..., H) ``tanh(c)``.
        v: (..., 4H) receives each gate's derivative at its output: ``s * (1 - s)`` for the
            sigmoids, ``1 - tanh(g)^2`` for g.
        k: (..., H) receives ``sigmoid(o) * (1 - tanh(c)^2)`` (dc per unit of dh).

    Returns:
        (v, k).

    Example: ``lstm_grad_factors(np, acts, tcs, v, k)`` before a reverse loop.
    """
    H = tc.shape[-1]
    H2, H3 = 2 * H, 3 * H
    xp.multiply(a, a, out=v)
    xp.subtract(a[..., :H2], v[..., :H2], out=v[..., :H2])
    xp.subtract(1, v[..., H2:H3], out=v[..., H2:H3])
    xp.subtract(a[..., H3:], v[..., H3:], out=v[..., H3:])
    xp.multiply(tc, tc, out=k)
    xp.subtract(1, k, out=k)
    k *= a[..., H3:]
    return v, k


def lstm_gate_grads(xp, d, dc, a, tc, c_prev, v, dg):
    """One reverse LSTM step's gate gradients, after ``dc`` has its share from ``h``.

    Args:
        xp: the array module.
        d: (N, H) the gradient of h.
        dc: (N, H) the gradient of c (all of it: from the next step and through h).
        a: the step's gate activations, (N, 4H).
        tc: ``tanh(c)`` of the step's cell state, (N, H).
        c_prev: the previous cell state, (N, H).
        v: (N, 4H) `lstm_grad_factors`'s gate derivatives of the step.
        dg: (N, 4H) receives the gradient of the gates' pre-activations (i, f, g, o).

    Returns:
        `dg`.

    Example: see `gluonlite.ops.rnn`'s LSTM backward.
    """
    H = tc.shape[-1]
    H2, H3 = 2 * H, 3 * H
    xp.multiply(dc, a[:, H2:H3], out=dg[:, :H])
    xp.multiply(dc, c_prev, out=dg[:, H:H2])
    xp.multiply(dc, a[:, :H], out=dg[:, H2:H3])
    xp.multiply(d, tc, out=dg[:, H3:])
    dg *= v
    return dg


def gru_grad_factors(xp, acts, hn, h_prev, out, tmp):
    """The factors of a GRU's backward that need no gradient, from the forward's saved
    outputs (a step's or a whole sequence's, along the leading axes): with them a reverse
    step's gate gradients are ``dz = dh * out_z``, ``dn = dh * out_n``, ``dr = dn * out_r``.

    Args:
        xp: the array module.
        acts: (..., 3H) the activations r, z, n.
        hn: (..., H) ``h2h_n + bh_n``.
        h_prev: (..., H) the state each step read.
        out: (..., 3H) receives ``hn * r * (1 - r)``, ``(h_prev - n) * z * (1 - z)``,
            ``(1 - z) * (1 - n^2)``.
        tmp: (..., H) scratch.

    Returns:
        `out`.

    Example: ``gru_grad_factors(np, acts, gh[..., 2*H:], hs[:-1], f, tmp)``.
    """
    H = tmp.shape[-1]
    H2 = 2 * H
    xp.multiply(acts, acts, out=out)
    xp.subtract(acts[..., :H2], out[..., :H2], out=out[..., :H2])  # r(1-r), z(1-z)
    fn = out[..., H2:]
    xp.subtract(1, fn, out=fn)  # 1 - n^2
    xp.subtract(1, acts[..., H:H2], out=tmp)
    fn *= tmp
    out[..., :H] *= hn
    xp.subtract(h_prev, acts[..., H2:], out=tmp)
    out[..., H:H2] *= tmp
    return out


# ---- fewer calls per step (issue 29) -----------------------------------------------------
# A Python number as a ufunc operand costs numpy about a microsecond to convert on every call
# (a third of a batch-1 step's small elementwise call); a 0-d array of the operand's dtype
# does not. Kept per (value, dtype).
_CONSTANTS = {}


def constant(xp, value, dtype):
    """`value` as a ufunc operand of `dtype` that numpy need not convert per call: a cached
    read-only 0-d numpy array (for another array module, the Python number itself).

    Args:
        xp: the array module.
        value: a Python number.
        dtype: the dtype of the arrays it meets.

    Returns:
        A 0-d array (numpy) or `value`.

    Example::

        from gluonlite.ops import rnn_gates
        a = np.zeros(3, np.float32)
        a += rnn_gates.constant(np, 1, a.dtype)     # as a += 1, without a conversion per call
    """
    if xp is not np:
        return value
    key = (value, np.dtype(dtype))
    c = _CONSTANTS.get(key)
    if c is None:
        c = _CONSTANTS[key] = np.array(value, dtype=key[1])
        c.flags.writeable = False
    return c


def lstm_numerators(xp, H, dtype):
    """The (4H,) row ``[1]*2H + [2]*H + [1]*H`` that `lstm_gates_doubled` divides by ``1 + exp``:
    ``1 / (1 + e)`` is a sigmoid gate and ``2 / (1 + e)`` the tanh gate's ``2 * sigmoid(2g)``,
    in the same call.

    Args:
        xp: the array module.
        H: the state size.
        dtype: the gates' dtype.

    Returns:
        A (4H,) array.

    Example::

        from gluonlite.ops import rnn_gates
        rnn_gates.lstm_numerators(np, 1, "float32")    # array([1., 1., 2., 1.], dtype=float32)
    """
    num = xp.ones((4 * H,), dtype=dtype)
    num[2 * H:3 * H] = 2
    return num


def lstm_gates_doubled(xp, a, c_prev, c_new, tc, h, t1, num, clip=None, clip_nan=False,
                       gates=None, one=None):
    """One LSTM step's gate math, in place, from negated pre-activations whose tanh gate is
    already doubled: `a` holds ``-(i, f, 2g, o)`` (the factor 2 folded into the input
    projection once per sequence and into the recurrent weight's copy, so no step scales it).

    Args:
        xp: the array module.
        a: (N, 4H), on entry ``-(i2h + h2h)`` in MXNet's gate order (i, f, g, o) with the g
            columns doubled; on return the activations ``sigmoid(i), sigmoid(f), tanh(g),
            sigmoid(o)`` (what the backward reads).
        c_prev: (N, H) the previous cell state.
        c_new: (N, H) receives ``c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)`` (clipped).
        tc: (N, H) receives ``tanh(c)``.
        h: (N, H) receives ``sigmoid(o) * tanh(c)``, or None (the caller projects ``o * tc``
            itself).
        t1: (N, H) scratch.
        clip: None or (lo, hi): clip c into [lo, hi].
        clip_nan: with `clip`, a NaN c becomes the bound (fmax/fmin) instead of staying NaN.
        num: `lstm_numerators` of the gates' H and dtype.
        gates: None, or the four (N, H) column blocks of `a` (i, f, g, o) when the caller
            has them at hand (a loop indexing views of the whole sequence, sliced once).
        one: None, or ``constant(xp, 1, a.dtype)``.

    Returns:
        `c_new`.

    Example::

        from gluonlite.ops.rnn_gates import lstm_gates_doubled, lstm_numerators
        N, H = 2, 3
        pre = np.zeros((N, 4 * H))                       # i2h + h2h of one step
        a = -(pre * lstm_numerators(np, H, pre.dtype))   # negated, g columns doubled
        c0, c1, tc, h, t1 = (np.zeros((N, H)) for _ in range(5))
        lstm_gates_doubled(np, a, c0, c1, tc, h, t1, lstm_numerators(np, H, a.dtype))
        a[0, :H]            # array([0.5, 0.5, 0.5]): sigmoid(0) of the input gate
    """
    if gates is None:
        H = c_new.shape[-1]
        gates = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
    ai, af, ag, ao = gates
    if one is None:
        one = constant(xp, 1, a.dtype)
    xp.exp(a, out=a)
    a += one
    xp.divide(num, a, out=a)  # sigmoid(i), sigmoid(f), 2 * sigmoid(2g), sigmoid(o)
    ag -= one  # tanh(g) = 2 * sigmoid(2g) - 1
    xp.multiply(af, c_prev, out=c_new)
    xp.multiply(ai, ag, out=t1)
    c_new += t1
    if clip is not None:
        lo, hi = clip
        if clip_nan:
            xp.fmax(c_new, lo, out=c_new)
            xp.fmin(c_new, hi, out=c_new)
        else:
            xp.clip(c_new, lo, hi, out=c_new)
    xp.tanh(c_new, out=tc)
    if h is not None:
        xp.multiply(ao, tc, out=h)
    return c_new


# ---- one kernel per step on a device (issue 44) --------------------------------------------
# On a GPU each array function is a kernel launch, and a recurrent step's dozen small
# elementwise calls cost their launches, not their arithmetic. The functions below are a
# step's whole elementwise math written as plain expressions of the array module's ufuncs
# with ``out[...] = value`` assignments, which ``cupy.fuse`` compiles into ONE kernel per
# call (`fused`); numpy runs them as they read. Every argument is an (N, H) array (views of
# wider rows are fine) or, for a GRU's ``bh_n``, an (H,) row broadcast over the batch.

def lstm_cell(xp, i, f, g, o, hi, hf, hg, ho, c_prev, c_new, tc, h, clip=None,
              clip_nan=False):
    """An LSTM step from its gates' i2h parts (`i`, `f`, `g`, `o`, biases included) and
    h2h parts (`hi`, `hf`, `hg`, `ho`): the activations are written over i, f, g, o (what the
    backward reads), ``c_new = f * c_prev + i * g`` (clipped into `clip` = (lo, hi): NaN
    kept, or with `clip_nan` turned into the bound), ``tc = tanh(c_new)``, ``h = o * tc``.

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        i: the input gate's i2h part (N, H), overwritten by its activation; `f`, `g`, `o`
            likewise for the forget gate, the cell candidate and the output gate.
        hi: the input gate's h2h part (N, H); `hf`, `hg`, `ho` likewise.
        c_prev: the previous cell state (N, H).
        c_new: receives the new cell state (N, H).
        tc: receives tanh(c_new) (N, H).
        h: receives the step's output (N, H).
        clip: (lo, hi) bounds of the cell state (default None: no clipping).
        clip_nan: with `clip`, turn a NaN cell state into a bound (default False: kept).

    Example: ``lstm_cell(np, *i2h_parts, *h2h_parts, c0, c1, tc, h1)`` (each (N, H)).
    """
    i[...] = 1 / (1 + xp.exp(-(i + hi)))
    f[...] = 1 / (1 + xp.exp(-(f + hf)))
    g[...] = xp.tanh(g + hg)
    o[...] = 1 / (1 + xp.exp(-(o + ho)))
    c = f * c_prev + i * g
    if clip is not None:
        lo, up = clip
        c = xp.fmin(xp.fmax(c, lo), up) if clip_nan else xp.minimum(xp.maximum(c, lo), up)
    c_new[...] = c
    tc[...] = xp.tanh(c)
    h[...] = o * tc


def lstm_cell_grad(xp, dy, dh, dc, i, f, g, o, tc, c_prev, c_new, di, df, dg, do, clip=None):
    """One reverse LSTM step: with ``d = dy + dh`` (the output's gradient), the gates'
    pre-activation gradients into `di`, `df`, `dg`, `do` from the step's activations
    (`i`, `f`, `g`, `o`), ``tc = tanh(c_new)`` and `c_prev`; `dc` (the cell's gradient from
    the next step) becomes the gradient of `c_prev`. With `clip`, no gradient passes where
    `c_new` reached a bound.

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        dy: the gradient of the step's output from above (N, H).
        dh: the gradient of the step's h from the next step (N, H).
        dc: the cell's gradient from the next step (N, H), overwritten in place by the
            gradient of c_prev.
        i: the input gate's activation (N, H); `f`, `g`, `o` likewise.
        tc: tanh(c_new) (N, H).
        c_prev: the previous cell state (N, H).
        c_new: the step's cell state (N, H), read with `clip`.
        di: receives the input gate's pre-activation gradient; `df`, `dg`, `do` likewise.
        clip: the forward's (lo, hi) cell bounds (default None).

    Example: ``lstm_cell_grad(np, dy, dh, dc, *acts, tc, c0, c1, *dgates)``.
    """
    d = dy + dh
    dct = dc + d * o * (1 - tc * tc)
    if clip is not None:
        dct = dct * ((c_new > clip[0]) & (c_new < clip[1]))
    di[...] = dct * g * i * (1 - i)
    df[...] = dct * c_prev * f * (1 - f)
    dg[...] = dct * i * (1 - g * g)
    do[...] = d * tc * o * (1 - o)
    dc[...] = dct * f


def gru_cell(xp, ir, iz, in_, hr, hz, hn_raw, bh_n, h_prev, r, z, n, hn, h):
    """A GRU step from the i2h parts (`ir`, `iz`, `in_`; the r and z blocks of the h2h bias
    included) and the h2h products (`hr`, `hz`, `hn_raw`, no bias) with ``bh_n`` the h2h
    bias of n: ``r``, ``z`` (sigmoids), ``hn = hn_raw + bh_n`` (kept for the backward),
    ``n = tanh(in_ + r * hn)``, ``h = n + z * (h_prev - n)``.

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        ir: the reset gate's i2h part (N, H); `iz`, `in_` the update gate's and the new
            gate's.
        hr: the reset gate's h2h product (N, H); `hz`, `hn_raw` likewise.
        bh_n: the h2h bias of the new gate (H,).
        h_prev: the previous state (N, H).
        r: receives the reset gate (N, H); `z`, `n`, `hn`, `h` likewise receive the update
            gate, the new gate, hn and the step's output.

    Example: ``gru_cell(np, *i2h_parts, *h2h_parts, bh_n, h0, r, z, n, hn, h1)``.
    """
    r[...] = 1 / (1 + xp.exp(-(ir + hr)))
    z[...] = 1 / (1 + xp.exp(-(iz + hz)))
    hn[...] = hn_raw + bh_n
    n[...] = xp.tanh(in_ + r * hn)
    h[...] = n + z * (h_prev - n)


def gru_cell_grad(xp, dy, dh, carry, r, z, n, hn, h_prev, dir_, diz, din, dhr, dhz, dhn):
    """One reverse GRU step: with ``d = dy + dh + carry`` (`carry`: the last step's direct
    path ``d * z``, which it is given back), the gradients of the i2h pre-activations
    (`dir_`, `diz`, `din`) and of the h2h ones (`dhr`, `dhz` the same as i2h's, `dhn` through
    r). The caller adds ``dgh @ Wh`` to the next `dh`, and `carry` at the end.

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        dy: the gradient of the step's output from above (N, H).
        dh: the gradient of the step's h from the next step's h2h product (N, H).
        carry: see above (N, H).
        r: the forward's reset gate (N, H).
        z: the forward's update gate (N, H).
        n: the forward's new gate (N, H).
        hn: the forward's hn, the h2h part of n with its bias (N, H).
        h_prev: the previous state (N, H).
        dir_: receives the gradient of the reset gate's i2h pre-activation; `diz`, `din`,
            `dhr`, `dhz`, `dhn` likewise (all (N, H)).

    Example: ``gru_cell_grad(np, dy, dh, carry, r, z, n, hn, h0, *dgi, *dgh)``.
    """
    d = dy + dh + carry
    dn = d * (1 - z) * (1 - n * n)
    dz = d * (h_prev - n) * z * (1 - z)
    dr = dn * hn * r * (1 - r)
    dir_[...] = dr
    diz[...] = dz
    din[...] = dn
    dhr[...] = dr
    dhz[...] = dz
    dhn[...] = dn * r
    carry[...] = d * z


def rnn_cell(xp, pre, hh, h, relu=False):
    """An rnn step: ``h = act(pre + hh)`` (tanh, or with `relu` max(., 0)).

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        pre: the step's i2h part, biases included (N, H).
        hh: the step's h2h product (N, H).
        h: receives the step's output (N, H).
        relu: use relu instead of tanh (default False).

    Example::

        from gluonlite.ops.rnn_gates import rnn_cell
        h1 = np.empty((1, 2))
        rnn_cell(np, np.array([[0., 1.]]), np.array([[0., -1.]]), h1)
        h1.tolist()   # [[0.0, 0.0]]
    """
    a = pre + hh
    h[...] = xp.maximum(a, 0) if relu else xp.tanh(a)


def rnn_cell_grad(xp, dy, dh, h, dg, relu=False):
    """One reverse rnn step: ``dg = (dy + dh) * act'(h)`` from the step's output `h`.

    Args:
        xp: the array module (numpy, or cupy for the fused device kernels).
        dy: the gradient of the step's output from above (N, H).
        dh: the gradient of the step's h from the next step (N, H).
        h: the step's output (N, H).
        dg: receives the gradient of the pre-activation (N, H).
        relu: the forward used relu instead of tanh (default False).

    Example::

        from gluonlite.ops.rnn_gates import rnn_cell_grad
        dg = np.empty((1, 2))
        rnn_cell_grad(np, np.ones((1, 2)), np.ones((1, 2)), np.array([[0., 0.5]]), dg)
        dg.tolist()   # [[2.0, 1.5]]
    """
    d = dy + dh
    dg[...] = d * (h > 0) if relu else d * (1 - h * h)


_FUSED = {}


def fused(xp, fn, **config):
    """`fn` (one of the step functions above) with `config` bound, compiled by ``xp.fuse``
    into one kernel: made once per (array module, function, config) and kept, as CuPy
    advises (its compiled kernels are cached per fused function). Call it with the
    arguments after ``xp``.

    Args:
        xp: an array module with ``fuse`` (CuPy).
        fn: the step function.
        config: its keyword arguments (clip bounds, relu): constants of the kernel.

    Returns:
        The fused function.

    Example: ``fused(cupy, lstm_cell)(*gates, *h2h, c0, c1, tc, h1)``.
    """
    key = (id(xp), fn, tuple(sorted(config.items())))
    f = _FUSED.get(key)
    if f is None:
        name = "gluonlite_" + fn.__name__ + "".join(
            f"_{k}" for k, v in sorted(config.items()) if v not in (None, False))
        f = _FUSED[key] = xp.fuse(kernel_name=name)(functools.partial(fn, xp, **config))
    return f
