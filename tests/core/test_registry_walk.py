"""One walk over the whole operator registry.

Every registered operator has an entry in SPECS (the test fails for one without): example
inputs and attributes, and a numpy reference where an obvious one exists. `check_op` checks, in
one call, the values against the reference, the shape rule (also with each input left unknown)
and the dtype rule against the forward on several shapes in float32 and float64, and for every
differentiable operator the gradients against central finite differences in float64;
non-differentiable inputs must get zero gradients. Failures name the operator.
"""
import ast
import zlib

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.ops import all_ops

# Operators registered by other layers, tested there (control flow, CachedOp, partitioning).
EXTERNAL = {
    "_foreach",               # gluonlite.control_flow: loop over axis 0
    "_while_loop",            # gluonlite.control_flow
    "_cond",                  # gluonlite.control_flow
    "_default_subgraph_op",   # gluonlite.subgraph: the default backend's subgraph node
}
EXTERNAL_PREFIXES = ("_CachedOp",)  # hybridized blocks register one operator per graph


class Idx:
    """Exact (integer-valued) input data: indices, lengths, conditions, exact ties."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)


class Pos:
    """Random positive data of a shape (for log, sqrt, power, divisors)."""

    def __init__(self, *shape):
        self.shape = shape


def make(spec, rng):
    """numpy float64 data for one input spec: a shape tuple gives signed values with
    magnitudes in [0.5, 1.5] (away from kinks at 0), `Pos` values in [0.5, 1.5]."""
    if isinstance(spec, Idx):
        return spec.values.copy()
    if isinstance(spec, Pos):
        return rng.uniform(0.5, 1.5, spec.shape)
    if isinstance(spec, np.ndarray):
        return spec.astype(np.float64)
    return rng.uniform(0.5, 1.5, spec) * rng.choice([-1.0, 1.0], spec)


def C(inputs, attrs=None, ref=None, more=(), train=True, rtol=1e-4, guessed=()):
    """One check: `inputs` (specs), `attrs`, numpy `ref(*arrays) -> output(s)`, `more` input
    lists checked for shapes/dtypes/values too, `train` the mode of the gradient pass,
    `guessed` inputs whose shape the rule fills with a default guess when unknown."""
    return dict(inputs=list(inputs), attrs=dict(attrs or {}), ref=ref, more=list(more),
                train=train, rtol=rtol, guessed=set(guessed))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _bn_ref(x, g, b, mm, mv, fix_gamma=True, eps=1e-3):
    g = np.ones_like(g) if fix_gamma else g
    s = (1, -1, 1)
    return (x - mm.reshape(s)) / np.sqrt(mv.reshape(s) + eps) * g.reshape(s) + b.reshape(s)


def _ln_ref(x, g, b, eps=1e-5):
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def _seq_ref(x, lens, value=0.0):
    out = x.copy()
    for b, n in enumerate(lens.astype(int)):
        out[n:, b] = value
    return out


def _seq_reverse_ref(x, lens):
    out = x.copy()
    for b, n in enumerate(lens.astype(int)):
        out[:n, b] = x[:n, b][::-1]
    return out


def _one_hot(i, depth):
    return (i[..., None] == np.arange(depth)).astype(np.float64)


def _rnn_ref(mode, layers, bidirectional, hidden):
    """numpy reference of the fused RNN (no projection): the floor's per-step loop per layer
    and direction, the reverse direction on the time-reversed sequence."""
    from gluonlite.bench.floor import FloorRNN
    G, D = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode] * hidden, \
        2 if bidirectional else 1

    def ref(x, params, h0, c0=None):
        T, N, _ = x.shape
        off, dirs = 0, []
        for layer in range(layers):
            ni = x.shape[2] if layer == 0 else D * hidden
            for _ in range(D):
                wx = params[off:off + G * ni].reshape(G, ni)
                wh = params[off + G * ni:off + G * (ni + hidden)].reshape(G, hidden)
                off += G * (ni + hidden)
                dirs.append({"i2h_weight": wx, "h2h_weight": wh})
        for d in dirs:
            d["i2h_bias"], d["h2h_bias"] = params[off:off + G], params[off + G:off + 2 * G]
            off += 2 * G
        hy, cy = [], []
        for layer in range(layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                f = FloorRNN(mode, T, N, x.shape[2], hidden, dtype="float64", train=True,
                             activation=mode[4:] or "tanh")
                seq = x[::-1] if d else x
                states = [h0[k]] + ([c0[k]] if c0 is not None else [])
                y = f.forward(np.ascontiguousarray(seq), states, dirs[k]).copy()
                hy.append(y[-1])
                if c0 is not None:
                    cy.append(f.c[T].copy())
                outs.append(y[::-1] if d else y)
            x = np.concatenate(outs, axis=2)
        return [x, np.stack(hy)] + ([np.stack(cy)] if c0 is not None else [])
    return ref


def _rnn_size(mode, layers, bidirectional, ni, hidden):
    G, D = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode] * hidden, \
        2 if bidirectional else 1
    return sum(D * G * ((ni if k == 0 else D * hidden) + hidden + 2) for k in range(layers))


def _rnn(mode, layers=1, bidirectional=False, hidden=2, more=True, **attrs):
    T, N, ni, D = 3, 2, 3, 2 if bidirectional else 1
    states = [(layers * D, N, hidden)] * (2 if mode == "lstm" else 1)
    size = _rnn_size(mode, layers, bidirectional, ni, hidden)
    a = {"state_size": hidden, "num_layers": layers, "bidirectional": bidirectional,
         "mode": mode, "state_outputs": True, **attrs}
    extra = [[(4, 1, ni), (size,)] + [(layers * D, 1, hidden)] * len(states)] if more else []
    return C([(T, N, ni), (size,)] + states, a, more=extra,
             ref=None if attrs else _rnn_ref(mode, layers, bidirectional, hidden))


def _rnn_parts(mode, layers, bidirectional, ni, hidden):
    """The shapes of the packed vector's entries, in its order (what a layer concatenates)."""
    G, D = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode] * hidden, \
        2 if bidirectional else 1
    weights = [s for k in range(layers) for _ in range(D)
               for s in ((G, ni if k == 0 else D * hidden), (G, hidden))]
    return weights + [(G,)] * (2 * layers * D)


def _unpacked(mode, layers=1, bidirectional=False, hidden=2, split=None):
    """_rnn_unpacked: the parts as a layer's parameters (or split at `split`, not by entry),
    checked against the RNN reference on their concatenation."""
    T, N, ni, D = 3, 2, 3, 2 if bidirectional else 1
    n_states = 2 if mode == "lstm" else 1
    parts = _rnn_parts(mode, layers, bidirectional, ni, hidden)
    if split is not None:
        size = _rnn_size(mode, layers, bidirectional, ni, hidden)
        parts = [(split,), (size - split,)]
    ref = _rnn_ref(mode, layers, bidirectional, hidden)

    def unpacked_ref(x, *rest):
        flat = np.concatenate([a.reshape(-1) for a in rest[:len(rest) - n_states]])
        return ref(x, flat, *rest[len(rest) - n_states:])
    a = {"state_size": hidden, "num_layers": layers, "bidirectional": bidirectional,
         "mode": mode, "state_outputs": True}
    return C([(T, N, ni)] + parts + [(layers * D, N, hidden)] * n_states, a, ref=unpacked_ref)


B23, B13, B21 = (2, 3), (1, 3), (2, 1)
MODA = np.array([[2.3, 3.7, 5.2], [1.3, 4.6, 7.1]])
MODB = np.array([[1.1, 1.5, 2.0], [0.7, 1.9, 2.3]])
EQA, EQB = Idx([[1, 2, 3], [4, 5, 6]]), Idx([[1, 0, 3], [5, 5, 2]])
UNIT = np.array([[-0.8, -0.3, 0.1], [0.25, 0.6, 0.9]])  # inside (-1, 1)
HALVES = Idx([[-2.5, -1.5, -0.5], [0.5, 2.5, 1.7]])  # rounding ties and a plain value


def _unary(ref, data=B23, more=((2, 3, 4),)):
    return C([data], ref=ref, more=[[m if not isinstance(data, Pos) else Pos(*m)] for m in more])


def _bcast(fn, pos_rhs=False, pos_lhs=False):
    lhs = Pos(*B23) if pos_lhs else B23
    rhs = Pos(*B13) if pos_rhs else B13
    L = (lambda *s: Pos(*s)) if pos_lhs else (lambda *s: s)
    R = (lambda *s: Pos(*s)) if pos_rhs else (lambda *s: s)
    return C([lhs, rhs], ref=fn, more=[[L(2, 1), R(1, 3)], [L(2, 3, 4), R(4)], [L(3,), R(3,)]])


def _same(fn, pos_rhs=False, pos_lhs=False):
    lhs = Pos(*B23) if pos_lhs else B23
    rhs = Pos(*B23) if pos_rhs else B23
    return C([lhs, rhs], ref=fn, more=[[Pos(4) if pos_lhs else (4,), Pos(4) if pos_rhs else (4,)]])


def _cmp(fn, broadcast):
    more = [[Idx([[1, 2, 3]]), Idx([[1], [3]])]] if broadcast else [[Idx([1, 2]), Idx([1, 3])]]
    return C([EQA, EQB], ref=lambda a, b: fn(a, b).astype(a.dtype), more=more)


def _scalar(fn, s, data=B23):
    return C([data], {"scalar": s}, ref=lambda x: fn(x, s), more=[[(4,)]])


def _scmp(fn, s):
    return C([Idx([[1, 2, 3], [2, 0, 1]])], {"scalar": s},
             ref=lambda x: fn(x, s).astype(x.dtype))


def _reduce(fn):
    return [C([(2, 3, 2)], ref=lambda x: fn(x).reshape(1), more=[[(5,)]]),
            C([(2, 3, 2)], {"axis": 1}, ref=lambda x: fn(x, axis=1)),
            C([(2, 3, 2)], {"axis": (0, 2), "keepdims": True},
              ref=lambda x: fn(x, axis=(0, 2), keepdims=True)),
            C([(2, 3, 2)], {"axis": 1, "exclude": True}, ref=lambda x: fn(x, axis=(0, 2)))]


SPECS = {
    "Activation": [C([B23], {"act_type": "relu"}, ref=lambda x: np.maximum(x, 0)),
                   C([B23], {"act_type": "sigmoid"}, ref=_sigmoid),
                   C([B23], {"act_type": "tanh"}, ref=np.tanh),
                   C([B23], {"act_type": "softrelu"}, ref=lambda x: np.log1p(np.exp(x))),
                   C([B23], {"act_type": "softsign"}, ref=lambda x: x / (1 + abs(x)))],
    "BatchNorm": [C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], {"fix_gamma": False},
                    ref=lambda *a: _bn_ref(*a, fix_gamma=False)),
                  C([(2, 3, 2), (3,), (3,), (3,), Pos(3)], ref=_bn_ref),
                  C([(2, 3, 2), (3,), (3,), (3,), Pos(3)],
                    {"fix_gamma": False, "use_global_stats": True},
                    ref=lambda *a: _bn_ref(*a, fix_gamma=False))],
    "BlockGrad": C([B23], ref=lambda x: x),
    "Cast": C([B23], {"dtype": "float64"}, ref=lambda x: x),
    "Concat": [C([B23, (2, 2)], {"dim": 1}, ref=lambda a, b: np.concatenate([a, b], 1),
                 more=[[(2, 1), (2, 2)]]),
               C([(1, 3), B23, (3, 3)], {"dim": 0}, ref=lambda *a: np.concatenate(a, 0))],
    "Dropout": [C([(4, 5)], {"p": 0.5}, ref=lambda x: x),   # values: predict mode is identity
                C([(4, 5)], {"p": 0.3, "axes": (0,)}, ref=lambda x: x)],
    "Embedding": C([Idx([[0, 2], [1, 1]]), (4, 3)], {"input_dim": 4, "output_dim": 3},
                   ref=lambda i, w: w[i.astype(int)], more=[[Idx([3, 0, 0]), (4, 3)]]),
    "Flatten": _unary(lambda x: x.reshape(x.shape[0], -1), (2, 3, 2), more=((4, 1),)),
    "FullyConnected": [
        C([B23, (4, 3), (4,)], {"num_hidden": 4}, ref=lambda x, w, b: x @ w.T + b,
          more=[[(5, 3), (4, 3), (4,)]]),
        C([(2, 3, 2), (4, 6)], {"num_hidden": 4, "no_bias": True},
          ref=lambda x, w: x.reshape(2, -1) @ w.T),
        C([(2, 3, 2), (4, 2), (4,)], {"num_hidden": 4, "flatten": False},
          ref=lambda x, w, b: x @ w.T + b)],
    "LayerNorm": C([(3, 4), (4,), (4,)], ref=_ln_ref, more=[[(2, 3, 4), (4,), (4,)]]),
    "LeakyReLU": [C([B23], {"slope": 0.1}, ref=lambda x: np.where(x > 0, x, 0.1 * x)),
                  C([B23], {"act_type": "elu", "slope": 1.0},
                    ref=lambda x: np.where(x > 0, x, np.expm1(x))),
                  C([B23, (3,)], {"act_type": "prelu"},
                    ref=lambda x, g: np.where(x > 0, x, x * g))],
    "RNN": [_rnn("lstm", 2, True), _rnn("gru", 2), _rnn("rnn_tanh", 1, True),
            _rnn("rnn_relu", 2, more=False),
            # a projection; clipped cell states (bounds away from the values' kinks)
            C([(3, 2, 3), (4 * 2 * (3 + 1) + 2 * 4 * 2 + 1 * 2,), (1, 2, 1), (1, 2, 2)],
              {"state_size": 2, "num_layers": 1, "mode": "lstm", "projection_size": 1,
               "state_outputs": True}),
            C([(3, 2, 3), (_rnn_size("lstm", 1, False, 3, 2),), (1, 2, 2), (1, 2, 2)],
              {"state_size": 2, "num_layers": 1, "mode": "lstm", "state_outputs": True,
               "lstm_state_clip_min": -0.83, "lstm_state_clip_max": 0.77}),
            C([(3, 2, 3), (_rnn_size("gru", 1, True, 3, 2),), (2, 2, 2), Idx([2, 3])],
              {"state_size": 2, "num_layers": 1, "mode": "gru", "bidirectional": True,
               "use_sequence_length": True, "state_outputs": True}),
            # a projection over sequences of several lengths (the masked steps' gradients)
            C([(3, 2, 3), (4 * 2 * (3 + 1) + 2 * 4 * 2 + 1 * 2,), (1, 2, 1), (1, 2, 2),
               Idx([2, 3])],
              {"state_size": 2, "num_layers": 1, "mode": "lstm", "projection_size": 1,
               "use_sequence_length": True, "state_outputs": True})],
    "_rnn_unpacked": [_unpacked("lstm", 2, True), _unpacked("gru"), _unpacked("rnn_relu", 2),
                      _unpacked("rnn_tanh", split=7)],
    "Reshape": [C([(2, 3, 4)], {"shape": (-1, 4)}, ref=lambda x: x.reshape(-1, 4),
                  more=[[(4, 2)], [(8,)]]),
                C([(2, 3, 4)], {"shape": (0, -3)}, ref=lambda x: x.reshape(2, 12))],
    "SequenceMask": [C([(3, 2, 2), Idx([1, 3])], {"use_sequence_length": True},
                       ref=_seq_ref, more=[[(4, 2), Idx([2, 0])]]),
                     C([(3, 2)], ref=lambda x: x)],
    "SequenceLast": [C([(3, 2, 2), Idx([1, 3])], {"use_sequence_length": True},
                       ref=lambda x, n: x[n.astype(int) - 1, np.arange(2)],
                       more=[[(4, 2), Idx([4, 2])]]),
                     C([(3, 2)], ref=lambda x: x[-1]),
                     C([(2, 3, 2), Idx([3, 1])], {"use_sequence_length": True, "axis": 1},
                       ref=lambda x, n: x[np.arange(2), n.astype(int) - 1])],
    "SequenceReverse": [C([(4, 3, 2), Idx([2, 4, 0])], {"use_sequence_length": True},
                          ref=_seq_reverse_ref, more=[[(3, 2), Idx([1, 3])]]),
                        C([(3, 2)], ref=lambda x: x[::-1])],
    "SliceChannel": [C([(2, 6)], {"num_outputs": 3}, ref=lambda x: np.split(x, 3, 1)),
                     C([(2, 3)], {"num_outputs": 2, "axis": 0, "squeeze_axis": True},
                       ref=lambda x: [x[0], x[1]]),
                     C([(2, 3, 4)], {"num_outputs": 2, "axis": -1},
                       ref=lambda x: np.split(x, 2, -1)),
                     C([(2, 3)], {"num_outputs": 3, "squeeze_axis": True},
                       ref=lambda x: [x[:, 0], x[:, 1], x[:, 2]]),
                     # MXNet has no 0-d arrays: squeezing a 1-d input keeps (1,) parts
                     C([(3,)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True},
                       ref=lambda x: [x[0:1], x[1:2], x[2:3]])],
    "SwapAxis": C([(2, 3, 4)], {"dim1": 0, "dim2": 2}, ref=lambda x: np.swapaxes(x, 0, 2)),
    "_rnn_param_concat": C([(3,), (4,), (2,)], {"dim": 0}, ref=lambda *a: np.concatenate(a),
                           more=[[(2, 3), (1, 3)]]),
    "_arange": [C([], {"start": 1, "stop": 5, "step": 0.5}, ref=lambda: np.arange(1, 5, 0.5)),
                C([], {"start": 3, "repeat": 2}, ref=lambda: np.repeat(np.arange(3), 2))],
    "_copy": _unary(lambda x: x),
    "_div_scalar": _scalar(np.divide, 2.0),
    "_equal": _cmp(np.equal, False),
    "_equal_scalar": _scmp(np.equal, 1),
    "_full": C([], {"shape": B23, "value": 7}, ref=lambda: np.full(B23, 7.0)),
    "_greater": _cmp(np.greater, False),
    "_greater_equal": _cmp(np.greater_equal, False),
    "_greater_equal_scalar": _scmp(np.greater_equal, 1),
    "_greater_scalar": _scmp(np.greater, 1),
    "_lesser": _cmp(np.less, False),
    "_lesser_equal": _cmp(np.less_equal, False),
    "_lesser_equal_scalar": _scmp(np.less_equal, 1),
    "_lesser_scalar": _scmp(np.less, 1),
    "_maximum": _same(np.maximum),
    "_maximum_scalar": _scalar(np.maximum, 0.25),
    "_minimum": _same(np.minimum),
    "_minimum_scalar": _scalar(np.minimum, 0.25),
    "_minus_scalar": _scalar(np.subtract, 1.5),
    "_mod": C([MODA, MODB], ref=np.mod),
    "_mod_scalar": C([MODA], {"scalar": 0.7}, ref=lambda x: np.mod(x, 0.7)),
    "_mul_scalar": _scalar(np.multiply, -3.0),
    "_not_equal": _cmp(np.not_equal, False),
    "_not_equal_scalar": _scmp(np.not_equal, 1),
    "_ones": C([], {"shape": (3,)}, ref=lambda: np.ones(3)),
    "_plus_scalar": _scalar(np.add, 2.5),
    "_power": _same(np.power, pos_lhs=True),
    "_power_scalar": _scalar(np.power, 3.0),
    "_random_normal": C([], {"shape": B23}),
    "_random_uniform": C([], {"shape": B23, "low": -1, "high": 2}),
    "_rdiv_scalar": _scalar(lambda x, s: s / x, 2.0),
    "_rminus_scalar": _scalar(lambda x, s: s - x, 2.0),
    "_rmod_scalar": C([MODB], {"scalar": 5.0}, ref=lambda x: np.mod(5.0, x)),
    "_rpower_scalar": _scalar(lambda x, s: s ** x, 2.0),
    "_zeros": C([], {"shape": (2, 1)}, ref=lambda: np.zeros((2, 1))),
    "abs": _unary(np.abs),
    "add_n": C([B23, B23, B23], ref=lambda *a: sum(a), more=[[(4,), (4,)]]),
    "argmax": [C([(3, 4)], {"axis": 1}, ref=lambda x: x.argmax(1).astype(x.dtype)),
               C([(3, 4)], ref=lambda x: np.array([x.argmax()], x.dtype)),
               C([(3, 4)], {"axis": 0, "keepdims": True},
                 ref=lambda x: x.argmax(0)[None].astype(x.dtype))],
    "batch_dot": [C([(2, 3, 4), (2, 4, 5)], ref=np.matmul),
                  C([(2, 4, 3), (2, 5, 4)], {"transpose_a": True, "transpose_b": True},
                    ref=lambda a, b: np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2))],
    "broadcast_add": _bcast(np.add),
    "broadcast_div": _bcast(np.divide, pos_rhs=True),
    "broadcast_equal": _cmp(np.equal, True),
    "broadcast_greater": _cmp(np.greater, True),
    "broadcast_greater_equal": _cmp(np.greater_equal, True),
    "broadcast_lesser": _cmp(np.less, True),
    "broadcast_lesser_equal": _cmp(np.less_equal, True),
    "broadcast_maximum": _bcast(np.maximum),
    "broadcast_minimum": _bcast(np.minimum),
    "broadcast_mod": C([MODA, MODB[:1]], ref=np.mod),
    "broadcast_mul": _bcast(np.multiply),
    "broadcast_not_equal": _cmp(np.not_equal, True),
    "broadcast_power": _bcast(np.power, pos_lhs=True),
    "broadcast_sub": _bcast(np.subtract),
    "broadcast_to": [C([B13], {"shape": B23}, ref=lambda x: np.broadcast_to(x, B23)),
                     C([(2, 1, 1)], {"shape": (2, 3, 4)},
                       ref=lambda x: np.broadcast_to(x, (2, 3, 4)))],
    "clip": C([(3, 4)], {"a_min": -0.8, "a_max": 0.8}, ref=lambda x: np.clip(x, -0.8, 0.8)),
    "dot": [C([B23, (3, 4)], ref=np.dot, more=[[(3,), (3,)], [(2, 3, 4), (4, 5)]]),
            C([(3, 2), (4, 3)], {"transpose_a": True, "transpose_b": True},
              ref=lambda a, b: a.T @ b.T)],
    "elemwise_add": _same(np.add),
    "elemwise_div": _same(np.divide, pos_rhs=True),
    "elemwise_mul": _same(np.multiply),
    "elemwise_sub": _same(np.subtract),
    "exp": _unary(np.exp),
    "norm": [C([B23], ref=lambda x: np.sqrt((x * x).sum()).reshape(1), more=[[(4,)]]),
             C([(2, 3, 2)], {"axis": 1}, ref=lambda x: np.sqrt((x * x).sum(axis=1))),
             C([(2, 3, 2)], {"ord": 1, "axis": (0, 2), "keepdims": True},
               ref=lambda x: np.abs(x).sum(axis=(0, 2), keepdims=True))],
    "sin": _unary(np.sin),
    "cos": _unary(np.cos),
    "tan": _unary(np.tan, UNIT, more=()),
    "arcsin": _unary(np.arcsin, UNIT, more=()),
    "arccos": _unary(np.arccos, UNIT, more=()),
    "arctan": _unary(np.arctan),
    "sinh": _unary(np.sinh),
    "cosh": _unary(np.cosh),
    "arcsinh": _unary(np.arcsinh),
    "arccosh": _unary(np.arccosh, UNIT + 2, more=()),
    "arctanh": _unary(np.arctanh, UNIT, more=()),
    "degrees": _unary(np.degrees),
    "radians": _unary(np.radians),
    "log2": _unary(np.log2, Pos(*B23)),
    "log10": _unary(np.log10, Pos(*B23)),
    "log1p": _unary(np.log1p, Pos(*B23)),
    "expm1": _unary(np.expm1),
    "cbrt": _unary(np.cbrt),
    "rsqrt": _unary(lambda x: 1 / np.sqrt(x), Pos(*B23)),
    "rcbrt": _unary(lambda x: 1 / np.cbrt(x), Pos(*B23)),
    "sign": _unary(np.sign),
    "floor": _unary(np.floor, HALVES),
    "ceil": _unary(np.ceil, HALVES),
    "trunc": _unary(np.trunc, HALVES),
    "fix": _unary(np.trunc, HALVES),
    "rint": _unary(lambda x: np.ceil(x - 0.5), HALVES),  # halves down, as MXNet
    "round": _unary(lambda x: np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)), HALVES),
    "expand_dims": [C([B23], {"axis": 1}, ref=lambda x: x[:, None]),
                    C([B23], {"axis": -1}, ref=lambda x: x[..., None])],
    "log": _unary(np.log, Pos(*B23)),
    "logical_not": [_unary(lambda x: (x == 0).astype(x.dtype)),
                    C([Idx([[0, 1, -2], [0, 0, 3]])], ref=lambda x: (x == 0).astype(x.dtype))],
    "log_softmax": [C([B23], ref=lambda x: np.log(_softmax(x))),
                    C([B23], {"axis": 0}, ref=lambda x: np.log(_softmax(x, 0)))],
    "max": _reduce(np.max),
    "mean": _reduce(np.mean),
    "min": _reduce(np.min),
    "negative": _unary(np.negative),
    "one_hot": C([Idx([[0, 2], [1, 5]])], {"depth": 3}, ref=lambda i: _one_hot(i, 3)),
    "ones_like": _unary(np.ones_like),
    "pick": [C([(2, 3), Idx([0, 2])], ref=lambda x, i: x[np.arange(2), i.astype(int)]),
             C([(2, 3), Idx([1, 0, 1])], {"axis": 0, "keepdims": True},
               ref=lambda x, i: x[i.astype(int), np.arange(3)][None]),
             C([(2, 3), Idx([4, -1])], {"mode": "wrap"},
               ref=lambda x, i: x[np.arange(2), i.astype(int) % 3])],
    "prod": _reduce(np.prod),
    "reciprocal": _unary(np.reciprocal),
    "relu": _unary(lambda x: np.maximum(x, 0)),
    "reshape_like": [C([(2, 3, 4), (6, 4)], ref=lambda a, b: a.reshape(b.shape),
                       more=[[(2, 6), (3, 4)], [(4,), (2, 2)]]),
                     C([(6, 4), (5, 3, 2, 2)], {"lhs_begin": -1, "rhs_begin": 2},
                       ref=lambda a, b: a.reshape(6, 2, 2)),
                     C([(2, 3, 4), (5, 6, 7)],
                       {"lhs_begin": 0, "lhs_end": 2, "rhs_begin": 1, "rhs_end": 2},
                       ref=lambda a, b: a.reshape(6, 4))],
    "reverse": [C([(2, 3, 4)], {"axis": 1}, ref=lambda x: x[:, ::-1]),
                C([(2, 3, 4)], {"axis": (0, -1)}, ref=lambda x: x[::-1, :, ::-1]),
                # an axis named twice is flipped back (MXNet)
                C([(2, 3)], {"axis": (0, 1, 0)}, ref=lambda x: x[:, ::-1])],
    "sigmoid": _unary(_sigmoid),
    "slice": [C([(3, 4)], {"begin": (0, 1), "end": (2, 4)}, ref=lambda x: x[0:2, 1:4]),
              C([(3, 4)], {"begin": (None, 3), "end": (None, 0), "step": (2, -1)},
                ref=lambda x: x[::2, 3:0:-1])],
    "slice_axis": [C([(3, 4)], {"axis": 1, "begin": 1, "end": 3}, ref=lambda x: x[:, 1:3]),
                   C([(3, 4)], {"axis": 0, "begin": -2, "end": None}, ref=lambda x: x[-2:])],
    "softmax": [C([B23], ref=_softmax, more=[[(4,)], [(2, 3, 4)]]),
                C([B23], {"axis": 0, "temperature": 2.0}, ref=lambda x: _softmax(x / 2, 0)),
                C([B23, Idx([2, 1])], {"use_length": True},
                  ref=lambda x, n: np.concatenate([_softmax(x[:1, :2]), np.zeros((1, 1)),
                                                   _softmax(x[1:, :1]), np.zeros((1, 2))],
                                                  axis=1).reshape(2, 3))],
    "softrelu": _unary(lambda x: np.log1p(np.exp(x))),
    "softsign": _unary(lambda x: x / (1 + np.abs(x))),
    "sqrt": _unary(np.sqrt, Pos(*B23)),
    "square": _unary(np.square),
    "squeeze": [C([(2, 1, 3)], {"axis": 1}, ref=lambda x: x[:, 0]),
                C([(1, 3, 1)], ref=lambda x: x.reshape(3))],
    "stack": [C([B23, B23], ref=lambda a, b: np.stack([a, b])),
              C([B23, B23, B23], {"axis": 2}, ref=lambda *a: np.stack(a, 2))],
    "sum": _reduce(np.sum),
    "take": [C([(3, 2), Idx([[0, 2], [1, 1]])], ref=lambda a, i: a[i.astype(int)]),
             C([(2, 3), Idx([4, -1])], {"axis": 1, "mode": "wrap"},
               ref=lambda a, i: a[:, i.astype(int) % 3]),
             C([(3, 2), Idx([5, -1])], ref=lambda a, i: a[np.clip(i.astype(int), 0, 2)])],
    "tanh": _unary(np.tanh),
    "transpose": [C([(2, 3, 4)], {"axes": (1, 0, 2)}, ref=lambda x: x.transpose(1, 0, 2)),
                  C([(2, 3, 4)], ref=lambda x: x.T)],
    "where": [C([Idx([[1, 0, 1], [0, 0, 1]]), B23, B23], ref=lambda c, x, y: np.where(c, x, y)),
              # an unknown condition is inferred with x's shape (as MXNet does), not 1-D
              C([Idx([0, 1]), B23, B23], ref=lambda c, x, y: np.where(c[:, None], x, y),
                guessed=(0,))],
    "zeros_like": _unary(np.zeros_like),
}


def _fn(op):
    from gluonlite.ndarray.register import make_function
    return getattr(nd, op.name, None) or make_function(op, op.name)


def _run(op, arrays, attrs, dtype, record=False, train=True, grads=False):
    """Forward through the public nd function; returns (outputs list, input NDArrays)."""
    xs = [nd.array(a, dtype=dtype) for a in arrays]
    if grads:
        for x in xs:
            x.attach_grad()
    mx.random.seed(7)  # random operators draw the same numbers on every call
    if record:
        with autograd.record(train_mode=train):
            out = _fn(op)(*xs, **attrs)
    else:
        out = _fn(op)(*xs, **attrs)
    return (list(out) if isinstance(out, (list, tuple)) else [out]), xs


def _params(op, attrs, n_inputs):
    a = dict(attrs)
    if op.variadic:
        a.setdefault(op.variadic, n_inputs)
    return op.parse(a)[0]


def _check_rules(op, p, xs, outs, where, guessed=()):
    in_shapes = [x.shape for x in xs]
    got = [o.shape for o in outs]
    _, rule = op.infer_shape(p, in_shapes)
    assert [tuple(s) for s in rule[:len(outs)]] == got, \
        f"{where}: shape rule gives {rule} for inputs {in_shapes}, forward gives {got}"
    for i in range(len(xs)):  # partial inference must agree with what is known
        ins = list(in_shapes)
        ins[i] = None
        filled, rule_i = op.infer_shape(p, ins)
        assert i in guessed or filled[i] is None or tuple(filled[i]) == in_shapes[i], \
            f"{where}: shape rule fills input {i} as {filled[i]}, actual {in_shapes[i]}"
        for r, g in zip(rule_i, got):
            assert r is None or tuple(r) == g, \
                f"{where}: with input {i} unknown the shape rule gives {rule_i}, forward {got}"
    _, drule = op.infer_dtype(p, [np.dtype(x.dtype) for x in xs])
    gotd = [np.dtype(o.dtype) for o in outs]
    assert [np.dtype(d) for d in drule[:len(outs)]] == gotd, \
        f"{where}: dtype rule gives {drule}, forward gives {gotd}"


def _numeric_grad(f, arrays, i, eps=1e-6):
    x = arrays[i]
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        old = x[k]
        x[k] = old + eps
        fp = f(arrays)
        x[k] = old - eps
        fm = f(arrays)
        x[k] = old
        g[k] = (fp - fm) / (2 * eps)
    return g


def check_op(op, check, rng):
    """Check one operator for one example: values vs numpy, shape/dtype rules vs the
    forward (several shapes, float32 and float64), gradients vs finite differences."""
    name, attrs = op.name, check["attrs"]
    cases = [check["inputs"]] + check["more"]
    base = None
    for ci, case in enumerate(cases):
        arrays = [make(s, rng) for s in case]
        if ci == 0:
            base = arrays
        p = _params(op, attrs, len(arrays))
        for dtype in (np.float32, np.float64):
            where = f"{name}{attrs} inputs {[a.shape for a in arrays]} {np.dtype(dtype).name}"
            outs, xs = _run(op, arrays, attrs, dtype)
            assert len(outs) == op.num_visible(p), f"{where}: {len(outs)} outputs"
            _check_rules(op, p, xs, outs, where, check["guessed"])
            if op.fast.into is not None and not op.stateful and not op.random:
                _check_into(op, p, [x.asnumpy() for x in xs], where)
            if op.fast.ufunc is not None:  # compiled plans call the array function directly
                fname, kwargs = op.fast.ufunc
                xp = xs[0].context.xp  # the one the plans on this context call
                fn = fname(xp) if callable(fname) else getattr(xp, fname)
                if fn is not None:  # None: plans on this context call the kernel
                    buf = nd.zeros_like(outs[0])
                    fn(*[x.handle for x in xs], out=buf.handle, **kwargs)
                    np.testing.assert_array_equal(
                        buf.asnumpy(), outs[0].asnumpy(),
                        err_msg=f"{where}: flagged ufunc {fname!r} but computes something "
                                "else")
            lines = op.fast.inline(p, [x.shape for x in xs], [x.dtype for x in xs]) \
                if op.fast.inline is not None else None
            if lines:  # compiled plans emit these lines instead of calling `into`
                raw = [x.asnumpy() for x in xs]
                buf = np.full_like(outs[0].asnumpy(), np.nan)
                for line in lines:  # a name assigned would be local to the generated code
                    tree = ast.parse(line.format(*[f"a{k}" for k in range(len(raw))], out="out"))
                    assert not any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                  ast.NamedExpr)) for n in ast.walk(tree)), \
                        f"{where}: inline line {line!r} assigns a name"
                    exec(line.format(*[f"raw[{k}]" for k in range(len(raw))], out="buf"),
                         {"xp": np, "raw": raw, "buf": buf})
                np.testing.assert_array_equal(
                    buf, outs[0].asnumpy(),
                    err_msg=f"{where}: its inline lines compute something else: {lines}")
            if op.fast.reshapes:  # compiled plans call reshape instead of the kernel
                assert len(xs) == 1 and len(outs) == 1, f"{where}: a reshape has one in, one out"
                np.testing.assert_array_equal(
                    xs[0].asnumpy().reshape(outs[0].shape), outs[0].asnumpy(),
                    err_msg=f"{where}: flagged `reshapes` but is not its input reshaped")
            if op.fast.views is not None:  # compiled plans index the input instead
                index = op.fast.views(p, xs[0].shape)
                assert len(index) == len(outs), f"{where}: one view per output"
                for k, (ix, o) in enumerate(zip(index, outs)):
                    np.testing.assert_array_equal(
                        xs[0].asnumpy()[ix], o.asnumpy(),
                        err_msg=f"{where}: output {k} is not the flagged view of the input")
            if check["ref"] is not None:
                want = check["ref"](*[a.copy() for a in arrays])
                want = want if isinstance(want, (list, tuple)) else [want]
                tol = 1e-10 if dtype == np.float64 else 1e-5
                for k, (o, w) in enumerate(zip(outs, want)):
                    np.testing.assert_allclose(
                        o.asnumpy().astype(np.float64), np.asarray(w, np.float64),
                        rtol=tol * 100, atol=tol, err_msg=f"{where}: output {k} vs numpy")
    _check_grads(op, check, base, rng)


def _outputs(op, p, rc, raw):
    res = op.kernel(p, rc, *raw)
    return list(res) if isinstance(res, tuple) else [res]


def _check_into(op, p, raw, where):
    """`into` (what static-alloc plans call) writes what the kernel returns."""
    rc = mx.ops.RunCtx(True, np)
    ref = _outputs(op, p, rc, raw)
    bufs = [np.full(r.shape, np.nan, dtype=r.dtype) if r.dtype.kind == "f" else
            np.zeros(r.shape, dtype=r.dtype) for r in ref]
    op.fast.into(p, rc, bufs, *raw)
    for k, (r, got) in enumerate(zip(ref, bufs)):
        np.testing.assert_array_equal(got, r, err_msg=f"{where}: into's output {k} is not "
                                                      "the kernel's")


def _check_vjp_sum(op, p, check, rng, where, n_steps=3):
    """Each `vjp_sum` rule equals the sum over steps of the vjp's gradient of that input,
    the other inputs and the output gradient new at every step (and writes into out=)."""
    names, rc = op.input_names(p), mx.ops.RunCtx(True, np)
    steps = [[make(s, rng) for s in check["inputs"]] for _ in range(n_steps)]
    for name, (reads, fn) in op.fast.vjp_sum.items():
        if name not in names or names.index(name) >= len(steps[0]):
            continue  # an input these params leave out (no bias)
        j = names.index(name)
        for xs in steps[1:]:
            xs[j] = steps[0][j]
        want, heads = 0, []
        for xs in steps:
            ys = _outputs(op, p, rc, xs)
            heads.append(rng.normal(size=ys[0].shape))
            g = op.vjp(p, rc, xs, ys, [heads[-1]] + [None] * (len(ys) - 1),
                       [k == j for k in range(len(xs))])
            want = want + g[j]
        stacked = {r: np.stack([xs[names.index(r)] for xs in steps]) for r in reads}
        got = fn(p, rc, steps[0][j], stacked, np.stack(heads))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{where}: vjp_sum of {name!r} is not the summed vjp")
        out = np.full(steps[0][j].shape, np.nan)
        assert fn(p, rc, steps[0][j], stacked, np.stack(heads), out=out) is out, \
            f"{where}: vjp_sum of {name!r} does not return its out="
        np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{where}: vjp_sum of {name!r} into out=")


def _check_grads(op, check, arrays, rng):
    name, attrs, train = op.name, check["attrs"], check["train"]
    p = _params(op, attrs, len(arrays))
    if not arrays:
        return
    outs, xs = _run(op, arrays, attrs, np.float64, record=True, train=train, grads=True)
    weights = [rng.normal(size=o.shape) for o in outs]
    if op.fast.passes_grad:  # compiled backwards hand the output's gradient on unchanged
        raw = [x.asnumpy() for x in xs]
        gy = weights[0]
        gxs = op.vjp(p, mx.ops.RunCtx(True, np), raw, [o.asnumpy() for o in outs], [gy],
                     [True] * len(raw))
        for j in op.fast.passes_grad:
            np.testing.assert_array_equal(
                np.asarray(gxs[j]), gy,
                err_msg=f"{name}{attrs}: input {j} is flagged passes_grad but its gradient "
                        "is not the output's")
    if op.fast.grads is not None:  # compiled backwards call each input's rule directly
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        y = outs[0].asnumpy()
        plain = op.vjp(p, rc, raw, [y], weights, [True] * len(raw))
        assert len(op.fast.grads) <= len(raw), f"{name}{attrs}: more gradient rules than inputs"
        for j, rule in enumerate(op.fast.grads):
            if rule is None:
                continue
            np.testing.assert_array_equal(
                rule(np, *raw, y, weights[0]), plain[j],
                err_msg=f"{name}{attrs}: input {j}'s flagged gradient rule is not the vjp's")
            if getattr(rule, "writes_out", False):  # a reverse pass gives it the row
                out = np.full(raw[j].shape, np.nan)
                got = rule(np, *raw, y, weights[0], out=out)
                assert got is out, f"{name}{attrs}: input {j}'s rule takes out= but " \
                    "returns another array"
                np.testing.assert_array_equal(
                    out, plain[j], err_msg=f"{name}{attrs}: input {j}'s rule writes "
                                           "another value into out= than it returns")
    if op.fast.reshapes:  # compiled backwards reshape the output's gradient themselves
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        gx, = op.vjp(p, rc, raw, [o.asnumpy() for o in outs], weights, [True])
        np.testing.assert_array_equal(
            gx, weights[0].reshape(raw[0].shape),
            err_msg=f"{name}{attrs}: flagged `reshapes` but its gradient is not the output's "
                    "gradient reshaped")
    if op.fast.saves is not None:  # plans keep only what the vjp reads; it sees the rest as stubs
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys = [o.asnumpy() for o in outs]
        plain = op.vjp(p, rc, raw, ys, weights, [True] * len(raw))
        kept, reads_outputs = op.saved_inputs(p)
        stub = lambda a: np.broadcast_to(np.zeros((), a.dtype), a.shape)  # noqa: E731
        given = op.vjp(p, rc, [a if j in kept else stub(a) for j, a in enumerate(raw)],
                       ys if reads_outputs else [stub(y) for y in ys], weights,
                       [True] * len(raw))
        for j, (a, b) in enumerate(zip(plain, given)):
            if a is not None:
                np.testing.assert_array_equal(
                    b, a, err_msg=f"{name}{attrs}: input {j}'s gradient reads a value "
                                  "that `saves` leaves out")
    if op.fast.vjp_sum:  # a loop sums an invariant input's gradient over its steps in one call
        _check_vjp_sum(op, p, check, rng, f"{name}{attrs}")
    if op.fast.writes_dests:  # autograd hands grad buffers to the vjp (kWriteTo)
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys, need = [o.asnumpy() for o in outs], [True] * len(raw)
        plain = op.vjp(p, rc, raw, ys, weights, need)
        dests = [np.full(a.shape, np.nan) if g is not None else None
                 for a, g in zip(raw, plain)]
        given = op.vjp(p, rc, raw, ys, weights, need, dests=dests)
        for j, (a, b, d) in enumerate(zip(plain, given, dests)):
            if d is not None:
                assert b is d, f"{name}{attrs}: input {j}'s gradient not written to its dest"
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12,
                                           err_msg=f"{name}{attrs}: input {j} via dests")
    autograd.backward(outs, [nd.array(w, dtype=np.float64) for w in weights])
    for i, x in enumerate(xs):
        if op.vjp is None or not op.differentiable(i, p):
            assert not x.grad.asnumpy().any(), \
                f"{name}{attrs}: non-differentiable input {op.input_names(p)[i]} got a gradient"
            continue

        def loss(arrs):
            o, _ = _run(op, arrs, attrs, np.float64, record=True, train=train)
            return sum(float((a.asnumpy() * w).sum()) for a, w in zip(o, weights))

        num = _numeric_grad(loss, [a.copy() for a in arrays], i)
        np.testing.assert_allclose(
            x.grad.asnumpy(), num, rtol=check["rtol"], atol=1e-6,
            err_msg=f"{name}{attrs}: gradient of input {op.input_names(p)[i]} vs finite "
                    "differences")


def _walked():
    return [op for op in all_ops()
            if op.name not in EXTERNAL and not op.name.startswith(EXTERNAL_PREFIXES)]


def test_every_registered_operator_has_an_entry():
    missing = sorted(op.name for op in _walked() if op.name not in SPECS)
    assert not missing, (f"operators without an entry in SPECS (add one, or list them in "
                         f"EXTERNAL if another layer tests them): {missing}")
    stale = sorted(set(SPECS) - {op.name for op in all_ops()})
    assert not stale, f"SPECS entries for operators that are not registered: {stale}"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_operator(name, ctx):
    op = mx.ops.get(name)
    checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    with ctx:  # every array of the check is made on ctx
        for check in checks:
            check_op(op, check, rng)


def test_a_fast_path_given_as_a_keyword_names_the_fast_object():
    with pytest.raises(TypeError, match=r"mine: unknown argument\(s\) \['into', 'saves'\]; "
                                        r"fast paths go in one object: "
                                        r"fast=Fast\(into=\.\.\., saves=\.\.\.\)"):
        mx.ops.registry.Operator("mine", lambda p, rc, x: x, into=lambda *a: None, saves=())


def test_fast_paths_attached_twice_or_to_an_unknown_operator_are_refused():
    fast = mx.ops.registry.Fast(saves=())
    with pytest.raises(ValueError, match=r"operator 'tanh' already has fast paths Fast\("):
        mx.ops.registry.fast_paths(fast, "tanh")
    with pytest.raises(ValueError, match=r"unknown operator 'no_such_op'"):
        mx.ops.registry.fast_paths(fast, "no_such_op")
    assert mx.ops.get("tanh").fast is not fast
