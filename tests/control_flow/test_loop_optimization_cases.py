"""Loop optimizations (hoisted input projections, deferred gradients of loop-invariant
inputs, the transposed weight layout) against the plain per-step loop
(`loop_optimizations(False)`) on many body shapes: every output and every gradient, in
float64 with tight tolerances, for foreach and while_loop, through `Symbol.bind` and through
hybridized Gluon blocks; the plain loop itself is checked against finite differences.

A body shape is written once as ``step(F, v, xs, hs) -> (step outputs, new states)`` (F is
`sym` or `nd`, `v` the loop-invariant inputs, `xs` the step's rows of the scanned data, `hs`
the carried states) and run by each loop kind of `LOOPS`.
"""
from types import SimpleNamespace

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.control_flow.lowering import kernels as operators
from gluonlite.control_flow.body import loop_optimizations
from gluonlite.test_utils import check_numeric_gradient
from harness import check_optimized_equals_plain

I, H = 3, 4  # noqa: E741 (input and hidden size, the T, N, I, H notation)
F64 = "float64"
RTOL, ATOL = 1e-6, 1e-10


# ============================================================================ body shapes
class Case:
    """A body shape: `step`, the per-step row shapes of its scanned `data` and carried
    `states` ('N' stands for the batch size), and the shapes of its invariant inputs."""

    def __init__(self, step, data, states, free):
        self.step, self.data, self.states, self.free = step, data, states, free


CASES = {}
RNN = {"wi": (H, I), "bi": (H,), "wh": (H, H), "bh": (H,)}
ROW, STATE = ("N", I), ("N", H)


def case(data=(ROW,), states=(STATE,), free=RNN):
    """Register a body shape under its function's name."""
    def register(step):
        CASES[step.__name__] = Case(step, list(data), list(states), dict(free))
        return step
    return register


def fc(F, x, w, b=None, num_hidden=H, **kw):
    return F.FullyConnected(x, w, b, num_hidden=num_hidden, no_bias=b is None, **kw)


def cell(F, v, x, h, i2h_bias=True, h2h_bias=True):
    return F.tanh(fc(F, x, v.wi, v.bi if i2h_bias else None) +
                  fc(F, h, v.wh, v.bh if h2h_bias else None))


@case()
def rnn(F, v, xs, hs):
    """A tanh RNN step: hoisted i2h, deferred h2h, the h2h bias folded."""
    h = cell(F, v, xs[0], hs[0])
    return [h], [h]


@case()
def h2h_first(F, v, xs, hs):
    """h2h + i2h: the projection is the add's second input."""
    h = F.tanh(fc(F, hs[0], v.wh, v.bh) + fc(F, xs[0], v.wi, v.bi))
    return [h], [h]


@case(free={k: s for k, s in RNN.items() if k != "bh"})
def h2h_no_bias(F, v, xs, hs):
    """no_bias=True on the h2h (nothing to fold)."""
    h = cell(F, v, xs[0], hs[0], h2h_bias=False)
    return [h], [h]


@case(free={k: s for k, s in RNN.items() if k != "bi"})
def i2h_no_bias(F, v, xs, hs):
    """no_bias=True on the hoisted i2h."""
    h = cell(F, v, xs[0], hs[0], i2h_bias=False)
    return [h], [h]


@case(free={"wi": (H, I), "wh": (H, H)})
def no_biases(F, v, xs, hs):
    """Neither product has a bias."""
    h = cell(F, v, xs[0], hs[0], False, False)
    return [h], [h]


@case(free={"wi": (H, I), "wh": (H, H), "b": (H,)})
def shared_bias(F, v, xs, hs):
    """The same bias vector for i2h and h2h (folded into the projection it is also in)."""
    h = F.tanh(fc(F, xs[0], v.wi, v.b) + fc(F, hs[0], v.wh, v.b))
    return [h], [h]


@case(data=[STATE], free={"w": (H, H), "bi": (H,), "bh": (H,)})
def shared_weight_i2h_h2h(F, v, xs, hs):
    """One weight for the hoisted i2h and the deferred h2h."""
    h = F.tanh(fc(F, xs[0], v.w, v.bi) + fc(F, hs[0], v.w, v.bh))
    return [h], [h]


@case(free={"wi": (H, I), "bi": (H,), "w": (H, H), "b1": (H,), "b2": (H,)})
def shared_weight_two_h2h(F, v, xs, hs):
    """One weight read by two products of the same step, on different data."""
    a = fc(F, hs[0], v.w, v.b1)
    b = F.sigmoid(fc(F, F.tanh(hs[0]), v.w, v.b2))
    h = F.tanh(fc(F, xs[0], v.wi, v.bi) + a * b)
    return [h], [h]


@case(free={"wi": (H, I), "bi": (H,), "w": (H, H), "b1": (H,), "b2": (H,)})
def shared_weight_chain(F, v, xs, hs):
    """One weight in a chain of products: y = W h, z = W y."""
    y = fc(F, hs[0], v.w, v.b1)
    h = F.tanh(fc(F, y, v.w, v.b2) + fc(F, xs[0], v.wi, v.bi))
    return [h], [h]


@case()
def weights_also_elementwise(F, v, xs, hs):
    """The hoisted and the deferred weight (and a bias) also read elementwise."""
    h = cell(F, v, xs[0], hs[0])
    extra = F.sum(v.wh, axis=0) + F.sum(v.wi, axis=1) + v.bh * v.bh
    return [h], [F.broadcast_add(h, F.reshape(extra, (1, H)) * 0.1)]


@case(data=[("N", 2, I)], states=[("N", 2, H)])
def flatten_false_3d(F, v, xs, hs):
    """flatten=False products of 3-D rows, for both the scanned input and the state."""
    h = F.tanh(fc(F, xs[0], v.wi, v.bi, flatten=False) +
               fc(F, hs[0], v.wh, v.bh, flatten=False))
    return [h], [h]


@case(data=[("N", 2, I)], free={**RNN, "wi": (H, 2 * I)})
def flatten_true_3d(F, v, xs, hs):
    """A flatten=True i2h of 3-D rows (N, 2, I)."""
    h = cell(F, v, xs[0], hs[0])
    return [h], [h]


@case(data=[(I,)], states=[(H,)])
def vector_rows(F, v, xs, hs):
    """1-D rows and states (flatten=False products of a vector)."""
    h = F.tanh(fc(F, xs[0], v.wi, v.bi, flatten=False) +
               fc(F, hs[0], v.wh, v.bh, flatten=False))
    return [h], [h]


@case(states=[STATE, STATE], free={"wi": (4 * H, I), "bi": (4 * H,), "wh": (4 * H, H),
                                   "bh": (4 * H,), "wo": (2, H), "bo": (2,)})
def lstm(F, v, xs, hs):
    """Two carried states (c, h); three step outputs, two of them not states."""
    c, h = hs
    gates = fc(F, xs[0], v.wi, v.bi, 4 * H) + fc(F, h, v.wh, v.bh, 4 * H)
    i, f, g, o = F.split(gates, num_outputs=4, axis=1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
    h = F.sigmoid(o) * F.tanh(c)
    return [h, c * 2, fc(F, h, v.wo, v.bo, 2)], [c, h]


@case(states=[STATE, STATE])
def state_passed_through(F, v, xs, hs):
    """A state returned unchanged (and read by the step)."""
    h = F.tanh(cell(F, v, xs[0], hs[0]) + hs[1])
    return [h], [h, hs[1]]


@case(states=[STATE, ("H", "H")], free={k: s for k, s in RNN.items() if k != "wh"})
def weight_is_a_state(F, v, xs, hs):
    """The h2h weight is carried (changes every step): nothing may treat it as invariant."""
    h, w = hs
    h = F.tanh(fc(F, xs[0], v.wi, v.bi) + fc(F, h, w, v.bh))
    return [h], [h, w * 0.9 + 0.1 * F.tanh(w)]


@case(data=[ROW, ("H", "H"), ("H",)], free={"wi": (H, I), "bh": (H,)})
def weight_from_data(F, v, xs, hs):
    """A weight and a bias that are rows of scanned data, next to invariant ones."""
    x, w, b = xs
    h = F.tanh(fc(F, x, v.wi, b) + fc(F, hs[0], w, v.bh))
    return [h], [h]


@case(states=[STATE, ("H",)], free={k: s for k, s in RNN.items() if k != "bi"})
def bias_is_a_state(F, v, xs, hs):
    """The i2h bias is carried: that product is not hoisted, its weight still invariant."""
    h, b = hs
    h = F.tanh(fc(F, xs[0], v.wi, b) + fc(F, h, v.wh, v.bh))
    return [h], [h, b * 0.5 + 0.1]


@case(data=[STATE], free={"w": (H, H), "b": (H,)})
def cond_in_body(F, v, xs, hs):
    """A cond node in the step: the loop keeps each step's saved values as lists (they
    cannot be stacked)."""
    a = fc(F, hs[0], v.w, v.b)
    a = F.contrib.cond(F.sum(xs[0]) > 0, lambda: a * 2, lambda: a * 0.5)
    h = F.tanh(a + xs[0])
    return [h], [h]


@case()
def data_used_elsewhere(F, v, xs, hs):
    """The scanned rows read by the projection and elementwise; an output not a state."""
    h = cell(F, v, xs[0], hs[0])
    out = F.broadcast_add(h, F.sum(xs[0] * xs[0], axis=1, keepdims=True))
    return [out], [h]


@case(free={"wi": (H, I), "bi": (H,), "w1": (H, H), "b1": (H,), "w2": (H, H),
            "b2": (H,), "w3": (H, H), "b3": (H,)})
def chain_of_three(F, v, xs, hs):
    """Three invariant products in a row on the state."""
    y1 = fc(F, hs[0], v.w1, v.b1)
    y2 = fc(F, F.tanh(y1), v.w2, v.b2)
    y3 = fc(F, y2, v.w3, v.b3)
    h = F.tanh(y3 + fc(F, xs[0], v.wi, v.bi))
    return [h], [h]


@case(free={**RNN, "w2": (H, H), "b2": (H,)})
def fc_on_projection(F, v, xs, hs):
    """A product whose data is the hoisted projection (the body's backward reads it)."""
    p = fc(F, xs[0], v.wi, v.bi)
    h = F.tanh(fc(F, p, v.w2, v.b2) + fc(F, hs[0], v.wh, v.bh))
    return [h], [h]


@case()
def projection_times_state(F, v, xs, hs):
    """The projection multiplied (so read by the body's backward), not added."""
    h = F.tanh(fc(F, xs[0], v.wi, v.bi) * fc(F, hs[0], v.wh, v.bh))
    return [h, fc(F, xs[0], v.wi, v.bi)], [h]


@case()
def projection_times_cond(F, v, xs, hs):
    """The projection read by the body's backward, with a cond in the step (saved steps
    kept as lists, not stacks)."""
    a = fc(F, hs[0], v.wh, v.bh)
    a = F.contrib.cond(F.sum(xs[0]) > 0, lambda: a * 2, lambda: a * 0.5)
    h = F.tanh(fc(F, xs[0], v.wi, v.bi) * a)
    return [h], [h]


@case()
def inputs_as_outputs(F, v, xs, hs):
    """Step outputs that are body inputs: an invariant bias, the scanned rows, the state."""
    h = cell(F, v, xs[0], hs[0])
    return [h, v.bh, xs[0], hs[0]], [h]


@case(states=[STATE, STATE])
def duplicated_outputs_and_states(F, v, xs, hs):
    """One value returned as two step outputs and as two new states."""
    h = cell(F, v, xs[0], hs[0] * hs[1])
    return [h, h], [h, h]


@case(states=[STATE, STATE])
def state_delayed(F, v, xs, hs):
    """A new state that is the entering value of another state (h_{t-1} carried along)."""
    h = cell(F, v, xs[0], hs[0] + 0.5 * hs[1])
    return [h], [h, hs[0]]


@case(free={"w1": (H, I), "b1": (H,), "w2": (H, I), "b2": (H,)})
def two_projections_added(F, v, xs, hs):
    """Two projections of the scanned rows added to each other (both hoistable)."""
    h = F.tanh(fc(F, xs[0], v.w1, v.b1) + fc(F, xs[0], v.w2, v.b2) + hs[0])
    return [h], [h]


@case()
def h2h_product_also_a_step_output(F, v, xs, hs):
    """The h2h product (whose bias may be folded into the projection) is a step output."""
    a = fc(F, hs[0], v.wh, v.bh)
    h = F.tanh(fc(F, xs[0], v.wi, v.bi) + a)
    return [h, a], [h]


@case()
def projection_also_a_step_output(F, v, xs, hs):
    """The projection (into which the h2h bias may be folded) is a step output."""
    p = fc(F, xs[0], v.wi, v.bi)
    h = F.tanh(p + fc(F, hs[0], v.wh, v.bh))
    return [h, p], [h]


@case()
def h2h_product_is_the_new_state(F, v, xs, hs):
    """The h2h product (whose bias may be folded into the projection) is the new state."""
    a = fc(F, hs[0], v.wh, v.bh)
    return [fc(F, xs[0], v.wi, v.bi) + a], [a]


# ============================================================================== loops
LOOPS = ["foreach", "while", "while_longer", "while_truncated", "while_early"]



def _early_steps(T):
    return T - 1 if T > 1 else T


def loop(F, c, kind, T, v, data, h0, i0=None, budget=None):
    """Run body shape `c` over T steps: foreach over `data`, or a while_loop reading
    ``squeeze(take(d, i), axis=0)`` of each d in `data` at counter i: counted (``i < T``,
    max_iterations T; 'while_longer': max_iterations T + 3; 'while_truncated': ``i < T + 3``
    stopped by max_iterations T) or, for 'while_early', also stopped by a carried budget
    after T - 1 steps (cond depends on a state: the loop is not counted; max_iterations
    T + 3). Returns the stacked outputs and the final states (counter and budget first)."""
    if kind == "foreach":
        outs, last = F.contrib.foreach(lambda xs, hs: c.step(F, v, xs, hs), data, h0)
    else:
        early = kind == "while_early"
        fixed = [i0, budget] if early else [i0]

        def cond(i, *rest):
            if kind == "while_truncated":
                return i < T + 3
            return (i < T) * (rest[0] > 0.5) if early else i < T

        def func(i, *rest):
            xs = [F.squeeze(F.take(d, i), axis=0) for d in data]
            outs, hs = c.step(F, v, xs, list(rest[len(fixed) - 1:]))
            return outs, [i + 1] + ([rest[0] - 1] if early else []) + hs

        longer = kind in ("while_longer", "while_early")
        outs, last = F.contrib.while_loop(cond, func, fixed + h0,
                                          max_iterations=T + 3 if longer else T)
    return list(outs), list(last)


def _shape(s, n):
    return tuple(n if d == "N" else H if d == "H" else d for d in s)


def make_inputs(c, kind, T, N, seed=0):
    """Random float64 inputs of `build`'s symbol."""
    rng = np.random.RandomState(seed)
    args = {f"d{k}": rng.randn(T, *_shape(s, N)) for k, s in enumerate(c.data)}
    args.update({f"h{k}": rng.randn(*_shape(s, N)) * 0.5 for k, s in enumerate(c.states)})
    args.update({k: rng.randn(*s) * 0.5 for k, s in c.free.items()})
    if kind != "foreach":
        args["i0"] = np.zeros(1)
    if kind == "while_early":
        args["budget"] = np.array([float(_early_steps(T))])
    return args


def build(c, kind, T):
    """The symbol: Group(stacked outputs..., final states...)."""
    v = SimpleNamespace(**{k: sym.var(k) for k in c.free})
    data = [sym.var(f"d{k}") for k in range(len(c.data))]
    h0 = [sym.var(f"h{k}") for k in range(len(c.states))]
    outs, last = loop(sym, c, kind, T, v, data, h0, sym.var("i0"), sym.var("budget"))
    return sym.Group(outs + last)


# ========================================================================== Symbol.bind
def assert_same(plain, fast):
    assert plain.keys() == fast.keys()
    for k in plain:
        np.testing.assert_allclose(fast[k], plain[k], rtol=RTOL, atol=ATOL, err_msg=k)


def check(c, kind, T=3, N=2, grad_req="write", heads=None, **inputs):
    """Body shape `c` (a Case) run by `kind`: the optimized loop equals the plain one
    (`inputs` replace some of `make_inputs`')."""
    s, args = build(c, kind, T), {**make_inputs(c, kind, T, N), **inputs}
    check_optimized_equals_plain(s, args, RTOL, ATOL, dtype=F64, grad_req=grad_req,
                                 heads=heads, infer_after=True)


def _params(names, loops):
    return [pytest.param(n, k, id=f"{n}-{k}")
            for n in names for k in loops]


@pytest.mark.parametrize("name, kind", _params(sorted(CASES), LOOPS))
def test_body_shape_matches_the_plain_loop(name, kind):
    """Each body shape under each loop kind: all outputs and gradients equal the plain ones."""
    check(CASES[name], kind)


@pytest.mark.parametrize("T, N", [(1, 1), (1, 3), (5, 1)])
@pytest.mark.parametrize("name, kind", _params(
    ["lstm", "shared_weight_chain", "fc_on_projection", "flatten_false_3d",
     "data_used_elsewhere"], ["foreach", "while_longer"]))
def test_batch_and_sequence_sizes(name, kind, T, N):
    """Batch size 1 and more, sequence length 1 and more give the plain loop's results."""
    check(CASES[name], kind, T, N)


@pytest.mark.parametrize("grad_req", ["null_some", "add"])
@pytest.mark.parametrize("name, kind", _params(
    ["rnn", "shared_bias", "shared_weight_i2h_h2h", "weights_also_elementwise", "lstm",
     "chain_of_three", "fc_on_projection"], ["foreach", "while_early"]))
def test_grad_req_null_and_add(name, kind, grad_req):
    """grad_req 'null' on some invariant inputs (and the data), or 'add': plain gradients."""
    c = CASES[name]
    if grad_req == "null_some":  # every other invariant input, and the scanned data
        frozen = set(sorted(c.free)[::2]) | {"d0"}
        grad_req = {k: "null" if k in frozen else "write"
                    for k in make_inputs(c, kind, 1, 1)}
    check(c, kind, grad_req=grad_req)


@pytest.mark.parametrize("name, kind", _params(
    ["rnn", "lstm", "shared_weight_two_h2h", "weights_also_elementwise", "chain_of_three",
     "fc_on_projection", "flatten_false_3d", "cond_in_body"],
    ["foreach", "while_longer", "while_early"]))
def test_long_loops_use_the_transposed_weight_layout(name, kind, monkeypatch):
    """16 steps of 8 rows use the transposed weight layout and still match the plain loop."""
    laid_out, real = [], operators.fast_weight_layout

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        laid_out.append(len(out))
        return out

    monkeypatch.setattr(operators, "fast_weight_layout", spy)
    check(CASES[name], kind, T=16, N=8)
    assert max(laid_out) >= 1


@pytest.mark.parametrize("heads", ["second", "last"])
@pytest.mark.parametrize("name, kind", _params(
    ["lstm", "projection_times_state", "chain_of_three"], ["foreach", "while_early"]))
def test_outputs_without_head_gradient(name, kind, heads):
    """A head gradient for one output only (None for the others): the plain gradients."""
    n_out = len(build(CASES[name], kind, 3).list_outputs())
    pick = 1 if heads == "second" else n_out - 1
    check(CASES[name], kind, heads=[j == pick for j in range(n_out)])


@pytest.mark.parametrize("kind", ["while", "while_early"])
@pytest.mark.parametrize("name", ["rnn", "lstm", "chain_of_three", "flatten_false_3d",
                                  "weight_is_a_state"])
def test_while_loop_that_runs_no_step(name, kind):
    """A while_loop whose cond is false at entry (zero steps) matches the plain loop."""
    check(CASES[name], kind, **({"i0": np.array([5.0])} if kind == "while" else
                                {"budget": np.array([0.0])}))


# ====================================================== loops in loops, nodes run twice
def nested(inner, inner_kind, T_in):
    """A body shape whose step runs body shape `inner` by `inner_kind` over the step's
    (T_in, ...) block of rows (the inner loop node runs once per outer step)."""
    def step(F, v, xs, hs):
        outs, last = loop(F, inner, inner_kind, T_in, v, xs, hs,
                          F.zeros(shape=(1,), dtype=F64))
        return [F.sum(o, axis=0) for o in outs], last[len(last) - len(hs):]
    return Case(step, [(T_in,) + tuple(s) for s in inner.data], inner.states, inner.free)


# A node run again before the first run's backward (an inner loop once per outer step, a
# second executor, a second call of a block) must not overwrite what that backward reads:
# bodies that save their projection rows (a product of it, a FullyConnected on it, a cond
# in the step) are the cases where the node's shared projection buffer would be read.
def _run_twice_params(kinds):
    return [pytest.param(n, k, id=f"{n}-{k}")
            for n in ("rnn", "projection_times_state", "fc_on_projection",
                      "projection_times_cond") for k in kinds]


@pytest.mark.parametrize("outer_kind", ["foreach", "while_early"])
@pytest.mark.parametrize("name, inner_kind", _run_twice_params(["foreach", "while"]) + [
    pytest.param(n, k, id=f"{n}-{k}") for n in ("lstm", "cond_in_body")
    for k in ("foreach", "while")])
def test_nested_loops(name, inner_kind, outer_kind):
    """A loop in a loop body (inner node run once per outer step) matches the plain loops."""
    check(nested(CASES[name], inner_kind, 3), outer_kind, T=3)


@pytest.mark.parametrize("name, kind", _run_twice_params(["foreach", "while", "while_early"]))
def test_two_executors_of_one_symbol(name, kind):
    """Two executors of one symbol, both forward, then the first's backward: its own grads."""
    c = CASES[name]
    s = build(c, kind, 3)
    grads = []
    for opt in (False, True):
        with loop_optimizations(opt):
            exes = []
            for seed in (0, 1):
                args = make_inputs(c, kind, 3, 2, seed=seed)
                exes.append(s.bind(mx.cpu(), {k: nd.array(a, dtype=F64)
                                              for k, a in args.items()},
                                   args_grad={k: nd.zeros(np.shape(a), dtype=F64)
                                              for k, a in args.items()}))
                exes[-1].forward(is_train=True)
            rng = np.random.RandomState(7)
            exes[0].backward([nd.array(rng.randn(*o.shape), dtype=F64)
                              for o in exes[0].outputs])
            grads.append({k: g.asnumpy() for k, g in exes[0].grad_dict.items()})
    assert_same(*grads)


@pytest.mark.parametrize("inner_kind", ["foreach", "while"])
def test_nested_long_loop_reading_a_weight_that_changes_per_outer_step(inner_kind):
    """An inner loop in the fast layout, weight from the outer data, cond inside: plain grads."""
    inner = CASES["cond_in_body"]

    def step(F, v, xs, hs):
        block, w = xs
        outs, last = loop(F, inner, inner_kind, 16, SimpleNamespace(w=w, b=v.b), [block],
                          hs, F.zeros(shape=(1,), dtype=F64))
        return [F.sum(outs[0], axis=0)], last[-1:]

    check(Case(step, [(16, "N", H), ("H", "H")], [STATE], {"b": (H,)}), "foreach", T=2,
          N=8)


# ===================================================================== finite differences
_FD = [("shared_weight_chain", "foreach", False),
       ("weights_also_elementwise", "while_early", False),
       ("fc_on_projection", "while_early", False), ("state_passed_through", "foreach", False),
       ("fc_on_projection", "foreach", True), ("shared_weight_chain", "while_early", True)]


@pytest.mark.parametrize("name, kind, opt", [
    pytest.param(*a, id=f"{a[0]}-{a[1]}-{'optimized' if a[2] else 'plain'}") for a in _FD])
def test_gradients_match_finite_differences(name, kind, opt):
    """The plain loop (the reference) and the optimized one match finite differences."""
    c = CASES[name]
    args = make_inputs(c, kind, 2, 1)
    with loop_optimizations(opt):
        check_numeric_gradient(build(c, kind, 2), args, numeric_eps=1e-6, rtol=1e-5,
                               atol=1e-7, dtype=np.float64, grad_nodes=[k for k in args
                                                      if k not in ("i0", "budget")])


# ================================================================================ Gluon
class LoopBlock(gluon.HybridBlock):
    """A body shape run by a loop kind, its invariant inputs float64 Parameters; called on
    the scanned data, the initial states (and the counter, budget) in `make_inputs` order."""

    def __init__(self, c, kind, T, **kw):
        super().__init__(**kw)
        self.c, self.kind, self.T = c, kind, T
        for k, s in c.free.items():
            setattr(self, k, self.params.get(k, shape=s, dtype=F64))

    def hybrid_forward(self, F, *arrays, **params):
        n_d, n_s = len(self.c.data), len(self.c.states)
        data, h0, fixed = arrays[:n_d], arrays[n_d:n_d + n_s], arrays[n_d + n_s:]
        outs, last = loop(F, self.c, self.kind, self.T, SimpleNamespace(**params),
                          list(data), list(h0), *fixed)
        return outs + last


def make_block(c, kind, T, N, hybridize):
    net = LoopBlock(c, kind, T)
    net.initialize()
    values = make_inputs(c, kind, T, N, seed=99)
    for k in c.free:
        net.collect_params()[net.prefix + k].set_data(nd.array(values[k], dtype=F64))
    if hybridize:
        net.hybridize(static_alloc=True)
    return net


def block_inputs(c, kind, T, N, seed):
    args = make_inputs(c, kind, T, N, seed=seed)
    ins = [nd.array(a, dtype=F64) for k, a in args.items() if k not in c.free]
    for x in ins:
        x.attach_grad()
    return ins


def block_grads(net, c, inputs):
    return [x.grad.asnumpy().copy() for x in inputs] + \
        [net.collect_params()[net.prefix + k].grad().asnumpy().copy() for k in sorted(c.free)]


def run_block(c, kind, T, N, hybridize, opt, calls=2):
    """One inference call, then `calls` training iterations (record, backward with random
    heads) of one LoopBlock on new inputs each time: every call's outputs and gradients
    (inputs, Parameters)."""
    res = []
    with loop_optimizations(opt):
        net = make_block(c, kind, T, N, hybridize)
        res += [o.asnumpy().copy() for o in net(*block_inputs(c, kind, T, N, seed=5))]
        for call in range(calls):
            ins = block_inputs(c, kind, T, N, seed=call)
            with autograd.record():
                outs = net(*ins)
            rng = np.random.RandomState(10 + call)
            autograd.backward(outs, [nd.array(rng.randn(*o.shape), dtype=F64) for o in outs])
            res += [o.asnumpy().copy() for o in outs] + block_grads(net, c, ins)
    return res


def assert_all_close(ref, got, what):
    assert len(got) == len(ref)
    for j, (a, b) in enumerate(zip(ref, got)):
        np.testing.assert_allclose(b, a, rtol=RTOL, atol=ATOL, err_msg=f"array {j}, {what}")


@pytest.mark.parametrize("name, kind", _params(
    ["rnn", "lstm", "shared_bias", "shared_weight_chain", "weights_also_elementwise",
     "fc_on_projection", "projection_times_state", "weight_is_a_state", "cond_in_body"],
    ["foreach", "while", "while_early"]))
def test_hybridized_block_matches_imperative_and_plain(name, kind):
    """Hybridized (static_alloc, called twice) block == imperative block, opt on and off."""
    c = CASES[name]
    imperative = run_block(c, kind, 3, 2, hybridize=False, opt=True)
    for opt in (False, True):
        assert_all_close(imperative, run_block(c, kind, 3, 2, hybridize=True, opt=opt),
                         f"optimizations {opt}")


@pytest.mark.parametrize("name, kind", _run_twice_params(["foreach", "while"]))
def test_hybridized_block_called_twice_before_one_backward(name, kind):
    """Two recorded calls of one hybridized block, one backward: the imperative gradients."""
    c = CASES[name]
    results = {}
    for hybridize, opt in ((False, True), (True, False), (True, True)):
        with loop_optimizations(opt):
            net = make_block(c, kind, 3, 2, hybridize)
            inputs = [block_inputs(c, kind, 3, 2, seed) for seed in (0, 1)]
            with autograd.record():
                outs = [o for ins in inputs for o in net(*ins)]
            rng = np.random.RandomState(3)
            autograd.backward(outs, [nd.array(rng.randn(*o.shape), dtype=F64) for o in outs])
            results[hybridize, opt] = block_grads(net, c, inputs[0] + inputs[1])
    assert_all_close(results[False, True], results[True, False], "hybridized, plain")
    assert_all_close(results[False, True], results[True, True], "hybridized, optimized")
