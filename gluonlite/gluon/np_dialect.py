"""Gluon's own layers in NumPy mode.

gluonlite's layers, losses and cells write their `hybrid_forward` once, in the legacy dialect
(``F.FullyConnected``, ``F.mean(..., exclude=True)``). Given `mx.np` arrays (or numpy symbols,
while a block is traced) such a block runs on zero-copy legacy views of them, the same data
and the same autograd history (`ndarray.as_nd_ndarray`, `_Symbol.as_nd_ndarray`), and its
outputs come back as `mx.np` arrays (numpy symbols). The operators are the registry's, so an
exported graph names them as MXNet's NumPy-mode layers do (``npx.fully_connected`` is
``FullyConnected``), and the numbers are the legacy operators' (MXNet's np-mode layers call the
same operators).

A `hybrid_forward` defined outside gluonlite (a user's block) gets its arguments as they are:
``F.np`` / ``F.npx`` code sees `mx.np` arrays. Containers (`HybridSequential`, ...) mark
themselves `_np_passthrough`, so that their children get what was given.

Example::

    net = nn.Dense(3); net.initialize()
    with mx.util.np_array(True), mx.util.np_shape(True):   # as npx.set_np(), for this block
        y = net(mx.np.ones((2, 4)))   # computed by FullyConnected
    type(y).__name__   # ndarray (an mx.np array)
"""
import threading
from operator import attrgetter

from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol

__all__ = ["call_hybrid_forward", "call_imperative", "legacy_dialect", "to_np", "to_legacy",
           "check_np_outputs"]


# How deep the current thread is inside legacy-dialect code running on legacy views: the
# child blocks such code calls (a Dense's Activation) are given those views and return them,
# which is no user's block returning a legacy array
_VIEWS = threading.local()


def legacy_dialect(block):
    """Whether `block`'s hybrid_forward is gluonlite's own legacy-dialect code.

    Example::

        from gluonlite.gluon.np_dialect import legacy_dialect
        legacy_dialect(nn.Dense(3))   # True: gluonlite's own layer
        legacy_dialect(nn.HybridSequential())   # False: a container passes arrays through
    """
    cls = type(block)
    if getattr(cls, "_np_passthrough", False):
        return False
    fn = getattr(cls, "hybrid_forward", None)
    mod = getattr(fn, "__module__", "") or ""
    return mod.startswith("gluonlite.")


def _is_np(x):
    if x.__class__ is NDArray:  # the common case, answered without a missing-attribute lookup
        return False
    return getattr(x, "_np_array", False) or getattr(type(x), "num_outputs", None) is not None


def to_legacy(x):
    """`x` (nested) with every `mx.np` array / numpy symbol as its legacy view.

    Example::

        from gluonlite.gluon.np_dialect import to_legacy
        x = mx.np.ones((2,))
        type(to_legacy([x])[0]).__name__   # NDArray
    """
    if isinstance(x, (list, tuple)):
        return type(x)(to_legacy(e) for e in x)
    return x.as_nd_ndarray() if _is_np(x) else x


def to_np(x):
    """`x` (nested) with every legacy array / symbol as its `mx.np` view.

    Example::

        from gluonlite.gluon.np_dialect import to_np
        type(to_np(nd.ones((2,)))).__name__   # ndarray
    """
    if isinstance(x, (list, tuple)):
        return type(x)(to_np(e) for e in x)
    if isinstance(x, (NDArray, Symbol)) and not _is_np(x):
        return x.as_np_ndarray()
    return x


def call_hybrid_forward(block, F, args, params):
    """``block.hybrid_forward(F, *args, **params)``, through legacy views when the block is
    legacy-dialect code given `mx.np` arrays or numpy symbols (see the module docstring).

    Args:
        block: the HybridBlock.
        F: the namespace the computation uses (`nd` or `sym`).
        args: the list of positional inputs.
        params: a dict parameter name -> array (or symbol) passed as keyword arguments.

    Returns:
        what `hybrid_forward` returns (as `mx.np` arrays when the inputs were).

    Example::

        from gluonlite.gluon.np_dialect import call_hybrid_forward
        act = nn.Activation('relu')
        y = call_hybrid_forward(act, nd, [mx.np.array([-1.0, 2.0])], {})
        type(y).__name__, y.asnumpy()   # ('ndarray', array([0., 2.], dtype=float32))
    """
    np_in = _any_np(args)
    if not np_in and not _any_np(params.values()) or not legacy_dialect(block):
        return block.hybrid_forward(F, *args, **params)
    _VIEWS.depth = getattr(_VIEWS, "depth", 0) + 1
    try:
        out = block.hybrid_forward(F, *to_legacy(list(args)),
                                   **{k: to_legacy(v) for k, v in params.items()})
    finally:
        _VIEWS.depth -= 1
    return to_np(out) if np_in else out


# NDArray._np_array: True for mx.np arrays; read at C speed over a flat list of arrays
_NP_ARRAY = attrgetter("_np_array")


def call_imperative(block, F, args, arrays, params):
    """`call_hybrid_forward` for an imperative call whose arrays the caller has gathered:
    the test for `mx.np` arrays runs over `arrays` and the parameters without walking `args`
    again (it runs on every imperative block call).

    Args:
        block: the HybridBlock.
        F: the NDArray namespace (`nd`).
        args: the list of positional inputs.
        arrays: every NDArray inside `args` (nested lists flattened).
        params: a dict parameter name -> NDArray passed as keyword arguments.

    Returns:
        what `hybrid_forward` returns (as `mx.np` arrays when the inputs were).

    Example::

        from gluonlite.gluon.np_dialect import call_imperative
        act, x = nn.Activation('relu'), nd.array([-1.0, 2.0])
        call_imperative(act, nd, [x], [x], {}).asnumpy()   # [0. 2.]
    """
    if any(map(_NP_ARRAY, arrays)) or any(map(_NP_ARRAY, params.values())):
        return call_hybrid_forward(block, F, args, params)
    return block.hybrid_forward(F, *args, **params)


def _any_np(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            if _any_np(x):
                return True
        elif _is_np(x):
            return True
    return False


def check_np_outputs(block, out):
    """Under NumPy array semantics a block gives `mx.np` arrays (or numpy symbols) only, as
    MXNet checks.

    Args:
        block: the block that produced the outputs (named in the error).
        out: its output: an array, a symbol or a nested list/tuple of them.

    Raises:
        TypeError: a legacy NDArray or Symbol among the outputs, naming the block and its type.

    Example::

        from gluonlite.gluon.np_dialect import check_np_outputs
        check_np_outputs(nn.Dense(3), [mx.np.ones((2,))])   # passes
        try:
            check_np_outputs(nn.Dense(3), nd.ones((2,)))
        except TypeError as e:
            print('legacy NDArray output')
    """
    if getattr(_VIEWS, "depth", 0):  # a child called by legacy-dialect code on its views
        return
    stack = [out]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, (NDArray, Symbol)) and not _is_np(o):
            raise TypeError(f"{block.name}: under NumPy array semantics a block's outputs must "
                            f"be mxnet.numpy.ndarray or mxnet.symbol.numpy._Symbol, got "
                            f"{type(o).__module__}.{type(o).__name__}; convert it with "
                            "as_np_ndarray()")
