"""foreach and cond: nd (reference) vs sym values and gradients; nesting; JSON layout."""
import json
import re

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from harness import check_imperative_vs_symbolic


def test_foreach_several_data_outputs_and_states():
    rng = np.random.RandomState(0)
    inputs = {"d1": rng.randn(4, 2, 3).astype(np.float32),
              "d2": rng.randn(4, 3).astype(np.float32),
              "s1": rng.randn(2, 3).astype(np.float32), "s2": rng.randn(3).astype(np.float32),
              "w": rng.randn(2, 3).astype(np.float32)}

    def build(F, d1, d2, s1, s2, w):
        def body(data, states):
            x1, x2 = data
            a, b = states
            a2 = F.tanh(a * w + x1)
            b2 = b * x2 + 1
            return [a2, b2 * 2], [a2, b2]
        return F.contrib.foreach(body, [d1, d2], [s1, s2])
    iv, _ = check_imperative_vs_symbolic(build, inputs, ["d1", "d2", "s1", "s2", "w"])
    assert iv[0].shape == (4, 2, 3) and iv[1].shape == (4, 3)


def test_foreach_keeps_single_structure_and_state_is_output():
    rng = np.random.RandomState(1)
    inputs = {"d": rng.randn(3, 2).astype(np.float32), "s": rng.randn(2).astype(np.float32)}

    def build(F, d, s):
        outs, st = F.contrib.foreach(lambda x, st: (st, x + st), d, s)
        assert not isinstance(outs, list) and not isinstance(st, list)
        return [outs, st]
    check_imperative_vs_symbolic(build, inputs, ["d", "s"])


def test_foreach_json_layout_matches_mxnet():
    data, h, w = sym.var("data"), sym.var("h"), sym.var("w")
    outs, states = sym.contrib.foreach(lambda x, s: (x * w, [s[0] + x]), data, [h])
    node = json.loads(sym.Group([outs] + states).tojson())["nodes"][-1]
    assert node["op"] == "_foreach"
    assert node["attrs"] == {"num_args": "4", "num_outputs": "2", "num_out_data": "1",
                             "in_data_locs": "[0]", "in_state_locs": "[2]",
                             "remain_locs": "[1]"}
    assert [n["name"] for n in node["subgraphs"][0]["nodes"] if n["op"] == "null"] == \
        ["data-0", "w", "h-0"]


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_cond_values_and_gradients_only_through_taken_branch(flag):
    rng = np.random.RandomState(2)
    inputs = {"x": rng.randn(2, 3).astype(np.float32), "a": rng.randn(2, 3).astype(np.float32),
              "b": rng.randn(2, 3).astype(np.float32), "f": np.array([flag], np.float32)}

    def build(F, x, a, b, f):
        y = F.tanh(x)
        return F.contrib.cond(f.sum() > 0, lambda: [y * a, a], lambda: [y - b, b * 2])
    _, g = check_imperative_vs_symbolic(build, inputs, ["x", "a", "b"])
    untaken = "b" if flag > 0 else "a"
    np.testing.assert_array_equal(g[untaken], 0)
    assert np.abs(g["a" if flag > 0 else "b"]).sum() > 0


def test_nested_while_in_foreach_and_cond_in_while():
    rng = np.random.RandomState(3)
    inputs = {"d": rng.randn(3, 2).astype(np.float32), "s": rng.randn(2).astype(np.float32),
              "w": rng.randn(2).astype(np.float32)}

    def build(F, d, s, w):
        def body(x, st):
            def func(j, acc):
                nxt = F.contrib.cond((j < 1).sum() > 0, lambda: acc * w + x,
                                     lambda: F.tanh(acc) - w)
                return [nxt], [j + 1, nxt]
            inner, (_, acc) = F.contrib.while_loop(lambda j, acc: j < 2, func,
                                                   [F.zeros_like(x).sum() * 0, st[0]],
                                                   max_iterations=3)
            return [inner[0] * 1], [acc]
        return F.contrib.foreach(body, d, [s])
    iv, _ = check_imperative_vs_symbolic(build, inputs, ["d", "s", "w"])
    assert iv[0].shape == (3, 3, 2)


def test_nested_loop_json_round_trip_is_constant_size():
    def make(T):
        data, h = sym.var("data"), sym.var("h")

        def body(x, s):
            o, st = sym.contrib.while_loop(lambda a: (a * 0).sum() < 1,
                                           lambda a: ([a], [a * x]), [s[0]], max_iterations=T)
            return o[0], st
        outs, states = sym.contrib.foreach(body, data, [h])
        return sym.Group([outs] + states)
    g = make(4)
    g2 = sym.load_json(g.tojson())
    args = {"data": nd.array(np.random.rand(2, 3)), "h": nd.array(np.random.rand(3))}
    a = g.bind(mx.cpu(), args).forward()
    b = g2.bind(mx.cpu(), args).forward()
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy())
    # same graph whatever the trip count (digits aside: names carry counters)
    assert len(re.sub(r"\d+", "", make(10).tojson())) == \
        len(re.sub(r"\d+", "", make(1000).tojson()))
