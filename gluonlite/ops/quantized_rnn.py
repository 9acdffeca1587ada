"""MXNet 1.9.1's int8 LSTM, ``nd.contrib.quantized_rnn``: the fused `RNN` operator in mode
'lstm' on uint8 data, which `gluonlite.contrib.quantization` puts in place of an LSTM.

The numbers are those of MXNet's CPU kernel (oneDNN's int8 LSTM) to the bit for the output
and the final hidden state (tests/fixtures/quantized_rnn_mxnet.npz, made with MXNet 1.9.1);
the final cell state is float32 throughout and agrees to float32 rounding of the gates'
sigmoid and tanh. What that kernel computes:

- **Data** is uint8 with a scale and a shift, ``u = x * scale + shift`` (`quantize_asym`
  makes such data). Every hidden state is kept in that same uint8 form: the initial state is
  quantized on the way in, each step's ``h`` is quantized as it is made (rounded half to
  even, saturated to 0..255), and the outputs and final states are ``(u - shift) / scale``.
  The cell state stays float32.
- **Weights** are int8, one scale per gate row: ``127 / max |w|`` over that row's input and
  recurrent weights (`weight_scales`), shared by every layer and direction. MXNet takes the
  maximum over the first layer, and over the second only along a pointer walk that reads
  the wrong spans when the layer sizes differ; the scales here follow that walk, so the
  numbers match, and a deeper layer's weights larger than those maxima saturate at +-127
  as MXNet's do. (Where the walk runs past the parameter vector, a unidirectional network
  of two layers whose input is wider than its state, MXNet reads memory outside it; here
  only the part inside counts.)
- **Gates** are exact integer sums of the uint8 states times the int8 weights, in float32
  ``sum * (1 / (w_scale * scale)) + bias``, where the bias (i2h plus h2h) absorbs the shift:
  ``bias - (sum of the row's int8 weights) * shift / (w_scale * scale)``.

MXNet's kernel on CPUs without VNNI instructions adds the products in pairs saturated to 16
bits; data using more than half of uint8's range (as `quantize_asym`'s 0..255 does) then
gets wrong gates there. The sums here are exact, as on CPUs with VNNI.

Only what MXNet's int8 LSTM takes is taken: mode 'lstm' without projection, cell clipping
or sequence lengths, inference only (no gradient).

Example::

    import numpy as np
    from gluonlite import nd
    steps, batch, width, H = 3, 2, 4, 5
    params = nd.random.uniform(-1, 1, shape=(4 * H * (width + H) + 8 * H,))
    data = nd.array(np.random.randint(0, 129, (steps, batch, width)), dtype='uint8')
    zeros = nd.zeros((1, batch, H))
    out = nd.contrib.quantized_rnn(data, params, zeros, zeros, nd.array([64.0]),
                                   nd.array([64.0]), state_size=H, num_layers=1, mode='lstm')
    out.shape        # (3, 2, 5), float32 on the grid (k - 64) / 64
"""
import numpy as np

from ..base import MXNetTypeError, MXNetValueError
from . import attrs as A
from .quantization import _scalar, saturate
from .registry import ShapeError, register
from .rnn import _sigmoid
from .rnn_layout import ATTRS, layout, n_visible, rnn_shape

__all__ = ["weight_scales", "INPUTS"]

#: The operator's inputs: the RNN's four, then the data's scale and shift (named as MXNet
#: names them).
INPUTS = ("data", "parameters", "state", "state_cell", "min_data", "max_data")
# MXNet spells the third output this way
_OUTPUTS = ("output", "state_output", "statecell_ouput")
_F32, _U8 = np.dtype(np.float32), np.dtype(np.uint8)


def _check(p):
    """Raise for the attributes MXNet's int8 LSTM does not take."""
    if p.mode != "lstm":
        raise MXNetValueError(f"quantized_rnn: mode must be 'lstm' (MXNet's int8 RNN is an "
                              f"LSTM only), got mode={p.mode!r}")
    for name, off in (("projection_size", None), ("lstm_state_clip_min", None),
                      ("lstm_state_clip_max", None), ("use_sequence_length", False)):
        if p[name] != off:
            raise MXNetValueError(f"quantized_rnn: {name}={p[name]!r} is not supported by "
                                  f"MXNet's int8 LSTM (it takes {off!r})")


def _inputs(p):
    _check(p)
    return list(INPUTS)


def _shape(p, ins):
    ins = list(ins) + [None] * (len(INPUTS) - len(ins))
    filled, outs = rnn_shape(p, ins[:4], op="quantized_rnn")
    for name, shape in zip(INPUTS[4:], ins[4:]):
        if shape is not None and tuple(shape) not in ((1,), ()):
            raise ShapeError(f"quantized_rnn: input {name!r} (the data's "
                             f"{'scale' if name == 'min_data' else 'shift'}) must hold one "
                             f"value, got shape {tuple(shape)}")
    return filled + [(1,), (1,)], outs


def _dtype(p, ins):
    ins = list(ins) + [None] * (len(INPUTS) - len(ins))
    if ins[0] is not None and np.dtype(ins[0]) != _U8:
        raise MXNetTypeError(f"quantized_rnn: input 'data' must be uint8 (quantize_asym's "
                             f"output), got {np.dtype(ins[0]).name}")
    for name, t in zip(INPUTS[1:], ins[1:]):
        if t is not None and np.dtype(t) != _F32:
            raise MXNetTypeError(f"quantized_rnn: input {name!r} must be float32, got "
                                 f"{np.dtype(t).name}")
    return [_U8] + [_F32] * 5, [_F32] * n_visible(p)


def weight_scales(xp, params, p, input_size):
    """The int8 scale of each gate row, float32 (4 * state_size,): ``127 / m``, m the largest
    |weight| MXNet's kernel reads for that row (see the module docstring).

    Args:
        xp: the array module of `params`.
        params: the packed float32 parameter vector of the LSTM.
        p: the operator's parsed attributes.
        input_size: the data's feature size.

    Returns:
        array: float32 of shape (4 * state_size,); inf for a row whose weights are all 0.

    Example::

        import numpy as np
        from gluonlite.ops import registry
        from gluonlite.ops.quantized_rnn import weight_scales
        p = registry.get('_contrib_quantized_rnn').parse(
            {'state_size': 1, 'num_layers': 1, 'mode': 'lstm'})[0]
        w = np.array([0.5, -1, 2, 0.25,  1, 1, -4, 0.5] + [0] * 8, np.float32)
        weight_scales(np, w, p, 1)      # array([127. , 127. ,  31.75, 254. ], dtype=float32)
    """
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    G, flat = 4 * H, xp.abs(params.reshape(-1))

    def rows(start, width):
        """|flat[start:start + G width]| as (G, width), zeros past the vector's end."""
        part = flat[start:start + G * width]
        if part.size < G * width:
            part = xp.concatenate([part, xp.zeros(G * width - part.size, flat.dtype)])
        return part.reshape(G, width)

    single0 = (input_size + H) * G
    wx, wh = 0, G * input_size
    m = xp.maximum(rows(wx, input_size).max(axis=1), rows(wh, H).max(axis=1))
    if D == 2:
        m = xp.maximum(m, xp.maximum(rows(wx + single0, input_size).max(axis=1),
                                     rows(wh + single0, H).max(axis=1)))
    # MXNet's oneDNN layers: each layer on its own when bidirectional; else all fused when
    # the input is as wide as the state, else the first alone and the rest fused. Past the
    # first, each reads the first G*H entries at its start and G*H entries at ``wh``, which
    # for the first such layer is still the first layer's offset of Wh carried along.
    later = L - 1 if D == 2 else (0 if input_size == H or L == 1 else 1)
    wx, wh = wx + single0 * D, wh + single0 * D
    for _ in range(later):
        goi = xp.maximum(rows(wx, H), rows(wh, H))
        m = xp.maximum(m, goi.max(axis=1))
        wx += (H * D + H) * G * D
        wh = wx + G * H
    with np.errstate(divide="ignore"):
        return (np.float32(127) / m.astype(np.float32)).astype(np.float32)


def _int8_rows(xp, w, scales):
    """w (G, n) as int8 values (float64) at one scale per row; a row of zeros (scale inf)
    stays zero."""
    with np.errstate(invalid="ignore"):
        q = saturate(xp, (w * scales[:, None]).astype(np.float32), np.int8)
    q = xp.where(xp.isfinite(scales)[:, None], q, 0)
    return q.astype(np.float64)


def _direction(xp, p, w, scales, x_u8, h0, c0, scale, shift, reverse):
    """One layer direction over uint8 states x_u8 (T, N, I) as float64: (its uint8 outputs
    (T, N, H) as float64, final uint8 state, final cell)."""
    H = p.state_size
    qx, qh = _int8_rows(xp, w["wx"], scales), _int8_rows(xp, w["wh"], scales)
    with np.errstate(divide="ignore", invalid="ignore"):
        unit = (np.float32(1) / (scales * scale)).astype(np.float32)
        comp = qh.sum(axis=1).astype(np.float32) + qx.sum(axis=1).astype(np.float32)
        bias = (w["bx"] + w["bh"]).astype(np.float32) - \
            ((comp * shift).astype(np.float32) / (scales * scale)).astype(np.float32)
    unit = xp.where(xp.isfinite(scales), unit, 0).astype(np.float32)
    bias = xp.where(xp.isfinite(scales), bias, w["bx"] + w["bh"]).astype(np.float32)
    T, N = x_u8.shape[:2]
    # the input's products for every step at once; each step adds the recurrent ones (all
    # integers below 2**53: exact in float64)
    x_part = (x_u8.reshape(T * N, -1) @ qx.T).reshape(T, N, -1)
    h = saturate(xp, (h0 * scale + shift).astype(np.float32), np.uint8).astype(np.float64)
    c = c0.astype(np.float32)
    ys = xp.empty((T, N, H), np.float64)
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        a = ((x_part[t] + h @ qh.T).astype(np.float32) * unit + bias).astype(np.float32)
        i, f = _sigmoid(xp, a[:, :H]), _sigmoid(xp, a[:, H:2 * H])
        g, o = xp.tanh(a[:, 2 * H:3 * H]), _sigmoid(xp, a[:, 3 * H:])
        c = (f * c + i * g).astype(np.float32)
        h_new = (o * xp.tanh(c)).astype(np.float32)
        h = saturate(xp, (h_new * scale + shift).astype(np.float32), np.uint8).astype(
            np.float64)
        ys[t] = h
    return ys, h, c


def _dequantize(u, scale, shift):
    return ((u.astype(np.float32) - shift) / scale).astype(np.float32)


@register("_contrib_quantized_rnn", same_dtype=(), inputs=_inputs, outputs=n_visible,
          output_names=lambda p: list(_OUTPUTS[:n_visible(p)]),
          attrs={**ATTRS, "quantized": A.Bool(False)}, shape=_shape, dtype=_dtype,
          signature=INPUTS)
def _quantized_rnn(p, rc, data, params, state, state_cell, min_data, max_data):
    """quantized_rnn(data, parameters, state, state_cell, min_data, max_data, state_size,
    num_layers, mode='lstm', bidirectional=False, state_outputs=False): the int8 LSTM of
    uint8 data (T, N, I) with its scale (`min_data`) and shift (`max_data`), the packed
    float32 parameters of `RNN`, and float32 initial states; returns float32 (output, and
    with state_outputs the final hidden and cell states), as MXNet's CPU kernel computes
    them (see `gluonlite.ops.quantized_rnn`)."""
    xp = rc.xp
    # the dtype rule runs in graphs; an imperative call is checked here
    _dtype(p, [a.dtype for a in (data, params, state, state_cell, min_data, max_data)])
    scale, shift = _scalar(xp, min_data), _scalar(xp, max_data)
    n_in = data.shape[2]
    L, D = p.num_layers, 2 if p.bidirectional else 1
    views = layout(p, n_in).views(params)
    scales = weight_scales(xp, params, p, n_in)
    x = data.astype(np.float64)
    hy, cy = [], []
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            y, h, c = _direction(xp, p, views[k], scales, x, state[k], state_cell[k], scale,
                                 shift, d == 1)
            outs.append(y)
            hy.append(_dequantize(h, scale, shift))
            cy.append(c)
        x = outs[0] if D == 1 else xp.concatenate(outs, axis=2)
    return (_dequantize(x, scale, shift), xp.stack(hy), xp.stack(cy))[:n_visible(p)]
