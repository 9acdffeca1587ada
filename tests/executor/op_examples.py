"""Example calls of every registered operator, for the symbolic-vs-imperative walk.

If the core team's registry walk (tests/core/test_registry_walk.py) exposes an importable
table, `examples()` prefers it; otherwise (or for operators it does not cover) it uses the
table below. Each example is ``(op_name, inputs, attrs)``: raw float32/int inputs, in the
operator's input order, and keyword attributes.
"""
import numpy as np


def _u(shape, lo=-1.0, hi=1.0, seed=0):
    return np.random.default_rng(seed + len(shape)).uniform(lo, hi, shape).astype(np.float32)


def _pos(shape, seed=0):
    return _u(shape, 0.5, 2.0, seed)


def _idx(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.float32)


def _quantization_table():
    """The int8 family: integer data beside (1,) float32 ranges."""
    rng = np.random.default_rng(5)

    def ints(shape, dtype):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)

    def r(v):
        return np.array([v], np.float32)

    q8, q8b, u8 = ints((2, 3, 4, 4), np.int8), ints((2, 3, 4, 4), np.int8), \
        ints((2, 3, 4, 4), np.uint8)
    ranges = [r(-1.5), r(1.0), r(-0.5), r(0.25), r(-2.0), r(2.0)]
    hist = np.concatenate([[0.0], rng.integers(0, 50, 19).astype(np.float64), [0.0]])
    return [
        ("_contrib_quantize", [_u((3, 4)), r(-1), r(1)], {"out_type": "int8"}),
        ("_contrib_quantize", [_pos((3, 4)), r(0), r(2)], {}),
        ("_contrib_quantize_v2", [_u((3, 4))], {}),
        ("_contrib_quantize_v2", [_pos((3, 4))],
         {"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 1.5}),
        ("_contrib_quantize_asym", [_u((2, 3, 4))], {}),
        ("_contrib_dequantize", [q8, r(-1), r(2)], {}),
        ("_contrib_dequantize", [u8, r(0), r(2)], {}),
        ("_contrib_requantize", [ints((3, 4), np.int32), r(-3), r(3)], {}),
        ("_contrib_requantize", [ints((3, 4), np.int32), r(-3), r(3)],
         {"out_type": "uint8", "min_calib_range": 0.0, "max_calib_range": 1.0}),
        ("_contrib_quantized_fully_connected",
         [q8, ints((5, 48), np.int8), ints((5,), np.int8)] + ranges, {"num_hidden": 5}),
        ("_contrib_quantized_conv",
         [u8, ints((2, 3, 3, 3), np.int8), ints((2,), np.int8)] + ranges,
         {"kernel": (3, 3), "num_filter": 2, "pad": (1, 1)}),
        ("_contrib_quantized_pooling", [q8, r(-1), r(1)],
         {"kernel": (2, 2), "stride": (2, 2), "pool_type": "avg"}),
        ("_contrib_quantized_flatten", [q8, r(-1), r(1)], {}),
        ("_contrib_quantized_act", [q8, r(-1), r(1)], {"act_type": "relu"}),
        ("_contrib_quantized_concat", [q8, u8] + ranges[:4], {"num_args": 2, "dim": 1}),
        ("_contrib_quantized_elemwise_add", [q8, q8b] + ranges[:4], {}),
        ("_contrib_quantized_elemwise_mul", [q8, q8b] + ranges[:4],
         {"min_calib_range": -0.1, "max_calib_range": 0.1}),
        ("_contrib_quantized_embedding", [_idx((2, 3), 5), ints((5, 4), np.int8), r(-1), r(1)],
         {"input_dim": 5, "output_dim": 4}),
        ("_contrib_quantized_batch_norm",
         [q8, _pos((3,)), _u((3,)), _u((3,)), _pos((3,)), r(-1), r(1)],
         {"min_calib_range": -2.0, "max_calib_range": 2.0}),
        ("_contrib_calibrate_entropy",
         [hist.astype(np.float32), np.linspace(-2, 2, 22).astype(np.float32)],
         {"num_quantized_bins": 5}),
        # a bidirectional two-layer int8 LSTM: (T, N, I) = (3, 2, 4), state 5
        ("_contrib_quantized_rnn",
         [ints((3, 2, 4), np.uint8), _u((2 * 4 * 5 * (4 + 5) + 2 * 4 * 5 * (10 + 5) + 160,)),
          _u((4, 2, 5)), _u((4, 2, 5), seed=1), r(100.0), r(30.0)],
         {"state_size": 5, "num_layers": 2, "bidirectional": True, "mode": "lstm",
          "state_outputs": True}),
    ]


def _own_table():
    a, b = _u((3, 4)), _u((3, 4), seed=1)
    ex = [
        ("Activation", [a], {"act_type": "tanh"}),
        ("Activation", [a], {"act_type": "softrelu"}),
        ("BatchNorm", [_u((4, 3, 2)), _pos((3,)), _u((3,)), _u((3,)), _pos((3,))],
         {"fix_gamma": False}),
        ("BlockGrad", [a], {}),
        ("Cast", [a], {"dtype": "float64"}),
        ("Concat", [a, b, _u((3, 2))], {"dim": 1}),
        ("Dropout", [a], {"p": 0.5}),
        ("Embedding", [_idx((2, 3), 5), _u((5, 4))], {"input_dim": 5, "output_dim": 4}),
        ("Flatten", [_u((2, 3, 2))], {}),
        ("FullyConnected", [_u((2, 3, 2)), _u((4, 6)), _u((4,))], {"num_hidden": 4}),
        ("FullyConnected", [_u((2, 3, 2)), _u((4, 2))], {"num_hidden": 4, "no_bias": True,
                                                          "flatten": False}),
        ("LayerNorm", [a, _pos((4,)), _u((4,))], {}),
        ("LeakyReLU", [a], {"slope": 0.1}),
        ("Reshape", [a], {"shape": (2, -1)}),
        ("SequenceMask", [_u((4, 2, 3)), np.array([2, 3], np.float32)],
         {"use_sequence_length": True, "value": -1.0}),
        ("SequenceLast", [_u((4, 2, 3)), np.array([2, 4], np.float32)],
         {"use_sequence_length": True}),
        ("SequenceReverse", [_u((4, 2, 3)), np.array([2, 4], np.float32)],
         {"use_sequence_length": True}),
        ("SliceChannel", [_u((2, 6))], {"num_outputs": 3, "axis": 1}),
        ("SliceChannel", [_u((2, 3, 4))], {"num_outputs": 3, "axis": 1, "squeeze_axis": True}),
        ("SwapAxis", [_u((2, 3, 4))], {"dim1": 0, "dim2": 2}),
        ("_arange", [], {"start": 1, "stop": 7, "step": 2}),
        ("_copy", [a], {}),
        ("_full", [], {"shape": (2, 3), "value": 1.5}),
        ("_ones", [], {"shape": (2, 3)}),
        ("_zeros", [], {"shape": (2, 3)}),
        ("_random_normal", [], {"shape": (2, 3)}),
        ("_random_uniform", [], {"shape": (2, 3)}),
        ("_power", [_pos((3, 4)), b], {}),
        ("_mod", [_pos((3, 4)) * 3, _pos((3, 4), seed=2)], {}),
        ("abs", [a], {}),
        ("reverse", [_u((2, 3, 4))], {"axis": (0, 2)}),
        ("_rnn_param_concat", [_u((3,)), _u((4,)), _u((2,))], {"dim": 0}),
        ("RNN", [_u((4, 2, 3)), _u((240,), -0.5, 0.5), _u((4, 2, 2)), _u((4, 2, 2), seed=1)],
         {"state_size": 2, "num_layers": 2, "bidirectional": True, "mode": "lstm",
          "state_outputs": True}),
        ("RNN", [_u((4, 2, 3)), _u((2 * (3 * 2 * (3 + 2) + 2 * 3 * 2),), -0.5, 0.5),
                 _u((2, 2, 2))],
         {"state_size": 2, "num_layers": 1, "bidirectional": True, "mode": "gru"}),
        ("add_n", [a, b, a], {}),
        ("argmax", [a], {"axis": 1}),
        ("batch_dot", [_u((2, 3, 4)), _u((2, 4, 2))], {}),
        ("broadcast_to", [_u((1, 4))], {"shape": (3, 4)}),
        ("clip", [a], {"a_min": -0.5, "a_max": 0.5}),
        ("dot", [a, _u((4, 2))], {}),
        ("dot", [a, _u((3, 2))], {"transpose_a": True}),
        ("exp", [a], {}),
        *[(n, [a], {}) for n in ("sin", "cos", "tan", "arcsin", "arctan", "arctanh", "sinh",
                                 "cosh", "arcsinh", "degrees", "radians", "expm1", "cbrt",
                                 "sign", "floor", "ceil", "rint", "round", "trunc", "fix")],
        *[(n, [_pos((3, 4))], {}) for n in ("log2", "log10", "log1p", "rsqrt", "rcbrt")],
        ("norm", [a], {"axis": 1}),
        ("norm", [a], {"ord": 1}),
        ("arccos", [a * 0.9], {}),
        ("arccosh", [_pos((3, 4)) + 1], {}),
        ("expand_dims", [a], {"axis": 1}),
        ("log", [_pos((3, 4))], {}),
        ("log_softmax", [a], {"axis": 0}),
        ("max", [a], {"axis": 1}),
        ("mean", [a], {"axis": 0, "keepdims": True}),
        ("min", [a], {}),
        ("negative", [a], {}),
        ("one_hot", [_idx((3,), 4)], {"depth": 4}),
        ("ones_like", [a], {}),
        ("zeros_like", [a], {}),
        ("logical_not", [a], {}),
        ("pick", [a, _idx((3,), 4)], {"axis": 1}),
        ("prod", [_pos((3, 4))], {"axis": 1}),
        ("reciprocal", [_pos((3, 4))], {}),
        ("relu", [a], {}),
        ("reshape_like", [_u((2, 3, 2)), _u((3, 4))], {}),
        ("reshape_like", [_u((2, 6)), _u((5, 3, 2))], {"lhs_begin": 1, "rhs_begin": 1}),
        ("sigmoid", [a], {}),
        ("slice", [_u((4, 5))], {"begin": (1, 0), "end": (3, 4)}),
        ("slice_axis", [_u((4, 5))], {"axis": 1, "begin": 1, "end": 4}),
        ("softmax", [a], {"axis": 1}),
        ("softrelu", [a], {}),
        ("softsign", [a], {}),
        ("sqrt", [_pos((3, 4))], {}),
        ("square", [a], {}),
        ("squeeze", [_u((3, 1, 4))], {"axis": 1}),
        ("stack", [a, b], {"axis": 1}),
        ("sum", [a], {"axis": (0, 1)}),
        ("take", [_u((5, 3)), _idx((2, 2), 5)], {}),
        ("tanh", [a], {}),
        ("transpose", [_u((2, 3, 4))], {"axes": (2, 0, 1)}),
        ("where", [(a > 0).astype(np.float32), a, b], {}),
    ]
    for name in ("elemwise_add", "elemwise_sub", "elemwise_mul", "_maximum", "_minimum",
                 "_equal", "_not_equal", "_greater", "_greater_equal", "_lesser",
                 "_lesser_equal"):
        ex.append((name, [a, b], {}))
    ex.append(("elemwise_div", [a, _pos((3, 4))], {}))
    for name in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_maximum",
                 "broadcast_minimum", "broadcast_equal", "broadcast_not_equal",
                 "broadcast_greater", "broadcast_greater_equal", "broadcast_lesser",
                 "broadcast_lesser_equal"):
        ex.append((name, [a, _u((1, 4), seed=3)], {}))
    ex.append(("broadcast_div", [a, _pos((3, 1))], {}))
    ex.append(("broadcast_power", [_pos((3, 4)), _u((1, 4))], {}))
    ex.append(("broadcast_mod", [_pos((3, 4)) * 3, _pos((3, 1))], {}))
    for name in ("_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar",
                 "_div_scalar", "_maximum_scalar", "_minimum_scalar", "_equal_scalar",
                 "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar",
                 "_lesser_scalar", "_lesser_equal_scalar"):
        ex.append((name, [a], {"scalar": 0.25}))
    ex.append(("_rdiv_scalar", [_pos((3, 4))], {"scalar": 2.0}))
    ex.append(("_power_scalar", [_pos((3, 4))], {"scalar": 1.5}))
    ex.append(("_rpower_scalar", [a], {"scalar": 1.5}))
    ex.append(("_mod_scalar", [_pos((3, 4)) * 3], {"scalar": 0.7}))
    ex.append(("_rmod_scalar", [_pos((3, 4))], {"scalar": 2.5}))
    # image operators (gluonlite/ops/image.py): float HWC images, CHW for normalize
    img = _u((4, 5, 3), 0.0, 255.0)
    ex += [("_image_to_tensor", [img], {}),
           ("_image_normalize", [_u((3, 4, 5))], {"mean": (0.1, 0.2, 0.3), "std": 0.5}),
           ("_image_flip_left_right", [img], {}), ("_image_flip_top_bottom", [img], {}),
           ("_image_random_flip_left_right", [img], {"p": 1.0}),
           ("_image_random_flip_top_bottom", [img], {"p": 1.0}),
           ("_image_crop", [img], {"x": 1, "y": 0, "width": 3, "height": 2}),
           ("_image_resize", [img], {"size": (7, 6)}),
           ("_cvimresize", [img], {"w": 7, "h": 6, "interp": 2}),
           ("_cvcopyMakeBorder", [img], {"top": 1, "bot": 0, "left": 2, "right": 1, "type": 2}),
           ("_image_random_brightness", [img], {"min_factor": 0.5, "max_factor": 1.5}),
           ("_image_random_contrast", [img], {"min_factor": 0.5, "max_factor": 1.5}),
           ("_image_random_saturation", [img], {"min_factor": 0.5, "max_factor": 1.5}),
           ("_image_random_hue", [img], {"min_factor": 0.8, "max_factor": 1.2}),
           ("_image_random_color_jitter", [img], {"brightness": 0.2, "contrast": 0.2,
                                                  "saturation": 0.2, "hue": 0.1}),
           ("_image_adjust_lighting", [img], {"alpha": (0.1, -0.2, 0.3)}),
           ("_image_random_lighting", [img], {"alpha_std": 0.1})]
    # convolution family, per-sample norms, Pad, UpSampling, softmin (gluonlite/ops/conv.py,
    # normalization.py, spatial.py, nn.py)
    x4 = _u((2, 3, 5, 4))
    ex += [
        ("Convolution", [x4, _u((4, 3, 3, 2)), _u((4,))],
         {"kernel": (3, 2), "num_filter": 4, "stride": (2, 1), "pad": (1, 1)}),
        ("Deconvolution", [x4, _u((3, 2, 3, 3))],
         {"kernel": (3, 3), "num_filter": 2, "stride": (2, 2), "adj": (1, 1)}),
        ("Pooling", [x4], {"kernel": (2, 2), "pool_type": "avg", "pooling_convention": "full"}),
        ("Pooling", [x4], {"kernel": (3, 3), "pad": (1, 1)}),
        ("im2col", [x4], {"kernel": (2, 2), "stride": (1, 2)}),
        ("col2im", [_u((2, 12, 6))], {"kernel": (2, 2), "stride": (1, 2),
                                       "output_size": (4, 5)}),
        ("InstanceNorm", [x4, _pos((3,)), _u((3,))], {}),
        ("GroupNorm", [_u((2, 4, 3)), _pos((2,)), _u((2,))], {"num_groups": 2}),
        ("Pad", [x4], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)}),
        ("UpSampling", [x4], {"scale": 2, "sample_type": "nearest"}),
        ("softmin", [a], {"axis": 0}),
    ]
    ex += _optimizer_and_loss_examples()
    ex += _quantization_table()
    ex += _dgl_graph_examples()
    return ex


def _dgl_graph_examples():
    """The DGL graph operators: the graph a scipy csr matrix (nd.array makes it a csr NDArray;
    a graph gets its dense values), its edge ids from 1 (a 0 is no edge in dense values);
    the samplers with num_neighbor at least every degree, so that nothing is drawn."""
    import scipy.sparse as spsp
    dense = np.array([[0, 1, 2, 0], [3, 0, 0, 4], [0, 5, 0, 6], [7, 0, 8, 0]], np.int64)
    g = spsp.csr_matrix(dense)
    vids = np.array([0, 2, 3], np.int64)
    sample = {"num_hops": 2, "num_neighbor": 4, "max_num_vertices": 5}
    # a sampler's output: vertices 1 and 3 of 4, their count last
    sub = spsp.csr_matrix(np.array([[0, 0, 0, 4], [0, 7, 0, 0], [0] * 4, [0] * 4], np.int64))
    return [
        ("_contrib_edge_id", [spsp.csr_matrix(dense.astype(np.float32)),
                              np.array([0, 1, 3, 2], np.float32),
                              np.array([1, 1, 2, 3], np.float32)], {}),
        ("_contrib_dgl_adjacency", [g], {}),
        ("_contrib_dgl_subgraph", [g, vids, np.array([1, 2], np.int64)],
         {"return_mapping": True}),
        ("_contrib_dgl_graph_compact", [sub, np.array([1, 3, -1, -1, 2], np.int64)],
         {"graph_sizes": (2,), "return_mapping": False}),
        ("_contrib_dgl_csr_neighbor_uniform_sample", [g, np.array([0], np.int64)], sample),
        ("_contrib_dgl_csr_neighbor_non_uniform_sample",
         [g, np.array([0.4, 0.3, 0.2, 0.1], np.float32), np.array([2], np.int64)], sample),
    ]


def _optimizer_and_loss_examples():
    """The update operators (states updated in place), CTC and the loss heads."""
    w, g, s1, s2, s3 = (_u((2, 3), seed=k) for k in range(5))
    v = _pos((2, 3), seed=5)
    one = np.array([0.7], np.float32)
    sgd = {"lr": 0.1, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 0.4}
    ex = [
        ("sgd_update", [w, g], sgd),
        ("sgd_mom_update", [w, g, s1], {**sgd, "momentum": 0.9}),
        ("mp_sgd_update", [w, g, s1], sgd),
        ("mp_sgd_mom_update", [w, g, s1, s2], {**sgd, "momentum": 0.9}),
        ("nag_mom_update", [w, g, s1], {**sgd, "momentum": 0.9}),
        ("mp_nag_mom_update", [w, g, s1, s2], {**sgd, "momentum": 0.9}),
        ("ftml_update", [w, g, v, v, s1], {"lr": 0.1, "t": 2}),
        ("adam_update", [w, g, s1, v], sgd),
        ("rmsprop_update", [w, g, v], sgd),
        ("rmspropalex_update", [w, g, v + 1, s1 * 0.1, s2], sgd),
        ("ftrl_update", [w, g, s1, v], sgd),
        ("signsgd_update", [w, g], sgd),
        ("signum_update", [w, g, s1], {**sgd, "momentum": 0.9}),
        ("lamb_update_phase1", [w, g, s1, v], {"t": 2, "wd": 0.01}),
        ("lamb_update_phase2", [w, g, np.array([2.0], np.float32),
                                np.array([3.0], np.float32)], {"lr": 0.1}),
        ("mp_lamb_update_phase1", [w, g, s1, v, s2], {"t": 2, "wd": 0.01}),
        ("mp_lamb_update_phase2", [w, g, np.array([2.0], np.float32),
                                   np.array([3.0], np.float32), s1], {"lr": 0.1}),
        ("_adamw_update", [w, g, s1, v, one], {"lr": 0.1, "eta": 0.5}),
        ("_mp_adamw_update", [w, g, s1, v, s2, one], {"lr": 0.1, "eta": 0.5}),
        ("_multi_adamw_update", [w, g, s1, v, one], {"lrs": (0.1,), "wds": (0.0,),
                                                     "etas": (0.5,), "num_weights": 1}),
        ("_multi_mp_adamw_update", [w, g, s1, v, s2, one],
         {"lrs": (0.1,), "wds": (0.0,), "etas": (0.5,), "num_weights": 1}),
        ("_multi_lamb_update", [w, g, s1, v], {"learning_rates": (0.1,), "wds": (0.0,),
                                               "step_count": [1], "num_tensors": 1}),
        ("_multi_mp_lamb_update", [w, g, s1, v, s2],
         {"learning_rates": (0.1,), "wds": (0.0,), "step_count": [1], "num_tensors": 1}),
        ("multi_sgd_update", [w, g, s1, s2], {"lrs": (0.1, 0.2), "wds": (0.0, 0.1),
                                              "num_weights": 2}),
        ("multi_sgd_mom_update", [w, g, s1], {"lrs": (0.1,), "wds": (0.0,),
                                              "momentum": 0.9, "num_weights": 1}),
        ("multi_mp_sgd_update", [w, g, s1], {"lrs": (0.1,), "wds": (0.0,), "num_weights": 1}),
        ("multi_mp_sgd_mom_update", [w, g, s1, s2], {"lrs": (0.1,), "wds": (0.0,),
                                                     "momentum": 0.9, "num_weights": 1}),
        ("preloaded_multi_sgd_update", [w, g, np.array([0.1], np.float32),
                                        np.array([0.0], np.float32)], {"num_weights": 1}),
        ("preloaded_multi_sgd_mom_update", [w, g, s1, np.array([0.1], np.float32),
                                            np.array([0.0], np.float32)],
         {"momentum": 0.9, "num_weights": 1}),
        ("preloaded_multi_mp_sgd_update", [w, g, s1, np.array([0.1], np.float32),
                                           np.array([0.0], np.float32)], {"num_weights": 1}),
        ("preloaded_multi_mp_sgd_mom_update", [w, g, s1, s2, np.array([0.1], np.float32),
                                               np.array([0.0], np.float32)],
         {"momentum": 0.9, "num_weights": 1}),
        ("all_finite", [w], {}),
        ("multi_all_finite", [w, g], {"num_arrays": 2}),
        ("multi_sum_sq", [w, g], {"num_arrays": 2}),
        ("multi_lars", [_pos((3,)), _pos((3,), seed=1), _pos((3,), seed=2), _pos((3,), seed=3)],
         {"eta": 0.5, "eps": 1e-3}),
        ("CTCLoss", [_u((5, 2, 4)), np.array([[1, 2, 0], [3, 3, 0]], np.float32)], {}),
        ("make_loss", [w], {}),
        ("MakeLoss", [w], {"grad_scale": 2.0, "normalization": "batch"}),
    ]
    return ex


def _shared_table():
    """The core team's table, as a list of (op_name, inputs, attrs), or None."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "core" / "test_registry_walk.py"
    if not path.exists():
        return None
    _core_on_path()
    spec = importlib.util.spec_from_file_location("_registry_walk_table", path)
    walk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    table = getattr(walk, "EXAMPLES", None)
    if not isinstance(table, (list, tuple)):
        return None
    out = []
    for item in table:
        if isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str):
            name, ins, attrs = item
            if isinstance(ins, (list, tuple)) and isinstance(attrs, dict) and all(
                    isinstance(x, np.ndarray) for x in ins):
                out.append((name, list(ins), dict(attrs)))
    return out or None


def _core_on_path():
    """tests/core on sys.path, where the registry walk finds its `walk_specs` package (pytest
    puts it there only when it collects tests/core first)."""
    import pathlib
    import sys
    core = str(pathlib.Path(__file__).resolve().parents[1] / "core")
    if core not in sys.path:
        sys.path.insert(0, core)


def _walk_family_table(family):
    """The registry walk's entries of one operator family (tests/core/walk_specs/<family>.py)
    as examples: every check's inputs drawn as float32 (or the check's first dtype, for an
    operator of integer data), its attributes as given."""
    import importlib
    _core_on_path()
    specs = importlib.import_module(f"walk_specs.{family}").SPECS
    from walk_specs.common import make
    rng = np.random.RandomState(0)
    out = []
    for name, checks in sorted(specs.items()):
        for check in checks if isinstance(checks, list) else [checks]:
            dtype = (check.get("dtypes") or (np.float32,))[0]
            inputs = [make(s, rng).astype(dtype) for s in check["inputs"]]
            out.append((name, inputs, dict(check["attrs"])))
    return out


def examples():
    """Every example: the shared table's first, then ours for operators it lacks, then the
    registry walk's entries (every family of tests/core/walk_specs) for operators still
    lacking: an operator family's walk entries are its symbolic examples too."""
    shared = _shared_table() or []
    have = {name for name, _, _ in shared}
    own = [e for e in _own_table() if e[0] not in have]
    have |= {name for name, _, _ in own}
    walked = [e for family in _walk_families() for e in _walk_family_table(family)
              if e[0] not in have]
    return shared + own + walked


def _walk_families():
    import pkgutil
    _core_on_path()
    import walk_specs
    return [m.name for m in pkgutil.iter_modules(walk_specs.__path__) if m.name != "common"]
