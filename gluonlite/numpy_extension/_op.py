"""`mx.npx`'s operator functions. Most are the legacy dialect's operators under their NumPy
extension names (``npx.fully_connected`` runs ``FullyConnected``, registered once), generated
from the registry with MXNet's signature (inputs, then attributes, ``out=`` and ``name=``),
taking and giving `mx.np` arrays (numpy symbols when called on them); `reshape`,
`constraint_check` and `nonzero` are written out."""
from ..ndarray.ndarray import NDArray
from ..ops import registry
from ..ops.call import bind_call
from ..symbol.symbol import Symbol
from ..numpy._dispatch import invoke

# npx name -> the registry name MXNet 1.9.1 gives it
GENERATED = {
    "activation": "_npx_activation", "arange_like": "_npx_arange_like",
    "batch_dot": "_npx_batch_dot", "batch_flatten": "_npx_batch_flatten",
    "batch_norm": "_npx_batch_norm", "cast": "_npx_cast", "convolution": "_npx_convolution",
    "deconvolution": "_npx_deconvolution", "dropout": "_npx_dropout",
    "embedding": "_npx_embedding", "erf": "_npx_erf", "erfinv": "_npx_erfinv",
    "fully_connected": "_npx_fully_connected", "gamma": "_npx_gamma",
    "gammaln": "_npx_gammaln", "gather_nd": "_npx_gather_nd", "layer_norm": "_npx_layer_norm",
    "leaky_relu": "_npx_leaky_relu", "log_softmax": "_npx_log_softmax",
    "multibox_detection": "_npx_multibox_detection", "multibox_prior": "_npx_multibox_prior",
    "multibox_target": "_npx_multibox_target", "one_hot": "_npx_one_hot", "pick": "_npx_pick",
    "pooling": "_npx_pooling", "relu": "_npx_relu", "reshape_like": "_npx_reshape_like",
    "rnn": "_npx_rnn", "roi_pooling": "_npx_roi_pooling", "sequence_mask": "_npx_sequence_mask",
    "shape_array": "_npx_shape_array", "sigmoid": "_npx_sigmoid", "slice": "_npx_slice",
    "smooth_l1": "_npx_smooth_l1", "softmax": "_npx_softmax", "topk": "_npx_topk",
}

__all__ = sorted(n for n, o in GENERATED.items() if registry.exists(o)) + [
    "reshape", "constraint_check", "nonzero"]


def _is_input(x):
    return isinstance(x, (NDArray, Symbol))


def make_function(public_name, op_name):
    """The npx function `public_name` running registry operator `op_name`:
    ``f(*inputs, *attrs, out=None, name=None, **attrs)`` as MXNet generates it.

    Raises (when called):
        TypeError: a legacy NDArray or Symbol among the inputs (convert with as_np_ndarray),
            unknown or missing arguments.
    """
    def f(*args, out=None, name=None, **kwargs):
        op = registry.get(op_name)
        given, attrs = bind_call(op, args, kwargs, _is_input)
        if isinstance(given, dict):
            names = op.input_names(op.parse(attrs)[0])
            unknown = set(given) - set(names)
            if unknown:
                raise TypeError(f"npx.{public_name}: unknown input(s) {sorted(unknown)}; "
                                f"inputs are {names}")
            missing = [n for n in names if n not in given]
            if missing:
                raise TypeError(f"npx.{public_name}: missing input(s) {missing}")
            inputs = [given[n] for n in names]
        else:
            inputs = list(given)
        return invoke(op_name, inputs, attrs, out=out, fname=f"npx.{public_name}", name=name)
    f.__name__ = f.__qualname__ = public_name
    f.__doc__ = (f"npx.{public_name}: the {op_name} operator on mx.np arrays (numpy symbols "
                 "when hybridized).\n\n" + (registry.get(op_name).__doc__ or "")
                 if registry.exists(op_name) else f"npx.{public_name}: not available.")
    return f


for _public, _op in GENERATED.items():
    if registry.exists(_op):
        globals()[_public] = make_function(_public, _op)
del _public, _op


def reshape(a, newshape, reverse=False, order="C"):
    """`a` reshaped with NumPy's -1 and MXNet's codes: -2 copies a dimension, -3 drops a
    dimension of size 1, -4 copies all remaining ones, -5 merges two, -6 splits one into the
    next two values (`reverse` reads the codes from the right).

    Example: ``npx.reshape(np.ones((2, 3, 4)), (-2, -5))`` has shape (2, 12).
    """
    if order != "C":
        raise NotImplementedError(f"npx.reshape: only C order is supported, got {order!r}")
    newshape = (int(newshape),) if isinstance(newshape, int) else tuple(int(d) for d in newshape)
    return invoke("_npx_reshape", [a], {"newshape": newshape, "reverse": bool(reverse),
                                        "order": "C"}, fname="npx.reshape")


def constraint_check(x, msg):
    """True when every entry of the bool array `x` is true; raises ValueError with `msg`
    otherwise (MXNet's check for distribution parameters)."""
    return invoke("_npx_constraint_check", [x], {"msg": msg}, fname="npx.constraint_check")


def nonzero(a):
    """The indices of the non-zero entries, one row per entry (shape (count, a.ndim))."""
    return invoke("_npx_nonzero", [a], {}, fname="npx.nonzero")
