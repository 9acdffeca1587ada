"""Registry-walk entry of ``Custom`` (`gluonlite.ops.custom`): an operator written with
`gluonlite.operator` (registered here as ``walk_scaled_square``, its `scale` keyword arriving
as a string), walked like any other."""
import gluonlite as mx

from .common import C


class _ScaledSquare(mx.operator.CustomOp):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], self.scale * in_data[0] * in_data[0])
        self.assign(out_data[1], req[1], in_data[0] + in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * self.scale * in_data[0] * out_grad[0]
                    + out_grad[1])
        self.assign(in_grad[1], req[1], out_grad[1])


@mx.operator.register("walk_scaled_square")
class _ScaledSquareProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__(need_top_grad=True)
        self.scale = float(scale)

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["square", "total"]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _ScaledSquare(self.scale)


SPECS = {
    "Custom": C([(2, 3), (2, 3)], {"op_type": "walk_scaled_square", "scale": 1.5},
                ref=lambda a, b: [1.5 * a * a, a + b]),
}
