"""`mx.profiler.dumps(format='json')` in MXNet 1.9.1's layout (Time, Memory, Unit; each
domain sorted as asked) and custom operators timed as MXNet's profiler times them: their
Python code as ``{op_type}::pure_python`` and the operators it calls as
``{op_type}::{operator}`` (``_backward_{op_type}`` for the backward) in the 'Custom
Operator' domain."""
import json
from collections import OrderedDict

import pytest

import gluonlite as mx
from gluonlite import nd, profiler


@pytest.fixture(autouse=True)
def fresh_profiler(tmp_path):
    profiler.set_state("stop")
    profiler.dumps(reset=True)
    profiler.set_config(filename=str(tmp_path / "profile.json"), profile_all=False,
                        profile_imperative=True, profile_symbolic=True, aggregate_stats=True)
    yield
    profiler.set_state("stop")
    profiler.dumps(reset=True)


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], nd.sigmoid(in_data[0]))
        nd.zeros((10, 10))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))


@mx.operator.register("ProfiledSigmoid")
class _SigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shapes):
        return (in_shapes[0],), (in_shapes[0],), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Sigmoid()


def test_json_has_mxnets_sections_and_units():
    profiler.set_state("run")
    nd.sqrt(nd.ones((3,)))
    got = json.loads(profiler.dumps(format="json"))
    assert set(got) == {"Time", "Memory", "Unit"}
    assert got["Unit"] == {"Time": "ms", "Memory": "kB"}
    assert got["Memory"] == {}  # gluonlite profiles no memory
    assert set(got["Time"]["operator"]["sqrt"]) == {"Count", "Total", "Min", "Max", "Avg"}


@pytest.mark.parametrize("ascending", [False, True])
@pytest.mark.parametrize("sort_by, column", [("total", "Total"), ("avg", "Avg"),
                                             ("min", "Min"), ("max", "Max"),
                                             ("count", "Count")])
def test_json_rows_follow_sort_by(sort_by, column, ascending):
    profiler.set_state("run")
    x = nd.ones((50, 50))
    for count, op in enumerate((nd.sqrt, nd.exp, nd.relu, nd.tanh), 1):
        for _ in range(count):
            op(x)
    got = json.loads(profiler.dumps(format="json", sort_by=sort_by, ascending=ascending),
                     object_pairs_hook=OrderedDict)
    column_values = [row[column] for row in got["Time"]["operator"].values()]
    assert len(column_values) >= 4
    assert column_values == sorted(column_values, reverse=not ascending)


def test_custom_operator_code_and_the_operators_it_calls_are_timed():
    profiler.set_state("run")
    x = nd.array([0, 1, 2, 3])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.Custom(x, op_type="ProfiledSigmoid")
    y.backward()
    custom = json.loads(profiler.dumps(format="json"))["Time"]["Custom Operator"]
    # the names MXNet 1.9.1 records for this operator (less its engine's own copies)
    assert set(custom) == {"ProfiledSigmoid::pure_python", "ProfiledSigmoid::sigmoid",
                           "ProfiledSigmoid::_zeros", "_backward_ProfiledSigmoid::pure_python",
                           "_backward_ProfiledSigmoid::_rminus_scalar",
                           "_backward_ProfiledSigmoid::broadcast_mul"}
    assert custom["_backward_ProfiledSigmoid::broadcast_mul"]["Count"] == 2


def test_custom_operator_in_a_bound_symbol_is_timed():
    profiler.set_state("run")
    a = mx.sym.var("a")
    exe = mx.sym.Custom(data=a, op_type="ProfiledSigmoid").bind(mx.cpu(), {"a": nd.ones((2,))})
    exe.forward()
    custom = json.loads(profiler.dumps(format="json"))["Time"]["Custom Operator"]
    assert {"ProfiledSigmoid::pure_python", "ProfiledSigmoid::sigmoid"} <= set(custom)


def test_nothing_is_recorded_when_stopped():
    x = nd.array([0, 1])
    nd.Custom(x, op_type="ProfiledSigmoid")
    nd.zeros((2,))
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}
