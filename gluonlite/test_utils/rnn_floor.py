"""The numpy floor: hand-written RNN/GRU/LSTM loops with MXNet 1.x cell equations.

This module is pure numpy (plus `scipy.special.expit` when scipy imports) and never
imports the rest of gluonlite: it is the oracle tests check the library's cells and the
fused ``RNN`` operator against (so it lives with the test helpers, where a core test may
import it), and the floor `benchmarks/` and the bench CLI time next to the library (through
`gluonlite.bench.floor`). The same loop runs on
another array module with numpy's API (``FloorRNN(..., xp=cupy)``: the floor on a GPU),
optionally with a step's gate math as one fused kernel (``fused_gates=True``).

Equations (x: step input (N, I), h/c: states (N, H), W_i: (G*H, I), W_h: (G*H, H))::

    i2h = x @ W_i.T + b_i                    h2h = h @ W_h.T + b_h
    rnn:  h' = act(i2h + h2h)                act is tanh or relu
    lstm: i, f, g, o = split(i2h + h2h, 4)   (input, forget, candidate, output)
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g);  h' = sigmoid(o) * tanh(c')
    gru:  r, z, n = split(i2h, 3), split(h2h, 3) (reset, update, new)
          r = sigmoid(i2h_r + h2h_r);  z = sigmoid(i2h_z + h2h_z)
          n = tanh(i2h_n + r * h2h_n);  h' = (1 - z) * n + z * h

Two variants of the same loop:

- "floor-step" (`fused=False`): the per-step cell, every buffer preallocated; the
  backward accumulates weight gradients step by step.
- "floor-fused" (`fused=True`): the input projection of all steps is one GEMM before
  the loop, and the weight gradients are one GEMM each after the reverse loop.

The backward computes the gradient of `sum(out_grad * outputs)` (all ones by
default, i.e. the sum of the stacked outputs) with respect to the four parameters,
the input sequence and the initial states.
"""
import functools

import numpy as np

__all__ = ["FloorRNN", "PARAM_NAMES", "cell_kind", "init_params", "num_gates", "num_states",
           "params_from_named", "lstm_gates", "gru_gates",
           "check_against_reference", "reference_loss"]


def _sigmoid_of(xp):
    """sigmoid(x, out) in four of `xp`'s elementwise kernels (scipy's expit is numpy's)."""
    def sigmoid(x, out):
        xp.negative(x, out=out)
        xp.exp(out, out=out)
        out += 1
        return xp.reciprocal(out, out=out)
    return sigmoid


try:  # scipy's expit is a single fused ufunc; the fallback is four passes
    from scipy.special import expit as _expit
except ImportError:  # pragma: no cover - scipy is a declared dependency
    _expit = _sigmoid_of(np)

PARAM_NAMES = ("i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias")
_GATES = {"rnn_tanh": 1, "rnn_relu": 1, "gru": 3, "lstm": 4}
_ALIASES = {"rnncell": "rnn", "rnn": "rnn", "grucell": "gru", "gru": "gru",
            "lstmcell": "lstm", "lstm": "lstm"}


def cell_kind(cell, activation="tanh"):
    """Normalise a cell name to one of 'rnn_tanh', 'rnn_relu', 'gru', 'lstm'.

    Args:
        cell: 'RNNCell', 'GRUCell', 'LSTMCell' (or 'rnn', 'gru', 'lstm', any case,
            or an already normalised kind).
        activation: 'tanh' or 'relu'; used for RNN cells only.

    Returns:
        The kind string.

    Raises:
        ValueError: an unknown cell or activation.

    Example::

        from gluonlite.test_utils import rnn_floor
        rnn_floor.cell_kind('RNNCell', 'relu')   # 'rnn_relu'
    """
    name = str(cell).lower()
    if name in _GATES:
        return name
    if name not in _ALIASES:
        raise ValueError(f"floor: cell must be one of RNNCell, GRUCell, LSTMCell, got {cell!r}")
    kind = _ALIASES[name]
    if kind != "rnn":
        return kind
    if activation not in ("tanh", "relu"):
        raise ValueError(f"floor: RNN activation must be 'tanh' or 'relu', got {activation!r}")
    return "rnn_" + activation


def num_states(cell):
    """Number of recurrent states of a cell: 2 for LSTM ([h, c]), else 1 ([h]).

    Args:
        cell: a cell name accepted by `cell_kind`.

    Returns:
        An int.

    Raises:
        ValueError: an unknown cell name.

    Example::

        from gluonlite.test_utils import rnn_floor
        rnn_floor.num_states('LSTMCell'), rnn_floor.num_states('gru')   # (2, 1)
    """
    return 2 if cell_kind(cell) == "lstm" else 1


def num_gates(cell):
    """Number of gates of a cell (its weights have num_gates * H rows): 4 for LSTM, 3 for
    GRU, 1 for RNN.

    Args:
        cell: a cell name accepted by `cell_kind`.

    Returns:
        An int.

    Raises:
        ValueError: an unknown cell name.

    Example::

        from gluonlite.test_utils import rnn_floor
        rnn_floor.num_gates('GRUCell')   # 3
    """
    return _GATES[cell_kind(cell)]


def init_params(cell, input_size, hidden_size, *, dtype="float32", seed=0, scale=0.1):
    """Random parameters for a cell, keyed by PARAM_NAMES.

    Args:
        cell: a cell name accepted by `cell_kind`.
        input_size: I, the input size.
        hidden_size: H, the state size.
        dtype: numpy dtype of the arrays.
        seed: seed of the numpy generator.
        scale: values are uniform in [-scale, scale].

    Returns:
        dict: i2h_weight (G*H, I), i2h_bias (G*H,), h2h_weight (G*H, H), h2h_bias (G*H,).

    Example::

        from gluonlite.test_utils import rnn_floor
        rnn_floor.init_params('LSTMCell', 3, 2)['i2h_weight'].shape   # (8, 3)
    """
    g = num_gates(cell) * hidden_size
    rng = np.random.default_rng(seed)
    shapes = {"i2h_weight": (g, input_size), "i2h_bias": (g,),
              "h2h_weight": (g, hidden_size), "h2h_bias": (g,)}
    return {k: rng.uniform(-scale, scale, s).astype(dtype) for k, s in shapes.items()}


def params_from_named(named):
    """Pick the four cell parameters out of any name -> array mapping by name suffix.

    Works with `{'lstm0_i2h_weight': array, ...}` and with gluonlite/MXNet arrays
    (anything with `.asnumpy()`), without importing gluonlite.

    Args:
        named: mapping from parameter names to arrays or NDArrays (or gluon
            Parameters, whose `.data()` is used).

    Returns:
        dict keyed by PARAM_NAMES with numpy arrays.

    Raises:
        ValueError: a parameter is missing or matched twice.

    Example::

        from gluonlite.test_utils import rnn_floor
        named = {'c_' + k: v for k, v in rnn_floor.init_params('gru', 2, 3).items()}
        sorted(rnn_floor.params_from_named(named))
        # ['h2h_bias', 'h2h_weight', 'i2h_bias', 'i2h_weight']
    """
    found = {}
    for name, value in named.items():
        for key in PARAM_NAMES:
            if str(name).endswith(key):
                if key in found:
                    raise ValueError(f"params_from_named: two parameters end with {key!r}")
                if hasattr(value, "data") and callable(value.data):
                    value = value.data()
                found[key] = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    missing = [k for k in PARAM_NAMES if k not in found]
    if missing:
        raise ValueError(f"params_from_named: no parameter ending with {missing}; "
                         f"got names {sorted(map(str, named))}")
    return found


class FloorRNN:
    """A hand-written numpy loop of one cell over a (T, N, I) sequence.

    Every buffer is allocated once in the constructor; `forward` and `backward`
    only write into them, so the arrays they return are overwritten by the next call
    (copy them to keep them).

    Args:
        cell: 'RNNCell', 'GRUCell', 'LSTMCell' (see `cell_kind`).
        seq_len: T, the number of steps.
        batch_size: N.
        input_size: I, the size of each input vector.
        hidden_size: H, the size of each state.
        fused: False for "floor-step", True for "floor-fused" (see module doc).
        train: keep what the backward needs; required for `backward`.
        activation: 'tanh' or 'relu' for RNN cells.
        dtype: float dtype of all buffers.
        xp: the array module (numpy, the default, or cupy for a GPU): every buffer is
            one of its arrays, and `forward` takes and returns its arrays.
        fused_gates: compute an LSTM or GRU step's elementwise gate math as one kernel,
            compiled by ``xp.fuse`` (CuPy's; numpy has none), instead of one kernel per
            elementwise operation (the gate functions `lstm_gates` and `gru_gates`).

    Raises:
        ValueError: a bad cell name or a size < 1, or `fused_gates` with an array module
            that has no ``fuse``.

    Example::

        from gluonlite.test_utils import rnn_floor
        f = rnn_floor.FloorRNN('LSTMCell', 5, 2, 3, 4, train=True)
        p = rnn_floor.init_params('LSTMCell', 3, 4)
        x, h0 = np.ones((5, 2, 3), 'float32'), np.zeros((2, 4), 'float32')
        out = f.forward(x, [h0, h0], p)
        out.shape, f.backward()['i2h_weight'].shape   # ((5, 2, 4), (16, 3))
    """

    def __init__(self, cell, seq_len, batch_size, input_size, hidden_size, *, fused=False,
                 train=False, activation="tanh", dtype="float32", xp=None,
                 fused_gates=False):
        for arg, v in (("seq_len", seq_len), ("batch_size", batch_size),
                       ("input_size", input_size), ("hidden_size", hidden_size)):
            if int(v) < 1:
                raise ValueError(f"FloorRNN: {arg} must be >= 1, got {v}")
        self.kind = cell_kind(cell, activation)
        self.fused, self.train = bool(fused), bool(train)
        self.xp = np if xp is None else xp
        self._sigmoid = _expit if self.xp is np else _sigmoid_of(self.xp)
        self._gates = None
        if fused_gates and self.kind in ("lstm", "gru"):
            if not hasattr(self.xp, "fuse"):
                raise ValueError(f"FloorRNN: fused_gates needs an array module with fuse() "
                                 f"(cupy), got {getattr(self.xp, '__name__', self.xp)}")
            math = lstm_gates if self.kind == "lstm" else gru_gates
            self._gates = self.xp.fuse(kernel_name=f"floor_{self.kind}_gates")(
                functools.partial(math, self.xp))
        self.dtype = np.dtype(dtype)
        T, N, I, H = self.shape = (int(seq_len), int(batch_size), int(input_size), int(hidden_size))
        G = _GATES[self.kind] * H
        z = self._zeros
        # hs[0] is the initial h and hs[t + 1] the output of step t, so hs[:-1] is the
        # stacked "previous h" that the fused weight-gradient GEMM needs, for free.
        self.hs = z(T + 1, N, H)
        keep = T if (train or fused) else 1
        self.gi = z(keep, N, G)            # i2h (+ h2h for rnn/lstm), then activations
        self.tmp_g = z(N, G)
        self.bias = z(G)
        self.t1, self.t2 = z(N, H), z(N, H)
        if self.kind == "gru":
            self.gh = z(T if train else 1, N, G)   # h2h, kept for h2h_n in the backward
            self.acts = z(T if train else 1, N, G)  # r, z, n
        if self.kind == "lstm":
            self.c = z(T + 1 if train else 2, N, H)
            self.tc = z(T if train else 1, N, H)   # tanh(c_t)
        if train:
            self._alloc_grads()

    def _zeros(self, *shape):
        return self.xp.zeros(shape, self.dtype)

    def _alloc_grads(self):
        xp = self.xp
        T, N, I, H = self.shape
        G = _GATES[self.kind] * H
        z = self._zeros
        self.grads = {"i2h_weight": z(G, I), "i2h_bias": z(G), "h2h_weight": z(G, H),
                      "h2h_bias": z(G), "data": z(T, N, I),
                      "states": [z(N, H) for _ in range(2 if self.kind == "lstm" else 1)]}
        self.dh, self.dh_next, self.dc = z(N, H), z(N, H), z(N, H)
        self.ones = xp.ones((N, H), self.dtype)
        two = self.kind == "gru"  # only the GRU has different i2h and h2h gradients
        if self.fused:
            self.dgi = z(T, N, G)
            self.dgh = z(T, N, G) if two else self.dgi
        else:
            self.dgi = z(1, N, G)
            self.dgh = z(1, N, G) if two else self.dgi
            self.tmp_wi, self.tmp_wh, self.tmp_b = z(G, I), z(G, H), z(G)

    # -- forward ---------------------------------------------------------------
    def forward(self, data, states, params):
        """Run the loop; return the stacked outputs (T, N, H) (a reused buffer).

        Args:
            data: (T, N, I) array.
            states: [h0] or, for LSTM, [h0, c0], each (N, H).
            params: dict with the four PARAM_NAMES arrays.

        Returns:
            numpy array (T, N, H), a view of an internal buffer.

        Raises:
            ValueError: wrong shapes or a missing parameter or state.

        Example::

            from gluonlite.test_utils import rnn_floor
            f = rnn_floor.FloorRNN('LSTMCell', 5, 2, 3, 4, train=True)
            p = rnn_floor.init_params('LSTMCell', 3, 4)
            x, h0 = np.ones((5, 2, 3), 'float32'), np.zeros((2, 4), 'float32')
            out = f.forward(x, [h0, h0], p).copy()   # copy: the buffer is reused
            out.shape   # (5, 2, 4): (T, N, H)
        """
        xp = self.xp
        T, N, I, H = self.shape
        self._check(data, states, params)
        self.x = data
        self.wi, self.wh = params["i2h_weight"], params["h2h_weight"]
        self.bi, self.bh = params["i2h_bias"], params["h2h_bias"]
        self.hs[0] = states[0]
        if self.kind == "lstm":
            self.c[0] = states[1]
        if self.kind == "gru":
            xp.copyto(self.bias, self.bi)
        else:
            xp.add(self.bi, self.bh, out=self.bias)
        if self.fused:
            xp.dot(data.reshape(T * N, I), self.wi.T, out=self.gi.reshape(T * N, -1))
            self.gi += self.bias
        step = {"lstm": self._lstm_fwd, "gru": self._gru_fwd}.get(self.kind, self._rnn_fwd)
        for t in range(T):
            g = self.gi[t if (self.fused or self.train) else 0]
            if not self.fused:
                xp.dot(data[t], self.wi.T, out=g)
                g += self.bias
            step(t, g)
        self.ran_train = self.train
        return self.hs[1:]

    def _check(self, data, states, params):
        T, N, I, H = self.shape
        want = {"data": (T, N, I)}
        for i in range(2 if self.kind == "lstm" else 1):
            want[f"states[{i}]"] = (N, H)
        G = _GATES[self.kind] * H
        want.update({"i2h_weight": (G, I), "i2h_bias": (G,),
                     "h2h_weight": (G, H), "h2h_bias": (G,)})
        got = {"data": data}
        got.update({f"states[{i}]": s for i, s in enumerate(states)})
        got.update({k: params.get(k) for k in PARAM_NAMES})
        bad = [f"{k}: expected shape {s}, "
               f"got {None if got.get(k) is None else tuple(np.shape(got[k]))}"
               for k, s in want.items() if got.get(k) is None or tuple(np.shape(got[k])) != s]
        if bad:
            raise ValueError(f"FloorRNN({self.kind}).forward: " + "; ".join(bad))

    def _h2h(self, t, out):
        self.xp.dot(self.hs[t], self.wh.T, out=out)

    def _rnn_fwd(self, t, g):
        xp = self.xp
        self._h2h(t, self.tmp_g)
        g += self.tmp_g
        if self.kind == "rnn_tanh":
            xp.tanh(g, out=self.hs[t + 1])
        else:
            xp.maximum(g, 0, out=self.hs[t + 1])

    def _lstm_fwd(self, t, g):
        xp = self.xp
        H = self.shape[3]
        self._h2h(t, self.tmp_g)
        if self._gates is not None:
            c_prev, c_new, tc = self._lstm_c(t)
            self._gates(g[:, :H], g[:, H:2 * H], g[:, 2 * H:3 * H], g[:, 3 * H:],
                        self.tmp_g[:, :H], self.tmp_g[:, H:2 * H], self.tmp_g[:, 2 * H:3 * H],
                        self.tmp_g[:, 3 * H:], c_prev, c_new, tc, self.hs[t + 1])
            return
        g += self.tmp_g
        self._sigmoid(g[:, :2 * H], out=g[:, :2 * H])
        xp.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
        self._sigmoid(g[:, 3 * H:], out=g[:, 3 * H:])
        i, f, cc, o = g[:, :H], g[:, H:2 * H], g[:, 2 * H:3 * H], g[:, 3 * H:]
        c_prev, c_new, tc = self._lstm_c(t)
        xp.multiply(f, c_prev, out=c_new)
        xp.multiply(i, cc, out=self.t1)
        c_new += self.t1
        xp.tanh(c_new, out=tc)
        xp.multiply(o, tc, out=self.hs[t + 1])

    def _lstm_c(self, t):
        """(c before step t, c after it, tanh(c after it)): rows kept for the backward when
        training, else two alternating rows."""
        if self.train:
            return self.c[t], self.c[t + 1], self.tc[t]
        return self.c[t % 2], self.c[(t + 1) % 2], self.tc[0]

    def _gru_fwd(self, t, gi):
        xp = self.xp
        H = self.shape[3]
        k = t if self.train else 0
        gh, a = self.gh[k], self.acts[k]
        self._h2h(t, gh)
        gh += self.bh
        r, z, n = a[:, :H], a[:, H:2 * H], a[:, 2 * H:]
        if self._gates is not None:
            self._gates(gi[:, :H], gi[:, H:2 * H], gi[:, 2 * H:], gh[:, :H], gh[:, H:2 * H],
                        gh[:, 2 * H:], self.hs[t], r, z, n, self.hs[t + 1])
            return
        xp.add(gi[:, :2 * H], gh[:, :2 * H], out=a[:, :2 * H])
        self._sigmoid(a[:, :2 * H], out=a[:, :2 * H])
        xp.multiply(r, gh[:, 2 * H:], out=n)
        n += gi[:, 2 * H:]
        xp.tanh(n, out=n)
        h_new = self.hs[t + 1]
        xp.subtract(self.hs[t], n, out=h_new)  # h' = n + z * (h - n)
        h_new *= z
        h_new += n

    # -- backward --------------------------------------------------------------
    def backward(self, out_grad=None):
        """Gradients of sum(out_grad * outputs) after a `train=True` forward.

        Args:
            out_grad: (T, N, H) head gradient; None means all ones.

        Returns:
            dict of reused buffers: 'i2h_weight', 'i2h_bias', 'h2h_weight',
            'h2h_bias', 'data' (T, N, I) and 'states' (a list like the states given).

        Raises:
            RuntimeError: the object was built with train=False or no forward ran.

        Example::

            from gluonlite.test_utils import rnn_floor
            f = rnn_floor.FloorRNN('LSTMCell', 5, 2, 3, 4, train=True)
            p = rnn_floor.init_params('LSTMCell', 3, 4)
            x, h0 = np.ones((5, 2, 3), 'float32'), np.zeros((2, 4), 'float32')
            f.forward(x, [h0, h0], p)
            grads = f.backward()   # of the sum of the outputs
            grads['data'].shape, len(grads['states'])   # ((5, 2, 3), 2)
        """
        xp = self.xp
        if not self.train or not getattr(self, "ran_train", False):
            raise RuntimeError("FloorRNN.backward: build with train=True and call forward first")
        T, N, I, H = self.shape
        gr = self.grads
        if not self.fused:
            for k in PARAM_NAMES:
                gr[k].fill(0)
        self.dh_next.fill(0)
        self.dc.fill(0)
        step = {"lstm": self._lstm_bwd, "gru": self._gru_bwd}.get(self.kind, self._rnn_bwd)
        for t in range(T - 1, -1, -1):
            xp.add(self.dh_next, self.ones if out_grad is None else out_grad[t], out=self.dh)
            k = t if self.fused else 0
            dgi, dgh = self.dgi[k], self.dgh[k]
            step(t, dgi, dgh)
            xp.dot(dgh, self.wh, out=self.dh_next)
            if self.kind == "gru":  # the direct path h -> h' = ... + z * h
                xp.multiply(self.dh, self.acts[t][:, H:2 * H], out=self.t1)
                self.dh_next += self.t1
            if not self.fused:
                self._accumulate_step(t, dgi, dgh)
        if self.fused:
            gi2, gh2 = self.dgi.reshape(T * N, -1), self.dgh.reshape(T * N, -1)
            xp.dot(gi2.T, self.x.reshape(T * N, I), out=gr["i2h_weight"])
            xp.dot(gh2.T, self.hs[:-1].reshape(T * N, H), out=gr["h2h_weight"])
            xp.sum(gi2, axis=0, out=gr["i2h_bias"])
            xp.sum(gh2, axis=0, out=gr["h2h_bias"])
            xp.dot(gi2, self.wi, out=gr["data"].reshape(T * N, I))
        xp.copyto(gr["states"][0], self.dh_next)
        if self.kind == "lstm":
            xp.copyto(gr["states"][1], self.dc)
        return gr

    def _accumulate_step(self, t, dgi, dgh):
        xp = self.xp
        gr = self.grads
        xp.dot(dgi.T, self.x[t], out=self.tmp_wi)
        gr["i2h_weight"] += self.tmp_wi
        xp.dot(dgh.T, self.hs[t], out=self.tmp_wh)
        gr["h2h_weight"] += self.tmp_wh
        xp.sum(dgi, axis=0, out=self.tmp_b)
        gr["i2h_bias"] += self.tmp_b
        if dgh is not dgi:
            xp.sum(dgh, axis=0, out=self.tmp_b)
        gr["h2h_bias"] += self.tmp_b
        xp.dot(dgi, self.wi, out=gr["data"][t])

    def _rnn_bwd(self, t, dg, _):
        xp = self.xp
        h = self.hs[t + 1]
        if self.kind == "rnn_tanh":
            xp.multiply(h, h, out=self.t1)
            xp.subtract(1, self.t1, out=self.t1)
        else:
            xp.sign(h, out=self.t1)  # relu output is >= 0, so sign is the 0/1 mask
        xp.multiply(self.dh, self.t1, out=dg)

    def _lstm_bwd(self, t, dg, _):
        xp = self.xp
        H = self.shape[3]
        a, tc, dh, dc, t1 = self.gi[t], self.tc[t], self.dh, self.dc, self.t1
        i, f, cc, o = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
        di, df, dcc, do = dg[:, :H], dg[:, H:2 * H], dg[:, 2 * H:3 * H], dg[:, 3 * H:]
        xp.subtract(1, o, out=t1)
        t1 *= o
        xp.multiply(dh, tc, out=do)
        do *= t1
        xp.multiply(tc, tc, out=t1)            # dc += dh * o * (1 - tanh(c)^2)
        xp.subtract(1, t1, out=t1)
        t1 *= o
        t1 *= dh
        dc += t1
        xp.subtract(1, i, out=t1)
        t1 *= i
        xp.multiply(dc, cc, out=di)
        di *= t1
        xp.subtract(1, f, out=t1)
        t1 *= f
        xp.multiply(dc, self.c[t], out=df)
        df *= t1
        xp.multiply(cc, cc, out=t1)
        xp.subtract(1, t1, out=t1)
        t1 *= i
        xp.multiply(dc, t1, out=dcc)
        dc *= f

    def _gru_bwd(self, t, dgi, dgh):
        xp = self.xp
        H = self.shape[3]
        a, gh, dh, t1, t2 = self.acts[t], self.gh[t], self.dh, self.t1, self.t2
        r, z, n, hn = a[:, :H], a[:, H:2 * H], a[:, 2 * H:], gh[:, 2 * H:]
        dr, dz, dn = dgi[:, :H], dgi[:, H:2 * H], dgi[:, 2 * H:]
        xp.subtract(self.hs[t], n, out=t1)     # dz = dh * (h - n) * z * (1 - z)
        t1 *= dh
        xp.subtract(1, z, out=t2)
        t2 *= z
        xp.multiply(t1, t2, out=dz)
        xp.subtract(1, z, out=t1)              # dn = dh * (1 - z) * (1 - n^2)
        t1 *= dh
        xp.multiply(n, n, out=t2)
        xp.subtract(1, t2, out=t2)
        xp.multiply(t1, t2, out=dn)
        xp.multiply(dn, r, out=dgh[:, 2 * H:])
        xp.multiply(dn, hn, out=t1)            # dr = dn * h2h_n * r * (1 - r)
        xp.subtract(1, r, out=t2)
        t2 *= r
        xp.multiply(t1, t2, out=dr)
        xp.copyto(dgh[:, :2 * H], dgi[:, :2 * H])


def lstm_gates(xp, i, f, g, o, hi, hf, hg, ho, c_prev, c_new, tc, h):
    """An LSTM step's elementwise math, in place, from the gates' i2h parts (i, f, g, o,
    bias included) and h2h parts (hi, hf, hg, ho): the activations into i, f, g, o (kept
    for the backward), ``c_new = f * c_prev + i * g``, ``tc = tanh(c_new)`` and
    ``h = o * tc``. Plain `xp` code, so ``cupy.fuse`` compiles it into one kernel.

    Args:
        xp: the array module (numpy or cupy).
        i: (N, H) i2h part of the input gate; receives its activation.
        f: (N, H) i2h part of the forget gate; receives its activation.
        g: (N, H) i2h part of the candidate; receives its activation.
        o: (N, H) i2h part of the output gate; receives its activation.
        hi: (N, H) h2h part of the input gate.
        hf: (N, H) h2h part of the forget gate.
        hg: (N, H) h2h part of the candidate.
        ho: (N, H) h2h part of the output gate.
        c_prev: (N, H) the previous cell state.
        c_new: (N, H) output: the new cell state.
        tc: (N, H) output: tanh of the new cell state.
        h: (N, H) output: the new hidden state.

    Example::

        from gluonlite.test_utils import rnn_floor
        N, H = 2, 3
        parts = [np.zeros((N, H)) for _ in range(8)]   # i2h and h2h parts of i, f, g, o
        c0, c1, tc, h1 = (np.zeros((N, H)) for _ in range(4))
        rnn_floor.lstm_gates(np, *parts, c0, c1, tc, h1)
        h1[0, 0]   # 0.0: the candidate tanh(0) is 0
    """
    i[...] = 1 / (1 + xp.exp(-(i + hi)))
    f[...] = 1 / (1 + xp.exp(-(f + hf)))
    g[...] = xp.tanh(g + hg)
    o[...] = 1 / (1 + xp.exp(-(o + ho)))
    c_new[...] = f * c_prev + i * g
    tc[...] = xp.tanh(c_new)
    h[...] = o * tc


def gru_gates(xp, ir, iz, in_, hr, hz, hn, h_prev, r, z, n, h):
    """A GRU step's elementwise math, in place, from the i2h parts (ir, iz, ``in_``, bias
    included) and the h2h parts (hr, hz, hn, bias included): ``r``, ``z`` (sigmoids),
    ``n = tanh(in_ + r * hn)`` and ``h = n + z * (h_prev - n)``. Plain `xp` code, so
    ``cupy.fuse`` compiles it into one kernel.

    Args:
        xp: the array module (numpy or cupy).
        ir: (N, H) i2h part of the reset gate.
        iz: (N, H) i2h part of the update gate.
        in_: (N, H) i2h part of the candidate.
        hr: (N, H) h2h part of the reset gate.
        hz: (N, H) h2h part of the update gate.
        hn: (N, H) h2h part of the candidate.
        h_prev: (N, H) the previous state.
        r: (N, H) output: the reset gate.
        z: (N, H) output: the update gate.
        n: (N, H) output: the candidate.
        h: (N, H) output: the new state.

    Example::

        from gluonlite.test_utils import rnn_floor
        N, H = 2, 3
        parts = [np.zeros((N, H)) for _ in range(6)]   # i2h and h2h parts of r, z, n
        h0 = np.ones((N, H))
        r, z, n, h1 = (np.zeros((N, H)) for _ in range(4))
        rnn_floor.gru_gates(np, *parts, h0, r, z, n, h1)
        h1[0, 0]   # 0.5: z = 0.5 keeps half of h0, n = 0
    """
    r[...] = 1 / (1 + xp.exp(-(ir + hr)))
    z[...] = 1 / (1 + xp.exp(-(iz + hz)))
    n[...] = xp.tanh(in_ + r * hn)
    h[...] = n + z * (h_prev - n)


def reference_loss(cell, data, states, params, out_grad=None, activation="tanh"):
    """sum(out_grad * outputs) of one float64 floor-step forward; used for finite differences.

    Args:
        cell: 'RNNCell', 'GRUCell' or 'LSTMCell' (as for `FloorRNN`).
        data: (T, N, I) numpy array.
        states: [h0] or, for LSTM, [h0, c0], each (N, H).
        params: dict with the four PARAM_NAMES arrays.
        activation: default 'tanh': 'tanh' or 'relu' for an RNN cell.
        out_grad: (T, N, H) weights; None means all ones.

    Returns:
        float.

    Example::

        from gluonlite.test_utils import rnn_floor
        p = rnn_floor.init_params('GRUCell', 3, 4)
        x, h0 = np.ones((2, 1, 3)), np.zeros((1, 4))
        loss = rnn_floor.reference_loss('GRUCell', x, [h0], p)
        type(loss).__name__   # 'float'
    """
    T, N, I = data.shape
    H = states[0].shape[1]
    f = FloorRNN(cell, T, N, I, H, activation=activation, dtype="float64")
    out = f.forward(np.asarray(data, "float64"), [np.asarray(s, "float64") for s in states],
                    {k: np.asarray(v, "float64") for k, v in params.items()})
    return float(out.sum() if out_grad is None else (out * out_grad).sum())


def check_against_reference(cell, data, states, params, ref_outputs, ref_grads=None, *,
                            fused=False, activation="tanh", rtol=1e-4, atol=1e-4):
    """Check the floor's outputs (and gradients) against reference arrays.

    Runs the floor on the given inputs and compares with `ref_outputs` (T, N, H) and,
    if given, `ref_grads` (a dict with any of 'i2h_weight', 'i2h_bias', 'h2h_weight',
    'h2h_bias', 'data', 'states'), the gradients of the sum of the outputs.

    Args:
        cell: 'RNNCell', 'GRUCell' or 'LSTMCell' (as for `FloorRNN`).
        activation: default 'tanh': 'tanh' or 'relu' for an RNN cell.
        fused: default False: check the floor-fused loop instead of floor-step.
        data: (T, N, I) numpy array.
        states: [h0] or, for LSTM, [h0, c0], each (N, H).
        params: dict of the four parameters (it may use
            any names accepted by `params_from_named`).
        ref_outputs: reference stacked outputs.
        ref_grads: reference gradients or None.
        rtol: default 1e-4: the relative tolerance, as in `numpy.allclose`.
        atol: default 1e-4: the absolute tolerance.

    Returns:
        dict name -> max absolute error, for every compared array.

    Raises:
        AssertionError: any array differs; the message lists every mismatch with its
            max absolute error and shape.

    Example::

        from gluonlite.test_utils import rnn_floor
        p = rnn_floor.init_params('GRUCell', 3, 4)
        x, s = np.ones((2, 1, 3), 'float32'), [np.zeros((1, 4), 'float32')]
        out = rnn_floor.FloorRNN('GRUCell', 2, 1, 3, 4).forward(x, s, p).copy()
        rnn_floor.check_against_reference('GRUCell', x, s, p, out)['outputs']   # 0.0
    """
    data = np.asarray(data)
    states = [np.asarray(s) for s in states]
    params = params_from_named(params) if set(params) != set(PARAM_NAMES) else params
    T, N, I = data.shape
    H = states[0].shape[1]
    floor = FloorRNN(cell, T, N, I, H, fused=fused, train=ref_grads is not None,
                     activation=activation, dtype=data.dtype)
    pairs = [("outputs", floor.forward(data, states, params), ref_outputs)]
    if ref_grads is not None:
        grads = floor.backward()
        for k, ref in ref_grads.items():
            if k == "states":
                pairs += [(f"states[{i}]", g, r)
                          for i, (g, r) in enumerate(zip(grads["states"], ref))]
            else:
                pairs.append((k, grads[k], ref))
    errors, bad = {}, []
    for name, got, ref in pairs:
        ref = np.asarray(ref.asnumpy() if hasattr(ref, "asnumpy") else ref)
        if got.shape != ref.shape:
            bad.append(f"{name}: shape {got.shape} vs reference {ref.shape}")
            continue
        errors[name] = float(np.max(np.abs(got - ref))) if got.size else 0.0
        if not np.allclose(got, ref, rtol=rtol, atol=atol):
            bad.append(f"{name}: max abs error {errors[name]:.3g} (shape {got.shape})")
    if bad:
        raise AssertionError(f"floor {cell_kind(cell, activation)} "
                             f"({'fused' if fused else 'step'}) differs from the reference: "
                             + "; ".join(bad))
    return errors
