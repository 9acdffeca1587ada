"""`mx.npx`'s operator functions. Most are the legacy dialect's operators under their NumPy
extension names (``npx.fully_connected`` runs ``FullyConnected``, registered once), generated
from the registry with MXNet's signature (inputs, then attributes, ``out=`` and ``name=``),
taking and giving `mx.np` arrays (numpy symbols when called on them); `reshape`,
`constraint_check` and `nonzero` are written out."""
from ..ops import registry
from ..numpy._dispatch import invoke
from ..numpy._generated import make_function

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


for _public, _op in GENERATED.items():
    if registry.exists(_op):
        globals()[_public] = make_function(_public, _op)
del _public, _op


def reshape(a, newshape, reverse=False, order="C"):
    """`a` reshaped with NumPy's -1 and MXNet's codes: -2 copies a dimension, -3 drops a
    dimension of size 1, -4 copies all remaining ones, -5 merges two, -6 splits one into the
    next two values (`reverse` reads the codes from the right).

    Args:
        a: the `mx.np.ndarray` (or numpy symbol) to reshape.
        newshape: an int or a tuple of ints with the codes above (and one -1).
        reverse (bool): default False: read the codes from the left; True from the right.
        order (str): default 'C', the only order supported.

    Returns:
        An `mx.np.ndarray` of the new shape.

    Raises:
        NotImplementedError: an order other than 'C'.
        ValueError: a shape that does not fit `a`'s size.

    Example::

        mx.npx.reshape(mx.np.ones((2, 3, 4)), (-2, -5)).shape   # (2, 12)
    """
    if order != "C":
        raise NotImplementedError(f"npx.reshape: only C order is supported, got {order!r}")
    newshape = (int(newshape),) if isinstance(newshape, int) else tuple(int(d) for d in newshape)
    return invoke("_npx_reshape", [a], {"newshape": newshape, "reverse": bool(reverse),
                                        "order": "C"}, fname="npx.reshape")


def constraint_check(x, msg):
    """True when every entry of the bool array `x` is true; raises ValueError with `msg`
    otherwise (MXNet's check for distribution parameters).

    Args:
        x: a bool `mx.np.ndarray`, the conditions.
        msg (str): the message of the ValueError.

    Returns:
        A 0-d bool `mx.np.ndarray`, True.

    Raises:
        ValueError: some entry of `x` is false.

    Example::

        ok = mx.np.array([1., 2.]) > 0
        mx.npx.constraint_check(ok, 'must be positive')  # array(True)
    """
    return invoke("_npx_constraint_check", [x], {"msg": msg}, fname="npx.constraint_check")


def nonzero(a):
    """The indices of the non-zero entries, one row per entry (shape (count, a.ndim)).

    Args:
        a: an `mx.np.ndarray`.

    Returns:
        An int64 `mx.np.ndarray` of shape (count, a.ndim).

    Example::

        mx.npx.nonzero(mx.np.array([[0., 1.], [2., 0.]]))  # array([[0, 1], [1, 0]], dtype=int64)
    """
    return invoke("_npx_nonzero", [a], {}, fname="npx.nonzero")
