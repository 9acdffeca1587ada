"""Helpers for the subgraph tests: run a symbol and its partitioned form on the same float64
arrays and compare everything they produce."""
import numpy as np
from numpy.testing import assert_allclose

import gluonlite as mx
from gluonlite import nd
from gluonlite.subgraph import partition_graph
from gluonlite.symbol.symbol import topo_nodes

SUBGRAPH_OP = "_default_subgraph_op"


def subgraph_nodes(s):
    """The `_default_subgraph_op` nodes of `s` (outer graph only), in graph order."""
    return [n for n in topo_nodes(s.outputs) if n.op is not None and n.op.name == SUBGRAPH_OP]


def inner_op_names(s):
    """Per subgraph node of `s`, the sorted names of the operator nodes it holds."""
    return [sorted(n.name for n in topo_nodes(node.subgraphs[0].outputs) if n.op is not None)
            for node in subgraph_nodes(s)]


def is_acyclic(s):
    """Whether the graph of `s` (bodies included) has no cycle, by a colouring DFS that does
    not trust `topo_nodes`."""
    state = {}

    def visit(root):
        stack = [(root, iter(root.inputs))]
        state[id(root)] = "open"
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[id(node)] = "done"
                stack.pop()
                continue
            child = nxt[0]
            st = state.get(id(child))
            if st == "open":
                return False
            if st is None:
                state[id(child)] = "open"
                stack.append((child, iter(child.inputs)))
        return True

    for head, _ in s.outputs:
        if id(head) not in state and not visit(head):
            return False
    return all(is_acyclic(sub) for n in topo_nodes(s.outputs) for sub in n.subgraphs)


def assert_same_interface(original, partitioned):
    """Same inputs, arguments, auxiliary states (in order) and number of outputs."""
    assert partitioned.list_inputs() == original.list_inputs()
    assert partitioned.list_arguments() == original.list_arguments()
    assert partitioned.list_auxiliary_states() == original.list_auxiliary_states()
    assert len(partitioned.outputs) == len(original.outputs)


def random_inputs(s, shapes, seed=0):
    """float64 arrays for every argument and auxiliary state of `s` (numpy, by name)."""
    rng = np.random.RandomState(seed)
    arg_shapes, out_shapes, aux_shapes = s.infer_shape(**shapes)
    assert arg_shapes is not None, f"shapes of {s.list_inputs()} not inferable from {shapes}"
    args = {n: rng.uniform(-1, 1, sh) for n, sh in zip(s.list_arguments(), arg_shapes)}
    aux = {n: rng.uniform(0.5, 1.5, sh) for n, sh in zip(s.list_auxiliary_states(), aux_shapes)}
    out_grads = [rng.uniform(-1, 1, sh) for sh in out_shapes]
    return args, aux, out_grads


def run(s, args, aux, out_grads, is_train=True):
    """Bind `s` to copies of the arrays, run forward (and backward when training).

    Returns:
        (outputs, gradients by name, auxiliary states after the run by name), as numpy.
    """
    f64 = lambda a: nd.array(a, dtype="float64")  # noqa: E731
    grads = {n: nd.zeros(v.shape, dtype="float64") for n, v in args.items()}
    exe = s.bind(mx.cpu(), args={n: f64(v) for n, v in args.items()},
                 args_grad=grads if is_train else None,
                 grad_req="write" if is_train else "null",
                 aux_states={n: f64(v) for n, v in aux.items()})
    outs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    if is_train:
        exe.backward([f64(g) for g in out_grads])
    return outs, {n: g.asnumpy() for n, g in grads.items()}, \
        {n: a.asnumpy() for n, a in exe.aux_dict.items()}


def assert_same_results(original, partitioned, shapes, is_train=True, seed=0):
    """Forward outputs, gradients and updated auxiliary states agree (float64)."""
    args, aux, ogs = random_inputs(original, shapes, seed)
    want = run(original, args, aux, ogs, is_train)
    got = run(partitioned, args, aux, ogs, is_train)
    for i, (w, g) in enumerate(zip(want[0], got[0])):
        assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=f"output {i}")
    for part, what in ((1, "gradient"), (2, "aux state")):
        assert sorted(got[part]) == sorted(want[part])
        for n in want[part]:
            assert_allclose(got[part][n], want[part][n], rtol=1e-10, atol=1e-12,
                            err_msg=f"{what} {n}")


def check_partition(s, op_names, shapes, backend="default"):
    """Partition `s`; check interface, acyclicity, values and gradients (train and infer) and
    a JSON round trip. Returns the partitioned symbol."""
    p = partition_graph(s, backend, op_names)
    assert_same_interface(s, p)
    assert is_acyclic(p)
    assert_same_results(s, p, shapes, is_train=True)
    assert_same_results(s, p, shapes, is_train=False)
    q = mx.sym.load_json(p.tojson())
    assert q.tojson() == p.tojson()
    assert_same_interface(s, q)
    assert_same_results(s, q, shapes, is_train=True, seed=1)
    return p
