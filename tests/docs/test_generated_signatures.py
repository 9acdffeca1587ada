"""The generated nd and sym operator functions show the arguments they take: their signature
is the operator's inputs, attributes and the front end's own arguments, binds positional
arguments as the call does, and their docstring describes every one of them."""
import inspect
import os
import sys

import pytest

import gluonlite as mx
from gluonlite.ops import registry
from gluonlite.ops.call import bind_call

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import docstring_coverage  # noqa: E402

FRONTS = {"nd": (mx.nd, ("out", "name", "ctx")), "sym": (mx.sym, ("name", "attr", "ctx", "out"))}


def _public_functions(front):
    module = FRONTS[front][0]
    for name in sorted(dir(module)):
        f = getattr(module, name)
        if not name.startswith("_") and getattr(f, "__signature__", None) is not None \
                and inspect.isfunction(f) and f.__module__.endswith("register"):
            yield name, f


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_signature_lists_inputs_then_attributes_then_the_front_ends_own(front):
    tail = FRONTS[front][1]
    checked = 0
    for name, f in _public_functions(front):
        op = registry.get(name)
        params = list(inspect.signature(f).parameters)
        attrs = [a for a in op.attrs if not a.startswith("__")]
        inputs = ["data"] if op.variadic else list(op.signature)
        assert params[:len(inputs)] == inputs, name
        assert set(params) >= set(attrs), (name, set(attrs) - set(params))
        own = [p for p in params if p not in inputs and p not in attrs]
        assert own == [t for t in tail if t not in attrs], name
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_every_argument_of_a_generated_function_is_described(front):
    bare = {name: docstring_coverage.undescribed_parameters(f)
            for name, f in _public_functions(front)}
    assert not {k: v for k, v in bare.items() if v}


@pytest.mark.parametrize("name, args, kwargs", [
    ("clip", (1, 0, 1), {}),
    ("FullyConnected", (1, 2, 3, 4), {}),
    ("Convolution", (1, 2), {"kernel": (3, 3), "num_filter": 8}),
    ("topk", (1,), {"k": 2}),
])
def test_signature_binds_positional_arguments_as_the_call_does(name, args, kwargs):
    op = registry.get(name)
    x = mx.nd.ones((2, 3))
    values = tuple(x if isinstance(a, int) and i < len(op.signature) else a
                   for i, a in enumerate(args))
    inputs, attrs = bind_call(op, values, kwargs, lambda a: isinstance(a, mx.nd.NDArray))
    bound = inspect.signature(getattr(mx.nd, name)).bind(*values, **kwargs).arguments
    assert {k for k, v in bound.items() if isinstance(v, mx.nd.NDArray)} == set(inputs)
    assert {k: v for k, v in bound.items() if not isinstance(v, mx.nd.NDArray)} == attrs


def test_a_required_attribute_shows_as_required_and_a_default_as_itself():
    sig = inspect.signature(mx.nd.Convolution)
    assert repr(sig.parameters["kernel"].default) == "<required>"
    assert sig.parameters["num_group"].default == 1
    doc = " ".join(mx.nd.Convolution.__doc__.split())
    assert "spatial axis. A tuple of ints; required." in doc
    assert "its own kernel. An int; default 1." in doc


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_a_generated_docstring_shows_one_example_and_it_runs_as_a_block(front):
    # an operator's example lives in gluonlite/ops/examples.py, not as a line in its kernel
    inline = [name for name, f in _public_functions(front) if "Example: ``" in f.__doc__]
    assert not inline
