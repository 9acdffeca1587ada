"""`mx.contrib.quantization`: the quantized graph (names and wiring as MXNet 1.9.1 builds them),
offline parameters, calibration (collectors, entropy thresholds, the calibrated attributes),
the 'MKLDNN_QUANTIZE' backend, the user functions end to end against the float32 model, and
every error the functions promise."""
import logging
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon, nd, sym
from gluonlite.contrib import quantization as Q
from gluonlite.gluon import nn
from gluonlite.symbol.symbol import topo_nodes


# ---- graphs (MXNet's own test graphs, tests/python/quantization/test_quantization.py) -------

def fp32_sym():
    data = sym.var("data")
    conv = sym.Convolution(data, kernel=(1, 1), num_filter=16, name="conv")
    bn = sym.BatchNorm(conv, eps=2e-05, fix_gamma=False, name="bn")
    act = sym.Activation(bn, act_type="relu", name="relu")
    pool = sym.Pooling(act, kernel=(4, 4), pool_type="avg", name="pool")
    fc = sym.FullyConnected(pool, num_hidden=10, flatten=True, name="fc")
    return sym.SoftmaxOutput(fc, name="softmax")


def fp32_sym_with_multiple_outputs(length=4):
    data = sym.var("data")
    parts = list(sym.split(data, axis=0, num_outputs=length, squeeze_axis=1, name="split"))
    convs = [sym.Convolution(parts[i], kernel=(1, 1), num_filter=16, name=f"conv_{i}")
             for i in range(length)]
    expanded = [sym.expand_dims(c, axis=0, name=f"expand_dims{i}")
                for i, c in enumerate(convs)]
    cat = sym.Concat(*expanded, dim=0, name="concat")
    reshaped = sym.reshape(cat, shape=(length, -1), name="reshape")
    fc = sym.FullyConnected(reshaped, num_hidden=10, name="fc")
    return sym.SoftmaxOutput(fc, name="softmax")


def offline(s):
    return [n for n in s.list_arguments() if not n.startswith("data") and
            not n.endswith("label")]


def wiring(s):
    """{node name: (operator, ['input:index', ...])} of every operator node of `s`."""
    return {n.name: (n.op.name, [f"{src.name}:{k}" for src, k in n.inputs])
            for n in topo_nodes(s.outputs) if n.op is not None}


def ops_of(s):
    return {name: op for name, (op, _) in wiring(s).items()}


def quantized(s, **kwargs):
    kwargs.setdefault("offline_params", offline(s))
    return Q._quantize_symbol(s, mx.cpu(), **kwargs)


# ---- the graph -------------------------------------------------------------------------

def test_the_worked_example_is_wired_as_mxnet_wires_it():
    qsym, calib = quantized(fp32_sym(), quantize_mode="full")
    conv_ins = ["data_quantize:0", "conv_weight_quantize:0", "conv_bias_quantize:0",
                "data_quantize:1", "data_quantize:2", "conv_weight_quantize_min:0",
                "conv_weight_quantize_max:0", "conv_bias_quantize_min:0",
                "conv_bias_quantize_max:0"]
    fc_ins = ["quantized_pool:0", "fc_weight_quantize:0", "fc_bias_quantize:0",
              "quantized_pool:1", "quantized_pool:2", "fc_weight_quantize_min:0",
              "fc_weight_quantize_max:0", "fc_bias_quantize_min:0", "fc_bias_quantize_max:0"]
    assert wiring(qsym) == {
        "data_quantize": ("_contrib_quantize_v2", ["data:0"]),
        "quantized_conv": ("_contrib_quantized_conv", conv_ins),
        "requantize_conv": ("_contrib_requantize", [f"quantized_conv:{i}" for i in range(3)]),
        "quantized_bn": ("_contrib_quantized_batch_norm",
                         ["requantize_conv:0", "bn_gamma:0", "bn_beta:0", "bn_moving_mean:0",
                          "bn_moving_var:0", "requantize_conv:1", "requantize_conv:2"]),
        "quantized_relu": ("_contrib_quantized_act", [f"quantized_bn:{i}" for i in range(3)]),
        "quantized_pool": ("_contrib_quantized_pooling",
                           [f"quantized_relu:{i}" for i in range(3)]),
        "quantized_fc": ("_contrib_quantized_fully_connected", fc_ins),
        "requantize_fc": ("_contrib_requantize", [f"quantized_fc:{i}" for i in range(3)]),
        "fc_dequantize": ("_contrib_dequantize", [f"requantize_fc:{i}" for i in range(3)]),
        "softmax": ("SoftmaxOutput", ["fc_dequantize:0", "softmax_label:0"])}
    assert calib == ["data", "conv_output", "bn_output", "fc_output"]
    assert qsym.list_arguments() == [
        "data", "conv_weight_quantize", "conv_bias_quantize", "conv_weight_quantize_min",
        "conv_weight_quantize_max", "conv_bias_quantize_min", "conv_bias_quantize_max",
        "bn_gamma", "bn_beta", "fc_weight_quantize", "fc_bias_quantize",
        "fc_weight_quantize_min", "fc_weight_quantize_max", "fc_bias_quantize_min",
        "fc_bias_quantize_max", "softmax_label"]
    assert qsym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert qsym.list_outputs() == ["softmax_output"]
    attrs = qsym.attr_dict()
    assert attrs["data_quantize"] == {"out_type": "int8"}
    assert attrs["requantize_conv"] == {"out_type": "int8"}
    # a quantized node keeps the float node's attributes
    assert attrs["quantized_conv"]["num_filter"] == "16"
    assert attrs["quantized_bn"]["eps"] == attrs["bn_moving_var"]["eps"] == "2e-05"
    assert [k for k in attrs if "_quantize" in k] == ["data_quantize"]


def test_the_float_graph_is_left_as_it_was():
    s = fp32_sym()
    before = s.tojson()
    quantized(s, quantize_mode="full")
    assert s.tojson() == before


def test_several_outputs_of_one_node_get_a_quantize_node_each():
    qsym, calib = quantized(fp32_sym_with_multiple_outputs(4), quantize_mode="full")
    w = wiring(qsym)
    for i in range(4):
        # SliceChannel names its outputs (output0...), reshape does not (its index)
        assert w[f"split_output{i}_quantize"] == ("_contrib_quantize_v2", [f"split:{i}"])
        assert w[f"quantized_conv_{i}"][1][0] == f"split_output{i}_quantize:0"
        # Concat on dim 0 stays float: each convolution is dequantized for it
        assert w[f"conv_{i}_dequantize"][1] == [f"requantize_conv_{i}:{k}" for k in range(3)]
        assert w[f"expand_dims{i}"] == ("expand_dims", [f"conv_{i}_dequantize:0"])
    assert w["concat"][0] == "Concat"
    assert w["reshape_0_quantize"] == ("_contrib_quantize_v2", ["reshape:0"])
    assert w["quantized_fc"][1][:5] == ["reshape_0_quantize:0", "fc_weight_quantize:0",
                                        "fc_bias_quantize:0", "reshape_0_quantize:1",
                                        "reshape_0_quantize:2"]
    # MXNet 1.9.1's list for this graph
    assert calib == ["split_output0", "conv_0_output", "split_output1", "conv_1_output",
                     "split_output2", "conv_2_output", "split_output3", "conv_3_output",
                     "reshape_output", "fc_output"]


def test_a_float_and_a_quantized_reader_share_one_dequantize_and_one_quantize():
    data = sym.var("data")
    pre = sym.relu(data, name="pre")                       # not quantizable (relu, not Activation)
    c1 = sym.Convolution(pre, kernel=(1, 1), num_filter=3, name="c1")
    c2 = sym.Convolution(pre, kernel=(1, 1), num_filter=3, name="c2")
    add = sym.elemwise_add(c1, c2, name="add")
    fc = sym.FullyConnected(add, num_hidden=4, name="fc")
    e = sym.exp(fc, name="e")
    qsym, calib = quantized(sym.Group([e, fc]), quantize_mode="full")
    w = wiring(qsym)
    assert [n for n in w if n.endswith("_quantize")] == ["pre_0_quantize"]
    assert w["quantized_c1"][1][0] == w["quantized_c2"][1][0] == "pre_0_quantize:0"
    assert w["quantized_add"] == ("_contrib_quantized_elemwise_add",
                                  ["requantize_c1:0", "requantize_c2:0", "requantize_c1:1",
                                   "requantize_c1:2", "requantize_c2:1", "requantize_c2:2"])
    assert w["e"] == ("exp", ["fc_dequantize:0"])
    # the graph's output reads the dequantize the float reader made (MXNet builds a second,
    # broken node of the same name here)
    assert [n.name for n in qsym.get_internals()] .count("fc_dequantize") == 1
    assert qsym.list_outputs() == ["e_output", "fc_dequantize_output"]
    assert calib == ["pre_output", "c1_output", "c2_output", "add_output", "fc_output"]


def _tail_graph():
    """pool0 -> conv -> relu -> pool -> fc -> relu2: convolution and fully connected are
    'must' nodes; pool0 lies before the first, relu2 after the last."""
    data = sym.var("data")
    p0 = sym.Pooling(data, kernel=(2, 2), pool_type="max", name="pool0")
    conv = sym.Convolution(p0, kernel=(1, 1), num_filter=4, name="conv")
    act = sym.Activation(conv, act_type="relu", name="relu")
    pool = sym.Pooling(act, kernel=(2, 2), pool_type="avg", name="pool")
    fc = sym.FullyConnected(pool, num_hidden=3, name="fc")
    return sym.Activation(fc, act_type="relu", name="relu2")


def test_smart_mode_quantizes_only_between_must_nodes_and_full_mode_everything():
    full = ops_of(quantized(_tail_graph(), quantize_mode="full")[0])
    smart = ops_of(quantized(_tail_graph(), quantize_mode="smart")[0])
    for name in ("pool0", "conv", "relu", "pool", "fc", "relu2"):
        assert "quantized_" + name in full
    assert full["relu2_dequantize"] == "_contrib_dequantize"
    assert {"quantized_conv", "quantized_relu", "quantized_pool", "quantized_fc"} <= set(smart)
    assert smart["pool0"] == "Pooling" and "quantized_pool0" not in smart
    assert smart["relu2"] == "Activation" and "quantized_relu2" not in smart
    assert smart["pool0_output_quantize"] == "_contrib_quantize_v2"
    assert smart["fc_dequantize"] == "_contrib_dequantize"


def test_excluded_names_and_operators_stay_float():
    w = wiring(quantized(fp32_sym(), quantize_mode="full", excluded_symbols=["pool"])[0])
    assert w["pool"] == ("Pooling", ["relu_dequantize:0"])
    assert w["relu_dequantize"][1] == [f"quantized_relu:{i}" for i in range(3)]
    # Pooling lists its output names: the quantize node is named after 'output'
    assert w["quantized_fc"][1][0] == "pool_output_quantize:0"
    w = wiring(quantized(fp32_sym(), quantize_mode="full",
                         excluded_operators=["Activation", "FullyConnected"])[0])
    assert w["relu"] == ("Activation", ["bn_dequantize:0"])
    assert w["quantized_pool"][1] == ["relu_output_quantize:0", "relu_output_quantize:1",
                                      "relu_output_quantize:2"]
    assert w["fc"] == ("FullyConnected", ["pool_dequantize:0", "fc_weight:0", "fc_bias:0"])


@pytest.mark.parametrize("build, expect_float", [
    (lambda x: sym.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=2, name="node"),
     "Pooling"),
    (lambda x: sym.Activation(x, act_type="tanh", name="node"), "Activation"),
    (lambda x: sym.Concat(x, x, dim=0, name="node"), "Concat")])
def test_unsupported_attributes_leave_a_node_float(build, expect_float):
    x = sym.Convolution(sym.var("data"), kernel=(1, 1), num_filter=2, name="conv")
    ops = ops_of(quantized(build(x), quantize_mode="full")[0])
    assert ops["node"] == expect_float and "quantized_node" not in ops


def test_quantized_dtype_is_the_out_type_of_every_quantize_and_requantize_node():
    for dtype in ("int8", "uint8", "auto"):
        attrs = quantized(fp32_sym(), quantized_dtype=dtype, quantize_mode="full",
                          offline_params=[])[0].attr_dict()
        kinds = [k for k in attrs if k.endswith("_quantize") or k.startswith("requantize_")]
        assert len(kinds) == 7   # data, 4 params, 2 requantize
        assert all(attrs[k]["out_type"] == dtype for k in kinds)


def test_without_offline_params_the_weights_are_quantized_in_the_graph():
    qsym, calib = quantized(fp32_sym(), quantize_mode="full", offline_params=[])
    w = wiring(qsym)
    assert w["conv_weight_quantize"] == ("_contrib_quantize_v2", ["conv_weight:0"])
    assert "conv_weight" in qsym.list_arguments()
    assert calib[:3] == ["data", "conv_weight", "conv_bias"]


def test_the_calibration_names_are_those_the_monitor_reports():
    for s, shape in ((fp32_sym(), (2, 4, 8, 8)),
                     (fp32_sym_with_multiple_outputs(2), (2, 4, 4, 6, 6))):
        _, calib = quantized(s, quantize_mode="full")
        exe = s.simple_bind(mx.cpu(), grad_req="null", data=shape)
        seen = []
        exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
        exe.forward(is_train=False)
        assert set(calib) <= set(seen), set(calib) - set(seen)


def test_an_unknown_quantize_mode_is_refused():
    with pytest.raises(mx.MXNetError, match="unrecognized quantize mode: fast"):
        quantized(fp32_sym(), quantize_mode="fast")


def test_channel_wise_quantization_is_refused_for_a_gpu():
    with pytest.raises(ValueError, match="`channel-wise` quantization option is not supported"):
        Q._quantize_symbol(fp32_sym(), mx.gpu(), quantize_granularity="channel-wise")


def test_quantize_symbol_wants_lists_of_exclusions():
    with pytest.raises(ValueError, match="excluded_symbols must be a list"):
        Q._quantize_symbol(fp32_sym(), mx.cpu(), excluded_symbols="conv")
    with pytest.raises(ValueError, match="excluded_operators must be a list"):
        Q._quantize_symbol(fp32_sym(), mx.cpu(), excluded_operators=("Convolution",))


# ---- parameters --------------------------------------------------------------------------

def _params(s, shape=(2, 4, 8, 8), seed=0):
    rng = np.random.RandomState(seed)
    shapes, _, aux_shapes = s.infer_shape(data=shape)
    args = {n: nd.array(rng.uniform(-1, 1, shp)) for n, shp in
            zip(s.list_arguments(), shapes) if n not in ("data", "softmax_label")}
    auxs = {n: nd.array(rng.uniform(0.5, 1, shp)) for n, shp in
            zip(s.list_auxiliary_states(), aux_shapes)}
    return args, auxs


def test_quantize_params_quantizes_weights_and_biases_and_keeps_the_rest():
    s = fp32_sym()
    args, _ = _params(s)
    qsym, _ = quantized(s, quantize_mode="full")
    q = Q._quantize_params(qsym, args, {})
    assert set(q) == set(qsym.list_arguments()) - {"data", "softmax_label"}
    for name in ("conv_weight", "conv_bias", "fc_weight", "fc_bias"):
        p = args[name]
        want = nd.contrib.quantize(p, nd.min(p), nd.max(p), out_type="int8")
        assert q[name + "_quantize"].dtype == np.int8
        assert (q[name + "_quantize"].asnumpy() == want[0].asnumpy()).all()
        assert q[name + "_quantize_min"].asnumpy().tolist() == want[1].asnumpy().tolist()
        assert q[name + "_quantize_max"].asnumpy().tolist() == want[2].asnumpy().tolist()
    assert q["bn_gamma"] is args["bn_gamma"] and q["bn_beta"] is args["bn_beta"]


def test_quantize_params_takes_other_ranges_from_the_thresholds():
    w = sym.var("w")
    s = sym.FullyConnected(sym.var("data"), w, num_hidden=2, no_bias=True, name="fc")
    qsym, _ = quantized(s, offline_params=["w"], quantize_mode="full")
    assert qsym.list_arguments() == ["data", "w_quantize", "w_quantize_min", "w_quantize_max"]
    q = Q._quantize_params(qsym, {"w": nd.ones((2, 3))},
                           {"w_quantize": (-1.5, np.array([2.5], np.float32))})
    assert q["w_quantize_min"].asnumpy().tolist() == [-1.5]
    assert q["w_quantize_max"].asnumpy().tolist() == [2.5]
    assert "w_quantize" not in q   # not a weight or bias by name: MXNet leaves it out too
    assert Q._quantize_params(qsym, {"w": nd.ones((2, 3))}, {}) == {}


# ---- calibration -------------------------------------------------------------------------

def test_calibrated_ranges_are_written_as_c_floats_into_the_quantizing_nodes():
    qsym, calib = quantized(fp32_sym(), quantize_mode="full")
    rng = np.random.RandomState(3)
    th = {name: (rng.uniform(-200, -100), rng.uniform(100, 200)) for name in calib}
    th["bn_output"] = (np.array([-1.0], np.float32), np.array([1.0 / 3], np.float32))
    th["no_such_layer"] = (0.0, 1.0)
    before = qsym.tojson()
    cq = Q._calibrate_quantized_sym(qsym, th)
    attrs = cq.attr_dict()
    for node, layer in (("data_quantize", "data"), ("requantize_conv", "conv_output"),
                        ("requantize_fc", "fc_output"), ("quantized_bn", "bn_output")):
        lo, hi = (float(np.float32(np.asarray(v).ravel()[0])) for v in th[layer])
        assert attrs[node]["min_calib_range"] == "%f" % lo
        assert attrs[node]["max_calib_range"] == "%f" % hi
    assert attrs["quantized_bn"]["max_calib_range"] == "0.333333"
    assert "min_calib_range" not in attrs["quantized_conv"]
    assert qsym.tojson() == before                      # a copy: the input is unchanged
    assert Q._calibrate_quantized_sym(qsym, {}) is qsym
    assert Q._calibrate_quantized_sym(qsym, None) is qsym
    # the calibrated attribute reaches the parsed parameters the operator runs with
    node = next(n for n in topo_nodes(cq.outputs) if n.name == "requantize_conv")
    assert node.params["max_calib_range"] == pytest.approx(float(np.float32(th["conv_output"][1])),
                                                           rel=1e-6)


def test_the_min_max_collector_widens_each_included_layer():
    c = Q._LayerOutputMinMaxCollector("int8", include_layer=["a", "b"])
    c.collect("a", nd.array([1.0, 3.0]))
    c.collect(b"a", nd.array([-2.0, 0.5]))
    c.collect("b", nd.array([4.0]))
    c.collect("other", nd.array([100.0]))
    assert c.min_max_dict == {"a": (-2.0, 3.0), "b": (4.0, 4.0)}


def test_the_histogram_collector_keeps_counts_on_a_widening_symmetric_range():
    c = Q._LayerHistogramCollector(num_bins=11, include_layer=["a"])
    first = np.array([-0.5, 0.1, 0.2, 1.0])
    c.collect("a", nd.array(first))
    counts, edges, lo, hi, th = c.hist_dict["a"]
    assert (lo, hi, th) == (-0.5, 1.0, 1.0) and counts.sum() == 4 and len(counts) == 11
    c.collect("a", nd.array([2.5, -0.3]))
    counts, edges, lo, hi, th = c.hist_dict["a"]
    assert counts.sum() == 6 and (lo, hi) == (-0.5, 2.5) and th >= 2.5
    assert len(counts) % 2 == 1 and edges[0] == pytest.approx(-th)
    # the old counts keep their bins, now the middle ones of the wider histogram
    added, _ = np.histogram([2.5, -0.3], bins=len(counts), range=(-th, th))
    side = (len(counts) - 11) // 2
    old, _ = np.histogram(first, bins=11, range=(-1.0, 1.0))
    assert (counts - added).tolist() == [0] * side + old.tolist() + [0] * side
    c.collect("b", nd.array([1.0]))
    assert list(c.hist_dict) == ["a"]


def test_combine_histogram_within_the_old_range_adds_counts():
    counts, edges = np.histogram([0.5, -0.5], bins=5, range=(-1, 1))
    out = Q.combine_histogram((counts, edges, -0.5, 0.5, 1.0), np.array([0.9]), 0.9, 0.9, 0.9)
    assert out[0].tolist() == [0, 1, 0, 1, 1] and out[1] is edges and out[2:] == (-0.5, 0.9, 1.0)


def test_smooth_distribution():
    with pytest.raises(ValueError, match="All entries are 0"):
        Q._smooth_distribution(np.zeros((2,)), eps=1e-3)
    dirac = np.zeros(5)
    dirac[2] = 1
    want = np.full(5, 1e-3)
    want[2] = 1 - 4e-3
    np.testing.assert_allclose(Q._smooth_distribution(dirac, eps=1e-3), want, rtol=1e-6)
    with pytest.raises(ValueError, match="use a smaller eps"):
        Q._smooth_distribution(dirac, eps=0.5)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "auto"])
def test_optimal_thresholds_of_a_uniform_sample_reach_its_largest_magnitude(dtype):
    pytest.importorskip("scipy")
    rng = np.random.RandomState(7)
    arr = rng.uniform(-10.532, 11.3432, size=(8, 3, 23, 23))
    lo, hi = arr.min(), arr.max()
    th = max(abs(lo), abs(hi))
    counts, edges = np.histogram(arr, bins=8001, range=(-th, th))
    hist_dict = {"layer1": (counts, edges, lo, hi, th)}
    out = Q._get_optimal_thresholds(hist_dict, dtype)
    assert hist_dict == {}   # each histogram is dropped once used, as MXNet's
    assert out["layer1"][1] == pytest.approx(th, rel=1e-2)
    assert out["layer1"][0] == pytest.approx(-th, rel=1e-2)   # negative values: (-th, th)


def test_the_optimal_threshold_of_values_piled_at_one_edge_is_that_edge():
    counts = [0] * 998 + [1000]
    edges = [-2 + 4 / 999 * i for i in range(999)] + [2]
    for dtype in ("uint8", "int8", "auto"):
        res = Q._get_optimal_threshold((counts, edges, -2, 2, 2), dtype, num_quantized_bins=5)
        assert abs(res[2] - 2) < 1e-5


def test_an_even_histogram_is_refused():
    with pytest.raises(ValueError, match="odd number of bins"):
        Q._get_optimal_threshold((np.ones(4), np.arange(5.0), -1, 1, 1), "int8")


def test_statistics_are_collected_from_a_data_iterator_only():
    s = sym.FullyConnected(sym.var("data"), num_hidden=2, name="fc")
    mod = mx.mod.Module(s, label_names=None)
    mod.bind([("data", (2, 3))], for_training=False)
    mod.init_params()
    c = Q._LayerOutputMinMaxCollector("int8", include_layer=["data", "fc_output"])
    with pytest.raises(ValueError, match="Only supports data as a type of DataIter"):
        Q._collect_layer_statistics(mod, [nd.ones((2, 3))], c)
    it = mx.io.NDArrayIter(np.arange(18.0).reshape(6, 3), batch_size=2)
    assert Q._collect_layer_statistics(mod, it, c, max_num_examples=3) == 4
    assert c.min_max_dict["data"] == (0.0, 11.0)   # two batches: stopped at 4 >= 3 examples
    assert set(c.min_max_dict) == {"data", "fc_output"}


# ---- loading and data --------------------------------------------------------------------

def test_load_sym_and_load_params(tmp_path):
    s = fp32_sym()
    assert Q._load_sym(s) is s
    path = str(tmp_path / "net-symbol.json")
    s.save(path)
    assert Q._load_sym(path).tojson() == s.tojson()    # an absolute path is kept
    with pytest.raises(ValueError, match="_load_sym only accepts Symbol"):
        Q._load_sym(3)
    pfile = str(tmp_path / "net.params")
    nd.save(pfile, {"arg:w": nd.ones(2), "aux:m": nd.zeros(1)})
    args, auxs = Q._load_params(pfile)
    assert list(args) == ["w"] and list(auxs) == ["m"]
    pair = ({"w": 1}, {})
    assert Q._load_params(pair) == pair and Q._load_params(list(pair)) == pair
    with pytest.raises(ValueError, match="Unsupported params provided"):
        Q._load_params(({}, {}, {}))


def test_the_wrapper_describes_a_loader_as_a_data_iterator():
    data, label = np.ones((4, 2, 3, 5, 5)), np.zeros((4, 1))
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(data, label), batch_size=2)
    it, shapes = Q._as_data_iter(loader)
    assert isinstance(it, mx.io.DataIter)
    # five dimensions: the first two are merged
    assert [(d.name, d.shape) for d in shapes] == [("data", (4, 3, 5, 5)), ("data0", (2, 1))]
    assert it.batch_size == 4
    batches = list(it)
    assert len(batches) == 2 and batches[0].data[0].shape == (4, 3, 5, 5)
    it.reset()
    assert len(list(it)) == 2
    three = Q._DataIterWrapper([(nd.ones((2, 3)), nd.ones((2, 1)), nd.ones((2,)))])
    assert [d.name for d in three.provide_data] == ["data0", "data1", "data2"]
    single = Q._DataIterWrapper([nd.ones((2, 3)), nd.ones((2, 3))])   # bare arrays
    assert [d.name for d in single.provide_data] == ["data"]
    assert next(single).data[0].shape == (2, 3)
    nd_iter = mx.io.NDArrayIter(np.ones((4, 3)), batch_size=2)
    assert Q._as_data_iter(nd_iter) == (nd_iter, nd_iter.provide_data)
    with pytest.raises(TypeError, match="calib_data is not a valid iterator"):
        Q._DataIterWrapper(5)


# ---- the MKLDNN_QUANTIZE backend ----------------------------------------------------------

def test_the_cpu_backend_removes_inference_identities_between_operators():
    data = sym.var("data")
    conv = sym.Convolution(data, kernel=(1, 1), num_filter=4, name="conv")
    drop = sym.Dropout(conv, p=0.5, name="drop")
    fc = sym.FullyConnected(sym.identity(drop, name="copy"), num_hidden=3, name="fc")
    s = sym.Group([fc, sym.Dropout(data, p=0.5, name="kept")])   # reads a variable: kept
    out = s.get_backend_symbol("MKLDNN_QUANTIZE")
    w = wiring(out)
    assert "drop" not in w and "copy" not in w
    assert w["fc"][1][0] == "conv:0" and w["kept"] == ("Dropout", ["data:0"])
    assert out.list_arguments() == s.list_arguments()
    x = nd.array(np.random.RandomState(0).uniform(size=(2, 3, 4, 4)))
    rng = np.random.RandomState(1)
    shapes = dict(zip(s.list_arguments(), s.infer_shape(data=x.shape)[0]))
    args = {n: nd.array(rng.uniform(-1, 1, shp)) for n, shp in shapes.items()}
    args["data"] = x
    want = [o.asnumpy() for o in s.bind(mx.cpu(), args).forward(is_train=False)]
    got = [o.asnumpy() for o in out.bind(mx.cpu(), args).forward(is_train=False)]
    for a, b in zip(want, got):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # an output read elsewhere too keeps its Dropout (removing it would rewire the other)
    r = sym.relu(data, name="r")
    both = sym.Group([sym.Dropout(r, p=0.5, name="d"), r])
    assert wiring(both.get_backend_symbol("MKLDNN_QUANTIZE"))["d"] == ("Dropout", ["r:0"])
    # a Dropout that drops in inference too stays
    always = sym.FullyConnected(sym.Dropout(conv, p=0.5, mode="always", name="d"),
                                num_hidden=2, name="fc")
    assert "d" in wiring(always.get_backend_symbol("MKLDNN_QUANTIZE"))


def test_quantize_model_mkldnn_needs_no_requantization_around_a_dropout():
    data = sym.var("data")
    conv = sym.Convolution(data, kernel=(1, 1), num_filter=4, name="conv")
    fc = sym.FullyConnected(sym.Dropout(conv, p=0.5, name="drop"), num_hidden=3, name="fc")
    args, auxs = _params(fc)
    qsym, _, _ = Q.quantize_model_mkldnn(fc, args, auxs, label_names=None, calib_mode="none",
                                         quantize_mode="full")
    w = wiring(qsym)
    assert w["quantized_fc"][1][0] == "requantize_conv:0"
    assert not any(n.endswith("dequantize") and n != "fc_dequantize" for n in w)
    with pytest.raises(ValueError, match="only support Intel cpu platform"):
        Q.quantize_model_mkldnn(fc, args, auxs, ctx=mx.gpu(), calib_mode="none")
    with pytest.raises(ValueError, match="currently only supports single ctx"):
        Q.quantize_model_mkldnn(fc, args, auxs, ctx=[mx.cpu()], calib_mode="none")


def test_contrib_quant_is_the_quantization_module():
    assert mx.contrib.quant is mx.contrib.quantization is Q


# ---- end to end: quantized against float32 ------------------------------------------------

def _conv_net():
    data = sym.var("data")
    c1 = sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv1")
    a1 = sym.Activation(c1, act_type="relu", name="relu1")
    p1 = sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    c2 = sym.Convolution(p1, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv2")
    a2 = sym.Activation(c2, act_type="relu", name="relu2")
    f = sym.Flatten(a2, name="flat")
    return sym.FullyConnected(f, num_hidden=10, name="fc")


def _forward(s, args, auxs, x):
    mod = mx.mod.Module(s, label_names=None)
    mod.bind([("data", x.shape)], for_training=False)
    mod.set_params(args, auxs)
    mod.forward(mx.io.DataBatch([x]), is_train=False)
    return mod.get_outputs()[0].asnumpy()


def _relative_error(got, want):
    return np.linalg.norm(got - want) / np.linalg.norm(want)


@pytest.mark.parametrize("calib_mode, qdtype", [("none", "int8"), ("naive", "int8"),
                                                ("naive", "auto"), ("entropy", "auto")])
def test_a_quantized_model_computes_what_the_float_model_does(calib_mode, qdtype):
    if calib_mode == "entropy":
        pytest.importorskip("scipy")
    s = _conv_net()
    rng = np.random.RandomState(11)
    shapes = dict(zip(s.list_arguments(), s.infer_shape(data=(4, 3, 8, 8))[0]))
    args = {n: nd.array(rng.normal(0, 0.3, shp)) for n, shp in shapes.items() if n != "data"}
    x = nd.array(rng.uniform(-1, 1, (4, 3, 8, 8)))
    calib = mx.io.NDArrayIter(np.concatenate([x.asnumpy()] * 2), batch_size=4)
    qsym, qargs, qauxs = Q.quantize_model(s, args, {}, label_names=None, calib_mode=calib_mode,
                                          calib_data=calib, quantized_dtype=qdtype,
                                          quantize_mode="full")
    names = ops_of(qsym)
    assert {"quantized_conv1", "quantized_relu1", "quantized_pool1", "quantized_conv2",
            "quantized_relu2", "quantized_flat", "quantized_fc"} <= set(names)
    if calib_mode != "none":
        assert "min_calib_range" in qsym.attr_dict()["requantize_conv1"]
    assert qargs["conv1_weight_quantize"].dtype == np.int8
    want = _forward(s, args, {}, x)
    got = _forward(qsym, qargs, qauxs, x)
    assert got.dtype == np.float32
    assert _relative_error(got, want) < 0.05


def test_quantize_model_reports_its_steps_to_a_logger(caplog, monkeypatch):
    monkeypatch.setenv("MXNET_QUANTIZATION_VERBOSE", "0")   # restored after the test
    s = _conv_net()
    args, _ = _params(s, (2, 3, 8, 8))
    logger = logging.getLogger("quantization-test")
    with caplog.at_level(logging.INFO, logger="quantization-test"):
        Q.quantize_model(s, args, {}, label_names=None, calib_mode="none", logger=logger)
    assert "Quantizing symbol" in caplog.text and "Quantizing parameters" in caplog.text
    assert os.environ["MXNET_QUANTIZATION_VERBOSE"] == "1"


def test_quantize_model_returns_the_params_quantize_params_makes():
    s = fp32_sym()
    args, auxs = _params(s)
    qsym, qargs, qauxs = Q.quantize_model(s, args, auxs, calib_mode="none",
                                          quantize_mode="full")
    want = Q._quantize_params(qsym, args, {})
    assert set(qargs) == set(want) and qauxs is auxs
    for k, v in want.items():
        assert (qargs[k].asnumpy() == v.asnumpy()).all()


def test_quantize_graph_and_calib_graph_with_a_custom_collector():
    s, args = _model()

    class Collector:
        def __init__(self):
            self.min_max_dict = {}

        def collect(self, name, arr):
            if name in ("data", "conv1_output"):
                self.min_max_dict[name] = (-5.0, 5.0)

    collector = Collector()
    qsym, qargs, _, got = Q.quantize_graph(s, args, {}, calib_mode="customize",
                                           LayerOutputCollector=collector)
    assert got is collector
    assert "min_calib_range" not in qsym.attr_dict()["requantize_conv1"]
    exe = s.simple_bind(mx.cpu(), grad_req="null", data=(2, 3, 8, 8))
    exe.set_monitor_callback(collector.collect, monitor_all=True)
    exe.forward(is_train=False)
    cq, cargs, _ = Q.calib_graph(qsym, args, {}, collector, calib_mode="customize")
    attrs = cq.attr_dict()
    assert attrs["requantize_conv1"]["max_calib_range"] == "5.000000"
    assert attrs["data_quantize"]["min_calib_range"] == "-5.000000"
    assert "min_calib_range" not in attrs["requantize_conv2"]
    _, _, _, naive = Q.quantize_graph(s, args, {}, calib_mode="naive")
    assert isinstance(naive, Q._LayerOutputMinMaxCollector)
    assert naive.include_layer[0] == "data"
    _, _, _, entropy = Q.quantize_graph(s, args, {}, calib_mode="entropy")
    assert isinstance(entropy, Q._LayerHistogramCollector)
    assert Q.quantize_graph(s, args, {}, calib_mode="none")[3] is None


class _SmallNet(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(8, 3, padding=1)
            self.act = nn.Activation("relu")
            self.pool = nn.MaxPool2D()
            self.drop = nn.Dropout(0.3)
            self.dense = nn.Dense(5)

    def hybrid_forward(self, F, x):
        return self.dense(self.drop(self.pool(self.act(self.conv(x)))))


@pytest.mark.parametrize("calib_mode", ["none", "naive", "entropy"])
def test_quantize_net_gives_a_block_close_to_the_float_one(calib_mode):
    if calib_mode == "entropy":
        pytest.importorskip("scipy")
    mx.random.seed(5)
    net = _SmallNet()
    net.initialize(mx.init.Normal(0.3))
    # enough samples for the histograms of entropy calibration to mean something
    x = nd.array(np.random.RandomState(2).uniform(-1, 1, (64, 3, 8, 8)))
    want = net(x).asnumpy()
    if calib_mode == "none":
        qnet = Q.quantize_net_v2(net, data_shapes=[mx.io.DataDesc("data", x.shape)],
                                 calib_mode="none", quantized_dtype="int8")
    else:
        # a loader of (data, label) pairs: the label is dropped as the net takes one input
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, nd.zeros((64, 1))),
                                       batch_size=16)
        qnet = Q.quantize_net_v2(net, calib_data=loader, calib_mode=calib_mode,
                                 num_calib_examples=64)
    params = qnet.collect_params()
    weight = next(p for name, p in params.items() if name.endswith("weight_quantize"))
    assert weight.data().dtype == np.int8
    got = qnet(x).asnumpy()
    assert _relative_error(got, want) < 0.05
    qnet.hybridize(static_alloc=True, static_shape=True)
    np.testing.assert_allclose(qnet(x).asnumpy(), got, rtol=1e-5, atol=1e-6)


def test_quantize_net_warns_it_is_deprecated_and_excludes_by_name():
    net = _SmallNet()
    net.initialize()
    x = nd.ones((2, 3, 8, 8))
    with pytest.warns(UserWarning, match="please use quantize_net_v2"):
        qnet = Q.quantize_net(net, data_shapes=[mx.io.DataDesc("data", x.shape)],
                              exclude_layers_match=["dense"])
    ops = ops_of(qnet(sym.var("data")))
    assert any(op == "FullyConnected" for op in ops.values())
    assert any(op == "_contrib_quantized_conv" for op in ops.values())


# ---- errors the user functions promise ----------------------------------------------------

def _model():
    s = _conv_net()
    args, _ = _params(s, (2, 3, 8, 8))
    return s, args


def test_quantize_model_errors():
    s, args = _model()
    calib = mx.io.NDArrayIter(np.ones((4, 3, 8, 8)), batch_size=2)
    run = lambda **kw: Q.quantize_model(s, args, {}, label_names=None, **kw)  # noqa: E731
    with pytest.raises(ValueError, match="excluded_sym_names must be a list of strings"):
        run(excluded_sym_names="conv1")
    with pytest.raises(ValueError, match="excluded_op_names must be a list of strings"):
        run(excluded_op_names="Convolution")
    with pytest.raises(ValueError, match="unknown quantized_dtype int4 received"):
        run(quantized_dtype="int4")
    with pytest.raises(ValueError, match="unkonwn quantize_granularity row-wise received"):
        run(quantize_granularity="row-wise")
    with pytest.raises(ValueError, match="currently only supports single ctx"):
        run(ctx=[mx.cpu()], calib_mode="naive", calib_data=calib)
    with pytest.raises(ValueError, match="calib_data must be provided when calib_mode=naive"):
        run(calib_mode="naive")
    with pytest.raises(ValueError, match="calib_data must be of DataIter type"):
        run(calib_mode="naive", calib_data=[nd.ones((4, 3, 8, 8))])
    with pytest.raises(ValueError, match="unknown calibration mode best received"):
        run(calib_mode="best", calib_data=calib)
    with pytest.raises(mx.MXNetError, match="unrecognized quantize mode"):
        run(quantize_mode="fast", calib_mode="none")


def test_quantize_graph_and_calib_graph_errors():
    s, args = _model()
    with pytest.raises(ValueError, match="excluded_sym_names must be a list of strings"):
        Q.quantize_graph(s, args, {}, excluded_sym_names="conv1")
    with pytest.raises(ValueError, match="currently only supports single ctx"):
        Q.quantize_graph(s, args, {}, ctx="cpu")
    with pytest.raises(ValueError, match="unknown quantized_dtype"):
        Q.quantize_graph(s, args, {}, quantized_dtype="float16")
    with pytest.raises(ValueError, match="unkonwn quantize_granularity"):
        Q.quantize_graph(s, args, {}, quantize_granularity="x")
    with pytest.raises(ValueError, match="expected `none`, `naive`, `entropy` or `customize`"):
        Q.quantize_graph(s, args, {}, calib_mode="customize")   # no collector given
    qsym, _, _, collector = Q.quantize_graph(s, args, {}, calib_mode="naive")
    with pytest.raises(ValueError, match="please set calibration mode to naive or entropy"):
        Q.calib_graph(qsym, args, {}, collector, calib_mode="none")
    with pytest.raises(ValueError, match="unknown calibration mode other received"):
        Q.calib_graph(qsym, args, {}, collector, calib_mode="other")


def test_quantize_net_errors():
    net = _SmallNet()
    net.initialize()
    with pytest.raises(ValueError, match="data_shapes required"):
        Q.quantize_net_v2(net)
    shapes = [mx.io.DataDesc("data", (2, 3, 8, 8))]
    with pytest.raises(ValueError, match="calib_data must be provided when calib_mode=naive"):
        Q.quantize_net_v2(net, data_shapes=shapes, calib_mode="naive")
    with pytest.raises(ValueError, match="currently only supports single ctx"):
        Q.quantize_net_v2(net, data_shapes=shapes, ctx=[mx.cpu()], calib_mode="naive",
                          calib_data=mx.io.NDArrayIter(np.ones((2, 3, 8, 8)), batch_size=2))


# ---- the int8 LSTM ----------------------------------------------------------------------------

def _lstm_graph(source=None):
    data = sym.var("data") if source is None else source
    rnn = sym.RNN(data, state_size=8, num_layers=1, mode="lstm", state_outputs=True, name="rnn",
                  parameters=sym.var("rnn_parameters"), state=sym.var("h0"),
                  state_cell=sym.var("c0"))
    fc = sym.FullyConnected(rnn[0], num_hidden=4, flatten=False, name="fc")
    return sym.Group([fc, rnn[1], rnn[2]])


@pytest.mark.parametrize("mode", ["full", "smart"])
def test_an_lstm_is_wired_as_mxnet_wires_it(mode):
    # MXNet 1.9.1's graph of the same Symbol in 'full' mode (tests/fixtures/
    # make_quantized_rnn.py); an LSTM is a must-quantize node, so 'smart' mode keeps it too
    import json
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                        "quantized_rnn_graph_mxnet.json")
    with open(path, encoding="utf-8") as f:
        ref = json.load(f)
    qsym, calib = Q._quantize_symbol(_lstm_graph(), mx.cpu(), quantize_mode=mode)
    graph = json.loads(qsym.tojson())
    nodes = [{"op": n["op"], "name": n["name"], "attrs": n.get("attrs", {}),
              "inputs": [[graph["nodes"][i[0]]["name"], i[1]] for i in n["inputs"]]}
             for n in graph["nodes"] if n["op"] != "null"]
    assert nodes == ref["nodes"]
    assert qsym.list_outputs() == ref["outputs"]
    assert qsym.list_arguments() == ref["arguments"]
    assert calib == ref["calib_layers"]


def test_an_lstm_after_a_quantized_node_reads_it_dequantized():
    # MXNet wires the int8 output straight into quantized_rnn, whose graph then fails type
    # inference; here it is dequantized and quantized again as uint8 with a scale and shift
    fc0 = sym.FullyConnected(sym.var("data"), num_hidden=6, flatten=False, name="fc0")
    qsym, calib = Q._quantize_symbol(_lstm_graph(fc0), mx.cpu(), quantize_mode="full")
    w = wiring(qsym)
    assert w["quantized_rnn"][1][0] == "fc0_output_quantize:0"
    assert w["fc0_output_quantize"] == ("_contrib_quantize_asym", ["fc0_dequantize:0"])
    assert w["fc0_dequantize"][0] == "_contrib_dequantize"
    assert "fc0_output" in calib
    rng = np.random.RandomState(0)
    shapes = {"data": (3, 2, 5), "h0": (1, 2, 8), "c0": (1, 2, 8)}
    arg_shapes, _, _ = qsym.infer_shape(**shapes)
    args = {n: nd.array(rng.uniform(-1, 1, s)) for n, s in zip(qsym.list_arguments(),
                                                                 arg_shapes)}
    outs = qsym.bind(mx.cpu(), args).forward()
    assert [o.dtype for o in outs] == [np.float32] * 3
    assert all(np.isfinite(o.asnumpy()).all() for o in outs)


@pytest.mark.parametrize("attrs", [{"mode": "gru"}, {"mode": "lstm", "projection_size": 4}])
def test_other_recurrent_nodes_stay_float(attrs):
    rnn = sym.RNN(sym.var("data"), state_size=8, num_layers=1, name="rnn", **attrs)
    qsym, _ = Q._quantize_symbol(rnn, mx.cpu(), quantize_mode="full")
    assert [n.op.name for n in topo_nodes(qsym.outputs) if n.op is not None] == ["RNN"]


def test_quantize_net_runs_a_gluon_lstm_on_the_data_grid(tmp_path):
    mx.random.seed(0)
    lstm = gluon.rnn.LSTM(16, num_layers=2, input_size=8, layout="NTC")
    lstm.initialize(mx.init.Xavier())
    lstm.hybridize()
    x = nd.random.uniform(-1, 1, (6, 5, 8))
    calib = gluon.data.DataLoader(gluon.data.ArrayDataset(x), batch_size=3)
    qlstm = Q.quantize_net_v2(lstm, calib_mode="naive", calib_data=calib,
                              num_calib_examples=6)
    ref, got = lstm(x).asnumpy(), qlstm(x).asnumpy()
    qlstm.export(str(tmp_path / "qlstm"))
    saved = sym.load(str(tmp_path / "qlstm-symbol.json"))
    asym = [n for n in topo_nodes(saved.outputs)
            if n.op is not None and n.op.name == "_contrib_quantize_asym"]
    assert len(asym) == 1 and float(asym[0].attrs["max_calib_range"]) == pytest.approx(
        x.max().asscalar(), abs=1e-6)
    assert [n.op.name for n in topo_nodes(saved.outputs)
            if n.op is not None and "quantized" in n.op.name] == ["_contrib_quantized_rnn"]
    lo, hi = x.min().asscalar(), x.max().asscalar()
    scale = np.float32(255) / np.float32(hi - lo)
    shift = np.float32(255) - np.float32(hi * scale)
    grid = got * scale + shift
    np.testing.assert_allclose(grid, np.rint(grid), atol=1e-3)
    # the error is the grid's rounding, layer after layer: well under two grid steps
    assert np.sqrt(np.mean((got - ref) ** 2)) < 2 / scale
