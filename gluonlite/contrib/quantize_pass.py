"""The graph pass behind `mx.contrib.quantization`: rewrite a float32 `Symbol` into one that
runs int8/uint8 operators, and write calibrated ranges into such a graph.

`quantize_symbol` follows MXNet 1.9.1's QuantizeGraph pass, node names included, since
saved models and tests read them:

- a quantizable node ``conv`` becomes ``quantized_conv`` (operator from `QUANTIZABLE`, same
  attributes), followed by ``requantize_conv`` when its int32 output must be brought back
  to 8 bits;
- a float entry read by a quantized node goes through a ``_contrib_quantize_v2`` node named
  ``<src>_quantize`` (a variable), ``<src>_<output name>_quantize`` (an operator that names
  its outputs, e.g. ``pool_output_quantize``) or ``<src>_<k>_quantize`` (one that does not,
  e.g. ``split_0_quantize``);
- a quantized entry read by a float node or returned by the graph goes through
  ``<src>_dequantize``;
- the quantize node of a variable listed in `offline_params` is replaced by three variables,
  ``<name>_quantize``, ``<name>_quantize_min`` and ``<name>_quantize_max``, which
  `gluonlite.contrib.quantization._quantize_params` fills.

The result also lists the float entries whose ranges calibration must measure (the
"calibration layers"), under the names the executor's monitor reports them (`Node.output_name`).

Example::

    from gluonlite.contrib.quantize_pass import quantize_symbol
    x = sym.var('data')
    y = sym.FullyConnected(sym.Convolution(x, kernel=(1, 1), num_filter=2, name='conv'),
                           num_hidden=3, name='fc')
    qsym, calib = quantize_symbol(y, offline_params=['conv_weight', 'conv_bias'])
    calib   # ['data', 'conv_output', 'fc_weight', 'fc_bias', 'fc_output']: fc's are online
"""
import logging
import os
from collections import namedtuple

import numpy as np

from ..base import MXNetValueError
from ..ops import registry
from ..symbol.symbol import Node, Symbol, topo_nodes

__all__ = ["Quantizable", "QUANTIZABLE", "quantize_symbol", "set_calib_table",
           "QUANTIZE_OP", "REQUANTIZE_OP", "DEQUANTIZE_OP", "QUANTIZED_BN_OP", "QUANTIZE_ASYM_OP",
           "QUANTIZED_RNN_OP"]

QUANTIZE_OP = "_contrib_quantize_v2"
REQUANTIZE_OP = "_contrib_requantize"
DEQUANTIZE_OP = "_contrib_dequantize"
QUANTIZED_BN_OP = "_contrib_quantized_batch_norm"
QUANTIZE_ASYM_OP = "_contrib_quantize_asym"
QUANTIZED_RNN_OP = "_contrib_quantized_rnn"

Quantizable = namedtuple("Quantizable", ["op", "quantized", "must", "requantize", "float_inputs",
                                         "when", "asym_inputs", "float_outputs", "attrs"],
                         defaults=((), False, None))
Quantizable.__doc__ = """One row of `QUANTIZABLE`: how nodes of float32 operator ``op`` are
quantized.

Attributes:
    op: the float32 operator's name.
    quantized: the operator that replaces it (inputs: its data inputs, then a min and a max
        per quantized input; outputs: data, min, max).
    must: True where MXNet marks the operator ``kMust`` (always quantized, also in 'smart'
        mode); False for ``kSupport`` (in 'smart' mode only between two ``kMust`` nodes).
    requantize: whether the quantized operator's int32 output is followed by a
        ``_contrib_requantize`` node.
    float_inputs: the input positions that stay float (no quantize node, no min/max pair).
    when: None, or a predicate on the node's parsed attributes: a node that fails it is not
        quantizable.
    asym_inputs: the input positions quantized by ``_contrib_quantize_asym`` (uint8 with a
        scale and a shift, passed where the min and max would be) instead of
        ``_contrib_quantize_v2`` (default none).
    float_outputs: whether the quantized operator's outputs are float32 already: no
        dequantize node after it, and a quantize node before a quantized consumer
        (default False).
    attrs: attributes the quantized node gets besides the float node's (default none).

Example::

    from gluonlite.contrib.quantize_pass import QUANTIZABLE
    QUANTIZABLE['BatchNorm'].float_inputs   # (1, 2, 3, 4): gamma, beta and the statistics
"""

QUANTIZABLE = {row.op: row for row in [
    Quantizable("Convolution", "_contrib_quantized_conv", True, True, (), None),
    Quantizable("FullyConnected", "_contrib_quantized_fully_connected", True, True, (), None),
    Quantizable("Pooling", "_contrib_quantized_pooling", False, False, (),
                lambda p: p.pool_type in ("max", "avg")),
    Quantizable("Activation", "_contrib_quantized_act", False, False, (),
                lambda p: p.act_type == "relu"),
    Quantizable("Flatten", "_contrib_quantized_flatten", False, False, (), None),
    Quantizable("Concat", "_contrib_quantized_concat", False, False, (), lambda p: p.dim > 0),
    Quantizable("elemwise_add", "_contrib_quantized_elemwise_add", False, True, (), None),
    Quantizable("elemwise_mul", "_contrib_quantized_elemwise_mul", False, True, (), None),
    Quantizable("BatchNorm", QUANTIZED_BN_OP, False, False, (1, 2, 3, 4), None),
    Quantizable("Embedding", "_contrib_quantized_embedding", False, False, (0,),
                lambda p: np.dtype(p.dtype) == np.float32),
    # the int8 LSTM: uint8 data with a scale and shift; parameters and states stay float32,
    # and so do its outputs
    Quantizable("RNN", QUANTIZED_RNN_OP, True, False, (1, 2, 3),
                lambda p: p.mode == "lstm" and p.projection_size is None
                and p.lstm_state_clip_min is None and not p.use_sequence_length,
                asym_inputs=(0,), float_outputs=True, attrs={"quantized": "true"}),
]}

# the quantized operators MXNet 1.9.1 computes on a GPU (without MKL-DNN, its CPU build
# computes none of them, and with it all: gluonlite's CPU is the latter)
_GPU_QUANTIZED = frozenset(("_contrib_quantized_conv", "_contrib_quantized_fully_connected",
                            "_contrib_quantized_pooling", "_contrib_quantized_flatten"))

# the float32 operators whose outputs MXNet names (FListOutputNames, or the legacy
# operators' ListOutputs): a quantize node for their output k is named after that name
# (``pool_output_quantize``, ``split_output1_quantize``), for the others after k
# (``reshape_0_quantize``)
_NAMED_OUTPUTS = frozenset((
    "Activation", "BatchNorm", "_contrib_BatchNormWithReLU", "Concat", "Convolution",
    "Deconvolution", "Dropout", "FullyConnected", "GroupNorm", "LayerNorm", "LeakyReLU", "LRN",
    "Pooling", "RNN", "SoftmaxOutput", "softmax", "log_softmax", "softmin", "SoftmaxActivation",
    "UpSampling", "elemwise_add", "make_loss", "CTCLoss", "im2col", "col2im", "Custom",
    "_contrib_ROIAlign", "_contrib_RROIAlign", "_contrib_index_array", "_contrib_hawkesll",
    "_contrib_interleaved_matmul_selfatt_qk", "_contrib_interleaved_matmul_selfatt_valatt",
    "_contrib_interleaved_matmul_encdec_qk", "_contrib_interleaved_matmul_encdec_valatt",
    # legacy operators
    "BatchNorm_v1", "BilinearSampler", "Convolution_v1", "Correlation", "Crop", "GridGenerator",
    "IdentityAttachKLSparseReg", "InstanceNorm", "L2Normalization", "MakeLoss", "Pad",
    "Pooling_v1", "ROIPooling", "SVMOutput", "SequenceLast", "SequenceMask", "SequenceReverse",
    "SliceChannel", "SpatialTransformer", "SwapAxis", "_contrib_DeformableConvolution",
    "_contrib_DeformablePSROIPooling", "_contrib_MultiBoxDetection", "_contrib_MultiBoxPrior",
    "_contrib_MultiBoxTarget", "_contrib_MultiProposal", "_contrib_PSROIPooling",
    "_contrib_Proposal", "_contrib_SyncBatchNorm", "_contrib_count_sketch", "_contrib_fft",
    "_contrib_ifft"))

_LOG = logging.getLogger(__name__)


def _quantize_suffix(src, index):
    """What names the quantize node of entry ``(src, index)`` after ``src.name``."""
    if src.op is None:
        return ""
    if src.op.name in _NAMED_OUTPUTS:
        names = src.op.output_names(src.params)
        if index < len(names):
            return "_" + names[index]
    return f"_{index}"


def _new_node(op_name, name, attrs, inputs, source=""):
    """A node of registered operator `op_name` keeping `attrs` as its attribute strings
    (those the operator does not take are kept but not parsed, as MXNet keeps a node's
    extra attributes)."""
    op = registry.get(op_name)
    given = {k: v for k, v in attrs.items()
             if k in op.attrs or (k.startswith("__") and k.endswith("__"))}
    params, _ = op.parse(given)
    return Node(op, name, attrs, params, inputs, source)


def _rule_for(node, device, excluded_names, excluded_ops):
    """The `Quantizable` row for `node`, or None when it is not to be quantized."""
    if node.op is None:
        return None
    row = QUANTIZABLE.get(node.op.name)
    if row is None:
        return None
    if not registry.exists(row.quantized) or (device == "gpu"
                                                and row.quantized not in _GPU_QUANTIZED):
        _LOG.info("%s is not quantized: gluonlite has no %s operator for %s", node.name,
                  row.quantized, device)
        return None
    if node.name in excluded_names or node.op.name in excluded_ops:
        return None
    if any(n.op is not None and n.name in excluded_names
           for sub in node.subgraphs for n in topo_nodes(sub.outputs)):
        return None
    if row.when is not None and not row.when(node.params):
        _LOG.info("%s is not quantized: %s supports no such attributes (%s)", node.name,
                  row.quantized, node.attrs)
        return None
    return row


def _smart_selection(order, rules):
    """The nodes (ids) 'smart' mode quantizes: every ``must`` node, and each other
    quantizable node that lies on a path of quantizable nodes between two ``must`` nodes
    (reached both from a ``must`` node's inputs and from a ``must`` node's consumers)."""
    consumers = {}
    for n in order:
        for src, _ in n.inputs:
            consumers.setdefault(id(src), []).append(n)
    must = [n for n in order if id(n) in rules and rules[id(n)].must]

    def reach(neighbours):
        seen, stack = set(), list(must)
        while stack:
            for nb in neighbours(stack.pop()):
                if id(nb) in rules and not rules[id(nb)].must and id(nb) not in seen:
                    seen.add(id(nb))
                    stack.append(nb)
        return seen

    from_input = reach(lambda n: [src for src, _ in n.inputs])
    from_output = reach(lambda n: consumers.get(id(n), []))
    return {id(n) for n in must} | (from_input & from_output)


def quantize_symbol(sym, excluded_names=(), excluded_ops=(), offline_params=(),
                    quantized_dtype="int8", quantize_mode="smart",
                    quantize_granularity="tensor-wise", device="cpu"):
    """The quantized graph of float32 graph `sym` and its calibration layers (MXNet's
    QuantizeGraph pass; see the module docstring for the names it gives).

    Args:
        sym: the float32 `Symbol` (left unchanged).
        excluded_names: node names never quantized.
        excluded_ops: operator names (``'Convolution'``) never quantized.
        offline_params: variable names whose quantized values are given as parameters
            (their quantize nodes become variables).
        quantized_dtype: ``'int8'``, ``'uint8'`` or ``'auto'``: the ``out_type`` of the
            quantize and requantize nodes.
        quantize_mode: ``'full'`` quantizes every quantizable node; ``'smart'`` the
            ``must`` ones (convolution, fully connected) and the others only between two of
            those.
        quantize_granularity: ``'tensor-wise'`` or ``'channel-wise'`` (the latter changes
            nothing for the operators of `QUANTIZABLE`; a GPU does not take it).
        device: ``'cpu'`` or ``'gpu'``: which quantized operators exist there.

    Returns:
        (Symbol, list of str): the quantized graph, and the names (see `Node.output_name`) of the
        float entries whose ranges calibration measures, in graph order.

    Raises:
        MXNetValueError: an unknown `quantize_mode`; channel-wise quantization for a GPU.

    Example::

        from gluonlite.contrib.quantize_pass import quantize_symbol
        y = sym.Convolution(sym.var('data'), kernel=(1, 1), num_filter=2, name='conv')
        qsym, calib = quantize_symbol(y, quantize_mode='full')
        qsym.list_outputs()   # ['conv_dequantize_output']
    """
    if device == "gpu" and quantize_granularity == "channel-wise":
        raise MXNetValueError("`channel-wise` quantization option is not supported yet by GPU, "
                              "please set quantize_granularity to `tensor-wise` when "
                              "quantizing model.")
    if quantize_mode not in ("full", "smart"):
        raise MXNetValueError(f"unrecognized quantize mode: {quantize_mode} (expected 'full' "
                              "or 'smart')")
    excluded_names, excluded_ops = set(excluded_names), set(excluded_ops)
    order = topo_nodes(sym.outputs)
    rules = {}
    for n in order:
        row = _rule_for(n, device, excluded_names, excluded_ops)
        if row is not None:
            rules[id(n)] = row
    if quantize_mode == "smart":
        keep = _smart_selection(order, rules)
        rules = {k: v for k, v in rules.items() if k in keep}
    verbose = os.environ.get("MXNET_QUANTIZATION_VERBOSE", "0") not in ("", "0")

    mirror = {}      # id(float node) -> the node standing for it in the new graph
    reverse = {}     # id(new node) -> the float node it stands for
    quantizers = {}  # (id(float node), index, asym) -> the quantize node made for that entry

    def int8_out(src):
        """Whether the new graph's node for `src` gives quantized (data, min, max) triples."""
        row = rules.get(id(src))
        return row is not None and not row.float_outputs

    def quantizer(src, k, asym=False):
        key = (id(src), k, asym)
        if key not in quantizers:
            m = mirror[id(src)]
            entry = (m, k)
            if int8_out(src):
                # MXNet wires the int8 output into quantize_asym's place, and its graph then
                # fails type inference: here it is dequantized first
                if m.op.name != DEQUANTIZE_OP:
                    m = dequantizer(src, k)
                    mirror[id(src)], reverse[id(m)] = m, src
                entry = (m, 0)
            name = src.name + _quantize_suffix(src, k) + "_quantize"
            quantizers[key] = _new_node(QUANTIZE_ASYM_OP, name, {}, [entry]) if asym else \
                _new_node(QUANTIZE_OP, name, {"out_type": quantized_dtype}, [entry])
        return quantizers[key]

    def range_entries(src, k, asym=False):
        """(min entry, max entry) of float32 entry ``(src, k)`` as quantized (with
        `asym`, the scale and shift entries of its quantize_asym node)."""
        if asym or not int8_out(src):
            q = quantizers[(id(src), k, asym)]
            return (q, 1), (q, 2)
        m = mirror[id(src)]
        if m.op.name == DEQUANTIZE_OP:
            m = m.inputs[0][0]
        first = m.num_visible() - 2 + 2 * k
        return (m, first), (m, first + 1)

    def dequantizer(src, k):
        m = mirror[id(src)]
        lo, hi = range_entries(src, k)
        return _new_node(DEQUANTIZE_OP, src.name + "_dequantize", {}, [(m, k), lo, hi])

    for n in order:
        row = rules.get(id(n))
        if row is None:
            if verbose and n.op is not None:
                _LOG.info("%s is NOT quantized.", n.name)
            ins = []
            for src, k in n.inputs:
                m = mirror[id(src)]
                if int8_out(src) and m.op.name != DEQUANTIZE_OP:
                    dq = dequantizer(src, k)
                    mirror[id(src)] = dq
                    reverse[id(dq)] = src
                    ins.append((dq, 0))
                elif (id(src), k, False) in quantizers:
                    ins.append(quantizers[(id(src), k, False)].inputs[0])
                else:
                    ins.append((m, k))
            new = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
        else:
            if verbose:
                _LOG.info("%s is quantized.", n.name)
            data, ranges = [], []
            for i, (src, k) in enumerate(n.inputs):
                m = mirror[id(src)]
                asym = i in row.asym_inputs
                if i in row.float_inputs:
                    data.append((m, k))
                    continue
                if asym or not int8_out(src):
                    data.append((quantizer(src, k, asym), 0))
                elif m.op.name == DEQUANTIZE_OP:
                    data.append((m.inputs[0][0], k))
                else:
                    data.append((m, k))
                ranges.extend(range_entries(src, k, asym))
            new = _new_node(row.quantized, "quantized_" + n.name,
                            dict(n.attrs, **(row.attrs or {})), data + ranges, n.source)
            if row.requantize:
                new = _new_node(REQUANTIZE_OP, "requantize_" + n.name,
                                {"out_type": quantized_dtype}, [(new, i) for i in range(3)])
        mirror[id(n)] = new
        reverse[id(new)] = n

    heads, head_dequantizers = [], {}
    for node, k in sym.outputs:
        m = mirror[id(node)]
        if not int8_out(node):
            heads.append((m, k))
        elif m.op.name == DEQUANTIZE_OP:
            # a float consumer already made it (MXNet would build a second, broken one)
            heads.append((m, 0))
        else:
            if (id(node), k) not in head_dequantizers:
                first = node.num_visible() + 2 * k
                head_dequantizers[(id(node), k)] = _new_node(
                    DEQUANTIZE_OP, node.name + "_dequantize", {},
                    [(m, k), (m, first), (m, first + 1)])
            heads.append((head_dequantizers[(id(node), k)], 0))

    _take_offline(heads, set(offline_params))
    return Symbol(heads), _calib_layers(heads, reverse)


def _take_offline(heads, offline):
    """Replace the quantize node of each variable in `offline` by the variables
    ``<quantize node>``, ``<quantize node>_min`` and ``<quantize node>_max`` (in place: the
    nodes are the pass's own)."""
    made = {}
    for n in topo_nodes(heads):
        for i, (src, k) in enumerate(n.inputs):
            if src.op is not None and src.op.name == QUANTIZE_OP and \
                    src.inputs[0][0].op is None and src.inputs[0][0].name in offline:
                if (id(src), k) not in made:
                    made[(id(src), k)] = Node(None, src.name + ("", "_min", "_max")[k])
                n.inputs[i] = (made[(id(src), k)], 0)


def _calib_layers(heads, reverse):
    """The float entries calibration measures, by `Node.output_name`, in graph order: the input of
    each quantize and requantize node, and the output of each quantized BatchNorm."""
    names = []
    for n in topo_nodes(heads):
        if n.op is None:
            continue
        if n.op.name in (QUANTIZE_OP, QUANTIZE_ASYM_OP, REQUANTIZE_OP):
            src, k = n.inputs[0]
            if id(n) in reverse:
                names.append(reverse[id(n)].output_name(k))
            elif src.op is None:
                names.append(src.name)
            elif id(src) in reverse:
                names.append(reverse[id(src)].output_name(k))
            else:
                raise MXNetValueError(f"quantize_symbol: can't find calibration node for "
                                      f"{n.name}")
        elif n.op.name == QUANTIZED_BN_OP:
            names.append(reverse.get(id(n), n).output_name(0))
    return names


def set_calib_table(qsym, table, logger=None):
    """A copy of quantized graph `qsym` whose quantize, requantize and quantized BatchNorm
    nodes carry the calibrated range of the entry they quantize (MXNet's
    SetCalibTableToQuantizedGraph).

    Each such node looks its entry up in `table` by `Node.output_name`, a ``quantized_`` prefix
    dropped (``quantized_conv_output`` is looked up as ``conv_output``), and when found gets
    the attributes ``min_calib_range`` and ``max_calib_range``, written as C's ``%f`` of the
    float32 values (six decimals). Other nodes are copied unchanged.

    Args:
        qsym: a graph made by `quantize_symbol` (left unchanged).
        table: {layer name: (min, max)}; values may be numbers or one-element arrays.
        logger: where to report each node set or not found (when the environment
            variable ``MXNET_QUANTIZATION_VERBOSE`` is set); default this module's logger.

    Returns:
        Symbol: the calibrated graph.

    Example::

        from gluonlite.contrib.quantize_pass import quantize_symbol, set_calib_table
        y = sym.Convolution(sym.var('data'), kernel=(1, 1), num_filter=2, name='conv')
        qsym, calib = quantize_symbol(y, quantize_mode='full')
        c = set_calib_table(qsym, {'conv_output': (-1.0, 2.5)})
        c.attr_dict()['requantize_conv']['max_calib_range']   # '2.500000'
    """
    logger = logger or _LOG
    verbose = os.environ.get("MXNET_QUANTIZATION_VERBOSE", "0") not in ("", "0")
    ranges = {str(k): (_as_float32(v[0]), _as_float32(v[1])) for k, v in table.items()}
    copies = {}
    for n in topo_nodes(qsym.outputs):
        ins = [(copies[id(s)], k) for s, k in n.inputs]
        key = _calibrated_entry(n)
        if key is not None and key not in ranges and verbose:
            logger.info("Can't find calibration result for %s", n.name)
        if key is None or key not in ranges:
            copies[id(n)] = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
            continue
        lo, hi = ranges[key]
        if verbose:
            logger.info("Set calibration result to %s : min=%f max=%f", n.name, lo, hi)
        attrs = dict(n.attrs, min_calib_range="%f" % lo, max_calib_range="%f" % hi)
        copies[id(n)] = _new_node(n.op.name, n.name, attrs, ins, n.source)
    return Symbol([(copies[id(n)], k) for n, k in qsym.outputs])


def _calibrated_entry(node):
    """The calibration table key of the entry whose range `node` takes (None for a node
    that takes none): the input of a quantize or requantize node, the output of a quantized
    BatchNorm, named by `Node.output_name` without a ``quantized_`` prefix."""
    if node.op is None:
        return None
    if node.op.name in (QUANTIZE_OP, QUANTIZE_ASYM_OP, REQUANTIZE_OP):
        src, k = node.inputs[0]
    elif node.op.name == QUANTIZED_BN_OP:
        src, k = node, 0
    else:
        return None
    key = src.output_name(k)
    return key[len("quantized_"):] if src.name.startswith("quantized_") else key


def _as_float32(v):
    """A calibration bound as the float32 value MXNet's C API receives."""
    return float(np.float32(np.asarray(v, dtype=np.float64).reshape(-1)[0]))
