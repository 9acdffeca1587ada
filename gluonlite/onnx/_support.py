"""Why each registry operator without a converter does not export (the table of the README's
ONNX section and of `mx.onnx.not_exported`); a test keeps it complete.

The NumPy dialect's operators (``_np_*``, ``_npi_*``, ``_npx_*``) are one entry by their
prefix, `NP_DIALECT`, rather than a list: the dialect registers them when `gluonlite.numpy`
loads, and none has a converter, as none has in MXNet 1.9.1's exporter."""

TRAINING = "a training step (optimizer update or gradient bookkeeping): an exported model infers"
RANDOM = ("draws random numbers: ONNX's generators draw different ones, so the model would not "
          "reproduce gluonlite's")
NO_OP = "no ONNX operator computes it (opset 13-18)"

_GROUPS = [
    (TRAINING, ("_sparse_adagrad_update", "_contrib_group_adagrad_update", "_adamw_update",
                "_mp_adamw_update", "adam_update", "ftml_update", "ftrl_update",
                "lamb_update_phase1", "lamb_update_phase2", "mp_lamb_update_phase1",
                "mp_lamb_update_phase2", "mp_nag_mom_update", "mp_sgd_mom_update",
                "mp_sgd_update", "multi_mp_sgd_mom_update", "multi_mp_sgd_update",
                "multi_sgd_mom_update", "multi_sgd_update", "nag_mom_update", "rmsprop_update",
                "rmspropalex_update", "sgd_mom_update", "sgd_update", "signsgd_update",
                "signum_update", "reset_arrays", "all_finite", "multi_all_finite", "multi_lars",
                "multi_sum_sq", "CTCLoss", "softmax_cross_entropy", "_multi_adamw_update",
                "_multi_lamb_update", "_multi_mp_adamw_update", "_multi_mp_lamb_update",
                "preloaded_multi_mp_sgd_mom_update", "preloaded_multi_mp_sgd_update",
                "preloaded_multi_sgd_mom_update", "preloaded_multi_sgd_update")),
    (RANDOM, ("_random_exponential", "_random_exponential_like", "_random_gamma",
              "_random_gamma_like", "_random_generalized_negative_binomial",
              "_random_generalized_negative_binomial_like", "_random_negative_binomial",
              "_random_negative_binomial_like", "_random_normal", "_random_normal_like",
              "_random_poisson", "_random_poisson_like", "_random_randint", "_random_uniform",
              "_random_uniform_like", "_sample_exponential", "_sample_gamma",
              "_sample_generalized_negative_binomial", "_sample_multinomial",
              "_sample_negative_binomial", "_sample_normal", "_sample_poisson",
              "_sample_uniform", "_sample_unique_zipfian", "_shuffle",
              "_image_random_brightness", "_image_random_color_jitter",
              "_image_random_contrast", "_image_random_flip_left_right",
              "_image_random_flip_top_bottom", "_image_random_hue", "_image_random_lighting",
              "_image_random_saturation")),
    (NO_OP, ("gamma", "gammaln", "erfinv", "_random_pdf_dirichlet", "_random_pdf_gamma",
             "_random_pdf_generalized_negative_binomial", "_random_pdf_negative_binomial",
             "_random_pdf_poisson", "_linalg_potrf", "_linalg_potri", "_linalg_gelqf",
             "_linalg_syevd", "_linalg_inverse", "_linalg_trsm", "_linalg_slogdet",
             "_contrib_fft", "_contrib_ifft", "_histogram", "_contrib_count_sketch",
             "_contrib_hawkesll")),
    ("reads or makes sparse storage (csr, row_sparse), which ONNX tensors do not have",
     ("cast_storage", "_sparse_retain", "_contrib_getnnz")),
    ("a DGL graph operator: it reads a graph stored as a csr matrix of edge ids (ONNX tensors "
     "have no sparse storage) and walks it vertex by vertex, with outputs whose stored edges "
     "depend on the values (the samplers also draw at random)",
     ("_contrib_edge_id", "_contrib_dgl_adjacency", "_contrib_dgl_subgraph",
      "_contrib_dgl_graph_compact", "_contrib_dgl_csr_neighbor_uniform_sample",
      "_contrib_dgl_csr_neighbor_non_uniform_sample")),
    ("a row_sparse weight gradient always (Embedding(sparse_grad=True) is refused the same "
     "way): sparse gradients have no ONNX form; export an Embedding",
     ("_contrib_SparseEmbedding",)),
    ("Python code run by the Custom operator: there is no graph to export", ("Custom",)),
    ("a region of an array overwritten (`x[begin:end:step] = v` as a graph node): ONNX has no "
     "strided region update; rebuilding it takes a scatter over the region's computed indices, "
     "not written", ("_slice_assign", "_slice_assign_scalar")),
    ("MXNet's NMS output (the boxes themselves, sorted, suppressed rows set to -1, in the input's "
     "layout) is not ONNX NonMaxSuppression's list of selected indices; rebuilding it takes a "
     "sort and a scatter per batch, not written", ("_contrib_box_nms",)),
    ("a detection step whose output is a data-dependent selection in MXNet's own layout (SSD "
     "and RPN targets and proposals, greedy matching, per-class suppression); ONNX's "
     "NonMaxSuppression returns indices, and rebuilding MXNet's rows is not written",
     ("_contrib_MultiBoxTarget", "_contrib_MultiBoxDetection", "_contrib_Proposal",
      "_contrib_MultiProposal", "_contrib_bipartite_matching")),
    ("anchor boxes that depend only on the input's shape: export the model after them (feed the "
     "anchors as a constant input); a converter is not written", ("_contrib_MultiBoxPrior",)),
    ("position-sensitive and deformable sampling: ONNX has no such pooling, and DeformConv "
     "arrives only in opset 19 (gluonlite exports opsets 13-18)",
     ("_contrib_PSROIPooling", "_contrib_DeformableConvolution",
      "_contrib_ModulatedDeformableConvolution", "_contrib_DeformablePSROIPooling")),
    ("pooling of rotated boxes: ONNX's RoiAlign takes axis-aligned boxes only",
     ("_contrib_RROIAlign",)),
    ("an int8 operator of mx.contrib.quantization, whose ranges travel as float inputs beside "
     "the integers: ONNX's QuantizeLinear and QLinear operators take a scale and zero point "
     "instead, and a converter is not written; export the float32 model",
     ("_contrib_quantize", "_contrib_quantize_v2", "_contrib_quantize_asym",
      "_contrib_dequantize", "_contrib_requantize", "_contrib_quantized_fully_connected",
      "_contrib_quantized_conv", "_contrib_quantized_pooling", "_contrib_quantized_flatten",
      "_contrib_quantized_act", "_contrib_quantized_concat", "_contrib_quantized_elemwise_add",
      "_contrib_quantized_elemwise_mul", "_contrib_quantized_embedding",
      "_contrib_quantized_batch_norm", "_contrib_quantized_rnn",
      "_contrib_calibrate_entropy")),
    ("a device plan's fused elementwise kernel (gluonlite.subgraph.fusion), made when a plan "
     "compiles for CuPy and never part of a graph a block exports", ("_fused_elementwise",)),
    ("MXNet's OpenCV preprocessing operators (mx.image's imresize and copyMakeBorder), run "
     "on data before a model, not inside one; a resize inside a graph is _image_resize",
     ("_cvimresize", "_cvcopyMakeBorder")),
]
NOT_EXPORTED = {name: why for why, names in _GROUPS for name in names}

NP_DIALECT = ("an operator of MXNet's NumPy dialect (mx.np, mx.npx): as MXNet 1.9.1's exporter, "
              "gluonlite's converts the legacy operators; write the model with nd/sym operators "
              "(as_nd_ndarray) to export it")
NP_PREFIXES = ("_np_", "_npi_", "_npx_")


def why_not_exported(name):
    """Why operator `name` does not export, or None where the table does not say (it may
    have a converter)."""
    return NOT_EXPORTED.get(name) or (NP_DIALECT if name.startswith(NP_PREFIXES) else None)
