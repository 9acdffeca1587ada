"""Comparing runs of one computation: a symbol bound several times (`check_consistency`,
cpu here), a block imperative versus hybridized (`check_gluon_hybridize_consistency`), and
timing a bound symbol (`check_speed`)."""
import time

import numpy as np

from ..io import DataIter
from .comparison import assert_almost_equal
from .runtime import default_context
from .tolerances import get_tols

__all__ = ["check_consistency", "check_speed", "check_gluon_hybridize_consistency",
           "DummyIter", "locationError"]


def locationError(a, b, index, names, maxError=False):
    """The sentence MXNet prints for a mismatch at `index`:
    ``Location of error: (1, 2), a=1.00000000, b=2.00000000``.

    Args:
        a: the first numpy array.
        b: the second numpy array.
        index: the index of the entry (a tuple).
        names: the two arrays' names.
        maxError: default False: say 'maximum error' instead of 'error'.

    Returns:
        The sentence, a str.

    Example::

        a, b = np.array([1.0, 2.0]), np.array([1.0, 2.5])
        mx.test_utils.locationError(a, b, (1,), ('a', 'b'))
        # 'Location of error: (1,), a=2.00000000, b=2.50000000'
    """
    kind = "maximum " if maxError else ""
    return (f"Location of {kind}error: {index}, {names[0]}={a[index]:.8f}, "
            f"{names[1]}={b[index]:.8f}")


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per run of a bound symbol, averaged over `N` runs after one warm-up.

    Args:
        sym: the Symbol.
        location: {argument name: numpy array}; None binds from the shapes in `kwargs` and
            fills the arguments with standard normal values.
        ctx: the context (default: `default_context()`).
        N: how many timed runs.
        grad_req: the gradient requirement (default 'write').
        typ: 'whole' (forward and backward) or 'forward'.
        **kwargs: input shapes, when `location` is None.

    Raises:
        ValueError: another `typ`.
        TypeError: `location` is not a dict.

    Example::

        net = sym.FullyConnected(sym.var('data'), num_hidden=10)
        seconds = mx.test_utils.check_speed(net, data=(32, 100), typ='forward', N=3)   # per forward
    """
    import gluonlite as mx
    if typ not in ("whole", "forward"):
        raise ValueError(f"check_speed: typ must be 'whole' or 'forward', got {typ!r}")
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(ctx, grad_req=grad_req, **kwargs)
        location = {k: np.random.normal(size=a.shape) for k, a in exe.arg_dict.items()}
    elif not isinstance(location, dict):
        raise TypeError(f"check_speed: location must be a dict, got {type(location).__name__}")
    else:
        exe = sym.simple_bind(ctx, grad_req=grad_req,
                              **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = np.asarray(value).astype(exe.arg_dict[name].dtype)
    train = typ == "whole"

    def once():
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)
    once()
    mx.nd.waitall()
    tic = time.time()
    for _ in range(N):
        once()
    mx.nd.waitall()
    return (time.time() - tic) / N


def _smaller_dtype(a, b):
    """The less precise of two dtypes (`a` when `b` is None)."""
    return a if b is None or np.dtype(a).itemsize < np.dtype(b).itemsize else b


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err=True,
                      ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Bind `sym` once per entry of `ctx_list` (each a dict of simple_bind arguments:
    ``ctx``, input shapes, ``type_dict``), feed every binding the same random inputs, and
    check that outputs (and, unless grad_req is 'null', gradients) agree with those of the
    most precise binding.

    gluonlite computes with numpy on cpu (CuPy on gpu), so the entries mostly differ in
    dtype; a gpu entry needs CuPy and a device.

    Args:
        sym: a Symbol, or one Symbol per entry.
        ctx_list: the bindings (at least two).
        scale: the standard deviation (or, with `use_uniform`, 0.92 x the half-width) of
            the random inputs.
        grad_req: the gradient requirement of every binding.
        arg_params: default None: {argument name: numpy array} to use instead of random
            values.
        aux_params: default None: {auxiliary state name: numpy array}; the states not
            given are 0.
        rtol: default None: the relative tolerance (a number or {dtype: number}); None: by
            the dtypes compared (`get_tols`).
        atol: default None: the absolute tolerance, likewise.
        raise_on_err: raise the first mismatch (else print it and go on).
        ground_truth: {output or argument name: array} to compare with instead.
        equal_nan: NaNs compare equal.
        rand_type: the dtype the random inputs are drawn in.

    Returns:
        The ground truth: {name: array} of outputs and gradients.

    Raises:
        ValueError: fewer than two bindings, or symbols with different arguments/outputs.
        AssertionError: a mismatch (with `raise_on_err`).

    Example::

        x = sym.var("x")
        mx.test_utils.check_consistency(sym.relu(x),
            [{"ctx": mx.cpu(), "x": (2, 3), "type_dict": {"x": np.float64}},
             {"ctx": mx.cpu(), "x": (2, 3), "type_dict": {"x": np.float32}}])   # passes
    """
    import gluonlite as mx
    if len(ctx_list) < 2:
        raise ValueError(f"check_consistency: ctx_list needs at least two bindings, got "
                         f"{len(ctx_list)}")
    syms = [sym] * len(ctx_list) if isinstance(sym, mx.sym.Symbol) else list(sym)
    if len(syms) != len(ctx_list):
        raise ValueError(f"check_consistency: {len(syms)} symbols for {len(ctx_list)} bindings")
    out_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    for i, s in enumerate(syms):
        if s.list_arguments() != arg_names or s.list_outputs() != out_names:
            raise ValueError(f"check_consistency: symbol {i} has arguments "
                             f"{s.list_arguments()} and outputs {s.list_outputs()}; symbol 0 "
                             f"has {arg_names} and {out_names}")
    exes = [s.simple_bind(grad_req=grad_req, **dict(c)) for s, c in zip(syms, ctx_list)]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for n in sorted(exes[0].arg_dict):  # sorted: the same random draws on every run
        if n not in arg_params:
            shape = exes[0].arg_dict[n].shape
            draw = (np.random.uniform(-0.92 * scale, 0.92 * scale, size=shape) if use_uniform
                    else np.random.normal(size=shape, scale=scale))
            arg_params[n] = draw.astype(rand_type)
    for n in exes[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exes:
        for n, a in exe.arg_dict.items():
            a[:] = arg_params[n]
        for n, a in exe.aux_dict.items():
            a[:] = aux_params[n]
        if grad_req == "add":
            for a in exe.grad_arrays:
                if a is not None:
                    a[:] = 0
    for exe in exes:
        exe.forward(is_train=False)
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exes]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))
    gt = ground_truth
    if gt is None:
        gt = dict(exes[gt_idx].output_dict)
        if grad_req != "null":
            gt.update(exes[gt_idx].grad_dict)

    def compare(i, name, got, want, rt, at, stage):
        try:
            assert_almost_equal(got, want, rtol=rt, atol=at, equal_nan=equal_nan,
                                names=(f"ctx {i} {name}", f"ctx {gt_idx} {name}"))
        except AssertionError as e:
            if raise_on_err:
                raise
            print(f"{stage} error: ctx {i} vs ctx {gt_idx} at {name}: {e}")

    for i, exe in enumerate(exes):
        if i != gt_idx:
            for name, arr in zip(out_names, exe.outputs):
                compare(i, name, arr, gt[name], rtol, atol, "Predict")
    if grad_req == "null":
        return gt
    for exe in exes:
        exe.forward(is_train=True)
    least = [o.dtype for o in exes[0].outputs]
    for exe in exes:
        least = [_smaller_dtype(o.dtype, d) for o, d in zip(exe.outputs, least)]
    golden = [o.astype(d).asnumpy() for o, d in zip(exes[0].outputs, least)]
    for exe in exes:
        exe.backward([mx.nd.array(g, ctx=exe._ctx, dtype=o.dtype)
                      for g, o in zip(golden, exe.outputs)])
    for i, exe in enumerate(exes):
        if i == gt_idx:
            continue
        for name, arr in zip(out_names + arg_names, exe.outputs + exe.grad_arrays):
            want = gt.get(name)
            if want is None or arr is None:
                continue
            rt, at = rtol, atol
            mine, theirs = _smaller_dtype(arr.dtype, dtypes[i]), _smaller_dtype(
                want.dtype, dtypes[gt_idx])
            if mine != arr.dtype or theirs != want.dtype:
                rt, at = get_tols(arr.astype(mine), want.astype(theirs), rtol, atol)
            compare(i, name, arr, want, rt, at, "Train")
    return gt


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1e-4, atol=1e-4):
    """Check that a HybridBlock gives the same outputs (and input gradients) imperatively
    and hybridized, all four runs starting from the same parameter values.

    Args:
        net_builder: ``net_builder(prefix=...)`` makes a fresh block.
        data_l: the input NDArrays.
        numpy_func: optional reference ``numpy_func(*numpy inputs)`` for the output.
        test_grad: also compare the gradients of the inputs (of ``out.backward(out)``).
        rtol: default 1e-4: the relative tolerance of every comparison.
        atol: default 1e-4: the absolute tolerance.

    Raises:
        AssertionError: a mismatch.

    Example::

        build = lambda prefix: nn.Dense(3, in_units=4, prefix=prefix)
        mx.test_utils.check_gluon_hybridize_consistency(build, [nd.ones((2, 4))])   # passes
    """
    import gluonlite as mx
    saved_out = saved_grads = params = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            net.initialize()
            if params is not None:
                for k, p in net.collect_params().items():
                    p.set_data(mx.nd.array(params[k], dtype=params[k].dtype))
            if hybridize:
                net.hybridize()
            inputs = [d.copy() for d in data_l]
            if use_autograd:
                for d in inputs:
                    d.attach_grad()
                with mx.autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if params is None:
                params = {k: p.data().asnumpy() for k, p in net.collect_params().items()}
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), saved_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [d.grad.asnumpy() for d in inputs]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for g, want in zip(grads, saved_grads):
                        assert_almost_equal(g, want, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(saved_out, numpy_func(*[d.asnumpy() for d in data_l]),
                            rtol=rtol, atol=atol)


class DummyIter(DataIter):
    """A data iterator that returns the first batch of `real_iter` forever (for timing
    without the cost of reading data). It is an `mx.io.DataIter`, as MXNet's is (code such as
    `contrib.quantization` checks for one).

    Example::

        it = mx.test_utils.DummyIter(mx.io.NDArrayIter(np.arange(8).reshape(4, 2), batch_size=2))
        first, again = next(it), next(it)   # never ends: stop it yourself
        first is again   # True
    """

    def __init__(self, real_iter):
        super().__init__(getattr(real_iter, "batch_size", 0) or 0)
        self.real_iter = real_iter
        self.provide_data = getattr(real_iter, "provide_data", None)
        self.provide_label = getattr(real_iter, "provide_label", None)
        self.batch_size = getattr(real_iter, "batch_size", None)
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def __next__(self):
        return self.the_batch

    def next(self):
        """The first batch of the real iterator (never StopIteration).

        Example::

            real = mx.io.NDArrayIter(np.arange(8).reshape(4, 2), batch_size=2)
            it = mx.test_utils.DummyIter(real)
            it.next().data[0].asnumpy().tolist()   # [[0.0, 1.0], [2.0, 3.0]]
        """
        return self.the_batch

    def reset(self):
        """Nothing to reset: the same batch is returned forever.

        Example::

            real = mx.io.NDArrayIter(np.arange(8).reshape(4, 2), batch_size=2)
            it = mx.test_utils.DummyIter(real)
            it.reset()
            it.next() is it.next()   # True: the same batch
        """
