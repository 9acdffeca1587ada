"""Auxiliary inputs are a registry-level rule: `Operator.aux_mask(p)`, from the `aux` names
by default or from an operator's own rule (what subgraph nodes use); `Symbol` and gradients
read it."""

from gluonlite import sym
from gluonlite.ops import registry
from gluonlite.ops.registry import Params, entry
from gluonlite.symbol.symbol import Node, Symbol


def test_default_mask_comes_from_aux_names():
    op = registry.get("BatchNorm")
    p = op.parse({})[0]
    names = op.input_names(p)
    assert op.aux_mask(p) == [n in ("moving_mean", "moving_var") for n in names]
    assert [op.differentiable(i, p) for i in range(len(names))] == [
        n not in ("moving_mean", "moving_var") for n in names]
    assert not registry.get("relu").has_aux


def _flagged_op():
    """An operator whose auxiliary inputs are chosen by its params."""
    return entry("_test_flagged", lambda p, rc, *xs: sum(xs),
                 inputs=lambda p: [f"in{i}" for i in range(len(p["flags"]))],
                 aux=lambda p: p["flags"], attrs={}, signature=(),
                 vjp=lambda p, rc, xs, ys, gys, need: [gys[0]] * len(xs),
                 shape=lambda p, ins: (ins, [ins[0]]))


def test_an_operator_rule_decides_which_inputs_are_auxiliary():
    op = _flagged_op()
    p = Params({"flags": [False, True, False]})
    vs = [sym.var(f"v{i}") for i in range(3)]
    node = Node(op, "flagged0", {}, p, [v.outputs[0] for v in vs])
    s = Symbol([(node, 0)])
    assert s.list_arguments() == ["v0", "v2"]
    assert s.list_auxiliary_states() == ["v1"]
    assert [op.differentiable(i, p) for i in range(3)] == [True, False, True]
    assert op.dtype_group(p) == [0, 2]
