"""`sym._internal`: MXNet's namespace of the operators whose names start with an underscore
(``sym._internal._plus_scalar``), the same functions as ``sym._<name>``."""
from ..ops import registry as _registry
from .register import _gen_cache
from ..ops.registry import Params
from .json_io import load_json
from .naming import new_name
from .symbol import Node, Symbol

globals().update({n: _gen_cache[n] for n in _registry.names()
                  if n.startswith("_") and not n.startswith("__") and n in _gen_cache})


def _CachedOp(*args, subgraph=None, name=None):
    """A node running the graph `subgraph` (a Symbol or its JSON) on the Symbols `args`, one
    per input of the subgraph in its ``list_inputs()`` order; returns the Symbol of its
    outputs (what MXNet's ``sym._internal._CachedOp(*args, subgraph=json)`` makes).

    Raises:
        TypeError: `subgraph` is neither a Symbol nor a JSON string; an argument is not a
            single-output Symbol.
        ValueError: another number of arguments than the subgraph has inputs.

    Example::

        a, b, x, y = sym.var('a'), sym.var('b'), sym.var('x'), sym.var('y')
        z = sym._internal._CachedOp(a, b, subgraph=(x * y).tojson())
        z.eval(a=nd.array([2]), b=nd.array([3]))[0].asnumpy()   # [6.]
    """
    if isinstance(subgraph, str):
        sub = load_json(subgraph)
    elif isinstance(subgraph, Symbol):
        sub = subgraph
    else:
        raise TypeError(f"_CachedOp: subgraph must be a Symbol or its JSON string, got "
                        f"{type(subgraph).__name__}")
    inputs = sub.list_inputs()
    if len(args) != len(inputs):
        raise ValueError(f"_CachedOp: the subgraph has {len(inputs)} inputs ({inputs}), got "
                         f"{len(args)} arguments")
    for k, a in enumerate(args):
        if not isinstance(a, Symbol) or len(a.outputs) != 1:
            raise TypeError(f"_CachedOp: argument {k} (for input {inputs[k]!r}) must be a "
                            f"single-output Symbol, got {a!r}")
    node = Node(_registry.get("_CachedOp"), new_name(name, "_cachedop"), {},
                Params({"_subgraphs": [sub]}), [a.outputs[0] for a in args])
    return Symbol([(node, i) for i in range(len(sub.outputs))])
