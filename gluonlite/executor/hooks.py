"""Graph passes applied to graphs before they are compiled: to every graph (bind and
hybridize), and to the graphs of a hybridized block's inference plans only.

The partitioning layer sits above the compiler, so it registers its passes here instead of
the compiler importing it.
"""
_passes = []
_inference_passes = []


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


def register_inference_pass(fn):
    """Register `fn(symbol) -> symbol`, run on a hybridized block's graph when it compiles
    an inference plan (not recording, no gradient wanted): a rewrite that is exact for
    inference only, such as folding a BatchNorm into the convolution before it."""
    if fn not in _inference_passes:
        _inference_passes.append(fn)
    return fn


def apply_inference_passes(symbol):
    """`symbol` after every registered inference pass."""
    for fn in _inference_passes:
        symbol = fn(symbol)
    return symbol
