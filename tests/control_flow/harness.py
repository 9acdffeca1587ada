"""The control-flow tests' helpers: the same model code run imperatively (nd + autograd)
and as a graph (sym + bind), compared for values and gradients; a graph run with the loop
pass off and on (`check_optimized_equals_plain`); the loop pass's decisions of a run."""
import numpy as np

import gluonlite as mx
from gluonlite import nd, sym, autograd
from gluonlite.control_flow.body import loop_optimizations


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


def loop_steps(runner, op_name):
    """The `op_name` steps ('_foreach', '_while_loop') of every plan `runner` (an Executor
    or a CachedOp) compiled, read through its public `plans`: a lowered step's `spec` is
    its decisions (`gluonlite.control_flow.lowering.decisions.LoopSpec`), its `runtime`
    its body plans and buffers (`runtime.LoopRuntime`); both None where the plain kernel
    runs."""
    return [st for pl in runner.plans for st in pl.steps if st.op.name == op_name]


def loop_specs(runner, op_name):
    """The decisions (`spec`) of the `loop_steps`."""
    return [st.spec for st in loop_steps(runner, op_name)]


class Spy:
    """Records the calls of registered rules while installed (`install`, with pytest's
    monkeypatch): `calls[label]` lists each call's (args, kwargs). Plans bind the rules they
    call when they are compiled, so install before the run that compiles them.

    A registry entry is frozen; for the test's duration the spy lifts that (restored with
    everything else it patched) to swap an entry's rules for recording wrappers.

    Example: ``spy.fast_grad("tanh", 0)`` then ``spy.calls["tanh grad 0"]``."""

    def __init__(self, monkeypatch):
        self.monkeypatch, self.calls = monkeypatch, {}

    def _wrap(self, label, fn):
        calls = self.calls.setdefault(label, [])

        def spied(*args, **kwargs):
            calls.append((args, kwargs))
            return fn(*args, **kwargs)
        return spied

    def _patch(self, op, field, value):
        self.monkeypatch.setattr(mx.ops.registry.Operator, "__setattr__", object.__setattr__)
        self.monkeypatch.setattr(op, field, value)

    def _fast(self, name, **changes):
        op = mx.ops.get(name)
        fields = {k: getattr(op.fast, k) for k in op.fast.__slots__}
        self._patch(op, "fast", mx.ops.registry.Fast(**{**fields, **changes}))
        return fields

    def kernel(self, name):
        op = mx.ops.get(name)
        self._patch(op, "kernel", self._wrap(f"{name} kernel", op.kernel))

    def vjp(self, name):
        """Spy on the gradient rule callers run: the fast one where there is one."""
        op = mx.ops.get(name)
        if op.fast.vjp is not None:
            self._fast(name, vjp=self._wrap(f"{name} vjp", op.fast.vjp))
        else:
            self._patch(op, "vjp", self._wrap(f"{name} vjp", op.vjp))

    def fast_into(self, name):
        self._fast(name, into=self._wrap(f"{name} into", mx.ops.get(name).fast.into))

    def fast_grad(self, name, j):
        grads = list(mx.ops.get(name).fast.grads)
        grads[j] = self._wrap(f"{name} grad {j}", grads[j])
        self._fast(name, grads=grads)

    def vjp_sum(self, name, input_name):
        sums = dict(mx.ops.get(name).fast.summed_grads)
        uses, fn = sums[input_name]
        sums[input_name] = (uses, self._wrap(f"{name} sum of {input_name}", fn))
        self._fast(name, summed_grads=sums)


def run_bound(s, args, optimize, dtype="float64", train=True, grad_req="write", heads=None,
              infer_after=False, executors=None):
    """Bind `s` to `args` ({name: numpy array}) with the loop pass on or off
    (`loop_optimizations`, read when the plans are compiled) and run it.

    Returns {label: numpy array}: the outputs ('output j') and, when `train`, every
    floating argument's gradient ('gradient of NAME') after a backward of random head
    gradients (seed 7; none for the outputs whose `heads` entry is False; grad_req 'add'
    starts from ones and runs the backward twice; `grad_req` may be a {name: req} dict),
    and with `infer_after` the outputs of
    an inference forward after that ('inference output j'). Integer arguments keep their
    dtype and take no gradient. The executor is appended to `executors` when given."""
    with loop_optimizations(optimize):
        floats = [k for k, v in args.items() if np.asarray(v).dtype.kind not in "iu"]
        arrays = {k: nd.array(v, dtype=dtype if k in floats else np.asarray(v).dtype)
                  for k, v in args.items()}
        reqs = grad_req if isinstance(grad_req, dict) else dict.fromkeys(args, grad_req)
        exe = s.bind(mx.cpu(), arrays,
                     args_grad={k: nd.ones(np.shape(args[k]), dtype=dtype) for k in floats},
                     grad_req={k: reqs[k] if k in floats else "null" for k in args})
        outs = exe.forward(is_train=train)
        res = {f"output {j}": o.asnumpy().copy() for j, o in enumerate(outs)}
        if train:
            rng = np.random.RandomState(7)
            head_arrays = [nd.array(rng.randn(*o.shape), dtype=o.dtype) if want else None
                           for o, want in zip(outs, heads or [True] * len(outs))]
            for _ in range(2 if grad_req == "add" else 1):
                exe.backward(head_arrays)
            res.update({f"gradient of {k}": exe.grad_dict[k].asnumpy().copy()
                        for k in sorted(floats)})
        if infer_after:
            outs = exe.forward(is_train=False)
            res.update({f"inference output {j}": o.asnumpy().copy()
                        for j, o in enumerate(outs)})
    if executors is not None:
        executors.append(exe)
    return res


def check_optimized_equals_plain(s, args, rtol, atol, **run_args):
    """Run `s` (`run_bound`, with `run_args`) with the loop pass off and on and compare
    every output and gradient (rtol = atol = 0: exactly). Returns (plain results, optimized
    results, the optimized run's executor)."""
    exes = []
    plain = run_bound(s, args, False, **run_args)
    fast = run_bound(s, args, True, executors=exes, **run_args)
    assert plain.keys() == fast.keys()
    for k in plain:
        np.testing.assert_allclose(fast[k], plain[k], rtol=rtol, atol=atol, err_msg=k)
    return plain, fast, exes[0]
