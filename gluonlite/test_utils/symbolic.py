"""Checking Symbols: forward values, backward values, and gradients against finite
differences (MXNet 1.x's `check_symbolic_forward`, `check_symbolic_backward`,
`check_numeric_gradient`), plus `finite_difference` for plain Python functions."""
import numpy as np

from .comparison import as_numpy, assert_almost_equal
from .runtime import default_context
from .tolerances import default_dtype, default_numeric_eps, get_tolerance
from ..ndarray.ndarray import NDArray, array, check_stype

__all__ = ["simple_forward", "numeric_grad", "finite_difference", "check_numeric_gradient",
           "check_symbolic_forward", "check_symbolic_backward"]

_FLOATS = (np.dtype("float16"), np.dtype("float32"), np.dtype("float64"))


def _check_dtype(dtype, what, allow_asnumpy=True):
    if allow_asnumpy and isinstance(dtype, str) and dtype == "asnumpy":
        return dtype
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in _FLOATS:
        extra = " or 'asnumpy'" if allow_asnumpy else ""
        raise TypeError(f"{what}: dtype must be float16, float32 or float64{extra}, "
                        f"got {dtype!r}")
    return dt


def _to_nd(value, ctx, dtype):
    """An NDArray of `value` (kept as is when it already is one)."""
    if isinstance(value, NDArray):
        return value
    value = np.asarray(value)
    return array(value, ctx=ctx, dtype=value.dtype if dtype == "asnumpy" else dtype)


def _by_name(what, names, values, kind):
    """{name: value} from a dict with exactly `names` as keys or a sequence in `names` order.

    Raises:
        TypeError: neither a dict, a list nor a tuple.
        ValueError: missing or unknown names, or a sequence of the wrong length.
    """
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        unknown = sorted(set(values) - set(names))
        if missing or unknown:
            raise ValueError(f"{what}: the keys must be the symbol's {kind} {names}; missing "
                             f"{missing}, unknown {unknown}")
        return {n: values[n] for n in names}
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{what}: expected a dict or a list of arrays, got "
                        f"{type(values).__name__}")
    if len(values) != len(names):
        raise ValueError(f"{what}: got {len(values)} arrays for the symbol's {len(names)} "
                         f"{kind} {names}")
    return dict(zip(names, values))


def _location(sym, location, ctx, dtype, what="location"):
    """The arguments as {name: NDArray} in `list_arguments()` order."""
    values = _by_name(what, sym.list_arguments(), location, "arguments")
    return {k: _to_nd(v, ctx, dtype) for k, v in values.items()}


def _aux_states(sym, aux_states, ctx, dtype):
    """The auxiliary states as {name: NDArray}, or None."""
    if aux_states is None:
        return None
    values = _by_name("aux_states", sym.list_auxiliary_states(), aux_states, "auxiliary states")
    return {k: _to_nd(v, ctx, dtype) for k, v in values.items()}


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run `sym` once on numpy inputs given by name; returns the output as a numpy array (a
    list of them for several outputs).

    Args:
        sym: the Symbol.
        ctx: default None: the context (None: `default_context()`).
        is_train: default False: run the forward in training mode.
        inputs: {argument name: numpy array or array-like}: every argument.

    Example::

        out = mx.test_utils.simple_forward(sym.var('x') * 2, x=np.ones(3))
        out   # array([2., 2., 2.], dtype=float32)
    """
    ctx = ctx or default_context()
    exe = sym.bind(ctx, args={k: array(v, ctx=ctx) for k, v in inputs.items()})
    outputs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    return outputs[0] if len(outputs) == 1 else outputs


def _set(dest, value):
    # in the bound array's own dtype: integer inputs (indices, counters) stay exact
    dest[:] = np.asarray(value, dtype=dest.dtype)


def _central_differences(executor, location, names, aux_states, eps, use_forward_train, dtype,
                         objective):
    """{name: d objective / d argument} by central differences: each entry of each named
    float argument moves by +-eps/2, the rest of `location` (numpy) held fixed."""
    grads = {}
    for k, v in location.items():
        _set(executor.arg_dict[k], v)
    for k in names:
        v = np.array(location[k], order="C", copy=True)
        if v.dtype.kind != "f":
            continue
        g = np.zeros(v.shape, dtype=dtype)
        flat, gflat = v.reshape(-1), g.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            values = []
            for step in (eps / 2.0, -eps / 2.0):
                flat[i] = old + step
                _set(executor.arg_dict[k], v)
                for name, aux in (aux_states or {}).items():
                    _set(executor.aux_dict[name], aux)
                values.append(objective(executor.forward(is_train=use_forward_train)))
            gflat[i] = (values[0] - values[1]) / eps
            flat[i] = old
        _set(executor.arg_dict[k], location[k])
        grads[k] = g
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Finite-difference gradients of the sum of a bound executor's first output.

    Args:
        executor: an Executor (from `Symbol.bind`).
        location: {argument name: numpy array}, the point to differentiate at; every float
            argument named gets a gradient.
        aux_states: {name: numpy array} written back before every forward, or None.
        eps: the central-difference step (each entry moves by +-eps/2).
        use_forward_train: run the forwards in training mode.
        dtype: the dtype the arguments are written in.

    Returns:
        {name: numpy gradient array}.

    Example::

        x = sym.var('x')
        exe = (x * x).bind(mx.cpu(), args={'x': nd.ones((3,))})
        grads = mx.test_utils.numeric_grad(exe, {'x': np.ones(3)})
        np.allclose(grads['x'], 2, atol=1e-2)   # True: d(x * x)/dx at 1
    """
    dtype = _check_dtype(dtype, "numeric_grad", allow_asnumpy=False)
    return _central_differences(executor, {k: np.asarray(v) for k, v in location.items()},
                                list(location), aux_states, eps, use_forward_train, dtype,
                                lambda outs: float(outs[0].asnumpy().astype(np.float64).sum()))


def finite_difference(f, xs, eps=1e-4):
    """Central-difference gradients of a scalar Python function ``f(*xs)``.

    Args:
        f: takes the numpy arrays `xs` and returns a number.
        xs: float numpy arrays (float64 for accurate gradients); entries are moved in place
            and restored.
        eps: the step (each entry moves by +-eps).

    Returns:
        A list of numpy arrays, one gradient per array of `xs`.

    Example::

        grads = mx.test_utils.finite_difference(lambda x: float((x ** 2).sum()), [np.ones(3)])
        np.allclose(grads[0], 2 * np.ones(3))   # True
    """
    grads = []
    for x in xs:
        g = np.zeros_like(x)
        for i in np.ndindex(*x.shape):
            old = x[i]
            x[i] = old + eps
            fp = f(*xs)
            x[i] = old - eps
            fm = f(*xs)
            x[i] = old
            g[i] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def _grad_requests(sym, grad_nodes):
    """{argument: grad_req} for the nodes to check."""
    args = sym.list_arguments()
    if grad_nodes is None:
        reqs = {k: "write" for k in args}
    elif isinstance(grad_nodes, dict):
        reqs = dict(grad_nodes)
    elif isinstance(grad_nodes, (list, tuple)):
        reqs = {k: "write" for k in grad_nodes}
    else:
        raise TypeError("check_numeric_gradient: grad_nodes must be None, a list of argument "
                        f"names or a {{name: grad_req}} dict, got {type(grad_nodes).__name__}")
    unknown = [k for k in reqs if k not in args]
    if unknown:
        raise ValueError(f"check_numeric_gradient: grad_nodes {unknown} are not arguments of "
                         f"the symbol {args}")
    for k, r in reqs.items():
        if r not in ("write", "add", "null"):
            raise ValueError(f"check_numeric_gradient: grad_req of {k!r} must be 'write', "
                             f"'add' or 'null', got {r!r}")
    return reqs


def _check_grad_stypes(stypes, what):
    for k, stype in (stypes or {}).items():
        check_stype(stype, f"{what}[{k!r}]", sparse_ok=True)


def _compare_grad(name, req, expected, got, before, rtol, atol, equal_nan, names):
    """Compare one argument's gradient buffer after backward with what its grad_req implies:
    'write' holds the gradient, 'add' the gradient plus what was there, 'null' is untouched."""
    got = as_numpy(got)
    if req == "write":
        assert_almost_equal(expected, got, rtol, atol, names, equal_nan=equal_nan)
    elif req == "add":
        assert_almost_equal(expected, got - before, rtol, atol, names, equal_nan=equal_nan)
    else:
        assert_almost_equal(before, got, rtol, atol, names, equal_nan=equal_nan)


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=default_dtype()):
    """Check a symbol's backward against central finite differences.

    The outputs are reduced to a scalar with random positive weights, the symbol's gradients
    of that scalar (from one backward) are compared with finite differences of it.

    Args:
        sym: the Symbol.
        location: the arguments' values: a {name: array} dict with every argument, or a list
            in `sym.list_arguments()` order (numpy arrays are converted to `dtype`).
        aux_states: the auxiliary states, as a dict or a list, or None.
        numeric_eps: the step; default by dtype (float64 2**-14, float32 2**-9).
        rtol: default None: the relative tolerance (None: by dtype, see
            `assert_almost_equal`).
        atol: default None: the absolute tolerance (None: by dtype).
        grad_nodes: the arguments to check: None (all), a list of names, or a
            {name: grad_req} dict ('add' checks accumulation, 'null' that the buffer stays).
        use_forward_train: run the finite-difference forwards in training mode.
        ctx: the context (default: `default_context()`).
        grad_stype_dict: gradient storage types, checked; the numeric gradient is compared
            as dense values whatever the storage.
        dtype: float16, float32 (default, as MXNet) or float64 (accurate differences).

    Raises:
        AssertionError: a gradient differs; the message names it ``NUMERICAL_<arg>`` vs
            ``BACKWARD_<arg>`` with the worst entry.
        TypeError, ValueError: a bad location, grad_nodes, dtype, or a step too small for a
            single or half precision dtype.
        ValueError: an unknown storage type in `grad_stype_dict`.

    Example::

        x = sym.var('x')
        location = {'x': np.linspace(-1, 1, 12).reshape(3, 4)}
        mx.test_utils.check_numeric_gradient(sym.tanh(x), location, dtype=np.float64,
                                             rtol=1e-5, atol=1e-7)   # passes
    """
    dtype = _check_dtype(dtype, "check_numeric_gradient", allow_asnumpy=False)
    ctx = ctx or default_context()
    _check_grad_stypes(grad_stype_dict, "check_numeric_gradient: grad_stype_dict")
    location = _location(sym, location, ctx, dtype)
    location_np = {k: v.asnumpy() for k, v in location.items()}
    aux = _aux_states(sym, aux_states, ctx, dtype)
    aux_np = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    reqs = _grad_requests(sym, grad_nodes)
    noise = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in reqs}
    args_grad = {k: array(v, ctx=ctx, dtype=dtype) for k, v in noise.items()}
    executor = sym.bind(ctx, args=location, args_grad=args_grad, grad_req=reqs,
                        aux_states=aux)
    outputs = executor.forward(is_train=True)
    eps = get_tolerance(outputs[0], numeric_eps, default_numeric_eps())
    if dtype != np.float64 and eps < 1e-5:
        raise ValueError(f"check_numeric_gradient: numeric_eps={eps:g} is too small for "
                         f"{dtype.name} finite differences; use eps >= 1e-5 or dtype=float64")
    # well away from zero, so that no output's contribution drowns in rounding
    weights = [np.random.rand(*o.shape) + 0.1 for o in outputs]
    executor.backward([array(w, ctx=ctx, dtype=o.dtype) for w, o in zip(weights, outputs)])
    symbolic = {k: executor.grad_dict[k].asnumpy() for k in reqs}

    def objective(outs):
        return sum(float((o.asnumpy().astype(np.float64) * w).sum())
                   for o, w in zip(outs, weights))

    numeric = _central_differences(executor, location_np, list(reqs), aux_np, eps,
                                   use_forward_train, dtype, objective)
    for k, req in reqs.items():
        if k not in numeric:  # an integer argument has no gradient to check
            continue
        _compare_grad(k, req, numeric[k], symbolic[k], noise[k].astype(dtype), rtol, atol,
                      False, (f"NUMERICAL_{k}", f"BACKWARD_{k}"))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=default_dtype()):
    """Run `sym` forward (inference mode) and compare every output with the expected one.

    Args:
        sym: the Symbol.
        location: the arguments, a {name: array} dict or a list in `list_arguments()` order.
        expected: the outputs, a list in output order or a {output name: array} dict.
        rtol: default None: the relative tolerance (None: by dtype, as in
            `assert_almost_equal`).
        atol: default None: the absolute tolerance (None: by dtype).
        equal_nan: default False: NaNs in the same place count as equal.
        aux_states: the auxiliary states (dict or list) or None.
        ctx: the context (default: `default_context()`).
        dtype: the dtype numpy inputs are converted to, or 'asnumpy' to keep theirs.

    Returns:
        The executor's output NDArrays.

    Raises:
        AssertionError: an output differs (named ``EXPECTED_<out>`` vs ``FORWARD_<out>``).
        TypeError, ValueError: a bad location or a count of expected outputs that does not
            match.

    Example::

        x = sym.var('x')
        outs = mx.test_utils.check_symbolic_forward(x * 2, [np.ones(3)], [2 * np.ones(3)])
        outs[0].asnumpy().tolist()   # [2.0, 2.0, 2.0]
    """
    dtype = _check_dtype(dtype, "check_symbolic_forward")
    ctx = ctx or default_context()
    location = _location(sym, location, ctx, dtype)
    aux = _aux_states(sym, aux_states, ctx, dtype)
    out_names = sym.list_outputs()
    expected = list(_by_name("check_symbolic_forward: expected", out_names, expected,
                             "outputs").values())
    executor = sym.bind(ctx, args=location, aux_states=aux, grad_req="null")
    outputs = executor.forward(is_train=False)
    for name, want, got in zip(out_names, expected, outputs):
        assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)
    return executor.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Run `sym` forward (training mode) and backward, and compare the gradients.

    Gradient buffers start as random values, so a 'write' that leaves stale data, an 'add'
    that does not accumulate, or a 'null' that writes are all caught.

    Args:
        sym: the Symbol.
        location: the arguments, a {name: array} dict or a list in `list_arguments()` order.
        out_grads: the outputs' gradients (list in output order, {output name: array}), or
            None for ones.
        expected: the gradients, a {argument name: array} dict (only those are checked) or a
            list in `list_arguments()` order.
        grad_req: 'write', 'add' or 'null', one for all or a list/dict per argument.
        grad_stypes: default None: {argument name: storage type} of the gradient buffers
            ('default', 'row_sparse' or 'csr'); a sparse one starts as zeros and keeps its
            storage type, as MXNet's does.
        rtol: default None: the relative tolerance (None: by dtype, as in
            `assert_almost_equal`).
        atol: default None: the absolute tolerance (None: by dtype).
        aux_states: default None: the auxiliary states (a dict or a list).
        ctx: default None: the context (None: `default_context()`).
        equal_nan: default False: NaNs in the same place count as equal.
        dtype: default float32: the dtype numpy inputs are converted to, or 'asnumpy' to
            keep theirs.

    Returns:
        {argument name: gradient NDArray} for the checked arguments.

    Raises:
        AssertionError: a gradient differs (named ``EXPECTED_<arg>`` vs ``BACKWARD_<arg>``).
        TypeError, ValueError: bad location, expected, out_grads or grad_req.
        ValueError: an unknown storage type in `grad_stypes`.

    Example::

        x = sym.var('x')
        mx.test_utils.check_symbolic_backward(x * 3, [np.ones(2)], [np.ones(2)], [3 * np.ones(2)])
    """
    dtype = _check_dtype(dtype, "check_symbolic_backward")
    ctx = ctx or default_context()
    _check_grad_stypes(grad_stypes, "check_symbolic_backward: grad_stypes")
    args = sym.list_arguments()
    location = _location(sym, location, ctx, dtype)
    aux = _aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(args, expected))
    unknown = sorted(set(expected) - set(args))
    if unknown:
        raise ValueError(f"check_symbolic_backward: expected has gradients for {unknown}, which "
                         f"are not arguments of the symbol {args}")
    expected = {k: as_numpy(v) for k, v in expected.items()}
    if isinstance(grad_req, str):
        reqs = {k: grad_req for k in args}
    else:
        reqs = _by_name("check_symbolic_backward: grad_req", args, grad_req, "arguments")
    stypes = {k: st for k, st in (grad_stypes or {}).items() if st not in (None, "default")}
    # a gradient buffer of a sparse storage type starts empty (zeros), as MXNet makes it;
    # a dense one holds random values, so that a 'write' leaving stale data is caught
    before = {k: np.zeros(v.shape) if k in stypes else np.random.normal(size=v.shape)
              for k, v in sorted(expected.items())}
    grads = {k: array(v, ctx=ctx, dtype=expected[k].dtype if dtype == "asnumpy" else dtype)
             for k, v in before.items()}
    grads = {k: g.tostype(stypes[k]) if k in stypes else g for k, g in grads.items()}
    executor = sym.bind(ctx, args=location, args_grad=grads, aux_states=aux,
                        grad_req={k: r for k, r in reqs.items() if k in grads})
    executor.forward(is_train=True)
    if isinstance(out_grads, dict):
        out_grads = list(_by_name("check_symbolic_backward: out_grads", sym.list_outputs(),
                                  out_grads, "outputs").values())
    if out_grads is not None:
        out_grads = [_to_nd(g, ctx, dtype) for g in out_grads]
    executor.backward(out_grads)
    for k in expected:
        _compare_grad(k, reqs[k], expected[k], grads[k],
                      before[k].astype(grads[k].dtype), rtol, atol, equal_nan,
                      (f"EXPECTED_{k}", f"BACKWARD_{k}"))
    return grads
