"""Walk entries of the core operator families (elementwise, reduce, matrix, shape, nn, rnn,
random): the operators registered before the walk was split by family."""
import numpy as np

from .common import C, Idx, Pos


def _erf(x):
    from scipy.special import erf
    return erf(x)


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
    from gluonlite.test_utils.rnn_floor import FloorRNN
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
          ref=lambda x, w, b: x @ w.T + b),
        # MXNet takes a (num_hidden, 1) bias too
        C([B23, (4, 3), (4, 1)], {"num_hidden": 4}, ref=lambda x, w, b: x @ w.T + b.ravel(),
          guessed=(2,))],
    "LayerNorm": C([(3, 4), (4,), (4,)], ref=_ln_ref, more=[[(2, 3, 4), (4,), (4,)]]),
    "LeakyReLU": [C([B23], {"slope": 0.1}, ref=lambda x: np.where(x > 0, x, 0.1 * x)),
                  C([B23], {"act_type": "elu", "slope": 1.0},
                    ref=lambda x: np.where(x > 0, x, np.expm1(x))),
                  C([B23, (3,)], {"act_type": "prelu"},
                    ref=lambda x, g: np.where(x > 0, x, x * g)),
                  C([B23], {"act_type": "selu"}, ref=lambda x: 1.0507009873554805 * np.where(
                      x > 0, x, 1.6732632423543772 * np.expm1(x))),
                  C([B23], {"act_type": "gelu"}, ref=lambda x: 0.5 * x * (1 + _erf(
                      x / np.sqrt(2)))),
                  C([B23], {"act_type": "rrelu"}, train=False,
                    ref=lambda x: np.where(x > 0, x, x * (0.125 + 0.334) / 2))],
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
    # MXNet's factors are float32 quotients (180 / float32 pi), in every dtype
    "degrees": _unary(lambda x: x * float(np.float32(180) / np.float32(np.pi))),
    "radians": _unary(lambda x: x * float(np.float32(np.pi) / np.float32(180))),
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
    "_square_sum": [
        # 2-D first (the storage walk takes the first case): MXNet's row_sparse kernel,
        # row_sparse out for axis=1 with keepdims
        C([B23], {"axis": 1, "keepdims": True}, ref=lambda x: np.sum(x * x, 1, keepdims=True)),
        C([B23], {"axis": 0}, ref=lambda x: np.sum(x * x, 0))] + _reduce(
            lambda x, **kw: np.sum(x * x, **kw)),
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
