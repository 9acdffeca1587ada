"""Arrays, blocks and training on each context (`ctx`: cpu, gpu where CuPy sees a device,
and the gpu paths on tests/fakecupy.py), compared with the same work on the cpu; copies
between devices; device synchronization; and the fake device itself (what it refuses)."""
import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest

import fakecupy
import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import rnn

TOL = {"rtol": 1e-4, "atol": 1e-5}  # float32: a GPU's kernels sum in other orders


# ---- the fake device refuses what a GPU run must not do silently ---------------------------
def test_fake_gpu_arrays_refuse_implicit_host_reads(fake_gpu):
    x = nd.array([[1.0, 2.0], [3.0, 4.0]], ctx=mx.gpu(0))
    assert isinstance(x.handle, fakecupy.DeviceArray) and mx.gpu(0).xp is fake_gpu
    with pytest.raises(fakecupy.HostCopyError, match=r"converted to numpy implicitly"):
        np.asarray(x.handle)
    with pytest.raises(fakecupy.HostCopyError, match=r"float\(\) of a device array"):
        float(x.handle.sum())
    with pytest.raises(fakecupy.HostCopyError, match=r"bool\(\) of a device array"):
        bool(x.handle[0, 0] > 0)
    with pytest.raises(fakecupy.HostCopyError, match=r"host numpy array of shape \(2, 2\)"):
        x.handle + np.ones((2, 2), np.float32)
    with pytest.raises(AttributeError, match=r"module 'cupy' has no attribute 'errstate'"):
        fake_gpu.errstate  # noqa: B018 - numpy has it, CuPy does not
    assert fake_gpu.stats["host_copies"] == 0
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    assert fake_gpu.stats["host_copies"] == 1  # asnumpy() is the copy


# ---- copies between devices -----------------------------------------------------------------
def test_copyto_and_as_in_context_between_cpu_and_ctx(ctx):
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = nd.array(host)
    y = x.as_in_context(ctx)
    assert y.context == ctx and (y is x) == (ctx == mx.cpu())
    np.testing.assert_array_equal(y.asnumpy(), host)
    z = y.copyto(ctx)  # a copy, also on one device
    z[:] = 0
    np.testing.assert_array_equal(y.asnumpy(), host)
    back = y.as_in_context(mx.cpu())
    assert back.context == mx.cpu()
    np.testing.assert_array_equal(back.asnumpy(), host)
    target = nd.zeros((2, 3), ctx=ctx)
    assert x.copyto(target) is target
    np.testing.assert_array_equal(target.asnumpy(), host)
    target[0] = nd.array([7, 8, 9])  # a row from the cpu into an array on ctx
    np.testing.assert_array_equal(target.asnumpy()[0], [7, 8, 9])


def test_mixing_ctx_with_cpu_in_one_operator_is_an_error(ctx):
    if ctx == mx.cpu():
        pytest.skip("one context")
    with pytest.raises(ValueError, match=r"gpu\(0\).*cpu\(0\)|cpu\(0\).*gpu\(0\)"):
        nd.ones((2,), ctx=ctx) + nd.ones((2,))


# ---- device synchronization -------------------------------------------------------------------
def test_waitall_and_wait_to_read_synchronize_a_used_gpu(fake_gpu):
    nd.waitall()
    assert fake_gpu.stats["syncs"] == 0  # no gpu array yet: nothing to wait for
    x = nd.ones((3,), ctx=mx.gpu(0)) * 2
    nd.waitall()
    assert fake_gpu.stats["syncs"] == 1
    x.wait_to_read()
    assert fake_gpu.stats["syncs"] == 2
    nd.ones((3,)).wait_to_read()  # a cpu array is computed already
    assert fake_gpu.stats["syncs"] == 2


# ---- blocks on ctx against the same blocks on the cpu -----------------------------------------
def _train_steps(make, ctx, inputs, steps=2, hybridize=None):
    """`steps` SGD steps of `make()` on ctx; returns (outputs, input grads, param values)
    of the last step as numpy."""
    mx.random.seed(3)
    net = make()
    net.initialize(mx.init.Uniform(0.3), ctx=ctx)
    if hybridize is not None:
        net.hybridize(static_alloc=hybridize == "static")
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                            "momentum": 0.9})
    for _ in range(steps):
        xs = [nd.array(x, ctx=ctx) for x in inputs]
        for x in xs:
            x.attach_grad()
        with autograd.record():
            out = net(*xs)
            out = out[0] if isinstance(out, (list, tuple)) else out
            loss = (out * out).sum()
        loss.backward()
        trainer.step(1)
    for p in net.collect_params().values():
        assert p.data().context == ctx and p.grad().context == ctx, p.name
    return ([out.asnumpy()] + [x.grad.asnumpy() for x in xs] +
            [p.data().asnumpy() for p in net.collect_params().values()])


class ForeachLSTM(gluon.HybridBlock):
    """The seed model: an LSTM cell run by foreach."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.LSTMCell(6, input_size=4)

    def hybrid_forward(self, F, x, h, c):
        outs, _ = F.contrib.foreach(self.cell, x, [h, c])
        return outs


class WhileGRU(gluon.HybridBlock):
    """A GRU cell run by while_loop over a step counter (the seed's WhileRNN)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.GRUCell(5, input_size=4)

    def hybrid_forward(self, F, x, i0, h0):
        def step(i, h):
            out, (h2,) = self.cell(F.take(x, i).squeeze(axis=0), [h])
            return [out], [i + 1, h2]
        outs, _ = F.contrib.while_loop(self.cond, step, [i0, h0], max_iterations=8)
        return outs[0]

    @staticmethod
    def cond(i, h):
        """Six steps, the counter compared with a constant: a counted loop."""
        return i < 6


class WhileGRUUncounted(WhileGRU):
    """WhileGRU whose condition reads a loop value: decided before each step."""

    @staticmethod
    def cond(i, h):
        return (i + h.sum() * 0) < 6


MODELS = {
    "dense": (lambda: gluon.nn.Dense(5, in_units=4), [(3, 4)]),
    "lstm_layer": (lambda: rnn.LSTM(6, num_layers=2, bidirectional=True, input_size=4),
                   [(6, 3, 4)]),
    "foreach_lstm": (ForeachLSTM, [(6, 3, 4), (3, 6), (3, 6)]),
    "while_gru": (WhileGRU, [(6, 3, 4), np.zeros(1, np.float32), (3, 5)]),
    "while_gru_uncounted": (WhileGRUUncounted, [(6, 3, 4), np.zeros(1, np.float32), (3, 5)]),
}


@pytest.mark.parametrize("mode", [None, "hybrid", "static"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_training_steps_on_ctx_match_the_cpu(ctx, model, mode):
    make, shapes = MODELS[model]
    rng = np.random.RandomState(0)
    inputs = [s if isinstance(s, np.ndarray) else rng.uniform(-1, 1, s).astype(np.float32)
              for s in shapes]
    want = _train_steps(make, mx.cpu(), inputs, hybridize=mode)
    got = _train_steps(make, ctx, inputs, hybridize=mode)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, err_msg=f"{model} {mode}: value {k}", **TOL)


def test_save_parameters_from_ctx_and_load_on_either(ctx, tmp_path):
    mx.random.seed(5)
    net = rnn.LSTM(4, input_size=3)
    net.initialize(ctx=ctx)
    net.save_parameters(str(tmp_path / "a.params"))
    values = {k: p.data().asnumpy() for k, p in net.collect_params().items()}
    for where in (mx.cpu(), ctx):
        other = rnn.LSTM(4, input_size=3, prefix=net.prefix)
        other.load_parameters(str(tmp_path / "a.params"), ctx=where)
        for k, p in other.collect_params().items():
            assert p.data().context == where, k
            np.testing.assert_array_equal(p.data().asnumpy(), values[k], err_msg=k)
    cpu_net = rnn.LSTM(4, input_size=3, prefix=net.prefix)
    cpu_net.load_parameters(str(tmp_path / "a.params"), ctx=mx.cpu())
    cpu_net.save_parameters(str(tmp_path / "b.params"))
    assert (tmp_path / "a.params").read_bytes() == (tmp_path / "b.params").read_bytes()


# ---- no host copies inside a loop ---------------------------------------------------------------
def _hybrid_run(model, fake):
    make, shapes = MODELS[model]
    net = make()
    net.initialize(ctx=mx.gpu(0))
    net.hybridize(static_alloc=True)
    xs = [nd.array(s if isinstance(s, np.ndarray) else np.ones(s, np.float32), ctx=mx.gpu(0))
          for s in shapes]
    for _ in range(2):  # the second call runs the compiled plan only
        fakecupy.reset_stats()
        with autograd.record():
            out = net(*xs)
        out.backward()
    return fake.stats["host_copies"]


def test_a_hybridized_foreach_makes_no_host_copy_forward_or_backward(fake_gpu):
    assert _hybrid_run("foreach_lstm", fake_gpu) == 0


def test_a_counted_while_loop_reads_only_its_trip_count_on_the_host(fake_gpu):
    assert _hybrid_run("while_gru", fake_gpu) == 1


def test_an_uncounted_while_loop_reads_its_condition_before_each_step(fake_gpu):
    assert _hybrid_run("while_gru_uncounted", fake_gpu) == 6 + 1  # the last one stops it


# ---- why the real gpu cases skip ----------------------------------------------------------------
def test_probe_gpu_names_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert mx.context.probe_gpu() == (None, "CuPy is not installed (pip install "
                                            "gluonlite[gpu])")

    def no_device():
        raise RuntimeError("cudaErrorInsufficientDriver")
    fake = types.SimpleNamespace(__version__="14.2.0", cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=no_device)))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    assert mx.context.probe_gpu() == (None, "CuPy 14.2.0 sees no CUDA device: RuntimeError: "
                                            "cudaErrorInsufficientDriver")


def test_a_gpu_case_computes_on_cupy_or_the_fake_never_numpy(ctx):
    if ctx.device_type == "cpu":
        pytest.skip("the cpu case computes on numpy")
    x = nd.ones((2,), ctx=ctx) * 2
    assert type(x.handle).__module__.split(".")[0] in ("cupy", "fakecupy"), type(x.handle)
    assert mx.context.probe_gpu()[1] is None or isinstance(x.handle, fakecupy.DeviceArray)


def test_one_hybridized_block_on_the_cpu_and_on_ctx(ctx):
    """A block whose parameters live on both contexts compiles one plan per context."""
    net = rnn.LSTM(5, input_size=4)
    net.initialize(ctx=[mx.cpu(), ctx] if ctx != mx.cpu() else mx.cpu())
    net.hybridize(static_alloc=True)
    x = np.random.RandomState(1).uniform(-1, 1, (4, 2, 4)).astype(np.float32)
    outs = {}
    for where in (mx.cpu(), ctx, mx.cpu()):
        out = net(nd.array(x, ctx=where))
        assert out.context == where
        outs.setdefault(where, []).append(out.asnumpy())
    for got in outs.values():
        for a in got:
            np.testing.assert_allclose(a, outs[mx.cpu()][0], **TOL)


def test_binding_arrays_of_another_device_is_an_error(ctx):
    if ctx == mx.cpu():
        pytest.skip("one context")
    x = mx.sym.var("x")
    with pytest.raises(ValueError, match=r"bind: array for 'x' is on gpu\(0\), the executor "
                                         r"on cpu\(0\); copy it there with "
                                         r"as_in_context\(cpu\(0\)\)"):
        (x * 2).bind(mx.cpu(), {"x": nd.ones((2,), ctx=ctx)})
    with pytest.raises(ValueError, match=r"bind: gradient array for 'x' is on cpu\(0\), the "
                                         r"executor on gpu\(0\)"):
        (x * 2).bind(ctx, {"x": nd.ones((2,), ctx=ctx)}, args_grad={"x": nd.zeros((2,))})
    exe = (x * 2).bind(ctx, {"x": nd.ones((2,), ctx=ctx)})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [2, 2])


def test_executor_backward_takes_out_grads_from_the_host_or_another_device(ctx):
    x = mx.sym.var("x")
    grad = nd.zeros((2,), ctx=ctx)
    exe = (x * 2).bind(ctx, {"x": nd.ones((2,), ctx=ctx)}, args_grad={"x": grad})
    for head in (np.array([1.0, 3.0], np.float32), nd.array([1.0, 3.0])):
        grad[:] = 0
        exe.forward(is_train=True)
        exe.backward([head])
        np.testing.assert_array_equal(grad.asnumpy(), [2, 6])


def test_take_with_mode_raise_checks_its_indices_on_ctx(ctx):
    a = nd.array([[1, 2], [3, 4]], ctx=ctx)
    np.testing.assert_array_equal(
        nd.take(a, nd.array([1], ctx=ctx), mode="raise").asnumpy(), [[3, 4]])
    with pytest.raises(ValueError, match=r"take: an index is out of range \[0, 2\) with "
                                         r"mode='raise'"):
        nd.take(a, nd.array([2], ctx=ctx), mode="raise")


def test_the_gpu_guides_example_runs_on_the_gpu_path(fake_gpu, capsys):
    # docs/guide/gpu.md shows it without running it (the docs build has no GPU); here it runs
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "guide",
                        "gpu.md")
    blocks = re.findall(r"```python\n(.*?)```", open(page, encoding="utf-8").read(), re.S)
    example = next(b for b in blocks if "mx.gpu(0)" in b)
    scope = {}
    exec(compile(example, "docs/guide/gpu.md", "exec"), scope)
    assert scope["y"].context == mx.gpu(0) and isinstance(scope["y"].handle,
                                                          fakecupy.DeviceArray)
    assert fake_gpu.stats["syncs"] == 1 and fake_gpu.stats["host_copies"] == 1
    assert capsys.readouterr().out.count("[") == 3  # a 2x4 array printed


def test_a_run_meant_for_a_gpu_fails_where_there_is_none():
    """GLUONLITE_TEST_GPU=1 turns the gpu cases' skip into a failure naming the cause."""
    reason = mx.context.probe_gpu()[1]
    if reason is None:
        pytest.skip("a GPU is here: the gpu cases run")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, GLUONLITE_TEST_GPU="1", PYTHONPATH=root)
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                        os.path.abspath(__file__), "-k", "never_numpy and not fake_gpu"],
                       capture_output=True, text=True, env=env, cwd=root, timeout=120)
    assert p.returncode == 1, p.stdout
    assert f"Failed: GLUONLITE_TEST_GPU=1 but {reason}" in p.stdout, p.stdout[-2000:]
