"""Graph passes applied to every graph before it is compiled (bind and hybridize).

The partitioning layer sits above the compiler, so it registers its pass here instead of the
compiler importing it.
"""
_passes = []


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
