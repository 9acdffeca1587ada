"""The public API around the pass: backends, selectors, filters, errors, the environment hook,
nested subgraph nodes, output names."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.executor import CachedOp
from gluonlite.subgraph import (ContainOpSelector, SubgraphProperty, SubgraphSelector,
                                default_subgraph_node, list_subgraph_properties,
                                partition_graph, register_subgraph_property,
                                remove_subgraph_property_op_names,
                                set_subgraph_property_op_names)

from sgutil import (assert_same_interface, assert_same_results, check_partition,
                    inner_op_names, is_acyclic, run, random_inputs, subgraph_nodes)


def _chain():
    x = sym.var("x", shape=(2, 3))
    a = sym.exp(x, name="a")
    b = sym.tanh(a, name="b")
    c = sym.sigmoid(b, name="c")
    return sym.elemwise_add(c, x, name="d")


def _backend(name, selector_factory):
    """Register (once) a backend whose selector comes from `selector_factory()`."""
    class Prop(SubgraphProperty):
        def create_subgraph_selector(self):
            return selector_factory()

        def create_subgraph_node(self, symbol, subgraph_id):
            return default_subgraph_node(symbol, subgraph_id, prefix=f"{name}_")
    Prop.__qualname__ = f"Prop_{name}"
    register_subgraph_property(name, Prop)
    return name


class SelectAll(SubgraphSelector):
    def select(self, node):
        return True

    def select_input(self, node, input_node):
        return True

    def select_output(self, node, output_node):
        return True


# ---- backends and errors -------------------------------------------------------------------
def test_default_backend_is_registered():
    assert "default" in list_subgraph_properties()


def test_unknown_backend_lists_registered_ones():
    with pytest.raises(ValueError, match=r"unknown subgraph backend 'nope'.*default"):
        partition_graph(_chain(), "nope", ["exp"])


def test_unknown_op_name_and_bare_string():
    with pytest.raises(ValueError, match="op_names.*'expp'"):
        partition_graph(_chain(), "default", ["expp"])
    with pytest.raises(TypeError, match=r"write \['exp'\]"):
        partition_graph(_chain(), "default", "exp")


def test_not_a_symbol():
    with pytest.raises(TypeError, match="must be a Symbol"):
        partition_graph(nd.ones((2,)), "default", ["exp"])


def test_register_rejects_non_property_and_name_clash():
    with pytest.raises(TypeError, match="subclass of SubgraphProperty"):
        register_subgraph_property("bad_backend", object)

    class Other(SubgraphProperty):
        pass
    with pytest.raises(ValueError, match="'default' is already registered"):
        register_subgraph_property("default", Other)


def test_selector_error_names_the_node():
    class Broken(SelectAll):
        def select_output(self, node, output_node):
            if output_node.name == "c":
                raise KeyError("boom")
            return True
    name = _backend("broken_selector", Broken)
    with pytest.raises(RuntimeError, match=r"Broken.select_output raised KeyError: 'boom' while "
                                           r"looking at node 'b' \(op tanh\) and its output "
                                           r"node 'c' \(op sigmoid\)"):
        partition_graph(_chain(), name)


def test_filter_may_only_drop_nodes():
    foreign = sym.exp(sym.var("y"), name="foreign").outputs[0][0]

    class AddsNode(SelectAll):
        def filter(self, candidates):
            return candidates + [foreign]
    name = _backend("adds_node", AddsNode)
    with pytest.raises(ValueError, match="filter returned node 'foreign'.*not among"):
        partition_graph(_chain(), name)


# ---- selection rules --------------------------------------------------------------------
def test_variables_never_join():
    name = _backend("select_all", SelectAll)
    s = _chain()
    p = check_partition(s, None, {}, backend=name)
    assert inner_op_names(p) == [["a", "b", "c", "d"]]
    node, = subgraph_nodes(p)
    assert [src.name for src, _ in node.inputs] == ["x"]


def test_filter_split_into_connected_parts():
    class DropB(SelectAll):
        def filter(self, candidates):
            return [n for n in candidates if n.name != "b"]
    name = _backend("drop_b", DropB)
    p = check_partition(_chain(), None, {}, backend=name)
    # {a} and {c, d}; b is left out of the first seed's subgraph, then seeds its own.
    assert inner_op_names(p)[:2] == [["a"], ["c", "d"]]


def test_filter_that_opens_a_cycle_is_repaired():
    # a -> b -> c and a -> d -> c: dropping b leaves {a, d, c} connected, but a -> b -> c
    # would leave it and come back.
    x = sym.var("x", shape=(2, 2))
    a = sym.exp(x, name="a")
    b = sym.tanh(a, name="b")
    d = sym.sigmoid(a, name="d")
    c = sym.elemwise_add(b, d, name="c")

    class DropB(SelectAll):
        def filter(self, candidates):
            return [n for n in candidates if n.name != "b"]
    name = _backend("drop_b_cycle", DropB)
    p = check_partition(c, None, {}, backend=name)
    assert ["a", "c", "d"] not in inner_op_names(p)


def test_asymmetric_selector_and_latest_node_dropped():
    # Only input edges are followed: seeds grow backwards.
    class InputsOnly(SubgraphSelector):
        def select(self, node):
            return node.name == "d"

        def select_input(self, node, input_node):
            return input_node.op is not None
    name = _backend("inputs_only", InputsOnly)
    p = check_partition(_chain(), None, {}, backend=name)
    assert inner_op_names(p) == [["a", "b", "c", "d"]]


def test_selector_is_asked_about_nodes_not_bodies():
    # A subgraph node (like a loop or cond node) is one node to a selector.
    inner = partition_graph(_chain(), "default", ["tanh", "sigmoid"])
    seen = []

    class Spy(ContainOpSelector):
        def select(self, node):
            seen.append(node.name)
            return super().select(node)

        def select_input(self, node, input_node):
            seen.extend([node.name, input_node.name])
            return super().select_input(node, input_node)

        def select_output(self, node, output_node):
            seen.extend([node.name, output_node.name])
            return super().select_output(node, output_node)
    name = _backend("spy", lambda: Spy(["_default_subgraph_op", "exp"]))
    p = check_partition(inner, None, {}, backend=name)
    assert "b" not in seen and "c" not in seen and "_default_subgraph_op0" in seen
    assert inner_op_names(p) == [["_default_subgraph_op0", "a"]]
    assert_same_results(_chain(), p, {})


def test_contain_op_selector_accepts_aliases():
    x = sym.var("x", shape=(2, 2))
    s = x + sym.exp(x)
    p = partition_graph(s, "default", ["_plus"])
    assert len(subgraph_nodes(p)) == 1


# ---- names and serialization -------------------------------------------------------------
def test_subgraph_node_names_and_json_subgraphs():
    p = partition_graph(_chain(), "default", ["exp", "tanh"])
    assert [n.name for n in subgraph_nodes(p)] == ["_default_subgraph_op0"]
    import json
    d = json.loads(p.tojson())
    node = next(n for n in d["nodes"] if n["op"] == "_default_subgraph_op")
    assert [n["name"] for n in node["subgraphs"][0]["nodes"]] == ["x", "a", "b"]


def test_list_outputs_kept():
    s = sym.Group([_chain(), sym.exp(sym.var("y"), name="e")])
    p = partition_graph(s, "default", ["exp", "tanh", "sigmoid", "elemwise_add"])
    assert p.list_outputs() == s.list_outputs()


def test_original_symbol_is_not_modified():
    s = _chain()
    before = s.tojson()
    partition_graph(s, "default", ["exp", "tanh"])
    assert s.tojson() == before


# ---- execution paths -----------------------------------------------------------------------
def test_env_backend_partitions_at_bind_and_simple_bind(monkeypatch):
    calls = []

    class Counting(ContainOpSelector):
        def select(self, node):
            calls.append(node.name)
            return super().select(node)
    name = _backend("env_counting", lambda: Counting(["exp", "tanh"]))
    s = _chain()
    args, aux, ogs = random_inputs(s, {})
    want = run(s, args, aux, ogs)
    assert calls == []
    monkeypatch.setenv("GLUONLITE_SUBGRAPH_BACKEND", name)
    got = run(s, args, aux, ogs)
    assert calls  # the pass ran during bind
    for w, g in zip(want[0], got[0]):
        assert_allclose(g, w, rtol=1e-12)
    assert_allclose(got[1]["x"], want[1]["x"], rtol=1e-12)
    calls.clear()
    exe = s.simple_bind(mx.cpu(), grad_req="null", x=(2, 3))
    assert calls
    exe.arg_dict["x"][:] = args["x"]
    assert_allclose(exe.forward()[0].asnumpy(), want[0][0], rtol=1e-6)
    calls.clear()
    op = CachedOp(s)  # what a hybridized block compiles on its first call
    assert calls
    out, = op(nd.array(args["x"], dtype="float64"))
    assert_allclose(out.asnumpy(), want[0][0], rtol=1e-12)


def test_env_default_backend_uses_registered_op_names(monkeypatch):
    s = _chain()
    monkeypatch.setenv("GLUONLITE_SUBGRAPH_BACKEND", "default")
    set_subgraph_property_op_names("default", ["exp", "tanh"])
    try:
        from gluonlite.subgraph import maybe_partition
        p = maybe_partition(s)
        assert inner_op_names(p) == [["a", "b"]]
        assert_same_results(s, p, {})
    finally:
        remove_subgraph_property_op_names("default")
    assert maybe_partition(s) is s


def test_env_unknown_backend(monkeypatch):
    monkeypatch.setenv("GLUONLITE_SUBGRAPH_BACKEND", "no_such_backend")
    with pytest.raises(ValueError, match="GLUONLITE_SUBGRAPH_BACKEND='no_such_backend'.*default"):
        _chain().simple_bind(mx.cpu(), x=(2, 3))


def test_cached_op_forward_and_autograd():
    s = _chain()
    p = partition_graph(s, "default", ["exp", "tanh", "sigmoid"])
    xv = np.random.RandomState(3).uniform(-1, 1, (2, 3))
    results = []
    for graph in (s, p):
        x = nd.array(xv, dtype="float64")
        x.attach_grad()
        op = CachedOp(graph)
        for train in (True, False):
            with mx.autograd.record(train_mode=train):
                out, = op(x)
                loss = (out * out).sum()
            loss.backward()
            results.append((out.asnumpy(), x.grad.asnumpy()))
    for (ow, gw), (og, gg) in zip(results[:2], results[2:]):
        assert_allclose(og, ow, rtol=1e-12)
        assert_allclose(gg, gw, rtol=1e-12)


def test_nested_subgraph_nodes_run():
    first = partition_graph(_chain(), "default", ["tanh", "sigmoid"])
    second = partition_graph(first, "default", ["_default_subgraph_op", "exp",
                                                "elemwise_add"])
    assert_same_interface(_chain(), second)
    assert is_acyclic(second)
    assert_same_results(_chain(), second, {})
    assert_same_results(_chain(), mx.sym.load_json(second.tojson()), {})


def _loop_and_branch():
    with mx.name.NameManager():   # fresh counters: the loop is _foreach0, the branch _cond0
        return _loop_and_branch_nodes()


def _loop_and_branch_nodes():
    x = sym.var("x", shape=(4, 3))
    h = sym.var("h", shape=(3,))

    def body(d, states):
        s = sym.tanh(d + states[0], name="inner_tanh")
        return s, [s]
    outs, states = sym.contrib.foreach(body, sym.exp(x, name="e"), [h], name="loop")
    branch = sym.contrib.cond(sym.sum(x, name="total") > 0,
                              lambda: sym.tanh(x, name="then_tanh"),
                              lambda: sym.sigmoid(x, name="else_sig"), name="branch")
    return sym.Group([sym.sigmoid(outs, name="sg"), states[0], branch])


@pytest.mark.parametrize("op_names, groups", [
    (["exp", "_foreach", "sigmoid"], [["_foreach0", "e", "sg"]]),
    (["_foreach", "_cond"], [["_foreach0"], ["_cond0"]]),
    (["tanh"], []),  # the bodies' tanh nodes are not graph nodes to a selector
])
def test_loop_and_cond_nodes_are_single_nodes(op_names, groups):
    s = _loop_and_branch()
    p = check_partition(s, op_names, {})
    assert inner_op_names(p) == groups


def test_env_backend_partitions_hybridized_block(monkeypatch):
    from gluonlite import gluon
    built = []

    class Recording(SubgraphProperty):
        def create_subgraph_selector(self):
            return ContainOpSelector(["FullyConnected", "Activation"])

        def create_subgraph_node(self, symbol, subgraph_id):
            built.append(symbol.list_outputs())
            return default_subgraph_node(symbol, subgraph_id)
    register_subgraph_property("env_recording", Recording)
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(4, activation="tanh"), gluon.nn.Dense(2))
    net.initialize()
    xv = np.random.RandomState(0).uniform(-1, 1, (3, 5))
    results = []
    for hybrid in (False, True):
        if hybrid:
            monkeypatch.setenv("GLUONLITE_SUBGRAPH_BACKEND", "env_recording")
            net.hybridize()
        x = nd.array(xv)
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        results.append((y.asnumpy(), x.grad.asnumpy()))
    assert len(built) == 1  # one subgraph, built at the first hybridized call
    assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    assert_allclose(results[1][1], results[0][1], rtol=1e-5)


def test_env_backend_works_without_importing_subgraph():
    # A script that only sets the variable (and never imports gluonlite.subgraph) is
    # partitioned too: an unknown backend name is reported at bind.
    import os
    import subprocess
    import sys
    script = ("import gluonlite as mx\n"
              "x = mx.sym.var('x')\n"
              "try:\n"
              "    mx.sym.exp(x).simple_bind(mx.cpu(), x=(2,))\n"
              "except ValueError as e:\n"
              "    print('ERROR', e)\n")
    env = dict(os.environ, GLUONLITE_SUBGRAPH_BACKEND="no_such_backend")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=60)
    assert "ERROR" in out.stdout and "no_such_backend" in out.stdout, out.stdout + out.stderr
