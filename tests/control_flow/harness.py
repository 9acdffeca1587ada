"""One helper that runs the same model code imperatively (nd + autograd) and as a graph
(sym + bind), and compares values and gradients."""
import numpy as np

import gluonlite as mx
from gluonlite import nd, sym, autograd


def flat(x):
    """Flatten nested lists/tuples of arrays or symbols into a list."""
    if isinstance(x, (list, tuple)):
        return [e for v in x for e in flat(v)]
    return [x]


def run_imperative(build, inputs, grad_names, head_grads, dtype="float32"):
    arrs = {k: nd.array(v, dtype=v.dtype if v.dtype.kind == "i" else dtype)
            for k, v in inputs.items()}
    for k in grad_names:
        arrs[k].attach_grad()
    with autograd.record():
        outs = flat(build(nd, **arrs))
        loss = None
        for o, hg in zip(outs, head_grads):
            if hg is None:
                continue
            term = (o * nd.array(hg, dtype=o.dtype)).sum()
            loss = term if loss is None else loss + term
    if grad_names:
        loss.backward()
    return [o.asnumpy() for o in outs], {k: arrs[k].grad.asnumpy() for k in grad_names}


def run_symbolic(build, inputs, grad_names, head_grads, dtype="float32", via_json=False):
    vars_ = {k: sym.var(k) for k in inputs}
    outs = flat(build(sym, **vars_))
    g = sym.Group(outs)
    if via_json:
        g = sym.load_json(g.tojson())
    args = {k: nd.array(v, dtype=v.dtype if v.dtype.kind == "i" else dtype)
            for k, v in inputs.items() if k in g.list_inputs()}
    grads = {k: nd.zeros(args[k].shape, dtype=args[k].dtype) for k in grad_names
             if k in args}
    exe = g.bind(mx.cpu(), args, args_grad=grads or None,
                 grad_req={k: ("write" if k in grads else "null") for k in args})
    res = exe.forward(is_train=bool(grads))
    vals = [o.asnumpy() for o in res]
    if grads:
        exe.backward([None if hg is None else nd.array(hg, dtype=o.dtype)
                      for o, hg in zip(res, head_grads)])
    out_grads = {k: (grads[k].asnumpy() if k in grads else np.zeros_like(inputs[k]))
                 for k in grad_names}
    return vals, out_grads


def check_imperative_vs_symbolic(build, inputs, grad_names=(), n_outputs=None, rtol=1e-4,
                                 atol=1e-5, via_json=True, seed=0):
    """Run `build(F, **vars)` both ways; compare outputs and gradients of a random weighted
    sum of the outputs with respect to `grad_names`. Returns the imperative results."""
    rng = np.random.RandomState(seed)
    with autograd.pause():
        probe = flat(build(nd, **{k: nd.array(v, dtype=v.dtype if v.dtype.kind == "i"
                                              else "float32") for k, v in inputs.items()}))
    head_grads = [rng.uniform(-1, 1, p.shape) if p.asnumpy().dtype.kind == "f" else None
                  for p in probe]
    iv, ig = run_imperative(build, inputs, list(grad_names), head_grads)
    for j in (False, True) if via_json else (False,):
        sv, sg = run_symbolic(build, inputs, list(grad_names), head_grads, via_json=j)
        assert len(iv) == len(sv)
        for a, b in zip(iv, sv):
            assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype,
                                                               b.dtype)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        for k in grad_names:
            np.testing.assert_allclose(ig[k], sg[k], rtol=rtol, atol=atol, err_msg=k)
    return iv, ig


def loop_specs(runner, op_name):
    """The loop pass's decisions (`gluonlite.control_flow.passes.LoopSpec`) for the
    `op_name` steps ('_foreach', '_while_loop') of every plan `runner` compiled: an
    Executor, a CachedOp or a hybridized block."""
    if hasattr(runner, "_cached_ops"):  # a HybridBlock: its CachedOps' plans
        plans = [pl for entry in runner._cached_ops.values() for pl in entry[0]._plans.values()]
    else:
        plans = list(runner._plans.values())
    return [st.spec for pl in plans for st in pl.steps if st.op.name == op_name]
