"""One walk over the whole operator registry.

Every registered operator has an entry in SPECS (`walk_specs/`, one module per operator
family; the test fails for an operator without one): example
inputs and attributes, and a numpy reference where an obvious one exists. `check_op` checks, in
one call, the values against the reference, the shape rule (also with each input left unknown)
and the dtype rule against the forward on several shapes in float32 and float64, and for every
differentiable operator the gradients against central finite differences in float64;
non-differentiable inputs must get zero gradients. Failures name the operator.
"""
import ast
import zlib

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.ops import all_ops
from gluonlite.ops.fast import compiles_kernels, device_kernels
from walk_specs import SPECS, make  # one module of entries per operator family
from walk_specs.common import Idx

# Operators registered by other layers, tested there (control flow, CachedOp, partitioning).
EXTERNAL = {
    # gluonlite.control_flow: each loop's plain kernel is the reference its registered
    # lowering is held against (tests/control_flow/test_lowering.py, and on many body
    # shapes test_loop_optimization_cases.py)
    "_foreach",               # loop over axis 0
    "_while_loop",
    "_cond",
    "_default_subgraph_op",   # gluonlite.subgraph: the default backend's subgraph node
    # gluonlite.subgraph.fusion makes it on devices: its device path is held against its
    # plain rules in tests/executor/test_fusion.py, its members' forms here
    "_fused_elementwise",
    "_sg_fuse",               # gluonlite.subgraph.fuse: held against the unfused graph
                              # (tests/subgraph/test_fuse.py)
}
# The DGL graph operators take a graph as a csr matrix of int64 edge ids (a dense graph is
# refused imperatively, as in MXNet), where the walk draws dense float inputs:
# tests/ops_math/test_dgl_graph_ops.py holds them against MXNet 1.9.1's numbers, imperative
# against symbolic.
EXTERNAL |= {"_contrib_edge_id", "_contrib_dgl_adjacency", "_contrib_dgl_subgraph",
             "_contrib_dgl_graph_compact", "_contrib_dgl_csr_neighbor_uniform_sample",
             "_contrib_dgl_csr_neighbor_non_uniform_sample"}
# The int8 quantization family takes integer data beside float32 ranges, where the walk draws
# one float dtype for every input: tests/ops_math/test_quantization_ops.py (and
# test_quantized_rnn.py, the int8 LSTM) holds each of them against MXNet 1.9.1's numbers and
# against the float operators.
EXTERNAL |= {op.name for op in all_ops() if op.name.startswith(("_contrib_quantize",
                                                                    "_contrib_dequantize",
                                                                    "_contrib_requantize",
                                                                    "_contrib_calibrate_entropy"))}
EXTERNAL_PREFIXES = ("_CachedOp",)  # hybridized blocks register one operator per graph


def _fn(op):
    from gluonlite.ndarray.register import make_function
    return getattr(nd, op.name, None) or make_function(op, op.name)


def _run(op, arrays, attrs, dtype, record=False, train=True, grads=False):
    """Forward through the public nd function; returns (outputs list, input NDArrays)."""
    xs = [nd.array(a, dtype=dtype) for a in arrays]
    if grads:
        for x in xs:
            x.attach_grad()
    mx.random.seed(7)  # random operators draw the same numbers on every call
    if record:
        with autograd.record(train_mode=train):
            out = _fn(op)(*xs, **attrs)
    else:
        out = _fn(op)(*xs, **attrs)
    return (list(out) if isinstance(out, (list, tuple)) else [out]), xs


def _params(op, attrs, n_inputs):
    a = dict(attrs)
    if op.variadic:
        a.setdefault(op.variadic, n_inputs)
    return op.parse(a)[0]


def _check_rules(op, p, xs, outs, where, guessed=()):
    in_shapes = [x.shape for x in xs]
    got = [o.shape for o in outs]
    _, rule = op.infer_shape(p, in_shapes)
    if op.shape_from_values:  # the output's length depends on values
        rule = [g if r is None else r for r, g in zip(rule, got)]
    assert [tuple(s) for s in rule[:len(outs)]] == got, \
        f"{where}: shape rule gives {rule} for inputs {in_shapes}, forward gives {got}"
    for i in range(len(xs)):  # partial inference must agree with what is known
        ins = list(in_shapes)
        ins[i] = None
        filled, rule_i = op.infer_shape(p, ins)
        assert i in guessed or filled[i] is None or tuple(filled[i]) == in_shapes[i], \
            f"{where}: shape rule fills input {i} as {filled[i]}, actual {in_shapes[i]}"
        for r, g in zip(rule_i, got):
            assert r is None or tuple(r) == g, \
                f"{where}: with input {i} unknown the shape rule gives {rule_i}, forward {got}"
    _, drule = op.infer_dtype(p, [np.dtype(x.dtype) for x in xs])
    gotd = [np.dtype(o.dtype) for o in outs]
    assert [np.dtype(d) for d in drule[:len(outs)]] == gotd, \
        f"{where}: dtype rule gives {drule}, forward gives {gotd}"


def _numeric_grad(f, arrays, i, eps=1e-6):
    x = arrays[i]
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        old = x[k]
        x[k] = old + eps
        fp = f(arrays)
        x[k] = old - eps
        fm = f(arrays)
        x[k] = old
        g[k] = (fp - fm) / (2 * eps)
    return g


def check_op(op, check, rng):
    """Check one operator for one example: values vs numpy, shape/dtype rules vs the
    forward (several shapes, float32 and float64), gradients vs finite differences."""
    name, attrs = op.name, check["attrs"]
    cases = [check["inputs"]] + check["more"]
    base = None
    for ci, case in enumerate(cases):
        arrays = [make(s, rng) for s in case]
        if ci == 0:
            base = arrays
        p = _params(op, attrs, len(arrays))
        for dtype in check.get("dtypes") or (np.float32, np.float64):
            where = f"{name}{attrs} inputs {[a.shape for a in arrays]} {np.dtype(dtype).name}"
            outs, xs = _run(op, arrays, attrs, dtype)
            assert len(outs) == op.num_visible(p), f"{where}: {len(outs)} outputs"
            _check_rules(op, p, xs, outs, where, check["guessed"])
            if op.fast.into is not None and not op.stateful and not op.random:
                _check_into(op, p, [x.asnumpy() for x in xs], where)
            if op.fast.kernel is not None:  # every caller runs it in place of the kernel
                _check_fast_kernel(op, p, [x.asnumpy() for x in xs], where)
            if op.fast.device is not None and compiles_kernels(xs[0].context.xp):
                _check_device_paths(op, p, xs, where)
            if op.fast.elementwise is not None:
                _check_elementwise(op, p, xs, where)
            if op.fast.ufunc is not None:  # compiled plans call the array function directly
                fname, kwargs = op.fast.ufunc[:2]
                xp = xs[0].context.xp  # the one the plans on this context call
                fn = fname(xp) if callable(fname) else getattr(xp, fname)
                if fn is not None:  # None: plans on this context call the kernel
                    buf = nd.zeros_like(outs[0])
                    args = [x.handle for x in xs]
                    if len(op.fast.ufunc) > 2:  # the scalar in the data's dtype
                        s = xp.asarray(p.scalar, dtype=args[0].dtype)
                        args.insert(1 if op.fast.ufunc[2] == "right" else 0, s)
                    fn(*args, out=buf.handle, **kwargs)
                    np.testing.assert_array_equal(
                        buf.asnumpy(), outs[0].asnumpy(),
                        err_msg=f"{where}: flagged ufunc {fname!r} but computes something "
                                "else")
            lines = op.fast.inline(p, [x.shape for x in xs], [x.dtype for x in xs]) \
                if op.fast.inline is not None else None
            if lines:  # compiled plans emit these lines instead of calling `into`
                # run on the context's arrays with its array module, as the plans run them (a
                # GPU's GEMM need not round as numpy's does)
                raw = [x.handle for x in xs]
                buf = nd.zeros_like(outs[0])
                if np.dtype(buf.dtype).kind == "f":
                    buf.handle[...] = np.nan  # a line that writes nothing shows
                for line in lines:  # a name assigned would be local to the generated code
                    tree = ast.parse(line.format(*[f"a{k}" for k in range(len(raw))], out="out"))
                    assert not any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                  ast.NamedExpr)) for n in ast.walk(tree)), \
                        f"{where}: inline line {line!r} assigns a name"
                    exec(line.format(*[f"raw[{k}]" for k in range(len(raw))], out="buf"),
                         {"xp": xs[0].context.xp, "raw": raw, "buf": buf.handle})
                np.testing.assert_array_equal(
                    buf.asnumpy(), outs[0].asnumpy(),
                    err_msg=f"{where}: its inline lines compute something else: {lines}")
            if op.fast.reshapes:  # compiled plans call reshape instead of the kernel
                assert len(xs) == 1 and len(outs) == 1, f"{where}: a reshape has one in, one out"
                np.testing.assert_array_equal(
                    xs[0].asnumpy().reshape(outs[0].shape), outs[0].asnumpy(),
                    err_msg=f"{where}: flagged `reshapes` but is not its input reshaped")
            if op.fast.views is not None:  # compiled plans index the input instead
                index = op.fast.views(p, xs[0].shape)
                assert len(index) == len(outs), f"{where}: one view per output"
                for k, (ix, o) in enumerate(zip(index, outs)):
                    np.testing.assert_array_equal(
                        xs[0].asnumpy()[ix], o.asnumpy(),
                        err_msg=f"{where}: output {k} is not the flagged view of the input")
            if check["ref"] is not None:
                want = check["ref"](*[a.copy() for a in arrays])
                want = want if isinstance(want, (list, tuple)) else [want]
                tol = 1e-10 if dtype == np.float64 else 1e-5
                for k, (o, w) in enumerate(zip(outs, want)):
                    np.testing.assert_allclose(
                        o.asnumpy().astype(np.float64), np.asarray(w, np.float64),
                        rtol=tol * 100, atol=tol, err_msg=f"{where}: output {k} vs numpy")
    _check_grads(op, check, base, rng)


def _outputs(op, p, rc, raw, kernel=None):
    res = (kernel or op.kernel)(p, rc, *raw)
    return list(res) if isinstance(res, tuple) else [res]


def _check_fast_kernel(op, p, raw, where):
    """The fast kernel's visible outputs are the plain kernel's (to rounding)."""
    rc = mx.ops.RunCtx(False, np)
    n = op.num_visible(p)
    want = _outputs(op, p, rc, raw)[:n]
    got = op.fast.kernel(p, rc, *raw)
    got = list(got) if isinstance(got, tuple) else [got]
    tol = 1e-5 if raw and raw[0].dtype == np.float32 else 1e-12
    for k, (g, w) in enumerate(zip(got[:n], want)):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol,
                                   err_msg=f"{where}: the fast kernel's output {k}")


def _host(xp, a):
    return xp.asnumpy(a) if xp is not np else np.asarray(a)


def _check_elementwise(op, p, xs, where):
    """The elementwise form (what a fused kernel computes) equals the kernel and the vjp, on
    the context's arrays; on a module that compiles kernels, compiled by its ``fuse``."""
    form = op.fast.elementwise(p)
    shapes = {x.shape for x in xs}
    if form is None or len(shapes) != 1 or any(np.dtype(x.dtype).kind != "f" for x in xs):
        return  # the fusion pass takes it only for float inputs of one shape
    xp = xs[0].context.xp
    value, grads = form
    raw = [x.handle for x in xs]
    rc = mx.ops.RunCtx(True, xp)
    want = _outputs(op, p, rc, raw)[0]
    tol = 1e-12 if raw[0].dtype == np.float64 else 1e-6
    got = xp.empty(want.shape, dtype=want.dtype)
    out = [got]

    def body(*arrays):
        out[0][...] = value(xp, p, *arrays)
    (xp.fuse(kernel_name="walk")(body) if compiles_kernels(xp) else body)(*raw)
    np.testing.assert_allclose(_host(xp, got), _host(xp, want), rtol=tol, atol=tol,
                               err_msg=f"{where}: the elementwise form's value")
    gy = xp.asarray(np.linspace(-1, 1, want.size).reshape(want.shape).astype(want.dtype))
    plain = op.vjp(p, rc, raw, [want], [gy], [True] * len(raw)) if op.vjp else [None] * len(raw)
    for j, rule in enumerate(grads):
        if rule is None:
            assert plain[j] is None or not _host(xp, plain[j]).any(), \
                f"{where}: input {j} has no elementwise gradient but a vjp"
            continue
        g = xp.empty(raw[j].shape, dtype=raw[j].dtype)
        res = [g]

        def grad_body(*arrays, _rule=rule, _res=res, _n=len(raw)):
            _res[0][...] = _rule(xp, p, list(arrays[:_n]), arrays[_n], arrays[_n + 1])
        (xp.fuse(kernel_name="walk_grad")(grad_body) if compiles_kernels(xp) else grad_body)(
            *raw, want, gy)
        np.testing.assert_allclose(_host(xp, g), _host(xp, plain[j]), rtol=tol, atol=tol,
                                   err_msg=f"{where}: input {j}'s elementwise gradient")


def _check_device_paths(op, p, xs, where):
    """On a context whose array module compiles kernels (CuPy, fakecupy), the device kernel's
    visible outputs and its vjp's gradients (from the run it kept) are the plain rules' (to
    rounding; a GPU's products need not round as numpy's)."""
    xp = xs[0].context.xp
    raw = [x.handle for x in xs]
    n = op.num_visible(p)
    kernel, vjp = op.fast.device.kernel, op.fast.device.vjp
    with device_kernels(True):
        assert op.rules_on(xp) == (kernel, vjp), f"{where}: the device paths are not chosen"
    with device_kernels(False):
        assert op.rules_on(xp)[0] is not kernel, f"{where}: device_kernels(False) ignored"
    f64 = raw[0].dtype == np.float64
    tol = 1e-10 if f64 else 1e-4
    rc = mx.ops.RunCtx(True, xp, True)
    want = _outputs(op, p, rc, raw)
    got = kernel(p, rc, *raw)
    got = list(got) if isinstance(got, tuple) else [got]
    for k in range(n):
        np.testing.assert_allclose(xp.asnumpy(got[k]), xp.asnumpy(want[k]), rtol=tol, atol=tol,
                                   err_msg=f"{where}: the device kernel's output {k}")
    heads = [xp.asarray(np.linspace(-1, 1, w.size).reshape(w.shape).astype(w.dtype))
             for w in want[:n]]
    need = [op.differentiable(j, p) for j in range(len(raw))]
    plain = op.vjp(p, rc, raw, want, heads, need)
    fast = vjp(p, rc, raw, got, heads, need)
    for j, (a, b) in enumerate(zip(plain, fast)):
        if a is not None and need[j]:
            np.testing.assert_allclose(xp.asnumpy(b), xp.asnumpy(a), rtol=tol, atol=tol,
                                       err_msg=f"{where}: input {j}'s device gradient")


def _check_into(op, p, raw, where):
    """`into` (what static-alloc plans call) writes what the kernel returns: the fast kernel
    where there is one (the same arithmetic, into given buffers), else the plain one. Each
    run gets its own copies of the inputs: an update operator changes its states in place."""
    rc = mx.ops.RunCtx(True, np)
    ins_kernel, ins_into = [x.copy() for x in raw], [x.copy() for x in raw]
    ref = _outputs(op, p, rc, ins_kernel, op.fast.kernel)
    bufs = [np.full(r.shape, np.nan, dtype=r.dtype) if r.dtype.kind == "f" else
            np.zeros(r.shape, dtype=r.dtype) for r in ref]
    op.fast.into(p, rc, bufs, *ins_into)
    for j, (a, b) in enumerate(zip(ins_kernel, ins_into)):  # states changed alike
        np.testing.assert_array_equal(b, a, err_msg=f"{where}: into leaves input {j} other "
                                                    "than the kernel does")
    for k, (r, got) in enumerate(zip(ref, bufs)):
        np.testing.assert_array_equal(got, r, err_msg=f"{where}: into's output {k} is not "
                                                      "the kernel's")


def _check_vjp_sum(op, p, check, rng, where, n_steps=3):
    """Each `Fast.summed_grads` rule equals the sum over steps of the vjp's gradient of that
    input, the other inputs and the output gradient new at every step (and writes into
    out=)."""
    names, rc = op.input_names(p), mx.ops.RunCtx(True, np)
    steps = [[make(s, rng) for s in check["inputs"]] for _ in range(n_steps)]
    for name, (reads, fn) in op.fast.summed_grads.items():
        if name not in names or names.index(name) >= len(steps[0]):
            continue  # an input these params leave out (no bias)
        j = names.index(name)
        for xs in steps[1:]:
            xs[j] = steps[0][j]
        want, heads = 0, []
        for xs in steps:
            ys = _outputs(op, p, rc, xs)
            heads.append(rng.normal(size=ys[0].shape))
            g = op.vjp(p, rc, xs, ys, [heads[-1]] + [None] * (len(ys) - 1),
                       [k == j for k in range(len(xs))])
            want = want + g[j]
        stacked = {r: np.stack([xs[names.index(r)] for xs in steps]) for r in reads}
        got = fn(p, rc, steps[0][j], stacked, np.stack(heads))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{where}: vjp_sum of {name!r} is not the summed vjp")
        out = np.full(steps[0][j].shape, np.nan)
        assert fn(p, rc, steps[0][j], stacked, np.stack(heads), out=out) is out, \
            f"{where}: vjp_sum of {name!r} does not return its out="
        np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{where}: vjp_sum of {name!r} into out=")


def _check_grads(op, check, arrays, rng):
    name, attrs, train = op.name, check["attrs"], check["train"]
    p = _params(op, attrs, len(arrays))
    if not arrays:
        return
    if check.get("dtypes") and np.dtype(check["dtypes"][-1]).kind != "f":
        # integer or bool data only: no gradient exists, and none may be claimed
        assert op.vjp is None, f"{name}: an operator of integer data has a gradient rule"
        return
    outs, xs = _run(op, arrays, attrs, np.float64, record=True, train=train, grads=True)
    weights = [rng.normal(size=o.shape) for o in outs]
    if op.fast.passes_grad:  # compiled backwards hand the output's gradient on unchanged
        raw = [x.asnumpy() for x in xs]
        gy = weights[0]
        gxs = op.vjp(p, mx.ops.RunCtx(True, np), raw, [o.asnumpy() for o in outs], [gy],
                     [True] * len(raw))
        for j in op.fast.passes_grad:
            np.testing.assert_array_equal(
                np.asarray(gxs[j]), gy,
                err_msg=f"{name}{attrs}: input {j} is flagged passes_grad but its gradient "
                        "is not the output's")
    if op.fast.grads is not None:  # compiled backwards call each input's rule directly
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        y = outs[0].asnumpy()
        plain = op.vjp(p, rc, raw, [y], weights, [True] * len(raw))
        assert len(op.fast.grads) <= len(raw), f"{name}{attrs}: more gradient rules than inputs"
        for j, rule in enumerate(op.fast.grads):
            if rule is None:
                continue
            np.testing.assert_array_equal(
                rule(np, *raw, y, weights[0]), plain[j],
                err_msg=f"{name}{attrs}: input {j}'s flagged gradient rule is not the vjp's")
            if op.fast.grads_out:  # a reverse pass gives it the row
                out = np.full(raw[j].shape, np.nan)
                got = rule(np, *raw, y, weights[0], out=out)
                assert got is out, f"{name}{attrs}: input {j}'s rule takes out= but " \
                    "returns another array"
                np.testing.assert_array_equal(
                    out, plain[j], err_msg=f"{name}{attrs}: input {j}'s rule writes "
                                           "another value into out= than it returns")
    if op.fast.reshapes:  # compiled backwards reshape the output's gradient themselves
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        gx, = op.vjp(p, rc, raw, [o.asnumpy() for o in outs], weights, [True])
        np.testing.assert_array_equal(
            gx, weights[0].reshape(raw[0].shape),
            err_msg=f"{name}{attrs}: flagged `reshapes` but its gradient is not the output's "
                    "gradient reshaped")
    if op.fast.saves is not None:  # plans keep only what the vjp reads; it sees the rest as stubs
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys = [o.asnumpy() for o in outs]
        plain = op.vjp(p, rc, raw, ys, weights, [True] * len(raw))
        kept, reads_outputs = op.saved_inputs(p)
        stub = lambda a: np.broadcast_to(np.zeros((), a.dtype), a.shape)  # noqa: E731
        given = op.vjp(p, rc, [a if j in kept else stub(a) for j, a in enumerate(raw)],
                       ys if reads_outputs else [stub(y) for y in ys], weights,
                       [True] * len(raw))
        for j, (a, b) in enumerate(zip(plain, given)):
            if a is not None:
                np.testing.assert_array_equal(
                    b, a, err_msg=f"{name}{attrs}: input {j}'s gradient reads a value "
                                  "that `saves` leaves out")
    if op.fast.summed_grads:  # a loop sums an invariant input's gradient over its steps at once
        _check_vjp_sum(op, p, check, rng, f"{name}{attrs}")
    if op.fast.vjp is not None:  # every caller but a recorded gradient of it runs this one
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys, need = [o.asnumpy() for o in outs], [True] * len(raw)
        if len(ys) < op.num_outputs(p) and not op.stateful:
            # hidden outputs too: BatchNorm's gradient reads its saved mean and 1/std
            ys = _outputs(op, p, rc, [a.copy() for a in raw], op.fast.kernel)
        plain = op.vjp(p, rc, raw, ys, weights, need)
        for j, (a, b) in enumerate(zip(plain, op.fast.vjp(p, rc, raw, ys, weights, need))):
            assert (a is None) == (b is None), f"{name}{attrs}: input {j}'s fast gradient " \
                "is missing where the plain vjp gives one, or the other way round"
            if a is not None:
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12,
                                           err_msg=f"{name}{attrs}: input {j}'s fast vjp")
    if op.rules.recorded_vjp is not None:  # a gradient of the gradient records this one
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys, need = [o.asnumpy() for o in outs], [True] * len(raw)
        plain = op.vjp(p, rc, raw, ys, weights, need)
        try:
            recorded = op.rules.recorded_vjp(p, rc, raw, ys, weights, need)
        except ValueError:  # attributes it has no recorded form for (the message says so)
            recorded = None
        for j, (a, b) in enumerate(zip(plain, recorded or ())):
            if a is not None:
                np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9,
                                           err_msg=f"{name}{attrs}: input {j}'s recorded vjp")
    if op.fast.writes_dests:  # autograd hands grad buffers to the vjp (kWriteTo)
        raw, rc = [x.asnumpy() for x in xs], mx.ops.RunCtx(True, np)
        ys, need = [o.asnumpy() for o in outs], [True] * len(raw)
        plain = op.vjp(p, rc, raw, ys, weights, need)
        dests = [np.full(a.shape, np.nan) if g is not None else None
                 for a, g in zip(raw, plain)]
        given = op.fast.vjp(p, rc, raw, ys, weights, need, dests=dests)
        for j, (a, b, d) in enumerate(zip(plain, given, dests)):
            if d is not None:
                assert b is d, f"{name}{attrs}: input {j}'s gradient not written to its dest"
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12,
                                           err_msg=f"{name}{attrs}: input {j} via dests")
    autograd.backward(outs, [nd.array(w, dtype=np.float64) for w in weights])
    for i, x in enumerate(xs):
        if op.vjp is None or not op.differentiable(i, p):
            assert not x.grad.asnumpy().any(), \
                f"{name}{attrs}: non-differentiable input {op.input_names(p)[i]} got a gradient"
            continue

        def loss(arrs):
            o, _ = _run(op, arrs, attrs, np.float64, record=True, train=train)
            return sum(float((a.asnumpy() * w).sum()) for a, w in zip(o, weights))

        num = check["grad"](arrays, weights)[i] if check["grad"] is not None else \
            _numeric_grad(loss, [a.copy() for a in arrays], i)
        np.testing.assert_allclose(
            x.grad.asnumpy(), num, rtol=check["rtol"], atol=1e-6,
            err_msg=f"{name}{attrs}: gradient of input {op.input_names(p)[i]} vs finite "
                    "differences")


def _walked():
    return [op for op in all_ops()
            if op.name not in EXTERNAL and not op.name.startswith(EXTERNAL_PREFIXES)]


def test_every_registered_operator_has_an_entry():
    missing = sorted(op.name for op in _walked() if op.name not in SPECS)
    assert not missing, (f"operators without an entry in SPECS (add one, or list them in "
                         f"EXTERNAL if another layer tests them): {missing}")
    stale = sorted(set(SPECS) - {op.name for op in all_ops()})
    assert not stale, f"SPECS entries for operators that are not registered: {stale}"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_operator(name, ctx):
    op = mx.ops.get(name)
    checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    # the NumPy dialect's operators run under NumPy shape semantics (0-d arrays), as there
    with ctx, mx.np_shape(name.startswith("_np")):  # every array of the check is on ctx
        for check in checks:
            check_op(op, check, rng)


def test_a_fast_path_given_as_a_keyword_names_the_fast_object():
    with pytest.raises(TypeError, match=r"mine: unknown argument\(s\) \['into', 'saves'\]; "
                                        r"fast paths go in one object: "
                                        r"fast=Fast\(into=\.\.\., saves=\.\.\.\)"):
        mx.ops.registry.entry("mine", lambda p, rc, x: x, into=lambda *a: None, saves=())


def test_an_entry_and_its_parts_are_fixed_when_it_registers():
    op = mx.ops.get("tanh")
    for target, field in [(op, "fast"), (op, "vjp"), (op.fast, "into"), (op.rules, "vjp"),
                          (op.sig, "attrs"), (op.traits, "random"), (op.shape_rule, "all_same")]:
        with pytest.raises(AttributeError, match=f"{type(target).__name__} is frozen: {field}"):
            setattr(target, field, None)


def test_an_operator_entry_takes_at_most_8_arguments_in_groups():
    import inspect
    params = inspect.signature(mx.ops.registry.Operator.__init__).parameters
    assert len(params) - 1 <= 8  # less self
    op = mx.ops.get("FullyConnected")
    assert op.sig.attrs is op.attrs and op.rules.kernel is op.kernel
    assert op.shape_rule.back is not None and op.shape_rule.fills_back(op.parse(
        {"num_hidden": 2})[0])
    assert set(op.fast.summed_grads) == {"weight", "bias"}


def _sparse_variants(a, rng):
    """`a` with a zero row and a zero entry (so a sparse form stores less), and the storage
    types it can take: row_sparse for any rank, csr for 2-D."""
    a = a.copy()
    if a.ndim >= 1 and a.shape[0] > 1:
        a[0] = 0
    a.flat[-1] = 0
    return a, (["row_sparse", "csr"] if a.ndim == 2 else ["row_sparse"] if a.ndim else [])


# The scatter operators compute only where a sparse input stores values, by definition, so
# their storage kernels differ from the dense one elsewhere: held against MXNet's results in
# tests/ndarray/test_sparse_scatter.py instead.
_STORED_ONLY = {"_scatter_elemwise_div", "_scatter_plus_scalar", "_scatter_minus_scalar"}
_STORAGE_OPS = sorted(op.name for op in all_ops()
                      if op.storage is not None and not op.storage.inplace and op.name in SPECS
                      and op.name not in _STORED_ONLY)


# Storage kernels that keep the dense fallback on the walk's example attributes and inputs
# (a nonzero scalar moves 0, c != 0, row_sparse indices, rows gathered from a dense table):
# held against MXNet's results in tests/ndarray/test_sparse_ops.py instead.
_FALLS_BACK_ON_WALK_INPUTS = {
    "_contrib_getnnz", "take", "_contrib_quadratic", "_equal_scalar", "Concat", "elemwise_div",
    "ceil", "fix", "floor", "rint", "round", "trunc",
    "_greater_equal_scalar", "_greater_scalar", "_lesser_equal_scalar", "_lesser_scalar",
    "_not_equal_scalar", "_plus_scalar", "_minus_scalar", "_rminus_scalar", "_rdiv_scalar",
    "broadcast_add", "broadcast_sub"}


@pytest.mark.parametrize("name", _STORAGE_OPS)
def test_storage_rules_compute_what_the_dense_kernel_does(name):
    """An operator's storage kernel (`StorageRule`, what sparse inputs run) holds against its
    dense kernel on the dense values: each float input in turn made sparse, then all of them,
    in each storage type they can take; where the kernel computes (not a dense fallback nor
    a refusal), the values agree and the inferred storage types are those it returns."""
    from gluonlite.ops.sparse.arrays import from_dense, host
    from gluonlite.ops.sparse.rule import output_stypes, stype_of
    op = mx.ops.get(name)
    check = SPECS[name][0] if isinstance(SPECS[name], list) else SPECS[name]
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    arrays = [make(s, rng) for s in check["inputs"]]
    p = _params(op, check["attrs"], len(arrays))
    rc = mx.ops.RunCtx(False, np)
    floats = [i for i, s in enumerate(check["inputs"]) if not isinstance(s, Idx)]
    zeroed, stypes = {}, {}
    for i in floats:
        zeroed[i], stypes[i] = _sparse_variants(arrays[i], rng)
    common = set.intersection(*[set(stypes[i]) for i in floats]) if floats else set()
    trials = [({i}, st) for i in floats for st in stypes[i]] + \
        [(set(floats), st) for st in sorted(common) if len(floats) > 1]
    computed = 0
    for which, stype in trials:
        dense = [zeroed[k] if k in which else a for k, a in enumerate(arrays)]
        want = _outputs(op, p, rc, [a.copy() for a in dense])
        raws = [from_dense(a, stype) if k in which else a.copy() for k, a in enumerate(dense)]
        try:
            got = op.storage.kernel(p, rc, *raws)
        except ValueError as e:  # a combination MXNet refuses: the message names the operator
            assert str(e).split(":")[0] in (name, name.lstrip("_").replace("sparse_", ""),
                                            name.replace("_contrib_", "")), str(e)
            continue
        if got is None:
            continue  # MXNet's dense fallback for these storage types
        computed += 1
        got = list(got) if isinstance(got, tuple) else [got]
        in_stypes = [stype_of(r) for r in raws]
        assert output_stypes(op, p, in_stypes)[:len(got)] == [stype_of(g) for g in got], \
            f"{name}: storage inference disagrees with the kernel for {in_stypes}"
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(
                host(g), w, rtol=1e-10, atol=1e-12,
                err_msg=f"{name}: output {k} with inputs {in_stypes} vs the dense kernel")
    assert bool(computed) != (name in _FALLS_BACK_ON_WALK_INPUTS), \
        f"{name}: its storage kernel computed {computed} time(s) on the walk's inputs " \
        f"({'take it off' if computed else 'list it in'} _FALLS_BACK_ON_WALK_INPUTS)"
