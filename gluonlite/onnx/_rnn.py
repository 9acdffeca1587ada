"""The fused `RNN` operator -> ONNX ``LSTM``/``GRU``/``RNN``, one node per layer.

MXNet packs every weight, then every bias, in one vector (`gluonlite.ops.rnn.ParamLayout`);
ONNX wants per layer ``W`` (D, G*H, I), ``R`` (D, G*H, H), ``B`` (D, 2*G*H) with its own gate
order. The converter slices the packed vector inside the ONNX graph (a Slice per gate block,
which ONNX Runtime folds once), so it works whether the vector is an initializer or computed
(``_rnn_param_concat`` of the layer's parameters). MXNet's GRU applies the reset gate after the
recurrent product, which is ONNX's ``linear_before_reset=1``.
"""
import numpy as np

from ..ops.rnn import ParamLayout
from ._converters import _reg
from ._graph import ExportError, onnx_dtype

# ONNX gate k comes from MXNet gate ORDER[mode][k]
_ORDER = {"lstm": [0, 3, 1, 2],   # MXNet i f g o -> ONNX i o f c
          "gru": [1, 0, 2],       # MXNet r z n -> ONNX z r h
          "rnn_tanh": [0], "rnn_relu": [0]}
_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def _block(g, flat, off, shape, H, order):
    """The entry at `off` of the packed vector with `shape` (G*H, ...), gates reordered."""
    per = int(np.prod(shape[1:], dtype=np.int64)) * H
    parts = []
    for k in order:
        start = off + k * per
        s = g.node("Slice", [flat, g.ints([start]), g.ints([start + per]), g.ints([0])])
        parts.append(g.node("Reshape", [s, g.ints((H,) + tuple(shape[1:]))]))
    return parts[0] if len(parts) == 1 else g.node("Concat", parts, axis=0)


@_reg("RNN")
def _rnn(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    T, N, I0 = shape
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    mode = p.mode
    lay = ParamLayout(p, I0)
    if mode == "lstm" and (p.projection_size or p.lstm_state_clip_min is not None
                           or p.lstm_state_clip_max is not None):
        if p.use_sequence_length:
            raise ExportError("use_sequence_length with projection or clipping is not "
                              "exported (the Scan form runs every step)")
        return _lstm_scan(g, n, ins, lay)
    order = _ORDER[mode]
    flat, h0 = ins[1], ins[2]
    c0 = ins[3] if mode == "lstm" else None
    # ONNX's sequence_lens: each sequence runs its first steps, outputs past them are zero
    # and the final states are its last valid step's, as gluonlite's use_sequence_length
    lens = ""
    if p.use_sequence_length:
        lens = g.node("Cast", [ins[4 if mode == "lstm" else 3]], to=onnx_dtype(np.int32))
    x = ins[0]
    hs, cs = [], []
    for layer in range(L):
        Ws, Rs, Bs = [], [], []
        for d in range(D):
            ent = lay.entries[layer * D + d]
            (ox, sx), (oh, sh) = ent["wx"], ent["wh"]
            Ws.append(_block(g, flat, ox, sx, H, order))
            Rs.append(_block(g, flat, oh, sh, H, order))
            bx = _block(g, flat, ent["bx"][0], ent["bx"][1], H, order)
            bh = _block(g, flat, ent["bh"][0], ent["bh"][1], H, order)
            Bs.append(g.node("Concat", [bx, bh], axis=0))

        def stack(parts):
            parts = [g.unsqueeze(t, [0]) for t in parts]
            return parts[0] if D == 1 else g.node("Concat", parts, axis=0)

        sl = [g.ints([layer * D]), g.ints([(layer + 1) * D]), g.ints([0])]
        inputs = [x, stack(Ws), stack(Rs), stack(Bs), lens, g.node("Slice", [h0] + sl)]
        attrs = dict(hidden_size=H, direction="bidirectional" if D == 2 else "forward")
        if mode == "lstm":
            inputs.append(g.node("Slice", [c0] + sl))
        if mode == "gru":
            attrs["linear_before_reset"] = 1
        if mode in ("rnn_tanh", "rnn_relu"):
            attrs["activations"] = ["Relu" if mode == "rnn_relu" else "Tanh"] * D
        outs = g.node(_OP[mode], inputs, n_out=3 if mode == "lstm" else 2,
                      hint=f"{n.name}_l{layer}", **attrs)
        y = g.node("Transpose", [outs[0]], perm=[0, 2, 1, 3])  # (T, N, D, H)
        x = g.node("Reshape", [y, g.ints([T, N, D * H])])
        hs.append(outs[1])
        if mode == "lstm":
            cs.append(outs[2])
    result = [x]
    if p.state_outputs:
        result.append(hs[0] if L == 1 else g.node("Concat", hs, axis=0))
        if mode == "lstm":
            result.append(cs[0] if L == 1 else g.node("Concat", cs, axis=0))
    return result


@_reg("_rnn_unpacked")
def _rnn_unpacked(g, n, ins, e, w):
    raise ExportError("_rnn_unpacked is a compiled-plan form; export the graph before "
                      "hybridize's rewrites (RNN of _rnn_param_concat)")


def _entry(g, flat, off, shape):
    size = int(np.prod(shape))
    s = g.node("Slice", [flat, g.ints([off]), g.ints([off + size]), g.ints([0])])
    return g.node("Reshape", [s, g.ints(shape)])


def _lstm_scan(g, n, ins, lay):
    """An LSTM the ONNX op cannot express (projection, clipped cell states): per layer and
    direction one `Scan` whose body is the step (MXNet's gate order i f g o)."""
    p = n.params
    T, N, _ = g.need_shape(n, 0)
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    P = p.projection_size or 0
    R = P or H
    dt = g.in_dtype(n, 0)
    flat, h0, c0, x = ins[1], ins[2], ins[3], ins[0]
    hs, cs = [], []
    for layer in range(L):
        ys = []
        for d in range(D):
            k = layer * D + d
            ent = lay.entries[k]
            wx = g.node("Transpose", [_entry(g, flat, *ent["wx"])], perm=[1, 0])
            wh = g.node("Transpose", [_entry(g, flat, *ent["wh"])], perm=[1, 0])
            b = g.node("Add", [_entry(g, flat, *ent["bx"]), _entry(g, flat, *ent["bh"])])
            wr = g.node("Transpose", [_entry(g, flat, *ent["wr"])], perm=[1, 0]) if P else None
            sub = g.sub()
            hp, cp, xt = (g.names.fresh(f"{n.name}_{nm}") for nm in ("h", "c", "x"))
            ni = ent["wx"][1][1]
            sub.inputs += [sub.value_info(hp, [N, R], dt), sub.value_info(cp, [N, H], dt),
                           sub.value_info(xt, [N, ni], dt)]
            gates = sub.node("Add", [sub.node("Add", [sub.node("MatMul", [xt, wx]),
                                                      sub.node("MatMul", [hp, wh])]), b])
            i, f, gg, o = sub.split(gates, 1, [H] * 4)
            c = sub.node("Add", [sub.node("Mul", [sub.node("Sigmoid", [f]), cp]),
                                 sub.node("Mul", [sub.node("Sigmoid", [i]),
                                                  sub.node("Tanh", [gg])])])
            if p.lstm_state_clip_min is not None or p.lstm_state_clip_max is not None:
                lo = -np.inf if p.lstm_state_clip_min is None else p.lstm_state_clip_min
                hi = np.inf if p.lstm_state_clip_max is None else p.lstm_state_clip_max
                c = sub.node("Clip", [c, sub.scalar(lo, dt), sub.scalar(hi, dt)])
            h = sub.node("Mul", [sub.node("Sigmoid", [o]), sub.node("Tanh", [c])])
            r = sub.node("MatMul", [h, wr]) if P else h
            for y, shp in ((r, [N, R]), (c, [N, H]), (r, [N, R])):
                out = sub.node("Identity", [y], hint="step_out")
                sub.outputs.append(sub.value_info(out, shp, dt))
            sl = [g.ints([k]), g.ints([k + 1]), g.ints([0])]
            h_init = g.squeeze(g.node("Slice", [h0] + sl), [0])
            c_init = g.squeeze(g.node("Slice", [c0] + sl), [0])
            attrs = {"num_scan_inputs": 1, "body": sub.make_graph(f"{n.name}_l{layer}d{d}")}
            if d == 1:
                attrs.update(scan_input_directions=[1], scan_output_directions=[1])
            h_n, c_n, y = g.node("Scan", [h_init, c_init, x], n_out=3,
                                 hint=f"{n.name}_l{layer}d{d}", **attrs)
            ys.append(y)
            hs.append(g.unsqueeze(h_n, [0]))
            cs.append(g.unsqueeze(c_n, [0]))
        x = ys[0] if D == 1 else g.node("Concat", ys, axis=2)
    result = [x]
    if p.state_outputs:
        result.append(hs[0] if len(hs) == 1 else g.node("Concat", hs, axis=0))
        result.append(cs[0] if len(cs) == 1 else g.node("Concat", cs, axis=0))
    return result
