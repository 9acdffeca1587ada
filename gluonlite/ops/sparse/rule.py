"""An operator's storage rule: which sparse storage combinations it computes, and how.

As MXNet's FInferStorageType and FComputeEx: given the storage types of its inputs (and its
attributes), an operator either computes on the compressed parts, returning the storage type
MXNet 1.9.1 gives, or falls back to dense storage: its dense kernel runs on the dense values
(with a warning, as MXNet's storage fallback logs). One dispatcher in the imperative invoke
path asks the rule (`gluonlite.ndarray.storage`); a compiled plan computes on dense values and
asks the rule only for the storage types it infers (`output_stypes`), while a graph bound or
called with sparse arrays runs its nodes through that dispatcher
(`gluonlite.executor.storage_run`).

Example::

    from gluonlite.ops.sparse.rule import StorageRule
    from gluonlite.ops.sparse.elementwise import map_values
    rule = StorageRule(lambda p, rc, x: map_values(x, np.square))
    # given as register("square", ..., storage=rule)
"""
import numpy as np

from ..registry import RunCtx, _Frozen
from .arrays import zeros

__all__ = ["StorageRule", "output_stypes", "stype_of"]


class StorageRule(_Frozen):
    """How an operator computes on sparse storage (all optional but `kernel`).

    Args:
        kernel: ``kernel(p, rc, *xs) -> result or None``: `xs` are the raw inputs (numpy
            arrays for dense storage, `arrays.RowSparse`/`arrays.CSR` for sparse), the result
            raw too (a tuple for several outputs), in the storage MXNet gives; None where
            MXNet falls back to dense storage for these storage types and attributes. A
            combination MXNet refuses raises ValueError naming the operator and the types.
        dense_too: ``p -> bool``: the kernel also runs on dense inputs for these attributes
            (``cast_storage`` to a sparse type, ``dot`` with a ``forward_stype``).
        grad: ``grad(p, in_stypes) -> vjp or None``: the gradient in sparse storage for
            inputs of these storage types (``in_stypes`` None: all dense), a rule
            ``vjp(p, rc, xs, ys, gys, need)`` reading the raw inputs and giving row_sparse
            gradients as `grads.RowSparseRows` (``Embedding`` of a row_sparse weight, or with
            ``sparse_grad=True``); None: autograd records the dense operator's gradient on
            the dense values.
        inplace: the kernel updates its inputs' parts in place (an optimizer's weight and
            states) and may return an input itself: the arrays are kept.
        stypes: ``stypes(p, in_stypes) -> list``: the outputs' storage types, declared by
            an operator whose kernel checks its inputs' shapes, dtypes and values (the DGL
            graph operators) and so cannot run on `output_stypes`' all-zero probes; it raises
            ValueError for storage types the operator refuses, and the kernel returns
            outputs of the types it gives.

    Example::

        from gluonlite.ops.sparse.rule import StorageRule
        from gluonlite.ops.sparse.elementwise import map_values
        rule = StorageRule(lambda p, rc, x: map_values(x, np.square))
        rule.kernel, rule.inplace           # (<function <lambda> ...>, False)
    """

    __slots__ = ("kernel", "dense_too", "grad", "inplace", "stypes")

    def __init__(self, kernel, *, dense_too=None, grad=None, inplace=False, stypes=None):
        self._set(kernel=kernel, dense_too=dense_too, grad=grad, inplace=bool(inplace),
                  stypes=stypes)


def stype_of(x):
    """The storage type of raw array `x` ('default' for a dense one, None for None).

    Example::

        from gluonlite.ops.sparse.rule import stype_of
        from gluonlite.ops.sparse.arrays import zeros
        stype_of(np.ones(2)), stype_of(zeros("csr", (2, 2), np.float32)), stype_of(None)
        # ('default', 'csr', None)
    """
    if x is None:
        return None
    return getattr(x.__class__, "stype", "default")


def _probe(stype, dense_shape):
    if stype == "default":
        return np.zeros(dense_shape, np.float32)
    return zeros(stype, (2, 2), np.float32)


def output_stypes(op, p, in_stypes):
    """The storage types of `op`'s outputs for inputs of storage types `in_stypes` and parsed
    attributes `p`: its storage rule's kernel run on small all-zero inputs of those types
    (2 x 2; (1, 2) for the dense operand of a broadcast), so inference and computation cannot
    disagree, or the rule's `stypes` where it declares them. An operator without a rule, or
    falling back, gives 'default' throughout.

    Raises:
        ValueError: the rule refuses the storage types (the message names the operator).

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.sparse.rule import output_stypes
        op = registry.get('dot')
        p = op.parse({'transpose_a': 'True'})[0]
        output_stypes(op, p, ['csr', 'default'])   # ['row_sparse']
    """
    n_out = op.num_visible(p)
    rule = op.storage
    if rule is None or (all(s == "default" for s in in_stypes) and
                        not (rule.dense_too and rule.dense_too(p))):
        return ["default"] * n_out
    if rule.stypes is not None:
        return list(rule.stypes(p, list(in_stypes)))
    dense_shape = (1, 2) if op.name.startswith("broadcast_") else (2, 2)
    res = rule.kernel(p, RunCtx(False, np), *[_probe(s, dense_shape) for s in in_stypes])
    if res is None:
        return ["default"] * n_out
    outs = res if isinstance(res, tuple) else (res,)
    return [stype_of(o) for o in outs][:n_out] + ["default"] * (n_out - len(outs))
