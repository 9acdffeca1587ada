"""while_loop returns MXNet 1.9.1's structures, the same in nd, sym and a hybridized block:
outputs mirror func's step output (one array stays one array, lists and tuples give lists,
None gives []), final loop vars mirror loop_vars."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym, gluon
from gluonlite.ndarray.ndarray import NDArray
from gluonlite.symbol.symbol import Symbol

STEPS = {
    "one": lambda i: (i * 2, i + 1),
    "list": lambda i: ([i * 2], [i + 1]),
    "tuple": lambda i: ((i * 2, i), (i + 1,)),
    "none": lambda i: (None, i + 1),
    "nested": lambda i: ([i, (i * 2, i + 3)], [i + 1]),
}
# what MXNet 1.9.1 gives, written by hand: '*' one array, [..] a list
EXPECTED_OUT = {"one": "*", "list": "[*]", "tuple": "[*, *]", "none": "[]",
                "nested": "[*, [*, *]]"}
EXPECTED_VARS = {"one": "*", "list": "[*]", "tuple": "[*]"}


def _shape_of(x, leaf):
    if isinstance(x, leaf):
        return "*"
    assert type(x) is list, type(x)
    return "[" + ", ".join(_shape_of(e, leaf) for e in x) + "]"


def _leaves(x):
    return [x] if not isinstance(x, list) else [y for e in x for y in _leaves(e)]


def _loop_vars(kind, v):
    return {"one": v, "list": [v], "tuple": (v,)}[kind]


@pytest.mark.parametrize("vars_kind", sorted(EXPECTED_VARS))
@pytest.mark.parametrize("step", sorted(STEPS))
def test_structures_nd_and_sym_agree(step, vars_kind):
    cond = lambda i: i < 3  # noqa: E731
    outs, final = nd.contrib.while_loop(cond, STEPS[step], _loop_vars(vars_kind, nd.array([0.])),
                                        max_iterations=4)
    assert _shape_of(outs, NDArray) == EXPECTED_OUT[step]
    assert _shape_of(final, NDArray) == EXPECTED_VARS[vars_kind]
    souts, sfinal = sym.contrib.while_loop(cond, STEPS[step],
                                           _loop_vars(vars_kind, sym.var("i")), max_iterations=4)
    assert _shape_of(souts, Symbol) == EXPECTED_OUT[step]
    assert _shape_of(sfinal, Symbol) == EXPECTED_VARS[vars_kind]
    group = sym.Group(_leaves(souts) + _leaves(sfinal))
    res = group.bind(mx.cpu(), {"i": nd.array([0.])}).forward()
    for got, want in zip(res, _leaves(outs) + _leaves(final)):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy())


def test_one_step_output_is_stacked_rows():
    outs, i = nd.contrib.while_loop(lambda i: i < 3, lambda i: (i * 2, i + 1), nd.array([0.]),
                                    max_iterations=5)
    np.testing.assert_array_equal(outs.asnumpy(), [[0.], [2.], [4.], [0.], [0.]])
    assert i.asscalar() == 3


def test_zero_steps_give_no_outputs_imperatively_and_zero_rows_in_a_graph():
    step = lambda i: ((i * 2, i), i + 1)  # noqa: E731
    outs, i = nd.contrib.while_loop(lambda i: i < 0, step, nd.array([0.]), max_iterations=2)
    assert outs == [] and isinstance(i, NDArray) and i.asscalar() == 0
    souts, si = sym.contrib.while_loop(lambda i: i < 0, step, sym.var("i"), max_iterations=2)
    assert _shape_of(souts, Symbol) == "[*, *]"
    res = sym.Group(souts + [si]).bind(mx.cpu(), {"i": nd.array([0.])}).forward()
    np.testing.assert_array_equal(res[0].asnumpy(), np.zeros((2, 1)))
    assert res[2].asscalar() == 0


class _Loop(gluon.HybridBlock):
    def __init__(self, step, **kwargs):
        super().__init__(**kwargs)
        self.step = step

    def hybrid_forward(self, F, x):
        return F.contrib.while_loop(lambda i: i < 3, self.step, x, max_iterations=4)


@pytest.mark.parametrize("step", sorted(STEPS))
def test_hybridized_block_returns_the_same_structure(step):
    x = nd.array([0.5])
    ref = _Loop(STEPS[step])
    net = _Loop(STEPS[step])
    net.hybridize()
    (o1, v1), (o2, v2) = ref(x), net(x)
    assert _shape_of(o2, NDArray) == _shape_of(o1, NDArray) == EXPECTED_OUT[step]
    assert isinstance(v1, NDArray) and isinstance(v2, NDArray)
    for a, b in zip(_leaves(o1) + [v1], _leaves(o2) + [v2]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())


def test_nested_loop_vars_reach_func_nested_and_come_back_nested():
    def func(a, pair):
        assert type(pair) is list and len(pair) == 1
        return a * 2, (a + 1, [pair[0] + a])
    cond = lambda a, pair: a < 3  # noqa: E731
    outs, final = nd.contrib.while_loop(cond, func, [nd.array([0.]), (nd.array([5.]),)],
                                        max_iterations=4)
    assert _shape_of(final, NDArray) == "[*, [*]]"
    assert [final[0].asscalar(), final[1][0].asscalar()] == [3, 8]
    souts, sfinal = sym.contrib.while_loop(cond, func, [sym.var("a"), (sym.var("b"),)],
                                           max_iterations=4)
    assert _shape_of(sfinal, Symbol) == "[*, [*]]"
    res = sym.Group([souts, sfinal[0], sfinal[1][0]]).bind(
        mx.cpu(), {"a": nd.array([0.]), "b": nd.array([5.])}).forward()
    np.testing.assert_allclose(res[0].asnumpy(), outs.asnumpy())
    assert [res[1].asscalar(), res[2].asscalar()] == [3, 8]


def test_func_returning_another_number_of_loop_vars_is_named():
    with pytest.raises(ValueError, match="while_loop: loop_vars has 2 element"):
        nd.contrib.while_loop(lambda a, p: a < 3, lambda a, p: (a, [a + 1]),
                              [nd.array([0.]), [nd.array([1.])]], max_iterations=2)
