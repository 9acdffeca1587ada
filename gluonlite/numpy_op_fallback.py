"""`mx.numpy_op_fallback`: the NumPy functions MXNet 1.9.1 runs through NumPy itself, as
Custom operators registered under NumPy array semantics (``Custom`` nodes with op_type
``resize_fallback``, ``unravel_index_fallback``, ``mvn_fallback``, ``empty_like_fallback``),
so that they work in hybridized blocks and graphs as well as imperatively. `register` also
puts each one in `mx.nd.np._internal` and `mx.sym.np._internal` under its op_type
(``_npi.resize_fallback(a, new_shape=...)``), as MXNet does.

None of them has a gradient (their backward raises, as MXNet's do).

Example::

    x = mx.np.arange(3)
    mx.nd.np._internal.resize_fallback(x, new_shape=(2, 2))   # array([[0., 1.], [2., 0.]])
"""
import ast
import functools

import numpy as np

from . import operator
# mx.np's functions and its dispatcher, reached through the face the dialect installs in the
# ndarray layer when it loads (gluonlite.numpy imports this module: it sits above it)
from .ndarray import numpy as _np_face
from .util import np_array, use_np

__all__ = ["register"]

# (op_name, symbolic) of each registered fallback: `mx.nd.np._internal` (False) and
# `mx.sym.np._internal` (True) give ``functools.partial(Custom, op_type=op_name)`` for them
FALLBACKS = set()


def internal_function(name, symbolic):
    """The ``_npi.<name>`` function of a registered fallback (None for other names).

    Args:
        name (str): the op_type of the fallback (``'resize_fallback'``).
        symbolic (bool): True asks for the `mx.sym.np._internal` function, False for the
            `mx.nd.np._internal` one.

    Returns:
        A callable ``f(*data, **attrs)`` running `custom` with that op_type, or None when `name` is
        not registered that way.

    Example::

        from gluonlite.numpy_op_fallback import internal_function
        f = internal_function('resize_fallback', False)
        f(mx.np.arange(3), new_shape=(2, 2))  # array([[0., 1.], [2., 0.]])
    """
    if (name, symbolic) not in FALLBACKS:
        return None
    return functools.partial(custom, op_type=name)


def custom(*data, op_type=None, name=None, out=None, **kwargs):
    """The ``Custom`` operator `op_type` on `mx.np` arrays or numpy symbols (MXNet's
    ``_npi.Custom``); other keywords go to the property's constructor as strings.

    Args:
        *data: the input `mx.np.ndarray` arrays (or numpy symbols), in the property's
            `list_arguments` order.
        op_type (str): the registered op_type (required).
        name: default None: the node's name when building a symbol (an automatic name for None).
        out: default None: a new array; else the `mx.np.ndarray` that receives the result (and is
            returned).
        **kwargs: the property's constructor arguments; non-strings are passed as their str().

    Returns:
        An `mx.np.ndarray` (a numpy symbol on symbols), or a list for several outputs.

    Raises:
        TypeError: no `op_type`, or inputs that are not `mx.np` arrays or numpy symbols.

    Example::

        from gluonlite.numpy_op_fallback import custom
        custom(mx.np.arange(3), op_type='resize_fallback', new_shape=(1, 2))  # array([[0., 1.]])
    """
    if op_type is None:
        raise TypeError("Custom: missing required argument 'op_type'")
    attrs = {k: v if isinstance(v, str) else str(v) for k, v in kwargs.items()}
    attrs["op_type"] = op_type
    return _np_face.lookup("invoke")("Custom", list(data), attrs, out=out, fname=op_type,
                                     name=name)


def register(op_name, imperative=True, symbolic=True):
    """Register a `CustomOpProp` subclass as op_type `op_name` under NumPy array semantics
    and expose it as ``_npi.<op_name>`` in `mx.nd.np._internal` (`imperative`) and
    `mx.sym.np._internal` (`symbolic`).

    Args:
        op_name (str): the op_type to register under.
        imperative (bool): default True: also add ``_npi.<op_name>`` to `mx.nd.np._internal`.
        symbolic (bool): default True: also add it to `mx.sym.np._internal`.

    Returns:
        A class decorator that registers the `CustomOpProp` subclass and returns it.

    Raises:
        ValueError: `op_name` is already there.

    Example::

        import uuid
        from gluonlite import operator
        from gluonlite.numpy_op_fallback import register, internal_function
        class IdentityProp(operator.CustomOpProp):
            pass
        name = 'doc_identity_' + uuid.uuid4().hex[:8]  # a fresh op_type
        register(name, symbolic=False)(IdentityProp)
        internal_function(name, False) is not None  # True
    """
    def _save_op(symbolic):
        if (op_name, symbolic) in FALLBACKS:
            mod = "mxnet.symbol.numpy._internal" if symbolic else "mxnet.ndarray.numpy._internal"
            raise ValueError(f"Duplicate name {op_name} found in module {mod}")
        FALLBACKS.add((op_name, symbolic))

    def _register_helper(prop_cls):
        with np_array():
            prop_cls = operator.register(op_name)(prop_cls)
        if imperative:
            _save_op(False)
        if symbolic:
            _save_op(True)
        return prop_cls
    return _register_helper


@use_np
class EmptyLike(operator.CustomOp):
    """NumPy's empty_like (zeros here: the contents are unspecified).

    Args:
        dtype: the result's dtype, or None for the prototype's (the property applies it).
        order: NumPy's memory layout argument, kept and unused.
        subok: NumPy's subclass argument, kept and unused.
        shape: NumPy's new-shape argument, kept and unused (the output has the prototype's shape).

    Example::

        from gluonlite.numpy_op_fallback import custom
        kw = dict(dtype='int32', order='C', subok=False, shape=None)
        y = custom(mx.np.ones((2, 2)), op_type='empty_like_fallback', **kw)
        y  # array([[0, 0], [0, 0]], dtype=int32)
    """

    def __init__(self, dtype, order, subok, shape):
        super().__init__()
        self._dtype, self._order, self._subok, self._shape = dtype, order, subok, shape

    def forward(self, is_train, req, in_data, out_data, aux):
        """Fill the output (shape and dtype from the property).

        Args:
            is_train: whether the call records for training (not read: no state).
            req: the write request of the output ('write', 'add' or 'null').
            in_data: the input arrays.
            out_data: the output array, written here.
            aux: the auxiliary states (none).

        Example::

            from gluonlite.numpy_op_fallback import custom
            kw = dict(dtype='int32', order='C', subok=False, shape=None)
            y = custom(mx.np.ones(3), op_type='empty_like_fallback', **kw)  # runs forward
            y  # array([0, 0, 0], dtype=int32)
        """
        out = np.zeros(out_data[0].shape, dtype=out_data[0].dtype)
        self.assign(out_data[0], req[0], _np_face.array(out, ctx=in_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Refused, as MXNet's.

        Args:
            req: the write request of each input gradient (not read).
            out_grad: the gradient of the output (not read).
            in_data: the input arrays (not read).
            out_data: the output array (not read).
            in_grad: the input gradients (not written).
            aux: the auxiliary states (none).

        Raises:
            NotImplementedError: always (MXNet has no gradient here).

        Example::

            from gluonlite.numpy_op_fallback import custom
            x = mx.np.arange(3)
            x.attach_grad()
            with autograd.record():
                y = custom(x, op_type='empty_like_fallback', dtype=None, order='C',
                           subok=False, shape=None)
            try:
                y.backward()
            except mx.MXNetError as e:
                print(e)  # ... does not support gradient computation
        """
        raise NotImplementedError("Operator empty_like does not support gradient computation")


@register("empty_like_fallback")
class EmptyLikeProp(operator.CustomOpProp):
    """empty_like's properties: the prototype's shape, its dtype or `dtype`.

    Args:
        dtype (str): the dtype name of the result, or 'None' for the prototype's.
        order (str): NumPy's memory layout argument, kept as given.
        subok (str): a Python literal ('False'), parsed and kept.
        shape (str): a Python literal ('None' or a tuple), parsed and kept; the output has the
            prototype's shape.

    Example::

        from gluonlite.numpy_op_fallback import EmptyLikeProp
        p = EmptyLikeProp(dtype='int32', order='C', subok='False', shape='None')
        p.infer_type([np.float32])  # float32 in, int32 (`dtype`) out
    """

    def __init__(self, dtype, order, subok, shape):
        super().__init__(need_top_grad=True)
        self._dtype = None if dtype == "None" else dtype
        self._order = order
        self._subok = ast.literal_eval(subok)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        """One input: the prototype.

        Example::

            from gluonlite.numpy_op_fallback import EmptyLikeProp
            p = EmptyLikeProp(dtype='None', order='C', subok='False', shape='None')
            p.list_arguments()  # ['prototype']
        """
        return ["prototype"]

    def infer_shape(self, in_shape):
        """The prototype's shape.

        Args:
            in_shape: a list of the inputs' shapes (tuples).

        Returns:
            The triple (input shapes, output shapes, auxiliary shapes): the prototype's shape in and
            out, no auxiliary states.

        Example::

            from gluonlite.numpy_op_fallback import EmptyLikeProp
            p = EmptyLikeProp(dtype='None', order='C', subok='False', shape='None')
            p.infer_shape([(2, 3)])  # (((2, 3),), ((2, 3),), ())
        """
        return (in_shape[0],), (in_shape[0],), ()

    def infer_type(self, in_type):
        """The prototype's dtype, or `dtype`.

        Args:
            in_type: a list with the prototype's dtype.

        Returns:
            The triple (input types, output types, auxiliary types).

        Example::

            from gluonlite.numpy_op_fallback import EmptyLikeProp
            p = EmptyLikeProp(dtype='None', order='C', subok='False', shape='None')
            p.infer_type([np.float32])  # the prototype's: float32 in, float32 out
        """
        out = in_type[0] if self._dtype is None else np.dtype(self._dtype).type
        return (in_type[0],), (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """An `EmptyLike`.

        Args:
            ctx: the `Context` the operator runs on (unused).
            in_shapes: the inputs' shapes (unused).
            in_dtypes: the inputs' dtypes (unused).

        Returns:
            An `EmptyLike` with this property's arguments.

        Example::

            from gluonlite.numpy_op_fallback import EmptyLikeProp
            p = EmptyLikeProp(dtype='None', order='C', subok='False', shape='None')
            type(p.create_operator(mx.cpu(), [(2,)], [np.float32])).__name__  # 'EmptyLike'
        """
        return EmptyLike(self._dtype, self._order, self._subok, self._shape)


@use_np
class Resize(operator.CustomOp):
    """NumPy's resize: the data repeated (or cut) to `new_shape`.

    Args:
        new_shape: an int or a tuple of ints, the output shape.

    Example::

        mx.np.resize(mx.np.arange(3), (2, 2))  # array([[0., 1.], [2., 0.]])
    """

    def __init__(self, new_shape):
        super().__init__()
        self._new_shape = new_shape

    def forward(self, is_train, req, in_data, out_data, aux):
        """NumPy's resize of the input.

        Args:
            is_train: whether the call records for training (not read: no state).
            req: the write request of the output ('write', 'add' or 'null').
            in_data: the input arrays.
            out_data: the output array, written here.
            aux: the auxiliary states (none).

        Example::

            from gluonlite.numpy_op_fallback import custom
            y = custom(mx.np.arange(4), op_type='resize_fallback', new_shape=(3,))
            y  # array([0., 1., 2.])
        """
        out = np.resize(in_data[0].asnumpy(), self._new_shape)
        self.assign(out_data[0], req[0], _np_face.array(out, dtype=out.dtype,
                                                      ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Refused, as MXNet's.

        Args:
            req: the write request of each input gradient (not read).
            out_grad: the gradient of the output (not read).
            in_data: the input arrays (not read).
            out_data: the output array (not read).
            in_grad: the input gradients (not written).
            aux: the auxiliary states (none).

        Raises:
            NotImplementedError: always (MXNet has no gradient here).

        Example::

            from gluonlite.numpy_op_fallback import custom
            x = mx.np.arange(3)
            x.attach_grad()
            with autograd.record():
                y = custom(x, op_type='resize_fallback', new_shape=(2, 2))
            try:
                y.backward()
            except mx.MXNetError as e:
                print(e)  # ... does not support gradient computation
        """
        raise NotImplementedError("Operator resize does not support gradient computation")


@register("resize_fallback")
class ResizeProp(operator.CustomOpProp):
    """resize's properties: output shape `new_shape`.

    Args:
        new_shape (str): a Python literal of the output shape (``'(2, 2)'`` or ``'4'``).

    Example::

        from gluonlite.numpy_op_fallback import ResizeProp
        p = ResizeProp(new_shape='(2, 2)')
        p.infer_shape([(3,)])  # (((3,),), ((2, 2),), ())
    """

    def __init__(self, new_shape):
        super().__init__(need_top_grad=True)
        self._new_shape = ast.literal_eval(new_shape)

    def list_arguments(self):
        """One input: a.

        Example::

            from gluonlite.numpy_op_fallback import ResizeProp
            ResizeProp(new_shape='4').list_arguments()  # ['a']
        """
        return ["a"]

    def infer_shape(self, in_shape):
        """`new_shape` (an int gives a 1-D shape).

        Args:
            in_shape: a list of the inputs' shapes (tuples).

        Returns:
            The triple (input shapes, output shapes, auxiliary shapes): the input's shape, then
            `new_shape`.

        Example::

            from gluonlite.numpy_op_fallback import ResizeProp
            ResizeProp(new_shape='4').infer_shape([(3,)])  # (((3,),), ((4,),), ())
        """
        out_shape = (self._new_shape,) if np.isscalar(self._new_shape) else self._new_shape
        return (in_shape[0],), (tuple(out_shape),), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """A `Resize`.

        Args:
            ctx: the `Context` the operator runs on (unused).
            in_shapes: the inputs' shapes (unused).
            in_dtypes: the inputs' dtypes (unused).

        Returns:
            A `Resize` to `new_shape`.

        Example::

            from gluonlite.numpy_op_fallback import ResizeProp
            p = ResizeProp(new_shape='(2, 2)')
            type(p.create_operator(mx.cpu(), [(3,)], [np.float32])).__name__  # 'Resize'
        """
        return Resize(self._new_shape)


@use_np
class Unravel_index(operator.CustomOp):  # pylint: disable=invalid-name  (MXNet's name)
    """NumPy's unravel_index: the coordinates of flat indices in `shape`, stacked.

    Args:
        shape: the tuple of ints the flat indices point into.

    Example::

        idx = mx.np.array([1, 5], dtype='int64')
        mx.np.unravel_index(idx, (2, 3))  # (array([0, 1], dtype=int64), array([1, 2], dtype=int64))
    """

    def __init__(self, shape):
        super().__init__()
        self._shape = shape

    def forward(self, is_train, req, in_data, out_data, aux):
        """The coordinates, one row per dimension of `shape`.

        Args:
            is_train: whether the call records for training (not read: no state).
            req: the write request of the output ('write', 'add' or 'null').
            in_data: the input arrays.
            out_data: the output array, written here.
            aux: the auxiliary states (none).

        Example::

            from gluonlite.numpy_op_fallback import custom
            idx = mx.np.array([4])
            custom(idx, op_type='unravel_index_fallback', shape=(2, 3))  # array([[1.], [1.]])
        """
        out = np.unravel_index(in_data[0].asnumpy().astype(np.int64), self._shape)
        self.assign(out_data[0], req[0], _np_face.array(np.asarray(out), dtype=out_data[0].dtype,
                                                      ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Refused, as MXNet's.

        Args:
            req: the write request of each input gradient (not read).
            out_grad: the gradient of the output (not read).
            in_data: the input arrays (not read).
            out_data: the output array (not read).
            in_grad: the input gradients (not written).
            aux: the auxiliary states (none).

        Raises:
            NotImplementedError: always (MXNet has no gradient here).

        Example::

            from gluonlite.numpy_op_fallback import custom
            x = mx.np.arange(3)
            x.attach_grad()
            with autograd.record():
                y = custom(x, op_type='unravel_index_fallback', shape=(2, 3))
            try:
                y.backward()
            except mx.MXNetError as e:
                print(e)  # ... does not support gradient computation
        """
        raise NotImplementedError("Operator Unravel_index does not support gradient "
                                  "computation")


@register("unravel_index_fallback")
class Unravel_indexProp(operator.CustomOpProp):  # pylint: disable=invalid-name
    """unravel_index's properties: output shape ``(len(shape),) + indices.shape``.

    Args:
        shape (str): a Python literal of the shape the flat indices point into (``'(2, 3)'``).

    Example::

        from gluonlite.numpy_op_fallback import Unravel_indexProp
        p = Unravel_indexProp(shape='(2, 3)')
        p.infer_shape([(5,)])  # (((5,),), ((2, 5),), ())
    """

    def __init__(self, shape):
        super().__init__(need_top_grad=True)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        """One input: indices.

        Example::

            from gluonlite.numpy_op_fallback import Unravel_indexProp
            Unravel_indexProp(shape='(2, 3)').list_arguments()  # ['indices']
        """
        return ["indices"]

    def infer_shape(self, in_shape):
        """``(len(shape),) + indices.shape``.

        Args:
            in_shape: a list of the inputs' shapes (tuples).

        Returns:
            The triple (input shapes, output shapes, auxiliary shapes): the indices' shape, then
            ``(len(shape),) + indices.shape``.

        Example::

            from gluonlite.numpy_op_fallback import Unravel_indexProp
            Unravel_indexProp(shape='(2, 3)').infer_shape([(4,)])  # (((4,),), ((2, 4),), ())
        """
        dim_list = (1,) if np.isscalar(self._shape) else (len(self._shape),)
        return (in_shape[0],), (dim_list + tuple(in_shape[0]),), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """An `Unravel_index`.

        Args:
            ctx: the `Context` the operator runs on (unused).
            in_shapes: the inputs' shapes (unused).
            in_dtypes: the inputs' dtypes (unused).

        Returns:
            An `Unravel_index` for this `shape`.

        Example::

            from gluonlite.numpy_op_fallback import Unravel_indexProp
            p = Unravel_indexProp(shape='(2, 3)')
            type(p.create_operator(mx.cpu(), [(4,)], [np.int64])).__name__  # 'Unravel_index'
        """
        return Unravel_index(self._shape)


@use_np
class MultivariateNormal(operator.CustomOp):
    """Draws of a multivariate normal: ``mean + L @ z`` with ``L`` the Cholesky factor of the
    covariance and ``z`` standard normal draws.

    Args:
        size: default None: no leading sample axes; else an int or a tuple of ints (the output shape
            comes from the property).

    Example::

        mean, cov = mx.np.zeros(2), mx.np.eye(2)
        mx.np.random.multivariate_normal(mean, cov, size=3).shape  # (3, 2)
    """

    def __init__(self, size=None):
        super().__init__()
        self._size = size

    def forward(self, is_train, req, in_data, out_data, aux):
        """The draws (mean and cov broadcast against each other).

        Args:
            is_train: whether the call records for training (not read: no state).
            req: the write request of the output ('write', 'add' or 'null').
            in_data: the input arrays.
            out_data: the output array, written here.
            aux: the auxiliary states (none).

        Example::

            from gluonlite.numpy_op_fallback import custom
            mean, cov = mx.np.zeros(2), mx.np.eye(2)
            custom(mean, cov, op_type='mvn_fallback', size=(4,)).shape  # (4, 2)
        """
        loc, cov = in_data[0], in_data[1]
        if cov.dtype == np.float16:
            scale = _np_face.linalg.cholesky(cov.astype(np.float32)).astype(np.float16)
        else:
            scale = _np_face.linalg.cholesky(cov)
        noise = _np_face.random.normal(size=out_data[0].shape, dtype=loc.dtype, ctx=loc.ctx)
        out = loc + _np_face.einsum("...jk,...j->...k", scale, noise)
        self.assign(out_data[0], req[0], out)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Refused, as MXNet's.

        Args:
            req: the write request of each input gradient (not read).
            out_grad: the gradient of the output (not read).
            in_data: the input arrays (not read).
            out_data: the output array (not read).
            in_grad: the input gradients (not written).
            aux: the auxiliary states (none).

        Raises:
            NotImplementedError: always (MXNet has no gradient here).

        Example::

            from gluonlite.numpy_op_fallback import custom
            mean, cov = mx.np.zeros(2), mx.np.eye(2)
            mean.attach_grad()
            with autograd.record():
                y = custom(mean, cov, op_type='mvn_fallback', size=(4,))
            try:
                y.backward()
            except mx.MXNetError as e:
                print(e)  # ... does not support gradient computation
        """
        raise NotImplementedError("Operator random.multivariate_normal does not support "
                                  "gradient computation")


@register("mvn_fallback")
class MultivariateNormalProp(operator.CustomOpProp):
    """multivariate_normal's properties: output shape ``size + broadcast(mean, cov[..., 0])``.

    Args:
        size: default None: no leading sample axes; else a Python literal (str) of an int or a tuple
            of ints put before the draws' shape.

    Raises (from infer_shape):
        ValueError: mean not at least 1-D, cov not at least 2-D or not square, or their
            lengths differ.

    Example::

        from gluonlite.numpy_op_fallback import MultivariateNormalProp
        p = MultivariateNormalProp(size='(3,)')
        p.infer_shape([(2,), (2, 2)])  # ([(2,), (2, 2)], ((3, 2),), ())
    """

    def __init__(self, size=None):
        super().__init__(need_top_grad=True)
        self._size = ast.literal_eval(size) if size is not None else None

    def list_arguments(self):
        """Two inputs: mean and cov.

        Example::

            from gluonlite.numpy_op_fallback import MultivariateNormalProp
            MultivariateNormalProp().list_arguments()  # ['mean', 'cov']
        """
        return ["mean", "cov"]

    def infer_shape(self, in_shape):
        """The draws' shape (see the class docstring).

        Args:
            in_shape: a list of the shapes of mean and cov.

        Returns:
            The triple (input shapes, output shapes, auxiliary shapes).

        Example::

            from gluonlite.numpy_op_fallback import MultivariateNormalProp
            MultivariateNormalProp().infer_shape([(2,), (2, 2)])  # ([(2,), (2, 2)], ((2,),), ())
        """
        loc_shape, cov_shape = tuple(in_shape[0]), tuple(in_shape[1])
        if len(loc_shape) < 1:
            raise ValueError("mean must be at least 1 dimensional")
        if len(cov_shape) < 2:
            raise ValueError("cov must be at least 2 dimensional")
        if cov_shape[-1] != cov_shape[-2]:
            raise ValueError("the last two dimentions of the parameter cov have to be the "
                             f"same, whereas the shape of cov is {cov_shape}")
        if cov_shape[-1] != loc_shape[-1]:
            raise ValueError(f"mean and cov must have same length.The shape of mean is "
                             f"{loc_shape[-1:]} but the shape of cov is {cov_shape[-2:]}")
        out_shape = np.broadcast(np.empty(loc_shape), np.empty(cov_shape[:-1])).shape
        if self._size is not None:
            size = (self._size,) if np.isscalar(self._size) else tuple(self._size)
            out_shape = size + out_shape
        return in_shape, (out_shape,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """A `MultivariateNormal`.

        Args:
            ctx: the `Context` the operator runs on (unused).
            in_shapes: the inputs' shapes (unused).
            in_dtypes: the inputs' dtypes (unused).

        Returns:
            A `MultivariateNormal` with this `size`.

        Example::

            from gluonlite.numpy_op_fallback import MultivariateNormalProp
            p = MultivariateNormalProp()
            op = p.create_operator(mx.cpu(), [(2,), (2, 2)], [np.float32] * 2)
            type(op).__name__  # 'MultivariateNormal'
        """
        return MultivariateNormal(self._size)
