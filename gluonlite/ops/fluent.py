"""The fluent methods: ``x.exp()`` for ``nd.exp(x)`` and ``s.exp()`` for ``sym.exp(s)``.

One table for both `NDArray` and `Symbol` (MXNet gives them the same list), so the two
cannot drift apart. A method calls the namespace's function of the same name with the
array or symbol first; it is installed only where the namespace has that function, so a
method exists exactly when its operator does.

Methods that are more than a call (``reshape``, ``transpose``, ``astype``, ``flatten`` on
NDArray, ...) are written by hand in each class and are not in this table; the argument
forms ``reshape`` and ``transpose`` take are read by `reshape_shape` and `transpose_axes`
for both classes.
"""

from .examples import EXAMPLES

__all__ = ["FLUENT", "install", "reshape_shape", "transpose_axes"]

# MXNet 1.9.1's fluent methods of NDArray and Symbol ("Convenience fluent method for ...",
# and the few more both have: broadcast_like/to, expand_dims, flatten, squeeze).
FLUENT = (
    "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax",
    "argmax_channel", "argmin", "argsort", "broadcast_axes", "broadcast_like", "broadcast_to",
    "cbrt", "ceil", "clip", "cos", "cosh", "degrees", "depth_to_space", "diag", "exp",
    "expand_dims", "expm1", "fix", "flatten", "flip", "floor", "log", "log10", "log1p",
    "log2", "log_softmax", "max",
    "mean", "min", "nanprod", "nansum", "norm", "one_hot", "ones_like", "pad", "pick",
    "prod", "radians", "rcbrt", "reciprocal", "relu", "repeat", "reshape_like", "rint",
    "round", "rsqrt", "shape_array", "sigmoid", "sign", "sin", "sinh", "size_array",
    "slice", "slice_axis", "slice_like", "softmax", "softmin", "sort", "space_to_depth",
    "split", "split_v2", "sqrt", "square", "squeeze", "sum", "swapaxes", "take", "tan",
    "tanh", "tile", "topk", "trunc", "zeros_like",
)


def example(name, kind):
    """The ``Example::`` section of the docstring of fluent method `name` of `kind` ('NDArray'
    or 'Symbol'), built from the operator's entry in `gluonlite.ops.examples.EXAMPLES` (its
    first input is the array the method is called on): the NDArray one calls the method on
    an array; the Symbol one calls it on a variable and evaluates the graph with the same
    array, which gives the same result.

    Example::

        from gluonlite.ops.fluent import example
        print(example("sum", "NDArray"))
    """
    ex = EXAMPLES[name]
    first, *others = ex["inputs"]
    args = ex["call"][len(first):].lstrip(", ")
    call = f"{name}({args})"
    pick = "" if ex["out"] is None else f"[{ex['out']}]"
    if kind == "NDArray":
        lines = [f"{k} = {v}" for k, v in ex["inputs"].items()]
        lines.append(f"{first}.{call}{pick}{ex['tail']}   # {ex['result']}")
    else:
        feed = ", ".join(f"{k}={v}" for k, v in ex["inputs"].items())
        lines = [", ".join(ex["inputs"]) + " = "
                 + ", ".join(f"sym.var({k!r})" for k in ex["inputs"]),
                 f"z = {first}.{call}",
                 f"z.eval({feed})[{ex['out'] or 0}]{ex['tail']}   # {ex['result']}"]
    return "Example::\n\n" + "".join(f"    {line}\n" for line in lines)


def _method(namespace, name, kind):
    fn = namespace[name]

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = name
    method.__qualname__ = f"{kind}.{name}"
    method.__doc__ = (f"Fluent form of ``{name}``: ``x.{name}(...)`` is the same call as "
                      f"``{'nd' if kind == 'NDArray' else 'sym'}.{name}(x, ...)``.\n\n"
                      + example(name, kind))
    return method


def install(cls, namespace, kind):
    """Give `cls` a method for every `FLUENT` name that `namespace` (a module's dict) has,
    leaving the methods `cls` defines itself.

    Args:
        cls: NDArray or Symbol.
        namespace: the dict of ``gluonlite.ndarray`` or ``gluonlite.symbol``.
        kind: the class name for the methods' qualified names ('NDArray', 'Symbol').

    Example::

        from gluonlite.ops.fluent import install
        class Arr(nd.NDArray):
            pass
        install(Arr, vars(mx.ndarray), 'Arr')
        'exp' in vars(Arr)   # True
    """
    for name in FLUENT:
        if name in namespace and name not in cls.__dict__:
            setattr(cls, name, _method(namespace, name, kind))


def reshape_shape(shape, kwargs):
    """The shape of ``x.reshape(...)`` in any of its forms: ``reshape((2, 3))``,
    ``reshape(2, 3)`` or ``reshape(shape=(2, 3))`` (``shape`` is taken out of `kwargs`).

    Example::

        from gluonlite.ops.fluent import reshape_shape
        reshape_shape(((2, 3),), {})   # (2, 3)
    """
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if "shape" in kwargs:
        shape = tuple(kwargs.pop("shape"))
    return shape


def transpose_axes(axes, kwargs):
    """The axes of ``x.transpose(...)``: ``transpose((1, 0))``, ``transpose(1, 0)`` or
    ``transpose(axes=(1, 0))`` (``axes`` is taken out of `kwargs`); () reverses them all.

    Example::

        from gluonlite.ops.fluent import transpose_axes
        transpose_axes((1, 0), {})   # (1, 0)
    """
    if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
        axes = tuple(axes[0])
    return kwargs.pop("axes", axes)
