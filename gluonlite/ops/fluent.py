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


def _ex(data, call, result, other=None, out=None, tail=""):
    """One method's example: the array it is called on (`data`, an ``nd`` expression), the
    call (`call`, naming the second input `y` when there is one, made by `other`), the output
    shown (`out`: an index for an operator with several) and what follows it (`tail`, such as
    ``.shape``), and the `result` printed (the numpy values, on one line)."""
    return data, call, result, other, out, tail


# The example of each `FLUENT` method, the same for NDArray and Symbol (see `example`).
_EXAMPLES = {
    "abs": _ex("nd.array([-1, 2])", "abs()", "[1. 2.]"),
    "arccos": _ex("nd.array([1, 0])", "arccos()", "[0. 1.5707964]"),
    "arccosh": _ex("nd.array([1, 2])", "arccosh()", "[0. 1.316958]"),
    "arcsin": _ex("nd.array([0, 1])", "arcsin()", "[0. 1.5707964]"),
    "arcsinh": _ex("nd.array([0, 1])", "arcsinh()", "[0. 0.8813736]"),
    "arctan": _ex("nd.array([0, 1])", "arctan()", "[0. 0.7853982]"),
    "arctanh": _ex("nd.array([0, 0.5])", "arctanh()", "[0. 0.54930615]"),
    "argmax": _ex("nd.array([[1, 5], [3, 4]])", "argmax(axis=1)", "[1. 1.]"),
    "argmax_channel": _ex("nd.array([[1, 5], [3, 4]])", "argmax_channel()", "[1. 1.]"),
    "argmin": _ex("nd.array([[1, 5], [3, 4]])", "argmin(axis=1)", "[0. 0.]"),
    "argsort": _ex("nd.array([3, 1, 2])", "argsort()", "[1. 2. 0.]"),
    "broadcast_axes": _ex("nd.array([[1], [2]])", "broadcast_axes(axis=1, size=3)",
            "[[1. 1. 1.] [2. 2. 2.]]"),
    "broadcast_like": _ex("nd.array([[1], [2]])", "broadcast_like(y)",
            "[[1. 1. 1.] [2. 2. 2.]]", other="nd.zeros((2, 3))"),
    "broadcast_to": _ex("nd.array([[1], [2]])", "broadcast_to((2, 3))", "[[1. 1. 1.] [2. 2. 2.]]"),
    "cbrt": _ex("nd.array([1, 8, 27])", "cbrt()", "[1. 2. 3.]"),
    "ceil": _ex("nd.array([-1.5, 1.2])", "ceil()", "[-1. 2.]"),
    "clip": _ex("nd.array([-2, 0.5, 3])", "clip(0, 1)", "[0. 0.5 1. ]"),
    "cos": _ex("nd.array([0, 3.1415927])", "cos()", "[ 1. -1.]"),
    "cosh": _ex("nd.array([0])", "cosh()", "[1.]"),
    "degrees": _ex("nd.array([0, 3.1415927])", "degrees()", "[ 0. 180.]"),
    "depth_to_space": _ex("nd.arange(4).reshape((1, 4, 1, 1))", "depth_to_space(2)",
            "(1, 1, 2, 2)", tail=".shape"),
    "diag": _ex("nd.array([[1, 2], [3, 4]])", "diag()", "[1. 4.]"),
    "exp": _ex("nd.array([0, 1])", "exp()", "[1. 2.7182817]"),
    "expand_dims": _ex("nd.array([[1, 2], [3, 4]])", "expand_dims(axis=0)",
            "(1, 2, 2)", tail=".shape"),
    "expm1": _ex("nd.array([0, 1])", "expm1()", "[0. 1.7182819]"),
    "fix": _ex("nd.array([-1.7, 1.7])", "fix()", "[-1. 1.]"),
    "flatten": _ex("nd.ones((2, 3, 4))", "flatten()", "(2, 12)", tail=".shape"),
    "flip": _ex("nd.array([[1, 2], [3, 4]])", "flip(axis=1)", "[[2. 1.] [4. 3.]]"),
    "floor": _ex("nd.array([-1.5, 1.2])", "floor()", "[-2. 1.]"),
    "log": _ex("nd.array([1, 4])", "log()", "[0. 1.3862944]"),
    "log10": _ex("nd.array([1, 100])", "log10()", "[0. 2.]"),
    "log1p": _ex("nd.array([0, 1])", "log1p()", "[0. 0.6931472]"),
    "log2": _ex("nd.array([1, 8])", "log2()", "[0. 3.]"),
    "log_softmax": _ex("nd.array([0, 0])", "log_softmax()", "[-0.6931472 -0.6931472]"),
    "max": _ex("nd.array([[1, 2], [3, 4]])", "max(axis=0)", "[3. 4.]"),
    "mean": _ex("nd.array([[1, 2], [3, 4]])", "mean()", "[2.5]"),
    "min": _ex("nd.array([[1, 2], [3, 4]])", "min(axis=1)", "[1. 3.]"),
    "nanprod": _ex("nd.array([2, np.nan, 3])", "nanprod()", "[6.]"),
    "nansum": _ex("nd.array([2, np.nan, 3])", "nansum()", "[5.]"),
    "norm": _ex("nd.array([3, 4])", "norm()", "[5.]"),
    "one_hot": _ex("nd.array([0, 2])", "one_hot(3)", "[[1. 0. 0.] [0. 0. 1.]]"),
    "ones_like": _ex("nd.array([[1, 2], [3, 4]])", "ones_like()", "[[1. 1.] [1. 1.]]"),
    "pad": _ex("nd.ones((1, 1, 2, 2))", "pad(mode='constant', pad_width=(0, 0, 0, 0, 1, 1, 1, 1))",
            "(1, 1, 4, 4)", tail=".shape"),
    "pick": _ex("nd.array([[1, 2], [3, 4]])", "pick(y, axis=1)",
            "[2. 3.]", other="nd.array([1, 0])"),
    "prod": _ex("nd.array([[1, 2], [3, 4]])", "prod(axis=1)", "[ 2. 12.]"),
    "radians": _ex("nd.array([0, 180])", "radians()", "[0. 3.1415927]"),
    "rcbrt": _ex("nd.array([1, 8])", "rcbrt()", "[1. 0.5]"),
    "reciprocal": _ex("nd.array([1, 2, 4])", "reciprocal()", "[1. 0.5 0.25]"),
    "relu": _ex("nd.array([-1, 2])", "relu()", "[0. 2.]"),
    "repeat": _ex("nd.array([1, 2])", "repeat(repeats=2)", "[1. 1. 2. 2.]"),
    "reshape_like": _ex("nd.arange(6)", "reshape_like(y)",
            "[[0. 1. 2.] [3. 4. 5.]]", other="nd.zeros((2, 3))"),
    "rint": _ex("nd.array([-1.6, 1.4])", "rint()", "[-2. 1.]"),
    "round": _ex("nd.array([-1.6, 1.4])", "round()", "[-2. 1.]"),
    "rsqrt": _ex("nd.array([1, 4])", "rsqrt()", "[1. 0.5]"),
    "shape_array": _ex("nd.ones((2, 3))", "shape_array()", "[2 3]"),
    "sigmoid": _ex("nd.array([0])", "sigmoid()", "[0.5]"),
    "sign": _ex("nd.array([-2, 0, 3])", "sign()", "[-1. 0. 1.]"),
    "sin": _ex("nd.array([0, 1.5707964])", "sin()", "[0. 1.]"),
    "sinh": _ex("nd.array([0])", "sinh()", "[0.]"),
    "size_array": _ex("nd.ones((2, 3))", "size_array()", "[6]"),
    "slice": _ex("nd.array([[1, 2, 3], [4, 5, 6]])", "slice(begin=(0, 1), end=(2, 3))",
            "[[2. 3.] [5. 6.]]"),
    "slice_axis": _ex("nd.array([[1, 2, 3], [4, 5, 6]])", "slice_axis(axis=1, begin=0, end=2)",
            "[[1. 2.] [4. 5.]]"),
    "slice_like": _ex("nd.array([[1, 2, 3], [4, 5, 6]])", "slice_like(y)",
            "[[1. 2.]]", other="nd.zeros((1, 2))"),
    "softmax": _ex("nd.array([0, 0])", "softmax()", "[0.5 0.5]"),
    "softmin": _ex("nd.array([0, 0])", "softmin()", "[0.5 0.5]"),
    "sort": _ex("nd.array([3, 1, 2])", "sort()", "[1. 2. 3.]"),
    "space_to_depth": _ex("nd.arange(4).reshape((1, 1, 2, 2))", "space_to_depth(2)",
            "(1, 4, 1, 1)", tail=".shape"),
    "split": _ex("nd.array([[1, 2], [3, 4]])", "split(num_outputs=2, axis=1)",
            "[[1.] [3.]]", out=0),
    "split_v2": _ex("nd.array([1, 2, 3, 4])", "split_v2(indices_or_sections=(1,))",
            "[2. 3. 4.]", out=1),
    "sqrt": _ex("nd.array([1, 4, 9])", "sqrt()", "[1. 2. 3.]"),
    "square": _ex("nd.array([1, 2, 3])", "square()", "[1. 4. 9.]"),
    "squeeze": _ex("nd.ones((1, 2, 1))", "squeeze()", "[1. 1.]"),
    "sum": _ex("nd.array([[1, 2], [3, 4]])", "sum(axis=0)", "[4. 6.]"),
    "swapaxes": _ex("nd.ones((1, 2, 3))", "swapaxes(0, 2)", "(3, 2, 1)", tail=".shape"),
    "take": _ex("nd.array([10, 20, 30])", "take(y)", "[30. 10.]", other="nd.array([2, 0])"),
    "tan": _ex("nd.array([0, 0.7853982])", "tan()", "[0. 1.]"),
    "tanh": _ex("nd.array([0])", "tanh()", "[0.]"),
    "tile": _ex("nd.array([1, 2])", "tile(reps=(2,))", "[1. 2. 1. 2.]"),
    "topk": _ex("nd.array([3, 1, 2])", "topk(k=2)", "[0. 2.]"),
    "trunc": _ex("nd.array([-1.7, 1.7])", "trunc()", "[-1. 1.]"),
    "zeros_like": _ex("nd.array([[1, 2], [3, 4]])", "zeros_like()", "[[0. 0.] [0. 0.]]"),
}


def example(name, kind):
    """The ``Example::`` section of the docstring of fluent method `name` of `kind` ('NDArray'
    or 'Symbol'): the NDArray one calls the method on an array; the Symbol one calls it on a
    variable and evaluates the graph with the same array, which gives the same result.

    Example::

        from gluonlite.ops.fluent import example
        print(example("sum", "NDArray"))
    """
    data, call, result, other, out, tail = _EXAMPLES[name]
    if kind == "NDArray":
        lines = [f"x = {data}"] + ([f"y = {other}"] if other else [])
        pick = "" if out is None else f"[{out}]"
        lines.append(f"x.{call}{pick}{tail}   # {result}")
    else:
        feed = f"x={data}" + (f", y={other}" if other else "")
        lines = ["x, y = sym.var('x'), sym.var('y')" if other else "x = sym.var('x')",
                 f"z = x.{call}",
                 f"z.eval({feed})[{out or 0}]{tail}   # {result}"]
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

    Example: ``install(NDArray, globals(), "NDArray")`` at the end of ``ndarray/__init__``.
    """
    for name in FLUENT:
        if name in namespace and name not in cls.__dict__:
            setattr(cls, name, _method(namespace, name, kind))


def reshape_shape(shape, kwargs):
    """The shape of ``x.reshape(...)`` in any of its forms: ``reshape((2, 3))``,
    ``reshape(2, 3)`` or ``reshape(shape=(2, 3))`` (``shape`` is taken out of `kwargs`).

    Example: ``reshape_shape(((2, 3),), {})`` is ``(2, 3)``.
    """
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if "shape" in kwargs:
        shape = tuple(kwargs.pop("shape"))
    return shape


def transpose_axes(axes, kwargs):
    """The axes of ``x.transpose(...)``: ``transpose((1, 0))``, ``transpose(1, 0)`` or
    ``transpose(axes=(1, 0))`` (``axes`` is taken out of `kwargs`); () reverses them all.

    Example: ``transpose_axes((1, 0), {})`` is ``(1, 0)``.
    """
    if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
        axes = tuple(axes[0])
    return kwargs.pop("axes", axes)
