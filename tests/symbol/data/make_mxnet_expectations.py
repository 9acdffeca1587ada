"""Regenerate the MXNet 1.9.1 expectations used by tests/symbol (run with MXNet's python:
``/work/mxvenv/bin/python tests/symbol/data/make_mxnet_expectations.py``).

`build(mx)` is shared with the tests, which build the same graph with gluonlite."""
import json
import os
import sys


def build(mx):
    """A small graph touching names, attributes, aux states, multi-output nodes and scalars."""
    sym = mx.sym
    x = sym.var('x')
    q = sym.var('q', shape=(2, 3), lr_mult=2.0)
    fc = sym.FullyConnected(x, num_hidden=4, name='fc')
    bn = sym.BatchNorm(fc, name='bn', fix_gamma=False, eps=1e-5)
    r = sym.Activation(bn, act_type='relu', name='act')
    y = (r + 1) * 2 - r / 3.5
    z = sym.transpose(sym.Reshape(x, shape=(3, -1)), axes=[1, 0])
    c = sym.clip(z, 0, 1) + q
    w = sym.Concat(*[sym.var('v%d' % i) for i in range(11)], dim=0)
    s = sym.split(w, num_outputs=2, axis=1)
    return sym.Group([y, -fc, c < 0.5, s[1], sym.maximum(x, 2),
                      sym.sum(x, axis=(0, 1), keepdims=True), sym.Dropout(x, p=0.3),
                      sym.softmax(x, axis=-1), 2 ** x, 1 - x, abs(x) >= 0.5])


def main():
    import mxnet as mx
    g = build(mx)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "mxnet_small_graph.json"), "w") as f:
        f.write(g.tojson())
    shapes = dict(x=(2, 3), q=(2, 3), **{'v%d' % i: (2, 4) for i in range(11)})
    arg, out, aux = g.infer_shape(**shapes)
    exp = {"list_inputs": g.list_inputs(), "list_arguments": g.list_arguments(),
           "list_outputs": g.list_outputs(),
           "list_auxiliary_states": g.list_auxiliary_states(),
           "internals": g.get_internals().list_outputs(),
           "infer_shape_args": shapes, "arg_shapes": arg, "out_shapes": out, "aux_shapes": aux}
    with open(os.path.join(here, "mxnet_small_graph_expect.json"), "w") as f:
        json.dump(exp, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
