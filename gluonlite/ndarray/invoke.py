"""Running one registered operator on NDArrays, recording it when autograd asks."""
from .. import autograd
from ..ops.registry import RunCtx

_param_cache = {}


def parse_cached(op, attrs):
    """op.parse(attrs)[0], memoized on the attribute values (most calls repeat them)."""
    try:
        key = (op.name, tuple(sorted(attrs.items())))
        hit = _param_cache.get(key)
    except TypeError:  # an unhashable attribute value: parse without caching
        return op.parse(attrs)[0]
    if hit is None:
        if len(_param_cache) > 4096:
            _param_cache.clear()
        hit = _param_cache[key] = op.parse(attrs)[0]
    return hit


def _check_ctx(op, inputs):
    ctx = None
    for x in inputs:
        if x is None:
            continue
        if ctx is None:
            ctx = x._ctx
        elif x._ctx != ctx:
            raise ValueError(f"{op.name}: inputs are on different contexts ({ctx} and {x._ctx}); "
                             "move them with as_in_context() first")
    return ctx


def invoke(op, inputs, attrs, ctx=None):
    """Run `op` on NDArray `inputs` (a list aligned with its input names) with `attrs`.

    Returns the list of visible output NDArrays. Records a tape node when autograd is
    recording and some input needs a gradient.

    Raises:
        ValueError: shapes that do not fit (naming the operator and the shapes), mixed contexts.
    """
    from .ndarray import NDArray
    p = parse_cached(op, attrs)
    ctx = _check_ctx(op, inputs) or ctx
    if ctx is None:
        from ..context import current_context
        ctx = Context_from(p) or current_context()
    if op.shape_rule is not None:
        op.infer_shape(p, [None if x is None else x._data.shape for x in inputs])
    xs = [None if x is None else x._data for x in inputs]
    rc = RunCtx(autograd.is_training(), ctx.xp)
    ys = op.forward(p, rc, xs)
    outs = [NDArray(y, ctx) for y in ys]
    if op.vjp is not None and autograd.is_recording():
        names = op.input_names(p)
        diff = [x if (x is not None and op.differentiable(i, p)) else None
                for i, (x, _) in enumerate(zip(inputs, names))]

        def vjp(gys, need, _p=p, _rc=rc, _xs=xs, _ys=ys):
            return op.vjp(_p, _rc, _xs, _ys, gys, need)

        autograd.record_node(diff, vjp, outs, op.name)
    return outs[:op.num_visible(p)]


def Context_from(p):
    """The context named by a creation operator's `ctx` attribute ('cpu(0)'), if any."""
    from ..context import Context
    s = p.get("ctx") if isinstance(p, dict) else None
    if not s:
        return None
    if isinstance(s, Context):
        return s
    kind, _, rest = str(s).partition("(")
    return Context(kind, int(rest.rstrip(")") or 0))
