"""`SymbolBlock`: a HybridBlock built from a Symbol graph, e.g. a model exported by
`HybridBlock.export` (here or in MXNet) and loaded back with `SymbolBlock.imports`."""
from ..base import flatten, unflatten
from .block import HybridBlock, _is_sym, _is_leaf
from .parameter import GluonUsageError, ParameterDict
from .. import symbol
from ..symbol.symbol import Group, Node, Symbol, topo_nodes
from ..util import is_np_array

_ROW_SPARSE_ID = "1"  # MXNet's id of 'row_sparse' in a variable's __storage_type__

__all__ = ["SymbolBlock"]


def _common_prefix(names):
    if not names:
        return ""
    prefix = names[0]
    for n in names[1:]:
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def compose(symbol, replacements):
    """A copy of `symbol` whose variables named in `replacements` (name -> single-output
    Symbol) are replaced by those symbols; operator nodes are copied, other variables (the
    parameters) are shared.

    Example::

        from gluonlite.gluon.symbol_block import compose
        y = sym.relu(sym.var('data'))
        z = compose(y, {'data': sym.var('x') * 2})
        z.list_arguments()   # ['x']
    """
    new = {}

    def remap(src, i):
        e = new[id(src)]
        return e if src.op is None else (e, i)

    for n in topo_nodes(symbol.outputs):
        if n.op is None:
            new[id(n)] = replacements[n.name]._outputs[0] if n.name in replacements else (n, 0)
        else:
            new[id(n)] = Node(n.op, n.name, n.attrs, n.params,
                              [remap(s, i) for s, i in n.inputs], n.source)
    return Symbol([remap(n, i) for n, i in symbol.outputs])


def _infer_param_types(out):
    """(argument dtypes, auxiliary dtypes) of graph `out`, inferred from the dtypes its
    variables declare (``var('data', dtype='float64')``); float32 where nothing is known."""
    import numpy as np
    try:
        arg_types, _, aux_types = out.infer_type()
    except Exception:  # noqa: BLE001  (types not inferable from the graph alone: the default)
        arg_types = aux_types = None
    args, auxs = out.list_arguments(), out.list_auxiliary_states()
    arg_types = arg_types if arg_types and None not in arg_types else [np.float32] * len(args)
    aux_types = aux_types if aux_types and None not in aux_types else [np.float32] * len(auxs)
    return arg_types, aux_types


class SymbolBlock(HybridBlock):
    """A block that runs a given Symbol graph.

    Args:
        outputs: the output Symbol(s).
        inputs: the input variable Symbol(s); every other variable of the graph becomes a
            parameter (auxiliary states with grad_req='null').
        params: a ParameterDict to share parameters from.

    Inputs:
        - **x**: the first input, for the first input variable (an NDArray, or a Symbol to
          compose the graph with); further positional arguments feed the next inputs.

    Outputs:
        - **out**: the graph's output(s): an array, or a list of arrays for several.

    Raises:
        ValueError: an input that is not a variable Symbol.

    Example::

        data = sym.var('data')
        out = sym.FullyConnected(data, num_hidden=3, name='fc')
        net = gluon.SymbolBlock(out, data)
        net.initialize()
        net(nd.ones((2, 4))).shape   # (2, 3)
    """

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        object.__setattr__(self, "_prefix", "")
        object.__setattr__(self, "_params", ParameterDict("", params))
        if isinstance(inputs, Symbol) and len(inputs.outputs) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_spec = flatten(inputs, _is_sym)
        if isinstance(outputs, Symbol):
            out = outputs
            n_out = len(outputs.outputs)
            self._out_spec = 0 if n_out == 1 else (list, (0,) * n_out)
        else:
            outs, self._out_spec = flatten(outputs, _is_sym)
            out = Group(outs)
        input_names = []
        for i, s in enumerate(syms):
            node = s.outputs[0][0] if len(s.outputs) == 1 else None
            if node is None or node.op is not None:
                raise ValueError(f"SymbolBlock: inputs[{i}] must be a variable, but {s!r} is an "
                                 "output of an operator")
            input_names.append(node.name)
        graph_inputs = set(out.list_inputs())
        missing = [n for n in input_names if n not in graph_inputs]
        if missing:
            raise ValueError(f"SymbolBlock: input(s) {', '.join(missing)} are not variables of "
                             f"the graph, whose variables are {out.list_inputs()}")
        for name, attrs in out.attr_dict().items():
            if attrs.get("__storage_type__") == _ROW_SPARSE_ID:
                # a row_sparse weight is read by rows through a Trainer, which a graph cannot do
                raise GluonUsageError(f"SymbolBlock doesn't support Parameter {name!r} because "
                                      "its storage type is 'row_sparse'; use a Block whose "
                                      "forward reads it with row_sparse_data")
        arg_types, aux_types = _infer_param_types(out)
        for name, dtype in zip(out.list_arguments(), arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(out.list_auxiliary_states(), aux_types):
            if name not in input_names:
                self.params.get(name, grad_req="null", allow_deferred_init=True, dtype=dtype)
        self._input_syms = syms
        self._input_names = input_names
        if is_np_array() or any(getattr(type(x), "num_outputs", None) is not None
                                for x in syms + [out]):
            out = out.as_np_ndarray()  # a graph of the NumPy dialect gives mx.np arrays
        self._graph = out
        object.__setattr__(self, "_cached_graph", (syms, out))
        n = len(_common_prefix(list(self._params.keys())))
        for k, v in self._params.items():
            self._reg_params[k[n:]] = v

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """Load a model exported by `HybridBlock.export` (or by MXNet 1.x). Parameters take
        the dtypes the file holds (a float64 export loads as float64).

        Args:
            symbol_file: the ``-symbol.json`` file.
            input_names: the input variable name(s), e.g. ``'data'`` or ``['data0', 'data1']``.
            param_file: the ``.params`` file (optional: parameters stay uninitialized).
            ctx: the context(s) for the parameters.
            allow_missing: leave parameters the file lacks uninitialized.
            ignore_extra: ignore entries of the file the graph does not use.

        Raises:
            ValueError: a malformed file, or parameters that do not match the graph.

        Example::

            mlp = nn.HybridSequential(); mlp.add(nn.Dense(4, activation='relu'), nn.Dense(2))
            mlp.initialize(); mlp.hybridize(); y = mlp(nd.ones((3, 8)))
            mlp.export('mlp')   # writes mlp-symbol.json and mlp-0000.params
            net = gluon.SymbolBlock.imports('mlp-symbol.json', ['data'], 'mlp-0000.params')
            net(nd.ones((3, 8))).shape   # (3, 2)
        """
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        inputs = [symbol.var(n).as_np_ndarray() if is_np_array() else symbol.var(n)
                  for n in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source="saved")
        return ret

    def __repr__(self):
        syms, out = self._input_syms, self._graph
        return (f"{self.__class__.__name__}(\n{out!r} : {len(syms)} -> "
                f"{len(out.list_outputs())}\n)")

    def cast(self, dtype):
        """Cast the parameters to `dtype`; to float16, a BatchNorm's statistics, gamma and
        beta stay float32 (as MXNet's kernels want them).

        Example::

            data = sym.var('data')
            net = gluon.SymbolBlock(sym.FullyConnected(data, num_hidden=3, name='fc'), data)
            net.initialize(); net.cast('float64')
            net(nd.ones((2, 4), dtype='float64')).dtype   # <class 'numpy.float64'>
        """
        import numpy as np
        super().cast(dtype)
        if np.dtype(dtype) != np.float16:
            return
        names = set(self._graph.list_inputs())
        for node in names:
            for var_suffix, mean_suffix in (("running_var", "running_mean"),
                                            ("moving_var", "moving_mean")):
                if node.endswith(var_suffix):
                    prefix = node[:-len(var_suffix)]
                    sibs = [prefix + t for t in (mean_suffix, "gamma", "beta")]
                    if all(p in names for p in sibs):
                        for p in [node] + sibs:
                            if p in self.params:
                                self.params[p].cast("float32")

    def reset_ctx(self, ctx):
        """Move every parameter to `ctx` (a Context or a list of them).

        Example::

            data = sym.var('data')
            net = gluon.SymbolBlock(sym.FullyConnected(data, num_hidden=3, name='fc'), data)
            net.initialize(); net.reset_ctx(mx.cpu(1))
            net.collect_params().list_ctx()   # [cpu(1)]
        """
        for p in self.collect_params().values():
            p.reset_ctx(ctx)

    def _clear_cached_op(self):
        graph = getattr(self, "_graph", None)
        super()._clear_cached_op()
        if graph is not None:
            object.__setattr__(self, "_cached_graph", (self._input_syms, graph))

    def _get_graph(self, *args):
        flat, fmt = flatten(list(args), _is_leaf)
        if len(flat) != len(self._input_syms):
            raise ValueError(f"SymbolBlock: expected {len(self._input_syms)} input(s) "
                             f"({', '.join(self._input_names)}), got {len(flat)}")
        return self._input_syms, self._graph, self._out_spec

    def _trace_key(self):
        return ()

    def forward(self, x, *args):
        """Run the graph on NDArrays (through a CachedOp), or compose it with Symbols.

        Args:
            x: the first input (NDArray or Symbol).
            *args: the further inputs, in the order of the block's input variables.

        Returns:
            the graph's output(s): NDArrays, or a composed Symbol for Symbol inputs.

        Example::

            data = sym.var('data')
            net = gluon.SymbolBlock(sym.FullyConnected(data, num_hidden=3, name='fc'), data)
            net.initialize()
            net(nd.ones((2, 4))).shape   # (2, 3)
            net(sym.var('x')).list_arguments()   # ['x', 'fc_weight', 'fc_bias']
        """
        flat, _ = flatten([x, *args], _is_leaf)
        if flat and all(_is_sym(a) for a in flat):
            if len(flat) != len(self._input_names):
                raise ValueError(f"SymbolBlock: expected {len(self._input_names)} input(s), "
                                 f"got {len(flat)}")
            out = compose(self._graph, dict(zip(self._input_names, flat)))
            return unflatten(list(out), self._out_spec)
        return self._call_cached_op(x, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("SymbolBlock runs its graph directly")
