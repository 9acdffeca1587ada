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

# Runnable examples of the generated functions (appended to their docstrings)
EXAMPLES = {
    'activation': (
        'x = mx.np.array([[-1., 2.], [3., -4.]])\n'
        "mx.npx.activation(x, act_type='relu')  # array([[0., 2.], [3., 0.]])"
    ),
    'arange_like': (
        'mx.npx.arange_like(mx.np.ones((2, 3)), axis=1)  # array([0., 1., 2.])'
    ),
    'batch_dot': (
        'a, b = mx.np.ones((2, 1, 3)), mx.np.ones((2, 3, 4))\n'
        'mx.npx.batch_dot(a, b).shape  # (2, 1, 4)'
    ),
    'batch_flatten': (
        'mx.npx.batch_flatten(mx.np.ones((2, 3, 4))).shape  # (2, 12)'
    ),
    'batch_norm': (
        'x = mx.np.array([[1., 2.], [3., 4.]])\n'
        'g, b = mx.np.ones(2), mx.np.zeros(2)\n'
        'm, v = mx.np.zeros(2), mx.np.ones(2)\n'
        'y = mx.npx.batch_norm(x, g, b, m, v, fix_gamma=False)\n'
        'y.shape  # (2, 2)'
    ),
    'cast': (
        "mx.npx.cast(mx.np.array([1.7, -2.2]), dtype='int32')  # array([1, -2], dtype=int32)"
    ),
    'convolution': (
        'x, w = mx.np.ones((1, 1, 4, 4)), mx.np.ones((2, 1, 3, 3))\n'
        'y = mx.npx.convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True)\n'
        'y.shape  # (1, 2, 2, 2)'
    ),
    'deconvolution': (
        'x, w = mx.np.ones((1, 2, 3, 3)), mx.np.ones((2, 1, 2, 2))\n'
        'y = mx.npx.deconvolution(x, w, kernel=(2, 2), num_filter=1, no_bias=True)\n'
        'y.shape  # (1, 1, 4, 4)'
    ),
    'dropout': (
        'x = mx.np.ones((2, 3))\n'
        'mx.npx.dropout(x, p=0.5)  # unchanged outside training: all ones'
    ),
    'embedding': (
        'idx = mx.np.array([0, 2])\n'
        'weight = mx.np.arange(6).reshape(3, 2)\n'
        'mx.npx.embedding(idx, weight, input_dim=3, output_dim=2)  # array([[0., 1.], [4., 5.]])'
    ),
    'erf': (
        'mx.npx.erf(mx.np.array([0., 1.]))  # array([0. , 0.8427008])'
    ),
    'erfinv': (
        'mx.npx.erfinv(mx.np.array([0., 0.5]))  # array([0. , 0.47693628])'
    ),
    'fully_connected': (
        'x, w, b = mx.np.ones((2, 3)), mx.np.ones((4, 3)), mx.np.zeros(4)\n'
        'mx.npx.fully_connected(x, w, b, num_hidden=4).shape  # (2, 4)'
    ),
    'gamma': (
        'mx.npx.gamma(mx.np.array([1., 4.]))  # array([1., 6.])'
    ),
    'gammaln': (
        'mx.npx.gammaln(mx.np.array([1., 4.]))  # array([0. , 1.7917595])'
    ),
    'layer_norm': (
        'x = mx.np.array([[1., 3.], [2., 6.]])\n'
        'y = mx.npx.layer_norm(x, mx.np.ones(2), mx.np.zeros(2))\n'
        'y.round(3)  # array([[-1., 1.], [-1., 1.]])'
    ),
    'leaky_relu': (
        'x = mx.np.array([[-1., 2.], [3., -4.]])\n'
        'mx.npx.leaky_relu(x, slope=0.1)  # array([[-0.1, 2. ], [3. , -0.4]])'
    ),
    'log_softmax': (
        'mx.npx.log_softmax(mx.np.array([0., 0.]))  # array([-0.6931472, -0.6931472])'
    ),
    'multibox_detection': (
        'cls = mx.np.array([[[0.1], [0.9]]])\n'
        'loc = mx.np.zeros((1, 4))\n'
        'anchor = mx.np.array([[[0., 0., 1., 1.]]])\n'
        'mx.npx.multibox_detection(cls, loc, anchor)  # array([[[0. , 0.9, 0. , 0. , 1. , 1. ]]])'
    ),
    'multibox_target': (
        'anchor = mx.np.array([[[0., 0., .5, .5], [.5, .5, 1., 1.]]])\n'
        'label = mx.np.array([[[0., 0., 0., .5, .5]]])\n'
        'cls_pred = mx.np.zeros((1, 2, 2))\n'
        'loc_t, loc_mask, cls_t = mx.npx.multibox_target(anchor, label, cls_pred)\n'
        'cls_t  # array([[1., 0.]])'
    ),
    'one_hot': (
        'mx.npx.one_hot(mx.np.array([0, 2]), depth=3)  # array([[1., 0., 0.], [0., 0., 1.]])'
    ),
    'pick': (
        'x = mx.np.array([[-1., 2.], [3., -4.]])\n'
        'mx.npx.pick(x, mx.np.array([1, 0]), axis=1)  # array([2., 3.])'
    ),
    'pooling': (
        'x = mx.np.arange(16).reshape(1, 1, 4, 4)\n'
        "y = mx.npx.pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='max')\n"
        'y  # array([[[[5., 7.], [13., 15.]]]])'
    ),
    'relu': (
        'x = mx.np.array([[-1., 2.], [3., -4.]])\n'
        'mx.npx.relu(x)  # array([[0., 2.], [3., 0.]])'
    ),
    'rnn': (
        'x = mx.np.ones((3, 2, 4))  # (time, batch, features)\n'
        'params = mx.np.ones(4 * 5 + 5 * 5 + 5 + 5) * 0.1\n'
        'h0 = mx.np.zeros((1, 2, 5))\n'
        "out = mx.npx.rnn(x, params, h0, state_size=5, num_layers=1, mode='rnn_tanh')\n"
        'out.shape  # (3, 2, 5)'
    ),
    'sequence_mask': (
        'x = mx.np.ones((3, 2))  # (time, batch)\n'
        'lens = mx.np.array([1., 3.])\n'
        'y = mx.npx.sequence_mask(x, lens, use_sequence_length=True)\n'
        'y  # array([[1., 1.], [0., 1.], [0., 1.]])'
    ),
    'sigmoid': (
        'mx.npx.sigmoid(mx.np.array([0.]))  # array([0.5])'
    ),
    'slice': (
        'x = mx.np.arange(12).reshape(3, 4)\n'
        'mx.npx.slice(x, begin=(0, 1), end=(2, 3))  # array([[1., 2.], [5., 6.]])'
    ),
    'smooth_l1': (
        'mx.npx.smooth_l1(mx.np.array([-2., 0.5]), scalar=1.0)  # array([1.5 , 0.125])'
    ),
    'softmax': (
        'mx.npx.softmax(mx.np.array([1., 1.]))  # array([0.5, 0.5])'
    ),
    'gather_nd': (
        'x = mx.np.array([[1., 2.], [3., 4.]])\n'
        'mx.npx.gather_nd(x, mx.np.array([[0, 1], [1, 0]]))  # array([2., 3.])'
    ),
    'multibox_prior': (
        'mx.npx.multibox_prior(mx.np.zeros((1, 3, 2, 2)), sizes=(0.5,)).shape  # (1, 4, 4)'
    ),
    'reshape_like': (
        'mx.npx.reshape_like(mx.np.arange(6), mx.np.zeros((2, 3))).shape  # (2, 3)'
    ),
    'roi_pooling': (
        'x = mx.np.arange(16).reshape((1, 1, 4, 4))\n'
        'rois = mx.np.array([[0, 0, 0, 1, 1]])\n'
        'mx.npx.roi_pooling(x, rois, pooled_size=(1, 1), spatial_scale=1)  # array([[[[5.]]]])'
    ),
    'shape_array': (
        'mx.npx.shape_array(mx.np.ones((2, 3)))  # array([2, 3], dtype=int64)'
    ),
    'topk': (
        "mx.npx.topk(mx.np.array([3., 1., 2.]), k=2, ret_typ='value')  # array([3., 2.])"
    ),
}

__all__ = sorted(n for n, o in GENERATED.items() if registry.exists(o)) + [
    "reshape", "constraint_check", "nonzero"]


for _public, _op in GENERATED.items():
    if registry.exists(_op):
        globals()[_public] = make_function(_public, _op, EXAMPLES)
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
