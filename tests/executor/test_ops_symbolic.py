"""Every registered operator, symbolic (bound Executor, CachedOp) vs imperative (nd +
autograd): same outputs, same gradients."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, sym
from gluonlite.executor import CachedOp
from gluonlite.ops import registry

from op_examples import examples

EXAMPLES = examples()


def _no_outputs(op):
    """An operator with no outputs (reset_arrays) only acts in place: no graph can hold it."""
    try:
        return op.num_outputs(op.parse({k: 1 for k, a in op.attrs.items()
                                         if a.required})[0]) == 0
    except (TypeError, ValueError):
        return False


def _graphable(ex):
    """Whether a compiled graph can hold this call: not an operator whose output shape depends
    on its input values (boolean_mask: a plan needs every shape before it runs), not a call
    with no outputs (reset_arrays only writes its inputs in place)."""
    name, inputs, attrs = ex
    op = registry.get(name)
    if op.shape_from_values:
        return False
    counted = op.variadic and op.variadic not in attrs
    p = op.parse(dict(attrs, **({op.variadic: len(inputs)} if counted else {})))[0]
    return op.num_outputs(p) > 0


GRAPHED = [ex for ex in EXAMPLES if _graphable(ex)]


def test_every_registered_operator_has_an_example():
    covered = {registry.get(name).name for name, _, _ in EXAMPLES}
    missing = [op.name for op in registry.all_ops()
               if op.name not in covered and not op.name.startswith(("_foreach", "_while",
                                                                     "_cond", "_default",
                                                                     "_sg_fuse",
                                                                     "_fused_elementwise"))
               and not getattr(op, "stateful", False) and not _no_outputs(op)]
    assert not missing, f"operators without a symbolic example: {missing}"


def _id(ex):
    return f"{ex[0]}-{'-'.join(f'{k}={v}' for k, v in ex[2].items())}"[:60]


def _imperative(name, inputs, attrs, diff, head_grads, seed):
    mx.random.seed(seed)
    xs = [nd.array(x, dtype=x.dtype) for x in inputs]
    for x, d in zip(xs, diff):
        if d:
            x.attach_grad()
    f = getattr(nd, name)
    if not any(diff):
        with autograd.train_mode():
            outs = f(*xs, **attrs)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        return [o.asnumpy() for o in outs], []
    with autograd.record():
        outs = f(*xs, **attrs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    autograd.backward(outs, [nd.array(g, dtype=g.dtype) for g in head_grads])
    return [o.asnumpy() for o in outs], [x.grad.asnumpy() for x, d in zip(xs, diff) if d]


def _symbolic(name, inputs, attrs, diff, head_grads, seed):
    op = registry.get(name)
    vs = [sym.var(f"in{i}") for i in range(len(inputs))]
    y = getattr(sym, name)(*vs, **attrs)
    names = [f"in{i}" for i in range(len(inputs))]
    aux = set(y.list_auxiliary_states())
    args = {n: nd.array(x, dtype=x.dtype) for n, x in zip(names, inputs) if n not in aux}
    aux_states = {n: nd.array(x, dtype=x.dtype) for n, x in zip(names, inputs) if n in aux}
    grads = {n: nd.zeros(x.shape, dtype=x.dtype) for n, x, d in zip(names, inputs, diff) if d}
    reqs = {n: ("write" if n in grads else "null") for n in args}
    exe = y.bind(mx.current_context(), args, args_grad=grads, grad_req=reqs, aux_states=aux_states)
    mx.random.seed(seed)
    outs = [o.asnumpy() for o in exe.forward(is_train=True)]
    assert len(outs) == op.num_visible(op.parse(dict(attrs, **(
        {op.variadic: len(inputs)} if op.variadic and op.variadic not in attrs else {})))[0])
    if grads:
        exe.backward([nd.array(g, dtype=g.dtype) for g in head_grads])
    return outs, [grads[n].asnumpy() for n in names if n in grads]


@pytest.fixture(autouse=True)
def _numpy_shapes_for_numpy_ops(request):
    """The NumPy dialect's operators run under NumPy shape semantics (0-d arrays, zero-size
    dimensions), as they do there."""
    ex = request.node.callspec.params.get("ex") if hasattr(request.node, "callspec") else None
    with mx.np_shape(bool(ex) and ex[0].startswith("_np")):
        yield


@pytest.mark.parametrize("ex", GRAPHED, ids=_id)
def test_symbolic_matches_imperative(ex, on_ctx):
    name, inputs, attrs = ex
    op = registry.get(name)
    counted = op.variadic and op.variadic not in attrs
    p = op.parse(dict(attrs, **({op.variadic: len(inputs)} if counted else {})))[0]
    diff = [op.vjp is not None and op.differentiable(i, p) and x.dtype.kind == "f"
            for i, x in enumerate(inputs)]
    # BatchNorm's moving statistics change in place during a training forward: give each
    # path its own copy.
    ref_outs, _ = _imperative(name, [x.copy() for x in inputs], attrs, [False] * len(inputs),
                              [], 7)
    rng = np.random.default_rng(1)
    head_grads = [rng.standard_normal(o.shape).astype(o.dtype) for o in ref_outs]
    want_outs, want_grads = _imperative(name, [x.copy() for x in inputs], attrs, diff,
                                        head_grads, 7)
    got_outs, got_grads = _symbolic(name, [x.copy() for x in inputs], attrs, diff,
                                    head_grads, 7)
    assert len(got_outs) == len(want_outs)
    for g, w in zip(got_outs, want_outs):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ex", GRAPHED, ids=_id)
def test_cached_op_static_alloc_matches_imperative_inference(ex, on_ctx):
    name, inputs, attrs = ex
    if registry.get(name).random:
        pytest.skip("random operator: values differ by design between calls")
    want, _ = _imperative(name, [x.copy() for x in inputs], attrs, [False] * len(inputs), [], 0)
    vs = [sym.var(f"in{i}") for i in range(len(inputs))]
    y = getattr(sym, name)(*vs, **attrs)
    op = CachedOp(y, static_alloc=True)
    order = {n: i for i, n in enumerate(f"in{i}" for i in range(len(inputs)))}
    args = [nd.array(inputs[order[n]], dtype=inputs[order[n]].dtype) for n in op.input_names]
    for _ in range(2):
        with autograd.train_mode():
            got = [o.asnumpy() for o in op(*[a.copy() for a in args])]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
