"""Every entry of the operators' example table (gluonlite.ops.examples.EXAMPLES) runs, for
both front ends, and prints the result it claims; the generated ``nd`` and ``sym`` functions
show it in their docstrings."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.ops import examples, registry

NAMES = sorted(examples.EXAMPLES)


def _value(name, front):
    lines, result = examples.example_lines(name, front)
    scope = {"np": np, "mx": mx, "nd": nd, "sym": sym}
    with mx.name.NameManager():  # the suite's name counters stay as they were
        exec("\n".join(lines[:-1]), scope)
        value = eval(lines[-1], scope)
    if isinstance(value, nd.NDArray):
        value = value.asnumpy()
    return " ".join(str(value).split()), " ".join(result.split())


@pytest.mark.parametrize("front", ["nd", "sym"])
@pytest.mark.parametrize("name", NAMES)
def test_example_prints_its_result(name, front):
    shown, claimed = _value(name, front)
    assert shown == claimed


def _function(front, name):
    namespace = nd if front == "nd" else sym
    for part in examples.call_name(registry.get(name).name, name).split("."):
        namespace = getattr(namespace, part)
    return namespace


def _generated():
    """(name, front) of the table's operators whose front-end function is generated from
    the registry (a few nd functions, such as nd.zeros, are written by hand and keep their
    own docstrings)."""
    pairs = []
    for name in NAMES:
        if not registry.exists(name):
            continue
        for front in ("nd", "sym"):
            f = _function(front, name)
            if f.__module__ in ("gluonlite.ndarray.register", "gluonlite.symbol.register"):
                pairs.append((name, front))
    return pairs


@pytest.mark.parametrize("name, front", _generated())
def test_generated_function_shows_the_example(name, front):
    assert examples.example(name, front) in _function(front, name).__doc__


def test_most_table_entries_reach_a_generated_docstring():
    assert len(_generated()) >= 2 * len(NAMES) - 10
