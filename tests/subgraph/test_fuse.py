"""The 'FUSE' inference backend (gluonlite/subgraph/fuse.py): which chains it fuses, that
fused inference equals the unfused graph to 1e-5 relative, that it is on by default for
inference plans only, that exports keep the traced graph, and that an explicitly chosen
backend still trains with the unfused gradients."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.gluon import nn
from gluonlite.ops import conv_fast, conv_shifted
from gluonlite.subgraph import fuse, partition_graph
from gluonlite.symbol.symbol import topo_nodes


def _fused_nodes(s):
    return [n for n in topo_nodes(s.outputs) if n.op is not None and n.op.name == "_sg_fuse"]


def _chain_ops(node):
    return [n.op.name for n in topo_nodes(node.params["_subgraphs"][0].outputs)
            if n.op is not None]


class _Residual(gluon.HybridBlock):
    """conv-BN-relu-conv-BN of `channels` 3x3 convolutions, the first with `stride`, plus the
    shortcut, added, relu (ResNet v1): a strided 1x1 conv-BN of the input when `stride` is
    above 1, else the input itself."""

    def __init__(self, channels=6, stride=2, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(channels, 3, stride, 1, use_bias=False), nn.BatchNorm(),
                          nn.Activation("relu"), nn.Conv2D(channels, 3, 1, 1), nn.BatchNorm())
            self.down = None
            if stride > 1:
                self.down = nn.HybridSequential()
                self.down.add(nn.Conv2D(channels, 1, stride, use_bias=False), nn.BatchNorm())

    def hybrid_forward(self, F, x):
        shortcut = x if self.down is None else self.down(x)
        return F.Activation(self.body(x) + shortcut, act_type="relu")


class _Bottleneck(gluon.HybridBlock):
    """MobileNet v2's: 1x1 relu6, depthwise 3x3 relu6, 1x1 linear, plus the input."""

    def __init__(self, c, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.out = nn.HybridSequential()
            self.out.add(nn.Conv2D(4 * c, 1, use_bias=False), nn.BatchNorm(),
                         nn.HybridLambda(lambda F, x: F.clip(x, 0, 6)),
                         nn.Conv2D(4 * c, 3, 1, 1, groups=4 * c, use_bias=False),
                         nn.BatchNorm(), nn.HybridLambda(lambda F, x: F.clip(x, 0, 6)),
                         nn.Conv2D(c, 1, use_bias=False), nn.BatchNorm())

    def hybrid_forward(self, F, x):
        return self.out(x) + x


def _head():
    """Dense + BN (flattened) + sigmoid, Dense with a gelu, LeakyReLU."""
    net = nn.HybridSequential()
    net.add(nn.Dense(7), nn.BatchNorm(), nn.Activation("sigmoid"),
            nn.Dense(5, activation="tanh"), nn.HybridLambda(
                lambda F, x: F.LeakyReLU(x, act_type="gelu")), nn.Dense(3))
    return net


def _generator():
    """DCGAN's generator layers: Conv2DTranspose, BN, relu; a last Conv2DTranspose, tanh."""
    net = nn.HybridSequential()
    net.add(nn.Conv2DTranspose(8, 4, 1, 0, use_bias=False), nn.BatchNorm(),
            nn.Activation("relu"), nn.Conv2DTranspose(3, 4, 2, 1), nn.Activation("tanh"))
    return net


class _BatchNormReLU(gluon.HybridBlock):
    """Conv2D + BatchNormReLU (one contrib.BatchNormWithReLU node), then another, whose relu
    comes before a residual addition of the first's output."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.a = nn.HybridSequential()
            self.a.add(nn.Conv2D(4, 3, padding=1, use_bias=False), nn.BatchNormReLU())
            self.b = nn.HybridSequential()
            self.b.add(nn.Conv2D(4, 3, padding=1), nn.BatchNormReLU())

    def hybrid_forward(self, F, x):
        h = self.a(x)
        return self.b(h) + h


_CASES = {  # name: (block maker, input shape, operator chains expected)
    "residual": (_Residual, (2, 3, 9, 9),
                 [["Convolution", "BatchNorm", "Activation"],
                  ["Convolution", "BatchNorm"],
                  ["Convolution", "BatchNorm", "elemwise_add", "Activation"]]),
    "bottleneck": (lambda: _Bottleneck(3), (2, 3, 8, 8),
                   [["Convolution", "BatchNorm", "clip"]] * 2 +
                   [["Convolution", "BatchNorm", "elemwise_add"]]),
    "head": (_head, (4, 6),
             [["FullyConnected", "BatchNorm", "Activation"],
              ["FullyConnected", "Activation", "LeakyReLU"]]),
    "batchnorm_relu": (_BatchNormReLU, (2, 3, 6, 6),
                       [["Convolution", "_contrib_BatchNormWithReLU"],
                        ["Convolution", "_contrib_BatchNormWithReLU", "elemwise_add"]]),
    "generator": (_generator, (2, 5, 1, 1),
                  [["Deconvolution", "BatchNorm", "Activation"],
                   ["Deconvolution", "Activation"]]),
}


def _move_statistics(net, rng):
    """Set every BatchNorm's scales, shifts and moving statistics of `net` to draws from
    `rng` away from 0 and 1 (gamma and the variance in [0.5, 1.5), the rest in [-0.5, 0.5))."""
    for pname, p in net.collect_params().items():
        if pname.endswith(("gamma", "beta", "running_mean", "running_var")):
            lo = 0.5 if pname.endswith(("gamma", "running_var")) else -0.5
            p.set_data(nd.array(rng.uniform(lo, lo + 1.0, p.shape)))


def _bottleneck(shape):
    """A `_Bottleneck` of 3 channels, initialized on an input of `shape` (returned too), its
    statistics moved."""
    mx.random.seed(0)
    net = _Bottleneck(3)
    net.initialize(mx.init.Xavier(magnitude=2.0))
    x = nd.array(np.random.default_rng(1).standard_normal(shape))
    net(x)
    _move_statistics(net, np.random.default_rng(2))
    return net, x


def _make(name, dtype="float32"):
    make, shape, chains = _CASES[name]
    mx.random.seed(0)
    net = make()
    net.initialize(mx.init.Xavier(magnitude=2.0))
    rng = np.random.default_rng(1)
    x = nd.array(rng.standard_normal(shape))
    net(x)
    _move_statistics(net, rng)
    if dtype != "float32":
        net.cast(dtype)
        x = x.astype(dtype)
    return net, x, chains


@pytest.mark.parametrize("static", [False, True], ids=["plain", "static_alloc"])
@pytest.mark.parametrize("name", sorted(_CASES))
def test_inference_fused_by_default_matches_unfused(name, static):
    net, x, chains = _make(name)
    ref = net(x).asnumpy()  # imperative: every operator on its own
    net.hybridize(static_alloc=static, static_shape=static)
    for _ in range(2):  # a static plan's second call reuses its buffers
        got = net(x).asnumpy()
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    op = next(iter(net._cached_ops.values()))[0]
    fused = _fused_nodes(op._inference_symbol)
    assert sorted(map(_chain_ops, fused)) == sorted(chains)
    # the training graph is the traced one
    assert not _fused_nodes(op.symbol)


def test_fusion_off_by_switch_and_environment(monkeypatch):
    net, x, _ = _make("residual")
    monkeypatch.setattr(fuse, "DEFAULT_ON", False)
    net.hybridize()
    net(x)
    assert not _fused_nodes(next(iter(net._cached_ops.values()))[0]._inference_symbol)
    monkeypatch.setattr(fuse, "DEFAULT_ON", True)
    monkeypatch.setenv(fuse.ENV_VAR, "0")
    net.hybridize()
    net(x)
    assert not _fused_nodes(next(iter(net._cached_ops.values()))[0]._inference_symbol)


def test_training_and_recording_run_the_unfused_graph():
    net, x, _ = _make("residual")
    net.hybridize(static_alloc=True)
    with autograd.record():
        y = net(x)
    y.backward()
    op = next(iter(net._cached_ops.values()))[0]
    assert op._inference_symbol is None  # no inference plan compiled yet
    assert all(not _fused_nodes(p.symbol) for p in op.plans)


def test_export_writes_the_traced_graph(tmp_path):
    net, x, _ = _make("residual")
    net.hybridize(static_alloc=True)
    net(x)
    sym_file, _ = net.export(str(tmp_path / "net"))
    ops = {n["op"] for n in json.load(open(sym_file))["nodes"]}
    assert "BatchNorm" in ops and "Convolution" in ops and "_sg_fuse" not in ops


def test_read_twice_is_not_fused():
    """A value another node also reads is not folded away (here a BatchNorm's output that
    is both activated and returned)."""
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(3, 3), num_filter=4, no_bias=True, name="c")
    b = sym.BatchNorm(c, name="bn")
    out = sym.Group([sym.Activation(b, act_type="relu"), b])
    p = partition_graph(out, "FUSE")
    assert [_chain_ops(n) for n in _fused_nodes(p)] == [["Convolution", "BatchNorm"]]
    # nothing past a product read twice
    c2 = sym.Convolution(x, kernel=(1, 1), num_filter=4, name="c2")
    both = sym.Group([sym.relu(c2), c2 * 2])
    assert not _fused_nodes(partition_graph(both, "FUSE"))


def test_partitioned_symbol_keeps_inputs_and_runs(monkeypatch):
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "NONE")  # the reference runs unfused
    net, x, _ = _make("bottleneck")
    net.hybridize()
    net(x)
    traced = net._cached_graph[1]
    fused = traced.optimize_for("FUSE")
    assert fused.list_inputs() == traced.list_inputs()
    assert fused.list_auxiliary_states() == traced.list_auxiliary_states()
    assert fused.list_outputs() == traced.list_outputs()
    args = {p.name: p.data() for p in net.collect_params().values()}
    args["data"] = x
    aux = {k: args.pop(k) for k in traced.list_auxiliary_states()}
    ref = traced.bind(mx.cpu(), dict(args), aux_states=dict(aux)).forward()[0].asnumpy()
    got = fused.bind(mx.cpu(), dict(args), aux_states=dict(aux)).forward()[0].asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


@pytest.mark.parametrize("how", ["hybridize", "optimize_for"])
def test_explicit_backend_trains_like_the_unfused_graph(how):
    """With backend='FUSE' every call runs the fused graph: a training step gives the unfused
    gradients and moves the BatchNorm statistics once."""
    grads, stats = {}, {}
    for fused in (False, True):
        net, x, _ = _make("residual", "float64")
        if not fused:
            net.hybridize()
        elif how == "hybridize":
            net.hybridize(backend="FUSE")
        else:
            net.optimize_for(x, backend="FUSE")
        with autograd.record():
            y = net(x)
        y.backward(nd.array(np.linspace(-1, 1, y.size).reshape(y.shape), dtype="float64"))
        # by position: each instance has its own name prefix
        grads[fused] = [p.grad().asnumpy() for p in net.collect_params().values()
                        if p.grad_req != "null"]
        stats[fused] = [p.data().asnumpy() for k, p in net.collect_params().items()
                        if "running" in k]
        if fused:
            op = next(iter(net._cached_ops.values()))[0]
            assert _fused_nodes(op.symbol)
    assert len(grads[True]) == len(grads[False]) == 10 and len(stats[False]) == 6
    for got, want in zip(grads[True], grads[False]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    for got, want in zip(stats[True], stats[False]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_mxnet_backend_name_and_unknown_backend():
    net, x, _ = _make("head")
    ref = net(x).asnumpy()
    net.hybridize(backend="MKLDNN")
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="unknown backend 'NOPE'"):
        net.optimize_for(x, backend="NOPE")


def test_a_failing_fusion_warns_and_runs_unfused(monkeypatch):
    net, x, _ = _make("residual")
    ref = net(x).asnumpy()

    def broken(symbol, backend, op_names=None):
        raise RuntimeError("selector bug")
    monkeypatch.setattr(fuse, "partition_graph", broken)
    net.hybridize()
    with pytest.warns(UserWarning, match="inference fusion skipped.*selector bug"):
        got = net(x).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_shifted_convolutions_take_the_fused_epilogue(monkeypatch):
    """The chains' BatchNorm, activation and residual addition run as the epilogue of the
    per-tap products' output blocks, and give the unfused im2col graph's numbers."""
    mx.random.seed(0)
    # 16-channel 3x3 convolutions on 28 x 28 maps: the layers `conv_shifted` takes
    net = _Residual(16, 1)
    net.initialize(mx.init.Xavier(magnitude=2.0))
    x = nd.array(np.random.default_rng(1).standard_normal((3, 16, 28, 28)))
    monkeypatch.setattr(conv_shifted, "ENABLED", False)
    ref = net(x).asnumpy()
    monkeypatch.setattr(conv_shifted, "ENABLED", True)
    epilogues = []
    real = conv_shifted.forward
    monkeypatch.setattr(conv_shifted, "forward", lambda *a, **k: epilogues.append(
        k.get("epilogue") is not None) or real(*a, **k))
    net.hybridize(static_alloc=True, static_shape=True)
    got = net(x).asnumpy()
    assert epilogues == [True, True]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    op = next(iter(net._cached_ops.values()))[0]
    assert sorted(map(_chain_ops, _fused_nodes(op._inference_symbol))) == [
        ["Convolution", "BatchNorm", "Activation"],
        ["Convolution", "BatchNorm", "elemwise_add", "Activation"]]


def test_depthwise_and_pointwise_layers_take_the_epilogue_block_by_block(monkeypatch):
    """On a map wider than the banded products take (40 x 40), a depthwise layer's blocks
    (some samples, some channels) and a 1x1 layer's samples each get their BatchNorm, clip
    and residual addition while the block is in the cache, and give the unfused graph's
    numbers."""
    monkeypatch.setattr(conv_fast, "_DW_BLOCK", 42 * 43)   # blocks of two samples' channel
    monkeypatch.setattr(conv_fast, "_EPILOGUE_BLOCK", 4000)     # a 1x1 layer's sample each
    net, x = _bottleneck((3, 3, 40, 40))
    ref = net(x).asnumpy()
    indices = []
    real = fuse._epilogue

    def spy(*a, **k):
        f = real(*a, **k)
        return f and (lambda block, index: indices.append(index) or f(block, index))
    monkeypatch.setattr(fuse, "_epilogue", spy)
    net.hybridize(static_alloc=True, static_shape=True)
    got = net(x).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    blocks = [i for i in indices if len(i) == 2]
    samples = [i for i in indices if len(i) == 1 and i[0] != slice(None)]
    # the depthwise layer's 3 samples x 12 channels, each once, in blocks of two samples
    # (then the last one) by one channel
    cells = sorted((n, ch) for s, cs in blocks for n in range(3)[s] for ch in range(12)[cs])
    assert cells == [(n, ch) for n in range(3) for ch in range(12)]
    assert sorted({(s.start, s.stop) for s, _ in blocks}) == [(0, 2), (2, 3)]
    # two 1x1 layers, a sample per chunk (12 or 3 channels of 1600 entries each)
    assert sorted(i[0].start for i in samples) == [0, 0, 1, 1, 2, 2]


def test_an_epilogue_on_some_channels_takes_their_scale_and_shift():
    """An output pass left unfolded (a weight larger than the output) on a block of one
    sample's channels scales and shifts those channels by their own factors."""
    rng = np.random.default_rng(3)
    scale, shift = rng.uniform(0.5, 2, 6), rng.standard_normal(6)
    y = rng.standard_normal((2, 6, 5))
    f = fuse._epilogue([], [], None, (2, 6, -1), scale, shift)
    got = y.copy()
    for s in range(2):
        for c0 in (0, 4):
            cs = slice(c0, min(6, c0 + 4))
            f(got[s, cs], (s, cs))
    np.testing.assert_allclose(got, y * scale[:, None] + shift[:, None], rtol=1e-12)


def _narrow_bottleneck():
    """A hybridized (static) `_bottleneck` on an 8 x 8 map (its depthwise layer banded), and
    its input."""
    net, x = _bottleneck((2, 3, 8, 8))
    net.hybridize(static_alloc=True, static_shape=True)
    return net, x


def _unfused(net, x):
    """The same cached block's unfused graph, BatchNorm on its moving statistics: a recorded
    call in predict mode runs the traced plan."""
    with autograd.record(train_mode=False):
        return net(x).asnumpy()


def _param(net, suffix, index):
    return [p for n, p in net.collect_params().items() if n.endswith(suffix)][index]


def test_kept_folding_is_reused_until_a_parameter_changes(monkeypatch):
    """Fused inference keeps each small layer's folded weight, bias and BatchNorm factors
    between calls (fuse.KEEP_FOLDED) and folds again the chain whose BatchNorm vectors or
    weight changed, however they were written: in place through the NDArray, by set_data,
    or by a Trainer's step. Every call gives the unfused graph's numbers."""
    net, x = _narrow_bottleneck()
    made = []
    real = fuse._bn_scale_shift
    monkeypatch.setattr(fuse, "_bn_scale_shift", lambda *a: made.append(1) or real(*a))
    first = net(x).asnumpy()
    assert len(made) == 3  # three chains, each with its BatchNorm
    np.testing.assert_array_equal(net(x).asnumpy(), first)
    assert len(made) == 3  # reused

    def in_place_gamma():
        gamma = _param(net, "gamma", 1).data()
        gamma[:] = gamma * 1.5

    def moved_statistics():
        var = _param(net, "running_var", 1)
        var.set_data(var.data() + 0.75)

    def in_place_depthwise_weight():
        w = _param(net, "weight", 1).data()    # the depthwise layer's (12, 1, 3, 3)
        w[:, :, 1] += 0.25

    def in_place_pointwise_weight():
        w = _param(net, "weight", 0).data()
        w *= 2

    def trainer_step():
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        with autograd.record():
            loss = (net(x) ** 2).mean()
        loss.backward()
        trainer.step(1)

    last = first
    for write in (in_place_gamma, moved_statistics, in_place_depthwise_weight,
                  in_place_pointwise_weight, trainer_step):
        n = len(made)
        write()
        got = net(x).asnumpy()
        assert len(made) > n, write.__name__
        assert np.abs(got - last).max() > 1e-3, write.__name__  # the write reached the output
        ref = _unfused(net, x)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max(),
                                   err_msg=write.__name__)
        last = got


def test_a_weight_left_unfolded_keeps_only_its_batchnorm_factors(monkeypatch):
    """A weight larger than the output (a 3x3 layer on a 2 x 2 map) is not folded into: its
    BatchNorm's scale and shift are kept and made again when the statistics change, while
    the weight itself, written in place, is read afresh on every call."""
    mx.random.seed(0)
    net = nn.HybridSequential()
    net.add(nn.Conv2D(16, 3, padding=1, in_channels=8), nn.BatchNorm(), nn.Activation("relu"))
    net.initialize(mx.init.Xavier(magnitude=2.0))
    x = nd.array(np.random.default_rng(1).standard_normal((1, 8, 2, 2)))
    net(x)
    net.hybridize(static_alloc=True, static_shape=True)
    made = []
    real = fuse._bn_scale_shift
    monkeypatch.setattr(fuse, "_bn_scale_shift", lambda *a: made.append(1) or real(*a))
    first = net(x).asnumpy()
    net(x)
    assert len(made) == 1
    w = _param(net, "weight", 0).data()
    w *= -1
    got = net(x).asnumpy()
    assert len(made) == 1 and np.abs(got - first).max() > 1e-3
    np.testing.assert_allclose(got, _unfused(net, x), rtol=1e-5, atol=1e-6)
    mean = _param(net, "running_mean", 0).data()
    mean[:] = 0.5
    got = net(x).asnumpy()
    assert len(made) == 2
    np.testing.assert_allclose(got, _unfused(net, x), rtol=1e-5, atol=1e-6)


def test_kept_folding_can_be_switched_off(monkeypatch):
    """With fuse.KEEP_FOLDED False every call folds again, with the same numbers, and the
    folded weight it hands the product stays writable."""
    net, x = _narrow_bottleneck()
    kept = net(x).asnumpy()
    monkeypatch.setattr(fuse, "KEEP_FOLDED", False)
    made = []
    real = fuse._bn_scale_shift
    monkeypatch.setattr(fuse, "_bn_scale_shift", lambda *a: made.append(1) or real(*a))
    weights = []
    real_forward = conv_fast.forward
    monkeypatch.setattr(conv_fast, "forward",
                        lambda x_, w, *a, **k: weights.append(w) or real_forward(x_, w, *a, **k))
    for _ in range(2):
        np.testing.assert_array_equal(net(x).asnumpy(), kept)
    assert len(made) == 6
    assert all(w.flags.writeable for w in weights)


def _bound_args(net, x, traced):
    """(args, aux) of `traced`, `net`'s graph on input `data`, from net's parameters."""
    args = {p.name: p.data().copy() for p in net.collect_params().values()}
    args["data"] = x
    aux = {k: args.pop(k) for k in traced.list_auxiliary_states()}
    return args, aux


@pytest.mark.parametrize("name", ["residual", "head"])
def test_an_executor_bound_without_gradients_runs_the_fused_graph(name):
    """As MXNet's CPU builds partition such a graph with their MKLDNN backend: the inference
    plans of an executor that computes no gradient run the fused chains, to 1e-5 of the
    unfused values; its graph stays as bound, so a monitor still sees every node."""
    net, x, chains = _make(name)
    ref = net(x).asnumpy()
    traced = net(sym.var("data"))
    args, aux = _bound_args(net, x, traced)
    exe = traced.bind(mx.cpu(), args, aux_states=aux)
    got = exe.forward(is_train=False)[0].asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    assert sorted(map(_chain_ops, _fused_nodes(exe.plans[0].symbol))) == sorted(chains)
    assert not _fused_nodes(exe.get_optimized_symbol())
    seen = []
    exe.set_monitor_callback(lambda n, a: seen.append(n))
    exe.forward(is_train=False)
    bns = [n.name for n in topo_nodes(traced.outputs) if n.op is not None
           and n.op.name == "BatchNorm"]
    assert bns and all(f"{b}_output" in seen for b in bns)


def test_an_executor_with_gradients_or_another_backend_runs_the_bound_graph(monkeypatch):
    net, x, _ = _make("residual")
    traced = net(sym.var("data"))
    args, aux = _bound_args(net, x, traced)
    grads = {k: nd.zeros(v.shape) for k, v in args.items()}
    with_grads = traced.bind(mx.cpu(), args, args_grad=grads, aux_states=aux)
    with_grads.forward(is_train=False)
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "NONE")
    off = traced.bind(mx.cpu(), args, aux_states=aux)
    off.forward(is_train=False)
    monkeypatch.delenv("MXNET_SUBGRAPH_BACKEND")
    monkeypatch.setenv(fuse.ENV_VAR, "0")
    switched = traced.bind(mx.cpu(), args, aux_states=aux)
    switched.forward(is_train=False)
    monkeypatch.delenv(fuse.ENV_VAR)
    training = traced.bind(mx.cpu(), args, aux_states=aux)
    training.forward(is_train=True)
    for exe in (with_grads, off, switched, training):
        assert not _fused_nodes(exe.plans[0].symbol)
