"""mx.name (NameManager, Prefix) and mx.attribute (AttrScope), and the subgraph names that
loops and branches register, as MXNet 1.9.1 gives them."""
import json
from collections import defaultdict

import pytest

import gluonlite as mx
from gluonlite import gluon, nd, sym
from gluonlite.attribute import AttrScope


@pytest.fixture
def fresh_subgraph_names(monkeypatch):
    counts = defaultdict(int)
    monkeypatch.setattr(AttrScope, "_subgraph_names", counts)
    return counts


def test_name_manager_counts_per_hint_and_keeps_given_names():
    y = sym.var("y")
    with mx.name.NameManager():
        names = [sym.relu(y).name, sym.relu(y).name, sym.Activation(y, act_type="relu").name,
                 (y + y).name, sym.relu(y, name="mine").name]
    assert names == ["relu0", "relu1", "activation0", "_plus0", "mine"]


def test_prefix_prefixes_given_and_automatic_names_innermost_wins():
    y = sym.var("y")
    with mx.name.Prefix("a_"):
        with mx.name.Prefix("b_"):
            fc = sym.FullyConnected(y, num_hidden=2, name="fc")
        after = sym.relu(y)
    assert fc.list_arguments() == ["y", "b_fc_weight", "b_fc_bias"]
    assert after.name == "a_relu0"


def test_name_manager_subclass_changes_naming():
    class Upper(mx.name.NameManager):
        def get(self, name, hint):
            return super().get(name, hint).upper()
    with Upper():
        assert sym.relu(sym.var("y")).name == "RELU0"


def test_attr_scope_tags_variables_and_operators_nested_scopes_merge():
    with AttrScope(group="4", data="great"):
        y = sym.var("y")
        with AttrScope(group="5"):
            z = sym.relu(y, name="r")
        w = sym.var("w", attr={"data": "own"})
    assert y.attr("group") == "4" and y.attr("data") == "great"
    assert z.attr("group") == "5" and z.attr("data") == "great"
    assert w.attr("data") == "own"
    assert sym.var("outside").attr("group") is None


def test_attr_scope_rejects_a_value_that_is_not_a_string():
    with pytest.raises(ValueError, match="AttrScope: attribute 'lr' must be a string, got int"):
        AttrScope(lr=1)


def test_nested_loops_and_branches_register_qualified_subgraph_names(fresh_subgraph_names):
    def body(d, s):
        o, v = sym.contrib.while_loop(lambda i: i < 3, lambda i: (i * 2, i + 1), s[0],
                                      max_iterations=3)
        c = sym.contrib.cond(d.sum() > 0, lambda: d * 2, lambda: d * 3)
        return c + o.sum(), [v]
    with mx.name.NameManager():
        outs, _ = sym.contrib.foreach(body, sym.var("x"), [sym.var("s")])
    assert outs.name == "_foreach0"
    assert dict(fresh_subgraph_names) == {
        "foreach": 1, "foreach0$while_loop_cond": 1, "foreach0$while_loop_func": 1,
        "foreach0$cond_pred": 1, "foreach0$cond_then": 1, "foreach0$cond_else": 1}
    graph = json.loads(outs.tojson())
    (loop,) = [n for n in graph["nodes"] if n["op"] == "_foreach"]
    body_ops = [n for n in loop["subgraphs"][0]["nodes"] if n["op"] != "null"]
    assert body_ops and all(n["attrs"]["__subgraph_name__"] == "foreach0" for n in body_ops)


def test_name_stems_the_subgraph_names_and_the_node_is_named_automatically(
        fresh_subgraph_names):
    x = sym.var("x")
    with mx.name.NameManager():
        out = sym.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: x, name="my_cond")
        loop_out, _ = sym.contrib.while_loop(lambda i: i < 2, lambda i: (i, i + 1), x,
                                             max_iterations=2, name="w")
    assert out.name == "_cond0" and loop_out.name == "_while_loop0"
    assert dict(fresh_subgraph_names) == {"my_cond_pred": 1, "my_cond_then": 1,
                                          "my_cond_else": 1, "w_cond": 1, "w_func": 1}


@pytest.mark.parametrize("fname", ["foreach", "while_loop", "cond"])
def test_a_name_that_is_not_a_string_is_rejected(fname):
    x = sym.var("x")
    call = {"foreach": lambda: sym.contrib.foreach(lambda d, s: (d, s), x, [x], name=3),
            "while_loop": lambda: sym.contrib.while_loop(lambda i: i < 1, lambda i: (i, i + 1),
                                                         x, max_iterations=1, name=3),
            "cond": lambda: sym.contrib.cond(x, lambda: x, lambda: x, name=3)}[fname]
    with pytest.raises(TypeError, match=f"{fname}: name must be a string, got int"):
        call()


class _Branch(gluon.HybridBlock):
    def hybrid_forward(self, F, data):
        (out,) = F.contrib.cond(data > 0.5, lambda: data * 2, lambda: data * 3,
                                name="my_cond")
        return out


def test_each_hybridized_block_registers_its_branch_names_once(fresh_subgraph_names):
    data = nd.array([0.3])
    for _ in range(2):
        block = _Branch()
        block.initialize()
        block.hybridize()
        block(data)
        block(data)
    assert dict(fresh_subgraph_names) == {"my_cond_pred": 2, "my_cond_then": 2,
                                          "my_cond_else": 2}


def test_imperative_control_flow_registers_no_subgraph_names(fresh_subgraph_names):
    x = nd.array([0.7])
    nd.contrib.cond(x > 0.5, lambda: x * 2, lambda: x * 3)
    nd.contrib.foreach(lambda d, s: (d, s), x, [x])
    assert not fresh_subgraph_names
