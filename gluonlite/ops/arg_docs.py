"""The ``Args:``/``Returns:``/``Raises:`` sections of the generated operator functions.

`nd.Convolution`, `sym.clip` and every other generated function take the operator's inputs,
then its attributes, then the front end's own arguments (``out`` for ``nd``; ``name`` and
``attr`` for ``sym``). Their names, kinds and defaults come from the registry entry; what each
one means comes from the tables below, written once per argument name:

* `INPUTS` and `ATTRS`: the meaning a name has wherever it appears (``axis``, ``keepdims``,
  ``num_filter``, ...), worded so that it holds for every operator that uses it;
* `FAMILIES`: names whose meaning belongs to a family of operators (an optimizer update's
  ``mom``, a sampler's ``shape``, a density's ``sample``), chosen by the operator's name;
* `SPECIFIC`: ``(operator, name)`` pairs a family or the common tables would get wrong.

An argument none of them names is listed with its kind and default, pointing at the summary
line, which describes every operator's own attributes. `sections` writes the text, and
`signature` the `inspect.Signature` the generated function shows to ``help()`` and IDEs.
"""
import inspect
import keyword

from .attrs import REQUIRED

__all__ = ["INPUTS", "ATTRS", "FAMILIES", "SPECIFIC", "describe", "kind_text", "sections",
           "signature", "wrap"]

INPUTS = {
    "data": "the input array.",
    "lhs": "the left operand.",
    "rhs": "the right operand.",
    "weight": "the weight array (its shape is given by the operator's attributes).",
    "bias": "the bias, one value per output unit or channel (left out when ``no_bias``).",
    "label": "the labels the output is trained against.",
    "gamma": "the learned scale, one value per channel of `axis`.",
    "beta": "the learned shift, one value per channel of `axis`.",
    "moving_mean": "the running mean (an auxiliary state, updated in training).",
    "moving_var": "the running variance (an auxiliary state, updated in training).",
    "A": "the first matrix (or batch of matrices in the last two axes).",
    "B": "the second matrix (or batch of matrices in the last two axes).",
    "C": "the matrix added to the product.",
    "indices": "the integer indices to pick, gather or keep.",
    "index": "the integer index (or mask) array.",
    "sequence_length": "the valid length of each sequence in the batch (used with "
                       "``use_sequence_length``).",
    "rois": "the regions of interest, one row ``[batch_index, x1, y1, x2, y2]`` each.",
    "cls_prob": "the class probabilities.",
    "anchor": "the anchor boxes.",
    "anchors": "the anchor boxes.",
    "offset": "the sampling offsets the deformable kernel reads.",
    "mask": "the modulation mask the deformable kernel applies.",
    "grid": "the sampling grid, in [-1, 1] coordinates.",
    "loc": "the localisation parameters of the spatial transform.",
    "like": "the array whose spatial size the output takes.",
    "length": "the valid length of each row along `axis` (used with ``use_length``).",
    "condition": "where nonzero, the output takes `x`; elsewhere `y`.",
    "x": "the values taken where `condition` is nonzero.",
    "y": "the values taken where `condition` is zero.",
    "shape_like": "the array whose shape bounds the slice.",
    "a": "the input array.",
    "b": "the second input array.",
    "mhs": "the values to write, one per row.",
    "data1": "the first feature map.",
    "data2": "the second feature map.",
    "data_lengths": "the valid length of each sequence of `data` (with ``use_data_lengths``).",
    "label_lengths": "the valid length of each label sequence (with ``use_label_lengths``).",
    "moving_avg": "the running average of the activations (an auxiliary state).",
    "parameters": "every layer's weights and biases, packed into one flat array.",
    "state": "the initial hidden state, (layers * directions, batch, state_size).",
    "state_cell": "the initial LSTM cell state, shaped as `state` (LSTM only).",
    "loc_pred": "the predicted box offsets.",
    "cls_pred": "the class predictions.",
    "bbox_pred": "the predicted box deltas.",
    "im_info": "each image's (height, width, scale).",
    "samples": "the sample labels (1 positive, -1 negative, 0 ignored).",
    "matches": "the index of the reference box each sample is matched to.",
    "refs": "the reference boxes.",
    "means": "the means the encoded offsets are normalised by.",
    "stds": "the standard deviations the encoded offsets are normalised by.",
    "h": "the hash bucket of each input dimension.",
    "s": "the sign (+1/-1) of each input dimension.",
    "old_tensor": "the array rows are copied into.",
    "index_vector": "the rows of `old_tensor` to replace.",
    "new_tensor": "the rows to copy in.",
    "queries": "the projected queries, (seq, batch, heads * head_dim).",
    "keys_values": "the interleaved projected keys and values.",
    "queries_keys_values": "the interleaved projected queries, keys and values.",
    "attention": "the attention weights.",
}

ATTRS = {
    "axis": "the axis (or axes) the operator works along; negative counts from the end.",
    "axes": "the axes the operator works along.",
    "keepdims": "keep each reduced axis with size 1.",
    "exclude": "reduce over every axis except those in `axis`.",
    "dtype": "the data type of the result.",
    "shape": "the shape of the result.",
    "ctx": "the device the result is made on (default: the current context).",
    "num_args": "how many arrays are passed (set from the positional arguments).",
    "kernel": "the kernel's size along each spatial axis.",
    "stride": "the step along each spatial axis (default 1 each).",
    "pad": "the zero padding added on both sides of each spatial axis (default 0 each).",
    "dilate": "the spacing between kernel taps along each spatial axis (default 1 each).",
    "num_filter": "the number of output channels.",
    "num_group": "split the input and output channels into this many groups, each with its "
                 "own kernel.",
    "no_bias": "leave the bias out.",
    "layout": "the axis order of the data ('NCHW', 'NHWC', ...; default channels first).",
    "workspace": "MXNet's scratch-memory limit in MB (accepted; no effect here).",
    "cudnn_tune": "MXNet's cuDNN algorithm choice (accepted; no effect here).",
    "cudnn_off": "MXNet's switch off cuDNN (accepted; no effect here).",
    "eps": "the small constant added to the variance before the square root.",
    "momentum": "the weight of the old running statistics in their update.",
    "fix_gamma": "use a scale of 1 instead of `gamma` (and write 1 into it in training).",
    "use_global_stats": "normalise with the running statistics even in training.",
    "output_mean_var": "also return the batch mean and inverse standard deviation.",
    "act_type": "the activation function's name.",
    "target_shape": "the shape the output takes.",
    "num_outputs": "how many outputs to make.",
    "squeeze_axis": "drop the split axis from each output (its size must then be 1).",
    "is_ascend": "sort ascending (else descending).",
    "transpose_a": "use the first operand transposed.",
    "transpose_b": "use the second operand transposed.",
    "transpose": "use the matrix transposed.",
    "lower": "use (or make) the lower triangle (else the upper).",
    "rightside": "multiply (or solve) with the triangular matrix on the right.",
    "offset": "which diagonal: 0 the main one, positive above it, negative below.",
    "k": "how many elements to take.",
    "use_sequence_length": "read the `sequence_length` input (else every sequence is full).",
    "use_length": "read the `length` input (else every row is full).",
    "temperature": "divide the input by this before the softmax (default 1).",
    "grad_scale": "the factor the gradient is multiplied by.",
    "normalization": "how the gradient is divided: 'null' (not), 'batch' (by the batch "
                     "size) or 'valid' (by the number of non-ignored labels).",
    "ignore_label": "the label whose entries get no gradient (with ``use_ignore``).",
    "valid_thresh": "entries scoring below this are left out.",
    "mode": "the operator's mode (see the summary line for the choices).",
    "p": "the probability (see the summary line).",
    "scalar": "the number the operator uses.",
    "is_int": "whether the scalar is an integer (MXNet 1.9's flag; kept for its JSON).",
    "alpha": "the scale factor (see the summary line).",
    "beta": "the second factor (see the summary line).",
    "begin": "the start of the slice on each axis (None: from the start).",
    "end": "the end of the slice on each axis, exclusive (None: to the end).",
    "step": "the step of the slice on each axis (None: 1).",
    "block_size": "the edge of the spatial block moved to or from the channels.",
    "output_size": "the output's spatial size.",
    "size": "the size along each axis given.",
    "forward_stype": "the storage type of the result ('default', 'csr' or 'row_sparse'; "
                     "None: from the inputs).",
    "init_output": "zero the output before checking (else it is combined with its old value).",
    "num_arrays": "how many arrays are passed.",
    "threshold": "the threshold (see the summary line).",
    "clip": "clip the boxes to the image.",
    "ratios": "the aspect ratios of the anchors.",
    "scales": "the scales of the anchors.",
    "variances": "the variances the box offsets are scaled by.",
    "background_id": "the class id of the background (-1: none).",
    "force_suppress": "suppress overlapping boxes of different classes too.",
    "topk": "keep at most this many, best first (-1: all).",
    "format": "the box format: 'corner' (x1, y1, x2, y2) or 'center' (x, y, w, h).",
    "pooled_size": "the output's spatial size for each region.",
    "spatial_scale": "the factor from the image's coordinates to the feature map's.",
    "heads": "the number of attention heads.",
    "min_factor": "the smallest random factor.",
    "max_factor": "the largest random factor.",
    "num_deformable_group": "split the channels into this many groups, each with its own "
                            "offsets.",
    "rpn_pre_nms_top_n": "the number of proposals kept before non-maximum suppression.",
    "rpn_post_nms_top_n": "the number of proposals kept after non-maximum suppression.",
    "rpn_min_size": "the smallest box edge kept, in image pixels.",
    "feature_stride": "the stride of the feature map in image pixels.",
    "output_score": "also return the proposals' scores.",
    "iou_loss": "decode the deltas as IoU-loss offsets.",
    "compute_size": "MXNet's batch size for the transform (accepted; no effect here).",
    "transform_type": "the kind of transform ('affine' or 'warp').",
    "output_dim": "the size of each output vector.",
    "lower_bound": "the lower bound (see the summary line).",
    "upper_bound": "the upper bound (see the summary line).",
    "min_calib_range": "the quantization calibration minimum (accepted; no effect here).",
    "max_calib_range": "the quantization calibration maximum (accepted; no effect here).",
    "use_data_lengths": "read the `data_lengths` input (else every sequence is full).",
    "use_label_lengths": "read the `label_lengths` input (else labels end at the padding).",
    "blank_label": "which class is the blank: 'first' (0) or 'last'.",
    "dim": "the axis the arrays are joined along.",
    "kernel_size": "the edge of the patch compared.",
    "max_displacement": "the largest displacement compared.",
    "stride1": "the step between the patches of the first map.",
    "stride2": "the step between the displacements compared.",
    "pad_size": "the zero padding added to both maps.",
    "is_multiply": "compare by product (else by absolute difference).",
    "h_w": "the (height, width) of the crop, when no second input gives it.",
    "center_crop": "crop the centre (else from the top-left corner by `offset`).",
    "adj": "the extra size added to one side of each spatial axis of the output.",
    "input_dim": "the number of rows of the embedding table (the vocabulary size).",
    "sparse_grad": "give the weight a row_sparse gradient.",
    "num_hidden": "the number of output units.",
    "flatten": "flatten the input to 2-D (else apply to the last axis).",
    "num_groups": "the number of channel groups normalised together.",
    "sparseness_target": "the mean activation the regularizer aims at.",
    "penalty": "the regularizer's weight.",
    "knorm": "the constant k of the normalisation.",
    "nsize": "the number of neighbouring channels summed.",
    "slope": "the slope for negative inputs.",
    "pad_width": "the padding before and after each axis, flattened: "
                 "(before_0, after_0, before_1, after_1, ...).",
    "constant_value": "the value padded in 'constant' mode.",
    "pool_type": "'max', 'avg', 'sum' or 'lp'.",
    "global_pool": "pool over the whole spatial extent (ignores `kernel`).",
    "pooling_convention": "'valid' (floor the output size) or 'full' (ceil it).",
    "p_value": "the power of 'lp' pooling.",
    "count_include_pad": "count the padding in the divisor of 'avg' pooling (None: yes).",
    "state_size": "the hidden state size.",
    "num_layers": "the number of stacked layers.",
    "bidirectional": "run a backward layer beside each forward one.",
    "state_outputs": "also return the final states.",
    "projection_size": "the size of the LSTM projection (None: no projection).",
    "lstm_state_clip_min": "the lower clip of the LSTM cell state (None: not clipped).",
    "lstm_state_clip_max": "the upper clip of the LSTM cell state (None: not clipped).",
    "lstm_state_clip_nan": "turn NaN in the clipped cell state into the bound.",
    "reverse": "read the special codes (0, -1, -2, ...) from the right.",
    "keep_highest": "keep the highest axes and let -1 and -4 infer the lowest.",
    "margin": "the margin of the hinge loss.",
    "regularization_coefficient": "the weight of the loss.",
    "use_linear": "use the L1 hinge (else the squared one).",
    "value": "the value written.",
    "multi_output": "treat axis 1 as the classes and the rest as positions.",
    "use_ignore": "give no gradient to entries labelled `ignore_label`.",
    "preserve_shape": "take the softmax along the last axis, keeping the shape.",
    "out_grad": "multiply the gradient by the head gradient.",
    "smooth_alpha": "the label-smoothing weight spread over the other classes.",
    "sampler_type": "the sampling kernel ('bilinear').",
    "dim1": "the first axis swapped.",
    "dim2": "the second axis swapped.",
    "sample_type": "'nearest' or 'bilinear'.",
    "multi_input_mode": "'concat' or 'sum' the upsampled inputs.",
    "cast_narrow": "cast to the narrowest of the input types (else the widest).",
    "lhs_axes": "the axes of `lhs` to broadcast (None: all).",
    "rhs_axes": "the axes of `rhs` whose sizes they take (None: all).",
    "a_min": "the smallest value kept.",
    "a_max": "the largest value kept.",
    "height": "the output height.",
    "width": "the output width.",
    "scale_height": "the output height as a factor of the input's (instead of `height`).",
    "scale_width": "the output width as a factor of the input's (instead of `width`).",
    "align_corners": "align the corner pixels of input and output.",
    "im2col_step": "MXNet's batch step for im2col (accepted; no effect here).",
    "nms_threshold": "the overlap above which non-maximum suppression drops a box.",
    "nms_topk": "keep this many boxes before suppression (-1: all).",
    "sizes": "the anchor sizes, as fractions of the image.",
    "steps": "the anchor step on each axis (-1: from the feature map size).",
    "offsets": "the offset of the anchor centres within a cell.",
    "overlap_threshold": "the overlap above which an anchor is a positive.",
    "negative_mining_ratio": "negatives kept per positive (-1: no mining).",
    "negative_mining_thresh": "the overlap below which an anchor may be a negative.",
    "minimum_negative_samples": "the fewest negatives kept.",
    "group_size": "the number of position-sensitive groups per axis (0: `pooled_size`).",
    "sample_ratio": "the sampling points per bin and axis (-1: adaptive).",
    "position_sensitive": "read a separate channel group per output bin.",
    "aligned": "shift the boxes by half a pixel.",
    "ndev": "the number of devices synchronised (one here).",
    "key": "the name the devices' statistics are shared under.",
    "rtol": "the relative tolerance.",
    "atol": "the absolute tolerance.",
    "equal_nan": "count NaN equal to NaN.",
    "start": "the first value.",
    "repeat": "how many times each value is repeated.",
    "std0": "the divisor of the x offset.",
    "std1": "the divisor of the y offset.",
    "std2": "the divisor of the width offset.",
    "std3": "the divisor of the height offset.",
    "overlap_thresh": "the overlap above which the lower-scored box is dropped.",
    "coord_start": "the column of the first box coordinate.",
    "score_index": "the column of the score.",
    "id_index": "the column of the class id (-1: none).",
    "in_format": "the input boxes' format ('corner' or 'center').",
    "out_format": "the output boxes' format ('corner' or 'center').",
    "out_dim": "the output dimension of the sketch.",
    "processing_batch_size": "MXNet's processing batch (accepted; no effect here).",
    "a": "the coefficient of x**2.",
    "b": "the coefficient of x.",
    "c": "the constant term.",
    "axis1": "the first axis of the 2-D planes the diagonal is taken from.",
    "axis2": "the second axis of those planes.",
    "mean": "the mean subtracted from each channel.",
    "std": "the standard deviation each channel is divided by.",
    "brightness": "the largest change of brightness.",
    "contrast": "the largest change of contrast.",
    "saturation": "the largest change of saturation.",
    "hue": "the largest change of hue.",
    "alpha_std": "the standard deviation of the lighting noise.",
    "keep_ratio": "keep the aspect ratio (the shorter edge takes `size`).",
    "interp": "the interpolation method (OpenCV's codes: 0 nearest, 1 bilinear, ...).",
    "ord": "the order of the norm (1 or 2).",
    "out_dtype": "the data type of the result (None: the input's).",
    "depth": "the number of classes (the length of each one-hot vector).",
    "on_value": "the value at the index.",
    "off_value": "the value elsewhere.",
    "repeats": "how many times each element is repeated.",
    "lhs_begin": "the first axis of `lhs` reshaped (None: 0).",
    "lhs_end": "the end of `lhs`'s axes reshaped (None: the last).",
    "rhs_begin": "the first axis of `rhs` whose sizes are taken (None: 0).",
    "rhs_end": "the end of `rhs`'s axes taken (None: the last).",
    "reps": "how many times the array is repeated along each axis.",
    "ret_typ": "'value', 'indices', 'both' or 'mask'.",
    "stype": "the storage type: 'default', 'csr' or 'row_sparse'.",
    "get_prob": "also return the log-probability of each sample.",
}

# The optimizer update operators (``sgd_update``, ``adam_update``, the ``multi_`` and
# ``mp_`` forms): the weight is updated in place from its gradient and states.
_OPTIMIZER = {
    "weight": "the weight updated (in place).",
    "grad": "the gradient of the weight.",
    "weight32": "the float32 master copy of a float16 weight (updated in place).",
    "mom": "the momentum state (updated in place).",
    "mean": "the first-moment state (updated in place).",
    "var": "the second-moment state (updated in place).",
    "history": "the sum of squared gradients (updated in place).",
    "n": "the squared-gradient state (updated in place).",
    "g": "the gradient state (updated in place).",
    "delta": "the update state (updated in place).",
    "z": "the accumulated state (updated in place).",
    "d": "the FTML d state (updated in place).",
    "v": "the FTML v state (updated in place).",
    "r1": "the norm of the weight.",
    "r2": "the norm of the update.",
    "lr": "the learning rate.",
    "lrs": "the learning rate of each weight.",
    "wd": "the weight decay.",
    "wds": "the weight decay of each weight.",
    "eta": "the LARS trust coefficient.",
    "rescale_grad": "the factor the gradient is multiplied by first.",
    "clip_gradient": "clip the rescaled gradient to [-this, this] (negative: no clipping).",
    "clip_grad": "clip the rescaled gradient to [-this, this] (negative: no clipping).",
    "clip_weights": "clip the weight to [-this, this] (negative: no clipping).",
    "momentum": "the momentum.",
    "epsilon": "the small constant added to the denominator.",
    "beta1": "the decay of the first moment.",
    "beta2": "the decay of the second moment.",
    "gamma1": "the decay of the squared-gradient average.",
    "gamma2": "the decay of the gradient average.",
    "lamda1": "the L1 regularization strength.",
    "beta": "the FTRL beta.",
    "t": "the number of the update (1 for the first).",
    "bias_correction": "correct the moments' bias towards 0.",
    "lazy_update": "with a row_sparse gradient, update only its rows.",
    "num_weights": "how many weights are updated (set from the positional arguments).",
    "wd_lh": "the decoupled weight decay.",
    "lower_bound": "the lower bound of the trust ratio (-1: none).",
    "upper_bound": "the upper bound of the trust ratio (-1: none).",
    "weights_sum_sq": "the squared norm of each weight.",
    "grads_sum_sq": "the squared norm of each gradient.",
}

# The random samplers with scalar parameters (``nd.random.uniform``: ``_random_*``).
_SAMPLER = {
    "shape": "the shape of the sample (default: one value).",
    "dtype": "the data type of the sample (default float32).",
    "ctx": "the device the sample is made on (default: the current context).",
    "low": "the lower bound (inclusive).",
    "high": "the upper bound (exclusive).",
    "loc": "the mean.",
    "scale": "the standard deviation.",
    "lam": "the rate (exponential) or mean (Poisson).",
    "alpha": "the shape parameter.",
    "beta": "the scale parameter.",
    "k": "the number of failures until stopping.",
    "p": "the probability of success.",
    "mu": "the mean.",
}

# The samplers whose parameters are arrays (``_sample_*``), one distribution per element.
_ARRAY_SAMPLER = {
    "low": "the lower bound of each distribution.",
    "high": "the upper bound of each distribution.",
    "mu": "the mean of each distribution.",
    "sigma": "the standard deviation of each distribution.",
    "lam": "the rate (exponential) or mean (Poisson) of each distribution.",
    "alpha": "the shape (or dispersion) parameter of each distribution.",
    "beta": "the scale parameter of each distribution.",
    "k": "the number of failures of each distribution.",
    "p": "the success probability of each distribution.",
    "shape": "the shape drawn per distribution (the result is the parameters' shape + this).",
    "dtype": "the data type of the sample (default float32).",
    "data": "the probabilities of each distribution (last axis).",
}

# The densities (``_random_pdf_*``): the density of each sample under its distribution.
_DENSITY = {
    "sample": "the points the density is evaluated at (the parameters' shape + more axes).",
    "is_log": "return the log-density.",
    **{k: v for k, v in _ARRAY_SAMPLER.items() if k not in ("shape", "dtype", "data")},
    "alpha": "the parameters of each distribution (Dirichlet: concentrations, last axis).",
}

# (test on the operator's name, table), tried in order
FAMILIES = [
    (lambda name: "_update" in name or name == "multi_lars", _OPTIMIZER),
    (lambda name: name.startswith("_random_pdf_"), _DENSITY),
    (lambda name: name.startswith("_sample_"), _ARRAY_SAMPLER),
    (lambda name: name.startswith("_random_"), _SAMPLER),
]

_DGL_HOPS = "how many hops from the seeds the sample walks."
_DGL_NEIGHBOURS = "how many neighbours of each vertex are drawn (all of them if it has fewer)."
_DGL_MAX = "the most vertices a sample holds (the length of its outputs)."

SPECIFIC = {
    ("BatchNorm", "axis"): "the channel axis (default 1).",
    ("BatchNorm_v1", "axis"): "the channel axis (default 1).",
    ("_contrib_SyncBatchNorm", "axis"): "the channel axis (default 1).",
    ("LayerNorm", "axis"): "the axis normalised (default -1, the last).",
    ("BatchNorm", "act_type"): "an activation fused after the normalisation (None: none).",
    ("LeakyReLU", "act_type"): "'leaky', 'prelu', 'rrelu', 'elu', 'selu' or 'gelu'.",
    ("LeakyReLU", "lower_bound"): "the smallest random slope of 'rrelu'.",
    ("LeakyReLU", "upper_bound"): "the largest random slope of 'rrelu'.",
    ("LeakyReLU", "gamma"): "the learned slopes of 'prelu'.",
    ("_contrib_hawkesll", "lda"): "the background intensity of each mark, (N, K).",
    ("_contrib_edge_id", "data"): "the graph: a csr matrix whose values are edge ids.",
    ("_contrib_edge_id", "u"): "the source vertex of each edge asked for, 1-D.",
    ("_contrib_edge_id", "v"): "the destination vertex of each edge asked for, 1-D.",
    ("_contrib_dgl_adjacency", "data"): "the graph: an int64 csr matrix of edge ids.",
    ("_contrib_dgl_subgraph", "return_mapping"): "also return, per vertex array, the "
                                                 "subgraph holding the original edge ids.",
    ("_contrib_dgl_graph_compact", "return_mapping"): "also return one csr per graph (MXNet "
                                                      "1.9.1 leaves it empty).",
    ("_contrib_dgl_graph_compact", "graph_sizes"): "the vertex count of each graph (the last "
                                                   "entry of its vertex ids).",
    ("_contrib_dgl_csr_neighbor_uniform_sample", "num_hops"): _DGL_HOPS,
    ("_contrib_dgl_csr_neighbor_uniform_sample", "num_neighbor"): _DGL_NEIGHBOURS,
    ("_contrib_dgl_csr_neighbor_uniform_sample", "max_num_vertices"): _DGL_MAX,
    ("_contrib_dgl_csr_neighbor_non_uniform_sample", "num_hops"): _DGL_HOPS,
    ("_contrib_dgl_csr_neighbor_non_uniform_sample", "num_neighbor"): _DGL_NEIGHBOURS,
    ("_contrib_dgl_csr_neighbor_non_uniform_sample", "max_num_vertices"): _DGL_MAX,
    ("_contrib_hawkesll", "alpha"): "the branching ratio of each mark, (K,).",
    ("_contrib_hawkesll", "beta"): "the decay rate of each mark's kernel, (K,).",
    ("_contrib_hawkesll", "state"): "the kernel sums carried in at time 0, (N, K).",
    ("_contrib_hawkesll", "lags"): "the time from each event to the next, (N, T).",
    ("_contrib_hawkesll", "marks"): "the mark of each event, integers in [0, K), (N, T).",
    ("_contrib_hawkesll", "valid_length"): "how many events of each sequence count, (N,).",
    ("_contrib_hawkesll", "max_time"): "the end of each sequence's interval, (N,).",
    ("Activation", "act_type"): "'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'.",
    ("Dropout", "p"): "the fraction of elements dropped in training.",
    ("Dropout", "mode"): "'training' (drop only in training) or 'always'.",
    ("Dropout", "axes"): "the axes that share one mask (variational dropout).",
    ("RNN", "p"): "the dropout between layers in training.",
    ("RNN", "mode"): "'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'.",
    ("Pad", "mode"): "'constant', 'edge' or 'reflect'.",
    ("take", "mode"): "out-of-range indices: 'clip' (to the ends), 'wrap' (modulo the size) or "
                      "'raise' (an error).",
    ("pick", "mode"): "out-of-range indices: 'clip' (to the ends) or 'wrap' (modulo the size).",
    ("_contrib_BilinearResize2D", "mode"): "how the output size is found: 'size' (`height`, "
                                            "`width` or the scales), 'like' (the second "
                                            "input's), 'odd_scale', or 'to_even_down', "
                                            "'to_even_up', 'to_odd_down', 'to_odd_up' (the "
                                            "input's size rounded so).",
    ("_random_generalized_negative_binomial", "alpha"): "the dispersion.",
    ("L2Normalization", "mode"): "'instance' (per sample), 'channel' (per position, over "
                                 "the channels) or 'spatial' (per channel, over positions).",
    ("L2Normalization", "eps"): "the small constant added under the square root.",
    ("SoftmaxActivation", "mode"): "'instance' (over everything but the batch axis) or "
                                   "'channel' (over axis 1).",
    ("Embedding", "dtype"): "the data type of the weight and the result.",
    ("Embedding", "weight"): "the embedding table, (input_dim, output_dim).",
    ("Embedding", "data"): "the indices to look up (any shape).",
    ("FullyConnected", "weight"): "the weight, (num_hidden, input size).",
    ("Convolution", "weight"): "the kernel, (num_filter, channels / num_group, *kernel).",
    ("Deconvolution", "weight"): "the kernel, (channels, num_filter / num_group, *kernel).",
    ("Deconvolution", "target_shape"): "the output's spatial size (overrides `adj`).",
    ("Reshape", "shape"): "the new shape, with MXNet's special codes (0 copy, -1 infer, -2 "
                          "copy the rest, -3 merge two, -4 split one).",
    ("Reshape", "target_shape"): "the old spelling of `shape` (deprecated in MXNet).",
    ("GridGenerator", "target_shape"): "the (height, width) of the grid.",
    ("SpatialTransformer", "target_shape"): "the (height, width) of the output.",
    ("Crop", "offset"): "the (y, x) corner of the crop (without `center_crop`).",
    ("Crop", "num_args"): "1 (with `h_w`) or 2 (the second input gives the size).",
    ("UpSampling", "scale"): "the upsampling factor.",
    ("UpSampling", "num_filter"): "the number of channels, for 'bilinear'.",
    ("SequenceMask", "axis"): "the time axis: 0 (time major) or 1 (batch major).",
    ("SequenceLast", "axis"): "the time axis: 0 (time major) or 1 (batch major).",
    ("SequenceReverse", "axis"): "the time axis (0).",
    ("MakeLoss", "valid_thresh"): "with 'valid' normalization, count the entries above this.",
    ("_contrib_box_nms", "valid_thresh"): "boxes scoring below this are dropped first.",
    ("_contrib_box_nms", "topk"): "keep this many boxes by score before suppression "
                                  "(-1: all).",
    ("_contrib_bipartite_matching", "topk"): "match at most this many (-1: all).",
    ("_contrib_bipartite_matching", "threshold"): "leave pairs scoring past this unmatched.",
    ("_contrib_MultiBoxDetection", "threshold"): "detections scoring below this are dropped.",
    ("_contrib_MultiBoxDetection", "background_id"): "the class id of the background.",
    ("_contrib_Proposal", "threshold"): "the non-maximum suppression overlap threshold.",
    ("_contrib_MultiProposal", "threshold"): "the non-maximum suppression overlap threshold.",
    ("_contrib_box_decode", "clip"): "clip the decoded size offsets to this (-1: no "
                                     "clipping).",
    ("_contrib_MultiBoxPrior", "ratios"): "the aspect ratios of the anchors.",
    ("_contrib_MultiBoxPrior", "clip"): "clip the anchors to [0, 1].",
    ("_contrib_gradientmultiplier", "scalar"): "the factor the gradient is multiplied by.",
    ("smooth_l1", "scalar"): "sigma: the quadratic part covers |x| < 1 / sigma**2.",
    ("_contrib_index_array", "axes"): "the axes whose indices are returned (None: all).",
    ("moments", "axes"): "the axes the mean and variance are taken over.",
    ("moments", "keepdims"): "keep each reduced axis with size 1.",
    ("LRN", "alpha"): "the scale of the squared sum.",
    ("LRN", "beta"): "the exponent of the normalisation.",
    ("_linalg_gemm", "alpha"): "the factor of the product.",
    ("_linalg_gemm", "beta"): "the factor of `C`.",
    ("_linalg_gemm2", "alpha"): "the factor of the product.",
    ("_linalg_syrk", "alpha"): "the factor of the product.",
    ("_linalg_trmm", "alpha"): "the factor of the product.",
    ("_linalg_trsm", "alpha"): "the factor of the right-hand side.",
    ("_image_adjust_lighting", "alpha"): "the weights of the three eigen-directions.",
    ("hard_sigmoid", "alpha"): "the slope.",
    ("hard_sigmoid", "beta"): "the offset.",
    ("_contrib_quadratic", "a"): "the coefficient of x**2.",
    ("_contrib_allclose", "a"): "the first array.",
    ("_contrib_allclose", "b"): "the second array.",
    ("_np_cumsum", "a"): "the input array.",
    ("batch_take", "a"): "the input array, (N, M).",
    ("batch_take", "indices"): "one index into each row, (N,).",
    ("diag", "k"): "which diagonal: 0 the main one, positive above it, negative below.",
    ("topk", "k"): "how many elements to take (<= 0: all).",
    ("topk", "dtype"): "the data type of the indices returned.",
    ("argsort", "dtype"): "the data type of the indices returned.",
    ("argmax", "keepdims"): "keep the reduced axis with size 1.",
    ("argmin", "keepdims"): "keep the reduced axis with size 1.",
    ("broadcast_axis", "size"): "the new size of each axis in `axis`.",
    ("_image_resize", "size"): "the output (width, height), or one edge.",
    ("slice_axis", "begin"): "the start along `axis`.",
    ("slice_axis", "end"): "the end along `axis`, exclusive (None: to the end).",
    ("_contrib_arange_like", "step"): "the step between values.",
    ("_contrib_arange_like", "axis"): "the axis whose length is used (None: the whole "
                                      "size, in `data`'s shape).",
    ("Cast", "dtype"): "the data type to cast to.",
    ("norm", "axis"): "the axis or axes of the norm (None: every element).",
    ("multi_all_finite", "num_arrays"): "how many arrays are checked.",
    ("SliceChannel", "axis"): "the axis split.",
    ("SliceChannel", "num_outputs"): "how many equal parts.",
    ("amp_multicast", "num_outputs"): "how many arrays are passed (and returned).",
    ("SoftmaxOutput", "normalization"): "how the gradient is divided: 'null' (not), 'batch' "
                                        "(by the batch size) or 'valid' (by the number of "
                                        "non-ignored labels).",
    ("_random_negative_binomial", "k"): "the number of failures until stopping.",
    ("_random_pdf_dirichlet", "alpha"): "the concentrations of each distribution (last axis).",
    ("_sample_multinomial", "dtype"): "the data type of the sampled indices.",
    ("_sample_multinomial", "shape"): "the number (shape) of indices drawn per distribution.",
    ("_contrib_MultiBoxTarget", "ignore_label"): "the label of anchors left out of the loss.",
    ("IdentityAttachKLSparseReg", "momentum"): "the weight of the old running average.",
    ("_contrib_ROIAlign", "pooled_size"): "the output's (height, width) for each region.",
    ("_contrib_RROIAlign", "rois"): "the rotated regions, one row ``[batch_index, center_x, "
                                    "center_y, width, height, angle]`` each (the angle in "
                                    "degrees).",
    ("_contrib_RROIAlign", "pooled_size"): "the output's (height, width) for each region.",
    ("_contrib_RROIAlign", "spatial_scale"): "the factor from the image's coordinates to the "
                                             "feature map's, in [0, 1].",
    ("_contrib_RROIAlign", "sampling_ratio"): "the bilinear samples per bin side (<= 0: "
                                              "ceil(region size / bins), per region).",
    ("_contrib_DeformablePSROIPooling", "trans"): "the bins' offsets, (num_rois, 2 * "
                                                  "num_classes, part_size, part_size): (dx, dy) "
                                                  "per class and part, in units of the "
                                                  "region's size times `trans_std` (left out "
                                                  "with `no_trans`).",
    ("_contrib_DeformablePSROIPooling", "spatial_scale"): "the factor from the image's "
                                                          "coordinates to the feature map's, "
                                                          "in [0, 1].",
    ("_contrib_DeformablePSROIPooling", "output_dim"): "the output channels (`data` needs at "
                                                       "least output_dim * group_size**2).",
    ("_contrib_DeformablePSROIPooling", "group_size"): "the position-sensitive groups per side: "
                                                       "output channel c of a bin in group "
                                                       "(gi, gj) reads input channel (c * "
                                                       "group_size + gi) * group_size + gj.",
    ("_contrib_DeformablePSROIPooling", "pooled_size"): "the bins per side of each region.",
    ("_contrib_DeformablePSROIPooling", "part_size"): "the offset parts per side in `trans` "
                                                      "(0: `pooled_size`).",
    ("_contrib_DeformablePSROIPooling", "sample_per_part"): "the bilinear samples per side of "
                                                            "each bin.",
    ("_contrib_DeformablePSROIPooling", "trans_std"): "the scale of `trans`'s offsets, in "
                                                      "[0, 1].",
    ("_contrib_DeformablePSROIPooling", "no_trans"): "pool without offsets (then there is no "
                                                     "`trans` input).",
    ("SequenceMask", "value"): "the value written past each sequence's length.",
    ("_image_normalize", "mean"): "the mean subtracted from each channel.",
}


def describe(op, name, is_input):
    """What argument `name` of operator `op` means, from the tables (None if none says).

    Args:
        op: the registry entry (a `gluonlite.ops.registry.Operator`).
        name: the input or attribute name.
        is_input: whether `name` is an input (read from `INPUTS`) or an attribute (`ATTRS`);
            `SPECIFIC` and `FAMILIES` come first either way.

    Returns:
        The meaning as a sentence, or None.

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.arg_docs import describe
        describe(registry.get("sgd_update"), "lr", False)    # 'the learning rate.'
    """
    text = SPECIFIC.get((op.name, name))
    if text is None:
        for matches, table in FAMILIES:
            if matches(op.name) and name in table:
                text = table[name]
                break
    if text is None:
        text = (INPUTS if is_input else ATTRS).get(name)
    return text


# how `gluonlite.ops.attrs` kinds read in a sentence
_KINDS = {"int": "An int", "float": "A float", "bool": "A bool", "str": "A string",
          "shape": "A tuple of ints", "axis": "An int or a tuple of ints", "dtype": "A dtype",
          "enum": "A string", "list": "A list of ints", "floats": "A tuple of floats",
          "tuple": "A tuple of numbers", "any": "Any value"}


def kind_text(attr):
    """The kind and default of `gluonlite.ops.attrs.Attr` `attr` as a sentence, written after
    an argument's meaning (napoleon would read a parenthesized type as names to
    cross-reference).

    Example::

        from gluonlite.ops.attrs import Int, Shape
        from gluonlite.ops.arg_docs import kind_text
        kind_text(Shape())      # 'A tuple of ints; required.'
        kind_text(Int(1))       # 'An int; default 1.'
    """
    default = "required" if attr.default is REQUIRED else "default %r" % (attr.default,)
    kind = _KINDS.get(attr.kind)
    return "%s; %s." % (kind, default) if kind else default[0].upper() + default[1:] + "."


def _inputs(op):
    if op.variadic:
        return []
    return list(op.signature)


# The generated functions of every operator are made at import: each part below is built
# once per operator (or once) and shared by the front ends.
_OPERATOR_LINES = {}


def _operator_lines(op):
    """The wrapped entries of `op`'s inputs (``{array}`` standing for the front end's array
    type) and attributes, and the names they take."""
    cached = _OPERATOR_LINES.get(op.name)
    if cached is not None and cached[0] is op:
        return cached[1], cached[2]
    lines = []
    if op.variadic:
        group = op.variadic_group
        first = group(1) if callable(group) else [n + "_0" for n in group or ()]
        what = ("the arrays, %s, ..." % ", ".join(first)) if first else "the input arrays"
        lines.append("    *data ({array}): %s, by position." % what)
    taken = set(_inputs(op))
    for name in _inputs(op):
        text = describe(op, name, True) or "an input of the operator (see the summary line)."
        lines.append("    %s ({array}): %s" % (name, text))
    for name, attr in op.attrs.items():
        if name.startswith("__") or name in taken:
            continue
        taken.add(name)
        text = describe(op, name, False) or "see the summary line."
        lines.append("    %s: %s %s" % (name, text, kind_text(attr)))
    lines = [wrap(line) for line in lines]
    _OPERATOR_LINES[op.name] = (op, lines, taken)
    return lines, taken


_OWN = {
    "nd": [("out", "    out (NDArray): the array to write the result into (a list with several "
                   "outputs); default None: new arrays."),
           ("name", "    name (str): accepted for MXNet's signature; nd keeps no names."),
           ("ctx", "    ctx (Context): the device of an array-making operator's result "
                   "(default: the inputs', or the current context).")],
    "sym": [("name", "    name (str): the node's name (default: the name manager's next, such "
                     "as ``{node}0``)."),
            ("attr", "    attr (dict): string attributes kept on the node (``__lr_mult__``, "
                     "``ctx_group``, ...)."),
            ("ctx", "    ctx (Context): the device of an array-making operator's result."),
            ("out", "    out: accepted so that nd calls run unchanged; a graph has no output "
                    "arrays.")],
}
_RETURNS = {
    "nd": ("NDArray: the result, or a list of NDArrays for an operator with several outputs "
           "(`out` itself when given)."),
    "sym": "Symbol: the operator's node; a grouped Symbol for an operator with several outputs.",
}
_RAISES = ("Raises:",
           "    TypeError: an unknown or missing argument, or an array where an attribute goes "
           "(an MXNetError too).",
           "    ValueError: an attribute value that does not parse, or inputs whose shapes or "
           "types the operator does not accept (an MXNetError too).")


def sections(op, front, public_name):
    """The ``Args:``, ``Returns:`` and ``Raises:`` sections of generated function
    `public_name` of `front` ('nd' or 'sym') for operator `op`, as one string.

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.arg_docs import sections
        print(sections(registry.get("clip"), "nd", "clip").splitlines()[1])
        #     data (NDArray): the input array.
    """
    array = "NDArray" if front == "nd" else "Symbol"
    entries, taken = _operator_lines(op)
    lines = ["Args:"] + [line.replace("{array}", array) for line in entries]
    node = public_name.lower().lstrip("_")
    lines += [line.replace("{node}", node) for name, line in _OWN_WRAPPED[front]
              if name not in taken]
    lines += ["", "Returns:", _RETURNS_WRAPPED[front]]
    if "Raises:" not in (op.__doc__ or ""):
        lines += ["", _RAISES_WRAPPED]
    return "\n".join(lines)


def wrap(line, width=92):
    """An ``Args:`` entry `line` folded to `width` characters at spaces, its continuation
    lines indented 4 more than it. (`textwrap` does the same a dozen times slower, and a
    few thousand entries are folded at import.)

    Example::

        from gluonlite.ops.arg_docs import wrap
        print(wrap("    axis: " + "the axis it works along; " * 3, width=40))
        #     axis: the axis it works along; the
        #         axis it works along; the axis it
        #         works along;
    """
    if len(line) <= width:
        return line
    words = line.split()
    margin = len(line) - len(line.lstrip())
    out, current = [], " " * margin + words[0]
    for word in words[1:]:
        if len(current) + 1 + len(word) > width:
            out.append(current)
            current = " " * (margin + 4) + word
        else:
            current += " " + word
    out.append(current)
    return "\n".join(out)


class _Required:
    def __repr__(self):
        return "<required>"


_REQUIRED = _Required()


def signature(op, front):
    """The `inspect.Signature` generated function of `front` ('nd' or 'sym') shows for `op`:
    its inputs (default None), its attributes with their defaults, then the front end's own
    arguments, as MXNet's generated functions show theirs.

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.arg_docs import signature
        str(signature(registry.get("clip"), "nd"))
        # '(data=None, a_min=<required>, a_max=<required>, *, out=None, name=None, ctx=None)'
    """
    cached = _SIGNATURES.get((op.name, front))
    if cached is not None and cached[0] is op:
        return cached[1]
    P = inspect.Parameter
    params = []
    if op.variadic:
        params.append(P("data", P.VAR_POSITIONAL))
        kind = P.KEYWORD_ONLY
    else:
        params += [P(n, P.POSITIONAL_OR_KEYWORD, default=None) for n in op.signature]
        kind = P.POSITIONAL_OR_KEYWORD
    taken = {p.name for p in params}
    for name, attr in op.attrs.items():
        if not name.startswith("__") and name.isidentifier() and not keyword.iskeyword(name) \
                and name not in taken:
            default = _REQUIRED if attr.default is REQUIRED else attr.default
            params.append(P(name, kind, default=default))
            taken.add(name)
    params += [p for p in _OWN_PARAMETERS[front] if p.name not in taken]
    sig = inspect.Signature(params, __validate_parameters__=False)
    _SIGNATURES[(op.name, front)] = (op, sig)
    return sig


_SIGNATURES = {}
# ({node} is one word: wrapping before filling it in keeps the lines near the width)
_OWN_WRAPPED = {front: [(name, wrap(line)) for name, line in lines]
                for front, lines in _OWN.items()}
_RETURNS_WRAPPED = {front: wrap("    " + text) for front, text in _RETURNS.items()}
_RAISES_WRAPPED = "\n".join(wrap(line) for line in _RAISES)
_OWN_PARAMETERS = {front: [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
                           for name, _ in lines] for front, lines in _OWN.items()}
