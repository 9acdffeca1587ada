"""Storage-type inference on a Symbol (`Symbol.infer_storage_type`).

A compiled plan computes on dense values (see `gluonlite.ndarray.sparse`); what this pass
tells is the storage type each entry would have in MXNet 1.9.1 (and has, where a graph runs on
sparse storage: `gluonlite.executor.storage_run`), by the operators' storage rules, the same
the imperative calls follow (`gluonlite.ops.sparse.rule.output_stypes`).
"""
from ..ndarray.ndarray import _STORAGE_TYPE_ID_TO_STR, check_stype
from ..ops.sparse.rule import output_stypes

__all__ = ["infer_storage_types", "gradient_storage_types", "declared_storage_types"]


def _var_stype(node, known):
    if node.name in known:
        return check_stype(known[node.name], f"infer_storage_type: {node.name!r}",
                           sparse_ok=True)
    code = node.attrs.get("__storage_type__")
    if code is None:
        return "default"
    return _STORAGE_TYPE_ID_TO_STR.get(int(code), "default")


def declared_storage_types(symbol):
    """{input name: the storage type its variable declares} (``sym.var(..., stype=...)``'s
    ``__storage_type__`` attribute; 'default' where none is declared).

    Args:
        symbol: the Symbol whose variables are read.

    Returns:
        dict.

    Example::

        from gluonlite.symbol.storage import declared_storage_types
        y = sym.dot(sym.var('x', stype='csr'), sym.var('w'))
        declared_storage_types(y)     # {'x': 'csr', 'w': 'default'}
    """
    return {n.name: _var_stype(n, {}) for n in symbol._nodes() if n.op is None}


def infer_storage_types(symbol, known):
    """(arg_stypes, out_stypes, aux_stypes) of `symbol` given `known` (name -> storage type);
    other variables take their ``__storage_type__`` attribute, else 'default'.

    Example::

        from gluonlite.symbol.storage import infer_storage_types
        y = sym.var('x') * 2
        infer_storage_types(y, {'x': 'row_sparse'})   # (['row_sparse'], ['row_sparse'], [])

    Raises:
        ValueError: an unknown storage type, or a node whose operator refuses its inputs'
            storage types (the message names the node).
    """
    unknown = set(known) - set(symbol.list_inputs())
    if unknown:
        raise ValueError(f"infer_storage_type: unknown input(s) {sorted(unknown)}; inputs are "
                         f"{symbol.list_inputs()}")
    stypes = {}
    for node in symbol._nodes():
        if node.op is None:
            stypes[(id(node), 0)] = _var_stype(node, known)
            continue
        ins = [stypes[(id(src), i)] for src, i in node.inputs]
        try:
            outs = output_stypes(node.op, node.params, ins)
            outs += ["default"] * (node.num_outputs() - len(outs))
        except (ValueError, TypeError) as e:
            raise ValueError(f"infer_storage_type: node {node.name!r}: {e}") from None
        for k, st in enumerate(outs):
            stypes[(id(node), k)] = st
    by_name = {n.name: stypes[(id(n), 0)] for n in symbol._nodes() if n.op is None}
    args = [by_name[n] for n in symbol.list_arguments()]
    aux = [by_name[n] for n in symbol.list_auxiliary_states()]
    outs = [stypes[(id(n), i)] for n, i in symbol._outputs]
    return args, outs, aux


# Operators whose gradient's storage MXNet's graph executor decides from the attributes
# alone: Embedding's weight gets rows only with sparse_grad=True, whatever it declares
# (test_sparse_operator.py::test_sparse_embedding).
_GRAD_STYPE_BY_ATTRS = frozenset(("Embedding",))


def gradient_storage_types(symbol):
    """{argument name: the storage type of its gradient} as MXNet's backward storage
    inference gives it: 'row_sparse' for an argument every reader of which gives its
    gradient as rows, for the storage types the variables declare (``Embedding(
    sparse_grad=True)``'s weight, ``contrib.SparseEmbedding``'s, the weight of ``dot`` of a
    variable declared csr), else 'default'. `simple_bind` allocates the gradient buffers
    so.

    Args:
        symbol: the Symbol.

    Returns:
        dict.

    Example::

        from gluonlite.symbol.storage import gradient_storage_types
        y = sym.Embedding(sym.var('x'), sym.var('w'), input_dim=10, output_dim=2,
                          sparse_grad=True)
        gradient_storage_types(y)     # {'x': 'default', 'w': 'row_sparse'}
    """
    readers = {}
    for node in symbol._nodes():
        if node.op is None:
            continue
        rule = node.op.storage
        # the rule's gradient for the storage types the node's variables declare (a csr
        # batch read by dot), or, all dense, what the operator's attributes alone decide
        declared = tuple(_var_stype(src, {}) if src.op is None else "default"
                         for src, _ in node.inputs)
        sparse_in = node.op.name not in _GRAD_STYPE_BY_ATTRS and \
            any(st != "default" for st in declared)
        rows = rule is not None and rule.grad is not None and \
            rule.grad(node.params, declared if sparse_in else None) is not None
        for k, (src, _) in enumerate(node.inputs):
            if src.op is None:
                # a csr input's own gradient is not rows
                readers.setdefault(src.name, []).append(
                    rows and declared[k] != "csr" and node.op.differentiable(k, node.params))
    return {n: "row_sparse" if readers.get(n) and all(readers[n]) else "default"
            for n in symbol.list_arguments()}
