"""Graph passes applied to every graph before it is compiled (bind and hybridize), and those
applied to a plan's graph on an array module that compiles kernels (a device).

The partitioning layer sits above the compiler, so it registers its passes here instead of
the compiler importing it.
"""
_passes = []
_device_passes = []

__all__ = ["register_graph_pass", "apply_graph_passes", "register_device_pass",
           "apply_device_passes"]


def register_graph_pass(fn):
    """Register `fn(symbol) -> symbol`, run on every graph at bind and first hybridized call."""
    if fn not in _passes:
        _passes.append(fn)
    return fn


def apply_graph_passes(symbol):
    """`symbol` after every registered pass."""
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
