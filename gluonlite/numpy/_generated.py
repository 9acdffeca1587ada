"""The generated functions of the NumPy dialect: a registry operator as a function with
MXNet's generated signature (its inputs, then its attributes, ``out=`` and ``name=``), taking
and giving `mx.np` arrays (numpy symbols when called on them). `mx.npx`'s operator functions
and `mx.np._internal`'s are made here (the NumPy extension sits above this package).

Example::

    from gluonlite.numpy._generated import make_function
    relu = make_function('relu', '_npx_relu')
    relu(mx.np.array([-1.0, 2.0]))   # array([0., 2.])
"""
from ..ndarray.ndarray import NDArray
from ..ops import arg_docs, registry
from ..ops.call import bind_call
from ..symbol.symbol import Symbol
from ._dispatch import invoke

__all__ = ["make_function"]

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



def _is_input(x):
    return isinstance(x, (NDArray, Symbol))


def _args_doc(op):
    """The Args/Returns/Raises sections of a generated function's docstring, from the
    registry entry `op`'s inputs and attributes and the argument meanings of
    `gluonlite.ops.arg_docs`."""
    lines = ["Args:"]
    for n in op.signature:
        meaning = arg_docs.describe(op, n, True) or f"the input array `{n}`."
        lines.append(arg_docs.wrap(f"    {n}: {meaning} An `mx.np.ndarray` or a numpy "
                                   "symbol."))
    for n, spec in op.attrs.items():
        meaning = arg_docs.describe(op, n, False) or "an attribute of the operator (see above)."
        lines.append(arg_docs.wrap(f"    {n}: {meaning} {arg_docs.kind_text(spec)}"))
    lines += ["    out: default None: new arrays hold the result; else an `mx.np.ndarray` (a "
              "list of them\n        for several outputs) of the result's shape and dtype that "
              "receives it and is returned.",
              "    name: default None: the name of the graph node when called on numpy "
              "symbols (an\n        automatic name when None); unused on arrays.",
              "",
              "Returns:",
              "    An `mx.np.ndarray` (a numpy symbol on symbols), or a list of them when the "
              "operator\n    has several visible outputs.",
              "",
              "Raises:",
              "    TypeError: a legacy NDArray or Symbol among the inputs (convert with "
              "as_np_ndarray), an\n        unknown, missing or repeated argument, or an `out` "
              "of another dtype.",
              "    ValueError: an attribute value that does not parse, or an `out` of another "
              "shape."]
    return "\n".join(lines)


def make_function(public_name, op_name, examples=None):
    """The npx function `public_name` running registry operator `op_name`:
    ``f(*inputs, *attrs, out=None, name=None, **attrs)`` as MXNet generates it.

    Args:
        public_name: the function's name (``fully_connected``), in its docstring and errors.
        op_name: the registry operator it runs (``_npx_fully_connected``).
        examples: default None (`EXAMPLES`, npx's): {public name: a runnable example},
            appended to the docstring of the function whose name has one.

    Returns:
        The function.

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
                 "when hybridized).\n\n" + (registry.get(op_name).__doc__ or "").rstrip()
                 + "\n\n" + _args_doc(registry.get(op_name))
                 if registry.exists(op_name) else f"npx.{public_name}: not available.")
    examples = EXAMPLES if examples is None else examples
    if public_name in examples:
        f.__doc__ = (f.__doc__.rstrip() + "\n\nExample::\n\n"
                     + "".join(f"    {line}\n" for line in examples[public_name].split("\n")))
    return f
