"""One ONNX converter per registry operator, in one table (`CONVERTERS`).

A converter is ``conv(g, node, ins, errors, where) -> output name(s)``: `g` the
`GraphBuilder`, `node` the gluonlite node (``node.params`` its parsed attributes), `ins` the
ONNX names of its inputs. Families that differ only by the ONNX op type are table rows
(`_UNARY`, `_BINARY`, `_SCALAR`, ...). `UNSUPPORTED_ATTRS` lists attribute values that have no
ONNX form; they are reported before anything is converted.
"""
import numpy as np

from ..ops import amp
from ._graph import ExportError, onnx_dtype
from ..ndarray.register import make_function
from ..ops.conv import _im2col_geom
from ..ops.image import _EIG, _axis_weights, _resize_size, _linear_u8_taps
from ..ops.registry import RunCtx
from ..ops.tensor import _crop_box
from ..ops.vision_ops import _base_grid, _corr_windows

__all__ = ["CONVERTERS", "UNSUPPORTED_ATTRS", "check_attrs"]

CONVERTERS = {}


def _reg(*names):
    def deco(fn):
        for n in names:
            CONVERTERS[n] = fn
        return fn
    return deco


# (op name, attribute, predicate on its value: True when the value cannot export, why)
UNSUPPORTED_ATTRS = [
    ("RNN", "lstm_state_clip_nan", bool, "NaN cell states set to a bound have no ONNX form"),
    ("softmax", "use_length", bool, "masked softmax is not exported"),
    ("log_softmax", "use_length", bool, "masked softmax is not exported"),
    ("Reshape", "reverse", bool, "reverse=True reshape is not exported"),
    ("Deconvolution", "target_shape", bool, "target_shape is not exported; give adj"),
    ("Embedding", "sparse_grad", bool, "sparse gradients have no ONNX form"),
]


def check_attrs(node):
    """[(attribute, why)] of `node`'s attribute values that cannot export."""
    bad = []
    for op, attr, pred, why in UNSUPPORTED_ATTRS:
        if node.op.name == op and pred(node.params.get(attr)):
            bad.append((f"{attr}={node.params.get(attr)!r}", why))
    v = node.params.get("layout")
    if v is not None and v not in ("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"):
        bad.append((f"layout={v!r}", "not a layout ONNX convolutions can be given"))
    if node.op.name == "Deconvolution" and v is not None and not v.startswith("NC"):
        bad.append((f"layout={v!r}", "channels-last deconvolution is not exported"))
    return bad


def _np_dtype(g, node, j=0):
    return np.dtype(g.in_dtype(node, j))


# ---- elementwise ---------------------------------------------------------------------------
_UNARY = {
    "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log",
    "sqrt": "Sqrt", "abs": "Abs", "negative": "Neg", "floor": "Floor", "ceil": "Ceil",
    "sin": "Sin", "cos": "Cos", "tan": "Tan", "arcsin": "Asin", "arccos": "Acos",
    "arctan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "arcsinh": "Asinh", "arccosh": "Acosh",
    "arctanh": "Atanh", "erf": "Erf", "reciprocal": "Reciprocal", "sign": "Sign",
    "softsign": "Softsign", "softrelu": "Softplus",
    "_copy": "Identity", "BlockGrad": "Identity", "make_loss": "Identity",
    "MakeLoss": "Identity", "identity": "Identity", "stop_gradient": "Identity",
    "Dropout": "Identity", "logical_not": None,
}
for _name, _op in _UNARY.items():
    if _op is not None:
        CONVERTERS[_name] = (lambda op: lambda g, n, ins, e, w: g.node(op, ins[:1]))(_op)


@_reg("logical_not")
def _logical_not(g, n, ins, e, w):
    z = g.node("Equal", [ins[0], g.scalar(0, _np_dtype(g, n))])
    return g.node("Cast", [z], to=onnx_dtype(_np_dtype(g, n)))


@_reg("round")
def _round(g, n, ins, e, w):
    # MXNet rounds halves away from zero (ONNX Round: to even)
    dt = _np_dtype(g, n)
    mag = g.node("Floor", [g.node("Add", [g.node("Abs", ins[:1]), g.scalar(0.5, dt)])])
    return g.node("Mul", [g.node("Sign", ins[:1]), mag])


@_reg("rint")
def _rint(g, n, ins, e, w):
    # MXNet's rint takes halves down (1.5 -> 1, -1.5 -> -2)
    return g.node("Ceil", [g.node("Sub", [ins[0], g.scalar(0.5, _np_dtype(g, n))])])


@_reg("square")
def _square(g, n, ins, e, w):
    return g.node("Mul", [ins[0], ins[0]])


@_reg("rsqrt")
def _rsqrt(g, n, ins, e, w):
    return g.node("Reciprocal", [g.node("Sqrt", ins[:1])])


@_reg("log1p")
def _log1p(g, n, ins, e, w):
    return g.node("Log", [g.node("Add", [ins[0], g.scalar(1, _np_dtype(g, n))])])


@_reg("expm1")
def _expm1(g, n, ins, e, w):
    return g.node("Sub", [g.node("Exp", ins[:1]), g.scalar(1, _np_dtype(g, n))])


@_reg("log2", "log10")
def _log_base(g, n, ins, e, w):
    base = 2.0 if n.op.name == "log2" else 10.0
    return g.node("Div", [g.node("Log", ins[:1]), g.scalar(np.log(base), _np_dtype(g, n))])


_BINARY = {
    "elemwise_add": "Add", "elemwise_sub": "Sub", "elemwise_mul": "Mul", "elemwise_div": "Div",
    "broadcast_add": "Add", "broadcast_sub": "Sub", "broadcast_mul": "Mul",
    "broadcast_div": "Div", "broadcast_maximum": "Max", "broadcast_minimum": "Min",
    "broadcast_power": "Pow", "_maximum": "Max", "_minimum": "Min", "_power": "Pow",
    "broadcast_plus": "Add", "broadcast_minus": "Sub",
    # on the dense tensors ONNX has, a scatter operator is its plain operation
    "_scatter_elemwise_div": "Div",
}
for _name, _op in _BINARY.items():
    CONVERTERS[_name] = (lambda op: lambda g, n, ins, e, w: g.node(op, ins[:2]))(_op)

# Comparisons give 0/1 in the inputs' dtype, as MXNet does.
_COMPARE = {
    "broadcast_equal": ("Equal", False), "broadcast_not_equal": ("Equal", True),
    "broadcast_greater": ("Greater", False), "broadcast_greater_equal": ("GreaterOrEqual", False),
    "broadcast_lesser": ("Less", False), "broadcast_lesser_equal": ("LessOrEqual", False),
    "_equal": ("Equal", False), "_not_equal": ("Equal", True), "_greater": ("Greater", False),
    "_greater_equal": ("GreaterOrEqual", False), "_lesser": ("Less", False),
    "_lesser_equal": ("LessOrEqual", False),
}


def _compare(g, n, a, b, op, negate):
    r = g.node(op, [a, b])
    if negate:
        r = g.node("Not", [r])
    return g.node("Cast", [r], to=onnx_dtype(_np_dtype(g, n)))


for _name, (_op, _neg) in _COMPARE.items():
    CONVERTERS[_name] = (lambda op, neg: lambda g, n, ins, e, w:
                         _compare(g, n, ins[0], ins[1], op, neg))(_op, _neg)
    _sname = (_name if _name.startswith("_") else "_" + _name[len("broadcast_"):]) + "_scalar"
    if not _name.startswith("broadcast"):
        CONVERTERS[_sname] = (lambda op, neg: lambda g, n, ins, e, w: _compare(
            g, n, ins[0], g.scalar(n.params.scalar, _np_dtype(g, n)), op, neg))(_op, _neg)

# name: (ONNX op, scalar on the left)
_SCALAR = {
    "_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
    "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
    "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
    "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
    "_maximum_scalar": ("Max", False), "_minimum_scalar": ("Min", False),
    "_scatter_plus_scalar": ("Add", False), "_scatter_minus_scalar": ("Sub", False),
}


def _scalar_op(g, n, ins, op, left):
    c = g.scalar(n.params.scalar, _np_dtype(g, n))
    return g.node(op, [c, ins[0]] if left else [ins[0], c])


for _name, (_op, _left) in _SCALAR.items():
    CONVERTERS[_name] = (lambda op, left: lambda g, n, ins, e, w:
                         _scalar_op(g, n, ins, op, left))(_op, _left)


@_reg("add_n", "ElementWiseSum")
def _add_n(g, n, ins, e, w):
    return g.node("Sum", ins)


@_reg("clip")
def _clip(g, n, ins, e, w):
    dt = _np_dtype(g, n)
    return g.node("Clip", [ins[0], g.scalar(n.params.a_min, dt), g.scalar(n.params.a_max, dt)])


@_reg("where")
def _where(g, n, ins, e, w):
    c = g.node("Cast", [ins[0]], to=onnx_dtype(np.bool_))
    sc, sx = g.in_shape(n, 0), g.need_shape(n, 1)
    if sc is not None and len(sc) == 1 and len(sx) > 1:  # a 1-D condition picks rows
        c = g.node("Reshape", [c, g.ints([sc[0]] + [1] * (len(sx) - 1))])
    return g.node("Where", [c, ins[1], ins[2]])


@_reg("Cast", "cast")
def _cast(g, n, ins, e, w):
    return g.node("Cast", ins[:1], to=onnx_dtype(n.params.dtype))


@_reg("amp_cast")
def _amp_cast(g, n, ins, e, w):
    return g.node("Cast", ins[:1], to=onnx_dtype(amp.cast_type(_np_dtype(g, n), n.params.dtype)))


@_reg("amp_multicast")
def _amp_multicast(g, n, ins, e, w):
    _, out = amp.multicast_dtypes(n.params, [_np_dtype(g, n, j) for j in range(len(ins))])
    return [g.node("Cast", [x], to=onnx_dtype(d)) for x, d in zip(ins, out)]


def _filled_like(g, x, value, dtype):
    """A tensor of `x`'s shape filled with `value` (not x * 0 + value: NaN * 0 is NaN)."""
    from onnx import numpy_helper
    fill = numpy_helper.from_array(np.array([value], dtype=dtype))
    return g.node("ConstantOfShape", [g.node("Shape", [x])], value=fill)


@_reg("zeros_like", "ones_like")
def _fill_like(g, n, ins, e, w):
    v = 0 if n.op.name == "zeros_like" else 1
    return _filled_like(g, ins[0], v, _np_dtype(g, n))


# ---- activations -----------------------------------------------------------------------------
_ACT = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
        "softsign": "Softsign"}


@_reg("Activation")
def _activation(g, n, ins, e, w):
    op = _ACT.get(n.params.act_type)
    if op is None:
        raise ExportError(f"act_type={n.params.act_type!r} has no ONNX form")
    return g.node(op, ins[:1])


@_reg("LeakyReLU")
def _leaky(g, n, ins, e, w):
    p, t = n.params, n.params.act_type
    if t == "leaky":
        return g.node("LeakyRelu", ins[:1], alpha=float(p.slope))
    if t == "elu":
        return g.node("Elu", ins[:1], alpha=float(p.slope))
    if t == "selu":
        return g.node("Selu", ins[:1])
    if t == "prelu":
        shape = g.need_shape(n, 0)
        slope = ins[1]
        if len(shape) > 2:  # gamma is per channel (axis 1): broadcast over the spatial axes
            slope = g.unsqueeze(slope, list(range(1, len(shape) - 1)))
        return g.node("PRelu", [ins[0], slope])
    if t == "gelu":
        dt = _np_dtype(g, n)
        x = ins[0]
        inner = g.node("Erf", [g.node("Div", [x, g.scalar(np.sqrt(2.0), dt)])])
        half = g.node("Mul", [x, g.scalar(0.5, dt)])
        return g.node("Mul", [half, g.node("Add", [inner, g.scalar(1.0, dt)])])
    if t == "rrelu":  # inference uses the middle of the random slope's range
        return g.node("LeakyRelu", ins[:1], alpha=float(p.lower_bound + p.upper_bound) / 2)
    raise ExportError(f"act_type={t!r} has no ONNX form")


@_reg("hard_sigmoid")
def _hard_sigmoid(g, n, ins, e, w):
    return g.node("HardSigmoid", ins[:1], alpha=float(n.params.alpha), beta=float(n.params.beta))


@_reg("softmax", "log_softmax", "SoftmaxActivation", "softmin")
def _softmax(g, n, ins, e, w):
    p = n.params
    x = ins[0]
    dt = _np_dtype(g, n)
    if n.op.name == "SoftmaxActivation":
        axis = 1 if p.get("mode") == "channel" else -1
        if p.get("mode") != "channel":
            shape = g.need_shape(n, 0)
            x = g.node("Flatten", [x], axis=1)
            return g.node("Reshape", [g.node("Softmax", [x], axis=-1), g.ints(shape)])
    else:
        axis = p.axis
    if p.get("temperature") not in (None, 1.0):
        x = g.node("Div", [x, g.scalar(p.temperature, dt)])
    if n.op.name == "softmin":
        x = g.node("Neg", [x])
    op = "LogSoftmax" if n.op.name == "log_softmax" else "Softmax"
    y = g.node(op, [x], axis=int(axis))
    if p.get("dtype") is not None:
        y = g.node("Cast", [y], to=onnx_dtype(p.dtype))
    return y


@_reg("SoftmaxOutput")
def _softmax_output(g, n, ins, e, w):
    p = n.params
    if p.multi_output:
        return g.node("Softmax", ins[:1], axis=1)
    if p.preserve_shape:
        return g.node("Softmax", ins[:1], axis=-1)
    shape = g.need_shape(n, 0)
    y = g.node("Softmax", [g.node("Flatten", ins[:1], axis=1)], axis=-1)
    return g.node("Reshape", [y, g.ints(shape)])


@_reg("LinearRegressionOutput", "MAERegressionOutput")
def _regression(g, n, ins, e, w):
    return g.node("Identity", ins[:1])


@_reg("LogisticRegressionOutput")
def _logistic(g, n, ins, e, w):
    return g.node("Sigmoid", ins[:1])


# ---- dense and convolution -------------------------------------------------------------------
@_reg("FullyConnected")
def _fully_connected(g, n, ins, e, w):
    p = n.params
    x, wt = ins[0], ins[1]
    bias = None
    if not p.no_bias:
        bias = ins[2]
        bshape = g.in_shape(n, 2)
        if bshape is None or len(bshape) != 1:  # MXNet also takes a (num_hidden, 1) bias
            bias = g.node("Reshape", [bias, g.ints([-1])])
    if p.flatten:
        shape = g.in_shape(n, 0)
        if shape is None or len(shape) != 2:
            x = g.node("Flatten", [x], axis=1)
        return g.node("Gemm", [x, wt] + ([] if bias is None else [bias]), transB=1)
    y = g.node("MatMul", [x, g.node("Transpose", [wt], perm=[1, 0])])
    return y if bias is None else g.node("Add", [y, bias])


def _spatial(n, key, nd, default):
    v = tuple(n.params.get(key) or ())
    return list(v) if v else [default] * nd


def _channels_last(n):
    layout = n.params.get("layout")
    return layout is not None and not layout.startswith("NC")


def _to_first(g, x, nd):
    return g.node("Transpose", [x], perm=[0, nd + 1] + list(range(1, nd + 1)))


def _to_last(g, x, nd):
    return g.node("Transpose", [x], perm=[0] + list(range(2, nd + 2)) + [1])


@_reg("Convolution")
def _convolution(g, n, ins, e, w):
    p = n.params
    k = list(p.kernel)
    nd = len(k)
    pad = _spatial(n, "pad", nd, 0)
    attrs = dict(kernel_shape=k, strides=_spatial(n, "stride", nd, 1),
                 dilations=_spatial(n, "dilate", nd, 1), pads=pad + pad, group=int(p.num_group))
    x, wt = ins[:2]
    last = _channels_last(n)
    if last:  # data and weight are channels-last (weight: O, spatial..., I)
        x, wt = _to_first(g, x, nd), _to_first(g, wt, nd)
    y = g.node("Conv", [x, wt] + ([] if p.no_bias else [ins[2]]), **attrs)
    return _to_last(g, y, nd) if last else y


@_reg("Deconvolution")
def _deconvolution(g, n, ins, e, w):
    p = n.params
    k = list(p.kernel)
    nd = len(k)
    pad = _spatial(n, "pad", nd, 0)
    attrs = dict(kernel_shape=k, strides=_spatial(n, "stride", nd, 1),
                 dilations=_spatial(n, "dilate", nd, 1), pads=pad + pad, group=int(p.num_group),
                 output_padding=_spatial(n, "adj", nd, 0))
    return g.node("ConvTranspose", ins[:2] + ([] if p.no_bias else [ins[2]]), **attrs)


@_reg("Pooling")
def _pooling(g, n, ins, e, w):
    p = n.params
    x = ins[0]
    if p.global_pool:
        return _global_pool(g, n, x, p)
    k = list(p.kernel)
    nd = len(k)
    pad = _spatial(n, "pad", nd, 0)
    stride = _spatial(n, "stride", nd, 1)
    ceil = int(p.pooling_convention == "full")
    if p.pooling_convention == "same":
        raise ExportError("pooling_convention='same' is not exported")
    if _channels_last(n):
        y = _pool(g, n, _to_first(g, x, nd), p, k, pad, stride, ceil)
        return _to_last(g, y, nd)
    return _pool(g, n, x, p, k, pad, stride, ceil)


def _global_pool(g, n, x, p):
    shape = g.need_shape(n, 0)
    nd = len(shape) - 2
    first = _to_first(g, x, nd) if _channels_last(n) else x
    if p.pool_type == "sum":  # the mean over the whole window times its size
        spatial = shape[1:-1] if _channels_last(n) else shape[2:]
        mean = g.node("GlobalAveragePool", [first])
        y = g.node("Mul", [mean, g.scalar(float(np.prod(spatial)), _np_dtype(g, n))])
    else:
        op = {"max": "GlobalMaxPool", "avg": "GlobalAveragePool", "lp": "GlobalLpPool"}
        attrs = {"p": int(p.p_value or 2)} if p.pool_type == "lp" else {}
        y = g.node(op[p.pool_type], [first], **attrs)
    return _to_last(g, y, nd) if _channels_last(n) else y


def _pool(g, n, x, p, k, pad, stride, ceil):
    if p.pool_type == "max":
        return g.node("MaxPool", [x], kernel_shape=k, strides=stride, pads=pad + pad,
                      ceil_mode=ceil)
    if p.pool_type == "avg":
        cip = 1 if p.count_include_pad is None else int(p.count_include_pad)
        return g.node("AveragePool", [x], kernel_shape=k, strides=stride, pads=pad + pad,
                      ceil_mode=ceil, count_include_pad=cip)
    if p.pool_type == "sum":  # an average over whole windows (padding counted) times their size
        y = g.node("AveragePool", [x], kernel_shape=k, strides=stride, pads=pad + pad,
                   ceil_mode=ceil, count_include_pad=1)
        return g.node("Mul", [y, g.scalar(float(np.prod(k)), _np_dtype(g, n))])
    if p.pool_type == "lp":
        if ceil:
            raise ExportError("lp pooling with pooling_convention='full' is not exported")
        return g.node("LpPool", [x], kernel_shape=k, strides=stride, pads=pad + pad,
                      p=int(p.p_value or 2))
    raise ExportError(f"pool_type={p.pool_type!r} has no ONNX form")


# ---- normalization ---------------------------------------------------------------------------
@_reg("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm")
def _batch_norm(g, n, ins, e, w):
    p = n.params
    x, gamma, beta, mean, var = ins[:5]
    axis = p.get("axis", 1)
    shape = g.in_shape(n, 0)
    nd = len(shape) if shape is not None else None
    if p.fix_gamma:  # MXNet reads gamma as ones
        gamma = _filled_like(g, gamma, 1, _np_dtype(g, n))
    if axis in (1, -nd if nd else 1):
        y = g.node("BatchNormalization", [x, gamma, beta, mean, var], epsilon=float(p.eps))
    else:
        if nd is None:
            raise ExportError("BatchNorm over an axis other than 1 needs the input's shape")
        a = axis % nd
        perm = [0, a] + [i for i in range(1, nd) if i != a]
        inv = list(np.argsort(perm))
        y = g.node("BatchNormalization", [g.node("Transpose", [x], perm=perm), gamma, beta, mean,
                                          var], epsilon=float(p.eps))
        y = g.node("Transpose", [y], perm=[int(i) for i in inv])
    act = p.get("act_type")
    if act not in (None, "None"):
        y = g.node(_ACT[act], [y])
    return y


@_reg("_contrib_BatchNormWithReLU")
def _batch_norm_relu(g, n, ins, e, w):
    return g.node("Relu", [_batch_norm(g, n, ins, e, w)])


@_reg("_bn_add_relu")  # a training plan's residual node: its three operators
def _batch_norm_add_relu(g, n, ins, e, w):
    return g.node("Relu", [g.node("Add", [_batch_norm(g, n, ins, e, w), ins[5]])])


@_reg("_bn_clip")  # a training plan's BatchNorm -> clip node: its two operators
def _batch_norm_clip(g, n, ins, e, w):
    dt = _np_dtype(g, n)
    return g.node("Clip", [_batch_norm(g, n, ins, e, w), g.scalar(n.params.a_min, dt),
                           g.scalar(n.params.a_max, dt)])


@_reg("InstanceNorm")
def _instance_norm(g, n, ins, e, w):
    return g.node("InstanceNormalization", ins[:3], epsilon=float(n.params.eps))


@_reg("LayerNorm")
def _layer_norm(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis % len(shape)
    dt = _np_dtype(g, n)
    x, gamma, beta = ins[:3]
    mean = g.reduce("ReduceMean", x, [axis], True)
    d = g.node("Sub", [x, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), [axis], True)
    y = g.node("Div", [d, g.node("Sqrt", [g.node("Add", [var, g.scalar(p.eps, dt)])])])
    if axis != len(shape) - 1:
        bshape = [1] * len(shape)
        bshape[axis] = shape[axis]
        gamma = g.node("Reshape", [gamma, g.ints(bshape)])
        beta = g.node("Reshape", [beta, g.ints(bshape)])
    return g.node("Add", [g.node("Mul", [y, gamma]), beta])


@_reg("GroupNorm")
def _group_norm(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    dt = _np_dtype(g, n)
    ng = int(p.num_groups)
    x = g.node("Reshape", [ins[0], g.ints([shape[0], ng, -1])])
    mean = g.reduce("ReduceMean", x, [2], True)
    d = g.node("Sub", [x, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), [2], True)
    y = g.node("Div", [d, g.node("Sqrt", [g.node("Add", [var, g.scalar(p.eps, dt)])])])
    # MXNet 1.x's gamma and beta have one entry per group
    gamma = g.node("Reshape", [ins[1], g.ints([1, ng, 1])])
    beta = g.node("Reshape", [ins[2], g.ints([1, ng, 1])])
    y = g.node("Add", [g.node("Mul", [y, gamma]), beta])
    return g.node("Reshape", [y, g.ints(shape)])


@_reg("L2Normalization")
def _l2norm(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    dt = _np_dtype(g, n)
    mode = p.get("mode", "instance")
    axes = {"instance": list(range(1, len(shape))), "channel": [1],
            "spatial": list(range(2, len(shape)))}[mode]
    ss = g.reduce("ReduceSum", g.node("Mul", [ins[0], ins[0]]), axes, True)
    return g.node("Div", [ins[0], g.node("Sqrt", [g.node("Add", [ss, g.scalar(p.eps, dt)])])])


# ---- shape -----------------------------------------------------------------------------------
@_reg("Flatten", "flatten")
def _flatten(g, n, ins, e, w):
    return g.node("Flatten", ins[:1], axis=1)


@_reg("Reshape", "reshape")
def _reshape(g, n, ins, e, w):
    out = g.shape_of(n)
    p = n.params
    target = tuple(p.shape or p.target_shape)
    if out is not None:
        return g.node("Reshape", [ins[0], g.ints(out)])
    if all(t >= -1 for t in target):
        return g.node("Reshape", [ins[0], g.ints(target)])
    raise ExportError(f"shape={target} uses MXNet's special codes and the input shape is unknown")


@_reg("reshape_like")
def _reshape_like(g, n, ins, e, w):
    out = g.shape_of(n)
    if out is not None:
        return g.node("Reshape", [ins[0], g.ints(out)])
    return g.node("Reshape", [ins[0], g.node("Shape", [ins[1]])])


@_reg("shape_array")
def _shape_array(g, n, ins, e, w):
    return g.node("Shape", ins[:1])


@_reg("Concat", "concat", "_rnn_param_concat")
def _concat(g, n, ins, e, w):
    return g.node("Concat", ins, axis=int(n.params.dim))


@_reg("stack")
def _stack(g, n, ins, e, w):
    axis = int(n.params.axis)
    if axis < 0:
        axis += len(g.need_shape(n, 0)) + 1
    return g.node("Concat", [g.unsqueeze(x, [axis]) for x in ins], axis=axis)


@_reg("SliceChannel", "split")
def _slice_channel(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis % len(shape)
    k = int(p.num_outputs)
    parts = g.split(ins[0], axis, [shape[axis] // k] * k)
    if p.squeeze_axis:
        parts = [g.squeeze(x, [axis]) for x in parts]
    return parts


@_reg("_split_v2")
def _split_v2(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis % len(shape)
    sections = int(p.get("sections") or 0)
    if sections:
        sizes = [shape[axis] // sections] * sections
    else:
        idx = [0] + [int(i) for i in p.indices if i != 0] + [shape[axis]]
        sizes = [b - a for a, b in zip(idx[:-1], idx[1:])]
    parts = g.split(ins[0], axis, sizes)
    if p.squeeze_axis:
        parts = [g.squeeze(x, [axis]) for x in parts]
    return parts


@_reg("transpose")
def _transpose(g, n, ins, e, w):
    axes = tuple(n.params.axes or ())
    if not axes:
        return g.node("Transpose", ins[:1])
    return g.node("Transpose", ins[:1], perm=[int(a) for a in axes])


@_reg("SwapAxis", "swapaxes")
def _swapaxis(g, n, ins, e, w):
    nd = len(g.need_shape(n, 0))
    perm = list(range(nd))
    a, b = n.params.dim1 % nd, n.params.dim2 % nd
    perm[a], perm[b] = perm[b], perm[a]
    return g.node("Transpose", ins[:1], perm=perm)


@_reg("expand_dims")
def _expand_dims(g, n, ins, e, w):
    axis = int(n.params.axis)
    if axis < 0:
        axis += len(g.need_shape(n, 0)) + 1
    return g.unsqueeze(ins[0], [axis])


@_reg("squeeze")
def _squeeze(g, n, ins, e, w):
    axis = n.params.axis
    if axis is None:
        return g.squeeze(ins[0])
    axes = [axis] if isinstance(axis, int) else list(axis)
    return g.squeeze(ins[0], axes)


@_reg("slice_axis")
def _slice_axis(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis % len(shape)
    end = shape[axis] if p.end is None else p.end
    return g.node("Slice", [ins[0], g.ints([p.begin]), g.ints([end]), g.ints([axis])])


@_reg("slice")
def _slice(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    begin, end = list(p.begin), list(p.end)
    step = list(p.step or ()) + [None] * (len(begin) - len(p.step or ()))
    starts, ends, steps = [], [], []
    for i, (b, e_, s) in enumerate(zip(begin, end, step)):
        s = 1 if s is None else int(s)
        if b is None:
            b = 0 if s > 0 else shape[i] - 1
        if e_ is None:
            e_ = shape[i] if s > 0 else -(2 ** 62)
        starts.append(b)
        ends.append(e_)
        steps.append(s)
    return g.node("Slice", [ins[0], g.ints(starts), g.ints(ends),
                            g.ints(range(len(starts))), g.ints(steps)])


@_reg("slice_like")
def _slice_like(g, n, ins, e, w):
    out = g.shape_of(n)
    if out is None:
        raise ExportError("slice_like needs the shapes at export")
    return g.node("Slice", [ins[0], g.ints([0] * len(out)), g.ints(out),
                            g.ints(range(len(out)))])


@_reg("broadcast_to")
def _broadcast_to(g, n, ins, e, w):
    out = g.shape_of(n)
    if out is None:
        raise ExportError("broadcast_to needs the shapes at export")
    return g.node("Expand", [ins[0], g.ints(out)])


@_reg("broadcast_like")
def _broadcast_like(g, n, ins, e, w):
    out = g.shape_of(n)
    if out is None:
        raise ExportError("broadcast_like needs the shapes at export")
    return g.node("Expand", [ins[0], g.ints(out)])


@_reg("broadcast_axis", "broadcast_axes")
def _broadcast_axis(g, n, ins, e, w):
    out = g.shape_of(n)
    if out is None:
        raise ExportError("broadcast_axis needs the shapes at export")
    return g.node("Expand", [ins[0], g.ints(out)])


@_reg("tile")
def _tile(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    reps = list(n.params.reps)
    nd = max(len(shape), len(reps))
    x = ins[0]
    if len(shape) < nd:
        x = g.node("Reshape", [x, g.ints([1] * (nd - len(shape)) + list(shape))])
    reps = [1] * (nd - len(reps)) + reps
    return g.node("Tile", [x, g.ints(reps)])


@_reg("repeat")
def _repeat(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    r = int(n.params.repeats)
    axis = n.params.axis
    x = ins[0]
    if axis is None:
        x = g.node("Reshape", [x, g.ints([-1])])
        shape, axis = (int(np.prod(shape)),), 0
    axis %= len(shape)
    x = g.unsqueeze(x, [axis + 1])
    reps = [1] * (len(shape) + 1)
    reps[axis + 1] = r
    out = list(shape)
    out[axis] *= r
    return g.node("Reshape", [g.node("Tile", [x, g.ints(reps)]), g.ints(out)])


@_reg("Pad", "pad")
def _pad(g, n, ins, e, w):
    p = n.params
    pw = list(p.pad_width)
    begins, ends = pw[0::2], pw[1::2]
    mode = {"constant": "constant", "edge": "edge", "reflect": "reflect"}[p.mode]
    dt = _np_dtype(g, n)
    args = [ins[0], g.ints(begins + ends)]
    if mode == "constant":
        args.append(g.scalar(p.constant_value, dt))
    return g.node("Pad", args, mode=mode)


@_reg("depth_to_space")
def _d2s(g, n, ins, e, w):
    return g.node("DepthToSpace", ins[:1], blocksize=int(n.params.block_size), mode="DCR")


@_reg("space_to_depth")
def _s2d(g, n, ins, e, w):
    return g.node("SpaceToDepth", ins[:1], blocksize=int(n.params.block_size))


@_reg("UpSampling")
def _upsampling(g, n, ins, e, w):
    p = n.params
    if p.sample_type != "nearest" or len(ins) != 1:
        raise ExportError("only nearest UpSampling of one input is exported")
    s = float(p.scale)
    return g.node("Resize", [ins[0], "", g.const(np.array([1, 1, s, s], np.float32))],
                  mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")


@_reg("reverse", "flip")
def _reverse(g, n, ins, e, w):
    axes = n.params.axis
    axes = [axes] if isinstance(axes, int) else list(axes)
    nd = len(g.need_shape(n, 0))
    # an axis named twice is reversed twice
    axes = sorted(a for a in {x % nd for x in axes} if sum(x % nd == a for x in axes) % 2)
    if not axes:
        return g.node("Identity", ins[:1])
    big = 2 ** 62
    return g.node("Slice", [ins[0], g.ints([-1] * len(axes)), g.ints([-big] * len(axes)),
                            g.ints(axes), g.ints([-1] * len(axes))])


# ---- indexing --------------------------------------------------------------------------------
def _indices(g, x):
    return g.node("Cast", [x], to=onnx_dtype(np.int64))


@_reg("Embedding")
def _embedding(g, n, ins, e, w):
    return g.node("Gather", [ins[1], _indices(g, ins[0])], axis=0)


@_reg("take")
def _take(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis % len(shape)
    idx = _indices(g, ins[1])
    size = shape[axis]
    if p.mode == "clip":
        idx = g.node("Clip", [idx, g.const(np.int64(0)), g.const(np.int64(size - 1))])
    elif p.mode == "wrap":
        idx = g.node("Mod", [idx, g.const(np.int64(size))])
    return g.node("Gather", [ins[0], idx], axis=axis)


@_reg("pick")
def _pick(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = shape and (len(shape) - 1 if p.axis is None else p.axis % len(shape))
    idx = _indices(g, ins[1])
    if p.get("mode", "clip") == "wrap":
        idx = g.node("Mod", [idx, g.const(np.int64(shape[axis]))])
    else:
        idx = g.node("Clip", [idx, g.const(np.int64(0)), g.const(np.int64(shape[axis] - 1))])
    idx = g.unsqueeze(idx, [axis])
    y = g.node("GatherElements", [ins[0], idx], axis=axis)
    return y if p.keepdims else g.squeeze(y, [axis])


@_reg("one_hot")
def _one_hot(g, n, ins, e, w):
    p = n.params
    dt = np.dtype(p.dtype)
    vals = g.const(np.array([p.off_value, p.on_value], dt))
    return g.node("OneHot", [_indices(g, ins[0]), g.ints([p.depth]), vals], axis=-1)


@_reg("argmax", "argmin")
def _argmax(g, n, ins, e, w):
    p = n.params
    op = "ArgMax" if n.op.name == "argmax" else "ArgMin"
    x = ins[0]
    axis = p.axis
    if axis is None:
        x = g.node("Reshape", [x, g.ints([-1])])
        axis = 0
    y = g.node(op, [x], axis=int(axis), keepdims=int(p.keepdims))
    return g.node("Cast", [y], to=onnx_dtype(_np_dtype(g, n)))


# ---- reductions and products -----------------------------------------------------------------
_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd", "sum_axis": "ReduceSum", "_square_sum": "ReduceSumSquare"}


def _reduce(g, n, ins, e, w):
    p = n.params
    axis = p.axis
    if axis is not None:
        axis = [axis] if isinstance(axis, int) else list(axis)
    if p.get("exclude") and axis is not None:
        nd = len(g.need_shape(n, 0))
        keep = {a % nd for a in axis}
        axis = [a for a in range(nd) if a not in keep]
    y = g.reduce(_REDUCE[n.op.name], ins[0], axis, p.keepdims)
    if axis is None and not p.keepdims:  # MXNet gives shape (1,), not a scalar
        y = g.node("Reshape", [y, g.ints([1])])
    return y


for _name in _REDUCE:
    CONVERTERS[_name] = _reduce


@_reg("norm")
def _norm(g, n, ins, e, w):
    p = n.params
    axis = p.axis
    if axis is not None:
        axis = [axis] if isinstance(axis, int) else list(axis)
    op = {1: "ReduceL1", 2: "ReduceL2"}.get(int(p.ord))
    y = g.reduce(op, ins[0], axis, p.keepdims)
    if axis is None and not p.keepdims:
        y = g.node("Reshape", [y, g.ints([1])])
    return y


@_reg("dot")
def _dot(g, n, ins, e, w):
    p = n.params
    a, b = ins[:2]
    sa, sb = g.need_shape(n, 0), g.need_shape(n, 1)
    if len(sa) != 2 or len(sb) != 2:
        if p.transpose_a or p.transpose_b:
            raise ExportError("dot with transposes is exported for 2-D inputs only")
        a = g.node("Reshape", [a, g.ints([-1, sa[-1]])])
        b = g.node("Reshape", [b, g.ints([sb[0], -1])])
        y = g.node("MatMul", [a, b])
        return g.node("Reshape", [y, g.ints(list(sa[:-1]) + list(sb[1:]))])
    if p.transpose_a:
        a = g.node("Transpose", [a], perm=[1, 0])
    if p.transpose_b:
        b = g.node("Transpose", [b], perm=[1, 0])
    return g.node("MatMul", [a, b])


@_reg("batch_dot")
def _batch_dot(g, n, ins, e, w):
    p = n.params
    a, b = ins[:2]
    if p.transpose_a:
        a = g.node("Transpose", [a], perm=[0, 2, 1])
    if p.transpose_b:
        b = g.node("Transpose", [b], perm=[0, 2, 1])
    return g.node("MatMul", [a, b])


@_reg("_linalg_gemm2")
def _gemm2(g, n, ins, e, w):
    p = n.params
    a, b = ins[:2]
    nd = len(g.need_shape(n, 0))
    if p.get("axis", -2) % nd != nd - 2:
        raise ExportError(f"axis={p.axis} (matrices not in the last two axes) is not exported")
    perm = list(range(nd - 2)) + [nd - 1, nd - 2]
    if p.transpose_a:
        a = g.node("Transpose", [a], perm=perm)
    if p.transpose_b:
        b = g.node("Transpose", [b], perm=perm)
    y = g.node("MatMul", [a, b])
    if p.alpha != 1.0:
        y = g.node("Mul", [y, g.scalar(p.alpha, _np_dtype(g, n))])
    return y


# ---- creation --------------------------------------------------------------------------------
@_reg("_zeros", "_ones", "_full")
def _full(g, n, ins, e, w):
    p = n.params
    v = {"_zeros": 0, "_ones": 1}.get(n.op.name, p.get("value"))
    shape = g.shape_of(n) or tuple(p.shape)  # inferred: a 0 in `shape` is filled from its users
    if 0 in shape:
        raise ExportError(f"shape={tuple(p.shape)} has a size only its users can decide, and it "
                          "is unknown at export (give in_shapes)")
    return g.node("Identity", [g.const(np.full(shape, v, dtype=np.dtype(p.dtype)))])


# ---- more elementwise ------------------------------------------------------------------------
def _to_bool(g, x):
    return g.node("Cast", [x], to=onnx_dtype(np.bool_))


_LOGICAL = {"and": "And", "or": "Or", "xor": "Xor"}


def _logical(g, n, a, b, op):
    return g.node("Cast", [g.node(op, [_to_bool(g, a), _to_bool(g, b)])],
                  to=onnx_dtype(_np_dtype(g, n)))


for _k, _op in _LOGICAL.items():
    for _name in (f"_logical_{_k}", f"broadcast_logical_{_k}"):
        CONVERTERS[_name] = (lambda op: lambda g, n, ins, e, w:
                             _logical(g, n, ins[0], ins[1], op))(_op)
    CONVERTERS[f"_logical_{_k}_scalar"] = (lambda op: lambda g, n, ins, e, w: _logical(
        g, n, ins[0], g.scalar(n.params.scalar, _np_dtype(g, n)), op))(_op)


def _floor_mod(g, a, b):
    # numpy's mod (the sign of the divisor): ONNX Mod on floats is C's fmod only
    return g.node("Sub", [a, g.node("Mul", [g.node("Floor", [g.node("Div", [a, b])]), b])])


@_reg("_mod", "broadcast_mod")
def _mod(g, n, ins, e, w):
    return _floor_mod(g, ins[0], ins[1])


@_reg("_mod_scalar", "_rmod_scalar")
def _mod_scalar(g, n, ins, e, w):
    c = g.scalar(n.params.scalar, _np_dtype(g, n))
    return _floor_mod(g, *((ins[0], c) if n.op.name == "_mod_scalar" else (c, ins[0])))


@_reg("_hypot", "broadcast_hypot", "_hypot_scalar")
def _hypot(g, n, ins, e, w):
    b = g.scalar(n.params.scalar, _np_dtype(g, n)) if n.op.name == "_hypot_scalar" else ins[1]
    return g.node("Sqrt", [g.node("Add", [g.node("Mul", [ins[0], ins[0]]),
                                          g.node("Mul", [b, b])])])


@_reg("cbrt", "rcbrt")
def _cbrt(g, n, ins, e, w):
    dt = _np_dtype(g, n)
    mag = g.node("Pow", [g.node("Abs", ins[:1]), g.scalar(1.0 / 3.0, dt)])
    y = g.node("Mul", [g.node("Sign", ins[:1]), mag])
    return g.node("Reciprocal", [y]) if n.op.name == "rcbrt" else y


@_reg("degrees", "radians")
def _degrees(g, n, ins, e, w):
    f = 180.0 / np.pi if n.op.name == "degrees" else np.pi / 180.0
    return g.node("Mul", [ins[0], g.scalar(f, _np_dtype(g, n))])


@_reg("fix", "trunc")
def _trunc(g, n, ins, e, w):
    return g.node("Mul", [g.node("Sign", ins[:1]), g.node("Floor", [g.node("Abs", ins[:1])])])


@_reg("smooth_l1")
def _smooth_l1(g, n, ins, e, w):
    dt = _np_dtype(g, n)
    s2 = float(n.params.scalar) ** 2
    x = ins[0]
    ax = g.node("Abs", [x])
    quad = g.node("Mul", [g.node("Mul", [x, x]), g.scalar(0.5 * s2, dt)])
    lin = g.node("Sub", [ax, g.scalar(0.5 / s2, dt)])
    return g.node("Where", [g.node("Less", [ax, g.scalar(1.0 / s2, dt)]), quad, lin])


@_reg("size_array")
def _size_array(g, n, ins, e, w):
    y = g.node("Reshape", [g.node("Size", ins[:1]), g.ints([1])])
    return g.node("Cast", [y], to=onnx_dtype(g.dtype_of(n) or np.int64))


@_reg("_contrib_div_sqrt_dim")
def _div_sqrt_dim(g, n, ins, e, w):
    d = g.need_shape(n, 0)[-1]
    return g.node("Div", [ins[0], g.scalar(np.sqrt(d), _np_dtype(g, n))])


@_reg("_contrib_gradientmultiplier", "IdentityAttachKLSparseReg", "SVMOutput",
      "_identity_with_attr_like_rhs")
def _identity_forward(g, n, ins, e, w):
    return g.node("Identity", ins[:1])


@_reg("_contrib_round_ste")
def _round_ste(g, n, ins, e, w):
    return _round(g, n, ins, e, w)


@_reg("_contrib_sign_ste")
def _sign_ste(g, n, ins, e, w):
    return g.node("Sign", ins[:1])


@_reg("nansum", "nanprod")
def _nan_reduce(g, n, ins, e, w):
    dt = _np_dtype(g, n)
    fill = g.scalar(0 if n.op.name == "nansum" else 1, dt)
    x = g.node("Where", [g.node("IsNaN", ins[:1]), fill, ins[0]])
    p = n.params
    axis = p.axis
    if axis is not None:
        axis = [axis] if isinstance(axis, int) else list(axis)
    if p.get("exclude") and axis is not None:
        nd = len(g.need_shape(n, 0))
        keep = {a % nd for a in axis}
        axis = [a for a in range(nd) if a not in keep]
    op = "ReduceSum" if n.op.name == "nansum" else "ReduceProd"
    return g.reduce(op, x, axis, p.keepdims)


@_reg("moments")
def _moments(g, n, ins, e, w):
    p = n.params
    axes = None if p.axes is None else list(p.axes)
    mean = g.reduce("ReduceMean", ins[0], axes, True)
    d = g.node("Sub", [ins[0], mean])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), axes, p.keepdims)
    if not p.keepdims:
        mean = g.reduce("ReduceMean", ins[0], axes, False)
    return [mean, var]


# ---- sorting ---------------------------------------------------------------------------------
def _topk(g, x, axis, k, largest):
    return g.node("TopK", [x, g.ints([k])], n_out=2, axis=axis, largest=int(largest), sorted=1)


@_reg("sort", "argsort")
def _sort(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis
    x = ins[0]
    if axis is None:
        x = g.node("Reshape", [x, g.ints([-1])])
        shape, axis = (int(np.prod(shape)),), 0
    axis %= len(shape)
    vals, idx = _topk(g, x, axis, shape[axis], not p.is_ascend)
    if n.op.name == "sort":
        return vals
    return g.node("Cast", [idx], to=onnx_dtype(p.dtype))


@_reg("topk")
def _topk_conv(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    axis = p.axis
    x = ins[0]
    if axis is None:
        x = g.node("Reshape", [x, g.ints([-1])])
        shape, axis = (int(np.prod(shape)),), 0
    axis %= len(shape)
    k = int(p.k) if p.k >= 1 else shape[axis]
    vals, idx = _topk(g, x, axis, k, not p.is_ascend)
    if p.ret_typ == "value":
        return vals
    fidx = g.node("Cast", [idx], to=onnx_dtype(p.dtype))
    if p.ret_typ == "indices":
        return fidx
    if p.ret_typ == "both":
        return [vals, fidx]
    dt = _np_dtype(g, n)  # mask: ones where the top k sit
    zeros = g.node("Mul", [ins[0], g.scalar(0, dt)])
    ones = g.node("Add", [g.node("Mul", [vals, g.scalar(0, dt)]), g.scalar(1, dt)])
    return g.node("ScatterElements", [zeros, idx, ones], axis=axis)


@_reg("argmax_channel")
def _argmax_channel(g, n, ins, e, w):
    y = g.node("ArgMax", ins[:1], axis=-1, keepdims=0)
    return g.node("Cast", [y], to=onnx_dtype(_np_dtype(g, n)))


# ---- sequences -------------------------------------------------------------------------------
def _lengths_mask(g, n, ins, shape, axis):
    """Bool (T, N, 1, ...) or (N, T, 1, ...) mask: step t < length of its sequence."""
    T, N = shape[axis], shape[1 - axis]
    steps = g.const(np.arange(T, dtype=np.int64).reshape([T, 1] if axis == 0 else [1, T]))
    lens = g.node("Reshape", [_indices(g, ins[1]), g.ints([1, N] if axis == 0 else [N, 1])])
    mask = g.node("Less", [steps, lens])
    return g.node("Reshape", [mask, g.ints(list(mask_shape(shape)))])


def mask_shape(shape):
    return list(shape[:2]) + [1] * (len(shape) - 2)


@_reg("SequenceMask")
def _sequence_mask(g, n, ins, e, w):
    p = n.params
    if not p.use_sequence_length:
        return g.node("Identity", ins[:1])
    shape = g.need_shape(n, 0)
    mask = _lengths_mask(g, n, ins, shape, p.axis)
    return g.node("Where", [mask, ins[0], g.scalar(p.value, _np_dtype(g, n))])


@_reg("SequenceLast")
def _sequence_last(g, n, ins, e, w):
    p = n.params
    axis = p.axis
    if not p.use_sequence_length:
        return g.squeeze(g.node("Slice", [ins[0], g.ints([-1]), g.ints([2 ** 62]),
                                          g.ints([axis])]), [axis])
    shape = g.need_shape(n, 0)
    N = shape[1 - axis]
    last = g.node("Sub", [_indices(g, ins[1]), g.const(np.int64(1))])
    one = [1, N] if axis == 0 else [N, 1]
    idx = g.node("Reshape", [last, g.ints(one + [1] * (len(shape) - 2))])
    target = list(shape)
    target[axis] = 1
    idx = g.node("Expand", [idx, g.ints(target)])
    return g.squeeze(g.node("GatherElements", [ins[0], idx], axis=axis), [axis])


@_reg("SequenceReverse")
def _sequence_reverse(g, n, ins, e, w):
    if not n.params.use_sequence_length:
        return g.node("Slice", [ins[0], g.ints([-1]), g.ints([-2 ** 62]), g.ints([0]),
                                g.ints([-1])])
    return g.node("ReverseSequence", [ins[0], _indices(g, ins[1])], batch_axis=1, time_axis=0)


# ---- more layers -----------------------------------------------------------------------------
@_reg("LRN")
def _lrn(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    x = ins[0]
    if len(shape) != 4:  # ONNX Runtime's LRN takes (N, C, H, W) only
        x = g.node("Reshape", [x, g.ints(list(shape[:2]) + [-1, 1])])
    y = g.node("LRN", [x], alpha=float(p.alpha), beta=float(p.beta), bias=float(p.knorm),
               size=int(p.nsize))
    return y if len(shape) == 4 else g.node("Reshape", [y, g.ints(shape)])


@_reg("_contrib_AdaptiveAvgPooling2D")
def _adaptive_avg(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    out = g.shape_of(n)
    if out is None:
        raise ExportError("the output size is unknown at export")
    if tuple(out[2:]) == (1, 1):
        return g.node("GlobalAveragePool", ins[:1])
    if shape[2] % out[2] or shape[3] % out[3]:
        raise ExportError(f"output_size {tuple(out[2:])} does not divide the input "
                          f"{tuple(shape[2:])}: the windows overlap, which no ONNX pool does")
    k = [shape[2] // out[2], shape[3] // out[3]]
    return g.node("AveragePool", ins[:1], kernel_shape=k, strides=k)


@_reg("_contrib_BilinearResize2D")
def _bilinear_resize(g, n, ins, e, w):
    p = n.params
    out = g.shape_of(n)
    if out is None:
        raise ExportError("bilinear resize needs its output shape at export (give in_shapes)")
    mode = "align_corners" if p.align_corners else "half_pixel"
    return g.node("Resize", [ins[0], "", "", g.ints(out)], mode="linear",
                  coordinate_transformation_mode=mode)


@_reg("gather_nd")
def _gather_nd(g, n, ins, e, w):
    nd = len(g.need_shape(n, 1))
    idx = g.node("Transpose", [_indices(g, ins[1])], perm=list(range(1, nd)) + [0])
    return g.node("GatherND", [ins[0], idx])


@_reg("batch_take")
def _batch_take(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    idx = g.node("Clip", [_indices(g, ins[1]), g.const(np.int64(0)),
                          g.const(np.int64(shape[-1] - 1))])
    flat = g.node("Reshape", [ins[0], g.ints([-1, shape[-1]])])
    y = g.node("GatherElements", [flat, g.unsqueeze(g.node("Reshape", [idx, g.ints([-1])]),
                                                    [1])], axis=1)
    return g.node("Reshape", [y, g.ints([-1])])


@_reg("_np_cumsum")
def _cumsum(g, n, ins, e, w):
    p = n.params
    x = ins[0]
    axis = p.axis
    if axis is None:
        x, axis = g.node("Reshape", [x, g.ints([-1])]), 0
    y = g.node("CumSum", [x, g.const(np.int64(axis))])
    return y if p.dtype is None else g.node("Cast", [y], to=onnx_dtype(p.dtype))


@_reg("_onehot_encode")
def _onehot_encode(g, n, ins, e, w):
    depth = g.need_shape(n, 1)[-1]
    vals = g.const(np.array([0, 1], _np_dtype(g, n)))
    return g.node("OneHot", [_indices(g, ins[0]), g.ints([depth]), vals], axis=-1)


@_reg("_linalg_det")
def _det(g, n, ins, e, w):
    return g.node("Det", ins[:1])


@_reg("_linalg_gemm")
def _linalg_gemm(g, n, ins, e, w):
    p = n.params
    ab = _gemm2(g, n, ins[:2], e, w)
    c = ins[2]
    if p.beta != 1.0:
        c = g.node("Mul", [c, g.scalar(p.beta, _np_dtype(g, n))])
    return g.node("Add", [ab, c])


@_reg("_linalg_syrk")
def _syrk(g, n, ins, e, w):
    p = n.params
    nd = len(g.need_shape(n, 0))
    perm = list(range(nd - 2)) + [nd - 1, nd - 2]
    at = g.node("Transpose", ins[:1], perm=perm)
    y = g.node("MatMul", [at, ins[0]] if p.transpose else [ins[0], at])
    if p.alpha != 1.0:
        y = g.node("Mul", [y, g.scalar(p.alpha, _np_dtype(g, n))])
    return y


@_reg("_image_to_tensor")
def _image_to_tensor(g, n, ins, e, w):
    nd = len(g.need_shape(n, 0))
    perm = [2, 0, 1] if nd == 3 else [0, 3, 1, 2]
    y = g.node("Cast", [g.node("Transpose", ins[:1], perm=perm)], to=onnx_dtype(np.float32))
    return g.node("Div", [y, g.scalar(255.0, np.float32)])


@_reg("_image_normalize")
def _image_normalize(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    c = shape[0] if len(shape) == 3 else shape[1]
    mean, std = list(p.mean), list(p.std)
    mean = (mean * c)[:c] if len(mean) == 1 else mean[:c]
    std = (std * c)[:c] if len(std) == 1 else std[:c]
    bshape = [c, 1, 1] if len(shape) == 3 else [1, c, 1, 1]
    dt = _np_dtype(g, n)
    m = g.const(np.array(mean, dt).reshape(bshape))
    s = g.const(np.array(std, dt).reshape(bshape))
    return g.node("Div", [g.node("Sub", [ins[0], m]), s])


@_reg("_image_flip_left_right", "_image_flip_top_bottom")
def _image_flip(g, n, ins, e, w):
    nd = len(g.need_shape(n, 0))
    axis = nd - 2 if n.op.name == "_image_flip_left_right" else nd - 3
    return g.node("Slice", [ins[0], g.ints([-1]), g.ints([-2 ** 62]), g.ints([axis]),
                            g.ints([-1])])


# ---- operators with no inputs: their (deterministic) value is a constant ---------------------
@_reg("_arange", "_linspace", "_eye", "_contrib_arange_like", "_contrib_index_array")
def _folded(g, n, ins, e, w):
    from .. import nd as _nd
    args = []
    if n.op.name in ("_contrib_arange_like", "_contrib_index_array"):
        args = [_nd.zeros(g.need_shape(n, 0))]
    attrs = {k: v for k, v in n.attrs.items() if not k.startswith("__")}
    arr = make_function(n.op, n.op.name)(*args, **attrs)
    return g.node("Identity", [g.const(arr.asnumpy())])


# ---- partitioned graphs ----------------------------------------------------------------------
@_reg("_default_subgraph_op", "_sg_fuse")  # a fused chain exports as its operators
def _default_subgraph(g, n, ins, errors, where):
    body = n.params["_subgraphs"][0]
    names = body.list_inputs()
    env = dict(zip(names, ins))
    shapes = {nm: g.in_shape(n, j) for j, nm in enumerate(names)}
    dtypes = {nm: g.in_dtype(n, j) for j, nm in enumerate(names)}
    outs = g.convert(body, env, shapes, dtypes, errors, f"{where}{n.name}/")
    return None if any(o is None for o in outs) else outs


# ---- interleaved attention products (GluonNLP's multi-head attention) ------------------------
def _split_heads(g, x, shape, heads, parts):
    """(L, B, heads*parts*D) -> `parts` tensors (B*heads, L, D), as MXNet interleaves them."""
    L, B, E = shape
    d = E // (heads * parts)
    y = g.node("Reshape", [x, g.ints([L, B, heads, parts, d])])
    y = g.node("Transpose", [y], perm=[3, 1, 2, 0, 4])
    y = g.node("Reshape", [y, g.ints([parts, B * heads, L, d])])
    return [g.squeeze(t, [0]) for t in g.split(y, 0, [1] * parts)], d


def _join_heads(g, y, L, B, heads):
    """(B*heads, L, D) -> (L, B, heads*D)."""
    y = g.node("Reshape", [y, g.ints([B, heads, L, -1])])
    y = g.node("Transpose", [y], perm=[2, 0, 1, 3])
    return g.node("Reshape", [y, g.ints([L, B, -1])])


def _scaled_qk(g, n, q, k, d):
    kt = g.node("Transpose", [k], perm=[0, 2, 1])
    q = g.node("Div", [q, g.scalar(np.sqrt(d), _np_dtype(g, n))])
    return g.node("MatMul", [q, kt])


@_reg("_contrib_interleaved_matmul_selfatt_qk")
def _selfatt_qk(g, n, ins, e, w):
    (q, k, _), d = _split_heads(g, ins[0], g.need_shape(n, 0), n.params.heads, 3)
    return _scaled_qk(g, n, q, k, d)


@_reg("_contrib_interleaved_matmul_selfatt_valatt")
def _selfatt_valatt(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    (_, _, v), _ = _split_heads(g, ins[0], shape, n.params.heads, 3)
    return _join_heads(g, g.node("MatMul", [ins[1], v]), shape[0], shape[1], n.params.heads)


@_reg("_contrib_interleaved_matmul_encdec_qk")
def _encdec_qk(g, n, ins, e, w):
    heads = n.params.heads
    (q,), d = _split_heads(g, ins[0], g.need_shape(n, 0), heads, 1)
    (k, _), _ = _split_heads(g, ins[1], g.need_shape(n, 1), heads, 2)
    return _scaled_qk(g, n, q, k, d)


@_reg("_contrib_interleaved_matmul_encdec_valatt")
def _encdec_valatt(g, n, ins, e, w):
    heads = n.params.heads
    att_shape = g.need_shape(n, 1)
    (_, v), _ = _split_heads(g, ins[0], g.need_shape(n, 0), heads, 2)
    B = g.need_shape(n, 0)[1]
    return _join_heads(g, g.node("MatMul", [ins[1], v]), att_shape[1], B, heads)


@_reg("_contrib_quadratic")
def _quadratic(g, n, ins, e, w):
    p, dt = n.params, _np_dtype(g, n)
    x = ins[0]
    ax = g.node("Mul", [x, g.scalar(p.a, dt)])
    return g.node("Add", [g.node("Mul", [g.node("Add", [ax, g.scalar(p.b, dt)]), x]),
                          g.scalar(p.c, dt)])


def _diag_rows(g, n, x, shape, k):
    """The k-th diagonal of `x` (..., rows, cols) over its last two axes: a mask picks one
    entry per row (exact: the other terms are zeros), then the rows that hold one."""
    rows, cols = shape[-2], shape[-1]
    r, c = np.indices((rows, cols))
    mask = g.const((c - r == k).astype(_np_dtype(g, n)))
    picked = g.reduce("ReduceSum", g.node("Mul", [x, mask]), [len(shape) - 1], False)
    r0 = max(0, -k)
    length = max(0, min(rows - r0, cols - max(0, k)))
    return g.node("Slice", [picked, g.ints([r0]), g.ints([r0 + length]),
                            g.ints([len(shape) - 2])])


@_reg("diag")
def _diag(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    k = int(p.k)
    if len(shape) == 1:  # a vector -> the matrix with it on diagonal k
        m = shape[0] + abs(k)
        sel = np.zeros((shape[0], m * m), _np_dtype(g, n))
        for i in range(shape[0]):
            r, c = (i, i + k) if k >= 0 else (i - k, i)
            sel[i, r * m + c] = 1
        y = g.node("MatMul", [g.unsqueeze(ins[0], [0]), g.const(sel)])
        return g.node("Reshape", [y, g.ints([m, m])])
    nd = len(shape)
    a1, a2 = p.axis1 % nd, p.axis2 % nd
    perm = [i for i in range(nd) if i not in (a1, a2)] + [a1, a2]
    x = g.node("Transpose", ins[:1], perm=perm)
    return _diag_rows(g, n, x, [shape[i] for i in perm], k)


@_reg("_linalg_sumlogdiag")
def _sumlogdiag(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    d = _diag_rows(g, n, ins[0], shape, 0)
    return g.reduce("ReduceSum", g.node("Log", [d]), [len(shape) - 2], False)


# ---- crops, windows and scatters -------------------------------------------------------------
@_reg("Crop")
def _crop(g, n, ins, e, w):
    like = g.need_shape(n, 1) if len(ins) > 1 else None
    top, left, h, wd = _crop_box(n.params, g.need_shape(n, 0), like)
    return g.node("Slice", [ins[0], g.ints([top, left]), g.ints([top + h, left + wd]),
                            g.ints([2, 3])])


@_reg("_image_crop")
def _image_crop(g, n, ins, e, w):
    p, nd = n.params, len(g.need_shape(n, 0))
    return g.node("Slice", [ins[0], g.ints([p.y, p.x]), g.ints([p.y + p.height, p.x + p.width]),
                            g.ints([nd - 3, nd - 2])])


def _window_weights(g, n, channels, kernel):
    """(channels * K, 1, *kernel) one-hot weights, K = prod(kernel): filter c*K + k picks
    kernel offset k of channel c (a grouped convolution with them is im2col, exactly)."""
    K = int(np.prod(kernel))
    eye = np.eye(K, dtype=_np_dtype(g, n)).reshape((K, 1) + tuple(kernel))
    return g.const(np.tile(eye, (channels, 1) + (1,) * len(kernel)), hint="window_onehot")


@_reg("im2col")
def _im2col(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    geo = _im2col_geom("im2col", n.params, shape[2:])
    k = list(geo.kernel)
    y = g.node("Conv", [ins[0], _window_weights(g, n, shape[1], k)], kernel_shape=k,
               strides=list(geo.stride), dilations=list(geo.dilate),
               pads=list(geo.pad) * 2, group=int(shape[1]))
    return g.node("Reshape", [y, g.ints([shape[0], shape[1] * int(np.prod(k)), -1])])


@_reg("col2im")
def _col2im(g, n, ins, e, w):
    # the transposed convolution of im2col's weights sums each window back into place; it
    # writes the padded image's first `full` positions, padded out and cropped to output_size
    p = n.params
    N, CK, _ = g.need_shape(n, 0)
    geo = _im2col_geom("col2im", p, p.output_size)
    k, nd = list(geo.kernel), len(geo.kernel)
    C = CK // int(np.prod(k))
    cols = g.node("Reshape", [ins[0], g.ints([N, CK] + list(geo.out))])
    y = g.node("ConvTranspose", [cols, _window_weights(g, n, C, k)], kernel_shape=k,
               strides=list(geo.stride), dilations=list(geo.dilate), group=C)
    full = [geo.stride[i] * (geo.out[i] - 1) + geo.dilate[i] * (k[i] - 1) + 1 for i in range(nd)]
    short = [int(p.output_size[i]) + 2 * geo.pad[i] - full[i] for i in range(nd)]
    if any(short):
        y = g.node("Pad", [y, g.ints([0] * (nd + 2) + [0, 0] + short)])
    starts = list(geo.pad)
    return g.node("Slice", [y, g.ints(starts),
                            g.ints([starts[i] + int(p.output_size[i]) for i in range(nd)]),
                            g.ints(range(2, nd + 2))])


def _scatter_into(g, n, base, data, idx_input, idx_j):
    """ScatterND of `data` into `base` at MXNet's (K, ...) index columns."""
    ishape = g.need_shape(n, idx_j)
    K = ishape[0]
    idx = g.node("Transpose", [_indices(g, idx_input)], perm=list(range(1, len(ishape))) + [0])
    upd = g.node("Reshape", [data, g.ints(list(ishape[1:]) + list(n.params.shape)[K:])])
    return g.node("ScatterND", [base, idx, upd])


@_reg("scatter_nd")
def _scatter_nd(g, n, ins, e, w):
    from onnx import numpy_helper
    zero = numpy_helper.from_array(np.zeros(1, _np_dtype(g, n)))
    base = g.node("ConstantOfShape", [g.ints(n.params.shape)], value=zero)
    return _scatter_into(g, n, base, ins[0], ins[1], 1)


@_reg("_scatter_set_nd")
def _scatter_set_nd(g, n, ins, e, w):
    return _scatter_into(g, n, ins[0], ins[1], ins[2], 2)


@_reg("_contrib_index_copy")
def _index_copy(g, n, ins, e, w):
    return g.node("ScatterND", [ins[0], g.unsqueeze(_indices(g, ins[1]), [1]), ins[2]])


@_reg("fill_element_0index")
def _fill_element_0index(g, n, ins, e, w):
    return g.node("ScatterElements", [ins[0], g.unsqueeze(_indices(g, ins[2]), [1]),
                                      g.unsqueeze(ins[1], [1])], axis=1)


@_reg("_contrib_boolean_mask")
def _boolean_mask(g, n, ins, e, w):
    if n.params.axis != 0:
        raise ExportError(f"axis={n.params.axis}: only axis=0 is supported")
    keep = g.node("Cast", [ins[1]], to=onnx_dtype(np.bool_))
    y = g.node("Compress", [ins[0], keep], axis=0)
    g.declared[y] = [f"{n.name}_rows"] + list(g.need_shape(n, 0)[1:])
    return y


# ---- index arithmetic (integers in the data's dtype, as MXNet) -------------------------------
@_reg("ravel_multi_index")
def _ravel_multi_index(g, n, ins, e, w):
    shape = g.need_shape(n, 0)
    dims = [int(d) for d in n.params.shape]
    strides = np.array([int(np.prod(dims[m + 1:])) for m in range(len(dims))], np.int64)
    strides = strides.reshape((len(dims),) + (1,) * (len(shape) - 1))
    flat = g.node("Mul", [_indices(g, ins[0]), g.const(strides)])
    flat = g.reduce("ReduceSum", flat, [0], False)
    return g.node("Cast", [flat], to=onnx_dtype(_np_dtype(g, n)))


@_reg("unravel_index")
def _unravel_index(g, n, ins, e, w):
    i = _indices(g, ins[0])
    rows = []
    for d in reversed([int(v) for v in n.params.shape]):
        r = g.node("Mod", [i, g.const(np.int64(d))], fmod=1)  # C's remainder, as MXNet
        rows.append(g.unsqueeze(r, [0]))
        i = g.node("Div", [g.node("Sub", [i, r]), g.const(np.int64(d))])
    y = g.node("Concat", rows[::-1], axis=0)
    return g.node("Cast", [y], to=onnx_dtype(_np_dtype(g, n)))


# ---- linalg: selections and triangular products ---------------------------------------------
def _selection(g, n, x, shape, k):
    """n's operator, which copies entries of the last k axes of x (or writes zeros), as one
    Gather: the operator run on 1..size tells which input entry (1-based, 0 for a zero) each
    output entry holds."""
    lead, tail = list(shape[:-k]), tuple(shape[-k:])
    size = int(np.prod(tail))
    probe = np.arange(1, size + 1, dtype=np.float64).reshape(tail)
    sel = np.asarray(n.op.forward(n.params, RunCtx(False, np), [probe])[0])
    flat = g.node("Reshape", [x, g.ints(lead + [size])])
    nl = len(lead)
    zero = g.const(np.zeros(lead + [1], _np_dtype(g, n)))
    padded = g.node("Concat", [zero, flat], axis=nl)
    return g.node("Gather", [padded, g.const(np.rint(sel).astype(np.int64))], axis=nl)


@_reg("_linalg_extractdiag", "_linalg_extracttrian")
def _extract(g, n, ins, e, w):
    return _selection(g, n, ins[0], g.need_shape(n, 0), 2)


@_reg("_linalg_makediag", "_linalg_maketrian")
def _make(g, n, ins, e, w):
    return _selection(g, n, ins[0], g.need_shape(n, 0), 1)


def _swap_last(g, x, nd):
    return g.node("Transpose", [x], perm=list(range(nd - 2)) + [nd - 1, nd - 2])


@_reg("_linalg_trmm")
def _trmm(g, n, ins, e, w):
    p = n.params
    shape = g.need_shape(n, 0)
    m = shape[-1]
    keep = np.tril(np.ones((m, m), bool)) if p.lower else np.triu(np.ones((m, m), bool))
    t = g.node("Where", [g.const(keep), ins[0], g.scalar(0, _np_dtype(g, n))])
    if p.transpose:
        t = _swap_last(g, t, len(shape))
    y = g.node("MatMul", [ins[1], t] if p.rightside else [t, ins[1]])
    return y if p.alpha == 1 else g.node("Mul", [y, g.scalar(p.alpha, _np_dtype(g, n))])


@_reg("khatri_rao")
def _khatri_rao(g, n, ins, e, w):
    shapes = [g.need_shape(n, j) for j in range(len(ins))]
    y, rows = ins[0], shapes[0][0]
    for x, s in zip(ins[1:], shapes[1:]):
        y = g.node("Mul", [g.unsqueeze(y, [1]), g.unsqueeze(x, [0])])
        rows *= s[0]
        y = g.node("Reshape", [y, g.ints([rows, s[1]])])
    return y


# ---- comparisons ----------------------------------------------------------------------------
@_reg("_contrib_allclose")
def _allclose(g, n, ins, e, w):
    # numpy's rule: finite pairs within atol + rtol * |b|, others only if equal (infinities of
    # one sign), NaN pairs when equal_nan
    p, a, b = n.params, ins[0], ins[1]
    dt = _np_dtype(g, n)
    tol = g.node("Add", [g.scalar(p.atol, dt), g.node("Mul", [g.scalar(p.rtol, dt),
                                                             g.node("Abs", [b])])])
    close = g.node("LessOrEqual", [g.node("Abs", [g.node("Sub", [a, b])]), tol])
    if dt.kind == "f":
        def finite(x):
            return g.node("Not", [g.node("Or", [g.node("IsInf", [x]), g.node("IsNaN", [x])])])
        both = g.node("And", [finite(a), finite(b)])
        close = g.node("Or", [g.node("And", [both, close]),
                              g.node("And", [g.node("Not", [both]), g.node("Equal", [a, b])])])
        if p.equal_nan:
            nan = g.node("And", [g.node("IsNaN", [a]), g.node("IsNaN", [b])])
            close = g.node("Or", [close, nan])
    ok = g.reduce("ReduceMin", g.node("Cast", [close], to=onnx_dtype(np.float32)), None, False)
    y = g.node("Cast", [ok], to=onnx_dtype(np.uint8))
    g.declared[y] = []
    return y


# ---- images (HWC or NHWC) -------------------------------------------------------------------
def _saturated(g, y, dtype, rounding=False):
    """Float `y` back to the image's dtype as MXNet's kernels do: integers clipped to their
    range (and rounded first where OpenCV rounds)."""
    if np.dtype(dtype).kind not in "iu":
        if np.dtype(dtype) in (np.float32, np.float64):
            return y
        return g.node("Cast", [y], to=onnx_dtype(dtype))  # float16 worked in float32
    if rounding:
        y = g.node("Round", [y])  # halves to even, as numpy's rint
    info = np.iinfo(dtype)
    y = g.node("Clip", [y, g.scalar(info.min, np.float32), g.scalar(info.max, np.float32)])
    return g.node("Cast", [y], to=onnx_dtype(dtype))


def _work_float(g, x, dtype):
    if np.dtype(dtype) in (np.float32, np.float64):
        return x
    return g.node("Cast", [x], to=onnx_dtype(np.float32))


@_reg("_image_adjust_lighting")
def _adjust_lighting(g, n, ins, e, w):
    shape, dt = g.need_shape(n, 0), _np_dtype(g, n)
    if len(n.params.alpha) != 3:
        raise ExportError(f"alpha must hold 3 values, got {n.params.alpha}")
    if shape[-1] == 1:
        return g.node("Identity", ins[:1])
    work = np.float64 if dt == np.float64 else np.float32
    pca = _EIG.astype(work) @ np.asarray(n.params.alpha, dtype=work)
    y = g.node("Add", [_work_float(g, ins[0], dt), g.const(pca.astype(work))])
    return _saturated(g, y, dt)


@_reg("_image_resize")
def _image_resize(g, n, ins, e, w):
    # OpenCV's separable form with gluonlite's weights (rows, then columns, in float32, then
    # rounded), as Gathers: ONNX Resize blends in another order and rounds integers apart
    p, shape, dt = n.params, g.need_shape(n, 0), _np_dtype(g, n)
    if p.interp not in (0, 1):
        raise ExportError(f"interp={p.interp}: only 0 (nearest) and 1 (bilinear) are exported")
    h, wd = shape[-3], shape[-2]
    oh, ow = _resize_size(p, h, wd)
    ax = len(shape) - 3
    if p.interp == 0:
        rows = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        cols = np.minimum((np.arange(ow) * (wd / ow)).astype(np.int64), wd - 1)
        y = g.node("Gather", [ins[0], g.const(rows)], axis=ax)
        return g.node("Gather", [y, g.const(cols)], axis=ax + 1)
    if dt == np.uint8:
        return _bilinear_u8(g, ins[0], (h, wd), (oh, ow), ax)
    work = np.float64 if dt == np.float64 else np.float32
    x = _work_float(g, ins[0], dt)

    def blend(x, n_in, n_out, axis, tail):
        lo, hi, frac = _axis_weights(n_in, n_out)
        frac = frac.astype(work).reshape((n_out,) + (1,) * tail)
        a = g.node("Mul", [g.node("Gather", [x, g.const(lo)], axis=axis), g.const(1 - frac)])
        b = g.node("Mul", [g.node("Gather", [x, g.const(hi)], axis=axis), g.const(frac)])
        return g.node("Add", [a, b])
    y = blend(blend(x, h, oh, ax, 2), wd, ow, ax + 1, 1)
    return _saturated(g, y, dt, rounding=True)



def _bilinear_u8(g, x, size, out_size, ax):
    """uint8 bilinear resize in the kernel's fixed-point arithmetic (OpenCV's: 11-bit
    weights, integer column sums shifted by 4, rows by 16, then + 2 and >> 2), in int32
    (every product stays below 2**27), so the export gives the kernel's bytes."""
    i32 = np.int32
    (h, wd), (oh, ow) = size, out_size

    def taps(v, idx, wts, axis, shape):
        picked = g.node("Gather", [v, g.const(idx.astype(np.int64))], axis=axis)
        return g.node("Mul", [picked, g.const(wts.astype(i32).reshape(shape))])

    def shift(v, bits):  # the values are never negative: a division is the shift
        return g.node("Div", [v, g.const(np.array(1 << bits, i32))])
    v = g.node("Cast", [x], to=onnx_dtype(i32))
    c0, c1, a0, a1 = _linear_u8_taps(wd, ow, True)
    cols = shift(g.node("Add", [taps(v, c0, a0, ax + 1, (ow, 1)),
                                taps(v, c1, a1, ax + 1, (ow, 1))]), 4)
    r0, r1, b0, b1 = _linear_u8_taps(h, oh, False)
    y = g.node("Add", [shift(taps(cols, r0, b0, ax, (oh, 1, 1)), 16),
                       shift(taps(cols, r1, b1, ax, (oh, 1, 1)), 16)])
    y = shift(g.node("Add", [y, g.const(np.array(2, i32))]), 2)
    y = g.node("Clip", [y, g.const(np.array(0, i32)), g.const(np.array(255, i32))])
    return g.node("Cast", [y], to=onnx_dtype(np.uint8))

# ---- densities (float64 inside, as gluonlite computes them) ---------------------------------
def _pdf_params(g, n, ins):
    xs = g.need_shape(n, 0)
    f64 = onnx_dtype(np.float64)
    x = g.node("Cast", [ins[0]], to=f64)
    ps = []
    for j in range(1, len(ins)):
        ps_shape = g.need_shape(n, j)
        q = g.node("Cast", [ins[j]], to=f64)
        extra = len(xs) - len(ps_shape)
        ps.append(g.unsqueeze(q, list(range(len(ps_shape), len(xs)))) if extra else q)
    return x, ps


def _pdf_out(g, n, x, lp):
    """lp (the log-density, float64) spread over x's shape, as a density or its log."""
    lp = g.node("Expand", [lp, g.node("Shape", [x])])
    y = lp if n.params.is_log else g.node("Exp", [lp])
    return g.node("Cast", [y], to=onnx_dtype(_np_dtype(g, n)))


@_reg("_random_pdf_uniform")
def _pdf_uniform(g, n, ins, e, w):
    x, (lo, hi) = _pdf_params(g, n, ins)
    return _pdf_out(g, n, x, g.node("Neg", [g.node("Log", [g.node("Sub", [hi, lo])])]))


@_reg("_random_pdf_normal")
def _pdf_normal(g, n, ins, e, w):
    x, (mu, sigma) = _pdf_params(g, n, ins)
    f = np.float64
    z = g.node("Div", [g.node("Sub", [x, mu]), sigma])
    lp = g.node("Mul", [g.node("Mul", [z, z]), g.scalar(-0.5, f)])
    lp = g.node("Sub", [lp, g.node("Log", [sigma])])
    return _pdf_out(g, n, x, g.node("Sub", [lp, g.scalar(0.5 * np.log(2 * np.pi), f)]))


@_reg("_random_pdf_exponential")
def _pdf_exponential(g, n, ins, e, w):
    x, (lam,) = _pdf_params(g, n, ins)
    return _pdf_out(g, n, x, g.node("Sub", [g.node("Log", [lam]), g.node("Mul", [lam, x])]))


# ---- boxes -----------------------------------------------------------------------------------
def _box_corners(g, n, x, fmt, lead):
    """(xmin, ymin, xmax, ymax) of boxes x (..., 4), each reshaped to `lead` (the box axes
    placed for broadcasting)."""
    parts = [g.node("Reshape", [p, g.ints(lead)]) for p in g.split(x, -1, [1, 1, 1, 1])]
    if fmt == "corner":
        return parts
    cx, cy, w, h = parts
    half = g.scalar(2, _np_dtype(g, n))
    hw, hh = g.node("Div", [w, half]), g.node("Div", [h, half])
    return [g.node("Sub", [cx, hw]), g.node("Sub", [cy, hh]), g.node("Add", [cx, hw]),
            g.node("Add", [cy, hh])]


@_reg("_contrib_box_iou")
def _box_iou(g, n, ins, e, w):
    sa, sb = g.need_shape(n, 0), g.need_shape(n, 1)
    la = list(sa[:-1]) + [1] * (len(sb) - 1)
    lb = [1] * (len(sa) - 1) + list(sb[:-1])
    ax0, ay0, ax1, ay1 = _box_corners(g, n, ins[0], n.params.format, la)
    bx0, by0, bx1, by1 = _box_corners(g, n, ins[1], n.params.format, lb)
    dt = _np_dtype(g, n)
    zero = g.scalar(0, dt)

    def overlap(lo_a, hi_a, lo_b, hi_b):
        d = g.node("Sub", [g.node("Min", [hi_a, hi_b]), g.node("Max", [lo_a, lo_b])])
        return g.node("Max", [d, zero])
    inter = g.node("Mul", [overlap(ax0, ax1, bx0, bx1), overlap(ay0, ay1, by0, by1)])
    area_a = g.node("Mul", [g.node("Sub", [ax1, ax0]), g.node("Sub", [ay1, ay0])])
    area_b = g.node("Mul", [g.node("Sub", [bx1, bx0]), g.node("Sub", [by1, by0])])
    union = g.node("Sub", [g.node("Add", [area_a, area_b]), inter])
    pos = g.node("Greater", [union, zero])
    safe = g.node("Where", [pos, union, g.scalar(1, dt)])
    return g.node("Where", [pos, g.node("Div", [inter, safe]), zero])


@_reg("_contrib_box_decode")
def _box_decode(g, n, ins, e, w):
    # gluonlite's arithmetic in its order, on (..., 1) slices of the last axis
    p, dt = n.params, _np_dtype(g, n)
    d0, d1, d2, d3 = g.split(ins[0], -1, [1, 1, 1, 1])
    a0, a1, a2, a3 = g.split(ins[1], -1, [1, 1, 1, 1])
    half = g.scalar(0.5, dt)
    if p.format == "corner":
        aw, ah = g.node("Sub", [a2, a0]), g.node("Sub", [a3, a1])
        ax = g.node("Add", [a0, g.node("Mul", [aw, half])])
        ay = g.node("Add", [a1, g.node("Mul", [ah, half])])
    else:
        ax, ay, aw, ah = a0, a1, a2, a3
    std = [g.scalar(float(np.float32(v)), dt) for v in (p.std0, p.std1, p.std2, p.std3)]
    ox = g.node("Add", [g.node("Mul", [g.node("Mul", [d0, std[0]]), aw]), ax])
    oy = g.node("Add", [g.node("Mul", [g.node("Mul", [d1, std[1]]), ah]), ay])
    dw, dh = g.node("Mul", [d2, std[2]]), g.node("Mul", [d3, std[3]])
    clip = float(np.float32(p.clip))
    if clip > 0:
        dw, dh = (g.node("Min", [v, g.scalar(clip, dt)]) for v in (dw, dh))
    ow = g.node("Mul", [g.node("Mul", [g.node("Exp", [dw]), aw]), half])
    oh = g.node("Mul", [g.node("Mul", [g.node("Exp", [dh]), ah]), half])
    return g.node("Concat", [g.node("Sub", [ox, ow]), g.node("Sub", [oy, oh]),
                             g.node("Add", [ox, ow]), g.node("Add", [oy, oh])], axis=-1)


@_reg("_contrib_box_encode")
def _box_encode(g, n, ins, e, w):
    samples, matches, anchors, refs, means, stds = ins
    dt = _np_dtype(g, n)
    M = g.need_shape(n, 3)[1]
    m = g.node("Clip", [_indices(g, matches), g.const(np.int64(0)), g.const(np.int64(M - 1))])
    m4 = g.node("Expand", [g.unsqueeze(m, [2]), g.ints([1, 1, 4])])
    ref = g.node("GatherElements", [refs, m4], axis=1)  # (batch, N, 4): each anchor's match
    half = g.scalar(0.5, dt)

    def center(b):
        x0, y0, x1, y1 = g.split(b, -1, [1, 1, 1, 1])
        bw, bh = g.node("Sub", [x1, x0]), g.node("Sub", [y1, y0])
        return (g.node("Add", [x0, g.node("Mul", [bw, half])]),
                g.node("Add", [y0, g.node("Mul", [bh, half])]), bw, bh)
    rx, ry, rw, rh = center(ref)
    ax, ay, aw, ah = center(anchors)
    t = g.node("Concat", [g.node("Div", [g.node("Sub", [rx, ax]), aw]),
                          g.node("Div", [g.node("Sub", [ry, ay]), ah]),
                          g.node("Log", [g.node("Div", [rw, aw])]),
                          g.node("Log", [g.node("Div", [rh, ah])])], axis=-1)
    t = g.node("Div", [g.node("Sub", [t, means]), stds])
    valid = g.node("Cast", [g.node("Greater", [samples, g.scalar(0.5, dt)])],
                   to=onnx_dtype(dt))
    mask = g.node("Expand", [g.unsqueeze(valid, [2]), g.ints([1, 1, 4])])
    return [g.node("Mul", [t, mask]), mask]


# ---- sampling grids ----------------------------------------------------------------------------
def _affine_grid(g, theta, h, wd, dt):
    """(N, 2, h, wd): the (N, 6) affine matrices applied to the target's normalized grid."""
    theta = g.node("Reshape", [theta, g.ints([-1, 2, 3])])
    y = g.node("MatMul", [theta, g.const(np.asarray(_base_grid(np, h, wd, dt)))])
    return g.node("Reshape", [y, g.ints([-1, 2, h, wd])])


@_reg("GridGenerator")
def _grid_generator(g, n, ins, e, w):
    p, dt = n.params, _np_dtype(g, n)
    if p.transform_type == "affine":
        h, wd = p.target_shape
        return _affine_grid(g, ins[0], h, wd, dt)
    _, _, h, wd = g.need_shape(n, 0)
    ys, xs = np.meshgrid(np.arange(h, dtype=dt), np.arange(wd, dtype=dt), indexing="ij")
    scale = np.asarray([max(wd - 1, 1) / 2.0, max(h - 1, 1) / 2.0], dtype=dt)
    y = g.node("Add", [ins[0], g.const(np.stack([xs, ys])[None])])
    y = g.node("Div", [y, g.const(scale[None, :, None, None])])
    return g.node("Sub", [y, g.scalar(1, dt)])


def _bilinear_sample(g, data, grid, dshape, gshape, dt):
    """gluonlite's BilinearSampler: the four neighbours of each grid point (x, y in [-1, 1],
    corners aligned), those outside the image zero, weighted and summed in its order;
    GatherElements on the flattened image (GridSample needs opset 16)."""
    n, c, h, wd = dshape
    oh, ow = gshape[2:]

    def coord(k, size):
        v = g.node("Slice", [grid, g.ints([k]), g.ints([k + 1]), g.ints([1])])  # (n,1,oh,ow)
        v = g.node("Mul", [g.node("Add", [v, g.scalar(1, dt)]), g.scalar(size - 1, dt)])
        return g.node("Div", [v, g.scalar(2, dt)])
    x, y = coord(0, wd), coord(1, h)
    x0, y0 = g.node("Floor", [x]), g.node("Floor", [y])
    fx, fy = g.node("Sub", [x, x0]), g.node("Sub", [y, y0])
    one = g.scalar(1, dt)
    flat = g.node("Reshape", [data, g.ints([n, c, h * wd])])
    out = None
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        xi = g.node("Add", [x0, g.scalar(dx, dt)]) if dx else x0
        yi = g.node("Add", [y0, g.scalar(dy, dt)]) if dy else y0
        valid = g.node("And", [
            g.node("And", [g.node("GreaterOrEqual", [xi, g.scalar(0, dt)]),
                           g.node("Less", [xi, g.scalar(wd, dt)])]),
            g.node("And", [g.node("GreaterOrEqual", [yi, g.scalar(0, dt)]),
                           g.node("Less", [yi, g.scalar(h, dt)])])])
        pos = g.node("Add", [g.node("Mul", [yi, g.scalar(wd, dt)]), xi])
        idx = g.node("Cast", [g.node("Where", [valid, pos, g.scalar(0, dt)])],
                     to=onnx_dtype(np.int64))
        idx = g.node("Expand", [g.node("Reshape", [idx, g.ints([n, 1, oh * ow])]),
                                g.ints([n, c, oh * ow])])
        v = g.node("Reshape", [g.node("GatherElements", [flat, idx], axis=2),
                               g.ints([n, c, oh, ow])])
        v = g.node("Mul", [v, g.node("Cast", [valid], to=onnx_dtype(dt))])
        wx = fx if dx else g.node("Sub", [one, fx])
        wy = fy if dy else g.node("Sub", [one, fy])
        term = g.node("Mul", [v, g.node("Mul", [wx, wy])])
        out = term if out is None else g.node("Add", [out, term])
    return out


@_reg("BilinearSampler")
def _bilinear_sampler(g, n, ins, e, w):
    return _bilinear_sample(g, ins[0], ins[1], g.need_shape(n, 0), g.need_shape(n, 1),
                            _np_dtype(g, n))


@_reg("SpatialTransformer")
def _spatial_transformer(g, n, ins, e, w):
    p, dt = n.params, _np_dtype(g, n)
    if p.transform_type != "affine" or p.sampler_type != "bilinear":
        raise ExportError(f"transform_type={p.transform_type!r}, sampler_type="
                          f"{p.sampler_type!r}: only affine bilinear is exported")
    h, wd = p.target_shape
    dshape = g.need_shape(n, 0)
    grid = _affine_grid(g, ins[1], h, wd, dt)
    return _bilinear_sample(g, ins[0], grid, dshape, (dshape[0], 2, h, wd), dt)


@_reg("ROIPooling")
def _roi_pooling(g, n, ins, e, w):
    # Caffe's ROI max pooling, which ONNX MaxRoiPool and MXNet share: rounded ROI corners,
    # bins floor/ceil-bounded, an empty bin gives 0
    p = n.params
    return g.node("MaxRoiPool", ins[:2], pooled_shape=[int(v) for v in p.pooled_size],
                  spatial_scale=float(p.spatial_scale))


@_reg("_contrib_ROIAlign")
def _roi_align(g, n, ins, e, w):
    # ONNX RoiAlign: the same bilinear samples averaged per bin; its batch index is an input
    # of its own. Without `aligned` it is ONNX's output_half_pixel (the default before 16).
    p = n.params
    if p.position_sensitive:
        raise ExportError("position_sensitive=True has no ONNX RoiAlign form")
    attrs = dict(mode="avg", output_height=int(p.pooled_size[0]),
                 output_width=int(p.pooled_size[1]), sampling_ratio=max(int(p.sample_ratio), 0),
                 spatial_scale=float(p.spatial_scale))
    if p.aligned:
        if g.opset < 16:
            raise ExportError("aligned=True needs opset 16 (RoiAlign's half_pixel); pass "
                              "opset_version=16")
        attrs["coordinate_transformation_mode"] = "half_pixel"
    elif g.opset >= 16:
        attrs["coordinate_transformation_mode"] = "output_half_pixel"
    rois = ins[1]
    batch = g.node("Reshape", [g.node("Slice", [rois, g.ints([0]), g.ints([1]), g.ints([1])]),
                               g.ints([-1])])
    boxes = g.node("Slice", [rois, g.ints([1]), g.ints([5]), g.ints([1])])
    return g.node("RoiAlign", [ins[0], boxes, _indices(g, batch)], **attrs)


@_reg("Correlation")
def _correlation(g, n, ins, e, w):
    # per displacement: the product (or |difference|) of data1 with data2 shifted, averaged
    # over channels, then over each k x k window (stride1): one output channel each
    p = n.params
    shape = g.need_shape(n, 0)
    rows, cols, disp = _corr_windows(p, shape)
    k, s1, md = int(p.kernel_size), int(p.stride1), int(p.max_displacement)
    a, b = ins[0], ins[1]
    if p.pad_size:
        pads = g.ints([0, 0, p.pad_size, p.pad_size] * 2)
        a, b = g.node("Pad", [a, pads]), g.node("Pad", [b, pads])
    span_h, span_w = (len(rows) - 1) * s1 + k, (len(cols) - 1) * s1 + k
    wa = g.node("Slice", [a, g.ints([md, md]), g.ints([md + span_h, md + span_w]),
                          g.ints([2, 3])])
    outs = []
    for dy, dx in disp:
        wb = g.node("Slice", [b, g.ints([md + dy, md + dx]),
                              g.ints([md + dy + span_h, md + dx + span_w]), g.ints([2, 3])])
        v = g.node("Mul", [wa, wb]) if p.is_multiply else \
            g.node("Abs", [g.node("Sub", [wa, wb])])
        v = g.reduce("ReduceMean", v, [1], True)
        outs.append(g.node("AveragePool", [v], kernel_shape=[k, k], strides=[s1, s1]))
    return outs[0] if len(outs) == 1 else g.node("Concat", outs, axis=1)
