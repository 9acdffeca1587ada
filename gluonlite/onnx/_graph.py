"""The export walk: a gluonlite `Symbol` (loop and branch bodies included) -> ONNX nodes.

`GraphBuilder` holds what one ONNX graph collects (nodes, initializers, inputs, outputs) and
the shapes/dtypes gluonlite inferred for every entry; converters (``_converters.py``) read a
node's parsed attributes and the ONNX names of its inputs and add nodes through it. Bodies
become nested `GraphBuilder`s sharing one name counter, so names never collide across scopes
(ONNX forbids a subgraph from redefining an outer name).
"""
import numpy as np

from ..symbol.symbol import topo_nodes
from ._support import why_not_exported

__all__ = ["GraphBuilder", "ExportError", "onnx_dtype"]


class ExportError(ValueError):
    """An operator or attribute that has no ONNX form (the message names them all).

    Example::

        w, g, m, v = (sym.var(n) for n in "wgmv")
        step = sym.adam_update(w, g, m, v, lr=0.1)   # a training step: nothing to export
        try:
            mx.onnx.build_model(step, {}, [(2,)] * 4)
        except mx.onnx.ExportError as err:
            print(err)   # names operator 'adam_update'
    """


def onnx_dtype(dtype):
    """The ONNX TensorProto element type of a numpy dtype."""
    from onnx import helper
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class _Names:
    def __init__(self):
        self.used = set()

    def fresh(self, hint):
        hint = hint or "t"
        name, k = hint, 0
        while name in self.used:
            k += 1
            name = f"{hint}_{k}"
        self.used.add(name)
        return name


def infer_entries(symbol, shapes, dtypes):
    """Shapes and dtypes of every entry of `symbol` given its inputs' (dicts by input name);
    returns ``{(id(node), k): (shape or None, dtype or None)}``."""
    internals = symbol.get_internals()
    known_s = {k: tuple(v) for k, v in shapes.items() if v is not None}
    known_t = {k: v for k, v in dtypes.items() if v is not None}
    try:
        _, out_s, _ = internals.infer_shape_partial(**known_s)
    except Exception:  # a partial answer is still useful; converters ask only when needed
        out_s = None
    try:
        _, out_t, _ = internals.infer_type_partial(**known_t)
    except Exception:
        out_t = None
    info = {}
    for j, (node, k) in enumerate(internals.outputs):
        s = out_s[j] if out_s else None
        t = out_t[j] if out_t else None
        # MXNet 1.x (and gluonlite) write an unknown shape as ()
        info[(id(node), k)] = (tuple(s) if s else None, t)
    return info


class GraphBuilder:
    """Collects one ONNX graph.

    Attributes:
        opset: the target opset version.
        nodes, initializers, inputs, outputs: the graph's pieces (onnx protos).
        names: the shared fresh-name generator.
        info: ``{(id(node), k): (shape, dtype)}`` of the symbol being converted.
    """

    def __init__(self, opset, names=None, params=None):
        self.opset = opset
        self.names = names or _Names()
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.params = params if params is not None else {}
        self.info = {}
        # ONNX output name -> shape, for outputs gluonlite's inference leaves unknown (a 0-d
        # result, a length known only when run: a string names that axis)
        self.declared = {}
        self._consts = {}

    # ---- building ---------------------------------------------------------------------
    def node(self, op_type, inputs, n_out=1, hint=None, **attrs):
        """Add one ONNX node; returns its output name (or list of names when n_out != 1)."""
        from onnx import helper
        outs = [self.names.fresh(f"{hint or op_type}" + (f"_o{i}" if n_out > 1 else ""))
                for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs,
                                           name=self.names.fresh(f"{hint or op_type}_node"),
                                           **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, dtype=None, hint="const"):
        """A constant tensor: a ``Constant`` node of this graph (bodies get their own), one
        per distinct value."""
        from onnx import numpy_helper
        arr = np.asarray(value, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key in self._consts:
            return self._consts[key]
        name = self.names.fresh(hint)
        tensor = numpy_helper.from_array(arr, name)
        self.nodes.append(_constant_node(name, tensor, self.names.fresh(f"{name}_node")))
        self._consts[key] = name
        return name

    def ints(self, values, hint="ints"):
        """An int64 1-D constant (shapes, axes, indices)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1), hint=hint)

    def scalar(self, value, like_dtype, hint="scalar"):
        """A 0-d constant of `like_dtype` (float32 when unknown)."""
        return self.const(np.asarray(value, dtype=like_dtype or np.float32), hint=hint)

    def value_info(self, name, shape, dtype):
        from onnx import helper
        return helper.make_tensor_value_info(
            name, onnx_dtype(dtype or np.float32), None if shape is None else list(shape))

    def make_graph(self, name):
        from onnx import helper
        return helper.make_graph(self.nodes, name, self.inputs, self.outputs,
                                 initializer=self.initializers)

    # ---- opset-dependent forms ----------------------------------------------------------
    def unsqueeze(self, x, axes):
        return self.node("Unsqueeze", [x, self.ints(axes, "axes")])

    def squeeze(self, x, axes=None):
        return self.node("Squeeze", [x] if axes is None else [x, self.ints(axes, "axes")])

    def reduce(self, op_type, x, axes, keepdims):
        """ReduceX over `axes` (None: all) with the axes as an input or an attribute, as the
        opset wants (ReduceSum takes an input from 13, the others from 18)."""
        as_input = op_type == "ReduceSum" or self.opset >= 18
        if axes is None:
            return self.node(op_type, [x], keepdims=int(keepdims))
        if as_input:
            return self.node(op_type, [x, self.ints(axes, "axes")], keepdims=int(keepdims))
        return self.node(op_type, [x], axes=list(axes), keepdims=int(keepdims))

    def split(self, x, axis, sizes):
        return _as_list(self.node("Split", [x, self.ints(sizes, "split")], n_out=len(sizes),
                                  axis=axis))

    # ---- walking a symbol ---------------------------------------------------------------
    def convert(self, symbol, env, shapes, dtypes, errors, where=""):
        """Convert `symbol`'s nodes into this graph.

        Args:
            env: ``{input name: ONNX tensor name}`` for the symbol's inputs.
            shapes, dtypes: the inputs' shapes and dtypes by name (for inference).
            errors: a list collecting (operator, node, attribute, why) for what cannot export.
        Returns:
            the ONNX names of the symbol's outputs (None for outputs that failed).
        """
        from ._converters import CONVERTERS, check_attrs
        self.info.update(infer_entries(symbol, shapes, dtypes))
        names = {}
        for node in topo_nodes(symbol.outputs):
            if node.op is None:
                if node.name not in env:
                    errors.append(("null", where + node.name, None,
                                   "an input with no value (not a graph input nor a parameter)"))
                    names[(id(node), 0)] = node.name
                else:
                    names[(id(node), 0)] = env[node.name]
                continue
            conv = CONVERTERS.get(node.op.name)
            if conv is None:
                errors.append((node.op.name, where + node.name, None,
                               why_not_exported(node.op.name) or "no ONNX converter"))
                outs = [None] * node.num_outputs()
            else:
                bad = check_attrs(node)
                if bad:
                    errors.extend((node.op.name, where + node.name, a, why) for a, why in bad)
                    outs = [None] * node.num_outputs()
                else:
                    ins = [names.get((id(s), k)) for s, k in node.inputs]
                    if any(i is None for i in ins):
                        outs = [None] * node.num_outputs()
                    else:
                        try:
                            outs = conv(self, node, ins, errors, where)
                        except ExportError as e:
                            errors.append((node.op.name, where + node.name, None, str(e)))
                            outs = None
                        outs = _as_list(outs) if outs is not None else [None]
            for k, o in enumerate(outs):
                if o is not None and self.shape_of(node, k) == (1,):
                    # MXNet 1.x has no 0-d arrays where ONNX reductions/squeezes give them
                    o = self.node("Reshape", [o, self.ints([1])], hint=f"{node.name}_1d")
                names[(id(node), k)] = o
        return [names.get((id(n), k)) for n, k in symbol.outputs]

    def shape_of(self, node, k=0):
        """The inferred shape of output k of `node` (None when unknown)."""
        return self.info.get((id(node), k), (None, None))[0]

    def dtype_of(self, node, k=0):
        return self.info.get((id(node), k), (None, None))[1]

    def in_shape(self, node, j):
        src, k = node.inputs[j]
        return self.shape_of(src, k)

    def in_dtype(self, node, j):
        src, k = node.inputs[j]
        return self.dtype_of(src, k) or np.float32

    def need_shape(self, node, j):
        s = self.in_shape(node, j)
        if s is None:
            raise ExportError(f"the shape of input {j} is unknown at export (give in_shapes)")
        return s

    def sub(self):
        """A builder for a body graph sharing this one's names."""
        return GraphBuilder(self.opset, self.names, self.params)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _constant_node(name, tensor, node_name):
    from onnx import helper
    return helper.make_node("Constant", [], [name], name=node_name, value=tensor)
