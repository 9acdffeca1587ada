"""`mx.np.ndarray`: MXNet's NumPy-compatible array.

It is an `NDArray` (the same storage, context and autograd entry), with NumPy's meaning:
0-d and zero-size arrays, NumPy's indexing (basic, integer arrays, boolean masks), NumPy's
operators and methods (each calling an `mx.np` function, that is one registry operator), the
dtype as a `numpy.dtype`, NumPy's printing. `as_nd_ndarray()` and `NDArray.as_np_ndarray()`
convert between the two dialects without copying (the result shares data and gradient
history). Official NumPy functions given an `mx.np.ndarray` dispatch to the `mx.np` function
of the same name (`__array_function__` / `__array_ufunc__`), and fall back to NumPy on a host
copy for the functions `mx.np` lacks, as MXNet does.

Example::

    from gluonlite import np, npx, autograd
    npx.set_np()
    x = np.array([[1., 2.], [3., 4.]])
    x.attach_grad()
    with autograd.record():
        y = (x * x).sum()          # a 0-d array
    y.backward()
    x.grad                         # array([[2., 4.], [6., 8.]])
    npx.reset_np()
"""
import warnings

import numpy as _onp

from .. import autograd_tape
from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from ..context import Context, current_context
from ..ndarray.ndarray import INSTALLED, NDArray, check_grad_req
from . import _dispatch
from . import _functions as _f  # the methods below call the mx.np functions
from ._creation import zeros
from ._indexing import getitem, setitem
from ._operators import NumpyOperators
from .interop import array_function, array_ufunc

__all__ = ["ndarray", "array", "empty", "from_nd"]


def _no_attribute(name):
    def method(self, *args, **kwargs):
        raise AttributeError(f"mxnet.numpy.ndarray object has no attribute {name}")
    method.__name__ = name
    method.__doc__ = (f"Not an `mx.np.ndarray` method (MXNet's legacy NDArray has it): raises "
                      f"AttributeError; use ``as_nd_ndarray().{name}(...)`` or the `mx.np` / "
                      "`mx.npx` function.\n\n"
                      "Example::\n\n"
                      "    x = mx.np.ones((2, 2))\n"
                      "    try:\n"
                      f"        x.{name}()\n"
                      "    except AttributeError as e:\n"
                      f"        print(e)  # mxnet.numpy.ndarray object has no attribute {name}\n")
    return method


class ndarray(NumpyOperators, NDArray):
    """An array of MXNet's NumPy dialect (see the module docstring).

    Make one with `mx.np.array`, `mx.np.zeros` and the other `mx.np` functions.

    Its properties (each documented below): ``shape``, ``ndim`` and ``size`` as NumPy's;
    ``dtype``, a `numpy.dtype` (float32 by default); ``ctx`` / ``context``, the `Context`
    holding the data; ``grad``, the gradient buffer after `attach_grad`; ``T``, the
    transpose.

    Args:
        data: the array's storage: a NumPy (or device) array of its values, held without a copy;
            user code makes arrays with `mx.np.array` rather than this constructor.
        ctx: default None: the current context; else the `Context` the data lives on.
        writable: default True; False with an array's handle in `data` (MXNet code's
            ``ctypes.cast(array, NDArrayHandle)``) gives a view that refuses writes, as
            `NDArray`'s.

    Example::

        mx.np.array([1, 2, 3]) * 2   # array([2., 4., 6.])
    """

    __slots__ = ()
    __array_priority__ = 1000.0
    _np_array = True

    # ---- attributes ---------------------------------------------------------------------
    @property
    def dtype(self):
        """The `numpy.dtype` of the elements (``dtype('float32')``).

        Example::

            mx.np.ones(2, dtype='int32').dtype  # dtype('int32')
        """
        return self._data.dtype

    @property
    def ndim(self):
        """Number of dimensions (0 for a scalar array).

        Example::

            mx.np.ones((2, 3)).ndim  # 2
        """
        return self._data.ndim

    @property
    def T(self):
        """The transpose (axes reversed); a copy, as in MXNet.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.T  # array([[1., 3.], [2., 4.]])
        """
        return self.transpose()

    @property
    def grad(self):
        """The gradient buffer attached by `attach_grad`, as an `mx.np.ndarray` (None before,
        and after a backward through the array when its grad_req is 'null', as in MXNet).

        Example::

            x = mx.np.array([1., 2.])
            x.attach_grad()
            with autograd.record():
                y = (3 * x).sum()
            y.backward()
            x.grad  # array([3., 3.])
        """
        g = NDArray.grad.fget(self)
        if g is None or g.__class__ is ndarray:
            return g
        return from_nd(g)

    @property
    def stype(self):
        """The storage type: 'default' (`mx.np` arrays are dense).

        Example::

            mx.np.ones(2).stype  # 'default'
        """
        return "default"

    def attach_grad(self, grad_req="write"):
        """Attach a zero gradient buffer (an `mx.np.ndarray`) and mark the array as a variable
        for autograd.

        Args:
            grad_req: 'write' (backward overwrites `grad`), 'add' (accumulates) or 'null'.

        Raises:
            ValueError: an unknown grad_req.

        Example::

            x = mx.np.array([1., 2.])
            x.attach_grad()
            with autograd.record():
                y = (x * x).sum()
            y.backward()
            x.grad  # array([2., 4.])
        """
        check_grad_req(grad_req)
        self._grad = ndarray(self._ctx.xp.zeros(self.shape, self.dtype), self._ctx)
        self._entry = (autograd_tape.Leaf(self._grad, grad_req), 0)

    def detach(self):
        """The same data, cut from the autograd graph.

        Example::

            x = mx.np.ones(2)
            x.attach_grad()
            with autograd.record():
                y = (x * 2).detach()
            y  # array([2., 2.])
        """
        return ndarray(self._data, self._ctx)

    # ---- conversion ---------------------------------------------------------------------
    def as_nd_ndarray(self):
        """This array as a legacy `mx.nd.NDArray` sharing its data and autograd history (no
        copy), to use the legacy operators on it.

        Example::

            type(mx.np.ones(2).as_nd_ndarray()).__name__  # 'NDArray'
        """
        a = NDArray(self._data, self._ctx)
        a._entry, a._grad = self._entry, self._grad
        return a

    def as_np_ndarray(self):
        """Itself (already an `mx.np.ndarray`).

        Example::

            type(mx.np.ones(2).as_np_ndarray()).__name__  # 'ndarray'
        """
        return self

    def asscalar(self):
        """Not an `mx.np.ndarray` method: raises AttributeError; use `item()`.

        Example::

            x = mx.np.ones(2)
            try:
                x.asscalar()
            except AttributeError as e:
                print(e)  # mxnet.numpy.ndarray object has no attribute asscalar; use item()
            mx.np.array([5.]).item()  # 5.0
        """
        raise AttributeError("mxnet.numpy.ndarray object has no attribute asscalar; use item()")

    def item(self, *args):
        """The element as a Python scalar: ``item()`` for a one-element array, ``item(i)`` for
        flat index i, ``item(i, j)`` for an index per axis (NumPy's `ndarray.item`).

        Raises:
            ValueError: no index and more than one element.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.item(1, 0)  # 3.0
        """
        return self.asnumpy().item(*args)

    def tolist(self):
        """The values as nested Python lists (a Python scalar for a 0-d array).

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.tolist()  # [[1.0, 2.0], [3.0, 4.0]]
        """
        return self.asnumpy().tolist()

    def __bool__(self):
        if self.size == 0:
            warnings.warn("The truth value of an empty array is ambiguous. Returning False, but "
                          "in future this will result in an error.", DeprecationWarning,
                          stacklevel=2)
            return False
        if self.size == 1:
            return bool(self.item())
        raise ValueError("The truth value of an ndarray with multiple elements is ambiguous.")

    def __float__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self.ndim != 0 or self.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __hash__(self):
        raise NotImplementedError("mxnet.numpy.ndarray is not hashable (as in MXNet); key by "
                                  "id(array) instead")

    def __repr__(self):
        text = repr(self.asnumpy())
        if "dtype=" in text:
            if self.dtype == _onp.float32:
                text = text[:text.rindex(",")] + ")"
        elif self.dtype not in (_onp.float32, _onp.bool_):
            text = text[:-1] + f", dtype={self.dtype})"
        if self._ctx.device_type != "cpu":
            text = text[:-1] + f", ctx={self._ctx})"
        return text

    def __str__(self):
        text = str(self.asnumpy())
        if self._ctx.device_type == "cpu" or self.ndim == 0:
            return text
        return f"{text} @{self._ctx}"

    def __format__(self, fmt):
        if self.ndim == 0:
            return self.item().__format__(fmt)
        if not fmt:
            return str(self)
        raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")

    def __reduce__(self):
        return _from_state, (self.__getstate__(),)

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """Official NumPy ufuncs on `mx.np` arrays: the `mx.np` function of the same name, or
        NumPy itself on host copies for the ufuncs `mx.np` lacks (refused inside
        autograd.record(), where the result could not be differentiated)."""
        return array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """Official NumPy functions on `mx.np` arrays: the `mx.np` function of the same name,
        or NumPy itself on host copies (see `__array_ufunc__`)."""
        return array_function(func, types, args, kwargs)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """A copy converted to `dtype` (itself when `copy` is False and the dtype already
        matches). Recorded by autograd (the gradient is cast back).

        Args:
            dtype: the target dtype (a name or NumPy dtype; None means float32).
            order (str): default 'K'; 'C' is accepted too.
            casting (str): default 'unsafe', the only value supported.
            subok (bool): default True; ignored (no subclasses).
            copy (bool): default True: always a new array; False returns the array itself when the
                dtype already matches.

        Returns:
            An `mx.np.ndarray` of the array's shape and `dtype`.

        Raises:
            NotImplementedError: an order other than 'K' or 'C', or a casting other than
                'unsafe' (MXNet 1.9.1 has only these).

        Example::

            mx.np.array([1.7, 2.2]).astype('int32')  # array([1, 2], dtype=int32)
        """
        if order not in ("K", "C"):
            raise NotImplementedError(f"astype: order={order!r} is not supported")
        if casting != "unsafe":
            raise NotImplementedError(f"astype: casting={casting!r} is not supported")
        dt = normalize_dtype(_onp.float32 if dtype is None else dtype, "astype: dtype")
        if not copy and dt == self.dtype:
            return self
        return _dispatch.invoke("Cast", [self], {"dtype": dt.name}, fname="astype")

    def copy(self, order="C"):
        """A copy (recorded by autograd).

        Args:
            order (str): default 'C', the only order supported.

        Returns:
            A new `mx.np.ndarray` with the same values, shape, dtype and context.

        Raises:
            NotImplementedError: an order other than 'C'.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            b = a.copy()
            b[0, 0] = 9.
            a[0, 0]  # array(1.)
        """
        if order != "C":
            raise NotImplementedError(f"copy: order={order!r} is not supported")
        return _dispatch.invoke("_np_copy", [self], {}, fname="copy")

    def copyto(self, other):
        """Copy into `other` (an `mx.np.ndarray`, returned) or to a new array on `other` (a
        Context).

        Args:
            other: an `mx.np.ndarray` of this shape to write into, or a `Context` to copy to.

        Returns:
            `other` when it is an array, else the new array on the context.

        Raises:
            TypeError: `other` is neither.
            ValueError: `other` has another shape.

        Example::

            x, y = mx.np.ones(2), mx.np.zeros(2)
            x.copyto(y)
            y  # array([1., 1.])
        """
        if isinstance(other, Context):
            return ndarray(_on(other, self), other)
        if not isinstance(other, ndarray):
            raise MXNetTypeError(f"copyto: expected an mxnet.numpy.ndarray or a Context, got "
                                 f"{type(other).__name__}")
        if other.shape != self.shape:
            raise MXNetValueError(f"copyto: shape {self.shape} does not match the target's "
                                  f"{other.shape}")
        other._data[...] = _on(other._ctx, self)
        return other

    def as_in_context(self, context):
        """This array on `context` (itself when already there).

        Args:
            context: the target `Context`.

        Returns:
            An `mx.np.ndarray` on `context` (a copy unless already there).

        Example::

            x = mx.np.ones(2).as_in_context(mx.cpu())
            x.ctx  # cpu(0)
        """
        return self if context == self._ctx else self.copyto(context)

    def as_in_ctx(self, ctx):
        """This array on `ctx` (itself when already there).

        Args:
            ctx: the target `Context`.

        Returns:
            An `mx.np.ndarray` on `ctx` (a copy unless already there).

        Example::

            x = mx.np.ones(2).as_in_ctx(mx.cpu())
            x.ctx  # cpu(0)
        """
        return self.as_in_context(ctx)

    def tostype(self, stype):
        """Not an `mx.np.ndarray` method (dense only): raises AttributeError.

        Args:
            stype: the storage type asked for (any value raises).

        Raises:
            AttributeError: always.

        Example::

            x = mx.np.ones(2)
            try:
                x.tostype('csr')
            except AttributeError as e:
                print(e)  # mxnet.numpy.ndarray object has no attribute tostype
        """
        raise AttributeError("mxnet.numpy.ndarray object has no attribute tostype")

    def reshape_view(self, *shape, **kwargs):
        """A view with a new shape sharing this array's memory (MXNet's legacy reshape codes
        0, -1, -2, ...).

        Example::

            mx.np.arange(6).reshape_view(2, 3).shape  # (2, 3)
        """
        return from_nd(super().reshape(*shape, **kwargs))

    # ---- indexing -----------------------------------------------------------------------
    def __getitem__(self, key):
        """NumPy's indexing: basic (ints, slices, None, Ellipsis; a contiguous result shares
        memory outside autograd.record()), integer arrays, boolean masks, and mixes of them.
        Recorded by autograd."""
        return getitem(self, key)

    def __setitem__(self, key, value):
        """NumPy's assignment: ``x[key] = value`` for any key `__getitem__` takes, `value` a
        scalar or an array broadcast to the indexed shape."""
        setitem(self, key, value)

    # ---- rounding (the arithmetic operators come from NumpyOperators) -------------------
    def __round__(self, n=0): return _f.round(self, decimals=n)
    def __floor__(self): return _f.floor(self)
    def __ceil__(self): return _f.ceil(self)
    def __trunc__(self): return _f.trunc(self)

    def _inplace(self, fn, o, sym):
        if autograd_tape.is_recording() and isinstance(self._entry, tuple) and \
                isinstance(self._entry[0], autograd_tape.Leaf):
            raise MXNetValueError(
                f"ndarray {sym}: in-place update of an array with attach_grad() inside "
                "autograd.record() would cut it from its gradient; write y = x " + sym[0] +
                " ... instead, or update it outside record()")
        res = fn(self, o)
        if autograd_tape.is_recording() and res._entry is not None:
            return res  # rebound: the recorded graph may still need the old values
        if res.shape != self.shape:
            raise ValueError(f"non-broadcastable output operand with shape {self.shape} "
                             f"doesn't match the broadcast shape {res.shape}")
        self._data[...] = res._data
        return self

    def __iadd__(self, o): return self._inplace(_f.add, o, "+=")
    def __isub__(self, o): return self._inplace(_f.subtract, o, "-=")
    def __imul__(self, o): return self._inplace(_f.multiply, o, "*=")
    def __itruediv__(self, o): return self._inplace(_f.true_divide, o, "/=")
    def __imod__(self, o): return self._inplace(_f.mod, o, "%=")
    def __iand__(self, o): return self._inplace(_f.bitwise_and, o, "&=")
    def __ior__(self, o): return self._inplace(_f.bitwise_or, o, "|=")
    def __ixor__(self, o): return self._inplace(_f.bitwise_xor, o, "^=")
    def __imatmul__(self, o): return self._inplace(_f.matmul, o, "@=")
    def __ipow__(self, o): return self._inplace(_f.power, o, "**=")

    # ---- NumPy's methods ----------------------------------------------------------------
    def flatten(self, order="C"):
        """A 1-D copy.

        Args:
            order (str): default 'C', the only order supported.

        Returns:
            A 1-D `mx.np.ndarray` of ``self.size`` elements.

        Raises:
            NotImplementedError: an order other than 'C'.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.flatten()  # array([1., 2., 3., 4.])
        """
        return _f.reshape(self, (-1,), order=order)

    def squeeze(self, axis=None):
        """The array without its length-1 axes (those of `axis`).

        Args:
            axis: default None: drop every axis of length 1; else an int or a tuple of ints (each of
                length 1).

        Returns:
            An `mx.np.ndarray`.

        Example::

            mx.np.ones((1, 3)).squeeze().shape  # (3,)
        """
        return _f.squeeze(self, axis=axis)

    def expand_dims(self, *args, **kwargs):
        """Not an `mx.np.ndarray` method: raises AttributeError (use `np.expand_dims`).

        Example::

            x = mx.np.ones(2)
            try:
                x.expand_dims(0)
            except AttributeError as e:
                print(e)  # mxnet.numpy.ndarray object has no attribute expand_dims
            mx.np.expand_dims(x, 0).shape  # (1, 2)
        """
        raise AttributeError("mxnet.numpy.ndarray object has no attribute expand_dims")

    def broadcast_to(self, shape):
        """The array broadcast to `shape` (`np.broadcast_to`).

        Args:
            shape: an int or a tuple of ints, the target shape.

        Returns:
            An `mx.np.ndarray` of `shape`.

        Raises:
            ValueError: shapes that do not broadcast.

        Example::

            mx.np.array([1., 2.]).broadcast_to((2, 2))  # array([[1., 2.], [1., 2.]])
        """
        return _f.broadcast_to(self, shape)

    def broadcast_like(self, other):
        """Not an `mx.np.ndarray` method: raises AttributeError.

        Args:
            other: the array whose shape would be taken (any value raises).

        Raises:
            AttributeError: always.

        Example::

            x = mx.np.ones(2)
            try:
                x.broadcast_like(mx.np.ones((2, 2)))
            except AttributeError as e:
                print(e)  # mxnet.numpy.ndarray object has no attribute broadcast_like
        """
        raise AttributeError("mxnet.numpy.ndarray object has no attribute broadcast_like")

    def swapaxes(self, axis1, axis2):
        """Axes `axis1` and `axis2` interchanged.

        Args:
            axis1 (int): the first axis.
            axis2 (int): the second axis.

        Returns:
            An `mx.np.ndarray` with the two axes exchanged.

        Example::

            mx.np.ones((2, 3)).swapaxes(0, 1).shape  # (3, 2)
        """
        return _f.swapaxes(self, axis1, axis2)

    def repeat(self, repeats, axis=None):
        """Each element repeated `repeats` times (along `axis`, or of the flattened array).

        Args:
            repeats (int): how many times each element appears.
            axis: default None: repeat the elements of the flattened array; else the int axis.

        Returns:
            An `mx.np.ndarray`.

        Example::

            mx.np.array([1., 2.]).repeat(2)  # array([1., 1., 2., 2.])
        """
        return _f.repeat(self, repeats, axis=axis)

    def take(self, indices, axis=None, mode="raise"):
        """Elements at `indices` (along `axis`, or of the flattened array).

        Args:
            indices: an integer `mx.np.ndarray` (or an int) of positions.
            axis: default None: index the flattened array; else the int axis to index along.
            mode (str): default 'raise': an index out of range is an error; 'wrap' wraps around,
                'clip' clips to the ends.

        Returns:
            An `mx.np.ndarray`: `indices`'s shape in place of `axis`.

        Raises:
            IndexError: with mode 'raise', an index out of range.
            NotImplementedError: another mode.

        Example::

            mx.np.array([5., 6., 7.]).take(mx.np.array([2, 0], dtype='int64'))  # array([7., 5.])
        """
        return _f.take(self, indices, axis=axis, mode=mode)

    def dot(self, b, out=None):
        """The dot product with `b` (`np.dot`).

        Args:
            b: the other `mx.np.ndarray`.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).

        Returns:
            An `mx.np.ndarray`, as `np.dot` gives it.

        Raises:
            ValueError: shapes that are not aligned.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.dot(mx.np.array([1., 0.]))  # array([1., 3.])
        """
        return _f.dot(self, b, out=out)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """Sum over `axis` (`np.sum`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The sums, an `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.sum(axis=0)  # array([4., 6.])
        """
        return _f.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """Product over `axis` (`np.prod`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The products, an `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.prod()  # array(24.)
        """
        return _f.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """Mean over `axis` (`np.mean`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The means, an `mx.np.ndarray` (float for integer data).

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.mean()  # array(2.5)
        """
        return _f.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Standard deviation over `axis` (`np.std`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            ddof (int): default 0: the divisor is N - ddof.
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The standard deviations, an `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.std()  # array(1.118034)
        """
        return _f.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Variance over `axis` (`np.var`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            ddof (int): default 0: the divisor is N - ddof.
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The variances, an `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.var()  # array(1.25)
        """
        return _f.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        """Maximum over `axis` (`np.max`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The maxima, an `mx.np.ndarray` of the array's dtype.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.max(axis=1)  # array([2., 4.])
        """
        return _f.max(self, axis=axis, out=out, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """Minimum over `axis` (`np.min`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            The minima, an `mx.np.ndarray` of the array's dtype.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.min()  # array(1.)
        """
        return _f.min(self, axis=axis, out=out, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        """Whether every element is true (`np.all`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A bool `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.all()  # array(True)
        """
        return _f.all(self, axis=axis, out=out, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """Whether some element is true (`np.any`).

        Args:
            axis: default None: reduce over all axes (a 0-d result); else an int or a tuple of ints.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A bool `mx.np.ndarray`.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            (a > 3).any(axis=0)  # array([False, True])
        """
        return _f.any(self, axis=axis, out=out, keepdims=keepdims)

    def argmax(self, axis=None, out=None):
        """Index of the maximum (`np.argmax`).

        Args:
            axis: default None: the index into the flattened array; else an int axis.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).

        Returns:
            An int64 `mx.np.ndarray` of indices.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.argmax(axis=0)  # array([1, 1], dtype=int64)
        """
        return _f.argmax(self, axis=axis, out=out)

    def argmin(self, axis=None, out=None):
        """Index of the minimum (`np.argmin`).

        Args:
            axis: default None: the index into the flattened array; else an int axis.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).

        Returns:
            An int64 `mx.np.ndarray` of indices.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.argmin()  # array(0, dtype=int64)
        """
        return _f.argmin(self, axis=axis, out=out)

    def argsort(self, axis=-1, kind=None, order=None):
        """Indices that sort the array (`np.argsort`).

        Args:
            axis: default -1: the last axis; else an int, or None for the flattened array.
            kind: ignored (accepted for NumPy's signature).
            order: must stay None (not supported).

        Returns:
            An int64 `mx.np.ndarray` of the array's shape (1-D for None).

        Raises:
            NotImplementedError: `order`.

        Example::

            mx.np.array([3., 1., 2.]).argsort()  # array([1, 2, 0], dtype=int64)
        """
        return _f.argsort(self, axis=axis, kind=kind, order=order)

    def sort(self, axis=-1, kind=None, order=None):
        """A sorted copy (`np.sort`; MXNet's method returns it rather than sorting in place).

        Args:
            axis: default -1: the last axis; else an int, or None for the flattened array.
            kind: ignored (accepted for NumPy's signature).
            order: must stay None (not supported).

        Returns:
            A sorted `mx.np.ndarray` (the array itself is unchanged).

        Raises:
            NotImplementedError: `order`.

        Example::

            mx.np.array([3., 1., 2.]).sort()  # array([1., 2., 3.])
        """
        return _f.sort(self, axis=axis, kind=kind, order=order)

    def cumsum(self, axis=None, dtype=None, out=None):
        """Cumulative sum (`np.cumsum`).

        Args:
            axis: default None: the running sum of the flattened array; else an int axis.
            dtype: default None: the array's dtype; else the dtype of the sums.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).

        Returns:
            An `mx.np.ndarray`.

        Example::

            mx.np.array([1., 2., 3.]).cumsum()  # array([1., 3., 6.])
        """
        return _f.cumsum(self, axis=axis, dtype=dtype, out=out)

    def clip(self, min=None, max=None, out=None):  # pylint: disable=redefined-builtin
        """Values limited to [min, max] (`np.clip`).

        Args:
            min: default None: no lower bound; else a number.
            max: default None: no upper bound; else a number.
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).

        Returns:
            An `mx.np.ndarray` of the array's shape and dtype.

        Raises:
            ValueError: both bounds None.

        Example::

            mx.np.array([0., 5., 10.]).clip(1, 6)  # array([1., 5., 6.])
        """
        return _f.clip(self, min, max, out=out)

    def round(self, decimals=0, out=None, **kwargs):
        """Values rounded to `decimals` (`np.round`).

        Args:
            decimals (int): default 0: the number of decimal places kept (halves to even).
            out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype
                that receives it (and is returned).
            **kwargs: none accepted (any raises TypeError).

        Returns:
            An `mx.np.ndarray` of the array's shape and dtype.

        Example::

            mx.np.array([1.26, 3.5]).round(1)  # array([1.3, 3.5])
        """
        return _f.round(self, decimals=decimals, out=out, **kwargs)

    def nonzero(self):
        """Indices of the non-zero elements (`np.nonzero`).

        Example::

            mx.np.array([0., 5., 7.]).nonzero()  # (array([1, 2], dtype=int64),)
        """
        return _f.nonzero(self)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """The diagonal (`np.diagonal`).

        Args:
            offset (int): default 0: the main diagonal; positive above it, negative below.
            axis1 (int): default 0: the first axis of the planes.
            axis2 (int): default 1: the second axis of the planes.

        Returns:
            An `mx.np.ndarray`: the other axes, then the diagonal.

        Example::

            a = mx.np.array([[1., 2.], [3., 4.]])
            a.diagonal()  # array([1., 4.])
        """
        return _f.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)


# The legacy fluent methods an mx.np array does not have (MXNet raises AttributeError).
for _name in ("abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
              "argmax_channel", "broadcast_axes", "cbrt", "ceil", "cos", "cosh", "degrees",
              "depth_to_space", "diag", "exp", "expm1", "fix", "flip", "floor", "log", "log10",
              "log1p", "log2", "log_softmax", "nanprod", "nansum", "norm", "one_hot", "ones_like",
              "pad", "pick", "radians", "rcbrt", "reciprocal", "relu", "reshape_like", "rint",
              "rsqrt", "shape_array", "sigmoid", "sign", "sin", "sinh", "size_array", "slice",
              "slice_axis", "slice_like", "softmax", "softmin", "space_to_depth", "split",
              "split_v2", "sqrt", "square", "tan", "tanh", "tile", "topk", "trunc",
              "zeros_like", "slice_assign", "slice_assign_scalar"):
    setattr(ndarray, _name, _no_attribute(_name))
del _name


def _on(ctx, x):
    if x._ctx == ctx:
        return x._data.copy()
    host = x.asnumpy()
    return host if ctx.device_type == "cpu" else ctx.xp.asarray(host)


def _from_state(state):
    a = ndarray.__new__(ndarray)
    NDArray.__setstate__(a, state)
    return a


def from_nd(nd):
    """The legacy NDArray `nd` as an `mx.np.ndarray` sharing its data and autograd history.

    Args:
        nd: a legacy `mx.nd.NDArray`.

    Returns:
        An `mx.np.ndarray` sharing `nd`'s data, context, gradient buffer and autograd entry.

    Example::

        from gluonlite.numpy.multiarray import from_nd
        x = from_nd(mx.nd.ones((2,)))
        type(x).__name__  # 'ndarray'
    """
    data = nd._data
    if isinstance(data, _onp.generic):  # a numpy scalar a kernel gave for a 0-d result
        data = nd._ctx.xp.asarray(data)
    a = ndarray(data, nd._ctx)
    a._entry = nd._entry
    g = nd._grad
    if g is not None and g.__class__ is NDArray:
        g = ndarray(g._data, g._ctx)
    a._grad = g
    return a


def empty(shape, dtype=None, order="C", ctx=None):
    """A new array of `shape` (zeros here: results never depend on stale memory).

    Args:
        shape: an int or a tuple.
        dtype: the dtype (default float32, float64 under ``npx.set_np(dtype=True)``).
        order: 'C' only.
        ctx: the context (default: the current one).

    Raises:
        NotImplementedError: an order other than 'C'.

    Example::

        mx.np.empty((2, 3)).shape  # (2, 3)
    """
    if order != "C":
        raise NotImplementedError(f"empty: only C-order is supported, got order={order!r}")
    return zeros(shape, dtype=dtype, ctx=ctx)


def array(object, dtype=None, ctx=None):  # pylint: disable=redefined-builtin
    """An array holding `object`'s values (always a copy).

    Args:
        object: an `mx.np.ndarray`, a legacy NDArray, a NumPy array, a (nested) list or a
            number.
        dtype: the dtype (default: `object`'s own when it has one, else float32, or float64
            under ``npx.set_np(dtype=True)``).
        ctx: the context (default: `object`'s for an array, else the current one).

    Raises:
        TypeError: `object` is not array-like, or a dtype MXNet does not support.

    Example::

        mx.np.array([[1, 2], [3, 4]], dtype='int32')   # array([[1, 2], [3, 4]], dtype=int32)
    """
    if isinstance(object, NDArray):
        src = object.asnumpy()
        ctx = ctx or object._ctx
    else:
        if object is None or isinstance(object, (str, bytes, dict, set)):
            raise MXNetTypeError(f"array: object must be array-like, got "
                                 f"{type(object).__name__}")
        if isinstance(object, (list, tuple)) and any(isinstance(e, NDArray) for e in object):
            object = [e.asnumpy() if isinstance(e, NDArray) else e for e in object]
        src = object
    if dtype is None:
        dtype = src.dtype if hasattr(src, "dtype") else _dispatch.default_float()
    dt = normalize_dtype(dtype, "array: dtype")
    try:
        try:
            data = _onp.array(src, dtype=dt)
        except OverflowError:  # a Python int out of the dtype's range: wrapped, as the
            data = _onp.array(src).astype(dt)  # NumPy 1.x under MXNet 1.9.1 stores it
    except (TypeError, ValueError) as e:
        raise MXNetTypeError(f"array: cannot make an array of {type(object).__name__}: {e}") \
            from None
    ctx = ctx or current_context()
    return ndarray(ctx.xp.asarray(data) if ctx.device_type != "cpu" else data, ctx)

# NDArray.as_np_ndarray and CustomOp's numpy arrays (in the layer below) make these
INSTALLED.update(np_from_nd=from_nd, np_ndarray=ndarray)
# the numpy functions below this module make them through _dispatch
_dispatch.register_upper(ndarray=ndarray, from_nd=from_nd, array=array)
