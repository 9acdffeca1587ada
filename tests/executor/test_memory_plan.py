"""The liveness memory plan on generated graphs: no two live values share a buffer, and
static_alloc plans compute exactly what plain plans compute, call after call."""
import numpy as np
from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

from gluonlite import autograd, nd, sym
from gluonlite.executor import CachedOp, compile_plan

SHAPE = (3, 4)
# Every op maps (3, 4) entries to a (3, 4) entry; some kernels write into buffers (`into`),
# others return views of their input (Reshape, slice_axis, BlockGrad), which the plan must
# keep alive as long as the view.
UNARY = [lambda a: sym.tanh(a), lambda a: sym.sigmoid(a), lambda a: sym.relu(a),
         lambda a: sym.square(a) * 0.5, lambda a: -a, lambda a: a + 1.0,
         lambda a: sym.Reshape(a, shape=SHAPE), lambda a: sym.slice_axis(a, axis=0, begin=0,
                                                                          end=3),
         lambda a: sym.BlockGrad(a), lambda a: sym.broadcast_add(a, sym.sum(a, axis=0,
                                                                            keepdims=True))]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b,
          lambda a, b: sym.maximum(a, b), lambda a, b: sym.elemwise_add(a, b) * b]


@st.composite
def graphs(draw):
    n_in = draw(st.integers(1, 3))
    ents = [sym.var(f"in{i}") for i in range(n_in)]
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            f = draw(st.sampled_from(UNARY))
            ents.append(f(draw(st.sampled_from(ents))))
        else:
            f = draw(st.sampled_from(BINARY))
            ents.append(f(draw(st.sampled_from(ents)), draw(st.sampled_from(ents))))
    heads = draw(st.lists(st.sampled_from(ents[n_in:]), min_size=1, max_size=3))
    return sym.Group(heads)


def _no_shared_live_buffer(plan):
    by_buffer = {}
    for slot, buf in plan.buffer_of.items():
        by_buffer.setdefault(buf, []).append(plan.live[slot])
    for spans in by_buffer.values():
        spans.sort()
        for (d1, last1), (d2, _) in zip(spans, spans[1:]):
            # the next value is written only after the previous one's last read
            assert last1 < d2, f"buffer shared by live values {spans}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.booleans())
def test_plan_never_gives_two_live_values_one_buffer(g, train):
    n = len(g.list_inputs())
    plan = compile_plan(g, [SHAPE] * n, [np.float32] * n, is_train=train,
                        grad_inputs=[True] * n if train else None, static_alloc=True)
    _no_shared_live_buffer(plan)
    assert set(plan.buffer_of) == set(plan.live)
    for s in plan.out_slots:
        assert s not in plan.buffer_of  # outputs handed to the caller are never reused


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.integers(0, 2 ** 16))
def test_static_alloc_identical_to_plain_over_repeated_calls(g, seed):
    rng = np.random.default_rng(seed)
    names = g.list_inputs()
    plain, static = CachedOp(g), CachedOp(g, static_alloc=True)
    for _ in range(3):
        xs = [nd.array(rng.standard_normal(SHAPE)) for _ in names]
        want = [o.asnumpy() for o in plain(*xs)]
        got = static(*xs)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a.asnumpy(), b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.integers(0, 2 ** 16))
def test_static_alloc_gradients_identical_to_plain(g, seed):
    rng = np.random.default_rng(seed)
    names = g.list_inputs()
    vals = [rng.standard_normal(SHAPE) for _ in names]
    grads = []
    for op in (CachedOp(g), CachedOp(g, static_alloc=True)):
        for _ in range(2):
            xs = [nd.array(v) for v in vals]
            for x in xs:
                x.attach_grad()
            with autograd.record():
                outs = op(*xs)
                # the x term keeps a path to the inputs when BlockGrad cut every other
                loss = sum((o * o).sum() for o in outs) + (xs[0] * 0.5).sum()
            loss.backward()
        grads.append([x.grad.asnumpy() for x in xs])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_a_chain_reuses_buffers():
    x = sym.var("x")
    y = x
    for _ in range(6):
        y = sym.tanh(y) + 1.0
    plan = compile_plan(y, [SHAPE], [np.float32], static_alloc=True)
    _no_shared_live_buffer(plan)
    # 11 temporaries, but at most two are alive at once
    assert len(plan.buffer_of) == 11 and len(set(plan.buffer_of.values())) == 2


def test_plain_plan_has_no_static_buffers():
    plan = compile_plan(sym.tanh(sym.var("x")), [SHAPE], [np.float32])
    assert plan.buffer_of == {} and plan.live == {}
