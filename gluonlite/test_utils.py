"""Testing helpers: closeness assertions and numeric gradient checks."""
import numpy as np

__all__ = ["assert_almost_equal", "check_numeric_gradient", "numeric_grad", "default_context"]


def _np(x):
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return np.asarray(x)


def default_context():
    """The context tests run on (the current context)."""
    from .context import current_context
    return current_context()


def assert_almost_equal(a, b, rtol=1e-5, atol=1e-7, names=("a", "b"), equal_nan=False):
    """Assert that two arrays (NDArray or numpy) are elementwise close.

    Raises:
        AssertionError: shapes differ or some entry is outside ``atol + rtol * |b|``; the
            message gives the worst entry, its index and both values.
    """
    a, b = _np(a), _np(b)
    if a.shape != b.shape:
        raise AssertionError(f"shapes differ: {names[0]} {a.shape} vs {names[1]} {b.shape}")
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    err = np.abs(a.astype(np.float64) - b) - (atol + rtol * np.abs(b))
    idx = tuple(int(i) for i in np.unravel_index(np.nanargmax(err), a.shape)) if a.ndim else ()
    raise AssertionError(
        f"not almost equal (rtol={rtol}, atol={atol}): worst at index {idx}: "
        f"{names[0]}={a[idx].item()!r}, {names[1]}={b[idx].item()!r}; "
        f"{int((err > 0).sum())} of {a.size} entries differ")


def numeric_grad(f, xs, eps=1e-4):
    """Central finite differences of scalar function f(*xs) (numpy float64 arrays)."""
    grads = []
    for x in xs:
        g = np.zeros_like(x)
        it = np.nditer(x, flags=["multi_index"])
        for _ in it:
            i = it.multi_index
            old = x[i]
            x[i] = old + eps
            fp = f(*xs)
            x[i] = old - eps
            fm = f(*xs)
            x[i] = old
            g[i] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=1e-3, rtol=1e-2,
                           atol=None, grad_nodes=None, ctx=None, dtype=np.float64):
    """Check a symbol's gradients against finite differences.

    Args:
        sym: a Symbol (its outputs are summed with random weights to a scalar).
        location: dict name -> array (or list in `sym.list_arguments()` order).
        aux_states: dict or list of auxiliary states.
        grad_nodes: names to check (default: every argument in `location`).

    Raises:
        AssertionError: a gradient differs; the message names the argument.
    """
    from . import ndarray as nd
    args = sym.list_arguments()
    if not isinstance(location, dict):
        location = dict(zip(args, location))
    location = {k: _np(v).astype(dtype) for k, v in location.items()}
    if aux_states is not None and not isinstance(aux_states, dict):
        aux_states = dict(zip(sym.list_auxiliary_states(), aux_states))
    aux = {k: _np(v).astype(dtype) for k, v in (aux_states or {}).items()}
    grad_nodes = list(grad_nodes or location)
    rng = np.random.RandomState(0)

    def run(loc, with_grad):
        exe = sym.bind(ctx, {k: nd.array(v, dtype=dtype) for k, v in loc.items()},
                       args_grad={k: nd.zeros(loc[k].shape, dtype=dtype) for k in grad_nodes}
                       if with_grad else None,
                       grad_req={k: ("write" if k in grad_nodes else "null") for k in loc},
                       aux_states={k: nd.array(v, dtype=dtype) for k, v in aux.items()})
        outs = exe.forward(is_train=True)
        return exe, outs

    exe, outs = run(location, False)
    weights = [rng.normal(size=o.shape) for o in outs]

    def scalar(*vals):
        loc = dict(location)
        loc.update(zip(grad_nodes, vals))
        _, outs = run(loc, False)
        return sum(float((o.asnumpy() * w).sum()) for o, w in zip(outs, weights))

    exe, outs = run(location, True)
    exe.backward([nd.array(w, dtype=dtype) for w in weights])
    numeric = numeric_grad(scalar, [location[k].copy() for k in grad_nodes], numeric_eps)
    for k, num in zip(grad_nodes, numeric):
        assert_almost_equal(exe.grad_dict[k], num, rtol=rtol,
                            atol=atol if atol is not None else rtol, names=(f"analytic {k}",
                                                                            f"numeric {k}"))
