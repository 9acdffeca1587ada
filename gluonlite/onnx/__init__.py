"""ONNX export (MXNet's ``mx.onnx``): write a gluonlite graph as an ONNX model.

`export_model` takes MXNet 1.9.1's arguments (a `Symbol` or its JSON file, the parameters as a
dict or a ``.params`` file); `export_block` exports a hybridized `HybridBlock` directly. Every
operator is converted by one function of the table in ``_converters.py`` (fused `RNN` in
``_rnn.py``; the loop and branch operators in ``_loops.py``, each one ONNX ``Scan``/``Loop``/
``If`` node with its body as a subgraph, so the file does not grow with the number of steps).
`get_operator_support` lists what exports.

Needs the ``onnx`` package (``pip install gluonlite[onnx]``).

Example::

    import gluonlite as mx
    net = mx.gluon.nn.Dense(4); net.initialize(); net.hybridize(); net(mx.nd.ones((2, 3)))
    mx.onnx.export_block(net, "dense.onnx", [(2, 3)])
"""
import numpy as np

from ..base import write_atomically
from ._graph import ExportError, GraphBuilder, onnx_dtype
from . import _converters, _loops, _rnn  # noqa: F401  (they fill the table)
from ._support import NOT_EXPORTED, NP_DIALECT, NP_PREFIXES
from ._import import ONNXImportError, import_model, import_to_gluon
from .. import symbol as _sym
from ..ndarray.serialization import load
from ..ops import registry

__all__ = ["export_model", "export_block", "get_operator_support", "not_exported",
           "import_model", "import_to_gluon", "ExportError", "ONNXImportError", "DEFAULT_OPSET"]

DEFAULT_OPSET = 13


def _need_onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError("mx.onnx needs the 'onnx' package: pip install onnx "
                          "(or gluonlite[onnx])") from e
    return onnx


def get_operator_support(opset_version=None):
    """The registry operator names that export to ONNX (sorted).

    Args:
        opset_version: accepted for MXNet's signature; every converter here works from 13 up.

    Example::

        'FullyConnected' in mx.onnx.get_operator_support()   # True
    """
    return sorted(_converters.CONVERTERS)


def not_exported():
    """{operator name: why it does not export} for the registry operators with no converter.

    Example::

        'sgd_update' in mx.onnx.not_exported()   # True
    """
    why = dict(NOT_EXPORTED)
    for op in registry.all_ops():  # the NumPy dialect's, by prefix (see _support)
        if op.name.startswith(NP_PREFIXES) and op.name not in _converters.CONVERTERS:
            why[op.name] = NP_DIALECT
    return why


def _load_inputs(sym, params):
    if isinstance(sym, str):
        sym = _sym.load(sym)
    elif not isinstance(sym, _sym.Symbol):
        raise TypeError(f"export_model: sym must be a Symbol or the path of its JSON file, got "
                        f"{type(sym).__name__}")
    if isinstance(params, str):
        path, params = params, load(params)
        if isinstance(params, list):  # no names: an empty file, or not a parameters file
            if params:
                raise ValueError(f"export_model: {path} holds unnamed arrays; parameters need "
                                 "names")
            params = {}
    elif isinstance(params, (list, tuple)) and len(params) == 2:
        merged = {}
        merged.update(params[0])
        merged.update(params[1])
        params = merged
    if not isinstance(params, dict):
        raise TypeError(f"export_model: params must be a dict, [arg_params, aux_params] or the "
                        f"path of a .params file, got {type(params).__name__}")
    clean = {}
    for k, v in params.items():
        name = k.split(":", 1)[1] if k.startswith(("arg:", "aux:")) else k
        clean[name] = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
    return sym, clean


def _format_errors(errors):
    lines = []
    for op, node, attr, why in errors:
        at = f", attribute {attr}" if attr else ""
        lines.append(f"  operator {op!r}, node {node!r}{at}: {why}")
    return "\n".join(lines)


def _per_input(given, names, what, kind, default):
    """One `kind` per data input, in `names` order, from a list in that order, a dict keyed
    by input name, or (for dtypes) one value for all."""
    if isinstance(given, dict):
        missing = [nm for nm in names if nm not in given]
        extra = sorted(set(given) - set(names))
        if missing or extra:
            raise ValueError(f"export_model: {what} must name each data input {names}; "
                             f"missing {missing}, unknown {extra}")
        return [given[nm] for nm in names]
    if default is not None and not isinstance(given, (list, tuple)):
        given = [given if given is not None else default] * len(names)
    given = list(given or [])
    if len(given) != len(names):
        raise ValueError(f"export_model: {what} must give one {kind} per data input {names} "
                         f"(in that order, or a dict keyed by name), got {len(given)}")
    return given


def _check_shapes_fit(sym, params, names, in_shapes):
    """ExportError when the graph cannot infer its shapes from `in_shapes`: a list is matched
    to the data inputs in list_inputs() order, as MXNet does, which for a graph with loops
    or branches is often not data0, data1, ... (MXNet's exports list them as they meet them)."""
    shapes = {nm: tuple(s) for nm, s in zip(names, in_shapes)}
    known = dict(shapes, **{nm: v.shape for nm, v in params.items()})
    used = set(sym.list_inputs())
    try:
        sym.infer_shape_partial(**{nm: s for nm, s in known.items() if nm in used})
    except Exception as e:  # the node and rule at fault, named by infer_shape
        given = ", ".join(f"{nm} {s}" for nm, s in shapes.items())
        raise ExportError(f"export_model: in_shapes do not fit the graph: they are matched to "
                          f"the data inputs in list_inputs() order ({given}), and then "
                          f"{str(e).splitlines()[0]}; give the shapes in that order, or as a "
                          "dict {input name: shape}") from None


def build_model(sym, params, in_shapes, in_types=np.float32, opset_version=None, dynamic=False,
                dynamic_input_shapes=None, data_names=None):
    """The ONNX ModelProto of `sym` with `params` (what `export_model` writes); `data_names`
    orders the data inputs (default: as ``sym.list_inputs()``).

    Args:
        in_shapes (list or dict): one shape per data input, or {input name: shape}, as
            `export_model`'s.
        in_types: a dtype, one per data input, or {input name: dtype} (default float32).
        opset_version (int): the ONNX opset (13 or newer; default None: 13).
        dynamic (bool): declare input dimensions symbolic (default False).
        dynamic_input_shapes (list of tuple): with `dynamic`, the shapes whose None entries
            are symbolic (default None: every dimension).

    Returns:
        onnx.ModelProto: the model, not yet checked or written.

    Raises:
        ExportError: operators or attributes with no ONNX form (all of them, one per line).

    Example::

        x = sym.var("x")
        model = mx.onnx.build_model(sym.sum(x * 2), {}, [(2, 3)])
        [i.name for i in model.graph.input]   # ['x']
    """
    onnx = _need_onnx()
    from onnx import helper
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if opset < 13:
        raise ValueError(f"export_model: opset_version must be 13 or newer, got {opset}")
    sym, params = _load_inputs(sym, params)
    listed = [nm for nm in sym.list_inputs() if nm not in params]
    if data_names is None:
        data_names = listed
    elif sorted(data_names) != sorted(listed):
        raise ValueError(f"export_model: the data inputs are {listed}, got names {data_names}")
    in_shapes = _per_input(in_shapes, data_names, "in_shapes", "shape", None)
    in_types = _per_input(in_types, data_names, "in_types", "dtype", np.float32)
    _check_shapes_fit(sym, params, data_names, in_shapes)
    g = GraphBuilder(opset)
    env, shapes, dtypes = {}, {}, {}
    for k, nm in enumerate(data_names):
        env[nm] = g.names.fresh(nm)
        shapes[nm] = tuple(in_shapes[k])
        dtypes[nm] = np.dtype(in_types[k])
        shape = list(shapes[nm])
        if dynamic:
            dyn = dynamic_input_shapes[k] if dynamic_input_shapes else [None] * len(shape)
            shape = [f"{nm}_d{i}" if d is None else d for i, d in enumerate(dyn)]
        g.inputs.append(helper.make_tensor_value_info(env[nm], onnx_dtype(dtypes[nm]), shape))
    from onnx import numpy_helper
    used = set(sym.list_inputs())
    for nm, arr in params.items():
        if nm not in used:
            continue
        env[nm] = g.names.fresh(nm)
        shapes[nm], dtypes[nm] = arr.shape, arr.dtype
        g.initializers.append(numpy_helper.from_array(arr, env[nm]))
    errors = []
    outs = g.convert(sym, env, shapes, dtypes, errors)
    if errors:
        raise ExportError(f"export_model: {len(errors)} part(s) of the graph have no ONNX form; "
                          f"nothing was written:\n{_format_errors(errors)}")
    out_names = sym.list_outputs()
    for (node, k), o, nm in zip(sym.outputs, outs, out_names):
        y = g.node("Identity", [o], hint=nm)
        shape, dtype = g.info.get((id(node), k), (None, None))
        if shape is None:
            shape = g.declared.get(o)
        if dynamic and shape is not None:  # the rank stays, every size is symbolic
            shape = [f"{nm}_d{i}" for i in range(len(shape))]
        g.outputs.append(g.value_info(y, shape, dtype))
    graph = g.make_graph("gluonlite")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="gluonlite")
    model.ir_version = min(model.ir_version, 8 if opset < 19 else model.ir_version)
    try:  # never write a model ONNX itself refuses
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        raise ExportError(f"export_model: the exported graph fails onnx's checker: "
                          f"{str(e).splitlines()[0]}; nothing was written") from None
    return model


def export_model(sym, params, in_shapes=None, in_types=np.float32, onnx_file_path="model.onnx",
                 verbose=False, dynamic=False, dynamic_input_shapes=None,
                 run_shape_inference=False, input_type=None, input_shape=None,
                 opset_version=None, **kwargs):
    """Export a graph and its parameters to an ONNX file (MXNet 1.9.1's signature).

    Args:
        sym: a `Symbol` or the path of its JSON file.
        params: a dict name -> NDArray/array (``arg:``/``aux:`` prefixes allowed),
            ``[arg_params, aux_params]``, or the path of a ``.params`` file.
        in_shapes: one shape per data input (the graph's inputs that are not in `params`, in
            ``list_inputs()`` order, as MXNet matches them), or a dict {input name: shape}.
        in_types: a dtype, one per data input, or a dict {input name: dtype} (default
            float32).
        onnx_file_path: where to write the model.
        verbose: print the graph (onnx's printable form).
        dynamic (bool): declare input dimensions symbolic (default False: every input
            dimension is fixed).
        dynamic_input_shapes (list of tuple): with `dynamic`, one shape per data input
            whose None entries are the symbolic dimensions (default None: all of them).
        run_shape_inference: run ONNX shape inference on the result before writing.
        input_type: MXNet's old name of `in_types` (used when given).
        input_shape: MXNet's old name of `in_shapes` (used when given).
        opset_version: the ONNX opset (13 or newer; default 13).
        kwargs: nothing else is accepted (a TypeError names it).

    Returns:
        onnx_file_path.

    Raises:
        ExportError (a ValueError): operators or attributes with no ONNX form, all named
            (operator, node, attribute) in one message; in_shapes that do not fit the graph
            (the node at fault named); nothing is written then.
        ValueError, TypeError: bad arguments.

    Example::

        net = nn.Dense(4); net.initialize(); net.hybridize(); net(nd.ones((2, 3)))
        net.export("net")   # writes net-symbol.json and net-0000.params
        mx.onnx.export_model("net-symbol.json", "net-0000.params", [(2, 3)],
                             np.float32, "net.onnx")
    """
    unknown = sorted(k for k in kwargs if k != "_data_names")
    if unknown:
        raise TypeError(f"export_model: unexpected argument(s) {unknown}")
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    model = build_model(sym, params, in_shapes, in_types, opset_version, dynamic,
                        dynamic_input_shapes, kwargs.pop("_data_names", None))
    if run_shape_inference:
        from onnx import shape_inference
        model = shape_inference.infer_shapes(model)
    if verbose:
        from onnx import helper
        print(helper.printable_graph(model.graph))
    write_atomically(onnx_file_path, model.SerializeToString())
    return onnx_file_path


def export_block(block, onnx_file_path, in_shapes, in_types=np.float32, opset_version=None,
                 **kwargs):
    """Export a hybridized `HybridBlock` (called at least once) to ONNX; the ONNX inputs are
    the block's inputs in call order (``data`` or ``data0, data1, ...``).

    Args:
        block: the block; its last hybridized graph and current parameters are exported.
        onnx_file_path: where to write.
        in_shapes: one shape per block input, in call order.
        in_types: a dtype, or one per block input (default float32), as `export_model`'s.
        opset_version (int): the ONNX opset (13 or newer; default None: 13).
        kwargs: `export_model`'s other options (dynamic, verbose, ...).

    Returns:
        onnx_file_path.

    Raises:
        ValueError: the block was not hybridized and called yet.

    Example::

        net = nn.Dense(2, in_units=8)
        net.initialize()
        net.hybridize()
        y = net(nd.ones((2, 8)))
        mx.onnx.export_block(net, 'net.onnx', [(2, 8)])   # 'net.onnx'
    """
    graph = getattr(block, "_cached_graph", None)
    if not graph:
        raise ValueError(f"export_block: {getattr(block, 'name', block)!r} has no graph; call "
                         f"hybridize() and run forward once before exporting")
    sym = graph[1]
    used = set(sym.list_inputs())
    params = {nm: p.data() for nm, p in block.collect_params().items() if nm in used}
    names = [v.name for v in graph[0]] if isinstance(graph[0], (list, tuple)) else None
    if names is not None:
        names = [nm for nm in names if nm in used and nm not in params]
    return export_model(sym, params, in_shapes, in_types, onnx_file_path,
                        opset_version=opset_version, _data_names=names, **kwargs)
