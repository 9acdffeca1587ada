"""The runnable examples of the operators' docstrings, one table for both front ends.

`EXAMPLES` has one entry per operator (keyed by the name it is called by: the registry name,
or for ``_contrib_``/``_linalg_``/``_image_`` operators the registry name with its prefix):
the arrays it takes, the call and the result it prints. From that one entry `example` writes
the ``Example::`` section of both generated functions, so the two cannot drift apart:

* ``nd``: the inputs as arrays, then ``nd.Op(x, ..., attrs)   # result``;
* ``sym``: the inputs as variables, ``z = sym.Op(x, ..., attrs)`` and
  ``z.eval(x=..., ...)[0]   # result`` (the same arrays fed to the graph).

The generated functions of `gluonlite.ndarray.register` and `gluonlite.symbol.register` get
it through `gluonlite.ops.call.name_generated`; the fluent methods (``x.sum()``) build theirs
from the same entries (`gluonlite.ops.fluent.example`). tests/docs/test_operator_examples.py
runs every entry both ways and checks the result it claims.

An entry is ``_ex(call, result, out=None, tail="", seed=False, **inputs)``: `call` is the
argument list (the inputs by the names of `inputs`, then the attributes), `result` what the
output prints (the numpy values on one line, or the shape when `tail` is ``".shape"``),
`out` the output shown of an operator with several, and `inputs` maps each input's name to
the ``nd`` expression of its array. A random sampler's example seeds the generator first
(`seed`) and shows only the shape.
"""
from . import registry

__all__ = ["EXAMPLES", "entry", "example", "example_lines", "call_name"]


def _ex(call, result, out=None, tail="", seed=False, **inputs):
    return dict(call=call, result=result, out=out, tail=tail, seed=seed, inputs=inputs)


# The operators with a fluent method (gluonlite.ops.fluent.FLUENT) come first: their
# method's example is this entry with the first input as the array the method is called on.
EXAMPLES = {
    "abs": _ex("x", "[1. 2.]", x="nd.array([-1, 2])"),
    "arccos": _ex("x", "[0. 1.5707964]", x="nd.array([1, 0])"),
    "arccosh": _ex("x", "[0. 1.316958]", x="nd.array([1, 2])"),
    "arcsin": _ex("x", "[0. 1.5707964]", x="nd.array([0, 1])"),
    "arcsinh": _ex("x", "[0. 0.8813736]", x="nd.array([0, 1])"),
    "arctan": _ex("x", "[0. 0.7853982]", x="nd.array([0, 1])"),
    "arctanh": _ex("x", "[0. 0.54930615]", x="nd.array([0, 0.5])"),
    "argmax": _ex("x, axis=1", "[1. 1.]", x="nd.array([[1, 5], [3, 4]])"),
    "argmax_channel": _ex("x", "[1. 1.]", x="nd.array([[1, 5], [3, 4]])"),
    "argmin": _ex("x, axis=1", "[0. 0.]", x="nd.array([[1, 5], [3, 4]])"),
    "argsort": _ex("x", "[1. 2. 0.]", x="nd.array([3, 1, 2])"),
    "broadcast_axes": _ex("x, axis=1, size=3", "[[1. 1. 1.] [2. 2. 2.]]", x="nd.array([[1], [2]])"),
    "broadcast_like": _ex("x, y", "[[1. 1. 1.] [2. 2. 2.]]",
            x="nd.array([[1], [2]])", y="nd.zeros((2, 3))"),
    "broadcast_to": _ex("x, (2, 3)", "[[1. 1. 1.] [2. 2. 2.]]", x="nd.array([[1], [2]])"),
    "cbrt": _ex("x", "[1. 2. 3.]", x="nd.array([1, 8, 27])"),
    "ceil": _ex("x", "[-1. 2.]", x="nd.array([-1.5, 1.2])"),
    "clip": _ex("x, 0, 1", "[0. 0.5 1. ]", x="nd.array([-2, 0.5, 3])"),
    "cos": _ex("x", "[ 1. -1.]", x="nd.array([0, 3.1415927])"),
    "cosh": _ex("x", "[1.]", x="nd.array([0])"),
    "degrees": _ex("x", "[ 0. 180.]", x="nd.array([0, 3.1415927])"),
    "depth_to_space": _ex("x, 2", "(1, 1, 2, 2)", tail=".shape",
            x="nd.arange(4).reshape((1, 4, 1, 1))"),
    "diag": _ex("x", "[1. 4.]", x="nd.array([[1, 2], [3, 4]])"),
    "exp": _ex("x", "[1. 2.7182817]", x="nd.array([0, 1])"),
    "expand_dims": _ex("x, axis=0", "(1, 2, 2)", tail=".shape", x="nd.array([[1, 2], [3, 4]])"),
    "expm1": _ex("x", "[0. 1.7182819]", x="nd.array([0, 1])"),
    "fix": _ex("x", "[-1. 1.]", x="nd.array([-1.7, 1.7])"),
    "flatten": _ex("x", "(2, 12)", tail=".shape", x="nd.ones((2, 3, 4))"),
    "flip": _ex("x, axis=1", "[[2. 1.] [4. 3.]]", x="nd.array([[1, 2], [3, 4]])"),
    "floor": _ex("x", "[-2. 1.]", x="nd.array([-1.5, 1.2])"),
    "log": _ex("x", "[0. 1.3862944]", x="nd.array([1, 4])"),
    "log10": _ex("x", "[0. 2.]", x="nd.array([1, 100])"),
    "log1p": _ex("x", "[0. 0.6931472]", x="nd.array([0, 1])"),
    "log2": _ex("x", "[0. 3.]", x="nd.array([1, 8])"),
    "log_softmax": _ex("x", "[-0.6931472 -0.6931472]", x="nd.array([0, 0])"),
    "max": _ex("x, axis=0", "[3. 4.]", x="nd.array([[1, 2], [3, 4]])"),
    "mean": _ex("x", "[2.5]", x="nd.array([[1, 2], [3, 4]])"),
    "min": _ex("x, axis=1", "[1. 3.]", x="nd.array([[1, 2], [3, 4]])"),
    "nanprod": _ex("x", "[6.]", x="nd.array([2, np.nan, 3])"),
    "nansum": _ex("x", "[5.]", x="nd.array([2, np.nan, 3])"),
    "norm": _ex("x", "[5.]", x="nd.array([3, 4])"),
    "one_hot": _ex("x, 3", "[[1. 0. 0.] [0. 0. 1.]]", x="nd.array([0, 2])"),
    "ones_like": _ex("x", "[[1. 1.] [1. 1.]]", x="nd.array([[1, 2], [3, 4]])"),
    "pad": _ex("x, mode='constant', pad_width=(0, 0, 0, 0, 1, 1, 1, 1)", "(1, 1, 4, 4)",
            tail=".shape", x="nd.ones((1, 1, 2, 2))"),
    "pick": _ex("x, y, axis=1", "[2. 3.]", x="nd.array([[1, 2], [3, 4]])", y="nd.array([1, 0])"),
    "prod": _ex("x, axis=1", "[ 2. 12.]", x="nd.array([[1, 2], [3, 4]])"),
    "radians": _ex("x", "[0. 3.1415927]", x="nd.array([0, 180])"),
    "rcbrt": _ex("x", "[1. 0.5]", x="nd.array([1, 8])"),
    "reciprocal": _ex("x", "[1. 0.5 0.25]", x="nd.array([1, 2, 4])"),
    "relu": _ex("x", "[0. 2.]", x="nd.array([-1, 2])"),
    "repeat": _ex("x, repeats=2", "[1. 1. 2. 2.]", x="nd.array([1, 2])"),
    "reshape_like": _ex("x, y", "[[0. 1. 2.] [3. 4. 5.]]", x="nd.arange(6)", y="nd.zeros((2, 3))"),
    "rint": _ex("x", "[-2. 1.]", x="nd.array([-1.6, 1.4])"),
    "round": _ex("x", "[-2. 1.]", x="nd.array([-1.6, 1.4])"),
    "rsqrt": _ex("x", "[1. 0.5]", x="nd.array([1, 4])"),
    "shape_array": _ex("x", "[2 3]", x="nd.ones((2, 3))"),
    "sigmoid": _ex("x", "[0.5]", x="nd.array([0])"),
    "sign": _ex("x", "[-1. 0. 1.]", x="nd.array([-2, 0, 3])"),
    "sin": _ex("x", "[0. 1.]", x="nd.array([0, 1.5707964])"),
    "sinh": _ex("x", "[0.]", x="nd.array([0])"),
    "size_array": _ex("x", "[6]", x="nd.ones((2, 3))"),
    "slice": _ex("x, begin=(0, 1), end=(2, 3)", "[[2. 3.] [5. 6.]]",
            x="nd.array([[1, 2, 3], [4, 5, 6]])"),
    "slice_axis": _ex("x, axis=1, begin=0, end=2", "[[1. 2.] [4. 5.]]",
            x="nd.array([[1, 2, 3], [4, 5, 6]])"),
    "slice_like": _ex("x, y", "[[1. 2.]]",
            x="nd.array([[1, 2, 3], [4, 5, 6]])", y="nd.zeros((1, 2))"),
    "softmax": _ex("x", "[0.5 0.5]", x="nd.array([0, 0])"),
    "softmin": _ex("x", "[0.5 0.5]", x="nd.array([0, 0])"),
    "sort": _ex("x", "[1. 2. 3.]", x="nd.array([3, 1, 2])"),
    "space_to_depth": _ex("x, 2", "(1, 4, 1, 1)", tail=".shape",
            x="nd.arange(4).reshape((1, 1, 2, 2))"),
    "split": _ex("x, num_outputs=2, axis=1", "[[1.] [3.]]", out=0, x="nd.array([[1, 2], [3, 4]])"),
    "split_v2": _ex("x, indices_or_sections=(1,)", "[2. 3. 4.]", out=1, x="nd.array([1, 2, 3, 4])"),
    "sqrt": _ex("x", "[1. 2. 3.]", x="nd.array([1, 4, 9])"),
    "square": _ex("x", "[1. 4. 9.]", x="nd.array([1, 2, 3])"),
    "squeeze": _ex("x", "[1. 1.]", x="nd.ones((1, 2, 1))"),
    "sum": _ex("x, axis=0", "[4. 6.]", x="nd.array([[1, 2], [3, 4]])"),
    "swapaxes": _ex("x, 0, 2", "(3, 2, 1)", tail=".shape", x="nd.ones((1, 2, 3))"),
    "take": _ex("x, y", "[30. 10.]", x="nd.array([10, 20, 30])", y="nd.array([2, 0])"),
    "tan": _ex("x", "[0. 1.]", x="nd.array([0, 0.7853982])"),
    "tanh": _ex("x", "[0.]", x="nd.array([0])"),
    "tile": _ex("x, reps=(2,)", "[1. 2. 1. 2.]", x="nd.array([1, 2])"),
    "topk": _ex("x, k=2", "[0. 2.]", x="nd.array([3, 1, 2])"),
    "trunc": _ex("x", "[-1. 1.]", x="nd.array([-1.7, 1.7])"),
    "zeros_like": _ex("x", "[[0. 0.] [0. 0.]]", x="nd.array([[1, 2], [3, 4]])"),

    # the other operators
}

_PREFIXES = (("_contrib_", "contrib."), ("_linalg_", "linalg."), ("_image_", "image."))
_by_op = {}


def call_name(op_name, public_name):
    """The name an example calls: `public_name`, or for a ``_contrib_``/``_linalg_``/``_image_``
    operator its name in that namespace (``contrib.box_nms``), which is where MXNet puts it."""
    if public_name.startswith("_") or op_name.startswith("_"):
        for prefix, namespace in _PREFIXES:
            if op_name.startswith(prefix):
                return namespace + op_name[len(prefix):]
    return public_name


def _names_op(name, op_name):
    # whether `name` is a name of operator `op_name` (a fluent name with no operator is)
    return not registry.exists(name) or registry.get(name).name == op_name


def entry(op_name, public_name=None):
    """The `EXAMPLES` entry of the operator registered as `op_name` (any of its names: an
    entry keyed by an alias serves them all), or None."""
    if public_name in EXAMPLES and _names_op(public_name, op_name):
        return EXAMPLES[public_name]
    if op_name in EXAMPLES:
        return EXAMPLES[op_name]
    if not _by_op:
        for key in EXAMPLES:
            try:
                _by_op.setdefault(registry.get(key).name, key)
            except Exception:  # noqa: BLE001 - a fluent name with no operator (split_v2)
                continue
    key = _by_op.get(op_name)
    return EXAMPLES[key] if key else None


def example_lines(name, front, op_name=None):
    """(code lines, result) of operator `name`'s example for `front` ('nd' or 'sym'); the
    last line is the expression whose value prints as `result`. `op_name` is the registry
    name when `name` is another name of it (the example then calls `name`)."""
    ex = entry(op_name or name, name)
    called = call_name(op_name or name, name)
    inputs = ex["inputs"]
    pick = "" if ex["out"] is None else f"[{ex['out']}]"
    lines = ["mx.random.seed(0)"] if ex["seed"] else []
    if front == "nd":
        lines += [f"{k} = {v}" for k, v in inputs.items()]
        lines.append(f"nd.{called}({ex['call']}){pick}{ex['tail']}")
    else:
        if inputs:
            lines.append(", ".join(inputs) + " = "
                         + ", ".join(f"sym.var({k!r})" for k in inputs))
        feed = ", ".join(f"{k}={v}" for k, v in inputs.items())
        lines.append(f"z = sym.{called}({ex['call']})")
        lines.append(f"z.eval({feed})[{ex['out'] or 0}]{ex['tail']}")
    return lines, ex["result"]


def example(name, front, op_name=None):
    """The ``Example::`` section for the `front` ('nd' or 'sym') function `name` (the
    registry name `op_name` when `name` is another name of it), or "" when `EXAMPLES` has no
    entry for the operator.

    Example::

        from gluonlite.ops.examples import example
        print(example("clip", "sym"))
    """
    if entry(op_name or name, name) is None:
        return ""
    lines, result = example_lines(name, front, op_name)
    lines[-1] += f"   # {result}"
    return "Example::\n\n" + "".join(f"    {line}\n" for line in lines)
