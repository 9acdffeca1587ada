"""MXNet's deprecated Python operators, `mx.operator.PythonOp`, `NumpyOp` and `NDArrayOp`,
kept so that old graph code runs unchanged; new code writes a `CustomOp` instead.

An instance describes one operator: its `forward(in_data, out_data)` and `backward(out_grad,
in_data, out_data, in_grad)` write into the output lists, `infer_shape`, `list_arguments`
and `list_outputs` describe it, and `get_symbol(*inputs, name=...)` (or calling the instance)
makes its graph node. MXNet hands the callbacks numpy views of its buffers (`NumpyOp`) or
NDArrays (`NDArrayOp`); here each instance is registered as a `Custom` operator of its own
(op_type ``_python_op_<n>``), whose forward and backward give `NumpyOp` numpy arrays and
copy what it wrote back into the node's outputs, and give `NDArrayOp` the NDArrays
themselves. The node runs wherever a Custom node runs: bound graphs, `SymbolBlock`s,
autograd.

Example::

    class Twice(mx.operator.NumpyOp):
        def forward(self, in_data, out_data):
            out_data[0][:] = 2 * in_data[0]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * out_grad[0]

    y = Twice().get_symbol(mx.sym.Variable("x"), name="twice")
    y.eval(x=mx.nd.array([1, 2]))[0]      # [2. 4.]
"""
import itertools
import warnings

import numpy as np

from . import symbol
from .operator import CustomOp, CustomOpProp, register

__all__ = ["PythonOp", "NumpyOp", "NDArrayOp"]

_COUNTER = itertools.count()


class PythonOp:
    """Base class of MXNet's deprecated Python operators (`NumpyOp`, `NDArrayOp`).

    The default operator is the identity forward, and a backward that writes 1 into the
    input's gradient (MXNet's defaults).

    Args:
        need_top_grad: what `need_top_grad()` returns: whether `backward` reads the output's
            gradient (False for a loss layer; default True).

    Example::

        op = mx.operator.NumpyOp()                      # the identity
        op.get_symbol(mx.sym.Variable("x")).list_arguments()    # ['x']
    """
    # instances whose symbols exist, as MXNet keeps them alive for its C callbacks
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        kind = next(c.__name__ for c in type(self).__mro__ if c in (NumpyOp, NDArrayOp, PythonOp))
        warnings.warn(f"{kind} is deprecated; write a CustomOp (with a CustomOpProp registered "
                      "by mx.operator.register) instead", stacklevel=2)

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The graph node of this operator on input symbols `args` (keywords: ``name``).

        Raises:
            NotImplementedError: on the base class; `NumpyOp` and `NDArrayOp` make it.

        Example::

            mx.operator.NumpyOp().get_symbol(mx.sym.Variable("x"), name="same")
            # <Symbol same>
        """
        raise NotImplementedError(f"{type(self).__name__}.get_symbol: subclass NumpyOp or "
                                  "NDArrayOp, whose get_symbol makes the node")

    def forward(self, in_data, out_data):
        """Write the outputs (default: the identity).

        Args:
            in_data: the inputs, in `list_arguments` order (numpy arrays for a `NumpyOp`,
                NDArrays for an `NDArrayOp`).
            out_data: the outputs to fill, ``out_data[i][:] = ...``.

        Example::

            class Double(mx.operator.NumpyOp):
                def forward(self, in_data, out_data):
                    out_data[0][:] = 2 * in_data[0]
        """
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Write the inputs' gradients (default: 1 into the first).

        Args:
            out_grad: the outputs' gradients.
            in_data: the forward's inputs.
            out_data: the forward's outputs.
            in_grad: the inputs' gradients to fill, ``in_grad[i][:] = ...``.

        Example::

            class Double(mx.operator.NumpyOp):
                def backward(self, out_grad, in_data, out_data, in_grad):
                    in_grad[0][:] = 2 * out_grad[0]
        """
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """The input and output shapes from the input shapes (default: one output shaped as
        the first input).

        Args:
            in_shape: the inputs' shapes (lists), in `list_arguments` order.

        Returns:
            (list, list): the input shapes and the output shapes.

        Example::

            mx.operator.NumpyOp().infer_shape([[2, 3]])    # ([[2, 3]], [[2, 3]])
        """
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        """The output names (default ``['output']``; the node's are ``name_output``).

        Example::

            mx.operator.NumpyOp().list_outputs()    # ['output']
        """
        return ["output"]

    def list_arguments(self):
        """The input names (default ``['data']``).

        Example::

            mx.operator.NumpyOp().list_arguments()    # ['data']
        """
        return ["data"]

    def need_top_grad(self):
        """Whether `backward` reads the output's gradient (the constructor's argument).

        Example::

            mx.operator.NumpyOp(need_top_grad=False).need_top_grad()    # False
        """
        return self.need_top_grad_

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids of what the backward reads (default: the output gradients when
        `need_top_grad`, the inputs and the outputs).

        Args:
            out_grad: the ids of the outputs' gradients.
            in_data: the ids of the inputs.
            out_data: the ids of the outputs.

        Returns:
            list of int.

        Example::

            mx.operator.NDArrayOp().declare_backward_dependency([0], [1], [2])   # [0, 1, 2]
        """
        return (list(out_grad) if self.need_top_grad() else []) + list(in_data) + \
            list(out_data)


class _GraphOp(PythonOp):
    """What NumpyOp and NDArrayOp share: the node, a Custom operator of the instance's own."""

    def get_symbol(self, *args, **kwargs):
        """The Custom node running this operator on input symbols `args`.

        Args:
            *args: the input symbols, in `list_arguments` order.
            **kwargs: ``name`` and the other keywords of `mx.sym.Custom`.

        Returns:
            Symbol.

        Example::

            y = mx.operator.NumpyOp().get_symbol(mx.sym.Variable("x"), name="same")
            y.eval(x=mx.nd.array([1, 2]))[0]      # [1. 2.]
        """
        op_type = f"_python_op_{next(_COUNTER)}"
        _register(op_type, self)
        PythonOp._ref_holder.append(self)
        return symbol.Custom(*args, op_type=op_type, **kwargs)

    # NumpyOp: numpy copies in, numpy buffers out (copied into the node's arrays after the
    # call); NDArrayOp: the node's NDArrays themselves
    _numpy = None


class NumpyOp(_GraphOp):
    """A deprecated Python operator whose `forward` and `backward` fill numpy arrays.

    Args:
        need_top_grad: see `PythonOp`.

    Example::

        class Square(mx.operator.NumpyOp):
            def forward(self, in_data, out_data):
                out_data[0][:] = in_data[0] ** 2
            def backward(self, out_grad, in_data, out_data, in_grad):
                in_grad[0][:] = 2 * in_data[0] * out_grad[0]
        Square().get_symbol(mx.sym.Variable("x")).eval(x=mx.nd.array([3]))[0]   # [9.]
    """

    _numpy = True


class NDArrayOp(_GraphOp):
    """A deprecated Python operator whose `forward` and `backward` fill NDArrays; it may
    narrow what its backward reads with `declare_backward_dependency`.

    Args:
        need_top_grad: see `PythonOp`.

    Example::

        class Neg(mx.operator.NDArrayOp):
            def forward(self, in_data, out_data):
                out_data[0][:] = -in_data[0]
        Neg().get_symbol(mx.sym.Variable("x")).eval(x=mx.nd.array([3]))[0]   # [-3.]
    """

    _numpy = False


class _Runner(CustomOp):
    """The CustomOp of one PythonOp: numpy copies and buffers for a NumpyOp (the buffers
    copied into the node's arrays after the call), the NDArrays themselves for an
    NDArrayOp."""

    def __init__(self, op):
        super().__init__()
        self.op = op

    def _read(self, arrays):
        return [a.asnumpy() for a in arrays] if self.op._numpy else list(arrays)

    def _writable(self, arrays):
        if self.op._numpy:
            return [np.zeros(a.shape, dtype=a.dtype) for a in arrays]
        return list(arrays)

    def _write_back(self, dests, req, written):
        if self.op._numpy:
            for d, r, w in zip(dests, req, written):
                self.assign(d, r, w)

    def forward(self, is_train, req, in_data, out_data, aux):
        outs = self._writable(out_data)
        self.op.forward(in_data=self._read(in_data), out_data=outs)
        self._write_back(out_data, req, outs)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = self._writable(in_grad)
        self.op.backward(out_grad=self._read(out_grad), in_data=self._read(in_data),
                         out_data=self._read(out_data), in_grad=grads)
        self._write_back(in_grad, req, grads)


def _register(op_type, op):
    """Register `op` (a PythonOp) as the Custom operator `op_type`."""

    class Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=op.need_top_grad())

        def list_arguments(self):
            return op.list_arguments()

        def list_outputs(self):
            return op.list_outputs()

        def infer_shape(self, in_shape):
            ishape, oshape = op.infer_shape(in_shape)
            return ishape, oshape, []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return op.declare_backward_dependency(out_grad, in_data, out_data)

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _Runner(op)

    Prop.__name__ = f"{type(op).__name__}Prop"
    register(op_type)(Prop)
