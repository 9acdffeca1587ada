"""Graph passes applied to graphs before they are compiled: to every graph (bind and
hybridize), to the graphs of a hybridized block's inference plans only, and to a plan's
graph on an array module that compiles kernels (a device).

The partitioning layer sits above the compiler, so it registers its passes here instead of
the compiler importing it.
"""
_passes = []
_device_passes = []
_inference_passes = []

__all__ = ["register_graph_pass", "apply_graph_passes", "register_device_pass",
           "apply_device_passes", "register_inference_pass", "apply_inference_passes"]


def register_graph_pass(fn):
    """Register `fn(symbol) -> symbol`, run on every graph at bind and first hybridized call.

    Example::

        def keep(symbol):   # a pass that leaves every graph as it is
            return symbol
        mx.executor.register_graph_pass(keep)
        exe = sym.tanh(sym.var('x')).simple_bind(mx.cpu(), x=(2, 3))   # keep ran
    """
    if fn not in _passes:
        _passes.append(fn)
    return fn


def apply_graph_passes(symbol):
    """`symbol` after every registered pass.

    Example::

        y = sym.tanh(sym.var('x'))
        y2 = mx.executor.apply_graph_passes(y)   # y itself, unless a pass rewrites it
    """
    for fn in _passes:
        symbol = fn(symbol)
    return symbol


def register_device_pass(fn):
    """Register `fn(symbol, shapes, dtypes) -> symbol` ({input name: shape}, {input name:
    dtype}), run on a graph when a plan of it is compiled for an array module that compiles
    kernels (CuPy) with device kernels on (`gluonlite.ops.fast.device_kernels`): a rewrite
    that pays on a device only, such as elementwise fusion.

    Example: ``register_device_pass(fuse_elementwise)``.
    """
    if fn not in _device_passes:
        _device_passes.append(fn)
    return fn


def apply_device_passes(symbol, shapes, dtypes):
    """`symbol` after every registered device pass, for inputs of these shapes and dtypes."""
    for fn in _device_passes:
        symbol = fn(symbol, shapes, dtypes)
    return symbol


def register_inference_pass(fn):
    """Register `fn(symbol) -> symbol`, run on a hybridized block's graph when it compiles
    an inference plan (not recording, no gradient wanted): a rewrite that is exact for
    inference only, such as folding a BatchNorm into the convolution before it.

    Example: ``register_inference_pass(fuse_for_inference)``.
    """
    if fn not in _inference_passes:
        _inference_passes.append(fn)
    return fn


def apply_inference_passes(symbol):
    """`symbol` after every registered inference pass."""
    for fn in _inference_passes:
        symbol = fn(symbol)
    return symbol
