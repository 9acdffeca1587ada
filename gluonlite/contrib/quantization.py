"""`mx.contrib.quantization` (also `mx.contrib.quant`): turn a float32 model into one that
computes with int8/uint8 operators, as MXNet 1.9.1 does.

The steps, each a function here:

1. rewrite the graph (`quantize_graph`, or `_quantize_symbol`): quantizable nodes become
   ``_contrib_quantized_*`` nodes between quantize, requantize and dequantize nodes (the pass
   and its node names are in `gluonlite.contrib.quantize_pass`);
2. optionally calibrate: run the float32 model on sample data while a collector records the
   range (``'naive'``: min and max) or the histogram (``'entropy'``: the threshold with the
   least KL divergence) of every entry the quantized graph quantizes, and write those ranges
   into the graph (`calib_graph`, or `_calibrate_quantized_sym`);
3. quantize the weights and biases ahead of time (`_quantize_params`).

`quantize_model` does all three for a Symbol and its parameters; `quantize_net` /
`quantize_net_v2` for a Gluon `HybridBlock`, returning a `SymbolBlock`.

Example::

    from gluonlite.contrib import quantization
    data = sym.var('data')
    fc = sym.FullyConnected(sym.Convolution(data, kernel=(1, 1), num_filter=4, name='conv'),
                            num_hidden=3, name='fc')
    mod = mx.mod.Module(fc, label_names=None)
    mod.bind([('data', (2, 3, 4, 4))]); mod.init_params()
    args, auxs = mod.get_params()
    qsym, qargs, qauxs = quantization.quantize_model(fc, args, auxs, label_names=None,
                                                     calib_mode='none', quantize_mode='full')
    sorted(qargs)[:3]   # ['conv_bias_quantize', 'conv_bias_quantize_max', 'conv_bias_quantize_min']
"""
try:
    from scipy import stats
except ImportError:  # entropy calibration says so when it is asked for
    stats = None

import ctypes
import logging
import os
import shutil
import tempfile
import warnings

import numpy as np

from .. import ndarray
from ..base import NDArrayHandle, py_str
from ..context import Context, cpu
from ..io import DataBatch, DataDesc, DataIter
from ..module import Module
from ..ndarray import NDArray
from ..ndarray import load as nd_load
from ..ndarray import save as nd_save
from ..symbol import Symbol
from ..symbol import load as sym_load
from . import quantize_pass

_QUANTIZED_DTYPES = ("int8", "uint8", "auto")
_GRANULARITIES = ("tensor-wise", "channel-wise")
# the subgraph backend MXNet runs before and after quantizing on a CPU (gluonlite.subgraph)
_CPU_BACKEND = "MKLDNN_QUANTIZE"


# ---- parameters ------------------------------------------------------------------------------

def _quantize_params(qsym, params, th_dict):
    """The parameters of quantized graph `qsym`: each ``<param>_quantize`` argument of a
    weight or bias is `params[<param>]` quantized to int8 (with its ``_min``/``_max``), each
    argument found in `params` is taken as it is, and each other ``<layer>_min``/``_max``
    argument is the calibrated bound of `<layer>` in `th_dict`.

    Args:
        qsym: the quantized `Symbol`.
        params: {name: NDArray} of the float32 arguments.
        th_dict: {layer name: (min, max)} from calibration ({} for none).

    Returns:
        dict: {argument name: NDArray}; arguments it has no value for are left out.

    Example::

        from gluonlite.contrib.quantization import _quantize_symbol, _quantize_params
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        qsym, _ = _quantize_symbol(y, mx.cpu(), offline_params=['fc_weight', 'fc_bias'],
                                   quantize_mode='full')
        w = nd.array([[0.5, -1.0], [0.25, 1.0]])
        q = _quantize_params(qsym, {'fc_weight': w, 'fc_bias': nd.zeros(2)}, {})
        q['fc_weight_quantize'].dtype   # int8
    """
    quantized = {}
    for name in qsym.list_arguments():
        if name.endswith(("weight_quantize", "bias_quantize")):
            param = params[name[:-len("_quantize")]]
            val, vmin, vmax = ndarray.contrib.quantize(data=param,
                                                       min_range=ndarray.min(param),
                                                       max_range=ndarray.max(param),
                                                       out_type="int8")
            quantized[name] = val
            quantized[name + "_min"] = vmin
            quantized[name + "_max"] = vmax
        elif name in params:
            quantized[name] = params[name]
        elif name.endswith(("_min", "_max")):
            layer = name[:-len("_min")]
            if layer in th_dict:
                bound = th_dict[layer][0 if name.endswith("_min") else 1]
                # shape (1,) also for a bound given as a one-element array (entropy's)
                quantized[name] = ndarray.array(np.asarray(bound, np.float32).reshape(-1)[:1])
    return quantized


def _quantize_symbol(sym, ctx, excluded_symbols=None, excluded_operators=None,
                     offline_params=None, quantized_dtype="int8", quantize_mode="smart",
                     quantize_granularity="tensor-wise"):
    """The quantized graph of float32 graph `sym` and its calibration layers (see
    `gluonlite.contrib.quantize_pass.quantize_symbol`).

    Args:
        sym: the float32 `Symbol`.
        ctx: the `Context` the graph is to run on (which quantized operators exist there).
        excluded_symbols: a list of node names not to quantize (None: none).
        excluded_operators: a list of operator names not to quantize (None: none).
        offline_params: names of the arguments quantized ahead of time (by
            `_quantize_params`) instead of by a quantize node.
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        quantize_mode: 'full' or 'smart'.
        quantize_granularity: 'tensor-wise' or 'channel-wise'.

    Returns:
        (Symbol, list of str): the quantized graph and the names of the layers whose output
        ranges calibration collects.

    Raises:
        ValueError: `excluded_symbols` or `excluded_operators` is not a list; an unknown
            `quantize_mode` (an MXNetError too, as MXNet's).

    Example::

        from gluonlite.contrib.quantization import _quantize_symbol
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        qsym, calib = _quantize_symbol(y, mx.cpu(), quantize_mode='full')
        calib   # ['data', 'fc_weight', 'fc_bias', 'fc_output']
    """
    for what, value in (("excluded_symbols", excluded_symbols),
                        ("excluded_operators", excluded_operators)):
        if value is not None and not isinstance(value, list):
            raise ValueError(f"_quantize_symbol: {what} must be a list of names, got "
                             f"{type(value).__name__}")
    return quantize_pass.quantize_symbol(
        sym, excluded_names=excluded_symbols or (), excluded_ops=excluded_operators or (),
        offline_params=offline_params or (), quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity,
        device=ctx.device_type)


def _calibrate_quantized_sym(qsym, th_dict):
    """`qsym` with the calibrated ranges of `th_dict` written into its quantize, requantize
    and quantized BatchNorm nodes (``min_calib_range``/``max_calib_range``), or `qsym`
    itself when `th_dict` is None or empty.

    Args:
        qsym: a graph made by `_quantize_symbol`.
        th_dict: {layer name: (min, max)}, the names as `_quantize_symbol` lists them.

    Returns:
        Symbol: a calibrated copy (`qsym` is not changed).

    Example::

        from gluonlite.contrib.quantization import _quantize_symbol, _calibrate_quantized_sym
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        qsym, _ = _quantize_symbol(y, mx.cpu(), quantize_mode='full')
        c = _calibrate_quantized_sym(qsym, {'fc_output': (-3.0, 3.0)})
        c.attr_dict()['requantize_fc']['min_calib_range']   # '-3.000000'
    """
    if not th_dict:
        return qsym
    return quantize_pass.set_calib_table(qsym, th_dict)


# ---- calibration: collecting layer statistics ---------------------------------------------------

def _monitored_array(arr):
    """The NDArray a monitor callback received: gluonlite's executor passes the array, MXNet's
    C callback a handle."""
    if isinstance(arr, NDArray):
        return arr
    return NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)


def combine_histogram(old_hist, arr, new_min, new_max, new_th):
    """Add the values of `arr` to histogram `old_hist`, widening it (by whole bins on both
    sides, so the old counts keep their bins) when `arr` reaches beyond it.

    Args:
        old_hist: ``(counts, edges, min, max, threshold)``: a histogram of symmetric range
            ``(-threshold, threshold)`` and the min and max of the values in it.
        arr: numpy array of new values.
        new_min: ``arr``'s minimum.
        new_max: ``arr``'s maximum.
        new_th: ``max(|new_min|, |new_max|)``.

    Returns:
        tuple: ``(counts, edges, min, max, threshold)`` of the combined histogram.

    Example::

        from gluonlite.contrib.quantization import combine_histogram
        counts, edges = np.histogram([0.5], bins=3, range=(-1, 1))
        h = combine_histogram((counts, edges, 0.5, 0.5, 1.0), np.array([-2.0]), -2.0, -2.0, 2.0)
        h[0].tolist(), h[4]   # ([1, 0, 0, 0, 1, 0, 0], 2.333...): two bins more each side
    """
    old_counts, old_edges, old_min, old_max, old_th = old_hist
    if new_th <= old_th:
        counts, _ = np.histogram(arr, bins=len(old_counts), range=(-old_th, old_th))
        return (old_counts + counts, old_edges, min(old_min, new_min),
                max(old_max, new_max), old_th)
    old_num_bins = len(old_counts)
    step = 2 * old_th / old_num_bins
    added = int((new_th - old_th) // step + 1)  # bins added on each side
    num_bins = 2 * added + old_num_bins
    th = added * step + old_th
    counts, edges = np.histogram(arr, bins=num_bins, range=(-th, th))
    counts[added:num_bins - added] += old_counts
    return counts, edges, min(old_min, new_min), max(old_max, new_max), th


class _LayerHistogramCollector:
    """A monitor callback that keeps a histogram of each included layer's values over the
    batches seen (``hist_dict[name] = (counts, edges, min, max, threshold)``), for entropy
    calibration.

    Args:
        num_bins: bins of a layer's first histogram (odd, so that 0 is a bin's centre).
        include_layer: the layer names to record (others are ignored).
        logger: a `logging.Logger` for debug messages, or None.

    Example::

        from gluonlite.contrib.quantization import _LayerHistogramCollector
        c = _LayerHistogramCollector(num_bins=5, include_layer=['fc_output'])
        c.collect('fc_output', nd.array([-1.0, 0.0, 2.0]))
        c.hist_dict['fc_output'][0].tolist()   # [0, 1, 1, 0, 1]
    """

    def __init__(self, num_bins=8001, include_layer=None, logger=None):
        self.hist_dict = {}
        self.num_bins = num_bins
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name, arr):
        """Add `arr` (an NDArray, or MXNet's handle to one) to the histogram of layer
        `name` when it is included."""
        name = py_str(name)
        if self.include_layer is None or name not in self.include_layer:
            return
        arr = _monitored_array(arr).copyto(cpu()).asnumpy()
        if self.logger:
            self.logger.debug("Collecting layer %s histogram of shape %s", name, arr.shape)
        lo, hi = np.min(arr), np.max(arr)
        th = max(abs(lo), abs(hi))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], arr, lo, hi, th)
        else:
            counts, edges = np.histogram(arr, bins=self.num_bins, range=(-th, th))
            self.hist_dict[name] = (counts, edges, lo, hi, th)


class _LayerOutputMinMaxCollector:
    """A monitor callback that keeps the min and max of each included layer's values over
    the batches seen (``min_max_dict[name] = (min, max)``), for naive calibration.

    Args:
        quantized_dtype: the quantized type ('int8', 'uint8' or 'auto'; kept, unused).
        include_layer: the layer names to record (others are ignored).
        logger: a `logging.Logger` for debug messages, or None.

    Example::

        from gluonlite.contrib.quantization import _LayerOutputMinMaxCollector
        c = _LayerOutputMinMaxCollector('int8', include_layer=['data'])
        c.collect('data', nd.array([1.0, 3.0])); c.collect('data', nd.array([-2.0]))
        c.min_max_dict['data']   # (-2.0, 3.0)
    """

    def __init__(self, quantized_dtype, include_layer=None, logger=None):
        self.min_max_dict = {}
        self.quantized_dtype = quantized_dtype
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name, arr):
        """Widen layer `name`'s range to hold `arr` (an NDArray, or MXNet's handle to one)
        when the layer is included."""
        name = py_str(name)
        if self.include_layer is None or name not in self.include_layer:
            return
        arr = _monitored_array(arr)
        lo, hi = ndarray.min(arr).asscalar(), ndarray.max(arr).asscalar()
        if name in self.min_max_dict:
            old_lo, old_hi = self.min_max_dict[name]
            self.min_max_dict[name] = (min(old_lo, lo), max(old_hi, hi))
        else:
            self.min_max_dict[name] = (lo, hi)
        if self.logger:
            self.logger.debug("Collecting layer %s min_range=%f, max_range=%f", name, lo, hi)


def _collect_layer_statistics(mod, data, collector, max_num_examples=None, logger=None):
    """Run bound module `mod` on the batches of `data` with `collector.collect` watching
    every entry (the executor's monitor), until `data` ends or `max_num_examples` examples
    were seen. `data` is not reset, before or after.

    Args:
        mod: a bound `Module` with parameters.
        data: a `DataIter`.
        collector: an object with ``collect(name, array)``.
        max_num_examples: stop once this many examples were run (None: the whole epoch).
        logger: a `logging.Logger`, or None.

    Returns:
        int: the number of examples run (whole batches).

    Raises:
        ValueError: `data` is not a DataIter.

    Example::

        from gluonlite.contrib.quantization import (_collect_layer_statistics,
                                                     _LayerOutputMinMaxCollector)
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(y, label_names=None)
        mod.bind([('data', (2, 3))], for_training=False); mod.init_params()
        c = _LayerOutputMinMaxCollector('int8', include_layer=['data'])
        _collect_layer_statistics(mod, mx.io.NDArrayIter(np.ones((4, 3)), batch_size=2), c)
        c.min_max_dict   # {'data': (1.0, 1.0)}
    """
    if not isinstance(data, DataIter):
        raise ValueError("Only supports data as a type of DataIter, while received type %s"
                         % str(type(data)))
    mod._exec_group.execs[0].set_monitor_callback(collector.collect, monitor_all=True)
    num_batches = num_examples = 0
    for batch in data:
        mod.forward(data_batch=_for_module(mod, batch), is_train=False)
        num_batches += 1
        num_examples += data.batch_size
        if max_num_examples is not None and num_examples >= max_num_examples:
            break
    if logger is not None:
        logger.info("Collected statistics from %d batches with batch_size=%d",
                    num_batches, data.batch_size)
    return num_examples


def _for_module(mod, batch):
    """`batch` with only the data arrays `mod` takes: a `_DataIterWrapper` over a loader of
    (data, label) pairs hands the label over as one more data array, which MXNet's module
    passes over and gluonlite's refuses."""
    n = len(mod.data_names)
    if batch.data is None or len(batch.data) <= n:
        return batch
    return DataBatch(data=list(batch.data)[:n], label=batch.label, pad=batch.pad,
                     index=batch.index)


def _collect_layer_output_min_max(mod, data, quantized_dtype, include_layer=None,
                                  max_num_examples=None, logger=None):
    """The min and max of each layer in `include_layer` over the batches of `data` (see
    `_collect_layer_statistics`).

    Args:
        mod: a bound `Module` with parameters.
        data: a `DataIter`.
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        include_layer: the layer names to record.
        max_num_examples: stop after this many examples (None: the whole epoch).
        logger: a `logging.Logger`, or None.

    Returns:
        (dict, int): {layer: (min, max)} and the number of examples run.

    Example::

        from gluonlite.contrib.quantization import _collect_layer_output_min_max
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(y, label_names=None)
        mod.bind([('data', (2, 3))], for_training=False); mod.init_params()
        it = mx.io.NDArrayIter(np.arange(12).reshape(4, 3), batch_size=2)
        _collect_layer_output_min_max(mod, it, 'int8', ['data'])   # ({'data': (0.0, 11.0)}, 4)
    """
    collector = _LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype,
                                            include_layer=include_layer, logger=logger)
    n = _collect_layer_statistics(mod, data, collector, max_num_examples, logger)
    return collector.min_max_dict, n


def _collect_layer_histogram(mod, data, include_layer=None, max_num_examples=None,
                             logger=None):
    """The histogram of each layer in `include_layer` over the batches of `data` (see
    `_collect_layer_statistics` and `_LayerHistogramCollector`).

    Args:
        mod: a bound `Module` with parameters.
        data: a `DataIter`.
        include_layer: the layer names to record.
        max_num_examples: stop after this many examples (None: the whole epoch).
        logger: a `logging.Logger`, or None.

    Returns:
        (dict, int): {layer: (counts, edges, min, max, threshold)} and the number of
        examples run.

    Example::

        from gluonlite.contrib.quantization import _collect_layer_histogram
        y = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(y, label_names=None)
        mod.bind([('data', (2, 3))], for_training=False); mod.init_params()
        it = mx.io.NDArrayIter(np.arange(12).reshape(4, 3), batch_size=2)
        hist, n = _collect_layer_histogram(mod, it, ['data'])
        hist['data'][4], n   # (11.0005, 4): the threshold (whole bins) and the examples
    """
    collector = _LayerHistogramCollector(include_layer=include_layer, logger=logger)
    n = _collect_layer_statistics(mod, data, collector, max_num_examples, logger)
    return collector.hist_dict, n


# ---- calibration: entropy thresholds -------------------------------------------------------------

def _smooth_distribution(p, eps=0.0001):
    """`p` (a histogram, not necessarily normalised) with each zero raised to `eps` and the
    same total taken evenly from the non-zero entries, so that a KL divergence against it is
    finite.

    Args:
        p: numpy array of non-negative counts.
        eps: the value given to each zero.

    Returns:
        numpy float32 array.

    Raises:
        ValueError: every entry of `p` is 0; `eps` so large that a non-zero entry would
            drop to 0 or below.

    Example::

        from gluonlite.contrib.quantization import _smooth_distribution
        _smooth_distribution(np.array([0.0, 1.0, 0.0]), eps=0.1)   # [0.1, 0.8, 0.1]
    """
    is_zeros = (p == 0).astype(np.float32)
    is_nonzeros = (p != 0).astype(np.float32)
    n_zeros = is_zeros.sum()
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError("The discrete probability distribution is malformed. All entries "
                         "are 0.")
    eps1 = eps * float(n_zeros) / float(n_nonzeros)
    if eps1 >= 1.0:
        raise ValueError(f"_smooth_distribution: eps={eps} takes {eps1:f} from each of the "
                         f"{int(n_nonzeros)} non-zero entries for the {int(n_zeros)} zeros; "
                         "it must take less than 1 (use a smaller eps)")
    hist = p.astype(np.float32)
    hist += eps * is_zeros + (-eps1) * is_nonzeros
    if (hist <= 0).sum():
        raise ValueError(f"_smooth_distribution: eps={eps} would leave non-positive entries; "
                         "use a smaller eps")
    return hist


def _get_optimal_threshold(hist_data, quantized_dtype, num_quantized_bins=255):
    """The threshold of the histogram window whose quantized copy diverges least (KL) from
    it (`nd.contrib.calibrate_entropy`).

    Args:
        hist_data: ``(counts, edges, min, max, threshold)`` with an odd number of bins.
        quantized_dtype: 'int8', 'uint8' or 'auto'; for values all >= 0 and 'uint8'/'auto'
            the window is quantized to ``2 * num_quantized_bins + 1`` bins.
        num_quantized_bins: bins of the quantized copy.

    Returns:
        tuple: ``(min, max, threshold, divergence)``, the last two float32 arrays of shape
        (1,).

    Raises:
        ValueError: an even number of bins.

    Example::

        from gluonlite.contrib.quantization import _get_optimal_threshold
        counts, edges = np.histogram(np.linspace(-1, 1, 1000), bins=2001, range=(-1, 1))
        _get_optimal_threshold((counts, edges, -1.0, 1.0, 1.0), 'int8')[2]   # about 1.0
    """
    counts, edges, min_val, max_val, _ = hist_data
    if len(counts) % 2 != 1:
        raise ValueError(f"_get_optimal_threshold: the histogram must have an odd number of "
                         f"bins (0 in the middle of one), got {len(counts)}")
    if min_val >= 0 and quantized_dtype in ("auto", "uint8"):
        # values >= 0 use the negative half's bins too
        num_quantized_bins = num_quantized_bins * 2 + 1
    threshold, divergence = ndarray.contrib.calibrate_entropy(
        hist=ndarray.array(counts, ctx=cpu()), hist_edges=ndarray.array(edges, ctx=cpu()),
        num_quantized_bins=num_quantized_bins)
    return min_val, max_val, threshold.asnumpy(), divergence.asnumpy()


def _get_optimal_thresholds(hist_dict, quantized_dtype, num_quantized_bins=255, logger=None):
    """The calibrated range of each layer of `hist_dict` by `_get_optimal_threshold`:
    ``(0, th)`` for values all >= 0 quantized to 'uint8' or 'auto', else ``(-th, th)``. Each
    layer's histogram is deleted from `hist_dict` once used (to free memory, as MXNet).

    Args:
        hist_dict: {layer: (counts, edges, min, max, threshold)}.
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        num_quantized_bins: bins of the quantized copy.
        logger: a `logging.Logger`, or None.

    Returns:
        dict: {layer: (min, max)}.

    Raises:
        ImportError: scipy is not installed (as MXNet requires it here).
        TypeError: `hist_dict` is not a dict.

    Example::

        from gluonlite.contrib.quantization import _get_optimal_thresholds
        x = np.random.uniform(-2, 3, size=1000)
        counts, edges = np.histogram(x, bins=8001, range=(-3, 3))
        th = _get_optimal_thresholds({'fc_output': (counts, edges, x.min(), x.max(), 3)}, 'int8')
        th['fc_output']   # about (-3, 3)
    """
    if stats is None:
        raise ImportError("scipy.stats is required for running entropy mode of calculating "
                          "the optimal thresholds for quantizing FP32 ndarrays into int8. "
                          "Please check if the scipy python bindings are installed.")
    if not isinstance(hist_dict, dict):
        raise TypeError(f"_get_optimal_thresholds: hist_dict must be a dict of histograms, "
                        f"got {type(hist_dict).__name__}")
    if logger is not None:
        logger.info("Calculating optimal thresholds for quantization using KL divergence "
                    "with num_quantized_bins=%d", num_quantized_bins)
    th_dict = {}
    for name in list(hist_dict):
        min_val, max_val, th, divergence = _get_optimal_threshold(
            hist_dict[name], quantized_dtype, num_quantized_bins=num_quantized_bins)
        if min_val >= 0 and quantized_dtype in ("auto", "uint8"):
            th_dict[name] = (0, th)
        else:
            th_dict[name] = (-th, th)
        del hist_dict[name]
        if logger:
            logger.debug("layer=%s, min_val=%f, max_val=%f, th=%f, divergence=%f", name,
                         min_val, max_val, th.item(), divergence.item())
    return th_dict


# ---- loading -------------------------------------------------------------------------------------

def _load_sym(sym, logger=None):
    """`sym` itself if a Symbol, else the Symbol saved at path `sym` (relative paths are
    taken from this module's folder, as MXNet's; an absolute path is kept).

    Args:
        sym: a `Symbol` or a path to a ``-symbol.json`` file.
        logger: a `logging.Logger`, or None.

    Returns:
        Symbol

    Raises:
        ValueError: `sym` is neither.

    Example::

        from gluonlite.contrib.quantization import _load_sym
        x = sym.var('x')
        _load_sym(x) is x   # True
    """
    if isinstance(sym, str):
        path = os.path.join(os.path.dirname(os.path.realpath(__file__)), sym)
        if logger:
            logger.info("Loading symbol from file %s", path)
        return sym_load(path)
    if isinstance(sym, Symbol):
        return sym
    raise ValueError("_load_sym only accepts Symbol or path to the symbol file, while "
                     "received type %s" % str(type(sym)))


def _load_params(params, logger=None):
    """``(arg_params, aux_params)`` from a ``.params`` file (keys ``arg:<name>`` and
    ``aux:<name>``) or from a pair of dicts.

    Args:
        params: a path (relative paths as in `_load_sym`) or a pair ``(arg_params,
            aux_params)``.
        logger: a `logging.Logger`, or None.

    Returns:
        (dict, dict)

    Raises:
        ValueError: anything else.

    Example::

        from gluonlite.contrib.quantization import _load_params
        _load_params(({'w': nd.ones(1)}, {}))[0]['w'].shape   # (1,)
    """
    if isinstance(params, str):
        path = os.path.join(os.path.dirname(os.path.realpath(__file__)), params)
        if logger:
            logger.info("Loading params from file %s", path)
        arg_params, aux_params = {}, {}
        for key, value in nd_load(path).items():
            kind, name = key.split(":", 1)
            if kind == "arg":
                arg_params[name] = value
            if kind == "aux":
                aux_params[name] = value
        return arg_params, aux_params
    if isinstance(params, (tuple, list)) and len(params) == 2:
        return params[0], params[1]
    raise ValueError("Unsupported params provided. Must be either a path to the param file or "
                     "a pair of dictionaries representing arg_params and aux_params")


class _DataIterWrapper(DataIter):
    """A `DataIter` over any iterable of batches (a Gluon `DataLoader`): each item is a list
    of arrays (a single array counts as a list of one), data first. Data of more than 4
    dimensions has its first two merged. The arrays are described as ``data``, ``data0``,
    ``data1``... (``data0``, ``data1``, ``data2``... for three or more).

    Args:
        calib_data: the iterable; iterated once here for the shapes, then anew by
            `reset`.

    Raises:
        TypeError: `calib_data` is not iterable.
        ValueError: its first item is empty.

    Example::

        from gluonlite.contrib.quantization import _DataIterWrapper
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(np.ones((4, 3)), np.zeros(4)),
                                       batch_size=2)
        it = _DataIterWrapper(loader)
        [d.name for d in it.provide_data], it.batch_size   # (['data', 'data0'], 2)
    """

    def __init__(self, calib_data):  # pylint: disable=super-init-not-called
        self._data = calib_data
        try:
            first = iter(calib_data)
        except TypeError as e:
            raise TypeError("calib_data is not a valid iterator. {}".format(str(e))) from None
        example = self._as_list(next(first))
        if not example:
            raise ValueError("_DataIterWrapper: the first batch of calib_data holds no arrays")
        self.provide_data = [DataDesc(name="data", shape=example[0].shape)]
        self.provide_data += [DataDesc(name=f"data{i}", shape=x.shape)
                              for i, x in enumerate(example[1:])]
        if len(example) >= 3:
            self.provide_data = [DataDesc(name=f"data{i}", shape=x.shape)
                                 for i, x in enumerate(example)]
        self.batch_size = example[0].shape[0]
        self.reset()

    @staticmethod
    def _as_list(item):
        item = list(item) if isinstance(item, (list, tuple)) else [item]
        if item and len(item[0].shape) > 4:
            item[0] = item[0].reshape((-1,) + tuple(item[0].shape[2:]))
        return item

    def reset(self):
        """Start iterating `calib_data` again."""
        self._iter = iter(self._data)

    def next(self):
        """The next item of `calib_data` as a `DataBatch` (its arrays as data).

        Raises:
            StopIteration: `calib_data` is exhausted.
        """
        return DataBatch(data=self._as_list(next(self._iter)))


def _as_data_iter(calib_data):
    """``(data_iter, provide_data)``: `calib_data` itself if a DataIter, else a
    `_DataIterWrapper` over it.

    Args:
        calib_data: a `DataIter` or an iterable of batches.

    Returns:
        (DataIter, list of DataDesc)

    Example::

        from gluonlite.contrib.quantization import _as_data_iter
        it, shapes = _as_data_iter([nd.ones((2, 3))])
        shapes[0].shape   # (2, 3)
    """
    if isinstance(calib_data, DataIter):
        return calib_data, calib_data.provide_data
    calib_data = _DataIterWrapper(calib_data)
    return calib_data, calib_data.provide_data


# ---- the user API ------------------------------------------------------------------------------

def _check_excluded(value, what, kind):
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of strings representing the names of the "
                         f"{kind} that will not be quantized, while received type "
                         f"{str(type(value))}")
    return value


def _check_dtype_and_granularity(quantized_dtype, quantize_granularity):
    if quantized_dtype not in _QUANTIZED_DTYPES:
        raise ValueError(f"unknown quantized_dtype {quantized_dtype} received, expected `int8`, "
                         "`uint8` or `auto`")
    if quantize_granularity not in _GRANULARITIES:
        # MXNet's message, its typo kept for code that matches it
        raise ValueError(f"unkonwn quantize_granularity {quantize_granularity} received, "
                         "expected `tensor-wise` or `channel-wise`.")


def _check_ctx(ctx):
    if not isinstance(ctx, Context):
        raise ValueError(f"currently only supports single ctx, while received {str(ctx)}")


def _calibrated(calib_mode):
    return calib_mode is not None and calib_mode != "none"


def quantize_model(sym, arg_params, aux_params, data_names=("data",),
                   label_names=("softmax_label",), ctx=cpu(), excluded_sym_names=None,
                   excluded_op_names=None, calib_mode="entropy", calib_data=None,
                   num_calib_examples=None, quantized_dtype="int8", quantize_mode="smart",
                   quantize_granularity="tensor-wise", logger=None):
    """The quantized model of float32 model `sym` with `arg_params` and `aux_params`: its
    graph, with calibrated ranges when `calib_mode` asks for them, and its arguments with
    the weights and biases of the quantized nodes quantized to int8.

    Args:
        sym: the float32 `Symbol`.
        arg_params: {name: NDArray} of its arguments; every one is quantized ahead of time
            where a quantized node reads it.
        aux_params: {name: NDArray} of its auxiliary states (returned as given).
        data_names: the data inputs' names (for the calibration `Module`).
        label_names: the label inputs' names (for the calibration `Module`).
        ctx: the `Context` the model is to run on (one context).
        excluded_sym_names: a list of node names not to quantize.
        excluded_op_names: a list of operator names not to quantize.
        calib_mode: 'none' (or None): no calibration; the int32 outputs are requantized to
            their actual range at run time; 'naive': the min and max seen on `calib_data`;
            'entropy': the threshold whose quantized histogram diverges least (KL) from
            the one seen.
        calib_data: a `DataIter` of calibration batches (calibrating modes).
        num_calib_examples: stop calibrating after this many examples (None: one epoch).
        quantized_dtype: 'int8', 'uint8' or 'auto' (int8, or uint8 where calibration finds
            the values non-negative).
        quantize_mode: 'smart' quantizes convolutions and fully connected layers and the
            quantizable nodes between them; 'full' every quantizable node.
        quantize_granularity: 'tensor-wise' or 'channel-wise'.
        logger: a `logging.Logger` for progress (also sets ``MXNET_QUANTIZATION_VERBOSE``),
            or None.

    Returns:
        (Symbol, dict, dict): the quantized graph, its arguments, `aux_params`.

    Raises:
        ValueError: an excluded list that is not a list; an unknown `quantized_dtype`,
            `quantize_granularity`, `calib_mode` or `quantize_mode`; for calibration, a
            `ctx` that is not one Context, or `calib_data` missing or not a DataIter.

    Example::

        from gluonlite.contrib import quantization
        data = sym.var('data')
        y = sym.FullyConnected(sym.Convolution(data, kernel=(1, 1), num_filter=4, name='conv'),
                               num_hidden=3, name='fc')
        mod = mx.mod.Module(y, label_names=None)
        mod.bind([('data', (2, 3, 4, 4))]); mod.init_params()
        args, auxs = mod.get_params()
        calib = mx.io.NDArrayIter(np.random.uniform(size=(4, 3, 4, 4)), batch_size=2)
        qsym, qargs, qauxs = quantization.quantize_model(
            y, args, auxs, label_names=None, calib_mode='naive', calib_data=calib)
        qsym.attr_dict()['requantize_conv']['min_calib_range']   # the range seen
    """
    excluded_sym_names = _check_excluded(excluded_sym_names, "excluded_sym_names", "symbols")
    excluded_op_names = _check_excluded(excluded_op_names, "excluded_op_names", "operators")
    if logger:
        os.environ["MXNET_QUANTIZATION_VERBOSE"] = "1"
        logger.info("Quantizing symbol")
    _check_dtype_and_granularity(quantized_dtype, quantize_granularity)
    _check_ctx(ctx)  # MXNet checks it for calibration only, and fails without it anyway
    qsym, calib_layer = _quantize_symbol(
        sym, ctx, excluded_symbols=excluded_sym_names, excluded_operators=excluded_op_names,
        offline_params=list(arg_params.keys()), quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity)
    th_dict = {}
    if _calibrated(calib_mode):
        _check_ctx(ctx)
        if calib_data is None:
            raise ValueError(f"calib_data must be provided when calib_mode={calib_mode}")
        if not isinstance(calib_data, DataIter):
            raise ValueError(f"calib_data must be of DataIter type when calib_mode={calib_mode},"
                             f" while received type {str(type(calib_data))}")
        if calib_mode not in ("entropy", "naive"):
            raise ValueError(f"unknown calibration mode {calib_mode} received, expected "
                             "`none`, `naive`, or `entropy`")
        mod = Module(symbol=sym, data_names=data_names, label_names=label_names, context=ctx)
        label_shapes = getattr(calib_data, "provide_label", None) or []
        if label_shapes:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data,
                     label_shapes=label_shapes)
        else:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data)
        mod.set_params(arg_params, aux_params)
        if calib_mode == "entropy":
            hist_dict, num_examples = _collect_layer_histogram(
                mod, calib_data, include_layer=calib_layer,
                max_num_examples=num_calib_examples, logger=logger)
            if logger:
                logger.info("Collected layer outputs from FP32 model using %d examples",
                            num_examples)
                logger.info("Calculating optimal thresholds for quantization")
            th_dict = _get_optimal_thresholds(hist_dict, quantized_dtype, logger=logger)
        else:
            th_dict, num_examples = _collect_layer_output_min_max(
                mod, calib_data, quantized_dtype, include_layer=calib_layer,
                max_num_examples=num_calib_examples, logger=logger)
            if logger:
                logger.info("Collected layer output min/max values from FP32 model using %d "
                            "examples", num_examples)
        if logger:
            logger.info("Calibrating quantized symbol")
        qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info("Quantizing parameters")
    qarg_params = _quantize_params(qsym, arg_params, th_dict)
    return qsym, qarg_params, aux_params


def quantize_model_mkldnn(sym, arg_params, aux_params, data_names=("data",),
                          label_names=("softmax_label",), ctx=cpu(), excluded_sym_names=None,
                          excluded_op_names=None, calib_mode="entropy", calib_data=None,
                          num_calib_examples=None, quantized_dtype="int8",
                          quantize_mode="smart", quantize_granularity="tensor-wise",
                          logger=None):
    """`quantize_model` for a CPU, with the ``MKLDNN_QUANTIZE`` subgraph backend applied to
    the float32 graph before and to the quantized graph after (in gluonlite it removes the
    operators that do nothing in inference: ``_copy`` and Dropout).

    Args:
        sym: the float32 `Symbol`.
        arg_params: {name: NDArray} of its arguments.
        aux_params: {name: NDArray} of its auxiliary states.
        data_names: the data inputs' names.
        label_names: the label inputs' names.
        ctx: a CPU `Context`.
        excluded_sym_names: a list of node names not to quantize.
        excluded_op_names: a list of operator names not to quantize.
        calib_mode: 'none', 'naive' or 'entropy' (see `quantize_model`).
        calib_data: a `DataIter` of calibration batches.
        num_calib_examples: stop calibrating after this many examples.
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        quantize_mode: 'smart' or 'full'.
        quantize_granularity: 'tensor-wise' or 'channel-wise'.
        logger: a `logging.Logger`, or None.

    Returns:
        (Symbol, dict, dict): as `quantize_model`.

    Raises:
        ValueError: `ctx` is not a CPU Context; as `quantize_model`.

    Example::

        from gluonlite.contrib import quantization
        y = sym.FullyConnected(sym.Dropout(sym.var('data'), p=0.5), num_hidden=3, name='fc')
        mod = mx.mod.Module(y, label_names=None)
        mod.bind([('data', (2, 5))]); mod.init_params()
        args, auxs = mod.get_params()
        qsym, qargs, _ = quantization.quantize_model_mkldnn(y, args, auxs, label_names=None,
                                                            calib_mode='none')
    """
    _check_ctx(ctx)
    if ctx.device_type != "cpu":
        raise ValueError("quantize_model_mkldnn only support Intel cpu platform with MKL-DNN "
                         "Backend")
    sym = sym.get_backend_symbol(_CPU_BACKEND)
    qsym, qarg_params, aux_params = quantize_model(
        sym=sym, arg_params=arg_params, aux_params=aux_params, data_names=data_names,
        label_names=label_names, ctx=ctx, excluded_sym_names=excluded_sym_names,
        excluded_op_names=excluded_op_names, calib_mode=calib_mode, calib_data=calib_data,
        num_calib_examples=num_calib_examples, quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity, logger=logger)
    qsym = qsym.get_backend_symbol(_CPU_BACKEND)
    return qsym, qarg_params, aux_params


def quantize_graph(sym, arg_params, aux_params, ctx=cpu(), excluded_sym_names=None,
                   excluded_op_names=None, calib_mode="entropy", quantized_dtype="int8",
                   quantize_mode="full", quantize_granularity="tensor-wise",
                   LayerOutputCollector=None, logger=None):
    """The quantized graph of `sym` (not calibrated), its quantized arguments, and the
    collector that calibration is to run (pass it to `calib_graph` after running the
    float32 model with ``collector.collect`` as the executor's monitor callback).

    Args:
        sym: the float32 `Symbol`.
        arg_params: {name: NDArray} of its arguments.
        aux_params: {name: NDArray} of its auxiliary states (returned as given).
        ctx: the `Context` the model is to run on.
        excluded_sym_names: a list of node names not to quantize.
        excluded_op_names: a list of operator names not to quantize (not checked).
        calib_mode: 'none' (no collector), 'naive' (a min/max collector), 'entropy' (a
            histogram collector) or 'customize' (`LayerOutputCollector`).
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        quantize_mode: 'full' or 'smart'.
        quantize_granularity: 'tensor-wise' or 'channel-wise'.
        LayerOutputCollector: the collector for 'customize': an object with
            ``collect(name, array)`` and a ``min_max_dict`` {layer: (min, max)}; its
            ``include_layer`` is not set here.
        logger: a `logging.Logger`, or None.

    Returns:
        (Symbol, dict, dict, collector or None)

    Raises:
        ValueError: `excluded_sym_names` not a list; `ctx` not one Context; an unknown
            `quantized_dtype`, `quantize_granularity` or `calib_mode` ('customize' without
            a `LayerOutputCollector` included).

    Example::

        from gluonlite.contrib import quantization
        y = sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc')
        qsym, qargs, _, collector = quantization.quantize_graph(
            y, {'fc_weight': nd.ones((3, 2)), 'fc_bias': nd.zeros(3)}, {}, calib_mode='naive')
        collector.include_layer   # ['data', 'fc_output']
    """
    excluded_sym_names = _check_excluded(excluded_sym_names, "excluded_sym_names", "symbols")
    _check_ctx(ctx)
    if logger:
        os.environ["MXNET_QUANTIZATION_VERBOSE"] = "1"
        logger.info("Quantizing graph")
    _check_dtype_and_granularity(quantized_dtype, quantize_granularity)
    if excluded_op_names is not None and not isinstance(excluded_op_names, list):
        excluded_op_names = list(excluded_op_names)
    qsym, calib_layer = _quantize_symbol(
        sym, ctx, excluded_symbols=excluded_sym_names, excluded_operators=excluded_op_names,
        offline_params=list(arg_params.keys()), quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity)
    collector = None
    if _calibrated(calib_mode):
        if calib_mode == "entropy":
            collector = _LayerHistogramCollector(include_layer=calib_layer, logger=logger)
            if logger:
                logger.info("Create a layer output collector for entropy calibration.")
        elif calib_mode == "naive":
            collector = _LayerOutputMinMaxCollector(quantized_dtype=quantized_dtype,
                                                    include_layer=calib_layer, logger=logger)
            if logger:
                logger.info("Create a layer output minmax collector for naive calibration")
        elif calib_mode == "customize" and LayerOutputCollector is not None:
            collector = LayerOutputCollector
            if logger:
                logger.info("Create a customize layer output minmax collector for "
                            "calibration")
        else:
            raise ValueError(f"unknown calibration mode {calib_mode} received, expected "
                             "`none`, `naive`, `entropy` or `customize`")
        if logger:
            logger.info("Collector created, please use set_monitor_callback to collect "
                        "calibration information.")
    if logger:
        logger.info("Quantizing parameters")
    qarg_params = _quantize_params(qsym, arg_params, {})
    return qsym, qarg_params, aux_params, collector


def calib_graph(qsym, arg_params, aux_params, collector, calib_mode="entropy",
                quantized_dtype="int8", logger=logging):
    """Write the ranges `collector` gathered into quantized graph `qsym` and quantize its
    arguments with them (the second half of `quantize_graph`).

    Args:
        qsym: the graph `quantize_graph` returned.
        arg_params: {name: NDArray} of the float32 arguments.
        aux_params: {name: NDArray} of the auxiliary states (returned as given).
        collector: the collector `quantize_graph` returned, after the float32 model ran.
        calib_mode: 'entropy' (thresholds from ``collector.hist_dict``, which is emptied),
            'naive' or 'customize' (``collector.min_max_dict``).
        quantized_dtype: 'int8', 'uint8' or 'auto'.
        logger: a `logging.Logger` or the `logging` module (the default: messages at info
            level).

    Returns:
        (Symbol, dict, dict): the calibrated graph, its arguments, `aux_params`.

    Raises:
        ValueError: `calib_mode` is 'none' or None, or unknown.

    Example::

        from gluonlite.contrib import quantization
        y = sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc')
        args = {'fc_weight': nd.ones((3, 2)), 'fc_bias': nd.zeros(3)}
        qsym, _, _, collector = quantization.quantize_graph(y, args, {}, calib_mode='naive')
        exe = y.bind(mx.cpu(), dict(args, data=nd.ones((4, 2))))
        exe.set_monitor_callback(collector.collect, monitor_all=True)
        exe.forward()
        qsym, qargs, _ = quantization.calib_graph(qsym, args, {}, collector, 'naive')
        qsym.attr_dict()['requantize_fc']['max_calib_range']   # '2.000000'
    """
    th_dict = {}
    if not _calibrated(calib_mode):
        raise ValueError("please set calibration mode to naive or entropy.")
    if calib_mode == "entropy":
        if logger:
            logger.info("Calculating optimal thresholds for quantization")
        th_dict = _get_optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
    elif calib_mode in ("naive", "customize"):
        th_dict = collector.min_max_dict
    else:
        raise ValueError(f"unknown calibration mode {calib_mode} received, expected `none`, "
                         "`naive`, `entropy` or `customize`")
    qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info("Quantizing parameters")
    qarg_params = _quantize_params(qsym, arg_params, th_dict)
    return qsym, qarg_params, aux_params


def quantize_net_v2(network, quantized_dtype="auto", quantize_mode="full",
                    quantize_granularity="tensor-wise", exclude_layers=None,
                    exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode="none", num_calib_examples=None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """The quantized version of Gluon `network`, as a `SymbolBlock` whose int8 weights keep
    their dtype: the network is hybridized, exported, quantized (see `quantize_graph`),
    calibrated on `calib_data` when `calib_mode` asks for it, and loaded back.

    Args:
        network: a `HybridBlock` with initialized parameters.
        quantized_dtype: 'auto' (int8, or uint8 where calibration finds the values
            non-negative), 'int8' or 'uint8'.
        quantize_mode: 'full' or 'smart'.
        quantize_granularity: 'tensor-wise' or 'channel-wise'.
        exclude_layers: a list of node names not to quantize.
        exclude_layers_match: a list of strings: nodes whose names contain one are not
            quantized.
        exclude_operators: a list of operator names not to quantize.
        calib_data: a `DataIter`, or an iterable of batches (a Gluon `DataLoader`; an item's
            arrays past those the network takes, such as a label, are dropped).
        data_shapes: a list of `DataDesc` for the inputs; default the shapes of
            `calib_data`.
        calib_mode: 'none', 'naive', 'entropy' or 'customize'.
        num_calib_examples: stop calibrating after this many examples.
        ctx: the `Context` of the returned block (one context).
        LayerOutputCollector: the collector for 'customize' (see `quantize_graph`).
        logger: a `logging.Logger`, or None.

    Returns:
        SymbolBlock: the quantized network.

    Raises:
        ValueError: neither `data_shapes` nor `calib_data` given; for calibration, a `ctx`
            that is not one Context or no `calib_data`; as `quantize_graph`.
        TypeError: the network refuses the inputs even after dropping the trailing ones.

    Example::

        from gluonlite.contrib import quantization
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3), nn.Activation('relu'), nn.Dense(2))
        net.initialize()
        x = nd.random.uniform(shape=(2, 3, 6, 6))
        qnet = quantization.quantize_net_v2(
            net, data_shapes=[mx.io.DataDesc('data', x.shape)], calib_mode='naive',
            calib_data=mx.io.NDArrayIter(x, batch_size=2), quantized_dtype='auto')
        qnet(x).shape   # (2, 2), close to net(x)
    """
    from .. import gluon
    from ..model import load_checkpoint
    from ..symbol import var

    if logger:
        logger.info("Export HybridBlock")
    network.hybridize()
    if calib_data is not None:
        if isinstance(calib_data, DataIter):
            dshapes = calib_data.provide_data
        else:
            calib_data, dshapes = _as_data_iter(calib_data)
        if not data_shapes:
            data_shapes = dshapes
    if not data_shapes:
        raise ValueError("data_shapes required")
    data_nd = [ndarray.zeros(d.shape) for d in data_shapes]
    while True:
        try:
            network(*data_nd)
            break
        except TypeError:
            # the trailing inputs (a loader's label) are more than the network takes
            if len(data_nd) <= 1 or calib_data is None:
                raise
            del data_nd[-1]
            del calib_data.provide_data[-1]

    tmpdir = tempfile.mkdtemp()
    try:
        prefix = os.path.join(tmpdir, "tmp")
        network.export(prefix, epoch=0)
        symnet, args, auxs = load_checkpoint(prefix, 0)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

    exclude_layers = [] if exclude_layers is None else list(exclude_layers)  # not the caller's
    exclude_layers_match = [] if exclude_layers_match is None else exclude_layers_match
    exclude_operators = [] if exclude_operators is None else exclude_operators
    for name_match in exclude_layers_match:
        for layer in symnet.get_internals():
            if layer.name.find(name_match) != -1:
                exclude_layers.append(layer.name)
    if logger:
        logger.info("These layers have been excluded %s", exclude_layers)

    if ctx == cpu():
        symnet = symnet.get_backend_symbol(_CPU_BACKEND)
    qsym, qarg_params, aux_params, collector = quantize_graph(
        sym=symnet, arg_params=args, aux_params=auxs, ctx=ctx,
        excluded_sym_names=exclude_layers, excluded_op_names=exclude_operators,
        calib_mode=calib_mode, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
        quantize_granularity=quantize_granularity, LayerOutputCollector=LayerOutputCollector,
        logger=logger)

    if _calibrated(calib_mode):
        _check_ctx(ctx)
        if calib_data is None:
            raise ValueError(f"calib_data must be provided when calib_mode={calib_mode}")
        data_names = [pair[0] for pair in calib_data.provide_data]
        mod = Module(symbol=symnet, context=ctx, data_names=data_names, label_names=None)
        mod.bind(for_training=False, data_shapes=data_shapes)
        mod.set_params(args, auxs, allow_missing=False, force_init=True)
        num_examples = _collect_layer_statistics(mod, calib_data, collector,
                                                 num_calib_examples, logger)
        if logger:
            logger.info("Collected layer output values from FP32 model using %d examples",
                        num_examples)
        qsym, qarg_params, aux_params = calib_graph(
            qsym=qsym, arg_params=args, aux_params=auxs, collector=collector,
            calib_mode=calib_mode, quantized_dtype=quantized_dtype, logger=logger)
    else:
        data_names = [pair[0] for pair in data_shapes]

    if ctx == cpu():
        qsym = qsym.get_backend_symbol(_CPU_BACKEND)

    net = gluon.SymbolBlock(qsym, [var(name) for name in data_names])
    tmpdir = tempfile.mkdtemp()
    try:
        path = os.path.join(tmpdir, "quantized.params")
        saved = {"arg:" + k: v.as_in_context(cpu()) for k, v in qarg_params.items()}
        saved.update({"aux:" + k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        nd_save(path, saved)
        net.collect_params().load(path, cast_dtype=True, dtype_source="saved")
        net.collect_params().reset_ctx(ctx)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return net


def quantize_net(network, quantized_dtype="auto", quantize_mode="full",
                 exclude_layers=None, exclude_layers_match=None, exclude_operators=None,
                 calib_data=None, data_shapes=None, calib_mode="none",
                 num_calib_examples=None, ctx=cpu(), logger=None):
    """`quantize_net_v2` with tensor-wise granularity and no custom collector, after a
    warning that MXNet deprecates it.

    Args:
        network: a `HybridBlock` with initialized parameters.
        quantized_dtype: 'auto', 'int8' or 'uint8'.
        quantize_mode: 'full' or 'smart'.
        exclude_layers: a list of node names not to quantize.
        exclude_layers_match: a list of strings matched in node names.
        exclude_operators: a list of operator names not to quantize.
        calib_data: a `DataIter` or an iterable of batches.
        data_shapes: a list of `DataDesc` for the inputs.
        calib_mode: 'none', 'naive' or 'entropy'.
        num_calib_examples: stop calibrating after this many examples.
        ctx: the `Context` of the returned block.
        logger: a `logging.Logger`, or None.

    Returns:
        SymbolBlock: the quantized network.

    Raises:
        ValueError: as `quantize_net_v2`.

    Example::

        from gluonlite.contrib import quantization
        net = nn.HybridSequential(); net.add(nn.Dense(3)); net.initialize()
        x = nd.ones((2, 4))
        qnet = quantization.quantize_net(net, data_shapes=[mx.io.DataDesc('data', x.shape)])
        qnet(x).shape   # (2, 3)
    """
    warnings.warn("WARNING: This will be deprecated after MXNet 2.0, please use "
                  "quantize_net_v2.")
    return quantize_net_v2(network=network, quantized_dtype=quantized_dtype,
                           quantize_mode=quantize_mode, quantize_granularity="tensor-wise",
                           exclude_layers=exclude_layers,
                           exclude_layers_match=exclude_layers_match,
                           exclude_operators=exclude_operators, calib_data=calib_data,
                           data_shapes=data_shapes, calib_mode=calib_mode,
                           num_calib_examples=num_calib_examples, ctx=ctx,
                           LayerOutputCollector=None, logger=logger)
