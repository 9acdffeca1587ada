"""`mx.operator`: operators written in Python (`CustomOp`, described by a `CustomOpProp`
registered with `register`), run by ``nd.Custom`` / ``sym.Custom`` imperatively, under
autograd, and in graphs and hybridized blocks; and what the registry knows about operators
(`get_all_registered_operators`, `get_operator_arguments`).

Example::

    class Sigmoid(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], 1 / (1 + mx.nd.exp(-in_data[0])))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            y = out_data[0]
            self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))

    @mx.operator.register("sigmoid")
    class SigmoidProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Sigmoid()

    x = mx.nd.array([0.0, 1.0])
    y = mx.nd.Custom(x, op_type="sigmoid")   # [0.5 0.7310586]


MXNet's deprecated `PythonOp`, `NumpyOp` and `NDArrayOp` are here too (each instance a Custom
operator of its own, at the end of this module); of MXNet's C-API helpers, the ones
`gluonlite.base` has (see ``api_exclusions.txt`` for the rest).
"""
import collections
import ctypes  # noqa: F401  (MXNet's module has it: its tests take it by a star import)
import itertools
import warnings

import numpy as np

from .base import NDArrayHandle, c_str, check_call, py_str  # noqa: F401  (MXNet's names)
from .ndarray import NDArray  # noqa: F401  (MXNet's mx.operator has it)
from . import symbol as _symbol
from .ops import custom as _custom
from .ops import registry as _registry
from .util import is_np_array as _is_np_array

# Deliberately no __all__, as MXNet's module has none: its tests take ctypes, NDArray and
# NDArrayHandle from ``from mxnet.operator import *`` (a monitor callback's
# ctypes.cast(arr, NDArrayHandle), then NDArray(handle)).


class CustomOp:
    """Base class of an operator written in Python: override `forward` and `backward`.

    Example::

        class Double(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] * 2)
        @mx.operator.register("double_fwd")
        class DoubleProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return Double()
        nd.Custom(nd.array([1, 2]), op_type="double_fwd")   # [2. 4.]
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute the outputs: write each into `out_data[i]` with ``self.assign(out_data[i],
        req[i], value)``.

        Args:
            is_train: whether this is a training pass.
            req: per output, how to write it ('write', 'inplace', 'add' or 'null').
            in_data (list of NDArray): the inputs, in `CustomOpProp.list_arguments` order.
            out_data (list of NDArray): the outputs to fill, allocated with the inferred
                shapes and dtypes.
            aux (list of NDArray): the auxiliary states (`list_auxiliary_states`).

        Raises:
            NotImplementedError: on the base class: a CustomOp must define it.

        Example::

            class Square(mx.operator.CustomOp):
                def forward(self, is_train, req, in_data, out_data, aux):
                    self.assign(out_data[0], req[0], in_data[0] ** 2)
            out = nd.zeros(2)
            Square().forward(False, ['write'], [nd.array([2, 3])], [out], [])   # out: [4. 9.]
        """
        raise NotImplementedError(f"{type(self).__name__}.forward: a CustomOp must define "
                                  "forward(is_train, req, in_data, out_data, aux)")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute the inputs' gradients: write each into `in_grad[i]` with
        ``self.assign(in_grad[i], req[i], value)`` ('null' entries are not wanted).

        Args:
            req: per input, how to write its gradient.
            out_grad (list of NDArray): the gradients of the outputs.
            in_data (list of NDArray): the forward's inputs.
            out_data (list of NDArray): the forward's outputs.
            in_grad (list of NDArray): the inputs' gradient buffers to fill.
            aux (list of NDArray): the auxiliary states.

        Raises:
            NotImplementedError: on the base class: the operator cannot be differentiated.

        Example::

            class Double(mx.operator.CustomOp):
                def forward(self, is_train, req, in_data, out_data, aux):
                    self.assign(out_data[0], req[0], in_data[0] * 2)
                def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
                    self.assign(in_grad[0], req[0], out_grad[0] * 2)
            @mx.operator.register("double_bwd")
            class DoubleProp(mx.operator.CustomOpProp):
                def create_operator(self, ctx, in_shapes, in_dtypes):
                    return Double()
            x = nd.array([1, 2]); x.attach_grad()
            with autograd.record():
                y = nd.Custom(x, op_type="double_bwd")
            y.backward(); x.grad   # [2. 2.]
        """
        raise NotImplementedError(f"{type(self).__name__}.backward: a CustomOp must define "
                                  "backward(req, out_grad, in_data, out_data, in_grad, aux) "
                                  "to be differentiated")

    def assign(self, dst, req, src):
        """Write `src` into `dst` as `req` says: 'write'/'inplace' copy, 'add' accumulates,
        'null' does nothing.

        Raises:
            ValueError: an unknown req.

        Example::

            out = nd.ones(2)
            mx.operator.CustomOp().assign(out, 'add', nd.array([1, 2]))   # out: [2. 3.]
        """
        if req == "null":
            return
        key = () if getattr(dst, "_np_array", False) else slice(None)  # MXNet: dst[()] for np
        if req in ("write", "inplace"):
            dst[key] = src
        elif req == "add":
            dst[key] = dst + src
        else:
            raise ValueError(f"CustomOp.assign: req must be 'write', 'inplace', 'add' or "
                             f"'null', got {req!r}")


class CustomOpProp:
    """Base class describing a `CustomOp`: its inputs, outputs, shapes and dtypes, and how to
    create it. Keyword arguments given to ``Custom`` (other than inputs and op_type) reach
    the subclass's ``__init__`` as strings.

    Args:
        need_top_grad: whether the backward reads the outputs' gradients (kept for MXNet's
            signature; gradients are always handed over here).

    Example::

        class AddOne(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] + 1)
        @mx.operator.register("add_one")
        class AddOneProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return AddOne()
        nd.Custom(nd.array([1, 2]), op_type="add_one")   # [2. 3.]
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(input shapes, output shapes, auxiliary shapes) from the input shapes (lists, in
        `list_arguments` order); the default gives every output the first input's shape.

        Args:
            in_shape (list of list of int): the inputs' shapes.

        Returns:
            ``(in_shapes, out_shapes, aux_shapes)``.

        Example::

            mx.operator.CustomOpProp().infer_shape([[2, 3]])   # ([[2, 3]], ([2, 3],), ())
        """
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(input dtypes, output dtypes, auxiliary dtypes); the default: the first input's.

        Args:
            in_type (list): the inputs' dtypes (numpy types).

        Returns:
            ``(in_types, out_types, aux_types)``.

        Example::

            mx.operator.CustomOpProp().infer_type([np.float32])
            # ([np.float32], [np.float32], [])
        """
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        """Storage types: dense everywhere (a custom operator computes on dense arrays).

        Args:
            in_stype (list of str): the inputs' storage types.

        Returns:
            ``(in_stypes, out_stypes, aux_stypes)``.

        Raises:
            NotImplementedError: a sparse input storage type.

        Example::

            mx.operator.CustomOpProp().infer_storage_type(['default'])
            # (['default'], ['default'], [])
        """
        for s in in_stype:
            if s != "default":
                raise NotImplementedError(f"CustomOpProp.infer_storage_type: input storage "
                                          f"{s!r}: custom operators compute on dense arrays; "
                                          "pass x.tostype('default')")
        return in_stype, ["default"] * len(self.list_outputs()), \
            ["default"] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        """Storage types of the backward: dense everywhere.

        Args:
            ograd_stype (list of str): the output gradients' storage types.
            in_stype (list of str): the inputs' storage types.
            out_stype (list of str): the outputs' storage types.
            igrad_stype (list of str): the input gradients' storage types (set to dense).
            aux_stype (list of str): the auxiliary states' storage types.

        Returns:
            The five lists, in the same order, the input gradients' made dense.

        Example::

            d = ['default']
            mx.operator.CustomOpProp().infer_storage_type_backward(d, d, d, d, [])
            # (['default'], ['default'], ['default'], ['default'], [])
        """
        return (ograd_stype, in_stype, out_stype, ["default"] * len(igrad_stype), aux_stype)

    def list_outputs(self):
        """Names of the outputs (default ``['output']``).

        Example::

            mx.operator.CustomOpProp().list_outputs()   # ['output']
        """
        return ["output"]

    def list_arguments(self):
        """Names of the inputs (default ``['data']``).

        Example::

            mx.operator.CustomOpProp().list_arguments()   # ['data']
        """
        return ["data"]

    def list_auxiliary_states(self):
        """Names of the auxiliary states (default none).

        Example::

            mx.operator.CustomOpProp().list_auxiliary_states()   # []
        """
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """What the backward reads (MXNet frees the rest early; everything is kept here).

        Args:
            out_grad (list of int): the ids of the output gradients.
            in_data (list of int): the ids of the inputs.
            out_data (list of int): the ids of the outputs.

        Returns:
            list of int: the ids the backward depends on (the output gradients only with
            `need_top_grad`).

        Example::

            prop = mx.operator.CustomOpProp(need_top_grad=False)
            prop.declare_backward_dependency([0], [1], [2])   # [1, 2]: no output gradient
        """
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The `CustomOp` instance for these input shapes and dtypes (override this).

        Args:
            ctx (Context): the context the operator runs on.
            in_shapes (list of list of int): the inputs' shapes.
            in_dtypes (list): the inputs' dtypes.

        Returns:
            CustomOp: the operator.

        Raises:
            NotImplementedError: on the base class: a CustomOpProp must override it.

        Example::

            class Identity(mx.operator.CustomOp):
                def forward(self, is_train, req, in_data, out_data, aux):
                    self.assign(out_data[0], req[0], in_data[0])
            class IdentityProp(mx.operator.CustomOpProp):
                def create_operator(self, ctx, in_shapes, in_dtypes):
                    return Identity()
            IdentityProp().create_operator(mx.cpu(), [[2]], [np.float32])   # an Identity
        """
        raise NotImplementedError(f"{type(self).__name__}.create_operator: a CustomOpProp "
                                  "must return its CustomOp from create_operator(ctx, "
                                  "in_shapes, in_dtypes)")


def register(reg_name):
    """Class decorator registering a `CustomOpProp` subclass as op_type `reg_name`.

    Raises:
        TypeError: the class is not a CustomOpProp subclass.

    Example::

        class Neg(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], -in_data[0])
        @mx.operator.register("neg_example")
        class NegProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return Neg()
        nd.Custom(nd.array([1, -2]), op_type="neg_example")   # [-1. 2.]
    """
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError(f"operator.register({reg_name!r}): expected a CustomOpProp "
                            f"subclass, got {prop_cls!r}")
        _custom.PROPS[reg_name] = prop_cls
        if is_np_array():  # registered under NumPy array semantics: its arrays are mx.np's
            _custom.NP_ARRAYS.add(reg_name)
        else:
            _custom.NP_ARRAYS.discard(reg_name)
        # a re-registered name must not keep properties of the old class
        for key in [k for k in _custom._PROP_CACHE if k[0] == reg_name]:
            del _custom._PROP_CACHE[key]
        return prop_cls
    return do_register


def get_all_registered_operators():
    """Names of every registered operator (aliases included).

    Example::

        'FullyConnected' in mx.operator.get_all_registered_operators()   # True
    """
    return _registry.names()


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])
OperatorArguments.__doc__ = """What `get_operator_arguments` returns: `narg` (how many
arguments), `names` (inputs then attributes) and `types` (one description per name).

Example::

    args = mx.operator.get_operator_arguments('relu')
    args.names, args.types   # (['data'], ['NDArray-or-Symbol'])
"""


def get_operator_arguments(op_name):
    """The arguments of operator `op_name`: its inputs then its attributes, with their types.

    Returns:
        OperatorArguments(narg, names, types).

    Raises:
        ValueError: an unknown operator.

    Example::

        mx.operator.get_operator_arguments('Dropout').names
        # ['data', 'p', 'mode', 'axes', 'cudnn_off']
    """
    op = _registry.get(op_name)
    names, types = [], []
    for n in op.signature:
        names.append(n)
        types.append("NDArray-or-Symbol")
    for n, a in op.attrs.items():
        names.append(n)
        types.append(_type_string(a))
    return OperatorArguments(len(names), names, types)


# attribute kinds as MXNet's type strings name them
_MXNET_KINDS = {"bool": "boolean", "str": "string", "shape": "Shape(tuple)", "axis": "int",
                "floats": "tuple of <float>", "list": "Shape(tuple)", "": "any"}


def _type_string(attr):
    """An attribute's type as MXNet writes it: ``"int, required"``, ``"boolean, optional,
    default=0"``, ``"{'relu', 'tanh'}, required"``."""
    if attr.kind == "enum" and attr.choices:
        kind = "{" + ", ".join(repr(c) for c in sorted(attr.choices)) + "}"
    else:
        kind = _MXNET_KINDS.get(attr.kind, attr.kind)
    if attr.required:
        return f"{kind}, required"
    d = attr.default
    shown = (int(d) if isinstance(d, bool) else repr(d) if isinstance(d, str)
             else list(d) if isinstance(d, tuple) else d)
    return f"{kind}, optional, default={shown}"


def is_np_array():
    """Whether NumPy array semantics is on (`mx.util.is_np_array`, which MXNet's module
    re-exports).

    Example::

        mx.operator.is_np_array()   # False, unless mx.npx.set_np() was called
    """
    return _is_np_array()


# ---- MXNet's deprecated Python operators -----------------------------------------------------
# PythonOp, NumpyOp and NDArrayOp, kept so that old graph code runs unchanged; new code writes a
# CustomOp. An instance describes one operator: its forward(in_data, out_data) and
# backward(out_grad, in_data, out_data, in_grad) write into the output lists, infer_shape,
# list_arguments and list_outputs describe it, and get_symbol(*inputs, name=...) (or calling
# the instance) makes its graph node. MXNet hands the callbacks numpy views of its buffers
# (NumpyOp) or NDArrays (NDArrayOp); here each instance is registered as a Custom operator of
# its own (op_type _python_op_<n>), whose forward and backward give NumpyOp numpy arrays and
# copy what it wrote back into the node's outputs, and give NDArrayOp the NDArrays themselves.
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
        return _symbol.Custom(*args, op_type=op_type, **kwargs)

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
