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
        examples: default None: {public name: a runnable example}, appended to the
            docstring of the function whose name has one.

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
    if examples and public_name in examples:
        f.__doc__ = (f.__doc__.rstrip() + "\n\nExample::\n\n"
                     + "".join(f"    {line}\n" for line in examples[public_name].split("\n")))
    return f
