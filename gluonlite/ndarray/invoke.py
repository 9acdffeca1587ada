"""Running one registered operator on NDArrays, recording it when autograd asks.

The hot path of every imperative call. What depends only on the attributes (parsed params,
input names, which inputs take a gradient, which must share a dtype) is computed once per
distinct attribute set and kept in a `CallPlan`; the shape and dtype checks run once per
distinct (shapes, dtypes) of the inputs and are remembered in the plan. Every check still
happens before an operator sees inputs it has not validated.
"""

import math
from itertools import repeat
from operator import attrgetter, is_

import numpy as np

from .. import _profiling, autograd_tape
from ..base import MXNetTypeError, MXNetValueError
from ..ops import float_errors
from ..ops.registry import RunCtx
from ..context import Context, current_context

__all__ = ["invoke", "run_plan", "run_dense", "run_update", "plan_for", "parse_cached",
           "CallPlan", "register_call_rewrite", "install_storage_dispatch", "install_array_type"]

_PLANS = {}
_MAX_PLANS = 4096
_MAX_SIGS = 256
_RUNCTX = {}
# {operator name: rewrite(plan, inputs) -> (plan, inputs) or None}: a graph pass's
# imperative twin (`register_call_rewrite`), tried on every call of the operator.
_CALL_REWRITES = {}


# [dispatch(plan, inputs, ctx)]: the storage-type dispatcher (`gluonlite.ndarray.storage`,
# which installs itself: it builds sparse arrays, a type above this module)
_STORAGE = [None]


def install_storage_dispatch(fn):
    """Install ``fn(plan, inputs, ctx) -> outputs``, the dispatcher of calls with sparse
    inputs (`gluonlite.ndarray.storage.dispatch`); returns it.

    Example::

        from gluonlite.ndarray import storage
        from gluonlite.ndarray.invoke import install_storage_dispatch
        install_storage_dispatch(storage.dispatch)   # what gluonlite.ndarray.storage does
    """
    _STORAGE[0] = fn
    return fn


def register_call_rewrite(op_name, rewrite):
    """Register the imperative twin of a graph pass: for every call of `op_name`,
    ``rewrite(plan, inputs)`` may return the call to make instead, ``(CallPlan, inputs)``
    computing the same visible outputs (it reads what the inputs are, or how autograd
    recorded them, as the pass reads the graph), or None. It runs on every call, so it
    returns None quickly when the inputs give it nothing to do. The call it returns runs
    as it is, no rewrite tried on it.
    The layer defining the pass registers it.

    Args:
        op_name: the operator's registered name.
        rewrite: ``rewrite(plan, inputs) -> (CallPlan, inputs) or None``.

    Returns:
        `rewrite`.

    Raises:
        ValueError: `op_name` has a rewrite already.

    Example::

        from gluonlite.ndarray import invoke
        invoke.register_call_rewrite('softsign', lambda plan, inputs: None)   # keep each call
        del invoke._CALL_REWRITES['softsign']   # as it was
    """
    if op_name in _CALL_REWRITES:
        raise ValueError(f"register_call_rewrite: {op_name!r} has a rewrite already")
    _CALL_REWRITES[op_name] = rewrite
    return rewrite


class CallPlan:
    """What one operator call needs that depends only on its attributes.

    Attributes:
        op: the `Operator`.
        p: the parsed `Params`.
        names: the input names for these params.
        n_visible: how many outputs the caller sees.
        diff: per input, whether it can receive a gradient.
        group: indices of the inputs that must share one dtype.
        checked: the (shape, dtype) signatures of inputs already validated.
        sparse_vjp: the operator's row_sparse gradient rule when its attributes ask for one
            (``Embedding(sparse_grad=True)``; its storage rule's), else None.
        storage_dense: the operator's storage rule takes dense inputs too for these
            attributes (``cast_storage`` to a sparse type): every call goes to the storage
            dispatcher.

    Example::

        from gluonlite.ndarray.invoke import plan_for
        from gluonlite.ops import registry
        plan = plan_for(registry.get('clip'), {'a_min': 0, 'a_max': 1})
        plan.names, plan.n_visible   # (['data'], 1)
    """

    __slots__ = ("op", "p", "names", "n_visible", "diff", "group", "checked", "ctx_attr",
                 "sparse_vjp", "storage_dense", "headless")

    def __init__(self, op, p):
        self.op, self.p = op, p
        self.names = op.input_names(p)
        self.n_visible = op.num_visible(p)
        self.diff = [op.differentiable(i, p) for i in range(len(self.names))]
        self.group = op.dtype_group(p)
        self.checked = set()
        self.ctx_attr = context_from(p)
        rule = op.storage
        self.sparse_vjp = rule.grad(p, None) if rule is not None and rule.grad else None
        self.storage_dense = bool(rule is not None and rule.dense_too and rule.dense_too(p))
        self.headless = op.ignores_head_grad(p)  # an output layer (`TapeNode.headless`)


def _key(op, attrs):
    # The value's type is part of the key: 1, 1.0 and True hash alike but parse differently.
    return (op, tuple(zip(attrs, map(type, attrs.values()), attrs.values())))


def _signed_zeros(key, attrs):
    """`key` with the sign of each float zero among `attrs` added, or None without one:
    -0.0 equals 0.0 and hashes alike, but ``x / -0.0`` is ``-x / 0.0``. Plans with a zero
    float are kept under this key only, so a call pays for it only when its plain key
    missed."""
    signs = tuple((k, math.copysign(1.0, v)) for k, v in attrs.items()
                  if v.__class__ is float and v == 0.0)
    return key + (signs,) if signs else None


def plan_for(op, attrs):
    """The `CallPlan` of `op` with attribute dict `attrs` (parsed once, then cached).

    Raises:
        TypeError, ValueError: unknown, missing or malformed attributes (see Operator.parse).

    Example::

        from gluonlite.ndarray.invoke import plan_for
        from gluonlite.ops import registry
        op = registry.get('clip')
        plan_for(op, {'a_min': 0, 'a_max': 1}) is plan_for(op, {'a_min': 0, 'a_max': 1})   # True
    """
    try:
        key = _key(op, attrs)
        plan = _PLANS.get(key)
    except TypeError:  # an unhashable attribute value (a list): no caching
        return CallPlan(op, op.parse(attrs)[0])
    if plan is None:
        signed = _signed_zeros(key, attrs)
        if signed is not None:
            key = signed
            plan = _PLANS.get(key)
    if plan is None:
        plan = CallPlan(op, op.parse(attrs)[0])
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def parse_cached(op, attrs):
    """op.parse(attrs)[0], memoized on the attribute values (most calls repeat them).

    Args:
        op: the registered `Operator`.
        attrs: {attribute name: value} as a caller passes them.

    Returns:
        the operator's parsed attributes (a mapping of every attribute, defaults filled in).

    Raises:
        TypeError, ValueError: attributes the operator's parser rejects.

    Example::

        from gluonlite.ndarray.invoke import parse_cached
        from gluonlite.ops import registry
        parse_cached(registry.get('clip'), {'a_min': 0, 'a_max': 1})['a_max']   # 1.0
    """
    return plan_for(op, attrs).p


def _validate(plan, xs, sig):
    """Run the dtype and shape rules on the raw inputs; remember the signature when they pass."""
    op, p = plan.op, plan.p
    op.check_dtypes(p, [None if x is None else x.dtype for x in xs])
    if op.shape_rule is not None:
        op.infer_shape(p, [None if x is None else x.shape for x in xs])
    if len(plan.checked) >= _MAX_SIGS:
        plan.checked.clear()
    plan.checked.add(sig)


# [NDArray]: the array type calls return (`gluonlite.ndarray.ndarray` puts it here: it is
# built on this module)
_ARRAY = [None]


def install_array_type(cls):
    """Make `cls` the array type a call wraps its outputs in (done by
    `gluonlite.ndarray.ndarray` when it loads); returns it.

    Example::

        from gluonlite.ndarray.invoke import install_array_type
        install_array_type(nd.NDArray)   # what gluonlite.ndarray.ndarray does
    """
    _ARRAY[0] = cls
    return cls


def _runctx(is_train, xp):
    rc = _RUNCTX.get((is_train, xp))
    if rc is None:
        rc = _RUNCTX[(is_train, xp)] = RunCtx(is_train, xp)
    return rc


def _mixed_ctx(op, inputs):
    ctxs = []
    for x in inputs:
        if x is not None and x._ctx not in ctxs:
            ctxs.append(x._ctx)
    return MXNetValueError(f"{op.name}: inputs are on different contexts "
                           f"({', '.join(map(str, ctxs))}); move them to one context with "
                           "as_in_context() first")


def _kernel_error(op, e, xs):
    shapes = ", ".join("None" if x is None else f"{tuple(x.shape)} {x.dtype}" for x in xs)
    msg = f"{op.name}: {e} (inputs: {shapes})"
    return MXNetTypeError(msg) if isinstance(e, TypeError) else MXNetValueError(msg)


def _unaliased(ys, xs, xp):
    """`ys` with every output that shares memory with an input copied: an imperative call
    returns new arrays, as MXNet's do, so writing to one never changes the other (a kernel
    may return a view of its input, e.g. reshape or squeeze; the compiled path keeps those).
    A numpy scalar (what numpy gives for 0-d operands) becomes a 0-d array."""
    for i, y in enumerate(ys):
        if y.__class__ is np.ndarray and y.base is None and not any(map(is_, repeat(y), xs)):
            continue  # the usual output, an array of its own: no input can share its memory
        if y.__class__ is not np.ndarray:
            if y is None:
                continue
            if isinstance(y, np.generic):
                # numpy gives a scalar for an operation on 0-d arrays: keep an array
                ys = list(ys)
                ys[i] = xp.asarray(y)
                continue
            if getattr(y, "base", None) is None and not any(map(is_, repeat(y), xs)):
                continue  # an array of its own (of another array module)
        if any(x is not None and xp.may_share_memory(y, x) for x in xs):
            ys = list(ys)
            ys[i] = y.copy()
    return ys


def run_plan(plan, inputs, ctx=None):
    """Run a planned call on NDArray `inputs` (a list aligned with `plan.names`, None where an
    optional input is absent). Returns the list of visible output NDArrays. numpy's
    floating-point errors are ignored while the operator runs: ``log(0)`` is ``-inf``
    without a RuntimeWarning, as on MXNet (`gluonlite.ops.float_errors`).

    Args:
        plan: the `CallPlan` of `plan_for` (the operator with its parsed attributes).
        inputs: the input NDArrays, aligned with the operator's input names (None for an
            absent optional one).
        ctx: the Context of a call with no input array (creation operators; default None:
            the operator's ctx attribute, else the current context). A call with inputs
            runs on their context.

    Returns:
        list of NDArray: the visible outputs.

    Raises:
        ValueError: inputs on different contexts; shapes that do not fit (the message names
            the operator and the shapes).
        TypeError: inputs whose dtypes must match but do not.

    Example::

        from gluonlite.ndarray.invoke import plan_for, run_plan
        from gluonlite.ops import registry
        plan = plan_for(registry.get('relu'), {})
        run_plan(plan, [nd.array([-1, 2])])[0].asnumpy()   # [0. 2.]
    """
    token = float_errors.quiet()
    try:
        if _profiling.ACTIVE:
            return _profiling.timed_op(plan.op.name, _run_plan, plan, inputs, ctx)
        return _run_plan(plan, inputs, ctx)
    finally:
        float_errors.restore(token)


def _run_plan(plan, inputs, ctx):
    op = plan.op
    if op.name in _CALL_REWRITES:
        instead = _CALL_REWRITES[op.name](plan, inputs)
        if instead is not None:
            if _profiling.ACTIVE:  # the profile names the operator that ran as well
                return run_plan(instead[0], instead[1], ctx)
            plan, inputs = instead
            op = plan.op
    sparse = plan.storage_dense
    c = None
    for x in inputs:
        # one test per input in the usual call: dense, on the context of the first
        if x is not None and (x._ctx is not c or x._sparse):
            if x._sparse:
                sparse = True
            if c is None:
                c = x._ctx
            elif x._ctx is not c and x._ctx != c:
                raise _mixed_ctx(op, inputs)
    if sparse:
        return _STORAGE[0](plan, inputs, _call_ctx(plan, c, ctx))
    return _run_dense(plan, inputs, c, ctx)


def _call_ctx(plan, c, ctx):
    """The context of a call: its inputs', else the one asked for, the operator's ctx
    attribute or the current one."""
    if c is None:
        c = ctx or plan.ctx_attr
        if c is None:
            c = current_context()
    return c


def run_dense(plan, inputs, ctx=None):
    """`run_plan` without the storage dispatch: the operator's dense kernel on `inputs`
    (every one dense), recorded by autograd when it records; the dispatcher's fallback.

    Args:
        plan: the `CallPlan` of `plan_for`.
        inputs: the dense input NDArrays, aligned with the operator's input names (None for
            an absent optional one).
        ctx: the Context of a call with no input array (creation operators; default None:
            the operator's ctx attribute, else the current context). A call with inputs
            runs on their context.

    Returns:
        list of NDArray: the visible outputs.

    Raises:
        ValueError, TypeError: as `run_plan`.

    Example::

        from gluonlite.ndarray.invoke import plan_for, run_dense
        from gluonlite.ops import registry
        plan = plan_for(registry.get('relu'), {})
        run_dense(plan, [nd.array([-1, 2])])[0].asnumpy()   # [0. 2.]
    """
    c = next((x._ctx for x in inputs if x is not None), None)
    return _run_dense(plan, inputs, c, ctx)


_DATA, _SHAPE, _DTYPE = attrgetter("_data"), attrgetter("shape"), attrgetter("dtype")


def _run_dense(plan, inputs, c, ctx):
    op = plan.op
    if c is None:
        c = _call_ctx(plan, c, ctx)
    if any(map(is_, inputs, repeat(None))):
        xs = [None if x is None else x._data for x in inputs]
        sig = tuple(None if x is None else (x.shape, x.dtype) for x in xs)
    else:  # the same, at C speed
        xs = list(map(_DATA, inputs))
        sig = tuple(zip(map(_SHAPE, xs), map(_DTYPE, xs)))
    if sig not in plan.checked:
        _validate(plan, xs, sig)
    p = plan.p
    rc = _runctx(autograd_tape.is_training(), c.xp)
    try:
        ys = op.forward(p, rc, xs)
    except (ValueError, IndexError, TypeError) as e:
        if str(e).startswith(op.name + ":"):
            raise
        raise _kernel_error(op, e, xs) from e
    ys = _unaliased(ys, xs, rc.xp)
    wrap = _ARRAY[0]
    outs = [wrap(y, c) for y in ys]
    if autograd_tape.is_recording():
        diff = plan.diff
        entries = [x if (x is not None and diff[i]) else None for i, x in enumerate(inputs)]
        if op.vjp is not None and any(e is not None and e._entry is not None for e in entries):
            if plan.sparse_vjp is not None:
                def vjp(gys, need, _p=p, _rc=rc, _xs=xs, _ys=ys, _f=plan.sparse_vjp):
                    return _f(_p, _rc, _xs, _ys, gys, need)
                autograd_tape.record_node(entries, vjp, outs, op.name, False, plan)
                n = plan.n_visible
                return outs if n == len(outs) else outs[:n]
            # the faster gradient where there is one (rules_on, asked only of a device path)
            rule = (op.fast.vjp or op.vjp) if op.fast.device is None else op.rules_on(rc.xp)[1]
            if op.fast.writes_dests:
                def vjp(gys, need, dests=None, _p=p, _rc=rc, _xs=xs, _ys=ys):
                    return rule(_p, _rc, _xs, _ys, gys, need, dests=dests)
            else:
                def vjp(gys, need, _p=p, _rc=rc, _xs=xs, _ys=ys):
                    return rule(_p, _rc, _xs, _ys, gys, need)
            autograd_tape.record_node(entries, vjp, outs, op.name, op.fast.writes_dests, plan,
                                      (rc.is_train, c, xs, ys), plan.headless)
        elif any(x is not None and x._entry is not None for x in inputs):
            # Outputs of a non-differentiable path (comparisons, indices, BlockGrad) stay in the
            # graph with a zero gradient, so backward() from them works as in MXNet.
            autograd_tape.record_node(inputs, autograd_tape.NoGradient(len(inputs)), outs,
                                      op.name, call=plan)
    n = plan.n_visible
    return outs if n == len(outs) else outs[:n]


def run_update(plan, inputs, out):
    """`run_plan` of an update operator (``sgd_mom_update``, ...) whose new weight is written
    straight into `out`, usually the weight itself (``out=weight``, what every optimizer
    step does), by the operator's `into` kernel: no new weight-sized array, no copy back.
    Where that does not apply (an operator without `into`, autograd recording, the profiler
    on, sparse or mixed-context arrays, an `out` of another shape or dtype) it is
    ``out[:] = run_plan(plan, inputs)[0]``.

    Args:
        plan: the `CallPlan` of `plan_for` (an operator with one visible output whose `into`
            kernel may write over its first input).
        inputs: the input NDArrays, aligned with the operator's input names.
        out: the NDArray to write the output into.

    Returns:
        NDArray: `out`.

    Raises:
        ValueError, TypeError: as `run_plan`.

    Example::

        from gluonlite.ndarray.invoke import plan_for, run_update
        from gluonlite.ops import registry
        w, g = nd.ones((2,)), nd.ones((2,))
        run_update(plan_for(registry.get('sgd_update'), {'lr': 0.5}), [w, g], w)
        w.asnumpy()     # [0.5 0.5]
    """
    op = plan.op
    c = out._ctx
    fits = op.fast.into is not None and not _profiling.ACTIVE and not out._sparse and \
        not autograd_tape.is_recording()
    if fits:
        for x in inputs:
            if x is None or x._sparse or (x._ctx is not c and x._ctx != c):
                fits = False
                break
    if fits:
        xs = [x._data for x in inputs]
        o = out._data
        fits = o.shape == xs[0].shape and o.dtype == xs[0].dtype
    if not fits:
        res = run_plan(plan, inputs)[0]
        if res is not out:  # a sparse update may return its weight, updated in place
            out[:] = res
        return out
    sig = tuple((x.shape, x.dtype) for x in xs)
    if sig not in plan.checked:
        _validate(plan, xs, sig)
    token = float_errors.quiet()
    try:
        op.forward(plan.p, _runctx(autograd_tape.is_training(), c.xp), xs, out=[o])
    except (ValueError, IndexError, TypeError) as e:
        if str(e).startswith(op.name + ":"):
            raise
        raise _kernel_error(op, e, xs) from e
    finally:
        float_errors.restore(token)
    return out


def invoke(op, inputs, attrs, ctx=None):
    """Run `op` on NDArray `inputs` (a list aligned with its input names) with `attrs`.

    Args:
        op: the registered `Operator`.
        inputs: the input NDArrays, aligned with the operator's input names.
        attrs: {attribute name: value}, as a caller passes them.
        ctx: the Context of a call with no input array (creation operators; default None:
            the operator's ctx attribute, else the current context). A call with inputs
            runs on their context.

    Returns the list of visible output NDArrays. Records a tape node when autograd is
    recording and some input is part of the graph.

    Raises:
        ValueError: shapes that do not fit (naming the operator and the shapes), mixed contexts.
        TypeError: bad attributes or mismatched dtypes.

    Example::

        from gluonlite.ndarray.invoke import invoke
        from gluonlite.ops import registry
        invoke(registry.get('relu'), [nd.array([-1, 2])], {})[0].asnumpy()   # [0. 2.]
    """
    return run_plan(plan_for(op, attrs), inputs, ctx)


def context_from(p):
    """The context named by a creation operator's `ctx` attribute ('cpu(0)'), if any.

    Args:
        p: the operator's attributes, a dict (anything else names no context).

    Returns:
        Context or None: the Context given (as a Context or its string 'gpu(1)'), None
        when the attribute is absent or empty.

    Example::

        from gluonlite.ndarray.invoke import context_from
        context_from({'ctx': 'cpu(0)'}), context_from({})   # (cpu(0), None)
    """
    s = p.get("ctx") if isinstance(p, dict) else None
    if not s:
        return None
    if isinstance(s, Context):
        return s
    kind, _, rest = str(s).partition("(")
    return Context(kind, int(rest.rstrip(")") or 0))


Context_from = context_from  # the name the first version used
