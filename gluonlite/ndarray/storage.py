"""The one storage-type dispatcher of imperative calls (MXNet's FInferStorageType dispatch).

`invoke` hands it every call with a sparse input (and those whose operator's storage rule
also takes dense inputs for the attributes given, such as ``cast_storage`` to a sparse type).
It asks the operator's storage rule (`gluonlite.ops.sparse.rule.StorageRule`) for the kernel
of the inputs' storage types: the kernel computes on the compressed parts and returns the
storage MXNet 1.9.1 gives; where the operator has no kernel for them, the call falls back to
dense storage (the dense kernel on the dense values, a dense result), with a
`StorageFallbackWarning` (by Python's default filter once per place and operator, storage types
and attributes, as MXNet logs it once).

Under ``autograd.record()`` a call the kernel computed records the storage rule's sparse
gradient where it has one (``Embedding``'s and ``dot``'s row_sparse rows), else the dense
operator's gradient on the dense values (MXNet computes those gradients densely too).

Set ``MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0`` to silence the warnings, as in MXNet.

Example::

    x = nd.ones((2, 3)).tostype('csr')
    nd.square(x).stype        # 'csr'      (a kernel: zero-preserving)
    nd.exp(x).stype           # 'default'  (exp(0) = 1: dense fallback, with the warning)
"""
import os
import warnings

from .. import autograd_tape
from ..ops.registry import RunCtx
from .invoke import install_storage_dispatch, run_dense
from .ndarray import NDArray
from .sparse import wrap

__all__ = ["StorageFallbackWarning", "dispatch"]


class StorageFallbackWarning(UserWarning):
    """An operator ran on the dense values of sparse inputs (it has no kernel for their
    storage types): correct, but the sparse arrays were made dense for it.

    Example::

        import warnings
        from gluonlite.ndarray.storage import StorageFallbackWarning
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', StorageFallbackWarning)
            y = nd.exp(nd.ones((2, 2)).tostype('csr'))   # computed on the dense values
        y.stype   # 'default'
    """


def _warn_fallback(op, stypes, p):
    # Python's warning filters decide how often it shows: by default once per place in the
    # code and message (operator, storage types, attributes), as MXNet logs each once;
    # simplefilter('always') shows every one
    if os.environ.get("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "1") in ("0", "false", "False"):
        return
    attrs = {k: v for k, v in p.items() if not k.startswith("_")}
    warnings.warn(f"Storage type fallback detected: operator = {op.name}, input storage types "
                  f"= [{', '.join(s or 'none' for s in stypes)}], params = {attrs}: the "
                  "operator has no kernel for these storage types, so its dense kernel runs on "
                  "temporary dense copies (the result is correct). Set the environment "
                  "variable MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 to silence this warning.",
                  StorageFallbackWarning, stacklevel=4)


def _densified(x):
    """A sparse array as a dense NDArray holding the same autograd entry (so a dense operator
    run on it records its gradient to the sparse array's node)."""
    if x is None or x.__class__ is NDArray:
        return x
    d = NDArray(x._data, x._ctx)
    d._entry = x._entry
    return d


def dispatch(plan, inputs, ctx):
    """Run the call `plan` on NDArray `inputs` (some sparse) on context `ctx`: the operator's
    storage kernel for their storage types, or its dense kernel on their dense values.

    Returns the visible output NDArrays (sparse where the kernel made them so).

    Raises:
        ValueError: a storage combination the operator refuses (its message names them).

    Example::

        from gluonlite.ndarray.invoke import plan_for
        from gluonlite.ndarray.storage import dispatch
        from gluonlite.ops import registry
        x = nd.ones((2, 2)).tostype('csr')
        dispatch(plan_for(registry.get('square'), {}), [x], mx.cpu())[0].stype   # 'csr'
    """
    op, p = plan.op, plan.p
    rule = op.storage
    stypes = tuple(None if x is None else x.stype for x in inputs)
    raws = [None if x is None else (x.raw() if x._sparse else x._data) for x in inputs]
    rc = RunCtx(autograd_tape.is_training(), ctx.xp)
    res = None if rule is None else rule.kernel(p, rc, *raws)
    if res is None:
        if any(s not in (None, "default") for s in stypes):
            _warn_fallback(op, stypes, p)
        dense = [_densified(x) for x in inputs]
        outs = run_dense(plan, dense, ctx)
        if op.has_aux:
            # an auxiliary state the dense kernel updated in place (BatchNorm's moving
            # statistics) is written back into the sparse array, as MXNet's fallback does
            for x, d, aux in zip(inputs, dense, op.aux_mask(p)):
                if aux and x is not None and x._sparse:
                    x._assign_dense(d._data)
        return outs
    raw_outs = res if isinstance(res, tuple) else (res,)
    if rule.inplace:  # the kernel may have replaced a sparse input's parts
        for x, r in zip(inputs, raws):
            if x is not None and x._sparse:
                x._set_raw(r)
    outs = []
    for r in raw_outs:
        same = next((x for x, raw in zip(inputs, raws) if raw is r), None)
        outs.append(same if same is not None else wrap(r, ctx))
    if autograd_tape.is_recording() and not rule.inplace:
        _record(plan, rule, rc, inputs, raws, raw_outs, outs, stypes, ctx)
    n = plan.n_visible
    return outs if n == len(outs) else outs[:n]


def _record(plan, rule, rc, inputs, raws, raw_outs, outs, stypes, ctx):
    """Record a call the storage kernel computed: the rule's sparse gradient, or the dense
    operator's run on the dense values (its node then stands for the sparse result)."""
    entries = [x if (x is not None and plan.diff[i]) else None for i, x in enumerate(inputs)]
    if not any(e is not None and e._entry is not None for e in entries):
        return
    grad = rule.grad(plan.p, stypes) if rule.grad is not None else None
    if grad is not None:
        p = plan.p

        def vjp(gys, need, _raws=raws, _ys=raw_outs):
            return grad(p, rc, _raws, _ys, gys, need)
        autograd_tape.record_node(entries, vjp, outs, plan.op.name)
        return
    dense = run_dense(plan, [_densified(x) for x in inputs], ctx)
    for o, d in zip(outs, dense):
        o._entry = d._entry


install_storage_dispatch(dispatch)
