"""ONNX -> gluonlite: `import_model` (a Symbol and its parameters) and `import_to_gluon`.

One importer per ONNX op type in `IMPORTERS` (``fn(b, node, ins, attrs) -> Symbol(s)``).
Tensors whose value is known at import (initializers, ``Constant`` and every node whose
inputs are all known, evaluated once with ONNX's reference evaluator) are kept as numpy
values, so shape/axes inputs become attributes and weights computed from initializers
(as `export_model` writes the fused RNN's) become parameters. ``Scan``/``If``/``Loop`` become
``foreach``/``cond``/``while_loop`` with their bodies converted the same way.
"""
import numpy as np

from .. import symbol as S, cpu, gluon
from ..gluon.symbol_block import SymbolBlock
from ..symbol.symbol import apply_op

__all__ = ["import_model", "import_to_gluon", "ONNXImportError", "IMPORTERS",
           "MAX_FOLDED_BYTES"]

IMPORTERS = {}
_MIN_OPSET, _MAX_OPSET = 13, 21
# A value computed at import may be at most this large, or as large as the constants it is
# computed from (a Transpose of a big weight): a 400-byte ConstantOfShape must not build
# gigabytes. Past it the import fails, naming the node, its shape and the size.
MAX_FOLDED_BYTES = 256 << 20


class ONNXImportError(ValueError):
    """An ONNX model this importer cannot take (unsupported operators named all at once).

    Example::

        try:
            mx.onnx.import_model("missing.onnx")
        except mx.onnx.ONNXImportError as err:
            print(err)   # import_model: 'missing.onnx' is not an ONNX model (...)
    """


def _reg(*names):
    def deco(fn):
        for n in names:
            IMPORTERS[n] = fn
        return fn
    return deco


class _Builder:
    """Names -> Symbols (or numpy constants) for one graph, chained to the outer scope."""

    def __init__(self, outer=None, params=None):
        self.outer = outer
        self.syms, self.consts = {}, {}
        self.params = params if params is not None else (outer.params if outer else {})
        self._k = [0] if outer is None else outer._k
        self.input_shapes = {} if outer is None else outer.input_shapes
        self.shape_src = {}  # name of a Shape(x) output -> x (for ConstantOfShape)
        self.producers = {}  # tensor name -> the ONNX node writing it (shape expressions)
        self.opset = 13 if outer is None else outer.opset  # the model's, set by import_model
        self.max_folded = MAX_FOLDED_BYTES if outer is None else outer.max_folded

    def lookup_const(self, name):
        b = self
        while b is not None:
            if name in b.consts:
                return b.consts[name]
            if name in b.syms:
                return None
            b = b.outer
        return None

    def sym(self, name):
        """The Symbol of tensor `name` (a constant becomes a parameter variable)."""
        b = self
        while b is not None:
            if name in b.syms:
                return b.syms[name]
            if name in b.consts:
                return b.param_of(name, b.consts[name])
            b = b.outer
        raise ONNXImportError(f"import_model: tensor {name!r} is used before it is defined")

    def param_of(self, name, value):
        value = np.asarray(value)
        if value.ndim == 0:
            value = value.reshape(1)
        self._k[0] += 1
        pname = _clean(name)
        while pname in self.params:
            pname = f"{_clean(name)}_{self._k[0]}"
            self._k[0] += 1
        self.params[pname] = value
        s = S.var(pname, shape=value.shape, dtype=value.dtype)
        self.syms[name] = s
        return s


def _clean(name):
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name) or "t"


def _str_attr(a, key, default):
    """A string attribute of `a` (onnx gives bytes) or `default`."""
    v = a.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _fold(node, values):
    from onnx.reference import ReferenceEvaluator
    feeds = {nm: v for nm, v in zip(node.input, values) if nm}
    return ReferenceEvaluator(node).run(None, feeds)


def _nbytes_text(nbytes):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes / (1 << shift):.1f} {unit}"
    return f"{nbytes} bytes"


def _folded_shapes(node, values, opset):
    """{output name: (shape, dtype)} that ONNX's shape inference gives for `node` on the
    constant `values`, before anything is computed; {} where it cannot tell."""
    import onnx
    from onnx import helper, numpy_helper, shape_inference
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain or "")
        types, data = {}, {}
        for nm, v in zip(node.input, values):
            if nm:
                v = np.asarray(v)
                types[nm] = helper.make_tensor_type_proto(
                    helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                if v.size <= 1024:  # shapes, repeats, pads: what sizes depend on
                    data[nm] = numpy_helper.from_array(v, nm)
        outs = shape_inference.infer_node_outputs(schema, node, types, data)
    except Exception:  # no schema, an inference error: folding will show the real size
        return {}
    shapes = {}
    for nm, t in outs.items():
        dims = t.tensor_type.shape.dim
        if t.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            shapes[nm] = (tuple(d.dim_value for d in dims),
                          helper.tensor_dtype_to_np_dtype(t.tensor_type.elem_type))
    return shapes


def _fold_checked(node, values, opset, limit):
    """`_fold`, refusing (ONNXImportError naming the output, shape and size) an output larger
    than MAX_FOLDED_BYTES and than the constants it comes from: before computing it when
    shape inference knows its shape, else as soon as it exists."""
    allowed = max(limit, sum(np.asarray(v).nbytes for v in values if v is not None))

    def refuse(name, shape, dtype, nbytes):
        return ONNXImportError(
            f"its output {name!r} would be a constant of shape {tuple(shape)} and dtype "
            f"{np.dtype(dtype).name} ({_nbytes_text(nbytes)}), computed at import; expected at "
            f"most {_nbytes_text(allowed)} (import_model's max_folded_bytes, or the size of "
            "its inputs)")
    for name, (shape, dtype) in _folded_shapes(node, values, opset).items():
        nbytes = int(np.prod(shape, dtype=np.float64)) * np.dtype(dtype).itemsize
        if nbytes > allowed:
            raise refuse(name, shape, dtype, nbytes)
    try:
        outs = _fold(node, values)
    except MemoryError:
        raise ONNXImportError("computing its constant output at import ran out of "
                              "memory") from None
    for name, v in zip(node.output, outs):
        v = np.asarray(v)
        if v.nbytes > allowed:
            raise refuse(name, v.shape, v.dtype, v.nbytes)
    return outs


_NO_FOLD = {"Scan", "Loop", "If", "RandomNormal", "RandomUniform", "RandomNormalLike",
            "RandomUniformLike", "Multinomial", "Bernoulli"}


_MALFORMED = (IndexError, KeyError, TypeError, ValueError, AttributeError)


def convert_graph(b, graph, errors, where=""):
    """Convert `graph`'s nodes into builder `b`; returns its output Symbols (or constants)."""
    from onnx import numpy_helper
    for init in graph.initializer:
        try:
            b.consts[init.name] = numpy_helper.to_array(init)
        except _MALFORMED as e:
            raise ONNXImportError(f"import_model: initializer {init.name!r} is malformed: "
                                  f"{type(e).__name__}: {e}") from None
    for node in graph.node:
        try:
            _convert_node(b, node, errors, where)
        except ONNXImportError:
            raise
        except _MALFORMED as e:
            # a node that breaks its operator's schema (too few inputs, a missing or
            # mistyped attribute): the model is malformed there
            errors.append((_text(node.op_type), where + _text(node.name or _first(node.output)),
                           f"malformed node ({len(node.input)} input(s), attributes "
                           f"{sorted(_text(a.name) for a in node.attribute)}): "
                           f"{type(e).__name__}: {e}"))
            for nm in node.output:
                b.syms[nm] = None
    return [b.sym(o.name) for o in graph.output]


def _convert_node(b, node, errors, where):
    """Convert one node into `b`: a constant, a folded value, or the importer's Symbols;
    what cannot be converted is appended to `errors`."""
    from onnx import numpy_helper
    name = where + _text(node.name or _first(node.output))
    for nm in node.output:
        b.producers[nm] = node
    if node.op_type == "Constant":
        attrs = _attrs(node)
        if "value" not in attrs:
            errors.append((node.op_type, name, "only Constant(value=...)"))
            return
        b.consts[_first(node.output)] = numpy_helper.to_array(attrs["value"])
        return
    consts = [b.lookup_const(nm) if nm else None for nm in node.input]
    if (node.op_type not in _NO_FOLD and node.input
            and all(c is not None for nm, c in zip(node.input, consts) if nm)):
        try:
            outs = _fold_checked(node, consts, b.opset, b.max_folded)
        except ONNXImportError as e:
            errors.append((node.op_type, name, str(e)))
            for nm in node.output:
                b.syms[nm] = None
            return
        except Exception as e:  # an op the reference evaluator lacks: convert it instead
            outs = None
            why = e
        if outs is not None:
            for nm, v in zip(node.output, outs):
                b.consts[nm] = np.asarray(v)
            return
        if node.op_type not in IMPORTERS:
            errors.append((node.op_type, name, f"cannot evaluate: {why}"))
            return
    fn = IMPORTERS.get(node.op_type)
    if fn is None:
        errors.append((node.op_type, name, "no importer for this ONNX operator"))
        for nm in node.output:
            b.syms[nm] = None
        return
    try:
        ins = [_Input(b, nm) if nm else None for nm in node.input]
        outs = fn(b, node, ins, _attrs(node))
    except ONNXImportError as e:
        errors.append((node.op_type, name, str(e)))
        outs = None
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    for nm, o in zip(node.output, outs):
        if isinstance(o, np.ndarray):  # an importer that could compute the value
            b.consts[nm] = o
        else:
            b.syms[nm] = o


def _first(names):
    return _text(names[0]) if names else "<no output>"


def _text(value):
    """A name from the file as str (a corrupt file may hold bytes that are not UTF-8)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class _Input:
    """A node input: `.sym` its Symbol, `.const` its numpy value when known."""

    def __init__(self, b, name):
        self.b, self.name = b, name
        self.const = b.lookup_const(name)

    @property
    def sym(self):
        s = self.b.sym(self.name)
        if s is None:
            raise ONNXImportError(f"input {self.name!r} comes from an operator that failed")
        return s


def _need_const(x, what):
    if x is None or x.const is None:
        raise ONNXImportError(f"{what} must be a constant (known at import)")
    return x.const


# ---- elementwise -----------------------------------------------------------------------------
_UNARY = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log",
          "Sqrt": "sqrt", "Abs": "abs", "Neg": "negative", "Floor": "floor", "Ceil": "ceil",
          "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "arcsin", "Acos": "arccos",
          "Atan": "arctan", "Sinh": "sinh", "Cosh": "cosh", "Asinh": "arcsinh",
          "Acosh": "arccosh", "Atanh": "arctanh", "Erf": "erf", "Reciprocal": "reciprocal",
          "Sign": "sign", "Softsign": "softsign", "Softplus": "softrelu", "Identity": "_copy",
          "Not": "logical_not", "Dropout": "_copy"}
for _op, _name in _UNARY.items():
    IMPORTERS[_op] = (lambda name: lambda b, n, ins, a: getattr(S, name)(ins[0].sym))(_name)

_BINARY = {"Add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
           "Sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
           "Mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
           "Div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
           "Pow": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
           "Max": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
           "Min": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar"),
           "Equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar"),
           "Less": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
           "Greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar"),
           "LessOrEqual": ("broadcast_lesser_equal", "_lesser_equal_scalar",
                           "_greater_equal_scalar"),
           "GreaterOrEqual": ("broadcast_greater_equal", "_greater_equal_scalar",
                              "_lesser_equal_scalar"),
           "And": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar"),
           "Or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar"),
           "Xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar")}


def _call(name, *args, **kw):
    return apply_op(name, *args, **kw)


def _binary(b, n, ins, a, names):
    full, right, left = names
    x, y = ins[0], ins[1]
    if y.const is not None and y.const.size == 1:
        return _call(right, x.sym, scalar=float(y.const.reshape(-1)[0]))
    if x.const is not None and x.const.size == 1:
        return _call(left, y.sym, scalar=float(x.const.reshape(-1)[0]))
    return _call(full, x.sym, y.sym)


for _op, _names in _BINARY.items():
    IMPORTERS[_op] = (lambda names: lambda b, n, ins, a: _binary(b, n, ins, a, names))(_names)


@_reg("Sum")
def _sum(b, n, ins, a):
    return _call("add_n", *[x.sym for x in ins], num_args=len(ins))


@_reg("Cast")
def _cast(b, n, ins, a):
    from onnx import helper
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(a["to"]))
    if dt == np.bool_:  # booleans stay 0/1 numbers, as MXNet's comparisons give them
        return _call("_not_equal_scalar", ins[0].sym, scalar=0.0)
    return _call("Cast", ins[0].sym, dtype=dt.name)


@_reg("Where")
def _where(b, n, ins, a):
    # ONNX broadcasts the three; gluonlite's where takes one shape (or a row condition)
    shapes = []
    for x in ins:
        try:
            shapes.append(x.const.shape if x.const is not None else
                          _static_shape(b, x.sym, "Where"))
        except ONNXImportError:
            shapes.append(None)
    syms = [x.sym for x in ins]
    if None not in shapes and len(set(shapes)) > 1:
        full = tuple(int(d) for d in np.broadcast_shapes(*shapes))
        for k, sh in enumerate(shapes):
            if sh != full:
                y = _call("Reshape", syms[k], shape=(1,) * (len(full) - len(sh)) + tuple(sh))
                syms[k] = _call("broadcast_to", y, shape=full)
    return _call("where", *syms)


@_reg("Clip")
def _clip(b, n, ins, a):
    lo = float(ins[1].const) if len(ins) > 1 and ins[1] is not None else -np.inf
    hi = float(ins[2].const) if len(ins) > 2 and ins[2] is not None else np.inf
    return _call("clip", ins[0].sym, a_min=lo, a_max=hi)


@_reg("LeakyRelu")
def _leaky(b, n, ins, a):
    return _call("LeakyReLU", ins[0].sym, act_type="leaky", slope=a.get("alpha", 0.01))


@_reg("Elu")
def _elu(b, n, ins, a):
    return _call("LeakyReLU", ins[0].sym, act_type="elu", slope=a.get("alpha", 1.0))


@_reg("Softmax", "LogSoftmax")
def _softmax(b, n, ins, a):
    name = "softmax" if n.op_type == "Softmax" else "log_softmax"
    return _call(name, ins[0].sym, axis=a.get("axis", -1))


# ---- dense and convolution -------------------------------------------------------------------
@_reg("Gemm")
def _gemm(b, n, ins, a):
    A, B = ins[0], ins[1]
    C = ins[2] if len(ins) > 2 else None
    ta, tb = a.get("transA", 0), a.get("transB", 0)
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    if not ta and alpha == 1.0 and beta == 1.0 and B.const is not None and B.const.ndim == 2:
        w = B.const if tb else B.const.T
        wsym = b.param_of(n.input[1] + "_fc", w)
        args = [A.sym, wsym] + ([C.sym] if C is not None else [])
        return _call("FullyConnected", *args, num_hidden=w.shape[0], no_bias=C is None)
    y = _call("dot", A.sym, B.sym, transpose_a=bool(ta), transpose_b=bool(tb))
    if alpha != 1.0:
        y = _call("_mul_scalar", y, scalar=alpha)
    if C is not None:
        c = C.sym if beta == 1.0 else _call("_mul_scalar", C.sym, scalar=beta)
        y = _call("broadcast_add", y, c)
    return y


@_reg("MatMul")
def _matmul(b, n, ins, a):
    if ins[1].const is not None and ins[1].const.ndim == 2:
        return _call("dot", ins[0].sym, ins[1].sym)
    try:
        sa, sb = _shape_of(b, ins[0], "MatMul"), _shape_of(b, ins[1], "MatMul")
    except ONNXImportError:
        sa = sb = None
    if sb is not None and len(sb) == 2 and len(sa) >= 2:  # (..., K) @ (K, M)
        return _call("dot", ins[0].sym, ins[1].sym)
    return _call("_linalg_gemm2", ins[0].sym, ins[1].sym)


def _conv_attrs(a, k, asymmetric=False):
    """MXNet's kernel/stride/dilate/pad of an ONNX Conv/Pool; with `asymmetric`, also the
    extra (end - begin) padding per axis that MXNet's symmetric pad cannot give."""
    nd = len(k)
    pads = list(a.get("pads", [0] * 2 * nd))
    if pads[:nd] != pads[nd:] and not asymmetric:
        raise ONNXImportError(f"asymmetric pads {pads} have no MXNet form")
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ONNXImportError(f"auto_pad={a['auto_pad']!r} is not imported; give explicit pads")
    kw = dict(kernel=tuple(k), stride=tuple(a.get("strides", [1] * nd)),
              dilate=tuple(a.get("dilations", [1] * nd)),
              pad=tuple(min(pads[i], pads[nd + i]) for i in range(nd)))
    if not asymmetric:
        return kw
    return kw, [(pads[i] - kw["pad"][i], pads[nd + i] - kw["pad"][i]) for i in range(nd)]


def _pad_extra(x, extra, value):
    """x (N, C, spatial...) padded by the (before, after) pairs `extra` on its spatial axes:
    the part of an asymmetric ONNX padding beyond the symmetric one MXNet takes."""
    if not any(v for pair in extra for v in pair):
        return x
    if len(extra) not in (2, 3):
        raise ONNXImportError("asymmetric pads are imported for 2-D and 3-D windows only")
    width = (0, 0, 0, 0) + tuple(v for pair in extra for v in pair)
    return _call("Pad", x, mode="constant", pad_width=width, constant_value=value)


@_reg("Conv")
def _conv(b, n, ins, a):
    ws = _shape_of(b, ins[1], "Conv's weight")
    kw, extra = _conv_attrs(a, a.get("kernel_shape", ws[2:]), asymmetric=True)
    x = _pad_extra(ins[0].sym, extra, 0.0)
    args = [x, ins[1].sym] + ([ins[2].sym] if len(ins) > 2 and ins[2] else [])
    return _call("Convolution", *args, num_filter=ws[0], num_group=a.get("group", 1),
                 no_bias=len(args) == 2, **kw)


@_reg("ConvTranspose")
def _deconv(b, n, ins, a):
    ws = _shape_of(b, ins[1], "ConvTranspose's weight")
    g = a.get("group", 1)
    kw = _conv_attrs(a, a.get("kernel_shape", ws[2:]))
    args = [ins[0].sym, ins[1].sym] + ([ins[2].sym] if len(ins) > 2 and ins[2] else [])
    adj = tuple(a.get("output_padding", [0] * len(kw["kernel"])))
    return _call("Deconvolution", *args, num_filter=ws[1] * g, num_group=g,
                 no_bias=len(args) == 2, adj=adj, **kw)


@_reg("MaxPool", "AveragePool", "LpPool")
def _pool(b, n, ins, a):
    k = a["kernel_shape"]
    t = {"MaxPool": "max", "AveragePool": "avg", "LpPool": "lp"}[n.op_type]
    kw, extra = _conv_attrs(a, k, asymmetric=True)
    if t != "max" and any(v for pair in extra for v in pair):
        raise ONNXImportError(f"asymmetric pads {list(a['pads'])} have no MXNet form for "
                              f"{n.op_type}")
    # max pooling pads with -inf, so the asymmetric part padded ahead changes nothing
    x = _pad_extra(ins[0].sym, extra, float("-inf")) if t == "max" else ins[0].sym
    kw.pop("dilate")
    if any(d != 1 for d in a.get("dilations", [1] * len(k))):
        raise ONNXImportError("dilated pooling has no MXNet form")
    opts = {}
    if t == "avg":
        opts["count_include_pad"] = bool(a.get("count_include_pad", 0))
    if t == "lp":
        opts["p_value"] = a.get("p", 2)
    return _call("Pooling", x, pool_type=t,
                 pooling_convention="full" if a.get("ceil_mode", 0) else "valid", **kw, **opts)


@_reg("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(b, n, ins, a):
    t = "avg" if n.op_type == "GlobalAveragePool" else "max"
    return _call("Pooling", ins[0].sym, pool_type=t, global_pool=True, kernel=(1, 1))


@_reg("BatchNormalization")
def _batchnorm(b, n, ins, a):
    return _call("BatchNorm", *[x.sym for x in ins[:5]], eps=a.get("epsilon", 1e-5),
                 fix_gamma=False, use_global_stats=True)


@_reg("InstanceNormalization")
def _instnorm(b, n, ins, a):
    return _call("InstanceNorm", *[x.sym for x in ins[:3]], eps=a.get("epsilon", 1e-5))


@_reg("LayerNormalization")
def _layernorm(b, n, ins, a):
    rank = len(_shape_of(b, ins[0], "LayerNormalization"))
    axis = a.get("axis", -1) % rank
    if axis != rank - 1:
        raise ONNXImportError("LayerNormalization over more than the last axis is not imported")
    if len(n.output) > 1 and any(n.output[1:]):
        raise ONNXImportError("LayerNormalization's mean and inverse-deviation outputs are not "
                              "imported")
    scale = ins[1].sym
    bias = ins[2].sym if len(ins) > 2 and ins[2] is not None else _call("zeros_like", scale)
    return _call("LayerNorm", ins[0].sym, scale, bias, axis=-1, eps=a.get("epsilon", 1e-5))


# ---- shape -----------------------------------------------------------------------------------
@_reg("Flatten")
def _flatten(b, n, ins, a):
    axis = a.get("axis", 1)
    if axis == 1:
        return _call("Flatten", ins[0].sym)
    shape = _shape_of(b, ins[0], f"Flatten(axis={axis})")
    axis %= len(shape) if axis < 0 else len(shape) + 1
    lead = int(np.prod(shape[:axis], dtype=np.int64))
    return _call("Reshape", ins[0].sym, shape=(lead, -1))


def _shape_entries(b, name, depth=0):
    """The entries of a 1-D shape tensor `name` as ints or ("dim", Symbol, i) (dimension i of
    a tensor's runtime shape), followed through Concat/Unsqueeze/Gather of Shape; None when
    it is anything else."""
    c = b.lookup_const(name)
    if c is not None:
        return [int(v) for v in np.asarray(c).reshape(-1)]
    node = b.producers.get(name)
    if node is None or depth > 8:
        return None
    if node.op_type == "Concat":
        out = []
        for nm in node.input:
            part = _shape_entries(b, nm, depth + 1)
            if part is None:
                return None
            out += part
        return out
    if node.op_type in ("Unsqueeze", "Squeeze", "Identity", "Cast"):
        return _shape_entries(b, node.input[0], depth + 1)
    if node.op_type == "Gather" and b.producers.get(node.input[0]) is not None and \
            b.producers[node.input[0]].op_type == "Shape":
        idx = b.lookup_const(node.input[1])
        src = b.shape_src.get(node.input[0])
        if idx is None or src is None or _attrs(b.producers[node.input[0]]).get("start", 0):
            return None
        return [("dim", src, int(i)) for i in np.asarray(idx).reshape(-1)]
    return None


def _runtime_reshape(b, n, ins):
    """Reshape to a shape computed from the data's own runtime dimensions (PyTorch's
    ``x.view(x.size(0), -1)`` with a dynamic batch) as MXNet's codes: 0 copies a dimension
    kept in place."""
    entries = _shape_entries(b, n.input[1])
    if entries is None:
        raise ONNXImportError("Reshape's shape must be a constant (known at import) or built "
                              "from the data's own dimensions")
    codes = []
    for k, e in enumerate(entries):
        if isinstance(e, tuple):
            if e[1] is not ins[0].sym or e[2] != k:
                raise ONNXImportError("Reshape's shape takes a runtime dimension other than the "
                                      "data's own at the same place")
            codes.append(0)
        else:
            if e == 0:
                raise ONNXImportError("Reshape with a 0 next to runtime dimensions is not "
                                      "imported")
            codes.append(e)
    return _call("Reshape", ins[0].sym, shape=tuple(codes))


@_reg("Reshape")
def _reshape(b, n, ins, a):
    if ins[1].const is None:
        return _runtime_reshape(b, n, ins)
    shape = tuple(int(v) for v in _need_const(ins[1], "Reshape's shape"))
    if shape == ():  # to a scalar: MXNet 1.x keeps one element as shape (1,)
        shape = (1,)
    if a.get("allowzero", 0) and 0 in shape:
        raise ONNXImportError("Reshape(allowzero=1) with a 0 is not imported")
    return _call("Reshape", ins[0].sym, shape=shape)


@_reg("Shape")
def _shape(b, n, ins, a):
    x = ins[0].sym
    try:  # static input shapes: the shape is a constant, as ONNX Runtime would fold it
        _, out, _ = x.infer_shape_partial(**{k: v for k, v in b.input_shapes.items()
                                             if k in x.list_inputs()})
        if out and out[0] and all(d > 0 for d in out[0]):
            shape = np.array(out[0], dtype=np.int64)
            start, end = a.get("start", 0), a.get("end")
            return shape[start:end]
    except Exception:  # inside a loop body the inputs' shapes are not known here
        pass
    b.shape_src[n.output[0]] = x
    return _call("shape_array", x)


@_reg("ConstantOfShape")
def _constant_of_shape(b, n, ins, a):
    from onnx import numpy_helper
    value = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
    src, k = None, b
    while k is not None and src is None:
        src, k = k.shape_src.get(n.input[0]), k.outer
    if src is None:
        raise ONNXImportError("ConstantOfShape of a shape not known at import, nor Shape(x)")
    y = _call("zeros_like", src)
    if value.reshape(-1)[0] != 0:
        y = _call("_plus_scalar", y, scalar=float(value.reshape(-1)[0]))
    return y if value.dtype == np.float32 else _call("Cast", y, dtype=value.dtype.name)


@_reg("Transpose")
def _transpose(b, n, ins, a):
    perm = a.get("perm")
    return _call("transpose", ins[0].sym, axes=tuple(perm) if perm is not None else ())


@_reg("Concat")
def _concat(b, n, ins, a):
    return _call("Concat", *[x.sym for x in ins], dim=a["axis"], num_args=len(ins))


@_reg("Split")
def _split(b, n, ins, a):
    axis = a.get("axis", 0)
    sizes = a.get("split")
    if sizes is None and len(ins) > 1 and ins[1] is not None:
        sizes = [int(v) for v in ins[1].const]
    k = len(n.output)
    if sizes is None or len(set(sizes)) == 1:
        out = _call("SliceChannel", ins[0].sym, num_outputs=k, axis=axis)
        return [out[i] for i in range(k)]
    starts = np.cumsum([0] + list(sizes))
    return [_call("slice_axis", ins[0].sym, axis=axis, begin=int(starts[i]),
                  end=int(starts[i + 1])) for i in range(k)]


def _axes(ins, a, what):
    if len(ins) > 1 and ins[1] is not None:
        return [int(v) for v in _need_const(ins[1], f"{what}'s axes")]
    return a.get("axes")


@_reg("Squeeze")
def _squeeze(b, n, ins, a):
    axes = _axes(ins, a, "Squeeze")
    return _call("squeeze", ins[0].sym, axis=None if axes is None else tuple(axes))


@_reg("Unsqueeze")
def _unsqueeze(b, n, ins, a):
    y = ins[0].sym
    for ax in sorted(_axes(ins, a, "Unsqueeze")):
        y = _call("expand_dims", y, axis=ax)
    return y


@_reg("Slice")
def _slice(b, n, ins, a):
    starts = _need_const(ins[1], "Slice's starts")
    ends = _need_const(ins[2], "Slice's ends")
    axes = ins[3].const if len(ins) > 3 and ins[3] is not None else range(len(starts))
    steps = ins[4].const if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    y = ins[0].sym
    big = 2 ** 30
    for s, e, ax, st in zip(starts, ends, axes, steps):
        s, e, ax, st = int(s), int(e), int(ax), int(st)
        if st == 1:
            y = _call("slice_axis", y, axis=ax, begin=s, end=None if e >= big else e)
        elif st == -1 and s == -1 and e <= -big:
            y = _call("reverse", y, axis=ax)
        else:  # a strided slice along one axis
            rank = len(_shape_of(b, ins[0], "a strided Slice"))
            ax %= rank
            begin = [None] * rank
            end = [None] * rank
            step = [None] * rank
            begin[ax] = None if (st < 0 and s >= big) or (st > 0 and s <= -big) else s
            end[ax] = None if abs(e) >= big else e
            step[ax] = st
            y = _call("slice", y, begin=tuple(begin), end=tuple(end), step=tuple(step))
    return y


@_reg("Gather")
def _gather(b, n, ins, a):
    axis = a.get("axis", 0)
    if axis == 0 and ins[0].const is not None and ins[0].const.ndim == 2:
        w = ins[0].const
        return _call("Embedding", ins[1].sym, ins[0].sym, input_dim=w.shape[0],
                     output_dim=w.shape[1])
    return _call("take", ins[0].sym, ins[1].sym, axis=axis)


_REDUCE = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min",
           "ReduceProd": "prod"}


@_reg(*_REDUCE)
def _reduce(b, n, ins, a):
    axes = _axes(ins, a, n.op_type)
    kw = {"keepdims": bool(a.get("keepdims", 1))}
    if axes is not None:
        kw["axis"] = tuple(axes)
    return _call(_REDUCE[n.op_type], ins[0].sym, **kw)


@_reg("Pad")
def _pad(b, n, ins, a):
    pads = [int(v) for v in _need_const(ins[1], "Pad's pads")]
    if not any(pads):
        return _call("_copy", ins[0].sym)
    r = len(pads) // 2
    width = tuple(v for i in range(r) for v in (pads[i], pads[r + i]))
    value = float(ins[2].const) if len(ins) > 2 and ins[2] is not None else 0.0
    mode = a.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    return _call("Pad", ins[0].sym, mode=mode, pad_width=width, constant_value=value)


def _shape_of(b, x, what):
    """The shape of input `x` (a constant's, or inferred from static input shapes)."""
    return tuple(x.const.shape) if x.const is not None else _static_shape(b, x.sym, what)


def _int_attr_or_input(ins, j, a, key, what):
    if len(ins) > j and ins[j] is not None:
        return [int(v) for v in np.asarray(_need_const(ins[j], what)).reshape(-1)]
    v = a.get(key)
    return None if v is None else list(v)


# ---- more operators the exporter writes --------------------------------------------------------
@_reg("ArgMax", "ArgMin")
def _argmax(b, n, ins, a):
    if a.get("select_last_index", 0):
        raise ONNXImportError("select_last_index=1 is not imported")
    y = _call("argmax" if n.op_type == "ArgMax" else "argmin", ins[0].sym,
              axis=a.get("axis", 0), keepdims=bool(a.get("keepdims", 1)))
    return _call("Cast", y, dtype="int64")


@_reg("Tile")
def _tile(b, n, ins, a):
    reps = tuple(int(v) for v in _need_const(ins[1], "Tile's repeats"))
    return _call("tile", ins[0].sym, reps=reps)


@_reg("HardSigmoid")
def _hard_sigmoid(b, n, ins, a):
    return _call("hard_sigmoid", ins[0].sym, alpha=a.get("alpha", 0.2), beta=a.get("beta", 0.5))


@_reg("PRelu")
def _prelu(b, n, ins, a):
    # relu(x) + slope * min(x, 0): exact, and the slope broadcasts as ONNX's does
    x = ins[0].sym
    neg = _call("broadcast_mul", ins[1].sym, _call("_minimum_scalar", x, scalar=0.0))
    return _call("broadcast_add", _call("relu", x), neg)


@_reg("Selu")
def _selu(b, n, ins, a):
    alpha, gamma = a.get("alpha", 1.67326319217681884765625), a.get("gamma",
                                                                     1.05070102214813232421875)
    x = ins[0].sym
    neg = _call("_mul_scalar", _call("expm1", _call("_minimum_scalar", x, scalar=0.0)),
                scalar=alpha)
    return _call("_mul_scalar", _call("broadcast_add", _call("relu", x), neg), scalar=gamma)


@_reg("ReduceL1", "ReduceL2")
def _reduce_norm(b, n, ins, a):
    axes = _int_attr_or_input(ins, 1, a, "axes", f"{n.op_type}'s axes")
    kw = {"keepdims": bool(a.get("keepdims", 1)), "ord": 1 if n.op_type == "ReduceL1" else 2}
    if axes is not None:
        kw["axis"] = tuple(axes)
    return _call("norm", ins[0].sym, **kw)


def _element_index(b, n, idx_input, ishape, axis, rank):
    """MXNet's (rank, *ishape) gather_nd/scatter_nd index of ONNX's element-wise `indices`
    along `axis`: the index grid of ishape with the axis's row replaced by the indices."""
    grid = np.indices(ishape, dtype=np.int64)
    rows = []
    for d in range(rank):
        if d == axis:
            rows.append(_call("expand_dims", _call("Cast", idx_input.sym, dtype="int64"),
                              axis=0))
        else:
            rows.append(b.param_of(f"{n.output[0]}_grid{d}", grid[d:d + 1]))
    return _call("Concat", *rows, dim=0, num_args=len(rows))


@_reg("GatherElements")
def _gather_elements(b, n, ins, a):
    shape = _shape_of(b, ins[0], "GatherElements")
    axis = a.get("axis", 0) % len(shape)
    ishape = _shape_of(b, ins[1], "GatherElements' indices")
    if ishape[axis] == 1:  # pick's form: one index along the axis
        idx = _call("squeeze", ins[1].sym, axis=(axis,))
        return _call("pick", ins[0].sym, idx, axis=axis, keepdims=True, mode="wrap")
    return _call("gather_nd", ins[0].sym, _element_index(b, n, ins[1], ishape, axis,
                                                         len(shape)))


@_reg("GatherND")
def _gather_nd(b, n, ins, a):
    if a.get("batch_dims", 0):
        raise ONNXImportError("batch_dims != 0 is not imported")
    rank = len(_shape_of(b, ins[1], "GatherND's indices"))
    idx = _call("transpose", ins[1].sym, axes=(rank - 1,) + tuple(range(rank - 1)))
    return _call("gather_nd", ins[0].sym, idx)


@_reg("OneHot")
def _one_hot(b, n, ins, a):
    if a.get("axis", -1) != -1:
        raise ONNXImportError("OneHot along an axis other than the last is not imported")
    depth = int(np.asarray(_need_const(ins[1], "OneHot's depth")).reshape(-1)[0])
    off, on = np.asarray(_need_const(ins[2], "OneHot's values")).reshape(-1)
    dt = np.asarray(ins[2].const).dtype
    return _call("one_hot", ins[0].sym, depth=depth, on_value=float(on), off_value=float(off),
                 dtype=dt.name)


@_reg("TopK")
def _topk(b, n, ins, a):
    k = int(np.asarray(_need_const(ins[1], "TopK's K")).reshape(-1)[0])
    y = _call("topk", ins[0].sym, axis=a.get("axis", -1), k=k, ret_typ="both",
              is_ascend=not a.get("largest", 1), dtype="float32")
    return [y[0], _call("Cast", y[1], dtype="int64")]


@_reg("DepthToSpace", "SpaceToDepth")
def _depth_space(b, n, ins, a):
    mode = a.get("mode", b"DCR")
    if n.op_type == "DepthToSpace" and mode not in (b"DCR", "DCR"):
        raise ONNXImportError(f"mode={mode!r} is not imported (DCR, MXNet's order)")
    name = "depth_to_space" if n.op_type == "DepthToSpace" else "space_to_depth"
    return _call(name, ins[0].sym, block_size=a["blocksize"])


@_reg("CumSum")
def _cumsum(b, n, ins, a):
    if a.get("exclusive", 0) or a.get("reverse", 0):
        raise ONNXImportError("exclusive or reverse CumSum is not imported")
    axis = int(np.asarray(_need_const(ins[1], "CumSum's axis")).reshape(-1)[0])
    return _call("_np_cumsum", ins[0].sym, axis=axis)


@_reg("Size")
def _size(b, n, ins, a):
    return _call("size_array", ins[0].sym)


@_reg("LRN")
def _lrn(b, n, ins, a):
    return _call("LRN", ins[0].sym, alpha=a.get("alpha", 1e-4), beta=a.get("beta", 0.75),
                 knorm=a.get("bias", 1.0), nsize=a["size"])


@_reg("MaxRoiPool")
def _max_roi_pool(b, n, ins, a):
    return _call("ROIPooling", ins[0].sym, ins[1].sym,
                 pooled_size=tuple(int(v) for v in a["pooled_shape"]),
                 spatial_scale=a.get("spatial_scale", 1.0))


@_reg("RoiAlign")
def _roi_align(b, n, ins, a):
    if _str_attr(a, "mode", "avg") != "avg":
        raise ONNXImportError("RoiAlign mode='max' has no MXNet form")
    ctm = _str_attr(a, "coordinate_transformation_mode",
                    "half_pixel" if b.opset >= 16 else "output_half_pixel")
    batch = _call("expand_dims", _call("Cast", ins[2].sym, dtype="float32"), axis=1)
    boxes = _call("Cast", ins[1].sym, dtype="float32")
    rois = _call("Concat", batch, boxes, dim=1, num_args=2)  # MXNet's (batch, x0, y0, x1, y1)
    ratio = int(a.get("sampling_ratio", 0))
    return _call("_contrib_ROIAlign", ins[0].sym, rois,
                 pooled_size=(int(a.get("output_height", 1)), int(a.get("output_width", 1))),
                 spatial_scale=a.get("spatial_scale", 1.0), sample_ratio=ratio or -1,
                 aligned=ctm == "half_pixel")


@_reg("Det")
def _det(b, n, ins, a):
    return _call("_linalg_det", ins[0].sym)


@_reg("Resize")
def _resize(b, n, ins, a):
    # the two forms MXNet has: nearest upsampling by one integer factor (UpSampling) and
    # bilinear resizing of the last two axes (BilinearResize2D, corners aligned or half-pixel)
    mode = _str_attr(a, "mode", "nearest")
    ctm = _str_attr(a, "coordinate_transformation_mode", "half_pixel")
    shape = _shape_of(b, ins[0], "Resize")
    if len(ins) > 3 and ins[3] is not None:
        out = [int(v) for v in _need_const(ins[3], "Resize's sizes")]
    else:
        scales = [float(v) for v in _need_const(ins[2], "Resize's scales")]
        out = [int(np.floor(d * sc)) for d, sc in zip(shape, scales)]
    if len(shape) != 4 or tuple(out[:2]) != tuple(shape[:2]):
        raise ONNXImportError("only Resize of the last two axes of a 4-D tensor is imported")
    if mode == "nearest":
        f = out[2] // shape[2]
        if (ctm, _str_attr(a, "nearest_mode", "round_prefer_floor")) != ("asymmetric", "floor") or \
                out[2] != f * shape[2] or out[3] != f * shape[3]:
            raise ONNXImportError("only nearest Resize by one integer factor (asymmetric, "
                                  "floor) is imported")
        return _call("UpSampling", ins[0].sym, scale=f, sample_type="nearest", num_args=1)
    if mode == "linear" and ctm in ("align_corners", "half_pixel"):
        return _call("_contrib_BilinearResize2D", ins[0].sym, height=out[2], width=out[3],
                     align_corners=ctm == "align_corners")
    raise ONNXImportError(f"Resize mode={mode!r}, coordinate_transformation_mode={ctm!r} "
                          "is not imported")


@_reg("ReverseSequence")
def _reverse_sequence(b, n, ins, a):
    if (a.get("batch_axis", 1), a.get("time_axis", 0)) != (1, 0):
        raise ONNXImportError("only ReverseSequence with time_axis=0, batch_axis=1 is imported")
    return _call("SequenceReverse", ins[0].sym, _call("Cast", ins[1].sym, dtype="float32"),
                 use_sequence_length=True)


# ---- scatters, masks, elementwise forms gluonlite composes ----------------------------------
def _static_shape(b, x, what):
    """x's shape from the graph inputs' static shapes (an error naming `what` if unknown)."""
    try:
        _, out, _ = x.infer_shape_partial(**{k: v for k, v in b.input_shapes.items()
                                             if k in x.list_inputs()})
    except Exception:
        out = None
    if not out or not out[0] or not all(d > 0 for d in out[0]):
        raise ONNXImportError(f"{what} needs its data's shape at import (static input shapes)")
    return tuple(int(d) for d in out[0])


@_reg("ScatterND")
def _scatter_nd(b, n, ins, a):
    if a.get("reduction", b"none") not in (b"none", "none"):
        raise ONNXImportError(f"reduction={a['reduction']!r} is not imported")
    shape = _static_shape(b, ins[0].sym, "ScatterND")
    rank = len(_static_shape(b, ins[1].sym, "ScatterND's indices")) if ins[1].const is None \
        else ins[1].const.ndim
    idx = _call("transpose", ins[1].sym, axes=(rank - 1,) + tuple(range(rank - 1)))
    return _call("_scatter_set_nd", ins[0].sym, ins[2].sym, idx, shape=shape)


@_reg("ScatterElements")
def _scatter_elements(b, n, ins, a):
    # as _scatter_set_nd at the full index of each update
    if a.get("reduction", b"none") not in (b"none", "none"):
        raise ONNXImportError(f"reduction={a['reduction']!r} is not imported")
    shape = _static_shape(b, ins[0].sym, "ScatterElements")
    ishape = _shape_of(b, ins[1], "ScatterElements' indices")
    axis = a.get("axis", 0) % len(shape)
    idx = _element_index(b, n, ins[1], ishape, axis, len(shape))
    return _call("_scatter_set_nd", ins[0].sym, ins[2].sym, idx, shape=shape)


@_reg("Compress")
def _compress(b, n, ins, a):
    if a.get("axis") != 0:
        raise ONNXImportError(f"Compress along axis {a.get('axis')} is not imported (axis 0)")
    return _call("_contrib_boolean_mask", ins[0].sym, ins[1].sym)


@_reg("Expand")
def _expand(b, n, ins, a):
    src, k = None, b
    while k is not None and src is None:
        src, k = k.shape_src.get(n.input[1]), k.outer
    if src is not None:
        return _call("broadcast_like", ins[0].sym, src)
    shape = tuple(int(v) for v in _need_const(ins[1], "Expand's shape"))
    x = ins[0].sym
    xs = _static_shape(b, x, "Expand")
    if len(shape) > len(xs):
        x = _call("Reshape", x, shape=(1,) * (len(shape) - len(xs)) + xs)
        xs = (1,) * (len(shape) - len(xs)) + xs
    full = tuple(max(d, s) for d, s in zip(xs, (1,) * (len(xs) - len(shape)) + shape))
    return _call("broadcast_to", x, shape=full)


@_reg("Mod")
def _mod(b, n, ins, a):
    x, y = ins[0].sym, ins[1].sym
    if not a.get("fmod", 0):  # the divisor's sign, as broadcast_mod
        return _call("broadcast_mod", x, y)
    r = _call("broadcast_mod", _call("abs", x), _call("abs", y))  # C's remainder
    return _call("broadcast_mul", _call("sign", x), r)


@_reg("IsNaN")
def _isnan(b, n, ins, a):
    return _call("broadcast_not_equal", ins[0].sym, ins[0].sym)


@_reg("IsInf")
def _isinf(b, n, ins, a):
    x = ins[0].sym
    pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
    if pos and neg:
        return _call("_equal_scalar", _call("abs", x), scalar=float("inf"))
    return _call("_equal_scalar", x, scalar=float("inf") if pos else float("-inf"))


@_reg("Round")
def _round(b, n, ins, a):
    # halves to even: floor, plus one above the half, plus the floor's parity at the half
    # (infinities kept: their floor minus themselves is NaN)
    x = ins[0].sym
    f = _call("floor", x)
    d = _call("broadcast_sub", x, f)
    up = _call("_greater_scalar", d, scalar=0.5)
    half = _call("broadcast_mul", _call("_equal_scalar", d, scalar=0.5),
                 _call("_mod_scalar", f, scalar=2.0))
    r = _call("broadcast_add", f, _call("broadcast_add", up, half))
    return _call("where", _call("_equal_scalar", _call("abs", x), scalar=float("inf")), x, r)


# ---- recurrent layers ------------------------------------------------------------------------
_MODES = {"LSTM": "lstm", "GRU": "gru", "RNN": None}
# ONNX gate k goes to MXNet gate _ONNX_TO_MX[op][k] (ONNX i o f c / z r h; MXNet i f g o / r z n)


@_reg("LSTM", "GRU", "RNN")
def _rnn(b, n, ins, a):
    mode = _MODES[n.op_type]
    if n.op_type == "RNN":
        acts = [s.decode() if isinstance(s, bytes) else s for s in a.get("activations",
                                                                          ["Tanh"])]
        if acts[0] not in ("Tanh", "Relu"):
            raise ONNXImportError(f"activation {acts[0]} has no MXNet RNN form")
        mode = "rnn_relu" if acts[0] == "Relu" else "rnn_tanh"
    if n.op_type == "GRU" and not a.get("linear_before_reset", 0):
        raise ONNXImportError("GRU with linear_before_reset=0 has no MXNet form")
    for key in ("clip", "activation_alpha", "activation_beta"):
        if key in a:
            raise ONNXImportError(f"attribute {key} has no MXNet form")
    if a.get("layout", 0):
        raise ONNXImportError("layout=1 (batch first) is not imported")
    if n.op_type == "LSTM" and len(ins) > 7 and ins[7] is not None:
        raise ONNXImportError("peepholes have no MXNet form")
    W = _need_const(ins[1], f"{n.op_type}'s W")
    R = _need_const(ins[2], f"{n.op_type}'s R")
    D, GH, I_ = W.shape
    H = int(a["hidden_size"])
    G = GH // H
    B = ins[3].const if len(ins) > 3 and ins[3] is not None else np.zeros((D, 2 * GH), W.dtype)
    if B is None:
        raise ONNXImportError(f"{n.op_type}'s B must be a constant")

    def reorder(m):  # gate blocks along axis 0, from ONNX's order to MXNet's
        blocks = np.split(m, G, axis=0)
        out = [None] * G
        for onnx_k, mx_k in enumerate(_ONNX_TO_MX[n.op_type]):
            out[mx_k] = blocks[onnx_k]
        return np.concatenate(out, axis=0)

    ws, bs = [], []
    for d in range(D):
        ws += [reorder(W[d]).reshape(-1), reorder(R[d]).reshape(-1)]
        bs += [reorder(B[d][:GH]), reorder(B[d][GH:])]
    packed = np.concatenate(ws + bs).astype(W.dtype)
    psym = b.param_of(n.input[1] + "_packed", packed)
    x = ins[0].sym

    def state(j):
        if len(ins) > j and ins[j] is not None:
            return ins[j].sym
        z = _call("sum", _call("zeros_like", x), axis=(0, 2), keepdims=True)  # (1, N, 1)
        return _call("broadcast_to", z, shape=(D, 0, H))

    args = [x, psym, state(5)] + ([state(6)] if mode == "lstm" else [])
    lens = len(ins) > 4 and ins[4] is not None
    if lens:  # the same semantics as gluonlite's use_sequence_length
        args.append(_call("Cast", ins[4].sym, dtype=str(np.dtype(W.dtype))))
    out = _call("RNN", *args, state_size=H, num_layers=1, mode=mode, bidirectional=D == 2,
                state_outputs=True, use_sequence_length=lens)
    y = _call("Reshape", out[0], shape=(0, 0, D, H))
    y = _call("transpose", y, axes=(0, 2, 1, 3))
    return [y, out[1]] + ([out[2]] if mode == "lstm" else [])


_ONNX_TO_MX = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN": [0]}


# ---- control flow ----------------------------------------------------------------------------
def _body_outputs(sub, graph, errors, where):
    outs = convert_graph(sub, graph, errors, where)
    if errors or any(o is None for o in outs):
        raise ONNXImportError("its body did not import: " + "; ".join(
            f"ONNX operator {op!r}, node {nd!r}: {why}" for op, nd, why in errors))
    return outs


@_reg("Scan")
def _scan(b, n, ins, a):
    body = a["body"]
    n_scan = a["num_scan_inputs"]
    n_state = len(ins) - n_scan
    for key in ("scan_input_axes", "scan_output_axes", "scan_input_directions",
                "scan_output_directions"):
        if any(a.get(key, []) or []):
            raise ONNXImportError(f"attribute {key} is not imported")
    states = [x.sym for x in ins[:n_state]]
    data = [x.sym for x in ins[n_state:]]
    names = [i.name for i in body.input]
    errors = []

    def step(xs, ss):
        sub = _Builder(outer=b)
        xs = xs if isinstance(xs, list) else [xs]
        for nm, s in zip(names, list(ss) + list(xs)):
            sub.syms[nm] = s
        outs = _body_outputs(sub, body, errors, f"{n.name}/")
        return outs[n_state:], outs[:n_state]

    outs, finals = S.contrib.foreach(step, data if len(data) > 1 else data[0], states)
    if errors:
        raise ONNXImportError("; ".join(f"{op} {nd}: {why}" for op, nd, why in errors))
    outs = outs if isinstance(outs, list) else [outs]
    return list(finals) + list(outs)


@_reg("Loop")
def _loop(b, n, ins, a):
    body = a["body"]
    m = _need_const(ins[0], "Loop's trip count M (gluonlite's while_loop needs max_iterations)")
    n_vars = len(ins) - 2
    n_scan = len(body.output) - 1 - n_vars
    names = [i.name for i in body.input]
    errors = []
    c0 = ins[1].sym if ins[1] is not None else None
    if c0 is None:
        raise ONNXImportError("a Loop without a condition input is not imported")
    it0 = _call("_mul_scalar", _call("sum", c0), scalar=0.0)
    limit = float(int(m))

    def cond(it, c, *vs):
        return _call("broadcast_mul", _call("_lesser_scalar", it, scalar=limit),
                     _call("_not_equal_scalar", c, scalar=0.0))

    def func(it, c, *vs):
        sub = _Builder(outer=b)
        for nm, v in zip(names, [it, c] + list(vs)):
            sub.syms[nm] = v
        outs = _body_outputs(sub, body, errors, f"{n.name}/")
        # gluonlite asks every loop var to feed func; ONNX's body may ignore cond_in
        c_next = _call("broadcast_add", outs[0], _call("_mul_scalar", c, scalar=0.0))
        new = [_call("_plus_scalar", it, scalar=1.0), c_next] + list(outs[1:1 + n_vars])
        return list(outs[1 + n_vars:]), new

    outs, finals = S.contrib.while_loop(cond, func, [it0, c0] + [x.sym for x in ins[2:]],
                                        max_iterations=int(m))
    if errors:
        raise ONNXImportError("; ".join(f"{op} {nd}: {why}" for op, nd, why in errors))
    outs = outs if isinstance(outs, list) else [outs]
    return list(finals[2:]) + list(outs[:n_scan])


@_reg("If")
def _if(b, n, ins, a):
    errors = []

    def branch(graph):
        def f():
            sub = _Builder(outer=b)
            outs = _body_outputs(sub, graph, errors, f"{n.name}/")
            return outs if len(outs) > 1 else outs[0]
        return f

    pred = ins[0].sym
    out = S.contrib.cond(_call("sum", pred), branch(a["then_branch"]), branch(a["else_branch"]))
    if errors:
        raise ONNXImportError("; ".join(f"{op} {nd}: {why}" for op, nd, why in errors))
    return list(out) if isinstance(out, (list, tuple)) else [out]


# ---- entry points ----------------------------------------------------------------------------
def _load(model_file):
    import onnx
    if not isinstance(model_file, (str, bytes)) and hasattr(model_file, "graph"):
        return model_file
    try:
        model = onnx.load(model_file)
    except Exception as e:
        raise ONNXImportError(f"import_model: {model_file!r} is not an ONNX model ({e})") from e
    if not model.graph.node and not model.graph.output:
        raise ONNXImportError(f"import_model: {model_file!r} is not an ONNX model (no graph)")
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx") and not _MIN_OPSET <= imp.version <= _MAX_OPSET:
            raise ONNXImportError(f"import_model: {model_file!r} uses opset {imp.version}; "
                               f"opsets {_MIN_OPSET} to {_MAX_OPSET} are imported")
    return model


def import_model(model_file, max_folded_bytes=MAX_FOLDED_BYTES):
    """Read an ONNX model as a gluonlite graph (MXNet's ``mx.onnx.import_model``).

    Args:
        model_file: path of the ``.onnx`` file (or a loaded ``onnx.ModelProto``).
        max_folded_bytes: the largest value computed at import (a node whose inputs are all
            constants), unless its inputs are as large (256 MiB by default).

    Returns:
        (sym, arg_params, aux_params): the Symbol (its data inputs named as the ONNX graph's
        inputs), and the parameters as dicts of NDArrays (BatchNorm's running statistics in
        aux_params).

    Raises:
        ONNXImportError (a ValueError): not an ONNX file; an opset outside 13-21; operators or
            attributes with no gluonlite form, or constants past max_folded_bytes (all
            named, with the node, in one message).

    Example::

        net = nn.Dense(2, in_units=8)
        net.initialize()
        net.hybridize()
        y = net(nd.ones((2, 8)))
        path = mx.onnx.export_block(net, 'net.onnx', [(2, 8)])
        s, arg, aux = mx.onnx.import_model(path)
        len(arg), aux   # (2, {})
    """
    from .. import nd
    model = _load(model_file)
    b = _Builder()
    b.max_folded = max_folded_bytes
    b.opset = max([imp.version for imp in model.opset_import
                   if imp.domain in ("", "ai.onnx")] or [13])
    init_names = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name not in init_names:
            b.syms[inp.name] = S.var(inp.name)
            dims = inp.type.tensor_type.shape.dim
            if dims and all(d.dim_value > 0 for d in dims):
                b.input_shapes[inp.name] = tuple(d.dim_value for d in dims)
    errors = []
    outs = convert_graph(b, model.graph, errors)
    if errors:
        lines = "\n".join(f"  ONNX operator {op!r}, node {nd_!r}: {why}"
                          for op, nd_, why in errors)
        raise ONNXImportError(f"import_model: {len(errors)} node(s) cannot be imported:\n{lines}")
    sym = S.Group(outs) if len(outs) > 1 else outs[0]
    aux_names = set(sym.list_auxiliary_states())
    used = set(sym.list_inputs())
    arg = {k: nd.array(v, dtype=v.dtype) for k, v in b.params.items()
           if k in used and k not in aux_names}
    aux = {k: nd.array(v, dtype=v.dtype) for k, v in b.params.items() if k in aux_names}
    return sym, arg, aux


def import_to_gluon(model_file, ctx=None, max_folded_bytes=MAX_FOLDED_BYTES):
    """An ONNX model as a `gluon.SymbolBlock` with its parameters loaded (hybridizable).

    Args:
        model_file: path of the ``.onnx`` file.
        ctx: the context of the parameters (default cpu).
        max_folded_bytes: as for `import_model`.

    Returns:
        the SymbolBlock; call it with the ONNX graph's inputs in their order (inputs the
        graph never reads, such as Crop's crop_like whose shape was fixed at export, are
        taken and ignored).

    Example::

        net = nn.Dense(2, in_units=8)
        net.initialize()
        net.hybridize()
        y = net(nd.ones((2, 8)))
        path = mx.onnx.export_block(net, 'net.onnx', [(2, 8)])
        net2 = mx.onnx.import_to_gluon(path)
        net2(nd.ones((2, 8))).shape   # (2, 2)
    """
    model = _load(model_file)
    sym, arg, aux = import_model(model, max_folded_bytes)
    init_names = {i.name for i in model.graph.initializer}
    used = set(sym.list_inputs())
    # a graph input nothing reads (Crop's crop_like gives only its shape, fixed at export)
    # is taken and dropped
    all_inputs = [i for i in model.graph.input if i.name not in init_names]
    inputs = [S.var(i.name) for i in all_inputs if i.name in used]
    keep = [k for k, i in enumerate(all_inputs) if i.name in used]
    if len(keep) < len(all_inputs) or not keep:
        block = _ImportedBlock(sym, inputs, keep, len(all_inputs))
    else:
        block = gluon.SymbolBlock(sym, inputs)
    ctx = ctx or cpu()
    params = block.collect_params()
    for name, value in list(arg.items()) + list(aux.items()):
        if name in params:
            params[name].dtype = value.dtype  # integer/boolean constants stay as they are
            params[name]._load_init(value, ctx)
    return block



class _ImportedBlock(SymbolBlock):
    """A SymbolBlock called with every input of its ONNX graph, some of which the graph never
    reads (their values are dropped before the graph runs)."""

    def __init__(self, outputs, inputs, keep, n_all):
        super().__init__(outputs, inputs)
        self._keep, self._n_all = tuple(keep), n_all

    def forward(self, *xs):
        if len(xs) != self._n_all:
            raise ValueError(f"import_to_gluon: the model takes {self._n_all} input(s), "
                             f"got {len(xs)}")
        if self._keep:
            return super().forward(*[xs[k] for k in self._keep])
        # outputs that read no input (constant fills, shapes fixed at export): the graph
        # runs on its parameters alone
        from .. import cpu
        sym = self._graph
        args = {p.name: p.data() for p in self.collect_params().values()}
        ex = sym.bind(cpu(), {nm: args[nm] for nm in sym.list_arguments()},
                      aux_states={nm: args[nm] for nm in sym.list_auxiliary_states()},
                      grad_req="null")
        outs = ex.forward(is_train=False)
        return outs[0] if len(outs) == 1 else list(outs)
