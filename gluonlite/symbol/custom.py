"""`sym.Custom`: a graph node running an operator registered with
`gluonlite.operator.register` (see `gluonlite.ops.custom`)."""
from ..ops import custom as _custom
from .symbol import Symbol, create_node

__all__ = ["Custom"]


def Custom(*data, op_type=None, name=None, attr=None, **kwargs):
    """A ``Custom`` node applying the operator registered as `op_type`.

    Args:
        *data: input Symbols in the property's `list_arguments()` order (or by name as
            keywords); missing ones become variables named ``{name}_{input}``.
        op_type: the name given to `mx.operator.register`.
        name: the node's name (default ``custom`` + a counter).
        attr: extra attributes of the node, a dict of str (as `sym.var`'s; default None).
        **kwargs: the other keywords, handed (as strings) to the property's constructor.

    Returns:
        Symbol: the node (with one output per name of the property's `list_outputs()`).

    Raises:
        TypeError: no op_type, or an unknown input name.

    Example::

        class Double(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] * 2)
        @mx.operator.register("double_sym_custom")
        class DoubleProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return Double()
        y = sym.Custom(sym.var("x"), op_type="double_sym_custom", name="dbl")
        y.eval(x=nd.array([1, 2]))[0].asnumpy()   # [2. 4.]
    """
    if op_type is None:
        raise TypeError("Custom: missing required argument 'op_type' (the name a "
                        "CustomOpProp was registered under)")
    named = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    attrs = {k: v for k, v in kwargs.items() if k not in named}
    attrs["op_type"] = op_type
    names = _custom.CUSTOM.input_names(_custom.CUSTOM.parse(attrs)[0])
    if len(data) > len(names):
        raise TypeError(f"Custom({op_type}): takes {len(names)} input(s) "
                        f"({', '.join(names)}), got {len(data)}")
    inputs = dict(zip(names, data))
    inputs.update(named)
    return create_node(_custom.CUSTOM, inputs, attrs, name=name, hint="custom", attr=attr)
