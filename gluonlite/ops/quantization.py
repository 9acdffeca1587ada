"""MXNet 1.9.1's int8 quantization operators (``nd.contrib.quantize_v2``, ``quantized_conv``,
...), which `gluonlite.contrib.quantization` puts into graphs.

A quantized tensor travels as three arrays: its integers (int8, uint8 or int32) and the float32
minimum and maximum it stands for, each of shape (1,). The scale is symmetric: with
``R = max(|min|, |max|)`` one level of an int8 tensor is ``R / 127.5`` and of a uint8 tensor
``R / 255.5`` (uint8 holds non-negative data, zero at zero). Those are the scales of MXNet 1.9.1's
CPU build, whose oneDNN kernels do every step in float32, round half to even and saturate to
the type's whole range (int8 reaches -128). The numbers here are those kernels' to the bit
(tests/fixtures/quantization_expected.json, made with MXNet 1.9.1), except where MXNet's
kernel is wrong, which is listed here and in docs/guide/quantization.md:

- ``quantized_conv`` takes int8 or uint8 data (MXNet's kernel only uint8), rescales an int8
  bias into the product's int32 scale as ``quantized_fully_connected`` does (MXNet adds the
  raw int8 bias) and gives a uint8 call the range of its true scale (MXNet's is twice it);
- ``quantized_act`` keeps uint8 data as it is (relu changes nothing there; MXNet reads its
  bytes as int8, so 255 becomes -1);
- ``quantized_elemwise_add`` of an int8 and a uint8 tensor without a calibrated range scales
  both into the int32 output (MXNet saturates the uint8 one to int8 first);
- ``quantized_elemwise_mul`` saturates its calibrated int8 output (MXNet's wraps around) and
  runs imperatively too (MXNet's imperative call fails);
- ``quantized_batch_norm`` honours ``fix_gamma``, adds eps once (MXNet's kernel ignores the
  first and adds the second twice) and without a calibrated range takes the range its output
  reaches (MXNet's refuses the call).

Products accumulate exactly: integer convolutions and matrix products run as float32 BLAS
products over chunks of the inputs small enough that no partial sum reaches 2**24 (float32
holds every smaller integer), added in float64, then take MXNet's float32 rounding.
"""
import numpy as np

from . import attrs as A
from . import conv_winograd
from .conv import _CONV_ATTRS, _POOL_ATTRS
from ..base import MXNetTypeError, MXNetValueError
from .registry import Params, ShapeError, ShapeRule, get, register

__all__ = ["LEVELS", "out_dtype", "max_abs", "saturate"]

#: Levels of one unit of range per quantized dtype (oneDNN's scales: R / 127.5 for int8, R /
#: 255.5 for uint8, R / 2**31 for int32).
LEVELS = {np.dtype(np.int8): np.float32(127.5), np.dtype(np.uint8): np.float32(255.5),
          np.dtype(np.int32): np.float32(2.0 ** 31)}
_INT8, _UINT8, _INT32, _F32 = (np.dtype(t) for t in (np.int8, np.uint8, np.int32, np.float32))
_QUANTIZED = (_INT8, _UINT8)
_OUT_TYPE = A.Enum("auto", "int8", "uint8", default="int8")
_CALIB = {"min_calib_range": A.OptionalFloat(), "max_calib_range": A.OptionalFloat()}
_CONV = get("Convolution")
_FC = get("FullyConnected")
_POOL = get("Pooling")
_F32_ONE = np.float32(1)
_NAMES = ["output", "min_output", "max_output"]


def out_dtype(p):
    """The output dtype of quantize_v2/requantize for params `p`: out_type, where 'auto' is
    uint8 when both calibrated bounds are given and the minimum is not negative, else int8.

    Args:
        p: the operator's parsed attributes (``out_type``, ``min_calib_range``,
            ``max_calib_range``).

    Returns:
        numpy.dtype: int8 or uint8.

    Example::

        from gluonlite.ops.quantization import out_dtype
        op = mx.ops.get("_contrib_quantize_v2")
        out_dtype(op.parse({"out_type": "auto", "min_calib_range": 0.0,
                            "max_calib_range": 2.0})[0])          # dtype('uint8')
    """
    if p.out_type == "auto":
        calibrated = p.min_calib_range is not None and p.max_calib_range is not None
        return _UINT8 if calibrated and p.min_calib_range >= 0 else _INT8
    return np.dtype(p.out_type)


def max_abs(lo, hi):
    """``max(|lo|, |hi|)`` as a float32 scalar: the symmetric range of (lo, hi).

    Args:
        lo: the range's minimum (a number).
        hi: the range's maximum (a number).

    Returns:
        numpy.float32: the larger magnitude.

    Example::

        from gluonlite.ops.quantization import max_abs
        max_abs(-3.0, 2.0)      # 3.0 (a numpy float32)
    """
    return max(abs(np.float32(lo)), abs(np.float32(hi)))


def saturate(xp, v, dtype):
    """`v` (float) rounded half to even and saturated to integer `dtype`'s range; NaN gives
    the largest value, as MXNet's kernels give it.

    Args:
        xp: the array module.
        v: float array.
        dtype: the integer dtype.

    Returns:
        array: of `dtype`.

    Example::

        from gluonlite.ops.quantization import saturate
        saturate(np, np.array([2.5, -300.0, np.nan], np.float32), np.int8)
        # array([   2, -128,  127], dtype=int8)
    """
    info = np.iinfo(dtype)
    if np.dtype(dtype).itemsize >= 4 and v.dtype.itemsize < 8:
        v = v.astype(np.float64)   # int32's bounds are not float32 values
    # fmin maps NaN to its other operand, so NaN becomes the largest value; three passes
    w = xp.fmin(v, v.dtype.type(info.max))
    xp.fmax(w, v.dtype.type(info.min), out=w)
    xp.rint(w, out=w)
    return w.astype(dtype)


def _host(xp, v):
    """A device array (or 0-d result) as a numpy one: a range or an extreme is read on the
    host, explicitly."""
    return v if xp is np else xp.asnumpy(v)


def _value(xp, v):
    """The float32 value of a 0-d result (a reduction) of array module `xp`."""
    return np.float32(_host(xp, v))


def _scalar(xp, a):
    """The float32 value of a (1,)-shaped range array."""
    if a.size != 1:
        raise ShapeError(f"a quantization range must hold one value, got shape {tuple(a.shape)}")
    return np.float32(_host(xp, a).reshape(-1)[0])


def _range(xp, v):
    return xp.asarray(np.array([v], np.float32))


def _need(name, what, dtype, allowed):
    if dtype is not None and np.dtype(dtype) not in allowed:
        raise MXNetTypeError(f"{name}: {what} must be "
                        f"{' or '.join(np.dtype(t).name for t in allowed)}, got "
                        f"{np.dtype(dtype).name}")


def _ranges_shape(n_ranges, out_of_data):
    """A shape rule: the data inputs first, then `n_ranges` (1,) range inputs; outputs the
    data output (`out_of_data(p, data shapes)`) and two (1,) ranges."""
    def rule(p, ins):
        ins = list(ins)
        for i in range(len(ins) - n_ranges, len(ins)):
            if ins[i] is not None and tuple(ins[i]) not in ((1,), ()):
                raise ShapeError(f"a quantization range must hold one value: input {i} has "
                                 f"shape {tuple(ins[i])}, expected (1,)")
            ins[i] = (1,)
        data = ins[:len(ins) - n_ranges]
        return ins, [out_of_data(p, data), (1,), (1,)]
    return rule


def _elementwise(rule):
    """`rule` with the data input known to have the data output's shape, so that shape
    inference also runs from the output back to the input (a begin state's zeros)."""
    return ShapeRule(rule, output_shape_inputs=(0,))


def _same_shape(p, data):
    return None if data[0] is None else tuple(data[0])


def _float_ranges(n):
    return [_F32] * n


# ---- quantize, quantize_v2, quantize_asym, dequantize, requantize ------------------------------
def _quantize_dtype(p, ins):
    _need("quantize", "data", ins[0], (_F32,))
    return [_F32, _F32, _F32], [np.dtype(p.out_type), _F32, _F32]


@register("_contrib_quantize", same_dtype=(), inputs=("data", "min_range", "max_range"), outputs=3,
          attrs={"out_type": A.Enum("int8", "uint8", default="uint8")},
          shape=_elementwise(_ranges_shape(2, _same_shape)), dtype=_quantize_dtype)
def _quantize(p, rc, data, min_range, max_range):
    """quantize(data, min_range, max_range, out_type='uint8'): float32 data as out_type
    integers of the symmetric range R = max(|min_range|, |max_range|): ``data * 127 / R``
    (int8) or ``data * 255 / R`` (uint8, negative data giving 0), rounded half to even and
    saturated. Returns (quantized, min, max): (-R, R) for int8, the given range for uint8."""
    _need("quantize", "data", data.dtype, (_F32,))
    xp = rc.xp
    lo, hi = _scalar(xp, min_range), _scalar(xp, max_range)
    r = max_abs(lo, hi)
    dtype = np.dtype(p.out_type)
    levels = np.float32(127) if dtype == _INT8 else np.float32(255)
    with np.errstate(all="ignore"):     # a zero range: MXNet's saturated values
        q = saturate(rc.xp, data * np.float32(levels / r), dtype)
    if dtype == _INT8:
        return q, _range(rc.xp, -r), _range(rc.xp, r)
    return q, _range(rc.xp, lo), _range(rc.xp, hi)


def _quantize_v2_dtype(p, ins):
    _need("quantize_v2", "data", ins[0], (_F32, _INT8, _UINT8))
    return ins, [out_dtype(p), _F32, _F32]


@register("_contrib_quantize_v2", same_dtype=(), outputs=3, attrs={"out_type": _OUT_TYPE, **_CALIB},
          shape=_elementwise(_ranges_shape(0, _same_shape)), dtype=_quantize_v2_dtype)
def _quantize_v2(p, rc, data):
    """quantize_v2(data, out_type='int8', min_calib_range=None, max_calib_range=None): float32
    data as int8 or uint8 ('auto': uint8 when a calibrated minimum >= 0 is given) of the
    calibrated range, or of the data's own minimum and maximum without one: ``data * 127.5 /
    R`` (int8) or ``data * 255.5 / R`` (uint8), R the range's largest magnitude, rounded half
    to even and saturated. Returns (quantized, min, max): (-R, R) for int8, the range itself
    for uint8. Data that is int8 or uint8 already passes through (its bytes as out_type) with
    the calibrated range, or its type's whole range."""
    xp = rc.xp
    dtype = out_dtype(p)
    calibrated = p.min_calib_range is not None and p.max_calib_range is not None
    if data.dtype in _QUANTIZED:
        if calibrated:
            lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
        else:
            hi = LEVELS[data.dtype]
            lo = np.float32(0) if data.dtype == _UINT8 else -hi
        return data.view(dtype), _range(xp, lo), _range(xp, hi)
    if calibrated:
        lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
    else:
        lo, hi = (_value(xp, data.min()), _value(xp, data.max())) if data.size else (0, 0)
    r = max_abs(lo, hi)
    with np.errstate(all="ignore"):     # a zero range: MXNet's saturated values
        q = saturate(xp, data * np.float32(LEVELS[dtype] / r), dtype)
    if dtype == _INT8:
        return q, _range(xp, -r), _range(xp, r)
    return q, _range(xp, lo), _range(xp, hi)


def _quantize_asym_dtype(p, ins):
    _need("quantize_asym", "data", ins[0], (_F32,))
    return ins, [_UINT8, _F32, _F32]


@register("_contrib_quantize_asym", same_dtype=(), outputs=3, attrs=dict(_CALIB),
          shape=_elementwise(_ranges_shape(0, _same_shape)), dtype=_quantize_asym_dtype)
def _quantize_asym(p, rc, data):
    """quantize_asym(data, min_calib_range=None, max_calib_range=None): float32 data as
    uint8 with a shift: ``data * scale + shift`` rounded half to even and saturated, where
    ``scale = 255 / (max - min)`` and ``shift = 255 - max * scale`` of the calibrated range,
    or of the data's own minimum and maximum. Returns (quantized, scale, shift)."""
    if p.min_calib_range is not None and p.max_calib_range is not None:
        lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
    else:
        lo, hi = _value(rc.xp, data.min()), _value(rc.xp, data.max())
    scale = np.float32(255) / np.float32(hi - lo)
    shift = np.float32(255) - np.float32(hi * scale)
    q = saturate(rc.xp, data * scale + shift, _UINT8)
    return q, _range(rc.xp, scale), _range(rc.xp, shift)


def _dequantize_shape(p, ins):
    ins, outs = _ranges_shape(2, _same_shape)(p, ins)
    return ins, outs[:1]


def _dequantize_dtype(p, ins):
    _need("dequantize", "data", ins[0], _QUANTIZED)
    return [ins[0], _F32, _F32], [_F32]


@register("_contrib_dequantize", same_dtype=(), inputs=("data", "min_range", "max_range"),
          attrs={"out_type": A.Enum("float32", default="float32")},
          shape=_elementwise(_dequantize_shape),
          dtype=_dequantize_dtype)
def _dequantize(p, rc, data, min_range, max_range):
    """dequantize(data, min_range, max_range, out_type='float32'): int8 or uint8 data back
    to float32: ``data * R / 127.5`` (int8) or ``data * R / 255.5`` (uint8), R =
    max(|min_range|, |max_range|)."""
    _need("dequantize", "data", data.dtype, _QUANTIZED)
    r = max_abs(_scalar(rc.xp, min_range), _scalar(rc.xp, max_range))
    return data.astype(np.float32) * np.float32(r / LEVELS[data.dtype])


def _requantize_dtype(p, ins):
    _need("requantize", "data", ins[0], (_INT32,))
    return [_INT32, _F32, _F32], [out_dtype(p), _F32, _F32]


@register("_contrib_requantize", same_dtype=(),
          inputs=("data", "min_range", "max_range"), outputs=3,
          attrs={"out_type": _OUT_TYPE, **_CALIB},
          shape=_elementwise(_ranges_shape(2, _same_shape)), dtype=_requantize_dtype)
def _requantize(p, rc, data, min_range, max_range):
    """requantize(data, min_range, max_range, out_type='int8', min_calib_range=None,
    max_calib_range=None): int32 data (of range R_in = max(|min_range|, |max_range|), one
    level R_in / 2**31) as int8 or uint8 ('auto': uint8 when a calibrated minimum >= 0 is
    given) of the calibrated range, or of the range the data actually reaches. Returns
    (quantized, min, max): (-R, R) for int8, (0, R) for uint8."""
    _need("requantize", "data", data.dtype, (_INT32,))
    xp = rc.xp
    dtype = out_dtype(p)
    r_in = max_abs(_scalar(xp, min_range), _scalar(xp, max_range))
    if p.min_calib_range is not None and p.max_calib_range is not None:
        real = max_abs(p.min_calib_range, p.max_calib_range)
    else:
        reached = max(abs(_value(xp, data.min())), abs(_value(xp, data.max()))) \
            if data.size else np.float32(0)
        reached = np.float32(min(int(reached), 2 ** 31 - 1))    # the int32 MXNet holds it in
        real = np.float32(np.float32(reached * r_in) / LEVELS[_INT32])
    levels = np.float32(127) if dtype == _INT8 else np.float32(255)
    with np.errstate(all="ignore"):     # a zero range: MXNet's saturated values
        scale = np.float32(np.float32(r_in / LEVELS[_INT32]) * np.float32(levels / real))
        q = saturate(xp, data.astype(np.float32) * scale, dtype)
    return q, _range(xp, -real if dtype == _INT8 else 0), _range(xp, real)


# ---- matrix products: quantized_fully_connected, quantized_conv ------------------------------
def _product_inputs(p):
    tensors = ["data", "weight"] + ([] if p.no_bias else ["bias"])
    return tensors + [f"{b}_{n}" for n in tensors for b in ("min", "max")]


def _product_range(data_dtype, data_range, weight_range):
    """MXNet's int32 range of a product of `data_dtype` data and int8 weights: one level is
    (R_data / 127) * (R_weight / 127), the weight's levels 255 for uint8 data."""
    w_levels = np.float32(255) if data_dtype == _UINT8 else np.float32(127)
    level = np.float32(np.float32(data_range / np.float32(127)) *
                       np.float32(weight_range / w_levels))
    return np.float32(level * LEVELS[_INT32])


_EXACT = object()
_F32_EXACT = 2 ** 24   # float32 holds every integer of smaller magnitude exactly


def _largest(xp, a):
    return int(max(abs(int(_host(xp, a.max()))), abs(int(_host(xp, a.min()))))) if a.size else 0


def _exact_sum(xp, data, weight, n_units, per_unit, cap, product):
    """An integer product of `data` and `weight` computed exactly with float32 BLAS: summed
    over `n_units` input units (columns, or channels of `per_unit` kernel taps each) in
    chunks small enough that no partial sum reaches 2**24 (from the largest magnitudes the
    two hold; at most `cap` units a chunk), `product(slice)` giving one chunk's float32
    product. One chunk is returned as it is (float32); several are added in float64."""
    bound = _largest(xp, data) * _largest(xp, weight) * per_unit
    size = n_units if bound == 0 else max(1, (_F32_EXACT - 1) // bound)
    size = min(size, cap or n_units, n_units) or 1
    if size >= n_units:
        return product(slice(0, n_units))
    total = None
    for start in range(0, n_units, size):
        part = product(slice(start, min(start + size, n_units))).astype(np.float64)
        total = part if total is None else xp.add(total, part, out=total)
    return total


def _int32_of_product(xp, acc, bias, data, weight, ranges):
    """The int32 output of an exact integer product `acc` (float64) plus `bias` (int8, None,
    or `_EXACT` for none and no float32 rounding), as oneDNN gives it: the bias rescaled into
    the product's scale and truncated, the sum in float32, rounded half to even and
    saturated (oneDNN's convolutions round through float32 with no bias as well; its matrix
    products without one are exact)."""
    if bias is None:
        total = acc.astype(np.float32)
    elif bias is _EXACT:
        return xp.clip(acc, -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int32)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):    # a zero range: scale inf
            d_scale = LEVELS[data.dtype] / max_abs(*ranges[0])
            w_scale = LEVELS[_INT8] / max_abs(*ranges[1])
            rescale = np.float32(np.float32(np.float32(d_scale * w_scale)
                                            * max_abs(*ranges[2])) / LEVELS[_INT8])
        total = acc.astype(np.float32)
        # A zero data or weight range (all-zero weights) gives the output a zero range, in
        # which every int32 value stands for 0: the bias has no scale to enter there (MXNet
        # converts the NaN scale to -2**31)
        if np.isfinite(rescale):
            b = xp.trunc(bias.astype(np.float32) * rescale)
            total = total + xp.clip(b, -2.0 ** 31, 2.0 ** 31 - 128).astype(np.float32)
    return saturate(xp, total, np.int32)


def _product_call(xp, name, p, xs):
    """Split a product's inputs into (data, weight, bias or None, [(lo, hi)] per tensor)."""
    n = 2 if p.no_bias else 3
    tensors, bounds = xs[:n], xs[n:]
    data, weight = tensors[0], tensors[1]
    _need(name, "data", data.dtype, _QUANTIZED)
    _need(name, "weight", weight.dtype, (_INT8,))
    if n == 3:
        _need(name, "bias", tensors[2].dtype, (_INT8,))
    ranges = [(_scalar(xp, bounds[2 * i]), _scalar(xp, bounds[2 * i + 1])) for i in range(n)]
    return data, weight, (tensors[2] if n == 3 else None), ranges


def _product_dtype(name):
    def rule(p, ins):
        n = 2 if p.no_bias else 3
        _need(name, "data", ins[0], _QUANTIZED)
        return [ins[0]] + [_INT8] * (n - 1) + _float_ranges(2 * n), [_INT32, _F32, _F32]
    return rule


def _fc_shape(p, ins):
    n = 2 if p.no_bias else 3
    tensor_ins, tensor_outs = _FC.infer_shape(p, list(ins[:n]))
    return list(tensor_ins) + [(1,)] * (2 * n), [tensor_outs[0], (1,), (1,)]


@register("_contrib_quantized_fully_connected", same_dtype=(),
          inputs=_product_inputs, outputs=3, output_names=_NAMES,
          attrs={"num_hidden": A.Int(), "no_bias": A.Bool(False), "flatten": A.Bool(True)},
          signature=("data", "weight", "bias", "min_data", "max_data", "min_weight",
                     "max_weight", "min_bias", "max_bias"),
          shape=ShapeRule(_fc_shape, back=_FC.shape_back, fills_back=lambda p: p.flatten),
          dtype=_product_dtype("quantized_fully_connected"))
def _quantized_fc(p, rc, *xs):
    """quantized_fully_connected(data, weight, bias, min_data, max_data, min_weight,
    max_weight, min_bias, max_bias, num_hidden, no_bias=False, flatten=True): FullyConnected
    of int8 or uint8 data and int8 weight (and bias), accumulated exactly in int32. Returns
    (out, min, max): one level of out is (R_data / 127) * (R_weight / 127) (R_weight / 255
    for uint8 data), R the inputs' ranges."""
    xp = rc.xp
    data, weight, bias, ranges = _product_call(xp, "quantized_fully_connected", p, xs)
    rows = data.reshape(data.shape[0], -1) if p.flatten else data.reshape(-1, data.shape[-1])
    acc = _exact_sum(xp, rows, weight, rows.shape[1], 1, None,
                     lambda sl: rows[:, sl].astype(np.float32) @ weight[:, sl].astype(
                         np.float32).T)
    out = _int32_of_product(xp, acc, _EXACT if bias is None else bias, data, weight, ranges)
    shape = (data.shape[0], p.num_hidden) if p.flatten else data.shape[:-1] + (p.num_hidden,)
    r = _product_range(data.dtype, max_abs(*ranges[0]), max_abs(*ranges[1]))
    return out.reshape(shape), _range(xp, -r), _range(xp, r)


def _conv_shape(p, ins):
    n = 2 if p.no_bias else 3
    if p.num_group != 1:
        raise ShapeError(f"quantized_conv: num_group must be 1, got {p.num_group}")
    tensor_ins, tensor_outs = _CONV.infer_shape(p, list(ins[:n]))
    return list(tensor_ins) + [(1,)] * (2 * n), [tensor_outs[0], (1,), (1,)]


@register("_contrib_quantized_conv", same_dtype=(),
          inputs=_product_inputs, outputs=3, output_names=_NAMES, attrs=_CONV_ATTRS,
          signature=("data", "weight", "bias", "min_data", "max_data", "min_weight",
                     "max_weight", "min_bias", "max_bias"),
          shape=_conv_shape, dtype=_product_dtype("quantized_conv"))
def _quantized_conv(p, rc, *xs):
    """quantized_conv(data, weight, bias, min_data, max_data, min_weight, max_weight,
    min_bias, max_bias, kernel, num_filter, stride=(), dilate=(), pad=(), no_bias=False,
    layout=None): Convolution (num_group 1) of int8 or uint8 data and int8 weight (and bias),
    accumulated exactly in int32. Returns (out, min, max) with the range rule of
    quantized_fully_connected."""
    xp = rc.xp
    data, weight, bias, ranges = _product_call(xp, "quantized_conv", p, xs)
    conv = Params(p, no_bias=True)
    # Winograd's transforms have fractions, so its float32 sums would round: each chunk of
    # channels stays below the size that sends a layer there
    acc = _exact_sum(xp, data, weight, data.shape[1], int(np.prod(weight.shape[2:])),
                     conv_winograd.RULES["min_channels"] - 1,
                     lambda sl: _CONV.kernel(conv, rc, data[:, sl].astype(np.float32),
                                             weight[:, sl].astype(np.float32)))
    if bias is not None:
        bias = bias.reshape((1, -1) + (1,) * (acc.ndim - 2))
    out = _int32_of_product(xp, acc, bias, data, weight, ranges)
    r = _product_range(data.dtype, max_abs(*ranges[0]), max_abs(*ranges[1]))
    return out, _range(xp, -r), _range(xp, r)


# ---- layers that keep the scale: pooling, flatten, act, embedding ----------------------------
def _passthrough_dtype(name, allowed=_QUANTIZED):
    def rule(p, ins):
        _need(name, "data", ins[0], allowed)
        return [ins[0], _F32, _F32], [ins[0], _F32, _F32]
    return rule


def _pool_shape(p, ins):
    data_ins, data_outs = _POOL.infer_shape(p, [ins[0]])
    return [data_ins[0], (1,), (1,)], [data_outs[0], (1,), (1,)]


_POOL_SUM = {"pool_type": "sum", "count_include_pad": True}


@register("_contrib_quantized_pooling", same_dtype=(),
          inputs=("data", "min_data", "max_data"), outputs=3, output_names=_NAMES,
          attrs=_POOL_ATTRS, shape=_pool_shape,
          dtype=_passthrough_dtype("quantized_pooling"))
def _quantized_pooling(p, rc, data, min_data, max_data):
    """quantized_pooling(data, min_data, max_data, kernel=(), pool_type='max',
    global_pool=False, pooling_convention='valid', stride=(), pad=(),
    count_include_pad=None, layout=None): Pooling of int8 or uint8 data, same dtype and range
    out. 'max' takes the largest value in the window (the type's minimum for a window wholly
    in the padding); 'avg' divides the window's sum by the kernel's size (padding and a 'full'
    window's overhang included) or, with count_include_pad=False, by the entries it covers,
    rounded half to even. 'sum' and 'lp' are refused."""
    xp = rc.xp
    if p.pool_type not in ("max", "avg"):
        raise MXNetValueError(f"quantized_pooling: pool_type must be 'max' or 'avg', got "
                              f"{p.pool_type!r}")
    x = data.astype(np.float64)
    if p.pool_type == "max":
        out = _POOL.kernel(p, rc, x)
    else:
        total = _POOL.kernel(Params(p, **_POOL_SUM), rc, x)
        if p.count_include_pad is False:
            count = _POOL.kernel(Params(p, **_POOL_SUM), rc, xp.ones((1, 1) + x.shape[2:]))
        else:
            count = np.prod(data.shape[2:] if p.global_pool else p.kernel)
        out = total.astype(np.float32) / xp.asarray(count, np.float32)
    return saturate(xp, out, data.dtype), min_data, max_data


@register("_contrib_quantized_flatten", same_dtype=(),
          inputs=("data", "min_data", "max_data"), outputs=3, output_names=_NAMES,
          shape=_ranges_shape(2, lambda p, d: None if d[0] is None else (
              d[0][0], int(np.prod(d[0][1:])))),
          dtype=_passthrough_dtype("quantized_flatten", (_INT8, _UINT8, _INT32)))
def _quantized_flatten(p, rc, data, min_data, max_data):
    """quantized_flatten(data, min_data, max_data): data reshaped to (N, -1); dtype and range
    unchanged."""
    return data.reshape(data.shape[0], -1), min_data, max_data


@register("_contrib_quantized_act", same_dtype=(),
          inputs=("data", "min_data", "max_data"), outputs=3, output_names=_NAMES,
          attrs={"act_type": A.Enum("relu", "sigmoid", "tanh", "softrelu", "softsign",
                                    default="relu")},
          shape=_elementwise(_ranges_shape(2, _same_shape)),
          dtype=_passthrough_dtype("quantized_act"))
def _quantized_act(p, rc, data, min_data, max_data):
    """quantized_act(data, min_data, max_data, act_type='relu'): relu of int8 or uint8 data
    (uint8 data has no negative entries and passes unchanged), dtype and range unchanged.
    Other act_types are refused, as in MXNet."""
    if p.act_type != "relu":
        raise MXNetValueError(f"quantized_act: act_type must be 'relu', got {p.act_type!r}")
    if data.dtype == _UINT8:
        return data.copy(), min_data, max_data
    return rc.xp.maximum(data, 0), min_data, max_data


def _embedding_shape(p, ins):
    ins = list(ins)
    ins[1:] = [(p.input_dim, p.output_dim), (1,), (1,)]
    return ins, [None if ins[0] is None else tuple(ins[0]) + (p.output_dim,), (1,), (1,)]


def _embedding_dtype(p, ins):
    _need("quantized_embedding", "weight", ins[1], (_INT8,))
    return [ins[0] or _F32, _INT8, _F32, _F32], [_INT8, _F32, _F32]


@register("_contrib_quantized_embedding", same_dtype=(), inputs=("data", "weight", "min_weight",
                                                   "max_weight"), outputs=3, output_names=_NAMES,
          attrs={"input_dim": A.Int(), "output_dim": A.Int(), "dtype": A.Dtype("float32"),
                 "sparse_grad": A.Bool(False)},
          shape=_embedding_shape, dtype=_embedding_dtype)
def _quantized_embedding(p, rc, data, weight, min_weight, max_weight):
    """quantized_embedding(data, weight, min_weight, max_weight, input_dim, output_dim):
    rows of the int8 weight picked by data (indices truncated toward zero and clipped to
    [0, input_dim - 1]); the range is the weight's."""
    _need("quantized_embedding", "weight", weight.dtype, (_INT8,))
    idx = rc.xp.clip(data.astype(np.float64), 0, p.input_dim - 1).astype(np.int64)
    return weight[idx], min_weight, max_weight


# ---- layers that change the scale: concat, elemwise add and mul, batch norm ------------------
def _concat_names(count):
    return [f"arg{i}" for i in range(count)] + \
        [f"arg{i}_{end}" for i in range(count) for end in ("min", "max")]


def _concat_dtype(p, ins):
    data = ins[:p.num_args]
    for d in data:
        _need("quantized_concat", "every input", d, _QUANTIZED)
    known = [np.dtype(d) for d in data if d is not None]
    out = None if len(known) < len(data) else (_INT8 if _INT8 in known else _UINT8)
    return list(data) + _float_ranges(2 * p.num_args), [out, _F32, _F32]


def _concat_shape(p, ins):
    data = ins[:p.num_args]
    out = None
    if all(d is not None for d in data):
        rank = len(data[0])
        if not -rank <= p.dim < rank:
            raise ShapeError(f"quantized_concat: dim must be in [{-rank}, {rank - 1}], got "
                             f"{p.dim}")
        dim = p.dim % rank
        for d in data:
            if len(d) != rank or any(a != b for k, (a, b) in enumerate(zip(d, data[0]))
                                     if k != dim):
                raise ShapeError(f"quantized_concat: the inputs must agree outside dim "
                                 f"{p.dim}, got {[tuple(x) for x in data]}")
        out = tuple(data[0][:dim]) + (sum(d[dim] for d in data),) + tuple(data[0][dim + 1:])
    return list(data) + [(1,)] * (2 * p.num_args), [out, (1,), (1,)]


@register("_contrib_quantized_concat", same_dtype=(),
          variadic=("num_args", _concat_names, ()), outputs=3, output_names=_NAMES,
          attrs={"num_args": A.Int(), "dim": A.Int(1)}, shape=_concat_shape,
          dtype=_concat_dtype)
def _quantized_concat(p, rc, *xs):
    """quantized_concat(*data, *ranges, num_args, dim=1): the num_args int8/uint8 arrays
    (then each one's min and max, in that order) concatenated along dim into the range
    that holds them all (min(0, mins), max(0, maxs)): int8 when any input is int8, else
    uint8; an input of another scale is rescaled, rounded half to even and saturated."""
    xp = rc.xp
    data = xs[:p.num_args]
    bounds = [(_scalar(xp, xs[p.num_args + 2 * i]), _scalar(xp, xs[p.num_args + 2 * i + 1]))
              for i in range(p.num_args)]
    dtype = _INT8 if any(d.dtype == _INT8 for d in data) else _UINT8
    lo = min([np.float32(0)] + [b[0] for b in bounds])
    hi = max([np.float32(0)] + [b[1] for b in bounds])
    out_scale = LEVELS[dtype] / max_abs(lo, hi)
    parts = []
    for d, (d_lo, d_hi) in zip(data, bounds):
        in_scale = LEVELS[d.dtype] / max_abs(d_lo, d_hi)
        parts.append(d.astype(dtype) if in_scale == out_scale else saturate(
            xp, d.astype(np.float32) * np.float32(out_scale / in_scale), dtype))
    return xp.concatenate(parts, axis=p.dim), _range(xp, lo), _range(xp, hi)


_BINARY_INPUTS = ("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max")


def _binary_shape(p, ins):
    a, b = ins[0], ins[1]
    if a is not None and b is not None and tuple(a) != tuple(b):
        raise ShapeError(f"quantized elementwise operators need equal shapes, got {tuple(a)} "
                         f"and {tuple(b)}")
    shape = a if a is not None else b
    outs = [None if shape is None else tuple(shape), (1,), (1,)]
    return [shape, shape, (1,), (1,), (1,), (1,)], outs


def _calibrated(p):
    return p.min_calib_range is not None and p.max_calib_range is not None


def _add_dtype(p, ins):
    for d in ins[:2]:
        _need("quantized_elemwise_add", "lhs and rhs", d, _QUANTIZED)
    out = _INT32
    if _calibrated(p):
        out = None if None in ins[:2] else (np.dtype(ins[0]) if ins[0] == ins[1] else _INT8)
    return list(ins[:2]) + _float_ranges(4), [out, _F32, _F32]


@register("_contrib_quantized_elemwise_add", same_dtype=(),
          inputs=_BINARY_INPUTS, outputs=3, output_names=_NAMES,
          attrs=dict(_CALIB), shape=_binary_shape, dtype=_add_dtype)
def _quantized_elemwise_add(p, rc, lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max):
    """quantized_elemwise_add(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max,
    min_calib_range=None, max_calib_range=None): the sum of two int8/uint8 tensors, as int32
    of range +-(R_lhs + R_rhs), or with a calibrated range as int8/uint8 of it (the inputs'
    dtype when they share one, else int8)."""
    xp = rc.xp
    r_l = max_abs(_scalar(xp, lhs_min), _scalar(xp, lhs_max))
    r_r = max_abs(_scalar(xp, rhs_min), _scalar(xp, rhs_max))
    if _calibrated(p):
        dtype = lhs.dtype if lhs.dtype == rhs.dtype else _INT8
        lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
        out_scale = LEVELS[dtype] / max_abs(lo, hi)
        s_l, s_r = out_scale / (LEVELS[lhs.dtype] / r_l), out_scale / (LEVELS[rhs.dtype] / r_r)
    else:
        dtype = _INT32
        hi = np.float32(r_l + r_r)
        lo = -hi
        # MXNet scales both inputs by the lhs's levels; they agree unless the dtypes differ
        levels = LEVELS[lhs.dtype] if lhs.dtype == rhs.dtype else None
        s_l = np.float32(r_l * LEVELS[_INT32]) / np.float32(hi * (levels or LEVELS[lhs.dtype]))
        s_r = np.float32(r_r * LEVELS[_INT32]) / np.float32(hi * (levels or LEVELS[rhs.dtype]))
    a, b = lhs.astype(np.float32), rhs.astype(np.float32)
    if lhs.dtype != rhs.dtype and _calibrated(p):
        # the uint8 operand is first brought to the output's int8 scale
        if lhs.dtype == _UINT8:
            a, s_l = saturate(xp, a * np.float32(s_l), _INT8).astype(np.float32), _F32_ONE
        else:
            b, s_r = saturate(xp, b * np.float32(s_r), _INT8).astype(np.float32), _F32_ONE
    total = a * np.float32(s_l) + b * np.float32(s_r)
    return saturate(xp, total, dtype), _range(xp, lo), _range(xp, hi)


def _mul_dtype(p, ins):
    for d in ins[:2]:
        _need("quantized_elemwise_mul", "lhs and rhs", d, _QUANTIZED)
    if p.enable_float_output:
        return list(ins[:2]) + _float_ranges(4), [_F32]
    return list(ins[:2]) + _float_ranges(4), [_INT8 if _calibrated(p) else _INT32, _F32, _F32]


def _mul_shape(p, ins):
    ins, outs = _binary_shape(p, ins)
    return ins, outs[:1] if p.enable_float_output else outs


@register("_contrib_quantized_elemwise_mul", same_dtype=(), inputs=_BINARY_INPUTS,
          outputs=lambda p: 1 if p.enable_float_output else 3,
          output_names=lambda p: ["output"] if p.enable_float_output else _NAMES,
          attrs={**_CALIB, "enable_float_output": A.Bool(False)},
          shape=_mul_shape, dtype=_mul_dtype)
def _quantized_elemwise_mul(p, rc, lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max):
    """quantized_elemwise_mul(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max,
    min_calib_range=None, max_calib_range=None, enable_float_output=False): the product of
    two int8/uint8 tensors: exact int32 with one level (R_lhs / 127) * (R_rhs / 127); with a
    calibrated range int8 of it (truncated toward zero and saturated); with
    enable_float_output the float32 product alone."""
    xp = rc.xp
    s_l = LEVELS[lhs.dtype] / max_abs(_scalar(xp, lhs_min), _scalar(xp, lhs_max))
    s_r = LEVELS[rhs.dtype] / max_abs(_scalar(xp, rhs_min), _scalar(xp, rhs_max))
    prod = lhs.astype(np.int32) * rhs.astype(np.int32)
    if p.enable_float_output:
        return prod.astype(np.float32) * np.float32(1.0 / float(s_l) / float(s_r))
    if _calibrated(p):
        lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
        scale = np.float32(np.float32(LEVELS[_INT8] / max_abs(lo, hi)) / s_l / s_r)
        out = xp.trunc(prod.astype(np.float32) * scale)
        return saturate(xp, out, _INT8), _range(xp, lo), _range(xp, hi)
    r_l = max_abs(_scalar(xp, lhs_min), _scalar(xp, lhs_max))
    r_r = max_abs(_scalar(xp, rhs_min), _scalar(xp, rhs_max))
    r = np.float32(np.float32(r_l / np.float32(127)) * np.float32(r_r / np.float32(127)))
    r = np.float32(r * LEVELS[_INT32])
    return prod, _range(xp, -r), _range(xp, r)


_BN_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data")


def _bn_shape(p, ins):
    d = ins[0]
    c = None if d is None else (d[p.axis % len(d)],)
    ins = [d] + [c if s is None else s for s in ins[1:5]] + [(1,), (1,)]
    return ins, [None if d is None else tuple(d), (1,), (1,)]


def _bn_dtype(p, ins):
    _need("quantized_batch_norm", "data", ins[0], _QUANTIZED)
    return [ins[0]] + _float_ranges(6), [_INT8, _F32, _F32]


@register("_contrib_quantized_batch_norm", same_dtype=(),
          inputs=_BN_INPUTS, outputs=3, output_names=_NAMES,
          aux=("moving_mean", "moving_var"),
          attrs={"eps": A.Float(1e-3), "momentum": A.Float(0.9), "fix_gamma": A.Bool(True),
                 "use_global_stats": A.Bool(False), "output_mean_var": A.Bool(False),
                 "axis": A.Int(1), "cudnn_off": A.Bool(False), **_CALIB},
          shape=_bn_shape, dtype=_bn_dtype)
def _quantized_batch_norm(p, rc, data, gamma, beta, moving_mean, moving_var, min_data,
                          max_data):
    """quantized_batch_norm(data, gamma, beta, moving_mean, moving_var, min_data, max_data,
    eps=1e-3, fix_gamma=True, axis=1, min_calib_range=None, max_calib_range=None):
    inference BatchNorm (the moving statistics) of int8/uint8 data into int8 of the
    calibrated range, or without one (MXNet requires one) of the range the output reaches;
    gamma counts as 1 under fix_gamma."""
    xp = rc.xp
    x = data.astype(np.float32)
    if data.dtype == _UINT8:
        # uint8 data is brought to int8's scale first, as MXNet's kernel does
        x = saturate(xp, x * np.float32(LEVELS[_INT8] / LEVELS[_UINT8]), _INT8).astype(
            np.float32)
    r_in = max_abs(_scalar(xp, min_data), _scalar(xp, max_data))
    g = xp.ones_like(gamma) if p.fix_gamma else gamma
    inv_std = (1.0 / xp.sqrt(moving_var.astype(np.float64) + p.eps)).astype(np.float32)
    shape = [1] * data.ndim
    shape[p.axis % data.ndim] = -1
    if _calibrated(p):
        lo, hi = np.float32(p.min_calib_range), np.float32(p.max_calib_range)
    else:
        # the output in real units, for the range it reaches
        real = (g * inv_std * (r_in / LEVELS[_INT8])).astype(np.float32).reshape(shape) * x + \
            (beta - moving_mean * g * inv_std).astype(np.float32).reshape(shape)
        hi = _value(xp, xp.abs(real).max()) if real.size else np.float32(0)
        lo = -hi
        if hi == 0:
            return xp.zeros(data.shape, np.int8), _range(xp, lo), _range(xp, hi)
    r_out = max_abs(lo, hi)
    weight = (g * inv_std * r_in / r_out).astype(np.float32)
    shift = ((beta - moving_mean * g * inv_std) * LEVELS[_INT8] / r_out).astype(np.float32)
    out = weight.reshape(shape) * x + shift.reshape(shape)
    return saturate(xp, out, _INT8), _range(xp, lo), _range(xp, hi)


# ---- calibrate_entropy -------------------------------------------------------------------------
def _smooth(p, eps=np.float32(1e-4)):
    """p with eps moved onto its zero entries from the others (float32), or None where that
    is impossible (no non-zero entry, or more than the non-zero entries can give)."""
    zeros = p == 0
    n_zero = int(zeros.sum())
    n_nonzero = p.size - n_zero
    if n_nonzero == 0:
        return None
    eps1 = np.float32(eps * np.float32(n_zero) / np.float32(n_nonzero))
    if eps1 >= 1:
        return None
    return np.where(zeros, eps, p - eps1).astype(np.float32)


def _float32_sum(v):
    """A sum accumulated left to right in float32 (as MXNet's loop adds)."""
    return np.cumsum(v, dtype=np.float32)[-1] if v.size else np.float32(0)


def _divergence(hist, start, stop, n_bins):
    """KL(p || q) of the window [start, stop) of `hist`: p the window with the outside mass
    folded onto its ends, q its merge into n_bins quantized bins spread back over the
    non-empty entries."""
    sliced = hist[start:stop].astype(np.int64)
    sliced[0] = 0
    p = hist[start:stop].astype(np.float32)
    p[0] = _float32_sum(hist[:start + 1])
    p[-1] = np.float32(p[-1] + _float32_sum(hist[stop:]))
    width = sliced.size // n_bins
    merged = sliced[:width * n_bins].reshape(n_bins, width).sum(axis=1)
    merged[-1] += sliced[width * n_bins:].sum()
    owner = np.minimum(np.arange(sliced.size) // width, n_bins - 1)
    nonzero = np.bincount(owner, weights=sliced != 0, minlength=n_bins)
    q = np.where((p != 0) & (nonzero[owner] > 0),
                 merged[owner].astype(np.float32) / np.maximum(nonzero[owner], 1).astype(
                     np.float32), np.float32(0)).astype(np.float32)
    p, q = _smooth(p), _smooth(q)
    if p is None or q is None:
        return np.float32(np.inf)
    p = p / _float32_sum(p)
    q = q / _float32_sum(q)
    # the ratio rounded to float32, its log correctly rounded (as C's logf), then float32
    ratio = (p / q).astype(np.float32)
    return _float32_sum((p * np.log(ratio.astype(np.float64)).astype(np.float32)).astype(
        np.float32))


def _calibrate_shape(p, ins):
    h, e = ins
    if h is not None and e is not None and e[0] != h[0] + 1:
        raise ShapeError(f"calibrate_entropy: hist_edges must hold one more entry than hist "
                         f"({h[0] + 1}), got {e[0]}")
    return ins, [(1,), (1,)]


@register("_contrib_calibrate_entropy", same_dtype=(), inputs=("hist", "hist_edges"), outputs=2,
          attrs={"num_quantized_bins": A.Int(255)}, shape=_calibrate_shape,
          dtype=lambda p, ins: ([_F32, _F32], [_F32, _F32]))
def _calibrate_entropy(p, rc, hist, hist_edges):
    """calibrate_entropy(hist, hist_edges, num_quantized_bins=255): the threshold that
    keeps the most information when a histogram (of an odd number of bins, symmetric about
    zero) is quantized into num_quantized_bins levels: for each window of the central bins,
    the KL divergence between the histogram clipped to the window and its quantization;
    returns (threshold, divergence) of the first smallest, each of shape (1,)."""
    xp = rc.xp
    h = np.asarray(hist if xp is np else xp.asnumpy(hist), np.float32).ravel()
    edges = np.asarray(hist_edges if xp is np else xp.asnumpy(hist_edges), np.float32).ravel()
    if edges.size != h.size + 1:
        raise ShapeError(f"calibrate_entropy: hist_edges must hold {h.size + 1} entries, got "
                         f"{edges.size}")
    zero, half = h.size // 2, p.num_quantized_bins // 2
    best, best_at = np.float32(np.finfo(np.float32).max), zero + 1
    best_div = best
    for i in range(half, zero + 1):
        div = _divergence(h, zero - i, zero + i + 1, p.num_quantized_bins)
        if div < best:
            best, best_at, best_div = div, zero + i + 1, div
    return _range(xp, edges[best_at]), _range(xp, best_div)

