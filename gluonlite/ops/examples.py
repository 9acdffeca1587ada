"""The runnable examples of the operators' docstrings, one table for both front ends.

`EXAMPLES` has one entry per operator (keyed by the name it is called by: the registry name,
or for ``_contrib_``/``_linalg_``/``_image_``/``_sparse_`` operators the registry name with its
prefix): the arrays it takes, the call and the result it prints. From that one entry `example`
writes the ``Example::`` section of both generated functions, so the two cannot drift apart:

* ``nd``: the inputs as arrays, then ``nd.Op(x, ..., attrs)   # result``;
* ``sym``: the inputs as variables, ``z = sym.Op(x, ..., attrs)`` and
  ``z.eval(x=..., ...)[0]   # result`` (the same arrays fed to the graph).

The generated functions of `gluonlite.ndarray.register` and `gluonlite.symbol.register` get
it through `gluonlite.ops.call.name_generated`; the fluent methods (``x.sum()``) build theirs
from the same entries (`gluonlite.ops.fluent.example`). tests/docs/test_operator_examples.py
runs every entry both ways and checks the result it claims.

An entry is ``_ex(call, result, out=None, tail="", seed=False, aux=(), **inputs)``: `call`
is the argument list (the inputs by the names of `inputs`, then the attributes), `result` what
the output prints (the numpy values on one line, or the shape when `tail` is ``".shape"``),
`out` the output shown of an operator with several, `inputs` maps each input's name to the
``nd`` expression of its array, and `aux` names the inputs the graph holds as auxiliary
states (bound with ``aux_states`` in the ``sym`` example). A random sampler's example seeds
the generator first (`seed`) and shows only the shape.
"""
from . import registry

__all__ = ["EXAMPLES", "entry", "example", "example_lines", "call_name"]


def _ex(call, result, out=None, tail="", seed=False, aux=(), **inputs):
    return dict(call=call, result=result, out=out, tail=tail, seed=seed, aux=aux,
                inputs=inputs)


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
    "log_softmax": _ex("x", "[-0.69314575 -0.69314575]", x="nd.array([0, 0])"),
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
    "Activation": _ex("x, act_type='relu'", "[0. 2.]", x="nd.array([-1, 2])"),
    "FullyConnected": _ex("x, w, b, num_hidden=2", "[[1. 4.]]", x="nd.array([[1, 2]])",
            w="nd.array([[1, 0], [1, 1]])", b="nd.array([0, 1])"),
    "Convolution": _ex("x, w, kernel=(2, 2), num_filter=1, no_bias=True",
            "[[[[ 8. 12.] [20. 24.]]]]",
            x="nd.arange(9).reshape((1, 1, 3, 3))", w="nd.ones((1, 1, 2, 2))"),
    "Deconvolution": _ex("x, w, kernel=(2, 2), num_filter=1, no_bias=True",
            "[[[[1. 2. 1.] [2. 4. 2.] [1. 2. 1.]]]]",
            x="nd.ones((1, 1, 2, 2))", w="nd.ones((1, 1, 2, 2))"),
    "Pooling": _ex("x, kernel=(2, 2), stride=(2, 2), pool_type='max'", "[[[[ 5. 7.] [13. 15.]]]]",
            x="nd.arange(16).reshape((1, 1, 4, 4))"),
    "BatchNorm": _ex("x, g, b, m, v, fix_gamma=False", "[[0. 0. ] [0.99987507 0.99987507]]",
            aux=("m", "v"), x="nd.array([[1, 2], [3, 4]])",
            g="nd.ones(2)", b="nd.zeros(2)", m="nd.array([1, 2])", v="nd.array([4, 4])"),
    "Dropout": _ex("x, p=0.5", "[1. 2. 3.]", x="nd.array([1, 2, 3])"),
    "Embedding": _ex("x, w, input_dim=3, output_dim=2", "[[4. 5.] [0. 1.]]", x="nd.array([2, 0])",
            w="nd.array([[0, 1], [2, 3], [4, 5]])"),
    "SoftmaxOutput": _ex("x, y", "[[0.5 0.5 ] [0.25 0.75]]", x="nd.array([[0, 0], [0, 1.0986123]])",
            y="nd.array([0, 1])"),
    "dot": _ex("x, y", "[[3.] [7.]]", x="nd.array([[1, 2], [3, 4]])", y="nd.array([[1], [1]])"),
    "batch_dot": _ex("x, y", "[[[3.]] [[3.]]]", x="nd.ones((2, 1, 3))", y="nd.ones((2, 3, 1))"),
    "Concat": _ex("x, y, dim=1", "[[1. 3.] [2. 4.]]", x="nd.array([[1], [2]])",
            y="nd.array([[3], [4]])"),
    "stack": _ex("x, y, axis=0", "[[1. 2.] [3. 4.]]", x="nd.array([1, 2])", y="nd.array([3, 4])"),
    "Reshape": _ex("x, shape=(2, -1)", "[[0. 1. 2.] [3. 4. 5.]]", x="nd.arange(6)"),
    "transpose": _ex("x", "[[1. 3.] [2. 4.]]", x="nd.array([[1, 2], [3, 4]])"),
    "where": _ex("c, x, y", "[ 1. 20.]", c="nd.array([1, 0])", x="nd.array([1, 2])",
            y="nd.array([10, 20])"),
    "LeakyReLU": _ex("x, act_type='leaky', slope=0.1", "[-1. 2.]", x="nd.array([-10, 2])"),
    "LayerNorm": _ex("x, g, b", "[[-0.999995 0.999995]]", x="nd.array([[1, 3]])", g="nd.ones(2)",
            b="nd.zeros(2)"),
    "InstanceNorm": _ex("x, g, b", "[[[-0.9995004 0.9995004]]]", x="nd.array([[[1, 3]]])",
            g="nd.ones(1)",
            b="nd.zeros(1)"),
    "GroupNorm": _ex("x, g, b, num_groups=1", "[[[-0.999995 0.999995]]]", x="nd.array([[[1, 3]]])",
            g="nd.ones(1)",
            b="nd.zeros(1)"),
    "SequenceMask": _ex("x, n, use_sequence_length=True", "[[1. 2.] [0. 4.] [0. 0.]]",
            x="nd.array([[1, 2], [3, 4], [5, 6]])", n="nd.array([1, 2])"),
    "SequenceLast": _ex("x, n, use_sequence_length=True", "[1. 6.]",
            x="nd.array([[1, 2], [3, 4], [5, 6]])", n="nd.array([1, 3])"),
    "SequenceReverse": _ex("x, n, use_sequence_length=True", "[[3. 6.] [1. 4.] [5. 2.]]",
            x="nd.array([[1, 2], [3, 4], [5, 6]])", n="nd.array([2, 3])"),
    "RNN": _ex("x, p, h, state_size=1, num_layers=1, mode='rnn_relu'", "[[[1.]] [[2.]]]",
            x="nd.ones((2, 1, 1))", p="nd.array([1, 1, 0, 0])", h="nd.zeros((1, 1, 1))"),
    "Cast": _ex("x, dtype='int32'", "[ 1 -1]", x="nd.array([1.7, -1.7])"),
    "random_uniform": _ex("low=0, high=1, shape=(2, 3)", "(2, 3)", seed=True, tail=".shape"),
    "random_normal": _ex("loc=0, scale=1, shape=(2, 3)", "(2, 3)", seed=True, tail=".shape"),
    "sample_normal": _ex("mu, sigma, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            mu="nd.array([0, 10])", sigma="nd.array([1, 1])"),
    "_linalg_gemm": _ex("a, b, c, alpha=2, beta=1", "[[16.]]", a="nd.array([[1, 2]])",
            b="nd.array([[1], [1]])", c="nd.array([[10]])"),
    "_linalg_gemm2": _ex("a, b", "[[11.]]", a="nd.array([[1, 2]])", b="nd.array([[3], [4]])"),
    "_linalg_potrf": _ex("a", "[[2. 0.] [1. 2.]]", a="nd.array([[4, 2], [2, 5]])"),
    "_linalg_potri": _ex("a", "[[ 0.3125 -0.125 ] [-0.125 0.25 ]]", a="nd.array([[2, 0], [1, 2]])"),
    "_linalg_det": _ex("a", "[-2.]", a="nd.array([[1, 2], [3, 4]])"),
    "_linalg_slogdet": _ex("a", "[0.6931472]", out=1, a="nd.array([[1, 2], [3, 4]])"),
    "_linalg_inverse": _ex("a", "[[0.5 0. ] [0. 0.25]]", a="nd.array([[2, 0], [0, 4]])"),
    "_linalg_syrk": _ex("a", "[[5.]]", a="nd.array([[1, 2]])"),
    "_linalg_trmm": _ex("a, b", "[[1. 2.] [4. 6.]]", a="nd.array([[1, 0], [1, 1]])",
            b="nd.array([[1, 2], [3, 4]])"),
    "_linalg_trsm": _ex("a, b", "[[1. 2.] [1. 2.]]", a="nd.array([[2, 0], [0, 4]])",
            b="nd.array([[2, 4], [4, 8]])"),
    "_linalg_sumlogdiag": _ex("a", "[1.]", a="nd.array([[1, 0], [0, 2.7182817]])"),
    "_linalg_extractdiag": _ex("a", "[1. 4.]", a="nd.array([[1, 2], [3, 4]])"),
    "_linalg_makediag": _ex("a", "[[1. 0.] [0. 2.]]", a="nd.array([1, 2])"),
    "_linalg_extracttrian": _ex("a", "[1. 3. 4.]", a="nd.array([[1, 2], [3, 4]])"),
    "_linalg_maketrian": _ex("a", "[[1. 0.] [2. 3.]]", a="nd.array([1, 2, 3])"),
    "_linalg_gelqf": _ex("a", "[[-5.]]", out=1, a="nd.array([[3, 4]])"),
    "_linalg_syevd": _ex("a", "[1. 2.]", out=1, a="nd.array([[2, 0], [0, 1]])"),
    "_contrib_box_nms": _ex("x, overlap_thresh=0.5",
            "[[ 0. 0.9 0. 0. 2. 2. ] [ 0. 0.7 5. 5. 6. 6. ] [-1. -1. -1. -1. -1. -1. ]]",
            x="nd.array([[0, 0.9, 0, 0, 2, 2], [0, 0.8, 0, 0, 2, 1.9], [0, 0.7, 5, 5, 6, 6]])"),
    "_contrib_box_iou": _ex("a, b", "[[0.33333334 1. ]]", a="nd.array([[0, 0, 2, 2]])",
            b="nd.array([[1, 0, 3, 2], [0, 0, 2, 2]])"),
    "_image_to_tensor": _ex("x", "(3, 2, 3)", x="nd.full((2, 3, 3), 255, dtype='uint8')",
            tail=".shape"),
    "_image_normalize": _ex("x, mean=(1, 2), std=(2, 2)", "[[[2. ]] [[1.5]]]",
            x="nd.ones((2, 1, 1)) * 5"),
    "_image_flip_left_right": _ex("x", "[[[2.] [1.]]]", x="nd.array([[[1], [2]]])"),
    "_image_flip_top_bottom": _ex("x", "[[[2.]] [[1.]]]", x="nd.array([[[1]], [[2]]])"),
    "_image_resize": _ex("x, size=(4, 2)", "(2, 4, 3)", x="nd.zeros((4, 4, 3), dtype='uint8')",
            tail=".shape"),
    "_image_crop": _ex("x, 1, 0, 2, 1", "[[[1.] [2.]]]", x="nd.arange(9).reshape((3, 3, 1))"),
    "add_n": _ex("x, y, w", "[ 9. 12.]", x="nd.array([1, 2])", y="nd.array([3, 4])",
            w="nd.array([5, 6])"),
    "BlockGrad": _ex("x", "[1. 2.]", x="nd.array([1, 2])"),
    "MakeLoss": _ex("x", "[1. 2.]", x="nd.array([1, 2])"),
    "LRN": _ex("x, nsize=1, alpha=0, beta=1, knorm=2", "[[[[2.]]]]", x="nd.array([[[[4]]]])"),
    "UpSampling": _ex("x, scale=2, sample_type='nearest'", "[[[[1. 1. 2. 2.] [1. 1. 2. 2.]]]]",
            x="nd.array([[[[1, 2]]]])"),
    "smooth_l1": _ex("x, scalar=1", "[1.5 0.125]", x="nd.array([-2, 0.5])"),
    "hard_sigmoid": _ex("x", "[0. 0.5 0.7]", x="nd.array([-5, 0, 1])"),
    "softsign": _ex("x", "[-0.5 0.75]", x="nd.array([-1, 3])"),
    "khatri_rao": _ex("x, y", "[[1. 2.] [2. 6.]]", x="nd.array([[1, 2]])",
            y="nd.array([[1, 1], [2, 3]])"),
    "erf": _ex("x", "[0. 0.8427008]", x="nd.array([0, 1])"),
    "erfinv": _ex("x", "[0. 0.47693628]", x="nd.array([0, 0.5])"),
    "gamma": _ex("x", "[ 1. 24.]", x="nd.array([1, 5])"),
    "gammaln": _ex("x", "[0. 3.1780539]", x="nd.array([1, 5])"),
    "SoftmaxActivation": _ex("x", "[[0.5 0.5]]", x="nd.array([[0, 0]])"),
    "LinearRegressionOutput": _ex("x, y", "[1. 2.]", x="nd.array([1, 2])", y="nd.array([0, 0])"),
    "LogisticRegressionOutput": _ex("x, y", "[0.5]", x="nd.array([0])", y="nd.array([1])"),
    "MAERegressionOutput": _ex("x, y", "[1. 2.]", x="nd.array([1, 2])", y="nd.array([0, 0])"),
    "elemwise_add": _ex("x, y", "[4. 6.]", x="nd.array([1, 2])", y="nd.array([3, 4])"),
    "elemwise_sub": _ex("x, y", "[-2. -2.]", x="nd.array([1, 2])", y="nd.array([3, 4])"),
    "elemwise_mul": _ex("x, y", "[3. 8.]", x="nd.array([1, 2])", y="nd.array([3, 4])"),
    "elemwise_div": _ex("x, y", "[0.25 0.5 ]", x="nd.array([1, 2])", y="nd.array([4, 4])"),
    "broadcast_add": _ex("x, y", "[[11. 21.] [12. 22.]]", x="nd.array([[1], [2]])",
            y="nd.array([10, 20])"),
    "broadcast_sub": _ex("x, y", "[[ -9. -19.] [ -8. -18.]]", x="nd.array([[1], [2]])",
            y="nd.array([10, 20])"),
    "broadcast_mul": _ex("x, y", "[[10. 20.] [20. 40.]]", x="nd.array([[1], [2]])",
            y="nd.array([10, 20])"),
    "broadcast_div": _ex("x, y", "[[10. 5.] [20. 10.]]", x="nd.array([[10], [20]])",
            y="nd.array([1, 2])"),
    "broadcast_mod": _ex("x, y", "[[1. 2.] [1. 1.]]", x="nd.array([[5], [7]])",
            y="nd.array([2, 3])"),
    "broadcast_power": _ex("x, y", "[[2. 4.] [3. 9.]]", x="nd.array([[2], [3]])",
            y="nd.array([1, 2])"),
    "broadcast_maximum": _ex("x, y", "[[2. 3.] [5. 5.]]", x="nd.array([[1], [5]])",
            y="nd.array([2, 3])"),
    "broadcast_minimum": _ex("x, y", "[[1. 1.] [2. 3.]]", x="nd.array([[1], [5]])",
            y="nd.array([2, 3])"),
    "broadcast_hypot": _ex("x, y", "[[ 5. 8.5440035] [ 7.2111025 10. ]]", x="nd.array([[3], [6]])",
            y="nd.array([4, 8])"),
    "broadcast_equal": _ex("x, y", "[[1. 0.] [0. 1.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_not_equal": _ex("x, y", "[[0. 1.] [1. 0.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_greater": _ex("x, y", "[[0. 0.] [1. 0.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_greater_equal": _ex("x, y", "[[1. 0.] [1. 1.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_lesser": _ex("x, y", "[[0. 1.] [0. 0.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_lesser_equal": _ex("x, y", "[[1. 1.] [0. 1.]]", x="nd.array([[1], [2]])",
            y="nd.array([1, 2])"),
    "broadcast_logical_and": _ex("x, y", "[[0. 0.] [0. 1.]]", x="nd.array([[0], [1]])",
            y="nd.array([0, 1])"),
    "broadcast_logical_or": _ex("x, y", "[[0. 1.] [1. 1.]]", x="nd.array([[0], [1]])",
            y="nd.array([0, 1])"),
    "broadcast_logical_xor": _ex("x, y", "[[0. 1.] [1. 0.]]", x="nd.array([[0], [1]])",
            y="nd.array([0, 1])"),
    "logical_not": _ex("x", "[1. 0.]", x="nd.array([0, 2])"),
    "negative": _ex("x", "[-1. 2.]", x="nd.array([1, -2])"),
    "identity": _ex("x", "[1. 2.]", x="nd.array([1, 2])"),
    "stop_gradient": _ex("x", "[1. 2.]", x="nd.array([1, 2])"),
    "softrelu": _ex("x", "[0.6931472]", x="nd.array([0])"),
    "im2col": _ex("x, kernel=(2, 2)", "(1, 4, 4)", x="nd.arange(9).reshape((1, 1, 3, 3))",
            tail=".shape"),
    "col2im": _ex("x, output_size=(3, 3), kernel=(2, 2)", "[[[[1. 2. 1.] [2. 4. 2.] [1. 2. 1.]]]]",
            x="nd.ones((1, 4, 4))"),
    "shuffle": _ex("x", "(4,)", seed=True, x="nd.arange(4)", tail=".shape"),
    "_contrib_SparseEmbedding": _ex("x, w, input_dim=3, output_dim=2", "[[4. 5.] [0. 1.]]",
            x="nd.array([2, 0])", w="nd.array([[0, 1], [2, 3], [4, 5]])"),
    "_contrib_arange_like": _ex("x", "[[0. 1.] [2. 3.]]", x="nd.zeros((2, 2))"),
    "_contrib_BatchNormWithReLU": _ex(
        "x, g, b, m, v, fix_gamma=False", "[[0. 0. ] [0.99987507 0.99987507]]",
        aux=("m", "v"), x="nd.array([[-1, 2], [3, 4]])", g="nd.ones(2)", b="nd.zeros(2)",
        m="nd.array([1, 2])", v="nd.array([4, 4])"),
    "_bn_add_relu": _ex(
        "x, g, b, m, v, a, use_global_stats=True", "[[0. 0. ] [2.499875 2.999875]]",
        aux=("m", "v"), x="nd.array([[-1, 2], [3, 4]])", g="nd.ones(2)", b="nd.zeros(2)",
        m="nd.array([1, 2])", v="nd.array([4, 4])", a="nd.array([[0, 0], [1.5, 2]])"),
    "_bn_clip": _ex(
        "x, g, b, m, v, a_min=0, a_max=1.5, use_global_stats=True",
        "[[0. 0. ] [1.5 0.99987507]]",
        aux=("m", "v"), x="nd.array([[-1, 2], [5, 4]])", g="nd.ones(2)", b="nd.zeros(2)",
        m="nd.array([1, 2])", v="nd.array([4, 4])"),
    "_contrib_index_copy": _ex("x, i, y", "[[0. 0.] [0. 0.] [1. 2.]]", x="nd.zeros((3, 2))",
            i="nd.array([2])",
            y="nd.array([[1, 2]])"),
    "_contrib_boolean_mask": _ex("x, i", "[[1. 2.] [5. 6.]]",
            x="nd.array([[1, 2], [3, 4], [5, 6]])",
            i="nd.array([1, 0, 1])"),
    "_contrib_quadratic": _ex("x, a=1, b=2, c=3", "[3. 6.]", x="nd.array([0, 1])"),
    "_contrib_div_sqrt_dim": _ex("x", "[[1. 2. 3. 4.]]", x="nd.array([[2, 4, 6, 8]])"),
    "_contrib_index_array": _ex("x", "[[0] [1]]", x="nd.zeros((2,))"),
    "_contrib_AdaptiveAvgPooling2D": _ex("x, output_size=1", "[[[[1.5]]]]",
            x="nd.arange(4).reshape((1, 1, 2, 2))"),
    "_contrib_BilinearResize2D": _ex("x, height=4, width=4", "(1, 1, 4, 4)",
            x="nd.ones((1, 1, 2, 2))",
            tail=".shape"),
    "_contrib_allclose": _ex("a, b", "1", a="nd.array([1, 2])", b="nd.array([1, 2.0000001])"),
    "_contrib_round_ste": _ex("x", "[0. 2.]", x="nd.array([0.4, 1.6])"),
    "_contrib_sign_ste": _ex("x", "[-1. 1.]", x="nd.array([-0.4, 1.6])"),
    "_contrib_gradientmultiplier": _ex("x, scalar=2", "[1. 2.]", x="nd.array([1, 2])"),
    "CTCLoss": _ex("x, y", "[1.0986123]", x="nd.zeros((2, 1, 3))", y="nd.array([[1]])"),
    "SVMOutput": _ex("x, y", "[[1. 2.]]", x="nd.array([[1, 2]])", y="nd.array([1])"),
    "SwapAxis": _ex("x, dim1=0, dim2=1", "[[1.] [2.]]", x="nd.array([[1, 2]])"),
    "Crop": _ex("x, offset=(1, 1), h_w=(1, 1), num_args=1", "[[[[4.]]]]",
            x="nd.arange(9).reshape((1, 1, 3, 3))"),
    "all_finite": _ex("x", "[0.]", x="nd.array([1, np.inf])"),
    "multi_all_finite": _ex("x, y", "[0.]", x="nd.array([1])", y="nd.array([np.nan])"),
    "multi_sum_sq": _ex("x, y", "[5. 9.]", x="nd.array([1, 2])", y="nd.array([3])"),
    "random_exponential": _ex("lam=1, shape=(2,)", "(2,)", seed=True, tail=".shape"),
    "random_gamma": _ex("alpha=1, beta=1, shape=(2,)", "(2,)", seed=True, tail=".shape"),
    "random_poisson": _ex("lam=1, shape=(2,)", "(2,)", seed=True, tail=".shape"),
    "random_negative_binomial": _ex("k=1, p=0.5, shape=(2,)", "(2,)", seed=True, tail=".shape"),
    "random_generalized_negative_binomial": _ex("mu=1, alpha=1, shape=(2,)", "(2,)", seed=True,
            tail=".shape"),
    "random_randint": _ex("low=0, high=5, shape=(2,)", "(2,)", seed=True, tail=".shape"),
    "sample_uniform": _ex("lo, hi, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            lo="nd.array([0, 10])", hi="nd.array([1, 11])"),
    "sample_exponential": _ex("lam, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            lam="nd.array([1, 2])"),
    "sample_gamma": _ex("a, b, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            a="nd.array([1, 2])", b="nd.array([1, 1])"),
    "sample_poisson": _ex("lam, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            lam="nd.array([1, 2])"),
    "sample_negative_binomial": _ex("k, p, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            k="nd.array([1, 2])", p="nd.array([0.5, 0.5])"),
    "sample_generalized_negative_binomial": _ex("mu, a, shape=(3,)", "(2, 3)", seed=True,
            tail=".shape", mu="nd.array([1, 2])", a="nd.array([1, 1])"),
    "sample_multinomial": _ex("p, shape=(3,)", "(2, 3)", seed=True, tail=".shape",
            p="nd.array([[0.5, 0.5], [0.1, 0.9]])"),
    "random_pdf_uniform": _ex("x, lo, hi", "[[0.5 0.5]]", x="nd.array([[0.5, 1.5]])",
            lo="nd.array([0])",
            hi="nd.array([2])"),
    "random_pdf_normal": _ex("x, mu, sigma", "[[0.3989423]]", x="nd.array([[0]])",
            mu="nd.array([0])",
            sigma="nd.array([1])"),
    "random_pdf_exponential": _ex("x, lam", "[[2. 0.27067056]]", x="nd.array([[0, 1]])",
            lam="nd.array([2])"),
    "random_pdf_poisson": _ex("x, lam", "[[0.36787945 0.36787945]]", x="nd.array([[0, 1]])",
            lam="nd.array([1])"),
    "random_pdf_gamma": _ex("x, a, b", "[[0.36787945]]", x="nd.array([[1]])", a="nd.array([1])",
            b="nd.array([1])"),
    "sgd_update": _ex("w, g, lr=0.1", "[0.9 1.9]", w="nd.array([1, 2])", g="nd.array([1, 1])"),
    "sgd_mom_update": _ex("w, g, m, lr=0.1, momentum=0.9", "[0.9 1.9]", aux=("m",),
            w="nd.array([1, 2])",
            g="nd.array([1, 1])", m="nd.zeros(2)"),
    "signsgd_update": _ex("w, g, lr=0.1", "[1.1 1.9]", w="nd.array([1, 2])", g="nd.array([-3, 3])"),
    "adam_update": _ex("w, g, m, v, lr=0.1", "[0.6837723 1.6837723]", aux=("m", "v"),
            w="nd.array([1, 2])", g="nd.array([1, 1])",
            m="nd.zeros(2)", v="nd.zeros(2)"),
    "nag_mom_update": _ex("w, g, m, lr=0.1, momentum=0.9", "[0.81 1.81]", aux=("m",),
            w="nd.array([1, 2])", g="nd.array([1, 1])", m="nd.zeros(2)"),
    "ftml_update": _ex("w, g, d, v, z, lr=0.1, t=1", "[0.9 1.9]", aux=("d", "v", "z"),
            w="nd.array([1, 2])", g="nd.array([1, 1])", d="nd.zeros(2)", v="nd.zeros(2)",
            z="nd.zeros(2)"),
    "ftrl_update": _ex("w, g, z, n, lr=0.1", "[0.4495 0.94949996]", aux=("z", "n"),
            w="nd.array([1, 2])", g="nd.array([1, 1])", z="nd.zeros(2)", n="nd.zeros(2)"),
    "rmsprop_update": _ex("w, g, n, lr=0.1", "[0.55278647 1.5527865 ]", aux=("n",),
            w="nd.array([1, 2])", g="nd.array([1, 1])", n="nd.zeros(2)"),
    "rmspropalex_update": _ex("w, g, n, gm, d, lr=0.1", "[0.5411686 1.5411686]",
            aux=("n", "gm", "d"), w="nd.array([1, 2])", g="nd.array([1, 1])", n="nd.zeros(2)",
            gm="nd.zeros(2)", d="nd.zeros(2)"),
    "signum_update": _ex("w, g, m, lr=0.1", "[1.1 1.9]", aux=("m",), w="nd.array([1, 2])",
            g="nd.array([-1, 1])", m="nd.zeros(2)"),
    "lamb_update_phase1": _ex("w, g, m, v, t=1, wd=0", "[0.99999905 0.99999905]",
            aux=("m", "v"), w="nd.array([1, 2])", g="nd.array([1, 1])", m="nd.zeros(2)",
            v="nd.zeros(2)"),
    "lamb_update_phase2": _ex("w, g, r1, r2, lr=0.1", "[0.8 1.8]", w="nd.array([1, 2])",
            g="nd.array([1, 1])", r1="nd.array([2.])", r2="nd.array([1.])"),
    "mp_lamb_update_phase1": _ex("w, g, m, v, w32, t=1, wd=0", "[0.99999905 0.99999905]",
            aux=("m", "v"), w="nd.array([1, 2], dtype='float16')",
            g="nd.array([1, 1], dtype='float16')", m="nd.zeros(2)", v="nd.zeros(2)",
            w32="nd.array([1, 2])"),
    "mp_lamb_update_phase2": _ex("w, g, r1, r2, w32, lr=0.1", "[0.8 1.8]", aux=("w32",),
            w="nd.array([1, 2], dtype='float16')", g="nd.array([1, 1])", r1="nd.array([2.])",
            r2="nd.array([1.])", w32="nd.array([1, 2])"),
    "mp_sgd_update": _ex("w, g, w32, lr=0.1", "[0.9 1.9]", aux=("w32",),
            w="nd.array([1, 2], dtype='float16')", g="nd.array([1, 1], dtype='float16')",
            w32="nd.array([1, 2])"),
    "mp_sgd_mom_update": _ex("w, g, m, w32, lr=0.1, momentum=0.9", "[0.9 1.9]",
            aux=("m", "w32"), w="nd.array([1, 2], dtype='float16')",
            g="nd.array([1, 1], dtype='float16')", m="nd.zeros(2)", w32="nd.array([1, 2])"),
    "mp_nag_mom_update": _ex("w, g, m, w32, lr=0.1, momentum=0.9", "[0.81 1.81]",
            aux=("m", "w32"), w="nd.array([1, 2], dtype='float16')",
            g="nd.array([1, 1], dtype='float16')", m="nd.zeros(2)", w32="nd.array([1, 2])"),
    "multi_sgd_update": _ex("w1, g1, w2, g2, lrs=(0.1, 0.5), wds=(0, 0), num_weights=2", "[2.]",
            out=1, w1="nd.array([1, 2])", g1="nd.array([1, 1])", w2="nd.array([3])",
            g2="nd.array([2])"),
    "multi_sgd_mom_update": _ex("w1, g1, m1, w2, g2, m2, lrs=(0.1, 0.5), wds=(0, 0), "
            "momentum=0.9, num_weights=2", "[2.]", out=1, aux=("m1", "m2"),
            w1="nd.array([1, 2])", g1="nd.array([1, 1])", m1="nd.zeros(2)",
            w2="nd.array([3])", g2="nd.array([2])", m2="nd.zeros(1)"),
    "multi_mp_sgd_update": _ex("w, g, w32, lrs=(0.1,), wds=(0,), num_weights=1", "[0.9 1.9]",
            aux=("w32",), w="nd.array([1, 2], dtype='float16')",
            g="nd.array([1, 1], dtype='float16')", w32="nd.array([1, 2])"),
    "multi_mp_sgd_mom_update": _ex("w, g, m, w32, lrs=(0.1,), wds=(0,), momentum=0.9, "
            "num_weights=1", "[0.9 1.9]", aux=("m", "w32"),
            w="nd.array([1, 2], dtype='float16')", g="nd.array([1, 1], dtype='float16')",
            m="nd.zeros(2)", w32="nd.array([1, 2])"),
    "preloaded_multi_sgd_update": _ex("w, g, lrs, wds, num_weights=1", "[0.9 1.9]",
            w="nd.array([1, 2])", g="nd.array([1, 1])", lrs="nd.array([0.1])",
            wds="nd.array([0])"),
    "preloaded_multi_sgd_mom_update": _ex("w, g, m, lrs, wds, momentum=0.9, num_weights=1",
            "[0.9 1.9]", aux=("m",), w="nd.array([1, 2])", g="nd.array([1, 1])",
            m="nd.zeros(2)", lrs="nd.array([0.1])", wds="nd.array([0])"),
    "preloaded_multi_mp_sgd_update": _ex("w, g, w32, lrs, wds, num_weights=1", "[0.9 1.9]",
            aux=("w32",), w="nd.array([1, 2], dtype='float16')",
            g="nd.array([1, 1], dtype='float16')", w32="nd.array([1, 2])",
            lrs="nd.array([0.1])", wds="nd.array([0])"),
    "preloaded_multi_mp_sgd_mom_update": _ex("w, g, m, w32, lrs, wds, momentum=0.9, "
            "num_weights=1", "[0.9 1.9]", aux=("m", "w32"),
            w="nd.array([1, 2], dtype='float16')", g="nd.array([1, 1], dtype='float16')",
            m="nd.zeros(2)", w32="nd.array([1, 2])", lrs="nd.array([0.1])",
            wds="nd.array([0])"),
    "multi_lars": _ex("lrs, wss, gss, wds, eta=1, eps=0", "[0.2]", lrs="nd.array([0.1])",
            wss="nd.array([4.])", gss="nd.array([1.])", wds="nd.array([0])"),
    "_contrib_group_adagrad_update": _ex("w, g, h, lr=0.1", "[[0.9000005 1.9000005]]",
            aux=("h",), w="nd.array([[1, 2]])", g="nd.array([[1, 1]])", h="nd.zeros((1, 1))"),
    "_sparse_adagrad_update": _ex("w, g, h, lr=0.1", "[0.9 1.9]", aux=("h",),
            w="nd.array([1, 2])", g="nd.array([1, 1])", h="nd.zeros(2)"),
    "make_loss": _ex("x", "[1. 2.]", x="nd.array([1, 2])"),
    "random_pdf_dirichlet": _ex("x, a", "[[1.]]", x="nd.array([[[0.5, 0.5]]])",
            a="nd.array([[1, 1]])"),
    "random_pdf_negative_binomial": _ex("x, k, p", "[[0.5 0.25]]", x="nd.array([[0, 1]])",
            k="nd.array([1])", p="nd.array([0.5])"),
    "random_pdf_generalized_negative_binomial": _ex("x, mu, a", "[[0.5 0.25]]",
            x="nd.array([[0, 1]])", mu="nd.array([1])", a="nd.array([1])"),
    "BatchNorm_v1": _ex("x, g, b, m, v, fix_gamma=False", "[[0. 0. ] [0.99987507 0.99987507]]",
            aux=("m", "v"), x="nd.array([[1, 2], [3, 4]])", g="nd.ones(2)", b="nd.zeros(2)",
            m="nd.array([1, 2])", v="nd.array([4, 4])"),
    "_contrib_SyncBatchNorm": _ex("x, g, b, m, v, fix_gamma=False",
            "[[0. 0. ] [0.99987507 0.99987507]]", aux=("m", "v"),
            x="nd.array([[1, 2], [3, 4]])", g="nd.ones(2)", b="nd.zeros(2)",
            m="nd.array([1, 2])", v="nd.array([4, 4])"),
    "IdentityAttachKLSparseReg": _ex("x, m", "[[0.5 0.2]]", aux=("m",),
            x="nd.array([[0.5, 0.2]])", m="nd.array([0.1, 0.1])"),
    "GridGenerator": _ex("x, transform_type='affine', target_shape=(2, 2)",
            "[[[[-1. 1.] [-1. 1.]] [[-1. -1.] [ 1. 1.]]]]", x="nd.array([[1, 0, 0, 0, 1, 0]])"),
    "BilinearSampler": _ex("x, grid", "[[[[0. 1.] [2. 3.]]]]",
            x="nd.arange(4).reshape((1, 1, 2, 2))",
            grid="nd.array([[[[-1, 1], [-1, 1]], [[-1, -1], [1, 1]]]])"),
    "SpatialTransformer": _ex("x, loc, target_shape=(2, 2), transform_type='affine', "
            "sampler_type='bilinear'", "[[[[0. 1.] [2. 3.]]]]",
            x="nd.arange(4).reshape((1, 1, 2, 2))", loc="nd.array([[1, 0, 0, 0, 1, 0]])"),
    "Correlation": _ex("a, b, kernel_size=1, max_displacement=0", "[[[[3. 3.] [3. 3.]]]]",
            a="nd.ones((1, 2, 2, 2))", b="nd.ones((1, 2, 2, 2)) * 3"),
    "_contrib_count_sketch": _ex("x, h, s, out_dim=2", "[[-2. 2.]]", x="nd.array([[1, 2, 3]])",
            h="nd.array([[0, 1, 0]])", s="nd.array([[1, 1, -1]])"),
    "_contrib_fft": _ex("x", "[[1. 0. 1. 0.]]", x="nd.array([[1, 0]])"),
    "_contrib_hawkesll": _ex("lda, alpha, beta, state, lags, marks, length, horizon",
            "[-16.89223]", out=0, lda="nd.array([[1.5, 2.0]])", alpha="nd.array([0.2, 0.3])",
            beta="nd.array([1.0, 2.0])", state="nd.zeros((1, 2))", lags="nd.array([[1.0, 2.0]])",
            marks="nd.array([[0, 1]])", length="nd.array([2])", horizon="nd.array([5.0])"),
    "_contrib_ifft": _ex("x", "[[2. 0.]]", x="nd.array([[1, 0, 1, 0]])"),
    "_contrib_quantize": _ex("x, lo, hi, out_type='int8'", "[-64 32 127]", out=0,
            x="nd.array([-1, 0.5, 2])", lo="nd.array([-2])", hi="nd.array([2])"),
    "_contrib_quantize_v2": _ex("x, min_calib_range=-2.0, max_calib_range=2.0", "[-64 32 127]",
            out=0, x="nd.array([-1, 0.5, 2])"),
    "_contrib_quantize_asym": _ex("x, min_calib_range=0.0, max_calib_range=2.0",
            "[[[ 0 128 255]]]", out=0, x="nd.array([[[0, 1, 2]]])"),
    "_contrib_dequantize": _ex("q, lo, hi", "[-1.0039216 0.5019608 1.992157 ]",
            q="nd.array([-64, 32, 127], dtype='int8')", lo="nd.array([-2])", hi="nd.array([2])"),
    "_contrib_requantize": _ex("q, lo, hi, min_calib_range=-1.0, max_calib_range=1.0", "[127 -64]",
            out=0, q="nd.array([2 ** 30, -2 ** 29], dtype='int32')", lo="nd.array([-2])",
            hi="nd.array([2])"),
    "_contrib_quantized_fully_connected": _ex("x, w, b, lo, hi, lo, hi, lo, hi, num_hidden=1",
            "[[11]]", out=0, x="nd.array([[1, 2]], dtype='int8')",
            w="nd.array([[3, 4]], dtype='int8')", b="nd.array([0], dtype='int8')",
            lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_conv": _ex("x, w, b, lo, hi, lo, hi, lo, hi, kernel=(1, 1), num_filter=1",
            "[[[[3 6]]]]", out=0, x="nd.array([[[[1, 2]]]], dtype='int8')",
            w="nd.array([[[[3]]]], dtype='int8')", b="nd.array([0], dtype='int8')",
            lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_pooling": _ex("x, lo, hi, kernel=(1, 2), pool_type='max'", "[[[[1 5 5]]]]",
            out=0, x="nd.array([[[[1, -3, 5, 2]]]], dtype='int8')", lo="nd.array([-1])",
            hi="nd.array([1])"),
    "_contrib_quantized_flatten": _ex("x, lo, hi", "[[1 2]]", out=0,
            x="nd.array([[[1], [2]]], dtype='int8')", lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_act": _ex("x, lo, hi, act_type='relu'", "[0 0 7]", out=0,
            x="nd.array([-5, 0, 7], dtype='int8')", lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_concat": _ex("a, b, lo, hi, lo2, hi2, num_args=2, dim=1", "[[ 50 100]]",
            out=0, a="nd.array([[100]], dtype='int8')", b="nd.array([[100]], dtype='int8')",
            lo="nd.array([-1])", hi="nd.array([1])", lo2="nd.array([-2])", hi2="nd.array([2])"),
    "_contrib_quantized_elemwise_add": _ex(
            "a, b, lo, hi, lo, hi, min_calib_range=-2.0, max_calib_range=2.0",
            "[ 60 -20]", out=0, a="nd.array([100, -50], dtype='int8')",
            b="nd.array([20, 10], dtype='int8')", lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_elemwise_mul": _ex("a, b, lo, hi, lo, hi, enable_float_output=True",
            "[ 0.1230296 -0.0307574]", a="nd.array([100, -50], dtype='int8')",
            b="nd.array([20, 10], dtype='int8')", lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_embedding": _ex("i, w, lo, hi, input_dim=2, output_dim=2", "[[3 4] [1 2]]",
            out=0, i="nd.array([1, 0])", w="nd.array([[1, 2], [3, 4]], dtype='int8')",
            lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_batch_norm": _ex(
            "x, g, b, m, v, lo, hi, eps=1e-5, min_calib_range=-2.0, max_calib_range=2.0",
            "[[-32 32]]", out=0, aux=("m", "v"), x="nd.array([[-64, 64]], dtype='int8')",
            g="nd.ones((2,))", b="nd.zeros((2,))", m="nd.zeros((2,))", v="nd.ones((2,))",
            lo="nd.array([-1])", hi="nd.array([1])"),
    "_contrib_quantized_rnn": _ex("q, w, h, c, scale, shift, state_size=1, num_layers=1, "
            "mode='lstm'", "[[[0.640625]]]", q="nd.array([[[64]]], dtype='uint8')",
            w="nd.array([10, 0, 1, 10] + [0] * 12)",
            h="nd.zeros((1, 1, 1))", c="nd.zeros((1, 1, 1))", scale="nd.array([64.0])",
            shift="nd.array([0.0])"),
    "_contrib_calibrate_entropy": _ex("h, e, num_quantized_bins=3", "[2.5]", out=0,
            h="nd.array([0, 1, 4, 1, 0])", e="nd.arange(6) - 2.5"),
    "_contrib_interleaved_matmul_selfatt_qk": _ex("x, heads=1", "(1, 2, 2)", tail=".shape",
            x="nd.ones((2, 1, 3))"),
    "_contrib_interleaved_matmul_selfatt_valatt": _ex("x, att, heads=1", "(2, 1, 1)",
            tail=".shape", x="nd.ones((2, 1, 3))", att="nd.ones((1, 2, 2))"),
    "_contrib_interleaved_matmul_encdec_qk": _ex("q, kv, heads=1", "(1, 2, 3)", tail=".shape",
            q="nd.ones((2, 1, 1))", kv="nd.ones((3, 1, 2))"),
    "_contrib_interleaved_matmul_encdec_valatt": _ex("kv, att, heads=1", "(2, 1, 1)",
            tail=".shape", kv="nd.ones((3, 1, 2))", att="nd.ones((1, 2, 3))"),
    "_contrib_MultiBoxTarget": _ex("anchor, label, cls", "[[1. 0.]]", out=2,
            anchor="nd.array([[[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]])",
            label="nd.array([[[0, 0, 0, 0.5, 0.5]]])", cls="nd.zeros((1, 2, 2))"),
    "_contrib_MultiBoxDetection": _ex("cls, loc, anchor",
            "[[[0. 0.9 0. 0. 0.5 0.5] [0. 0.1 0.5 0.5 1. 1. ]]]",
            cls="nd.array([[[0.1, 0.9], [0.9, 0.1]]])", loc="nd.zeros((1, 8))",
            anchor="nd.array([[[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]])"),
    "_contrib_Proposal": _ex("cls, bbox, info, rpn_pre_nms_top_n=4, rpn_post_nms_top_n=2, "
            "scales=(1,), ratios=(1,), feature_stride=4", "(2, 5)", tail=".shape",
            cls="nd.ones((1, 2, 2, 2))", bbox="nd.zeros((1, 4, 2, 2))",
            info="nd.array([[8, 8, 1]])"),
    "_contrib_MultiProposal": _ex("cls, bbox, info, rpn_pre_nms_top_n=4, rpn_post_nms_top_n=2, "
            "scales=(1,), ratios=(1,), feature_stride=4", "(2, 5)", tail=".shape",
            cls="nd.ones((1, 2, 2, 2))", bbox="nd.zeros((1, 4, 2, 2))",
            info="nd.array([[8, 8, 1]])"),
    "_image_random_brightness": _ex("x, min_factor=2, max_factor=2", "[[[2. 2. 2.]]]",
            x="nd.ones((1, 1, 3))"),
    "_image_random_contrast": _ex("x, min_factor=1, max_factor=1", "[[[1. 2. 3.]]]",
            x="nd.array([[[1, 2, 3]]])"),
    "_image_random_saturation": _ex("x, min_factor=1, max_factor=1", "[[[1. 2. 3.]]]",
            x="nd.array([[[1, 2, 3]]])"),
    "_image_random_hue": _ex("x, min_factor=0, max_factor=0", "[[[0.99999994 2. 3.0000002 ]]]",
            x="nd.array([[[1, 2, 3]]])"),
    "_image_random_color_jitter": _ex("x, brightness=0, contrast=0, saturation=0, hue=0",
            "[[[1. 2. 3.]]]", x="nd.array([[[1, 2, 3]]])"),
    "_image_adjust_lighting": _ex("x, alpha=(0, 0, 0)", "[[[1. 2. 3.]]]",
            x="nd.array([[[1, 2, 3]]])"),
    "_image_random_lighting": _ex("x, alpha_std=0", "[[[1. 2. 3.]]]", x="nd.array([[[1, 2, 3]]])"),
    "_image_random_flip_left_right": _ex("x", "(1, 2, 1)", seed=True, tail=".shape",
            x="nd.array([[[1], [2]]])"),
    "_image_random_flip_top_bottom": _ex("x", "(2, 1, 1)", seed=True, tail=".shape",
            x="nd.array([[[1]], [[2]]])"),
    "cumsum": _ex("x, axis=1", "[[1. 3.] [3. 7.]]", x="nd.array([[1, 2], [3, 4]])"),
    "moments": _ex("x, axes=(1,)", "[1.]", out=1, x="nd.array([[1, 3]])"),
    "gather_nd": _ex("x, i", "[2. 3.]", x="nd.array([[1, 2], [3, 4]])",
            i="nd.array([[0, 1], [1, 0]])"),
    "scatter_nd": _ex("x, i, shape=(2, 2)", "[[0. 1.] [2. 0.]]", x="nd.array([1, 2])",
            i="nd.array([[0, 1], [1, 0]])"),
    "ravel_multi_index": _ex("x, shape=(3, 4)", "[ 4. 11.]", x="nd.array([[1, 2], [0, 3]])"),
    "unravel_index": _ex("x, shape=(3, 4)", "[[1. 2.] [0. 3.]]", x="nd.array([4, 11])"),
    "batch_take": _ex("x, i", "[2. 3.]", x="nd.array([[1, 2], [3, 4]])", i="nd.array([1, 0])"),
    "fill_element_0index": _ex("x, v, i", "[[0. 5.] [6. 0.]]", x="nd.zeros((2, 2))",
            v="nd.array([5, 6])", i="nd.array([1, 0])"),
    "L2Normalization": _ex("x", "[[0.6 0.8]]", x="nd.array([[3, 4]])"),
    "ROIPooling": _ex("x, r, pooled_size=(1, 1), spatial_scale=1", "[[[[5.]]]]",
            x="nd.arange(16).reshape((1, 1, 4, 4))", r="nd.array([[0, 0, 0, 1, 1]])"),
    "_contrib_PSROIPooling": _ex("x, r, spatial_scale=1, output_dim=1, pooled_size=2",
            "(1, 1, 2, 2)", tail=".shape", x="nd.ones((1, 4, 4, 4))",
            r="nd.array([[0, 0, 0, 3, 3]])"),
    "_contrib_RROIAlign": _ex("x, r, pooled_size=(1, 2), spatial_scale=1", "[[[[9.5 5.5]]]]",
            x="nd.arange(16).reshape((1, 1, 4, 4))", r="nd.array([[0, 1.5, 1.5, 2, 2, 90]])"),
    "_contrib_DeformablePSROIPooling": _ex(
            "x, r, t, spatial_scale=1, output_dim=1, group_size=2, pooled_size=2",
            "[[[[ 0. 17.5] [38. 55.5]]]]", x="nd.arange(64).reshape((1, 4, 4, 4))",
            r="nd.array([[0, 0, 0, 3, 3]])", t="nd.zeros((1, 2, 2, 2))"),
    "amp_cast": _ex("x, dtype='float16'", "<class 'numpy.float16'>", tail=".dtype",
            x="nd.ones(2)"),
    "amp_multicast": _ex("x, y, num_outputs=2", "<class 'numpy.float32'>", out=0, tail=".dtype",
            x="nd.ones(2, dtype='float16')", y="nd.ones(2)"),
    "softmax_cross_entropy": _ex("x, y", "[0.6931472]", x="nd.array([[0, 0]])",
            y="nd.array([1])"),
    "_contrib_MultiBoxPrior": _ex("x, sizes=(0.5,)",
            "[[[0. 0. 0.5 0.5] [0.5 0. 1. 0.5] [0. 0.5 0.5 1. ] [0.5 0.5 1. 1. ]]]",
            x="nd.zeros((1, 3, 2, 2))"),
    "_contrib_box_decode": _ex("x, a, format='corner'", "[[[0. 0. 2. 2.]]]",
            x="nd.zeros((1, 1, 4))", a="nd.array([[[0, 0, 2, 2]]])"),
    "_contrib_getnnz": _ex("x, axis=1", "[1 2]", x="nd.array([[1, 0], [2, 3]]).tostype('csr')"),
    "cast_storage": _ex("x, stype='csr'", "[[1. 0.] [2. 3.]]", x="nd.array([[1, 0], [2, 3]])"),
    "_sparse_retain": _ex("x, i", "[[1. 2.] [0. 0.] [5. 6.]]",
            x="nd.array([[1, 2], [3, 4], [5, 6]]).tostype('row_sparse')", i="nd.array([0, 2])"),
    "_identity_with_attr_like_rhs": _ex("x, y", "[1. 2.]", x="nd.array([1, 2])",
            y="nd.zeros(2)"),
    # the DGL graph operators: a graph is a csr matrix of edge ids (int64 but for edge_id)
    "_contrib_edge_id": _ex("x, u, v", "[ 1. -1. 2. -1.]",
            x="nd.array([[1, 0, 0], [0, 2, 0], [0, 0, 3]]).tostype('csr')",
            u="nd.array([0, 0, 1, 2])", v="nd.array([0, 1, 1, 0])"),
    "_contrib_dgl_adjacency": _ex("g", "[[0. 1. 1.] [1. 0. 0.] [0. 1. 0.]]",
            g="nd.array([[0, 1, 2], [3, 0, 0], [0, 4, 0]], dtype='int64').tostype('csr')"),
    "_contrib_dgl_subgraph": _ex("g, v, return_mapping=True", "[[0 2] [0 0]]", out=1,
            g="nd.array([[0, 1, 2], [3, 0, 0], [0, 4, 0]], dtype='int64').tostype('csr')",
            v="nd.array([0, 2], dtype='int64')"),
    "_contrib_dgl_graph_compact": _ex("g, v, graph_sizes=2, return_mapping=False",
            "[[0 0] [1 0]]",
            g="nd.array([[0, 0, 0, 7], [0, 9, 0, 0], [0, 0, 0, 0]], dtype='int64')"
              ".tostype('csr')",
            v="nd.array([1, 3, -1, 2], dtype='int64')"),
    "_contrib_dgl_csr_neighbor_uniform_sample": _ex(
            "g, s, num_hops=1, num_neighbor=2, max_num_vertices=3",
            "[[0 1 2] [0 0 0] [0 0 0]]", out=1,
            g="nd.array([[0, 1, 2], [3, 0, 0], [0, 4, 0]], dtype='int64').tostype('csr')",
            s="nd.array([0], dtype='int64')"),
    "_contrib_dgl_csr_neighbor_non_uniform_sample": _ex(
            "g, p, s, num_hops=1, num_neighbor=2, max_num_vertices=3", "[0.5 0.3 0.2]", out=2,
            g="nd.array([[0, 1, 2], [3, 0, 0], [0, 4, 0]], dtype='int64').tostype('csr')",
            p="nd.array([0.5, 0.3, 0.2])", s="nd.array([0], dtype='int64')"),
}

_PREFIXES = (("_contrib_", "contrib."), ("_linalg_", "linalg."), ("_image_", "image."),
             ("_sparse_", "sparse."))
_by_op = {}


def call_name(op_name, public_name):
    """The name an example calls: `public_name`, or for a ``_contrib_``/``_linalg_``/
    ``_image_``/``_sparse_`` operator its name in that namespace (``contrib.box_nms``), which
    is where MXNet puts it.

    Args:
        op_name: the registry name of the operator.
        public_name: the name of the generated function.

    Returns:
        The dotted name after ``nd.``/``sym.``.

    Example::

        from gluonlite.ops.examples import call_name
        call_name("_contrib_box_nms", "_contrib_box_nms"), call_name("exp", "exp")
        # ('contrib.box_nms', 'exp')
    """
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
    entry keyed by an alias serves them all), or None.

    Args:
        op_name: the registry name of the operator.
        public_name: the name the example calls, when it has its own entry (default None:
            the entries of `op_name` and its aliases).

    Example::

        from gluonlite.ops.examples import entry
        e = entry("exp")            # exp's row of EXAMPLES (None for an operator without one)
    """
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
    name when `name` is another name of it (the example then calls `name`).

    Example::

        from gluonlite.ops.examples import example_lines
        lines, result = example_lines("exp", "nd")
        lines[-1], result           # ('nd.exp(x)', '[1. 2.7182817]')
    """
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
        feed = ", ".join(f"{k}={v}" for k, v in inputs.items() if k not in ex["aux"])
        lines.append(f"z = sym.{called}({ex['call']})")
        if ex["aux"]:  # auxiliary states (moving statistics, optimizer state) are bound apart
            aux = ", ".join(f"{k}={inputs[k]}" for k in ex["aux"])
            run = f"z.bind(mx.cpu(), dict({feed}), aux_states=dict({aux})).forward()"
        else:
            run = f"z.eval({feed})"
        lines.append(f"{run}[{ex['out'] or 0}]{ex['tail']}")
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
