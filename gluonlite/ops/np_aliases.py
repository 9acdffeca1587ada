"""The NumPy dialect's names for operators the legacy dialect already defines: one definition,
two front ends (DESIGN.md, "Two dialects, one registry").

Two tables: the aliases MXNet 1.9.1 itself registers (``_npx_fully_connected`` is
``FullyConnected``; a graph exported from np-mode Gluon names the node ``FullyConnected``), and
the `_npi_` operators MXNet registers apart but whose rules are the legacy operator's rules
here (``_npi_sin`` computes what ``sin`` computes, integers through float64 and truncated,
gradients alike; ``_npi_add_scalar`` what ``_plus_scalar`` does, bool data in int64).
"""
from .registry import alias, exists

# MXNet 1.9.1's own aliases: NumPy-dialect name -> the legacy operator.
MXNET_ALIASES = {
    "_np_repeat": "repeat", "_npi_Custom": "Custom", "_npi_argsort": "argsort",
    "_npi_boolean_mask": "_contrib_boolean_mask", "_npi_cast": "Cast", "_npi_clip": "clip",
    "_npi_cvimresize": "_cvimresize", "_npi_det": "_linalg_det",
    "_npi_expand_dims": "expand_dims", "_npi_full": "_full", "_npi_gather_nd": "gather_nd",
    "_npi_histogram": "_histogram", "_npi_hypot_scalar": "_hypot_scalar",
    "_npi_inv": "_linalg_inverse", "_npi_linspace": "_linspace",
    "_npi_maximum": "broadcast_maximum", "_npi_maximum_scalar": "_maximum_scalar",
    "_npi_minimum": "broadcast_minimum", "_npi_minimum_scalar": "_minimum_scalar",
    "_npi_random_randint": "_random_randint", "_npi_rnn_param_concat": "_rnn_param_concat",
    "_npi_scatter_set_nd": "_scatter_set_nd", "_npi_shuffle": "_shuffle",
    "_npi_slice": "slice", "_npi_slice_assign": "_slice_assign",
    "_npi_slice_assign_scalar": "_slice_assign_scalar", "_npi_slogdet": "_linalg_slogdet",
    "_npi_sort": "sort", "_npi_split": "_split_v2", "_npi_swapaxes": "SwapAxis",
    "_npi_take": "take", "_npi_tile": "tile",
    "_npx_activation": "Activation", "_npx_arange_like": "_contrib_arange_like",
    "_npx_batch_dot": "batch_dot", "_npx_batch_flatten": "Flatten",
    "_npx_batch_norm": "BatchNorm", "_npx_cast": "Cast", "_npx_convolution": "Convolution",
    "_npx_deconvolution": "Deconvolution", "_npx_dropout": "Dropout",
    "_npx_embedding": "Embedding", "_npx_erf": "erf", "_npx_erfinv": "erfinv",
    "_npx_fully_connected": "FullyConnected", "_npx_gamma": "gamma", "_npx_gammaln": "gammaln",
    "_npx_gather_nd": "gather_nd", "_npx_layer_norm": "LayerNorm",
    "_npx_leaky_relu": "LeakyReLU", "_npx_log_softmax": "log_softmax",
    "_npx_one_hot": "one_hot", "_npx_pick": "pick", "_npx_pooling": "Pooling",
    "_npx_reshape_like": "reshape_like", "_npx_rnn": "RNN", "_npx_roi_pooling": "ROIPooling",
    "_npx_sequence_mask": "SequenceMask", "_npx_shape_array": "shape_array",
    "_npx_slice": "slice", "_npx_smooth_l1": "smooth_l1", "_npx_softmax": "softmax",
    "_npx_topk": "topk",
    "_npx_multibox_detection": "_contrib_MultiBoxDetection",
    "_npx_multibox_prior": "_contrib_MultiBoxPrior",
    "_npx_multibox_target": "_contrib_MultiBoxTarget",
}
for _name in ("adjust_lighting", "crop", "flip_left_right", "flip_top_bottom", "normalize",
              "random_brightness", "random_color_jitter", "random_contrast",
              "random_flip_left_right", "random_flip_top_bottom", "random_hue",
              "random_lighting", "random_saturation", "resize", "to_tensor"):
    MXNET_ALIASES[f"_npx__image_{_name}"] = f"_image_{_name}"

# Operators MXNet registers apart whose rules are the legacy operator's here.
SAME_RULES = {f"_npi_{n}": n for n in (
    "negative", "reciprocal", "sign", "ceil", "floor", "trunc", "fix", "square", "sqrt", "cbrt",
    "exp", "expm1", "log", "log10", "log2", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")}
SAME_RULES.update({
    "_npi_absolute": "abs", "_npi_abs": "abs", "_npx_relu": "relu", "_npx_sigmoid": "sigmoid",
    "_npi_add_scalar": "_plus_scalar", "_npi_subtract_scalar": "_minus_scalar",
    "_npi_rsubtract_scalar": "_rminus_scalar", "_npi_multiply_scalar": "_mul_scalar",
    "_npi_mod_scalar": "_mod_scalar", "_npi_rmod_scalar": "_rmod_scalar",
    "_npi_power_scalar": "_power_scalar", "_npi_rpower_scalar": "_rpower_scalar",
})


def install():
    """Register every alias above whose legacy operator exists (called once, by
    `gluonlite.ops` after every operator family has registered).

    Example::

        from gluonlite.ops import np_aliases
        np_aliases.install()        # done when gluonlite.ops loads: registers nothing new now
        mx.ops.get("_np_repeat") is mx.ops.get("repeat")    # True: one of its aliases
    """
    for table in (MXNET_ALIASES, SAME_RULES):
        for name, target in table.items():
            if exists(target) and not exists(name):
                alias(target, name)
