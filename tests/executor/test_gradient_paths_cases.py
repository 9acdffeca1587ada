"""Gradient fast paths against their references.

The fast paths (grad buffers handed down as destinations, generated forward/backward code,
static_alloc buffers, loop nodes' per-call buffers) must never change a value or a gradient.
Each test runs one computation hybridized (every static_alloc/static_shape combination) or
through an Executor, and the same computation imperatively (not hybridized) as the reference;
a few finite-difference checks verify that reference itself. float64 throughout, so the
tolerances are tight.
"""
import numpy as np
import pytest

from gluonlite import autograd, nd, sym
from gluonlite.gluon import HybridBlock, nn
from gluonlite.ndarray.ndarray import NDArray
from gluonlite.test_utils import assert_almost_equal, check_numeric_gradient, finite_difference

F64 = "float64"
RTOL, ATOL = 1e-10, 1e-12
HYBRID = [pytest.param((sa, ss), id=f"static_alloc={sa}-static_shape={ss}")
          for sa in (False, True) for ss in (False, True)]


# ---- helpers ---------------------------------------------------------------------------------
def _arr(rng, *shape):
    return nd.array(rng.standard_normal(shape), dtype=F64)


def _params(net):
    return list(net.collect_params().values())


def _setup(net, mode, seed=0):
    """Initialize `net` with values that depend only on `seed` (not on parameter names), then
    hybridize it with mode (static_alloc, static_shape), or leave it imperative (mode None)."""
    net.initialize()
    rng = np.random.default_rng(seed)
    for p in _params(net):
        p.set_data(nd.array(rng.standard_normal(p.shape) * 0.5, dtype=F64))
    if mode is not None:
        net.hybridize(static_alloc=mode[0], static_shape=mode[1])
    return net


def _grads(net, tag=""):
    """{position: copy of the grad} for every parameter whose grad_req is not 'null'."""
    return {f"{tag}p{i}": p.grad().asnumpy() for i, p in enumerate(_params(net))
            if p.grad_req != "null"}


def _same(got, want, rtol=RTOL, atol=ATOL):
    assert sorted(got) == sorted(want)
    for k in want:
        assert_almost_equal(got[k], want[k], rtol=rtol, atol=atol,
                            names=(f"fast path {k}", f"reference {k}"))


def _compare(run, mode, **tol):
    """run(mode) -> {name: array}; hybridized `mode` must give the imperative results."""
    _same(run(mode), run(None), **tol)


class _Seq(HybridBlock):
    """Dense -> tanh -> Dense on (N, in_units) data (or more axes, flattened)."""

    def __init__(self, units=(5, 3), in_units=4, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d1 = nn.Dense(units[0], in_units=in_units, dtype=F64)
            self.d2 = nn.Dense(units[1], in_units=units[0], dtype=F64)

    def hybrid_forward(self, F, x):
        return self.d2(F.tanh(self.d1(x)))


class _SharedTwice(HybridBlock):
    """One Dense's parameters used by two layers of the block (``params=``)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d1 = nn.Dense(4, in_units=4, dtype=F64)
            self.d2 = nn.Dense(4, in_units=4, dtype=F64, params=self.d1.collect_params())

    def hybrid_forward(self, F, x):
        return self.d2(F.tanh(self.d1(x)))


# ---- sharing: one value, several uses ------------------------------------------------------
@pytest.mark.parametrize("req", ["write", "add"])
@pytest.mark.parametrize("mode", HYBRID)
def test_parameter_used_by_two_layers_of_one_block(mode, req):
    """A Parameter read twice inside one CachedOp gets the sum, not the last use's grad."""
    def run(mode):
        net = _setup(_SharedTwice(), mode)
        assert len(_params(net)) == 2
        net.collect_params().setattr("grad_req", req)
        rng = np.random.default_rng(1)
        out = {}
        for call in range(2):
            x = _arr(rng, 3, 4)
            x.attach_grad(req)
            with autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            out.update(_grads(net, f"c{call}"), **{f"c{call}x": x.grad.asnumpy()})
        return out
    _compare(run, mode)


@pytest.mark.parametrize("mode", HYBRID)
def test_parameter_shared_by_two_hybridized_blocks_in_one_record(mode):
    """A Parameter read by two CachedOp nodes (two blocks) sums both nodes' gradients."""
    def run(mode):
        a = _setup(nn.Dense(4, in_units=4, dtype=F64), mode)
        b = nn.Dense(4, in_units=4, dtype=F64, params=a.collect_params())
        if mode is not None:
            b.hybridize(static_alloc=mode[0], static_shape=mode[1])
        assert b.weight is a.weight
        rng = np.random.default_rng(2)
        x, y = _arr(rng, 3, 4), _arr(rng, 2, 4)
        with autograd.record():
            loss = (a(x) ** 2).sum() + (nd.tanh(b(y)) * 3).sum()
        loss.backward()
        return _grads(a)
    _compare(run, mode)


class _TwoInputs(HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d1 = nn.Dense(3, in_units=4, dtype=F64)
            self.d2 = nn.Dense(3, in_units=4, dtype=F64, use_bias=False)

    def hybrid_forward(self, F, x, y):
        return self.d1(x) * F.tanh(self.d2(y))


@pytest.mark.parametrize("mode", HYBRID)
def test_same_array_passed_as_two_inputs(mode):
    """net(x, x): each input is read once inside the graph, but x's grad is both inputs'."""
    def run(mode):
        net = _setup(_TwoInputs(), mode)
        x = _arr(np.random.default_rng(3), 2, 4)
        x.attach_grad()
        with autograd.record():
            loss = (net(x, x) ** 2).sum()
        loss.backward()
        return dict(_grads(net), x=x.grad.asnumpy())
    _compare(run, mode)


class _ReturnsInput(HybridBlock):
    """Returns its input, a Dense of it twice, and its own weight."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d = nn.Dense(3, in_units=4, dtype=F64)

    def hybrid_forward(self, F, x):
        y = self.d(x)
        return [x, y, y, self.d.weight.var() if F is sym else self.d.weight.data()]


@pytest.mark.parametrize("mode", HYBRID)
def test_input_and_parameter_returned_as_outputs_and_an_output_used_twice(mode):
    """Outputs that are inputs (x, a weight) or listed twice add their head gradients."""
    def run(mode):
        net = _setup(_ReturnsInput(), mode)
        x = _arr(np.random.default_rng(4), 2, 4)
        x.attach_grad()
        with autograd.record():
            xo, y1, y2, w = net(x)
            loss = (xo * 3).sum() + (y1 * y1).sum() + (y1 * 2).sum() + (y2 ** 3).sum() + \
                (w * w).sum()
        loss.backward()
        return dict(_grads(net), x=x.grad.asnumpy(), xo=xo.asnumpy(), y=y1.asnumpy())
    _compare(run, mode)


@pytest.mark.parametrize("mode", HYBRID)
def test_leaf_read_by_a_cachedop_and_by_imperative_code(mode):
    """x and a weight read by the CachedOp node and by ops outside it get both gradients."""
    def run(mode):
        net = _setup(_Seq(), mode)
        x = _arr(np.random.default_rng(5), 3, 4)
        x.attach_grad()
        with autograd.record():
            w = net.d1.weight.data()
            loss = (net(x) ** 2).sum() + (x * x * 3).sum() + (w * nd.exp(w)).sum()
        loss.backward()
        return dict(_grads(net), x=x.grad.asnumpy())
    _compare(run, mode)


# ---- grad_req ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", HYBRID)
def test_grad_req_mixed_and_changed_between_calls(mode):
    """'write' overwrites, 'add' accumulates, 'null' leaves alone, also after a change of
    grad_req on a block already hybridized and run."""
    rng = np.random.default_rng(6)
    xv = rng.standard_normal((3, 4))

    def step(net, x_req):
        x = nd.array(xv, dtype=F64)
        x.attach_grad(x_req)
        x.grad[:] = 7.0  # 'null' must leave it, 'write' overwrite it
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        return x

    def run(mode):
        net = _setup(_Seq(), mode)
        ps = _params(net)  # d1.weight, d1.bias, d2.weight, d2.bias
        out = {}
        ps[0].grad_req, ps[1].grad_req = "add", "null"
        out["ax"] = step(net, "write").grad.asnumpy()
        out.update(_grads(net, "a"))
        step(net, "write")
        out.update(_grads(net, "b"))
        net.collect_params().setattr("grad_req", "add")
        step(net, "add")
        out.update(_grads(net, "c"))
        step(net, "add")
        out.update(_grads(net, "d"))
        ps[2].grad_req = "null"
        ps[0].grad_req = "write"
        out["ex"] = step(net, "null").grad.asnumpy()
        out.update(_grads(net, "e"))
        net.collect_params().setattr("grad_req", "write")
        step(net, "write")
        out.update(_grads(net, "f"))
        return out

    want = run(None)
    # the reference itself: one call's gradient g; 'add' sums, 'write' overwrites
    g = want["fp0"], want["fp1"], want["fp2"], want["fp3"]
    _same({"a0": want["ap0"], "b0": want["bp0"], "b2": want["bp2"], "d1": want["dp1"],
           "d3": want["dp3"], "e0": want["ep0"], "e3": want["ep3"], "ex": want["ex"]},
          {"a0": g[0], "b0": 2 * g[0], "b2": g[2], "d1": 2 * g[1], "d3": 2 * g[3],
           "e0": g[0], "e3": 3 * g[3], "ex": np.full_like(xv, 7.0)})
    _same(run(mode), want)


@pytest.mark.parametrize("req", ["write", "add"])
@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_retain_graph_then_second_backward(mode, req):
    """retain_graph=True: a second backward doubles 'add' grads and repeats 'write' ones."""
    net = _setup(_Seq(), mode)
    net.collect_params().setattr("grad_req", req)
    x = _arr(np.random.default_rng(7), 3, 4)
    x.attach_grad(req)
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward(retain_graph=True)
    first = dict(_grads(net), x=x.grad.asnumpy())
    loss.backward()
    second = dict(_grads(net), x=x.grad.asnumpy())
    _same(second, {k: v * (2 if req == "add" else 1) for k, v in first.items()})
    with autograd.record():
        fresh = autograd.grad((net(x) ** 2).sum(), [x] + [p.data() for p in _params(net)])
    _same(first, dict(zip(["x"] + [f"p{i}" for i in range(4)], [g.asnumpy() for g in fresh])))


@pytest.mark.parametrize("mode", HYBRID)
def test_autograd_grad_returns_gradients_and_leaves_grad_buffers_alone(mode):
    """autograd.grad on a hybridized block: imperative values, .grad buffers untouched, and
    results not overwritten by a later call."""
    def run(mode):
        net = _setup(_Seq(), mode)
        rng = np.random.default_rng(8)
        x = _arr(rng, 3, 4)
        x.attach_grad()
        bufs = [x.grad] + [p.grad() for p in _params(net)]
        for b in bufs:
            b[:] = 7.0
        variables = [x] + [p.data() for p in _params(net)]
        with autograd.record():
            loss = (net(x) ** 2).sum()
        first = autograd.grad(loss, variables)
        for b in bufs:
            np.testing.assert_array_equal(b.asnumpy(), 7.0)
        x2 = _arr(rng, 3, 4)
        x2.attach_grad()
        with autograd.record():
            loss2 = (nd.exp(net(x2)) * 4).sum()
        second = autograd.grad(loss2, [x2] + variables[1:])
        out = {f"a{i}": g.asnumpy() for i, g in enumerate(first)}
        out.update({f"b{i}": g.asnumpy() for i, g in enumerate(second)})
        for b in bufs:
            np.testing.assert_array_equal(b.asnumpy(), 7.0)
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        out.update({f"w{i}": b.asnumpy() for i, b in enumerate(bufs)})
        for i in range(len(bufs)):  # backward writes what grad returned
            assert_almost_equal(out[f"w{i}"], out[f"a{i}"], rtol=RTOL, atol=ATOL)
        return out
    _compare(run, mode)


# ---- grad buffers: layout and replacement ----------------------------------------------------
@pytest.mark.parametrize("req", ["write", "add"])
@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_non_contiguous_grad_buffer(mode, req):
    """A leaf whose grad buffer is a strided view (3-D data that FullyConnected flattens) or
    Fortran-ordered gets its gradient written through it (no destination), the rest of the
    underlying array untouched."""
    net = _setup(_Seq(in_units=12), mode)
    rng = np.random.default_rng(9)
    big = np.full((3, 3, 5), 5.0)  # big[..., 1:] cannot be reshaped to (3, 12) as a view
    x = _arr(rng, 3, 3, 4)
    autograd.mark_variables([x], [NDArray(big[..., 1:])], req)
    fort = NDArray(np.asfortranarray(np.full((5, 12), 5.0)))
    w = net.d1.weight.data()
    autograd.mark_variables([w], [fort], req)
    _loss_again(net, x).backward()
    gx, gw = autograd.grad(_loss_again(net, x), [x, w])
    base = 5.0 if req == "add" else 0.0
    assert_almost_equal(big[..., 1:], base + gx.asnumpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(big[..., 0], 5.0)
    assert_almost_equal(fort._data, base + gw.asnumpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("mode", HYBRID)
def test_leaf_that_is_also_a_head(mode):
    """backward([y, x], [gy, gx]) with x an input of the CachedOp: x's grad is gx plus the
    gradient through the block."""
    def run(mode):
        net = _setup(_Seq(), mode)
        rng = np.random.default_rng(31)
        x = _arr(rng, 3, 4)
        x.attach_grad()
        with autograd.record():
            y = net(x)
        hy, hx = _arr(rng, 3, 3), _arr(rng, 3, 4)
        autograd.backward([y, x], [hy, hx])
        return dict(_grads(net), x=x.grad.asnumpy(), x_minus_head=(x.grad - hx).asnumpy())
    _compare(run, mode)


def _loss_again(net, x):
    with autograd.record():
        return (net(x) ** 2).sum()


@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_replaced_grad_buffers_are_the_ones_written(mode):
    """After attach_grad() again, or a grad_req change that reallocates a Parameter's grad,
    a backward writes the new buffers and never an old one."""
    net = _setup(_Seq(), mode)
    rng = np.random.default_rng(10)
    x = _arr(rng, 3, 4)
    x.attach_grad()
    loss = _loss_again(net, x)
    loss.backward()
    want = {"x": x.grad.asnumpy(), **_grads(net)}
    old = [x.grad] + [p.grad() for p in _params(net)]
    for b in old:
        b[:] = 9.0
    x.attach_grad()
    net.collect_params().setattr("grad_req", "add")
    net.collect_params().setattr("grad_req", "write")
    new = [x.grad] + [p.grad() for p in _params(net)]
    assert all(n._data is not o._data for n, o in zip(new, old))
    _loss_again(net, x).backward()
    for b in old:
        np.testing.assert_array_equal(b.asnumpy(), 9.0)
    _same({"x": x.grad.asnumpy(), **_grads(net)}, want)


# ---- repeated calls and static buffers ---------------------------------------------------------
class _Deep(HybridBlock):
    """Enough steps that static_alloc shares buffers between temporaries."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d1 = nn.Dense(6, in_units=4, dtype=F64)
            self.d2 = nn.Dense(6, in_units=6, dtype=F64)
            self.d3 = nn.Dense(2, in_units=6, dtype=F64, use_bias=False)

    def hybrid_forward(self, F, x):
        h = F.tanh(self.d1(x))
        h = F.sigmoid(self.d2(h)) * h + h
        h = F.relu(self.d2(h * 0.5)) - F.tanh(h)
        return self.d3(h * h)


@pytest.mark.parametrize("mode", HYBRID)
def test_two_calls_in_one_record_then_one_backward(mode):
    """Two calls of one hybridized block under one record(): the second call's static buffers
    must not overwrite the first call's outputs or saved values."""
    def run(mode):
        net = _setup(_Deep(), mode)
        rng = np.random.default_rng(11)
        x1, x2 = _arr(rng, 3, 4), _arr(rng, 3, 4)
        x1.attach_grad()
        x2.attach_grad()
        with autograd.record():
            y1 = net(x1)
            first = y1.asnumpy()
            y2 = net(x2)
            loss = (y1 * y1).sum() + (nd.exp(y2) * 3).sum()
        np.testing.assert_array_equal(y1.asnumpy(), first)
        loss.backward()
        return dict(_grads(net), x1=x1.grad.asnumpy(), x2=x2.grad.asnumpy(), y1=first,
                    y2=y2.asnumpy())
    _compare(run, mode)


BLOCKS = ["deep", "foreach", "while"]


def _block(kind, mode):
    """(net, inputs(rng)) of a block kind: _Deep or a loop block."""
    if kind == "deep":
        return _setup(_Deep(), mode), lambda rng: [_arr(rng, 3, 4)]
    net = _setup(_Loop(**LOOPS[kind]), mode)
    return net, lambda rng: list(_loop_inputs(net, rng))


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


@pytest.mark.parametrize("kind", BLOCKS)
@pytest.mark.parametrize("mode", HYBRID)
def test_backward_of_first_output_after_other_forwards(mode, kind):
    """backward of a recorded output after more forwards of the block (inference, training
    without record, an unused recorded one) gives the first forward's gradients."""
    def run(mode):
        net, inputs = _block(kind, mode)
        rng = np.random.default_rng(12)
        args = inputs(rng)
        for a in args:
            a.attach_grad()
        with autograd.record():
            ys = _flat(net(*args))
        first = [y.asnumpy() for y in ys]
        out = {"infer": _flat(net(*inputs(rng)))[0].asnumpy()}
        with autograd.train_mode():
            out["train"] = _flat(net(*inputs(rng)))[0].asnumpy()
        with autograd.record():
            other = inputs(rng)
            other[0].attach_grad()
            out["other"] = _flat(net(*other))[0].asnumpy()
        for y, f in zip(ys, first):
            np.testing.assert_array_equal(y.asnumpy(), f)
        heads = [nd.array(rng.standard_normal(y.shape), dtype=F64) for y in ys]
        autograd.backward(ys, heads)
        out.update(_grads(net), **{f"a{i}": a.grad.asnumpy() for i, a in enumerate(args)})
        out.update({f"y{i}": f for i, f in enumerate(first)})
        return out
    _compare(run, mode)


@pytest.mark.parametrize("kind", BLOCKS)
@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_backward_leaves_head_gradients_and_outputs_unchanged(mode, kind):
    """A backward never writes into the head gradients it is given or the outputs."""
    net, inputs = _block(kind, mode)
    rng = np.random.default_rng(24)
    args = inputs(rng)
    for a in args:
        a.attach_grad()
    with autograd.record():
        ys = _flat(net(*args))
    heads = [nd.array(rng.standard_normal(y.shape), dtype=F64) for y in ys]
    kept = [(h.asnumpy(), y.asnumpy()) for h, y in zip(heads, ys)]
    autograd.backward(ys, heads)
    for h, y, (hk, yk) in zip(heads, ys, kept):
        np.testing.assert_array_equal(h.asnumpy(), hk)
        np.testing.assert_array_equal(y.asnumpy(), yk)


class _Views(HybridBlock):
    """Outputs that are views (split, reshape, expand_dims, squeeze) of temporaries."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d = nn.Dense(6, in_units=4, dtype=F64)
            self.e = nn.Dense(4, in_units=3, dtype=F64)

    def hybrid_forward(self, F, x):
        a, b = F.split(F.tanh(self.d(x)), num_outputs=2, axis=1)
        r = F.reshape(F.sigmoid(self.e(a)) * 2, shape=(-1,))
        z = F.expand_dims(F.relu(self.e(b)), axis=0)
        return [a, b, r, z, F.squeeze(z, axis=0) + 1]


@pytest.mark.parametrize("record", [False, True])
@pytest.mark.parametrize("mode", HYBRID)
def test_view_outputs_survive_later_calls(mode, record):
    """Outputs that are views of static buffers keep their values over later calls; their
    gradients are the imperative ones."""
    def run(mode):
        net = _setup(_Views(), mode)
        rng = np.random.default_rng(25)
        out, calls = {}, []
        for call in range(3):
            x = _arr(rng, 3, 4)
            x.attach_grad()
            if record:
                with autograd.record():
                    ys = net(x)
                    loss = sum(((y * (k + 1)) ** 2).sum() for k, y in enumerate(ys))
                loss.backward()
                out.update(_grads(net, f"c{call}"), **{f"c{call}x": x.grad.asnumpy()})
            else:
                ys = net(x)
            calls.append((ys, [y.asnumpy() for y in ys]))
        for call, (ys, kept) in enumerate(calls):
            for k, (y, v) in enumerate(zip(ys, kept)):
                np.testing.assert_array_equal(y.asnumpy(), v)
                out[f"c{call}y{k}"] = v
        return out
    _compare(run, mode)


# ---- Dense variants -------------------------------------------------------------------------
DENSE = {"flatten_3d": (dict(flatten=True, in_units=12), (2, 3, 4)),
         "no_flatten_3d": (dict(flatten=False, in_units=4), (2, 3, 4)),
         "no_bias": (dict(use_bias=False, in_units=4), (3, 4)),
         "no_bias_no_flatten": (dict(use_bias=False, flatten=False, in_units=4), (2, 3, 4)),
         "tanh": (dict(activation="tanh", in_units=4), (3, 4))}


def _dense_loss(net, x, head):
    with autograd.record():
        return (net(x) * head).sum()


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("case", sorted(DENSE))
@pytest.mark.parametrize("mode", HYBRID)
def test_dense_variants(mode, case, frozen):
    """Dense with flatten on 3-D data, without flatten, without bias, frozen (grad_req
    'null'; with x's 'add' buffer, which is no destination, the data gradient's direct rule
    runs): values, grads, grad buffers kept in place."""
    kw, shape = DENSE[case]

    def run(mode):
        net = _setup(nn.Dense(5, dtype=F64, **kw), mode)
        if frozen:
            net.collect_params().setattr("grad_req", "null")
        bufs = [p.grad()._data for p in _params(net) if p.grad_req != "null"]
        rng = np.random.default_rng(13)
        out = {}
        for call in range(2):
            x = _arr(rng, *shape)
            x.attach_grad(("write", "add")[call])
            xbuf = x.grad._data
            y = net(x)
            head = nd.array(rng.standard_normal(y.shape), dtype=F64)
            _dense_loss(net, x, head).backward()
            assert x.grad._data is xbuf
            out.update(_grads(net, f"c{call}"), **{f"c{call}x": x.grad.asnumpy(),
                                                  f"c{call}y": y.asnumpy()})
        assert all(p.grad()._data is b for p, b in
                   zip([p for p in _params(net) if p.grad_req != "null"], bufs))
        return out
    _compare(run, mode)


@pytest.mark.parametrize("case", sorted(DENSE))
def test_dense_reference_against_finite_differences(case):
    """The imperative Dense gradients the other tests compare against are right."""
    kw, shape = DENSE[case]
    net = _setup(nn.Dense(5, dtype=F64, **kw), None)
    rng = np.random.default_rng(14)
    xv = rng.standard_normal(shape)
    head = nd.array(rng.standard_normal(net(nd.array(xv, dtype=F64)).shape), dtype=F64)
    ps = _params(net)
    x = nd.array(xv, dtype=F64)
    x.attach_grad()
    _dense_loss(net, x, head).backward()

    def f(xa, *pvals):
        for p, v in zip(ps, pvals):
            p.set_data(nd.array(v, dtype=F64))
        return float((net(nd.array(xa, dtype=F64)) * head).sum().asscalar())
    values = [xv.copy()] + [p.data().asnumpy() for p in ps]
    numeric = finite_difference(f, values, eps=1e-6)
    for got, num in zip([x.grad] + [p.grad() for p in ps], numeric):
        assert_almost_equal(got, num, rtol=1e-6, atol=1e-7)


# ---- loops ------------------------------------------------------------------------------------
class _Loop(HybridBlock):
    """One foreach or while_loop node whose body holds Dense layers. `body`: 'dense' (x_t and
    the state each through a Dense), 'shared' (one Dense for both: a Parameter used twice per
    step), 'alias' (x_t + Dense(state): the data row's gradient is the very array the Dense
    weight's summed gradient stacks, codegen's ``grads_in_rows``). A while_loop runs `steps`
    of at most `max_iterations` (fewer: padded output rows)."""

    def __init__(self, loop, body="dense", steps=4, max_iterations=4, **kw):
        super().__init__(**kw)
        self._loop, self._body, self._steps, self._max = loop, body, steps, max_iterations
        with self.name_scope():
            self.inp = nn.Dense(5, in_units=self.in_units, dtype=F64, flatten=False)
            self.rec = self.inp if body == "shared" else \
                nn.Dense(5, in_units=5, dtype=F64, use_bias=False)

    @property
    def in_units(self):
        return 4 if self._body == "dense" else 5

    def _cell(self, F, xt, h):
        if self._body == "alias":
            return F.tanh(xt + self.rec(h))
        return F.tanh(self.inp(xt) + self.rec(h))

    def hybrid_forward(self, F, x, h):
        if self._loop == "foreach":
            def body(xt, states):
                new = self._cell(F, xt, states[0])
                return new, [new]
            outs, (last,) = F.contrib.foreach(body, x, [h])
            return outs, last
        steps = self._steps

        def func(i, s):
            new = self._cell(F, F.squeeze(F.take(x, i), axis=0), s)
            return [new], [i + 1, new]
        (outs,), (_, last) = F.contrib.while_loop(
            lambda i, s: i < steps, func, [F.zeros((1,), dtype=F64), h],
            max_iterations=self._max)
        return outs, last


LOOPS = {"foreach": dict(loop="foreach"),
         "foreach-shared": dict(loop="foreach", body="shared"),
         "foreach-alias": dict(loop="foreach", body="alias"),
         "while": dict(loop="while_loop"),
         "while-shared": dict(loop="while_loop", body="shared"),
         "while-early-exit": dict(loop="while_loop", steps=3, max_iterations=5)}


def _loop_inputs(net, rng, req=None):
    x, h = _arr(rng, 4, 2, net.in_units), _arr(rng, 2, 5)
    if req is not None:
        x.attach_grad(req)
        h.attach_grad(req)
    return x, h


@pytest.mark.parametrize("req", ["write", "add"])
@pytest.mark.parametrize("case", sorted(LOOPS))
@pytest.mark.parametrize("mode", HYBRID)
def test_dense_in_a_loop_body(mode, case, req):
    """Dense layers inside a loop node: grads of data, state and weights for 'write' and
    'add' (two backward calls), an output used as well as the final state."""
    def run(mode):
        net = _setup(_Loop(**LOOPS[case]), mode)
        net.collect_params().setattr("grad_req", req)
        rng = np.random.default_rng(15)
        out = {}
        for call in range(2):
            x, h = _loop_inputs(net, rng, req)
            with autograd.record():
                outs, last = net(x, h)
                head = nd.array(rng.standard_normal(outs.shape), dtype=F64)
                loss = (outs * head).sum() + (last * last).sum() + (outs[2] * last).sum()
            loss.backward()
            out.update(_grads(net, f"c{call}"), **{f"c{call}x": x.grad.asnumpy(),
                                                  f"c{call}h": h.grad.asnumpy(),
                                                  f"c{call}o": outs.asnumpy()})
        return out
    _compare(run, mode)


@pytest.mark.parametrize("case", ["foreach", "foreach-alias", "while-early-exit"])
def test_loop_reference_against_finite_differences(case):
    """The imperative loop's gradients (the reference above) match finite differences."""
    net = _setup(_Loop(**LOOPS[case]), None)
    rng = np.random.default_rng(16)
    xv, hv = rng.standard_normal((4, 2, net.in_units)), rng.standard_normal((2, 5))
    head = rng.standard_normal((5 if case == "while-early-exit" else 4, 2, 5))
    ps = _params(net)
    x, h = nd.array(xv, dtype=F64), nd.array(hv, dtype=F64)
    x.attach_grad()
    h.attach_grad()

    def loss_of(x, h):
        o, s = net(x, h)
        return (o * nd.array(head, dtype=F64)).sum() + (s * 3).sum()
    with autograd.record():
        loss = loss_of(x, h)
    loss.backward()

    def f(xa, ha, *pvals):
        for p, v in zip(ps, pvals):
            p.set_data(nd.array(v, dtype=F64))
        return float(loss_of(nd.array(xa, dtype=F64), nd.array(ha, dtype=F64)).asscalar())
    numeric = finite_difference(f, [xv.copy(), hv.copy()] + [p.data().asnumpy() for p in ps],
                           eps=1e-6)
    for got, num in zip([x.grad, h.grad] + [p.grad() for p in ps], numeric):
        assert_almost_equal(got, num, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("frozen", ["weights", "bias", "all"])
@pytest.mark.parametrize("case", ["foreach", "while"])
@pytest.mark.parametrize("mode", HYBRID)
def test_loop_with_frozen_parameters_and_inputs_without_grad(mode, case, frozen):
    """grad_req 'null' on some loop-body parameters, a state without attach_grad: the
    remaining gradients as imperative."""
    def run(mode):
        net = _setup(_Loop(**LOOPS[case]), mode)
        ps = _params(net)  # inp.weight, inp.bias, rec.weight
        null = {"weights": (0, 2), "bias": (1,), "all": (0, 1, 2)}[frozen]
        for i in null:
            ps[i].grad_req = "null"
        rng = np.random.default_rng(23)
        out = {}
        for call in range(2):
            x, h = _loop_inputs(net, rng)
            x.attach_grad("write" if call else "add")
            if frozen != "all":
                h.attach_grad()
            with autograd.record():
                outs, last = net(x, h)
                loss = (outs * outs).sum() + (last * 3).sum()
            loss.backward()
            out.update(_grads(net, f"c{call}"), **{f"c{call}x": x.grad.asnumpy(),
                                                  f"c{call}o": outs.asnumpy()})
            if frozen != "all":
                out[f"c{call}h"] = h.grad.asnumpy()
        return out
    _compare(run, mode)


@pytest.mark.parametrize("case", ["foreach", "foreach-alias", "while"])
@pytest.mark.parametrize("mode", HYBRID)
def test_loop_block_called_twice_in_one_record(mode, case):
    """Two calls of a block holding a loop node under one record(): per-call loop buffers."""
    def run(mode):
        net = _setup(_Loop(**LOOPS[case]), mode)
        rng = np.random.default_rng(17)
        x1, h = _loop_inputs(net, rng, "write")
        x2, _ = _loop_inputs(net, rng)
        with autograd.record():
            o1, l1 = net(x1, h)
            first = o1.asnumpy()
            o2, l2 = net(x2, l1)
            loss = (o1 * o1).sum() + (o2 * l2).sum()
        np.testing.assert_array_equal(o1.asnumpy(), first)
        loss.backward()
        return dict(_grads(net), x1=x1.grad.asnumpy(), h=h.grad.asnumpy(), o1=first,
                    o2=o2.asnumpy())
    _compare(run, mode)


class _Unreached(HybridBlock):
    """Its second output (the only user of d2 and z) does not reach the loss."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d1 = nn.Dense(3, in_units=4, dtype=F64)
            self.d2 = nn.Dense(3, in_units=4, dtype=F64)

    def hybrid_forward(self, F, x, z):
        return [self.d1(x), self.d2(F.BlockGrad(x)) + z]


@pytest.mark.parametrize("req", ["write", "add", "null"])
@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_grad_req_of_leaves_no_gradient_reaches(mode, req):
    """'add' and 'null' leave unreached grads alone; 'write' zeroes them when they are
    inputs of a reached CachedOp node (MXNet's CachedOp writes zeros for kWriteTo), while an
    imperative backward never visits them (as MXNet's): the one documented mode difference."""
    net = _setup(_Unreached(), mode)
    ps = _params(net)
    if req != "null":
        net.collect_params().setattr("grad_req", req)
    rng = np.random.default_rng(26)
    x, z = _arr(rng, 2, 4), _arr(rng, 2, 3)
    x.attach_grad(req)
    z.attach_grad(req)
    unreached = [z.grad] + ([p.grad() for p in ps[2:]] if req != "null" else [])
    for b in [x.grad] + unreached:
        b[:] = 7.0
    with autograd.record():
        a, _ = net(x, z)
        loss = (a * a).sum()
    loss.backward()
    want = 0.0 if req == "write" and mode is not None else 7.0
    for b in unreached:
        np.testing.assert_array_equal(b.asnumpy(), want)
    with autograd.record():
        gx, = autograd.grad((net(x, z)[0] ** 2).sum(), [x])
    if req == "null":
        np.testing.assert_array_equal(x.grad.asnumpy(), 7.0)
    else:
        assert_almost_equal(x.grad, gx.asnumpy() + (7.0 if req == "add" else 0.0),
                            rtol=RTOL, atol=ATOL)


# ---- a grad buffer that the graph reads ---------------------------------------------------------
@pytest.mark.parametrize("reader_first", [True, False])
@pytest.mark.parametrize("mode", [None] + HYBRID)
def test_grad_buffer_read_as_a_constant_by_the_graph(mode, reader_first):
    """c * w.grad in the loss reads the buffer when its gradient rule runs, as MXNet 1.9.1
    does (it also writes a gradient into its buffer in place; same results checked there):
    run before w's rule (loss a + b) c gets the old value g0, after it (b + a) w's new
    gradient. docs/limits.md, "Gradient buffers"."""
    net = _setup(nn.Dense(3, in_units=4, dtype=F64), mode)
    rng = np.random.default_rng(27)
    g0 = rng.standard_normal((3, 4))
    net.weight.grad()[:] = g0
    c, x = _arr(rng, 3, 4), _arr(rng, 2, 4)
    c.attach_grad()
    with autograd.record():
        a = (c * net.weight.grad()).sum()
        b = (net(x) ** 2).sum()
        loss = a + b if reader_first else b + a
    loss.backward()
    gw, = autograd.grad(_loss_again(net, x), [net.weight.data()])
    assert_almost_equal(net.weight.grad(), gw.asnumpy(), rtol=RTOL, atol=ATOL)
    assert_almost_equal(c.grad, g0 if reader_first else gw.asnumpy(), rtol=RTOL, atol=ATOL)


# ---- direct gradient rules (Fast.grads) ----------------------------------------------------
def _pos(F, a):
    return F.abs(a) + 0.5


UNARY = ["negative", "abs", "exp", "log", "sqrt", "square", "reciprocal", "sigmoid", "tanh",
         "relu", "softsign", "softrelu", "_copy"]
BINARY = {"add": lambda F, a, b: a + b, "sub": lambda F, a, b: a - b,
          "mul": lambda F, a, b: a * b, "div": lambda F, a, b: a / b,
          "pow": lambda F, a, b: _pos(F, a) ** b, "max": lambda F, a, b: F.maximum(a, b),
          "min": lambda F, a, b: F.minimum(a, b),
          "self": lambda F, a, b: a * a + b / b - (a - a)}
ELEMWISE = {**{n: (lambda F, a, b, n=n: getattr(F, n)(_pos(F, a)) + b) for n in UNARY},
            **BINARY}


class _Elemwise(HybridBlock):
    """fn(Dense(x), y), or the same in a foreach body with y as the state."""

    def __init__(self, fn, loop, **kw):
        super().__init__(**kw)
        self._fn, self._loop = fn, loop
        with self.name_scope():
            self.d = nn.Dense(4, in_units=4, dtype=F64, flatten=False)

    def hybrid_forward(self, F, x, y):
        if not self._loop:
            return self._fn(F, self.d(x), y)

        def body(xt, states):
            new = self._fn(F, self.d(xt), states[0])
            return new, [F.tanh(new)]
        outs, (last,) = F.contrib.foreach(body, x, [y])
        return F.broadcast_mul(outs, last.sum())


@pytest.mark.parametrize("loop", [False, True], ids=["plain", "in_foreach"])
@pytest.mark.parametrize("op", sorted(ELEMWISE))
def test_elementwise_gradient_rules(op, loop):
    """Each elementwise operator's direct gradient rule (called by generated backward code
    with the values its plan saved) gives the imperative vjp's gradients, every mode."""
    def run(mode):
        net = _setup(_Elemwise(ELEMWISE[op], loop), mode)
        rng = np.random.default_rng(28)
        x = nd.array(rng.uniform(0.5, 1.5, (3, 2, 4) if loop else (2, 4)), dtype=F64)
        y = nd.array(rng.uniform(0.5, 1.5, (2, 4)), dtype=F64)
        x.attach_grad()
        y.attach_grad()
        with autograd.record():
            out = net(x, y)
            loss = (out * nd.array(rng.standard_normal(out.shape), dtype=F64)).sum()
        loss.backward()
        return dict(_grads(net), x=x.grad.asnumpy(), y=y.grad.asnumpy(), out=out.asnumpy())
    want = run(None)
    for mode in HYBRID:
        _same(run(mode.values[0]), want)


# ---- autograd scopes ----------------------------------------------------------------------------
def test_nested_scopes_restore_recording_and_training():
    """record/pause/train_mode/predict_mode nest and restore both flags, also on an error;
    nothing recorded inside pause() takes a gradient."""
    state = lambda: (autograd.is_recording(), autograd.is_training())  # noqa: E731
    assert state() == (False, False)
    x = nd.array([1.0, 2.0], dtype=F64)
    x.attach_grad()
    with autograd.record():
        assert state() == (True, True)
        with autograd.pause():
            assert state() == (False, False)
            z = x * 3
            with autograd.record(train_mode=False):
                assert state() == (True, False)
                with autograd.train_mode():
                    assert state() == (True, True)
                assert state() == (True, False)
            assert state() == (False, False)
        with pytest.raises(RuntimeError):
            with autograd.predict_mode():
                assert state() == (True, False)
                raise RuntimeError
        assert state() == (True, True)
        y = (x * z).sum()
    assert state() == (False, False)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 6.0])  # z is a constant


# ---- writing into an input before backward ----------------------------------------------------
@pytest.mark.parametrize("mode", [None, "executor"] + HYBRID)
def test_input_overwritten_between_forward_and_backward(mode):
    """x[:] = ... after forward, before backward (outside record): the weight gradient uses
    the array's values at backward time, as in MXNet (autograd and CachedOp keep the array,
    not a copy), the same imperative, hybridized (every static mode) and bound."""
    rng = np.random.default_rng(18)
    xv, xv2, head = (rng.standard_normal(s) for s in ((2, 4), (2, 4), (2, 3)))
    x = nd.array(xv, dtype=F64)
    if mode == "executor":
        vals = {"w": rng.standard_normal((3, 4)), "b": rng.standard_normal(3)}
        grads = {k: nd.zeros(v.shape, dtype=F64) for k, v in vals.items()}
        exe = sym.FullyConnected(sym.var("x"), sym.var("w"), sym.var("b"), num_hidden=3).bind(
            None, {"x": x, **{k: nd.array(v, dtype=F64) for k, v in vals.items()}},
            args_grad=grads)
        exe.forward(is_train=True)
        x[:] = xv2
        exe.backward(nd.array(head, dtype=F64))
        gw, gb = grads["w"], grads["b"]
    else:
        net = _setup(nn.Dense(3, in_units=4, dtype=F64), mode)
        with autograd.record():
            y = net(x)
        x[:] = xv2
        y.backward(nd.array(head, dtype=F64))
        gw, gb = net.weight.grad(), net.bias.grad()
    assert_almost_equal(gw, head.T @ xv2, rtol=RTOL, atol=ATOL)
    assert_almost_equal(gb, head.sum(0), rtol=RTOL, atol=ATOL)


# ---- Executor ---------------------------------------------------------------------------------
def _exe_graph():
    x, w1, b1, w2 = sym.var("x"), sym.var("w1"), sym.var("b1"), sym.var("w2")
    h = sym.tanh(sym.FullyConnected(x, w1, b1, num_hidden=5, name="fc1"))
    y = sym.FullyConnected(h, w2, no_bias=True, num_hidden=3, name="fc2")
    return sym.Group([y, sym.sigmoid(h) * 2]), {"x": (2, 4), "w1": (5, 4), "b1": (5,),
                                                  "w2": (3, 5)}


def _exe_reference(vals, heads):
    """The Executor graph imperatively: {name: gradient}."""
    arrs = {k: nd.array(v, dtype=F64) for k, v in vals.items()}
    for a in arrs.values():
        a.attach_grad()
    with autograd.record():
        h = nd.tanh(nd.FullyConnected(arrs["x"], arrs["w1"], arrs["b1"], num_hidden=5))
        y = nd.FullyConnected(h, arrs["w2"], no_bias=True, num_hidden=3)
        z = nd.sigmoid(h) * 2
    autograd.backward([y, z], [nd.array(g, dtype=F64) for g in heads])
    return {k: a.grad.asnumpy() for k, a in arrs.items()}, [y.asnumpy(), z.asnumpy()]


def test_executor_bind_grad_req_dict_two_backwards():
    """bind with args_grad and a grad_req dict: 'write' is the last backward's, 'add' sums
    both, 'null' untouched; outputs and grads equal the imperative ones."""
    s, shapes = _exe_graph()
    rng = np.random.default_rng(19)
    vals = {k: rng.standard_normal(v) for k, v in shapes.items()}
    args = {k: nd.array(v, dtype=F64) for k, v in vals.items()}
    grads = {k: nd.array(np.full(v, 7.0), dtype=F64) for k, v in shapes.items()}
    reqs = {"x": "write", "w1": "add", "b1": "null", "w2": "write"}
    exe = s.bind(None, args, args_grad=grads, grad_req=reqs)
    refs = []
    for call in range(2):
        if call:
            vals["x"] = rng.standard_normal(shapes["x"])
            exe.arg_dict["x"][:] = vals["x"]
        heads = [rng.standard_normal((2, 3)), rng.standard_normal((2, 5))]
        outs = exe.forward(is_train=True)
        exe.backward([nd.array(g, dtype=F64) for g in heads])
        ref, ref_outs = _exe_reference(vals, heads)
        refs.append(ref)
        for o, r in zip(outs, ref_outs):
            assert_almost_equal(o, r, rtol=RTOL, atol=ATOL)
        _same({k: grads[k].asnumpy() for k in ("x", "w2")}, {k: ref[k] for k in ("x", "w2")})
    assert_almost_equal(grads["w1"], 7.0 + refs[0]["w1"] + refs[1]["w1"], rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(grads["b1"].asnumpy(), 7.0)


@pytest.mark.parametrize("req", ["write", "add"])
def test_executor_simple_bind_matches_imperative(req):
    """simple_bind allocates the grads (float64 inferred from x); two forward/backward rounds
    match imperative nd."""
    s, shapes = _exe_graph()
    exe = s.simple_bind(None, grad_req=req, type_dict={"x": F64}, x=shapes["x"])
    assert all(g.dtype == np.float64 for g in exe.grad_dict.values())
    rng = np.random.default_rng(20)
    vals = {k: rng.standard_normal(v) for k, v in shapes.items()}
    total = None
    for call in range(2):
        vals["x"] = rng.standard_normal(shapes["x"])
        heads = [rng.standard_normal((2, 3)), rng.standard_normal((2, 5))]
        exe.forward(is_train=True, **{k: nd.array(v, dtype=F64) for k, v in vals.items()})
        exe.backward([nd.array(g, dtype=F64) for g in heads])
        ref, _ = _exe_reference(vals, heads)
        total = ref if total is None or req == "write" else \
            {k: total[k] + ref[k] for k in ref}
    _same({k: g.asnumpy() for k, g in exe.grad_dict.items()}, total)


@pytest.mark.parametrize("twice", [False, True], ids=["read_once", "read_twice"])
def test_executor_non_contiguous_grad_arrays(twice):
    """Strided and Fortran-ordered grad arrays get no destination (3-D data flattened by
    FullyConnected) and their gradients written through; an argument read twice sums both."""
    x, w = sym.var("x"), sym.var("w")
    s = sym.FullyConnected(x, w, no_bias=True, num_hidden=3)
    if twice:
        s = s + sym.FullyConnected(sym.tanh(x), w, no_bias=True, num_hidden=3)
    rng = np.random.default_rng(21)
    vals = {"x": rng.standard_normal((2, 3, 4)), "w": rng.standard_normal((3, 12))}
    big = np.full((2, 3, 5), 5.0)  # big[..., 1:] cannot be reshaped to (2, 12) as a view
    gw = NDArray(np.asfortranarray(np.zeros((3, 12))))
    exe = s.bind(None, {k: nd.array(v, dtype=F64) for k, v in vals.items()},
                 args_grad={"x": NDArray(big[..., 1:]), "w": gw})
    head = rng.standard_normal((2, 3))
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(nd.array(head, dtype=F64))
    xa, wa = nd.array(vals["x"], dtype=F64), nd.array(vals["w"], dtype=F64)
    xa.attach_grad()
    wa.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(xa, wa, no_bias=True, num_hidden=3)
        if twice:
            y = y + nd.FullyConnected(nd.tanh(xa), wa, no_bias=True, num_hidden=3)
    y.backward(nd.array(head, dtype=F64))
    assert_almost_equal(big[..., 1:], xa.grad, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(big[..., 0], 5.0)
    assert_almost_equal(gw, wa.grad, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("flatten", [True, False])
def test_executor_fully_connected_against_finite_differences(flatten):
    """The Executor's FullyConnected gradients (destinations on) match finite differences."""
    x, w, b = sym.var("x"), sym.var("w"), sym.var("b")
    s = sym.tanh(sym.FullyConnected(x, w, b, num_hidden=3, flatten=flatten))
    rng = np.random.default_rng(22)
    k = 12 if flatten else 4
    check_numeric_gradient(s, {"x": rng.standard_normal((2, 3, 4)),
                               "w": rng.standard_normal((3, k)), "b": rng.standard_normal(3)},
                           numeric_eps=1e-6, rtol=1e-6, atol=1e-8, dtype=np.float64)


def _foreach_graph(F, x, h, wi, bi, wh):
    def body(xt, states):
        new = F.tanh(F.FullyConnected(xt, wi, bi, num_hidden=5) +
                     F.FullyConnected(states[0], wh, no_bias=True, num_hidden=5))
        return [new, xt * 2], [new]
    (o, o2), (last,) = F.contrib.foreach(body, x, [h])
    return [o, last, o2]


FOREACH_SHAPES = {"x": (4, 2, 3), "h": (2, 5), "wi": (5, 3), "bi": (5,), "wh": (5, 5)}


def _foreach_reference(vals, heads):
    arrs = {k: nd.array(v, dtype=F64) for k, v in vals.items()}
    for a in arrs.values():
        a.attach_grad()
    with autograd.record():
        outs = _foreach_graph(nd, *[arrs[k] for k in FOREACH_SHAPES])
    autograd.backward(outs, [nd.array(np.zeros(o.shape) if g is None else g, dtype=F64)
                             for g, o in zip(heads, outs)])
    return {k: a.grad.asnumpy() for k, a in arrs.items()}, [o.asnumpy() for o in outs]


@pytest.mark.parametrize("reqs", [
    dict.fromkeys(FOREACH_SHAPES, "write"), dict.fromkeys(FOREACH_SHAPES, "add"),
    {"x": "write", "h": "add", "wi": "write", "bi": "null", "wh": "add"},
    {"x": "add", "h": "write", "wi": "add", "wh": "write"}], ids=["write", "add", "mix1", "mix2"])
def test_executor_foreach_grad_reqs_two_backwards(reqs):
    """A bound foreach graph (loop node with destinations): two forward/backward rounds with
    a None out_grad, per-argument grad_req; grads and outputs equal imperative foreach."""
    s = sym.Group(_foreach_graph(sym, *[sym.var(k) for k in FOREACH_SHAPES]))
    rng = np.random.default_rng(29)
    vals = {k: rng.standard_normal(v) for k, v in FOREACH_SHAPES.items()}
    grads = {k: nd.array(np.full(v, 7.0), dtype=F64) for k, v in FOREACH_SHAPES.items()}
    exe = s.bind(None, {k: nd.array(v, dtype=F64) for k, v in vals.items()}, args_grad=grads,
                 grad_req=reqs)
    want = {k: np.full(v, 7.0) for k, v in FOREACH_SHAPES.items()}
    for call in range(2):
        vals["x"] = rng.standard_normal(FOREACH_SHAPES["x"])
        exe.arg_dict["x"][:] = vals["x"]
        outs = exe.forward(is_train=True)
        heads = [rng.standard_normal(o.shape) for o in outs]
        heads[2 - call] = None
        exe.backward([None if g is None else nd.array(g, dtype=F64) for g in heads])
        ref, ref_outs = _foreach_reference(vals, heads)
        for o, r in zip(outs, ref_outs):
            assert_almost_equal(o, r, rtol=RTOL, atol=ATOL)
        for k, r in reqs.items():
            want[k] = ref[k] if r == "write" else want[k] + ref[k] if r == "add" else want[k]
    _same({k: g.asnumpy() for k, g in grads.items()}, want)


def test_two_executors_of_one_loop_symbol_interleaved():
    """Two Executors sharing one Symbol (its loop nodes' cached plans and buffers): forward,
    forward, backward, backward give each its own imperative gradients."""
    s = sym.Group(_foreach_graph(sym, *[sym.var(k) for k in FOREACH_SHAPES]))
    rng = np.random.default_rng(30)
    runs = []
    for _ in range(2):
        vals = {k: rng.standard_normal(v) for k, v in FOREACH_SHAPES.items()}
        grads = {k: nd.zeros(v, dtype=F64) for k, v in FOREACH_SHAPES.items()}
        exe = s.bind(None, {k: nd.array(v, dtype=F64) for k, v in vals.items()},
                     args_grad=grads)
        outs = [o.asnumpy() for o in exe.forward(is_train=True)]
        runs.append((exe, vals, grads, outs, [rng.standard_normal(o.shape) for o in outs]))
    for exe, _, _, _, heads in runs:
        exe.backward([nd.array(g, dtype=F64) for g in heads])
    for exe, vals, grads, outs, heads in runs:
        ref, ref_outs = _foreach_reference(vals, heads)
        _same({k: g.asnumpy() for k, g in grads.items()}, ref)
        _same(dict(enumerate(outs)), dict(enumerate(ref_outs)))
