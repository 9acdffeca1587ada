"""`mx.sym.np._Symbol`: a graph of MXNet's NumPy dialect.

The same `Symbol` (nodes, JSON, inference, binding), with NumPy's operators and methods:
``a + b`` is an ``_npi_add`` node, ``a.sum()`` an ``_np_sum`` node, ``a[1:3, 0]`` a ``slice``
node then an ``_npx_reshape`` one, as MXNet 1.9.1 builds them. A symbol with several outputs
(``np.split``'s) is indexed, sliced, iterated and measured like a list of its outputs.
`as_nd_ndarray()` gives the legacy Symbol of the same graph; `Symbol.as_np_ndarray()` the
reverse.

Example::

    x = mx.sym.var('x').as_np_ndarray()
    y = (x * 2).sum(axis=0)          # _npi_multiply_scalar, then _np_sum
"""
import numbers

from ..base import normalize_dtype
from ..ndarray import numpy as _nd_face
from ..symbol.symbol import Symbol, Group
from . import _functions as _f
from ._dispatch import invoke, register_upper
from ._operators import NumpyOperators

__all__ = ["_Symbol"]


class _Symbol(NumpyOperators, Symbol):
    """A numpy symbol (see the module docstring).

    Args:
        outputs: the list of the graph's output entries (what a legacy `Symbol` holds); made by
            ``sym.var(...).as_np_ndarray()`` and the `mx.sym.np` functions rather than called
            directly.

    Example::

        x = sym.var('x').as_np_ndarray()
        y = (x * 2).sum(axis=1)   # NumPy's operators and methods build the graph
        type(y).__name__   # '_Symbol'
        y.eval(x=nd.ones((2, 3)))[0].asnumpy().tolist()   # [6.0, 6.0]
    """

    __slots__ = ()
    _np_symbol = True  # what the legacy layers below ask (they cannot import this class)

    @property
    def num_outputs(self):
        """The number of outputs.

        Example::

            x = sym.var('x').as_np_ndarray()
            x.num_outputs   # 1
        """
        return len(self._outputs)

    def as_nd_ndarray(self):
        """The legacy Symbol of the same graph (no copy).

        Example::

            x = sym.var('x').as_np_ndarray()
            type(x.as_nd_ndarray()).__name__   # 'Symbol'
        """
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        """Itself.

        Example::

            x = sym.var('x').as_np_ndarray()
            x.as_np_ndarray() is x   # True
        """
        return self

    def __len__(self):
        if len(self._outputs) == 1:
            raise TypeError(f"{self} is not a list and does not support len().")
        return len(self._outputs)

    def __iter__(self):
        if len(self._outputs) == 1:
            raise TypeError(f"'{self}' is not iterable.")
        return (_Symbol([e]) for e in self._outputs)

    def __getitem__(self, key):
        """An output (int) or a group of outputs (slice) of a multi-output symbol; otherwise
        NumPy's basic indexing (ints and slices), as a ``slice`` node and a reshape."""
        n = len(self._outputs)
        if n > 1:
            if isinstance(key, numbers.Integral):
                if key < -n or key >= n:
                    raise IndexError("list index out of range")
                return _Symbol([self._outputs[key % n]])
            if isinstance(key, slice):
                return _Symbol(Group([_Symbol([self._outputs[i]])
                                      for i in range(*key.indices(n))])._outputs)
            raise TypeError(f"indices of symbol group must be integers or slices, not "
                            f"{type(key).__name__}")
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            sliced = invoke("slice", [self], {"begin": (int(key),), "end": (int(key) + 1,),
                                              "step": ()})
            return invoke("_npx_reshape", [sliced], {"newshape": (-3, -4)})
        if isinstance(key, slice):
            if key.step == 0:
                raise ValueError("slice step cannot be zero")
            return invoke("slice", [self], {"begin": (key.start,), "end": (key.stop,),
                                            "step": (key.step,)})
        if isinstance(key, tuple):
            if not key:
                return self
            begin, end, step, newshape = [], [], [], []
            for k in key:
                if isinstance(k, slice):
                    if k.step == 0:
                        raise ValueError("slice step cannot be zero")
                    begin.append(k.start), end.append(k.stop), step.append(k.step)
                    newshape.append(-2)
                elif isinstance(k, numbers.Integral) and not isinstance(k, bool):
                    k = int(k)
                    if k >= 0:
                        begin.append(k), end.append(k + 1), step.append(1)
                    else:
                        begin.append(k), end.append(k - 1), step.append(-1)
                    newshape.append(-3)
                else:
                    raise IndexError(f"Only integer, slice, or tuple of these types are "
                                     f"supported! Received key={key}")
            sliced = invoke("slice", [self], {"begin": tuple(begin), "end": tuple(end),
                                              "step": tuple(step)})
            return invoke("_npx_reshape", [sliced], {"newshape": tuple(newshape) + (-4,)})
        raise IndexError(f"Only integer, slice, or tuple of these types are supported! "
                         f"Received key={key}")

    def __setitem__(self, key, value):
        raise NotImplementedError("a numpy symbol does not support item assignment")

    def __repr__(self):
        if len(self._outputs) == 1:
            return f"<_Symbol {self.name}>"
        return f"<_Symbol group [{', '.join(self.list_outputs())}]>"

    # ---- NumPy's operators come from NumpyOperators; its __eq__ would leave a graph node
    # unhashable, and symbols are dictionary keys
    __hash__ = Symbol.__hash__

    # ---- NumPy's methods --------------------------------------------------------------
    @property
    def T(self):
        """The transpose.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.T
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 2.0], [1.0, 4.0]]
        """
        return self.transpose()

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """A Cast node to `dtype`.

        Args:
            dtype: the target dtype (a name or NumPy dtype).
            order: accepted and ignored.
            casting: accepted and ignored.
            subok: accepted and ignored.
            copy: accepted and ignored (a node is always new).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.astype('int32')
            y.eval(x=a)[0].dtype   # <class 'numpy.int32'>
        """
        return invoke("Cast", [self], {"dtype": normalize_dtype(dtype).name}, fname="astype")

    def flatten(self, order="C"):
        """A reshape to 1-D.

        Args:
            order: accepted and ignored (row-major).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.flatten()
            y.eval(x=a)[0].asnumpy().tolist()   # [3.0, 1.0, 2.0, 4.0]
        """
        return _f.reshape(self, (-1,))

    # NumPy's ndarray methods, as graph nodes: each is the `mx.sym.np` function of that name
    # on this symbol (`out=` and NumPy's memory-layout arguments are accepted and ignored,
    # as MXNet 1.9.1's numpy symbol ignores them).
    def squeeze(self, axis=None):
        """`np.squeeze` of this symbol.

        Args:
            axis: default None: drop every axis of length 1; else an int or a tuple of ints.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.reshape((1, 2, 2)).squeeze(axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 1.0], [2.0, 4.0]]
        """
        return _f.squeeze(self, axis=axis)

    def swapaxes(self, axis1, axis2):
        """`np.swapaxes` of this symbol.

        Args:
            axis1 (int): the first axis.
            axis2 (int): the second axis.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.swapaxes(0, 1)
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 2.0], [1.0, 4.0]]
        """
        return _f.swapaxes(self, axis1, axis2)

    def repeat(self, repeats, axis=None):
        """`np.repeat` of this symbol.

        Args:
            repeats (int): how many times each element appears.
            axis: default None: repeat the elements of the flattened array; else the int axis.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.repeat(2, axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 1.0], [3.0, 1.0], [2.0, 4.0], [2.0, 4.0]]
        """
        return _f.repeat(self, repeats, axis=axis)

    def take(self, indices, axis=None, mode="raise"):
        """`np.take` of this symbol.

        Args:
            indices: an integer numpy symbol of positions.
            axis: default None: index the flattened array; else the int axis to index along.
            mode (str): default 'raise'; 'wrap' or 'clip' say what an index out of range does (a
                symbol cannot check for 'raise').

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            i = sym.var('i').as_np_ndarray()
            y = x.take(i, axis=0)
            y.eval(x=a, i=nd.array([1]))[0].asnumpy().tolist()   # [[2.0, 4.0]]
        """
        return _f.take(self, indices, axis=axis, mode=mode)

    def dot(self, b, out=None):
        """`np.dot` of this symbol and `b`.

        Args:
            b: the other numpy symbol.
            out: accepted and ignored (a graph node has no buffer to write into).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.dot(x)
            y.eval(x=a)[0].asnumpy().tolist()   # [[11.0, 7.0], [14.0, 18.0]]
        """
        return _f.dot(self, b)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """`np.sum` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.sum(axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [5.0, 5.0]
        """
        return _f.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """`np.prod` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.prod(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [3.0, 8.0]
        """
        return _f.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """`np.mean` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.mean(axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [2.5, 2.5]
        """
        return _f.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """`np.std` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: accepted and ignored (a graph node has no buffer to write into).
            ddof (int): default 0: the divisor is N - ddof.
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.std(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [1.0, 1.0]
        """
        return _f.std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """`np.var` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            dtype: default None: the function's default result dtype; else the dtype to compute in.
            out: accepted and ignored (a graph node has no buffer to write into).
            ddof (int): default 0: the divisor is N - ddof.
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.var(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [1.0, 1.0]
        """
        return _f.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        """`np.max` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.max(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [3.0, 4.0]
        """
        return _f.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """`np.min` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.min(axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [2.0, 1.0]
        """
        return _f.min(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        """`np.all` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.all(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [True, True]
        """
        return _f.all(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """`np.any` of this symbol.

        Args:
            axis: default None: reduce over all axes; else an int or a tuple of ints.
            out: accepted and ignored (a graph node has no buffer to write into).
            keepdims (bool): default False: True keeps the reduced axes with length 1.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = (x > 3).any(axis=0)
            y.eval(x=a)[0].asnumpy().tolist()   # [False, True]
        """
        return _f.any(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, out=None):
        """`np.argmax` of this symbol.

        Args:
            axis: default None: the index into the flattened array; else an int axis.
            out: accepted and ignored (a graph node has no buffer to write into).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.argmax(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [0, 1]
        """
        return _f.argmax(self, axis=axis)

    def argmin(self, axis=None, out=None):
        """`np.argmin` of this symbol.

        Args:
            axis: default None: the index into the flattened array; else an int axis.
            out: accepted and ignored (a graph node has no buffer to write into).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.argmin(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [1, 0]
        """
        return _f.argmin(self, axis=axis)

    def argsort(self, axis=-1, kind=None, order=None):
        """`np.argsort` of this symbol.

        Args:
            axis: default -1: the last axis; else an int, or None for the flattened array.
            kind: accepted and ignored.
            order: accepted and ignored.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.argsort(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [[1, 0], [0, 1]]
        """
        return _f.argsort(self, axis=axis)

    def sort(self, axis=-1, kind=None, order=None):
        """`np.sort` of this symbol.

        Args:
            axis: default -1: the last axis; else an int, or None for the flattened array.
            kind: accepted and ignored.
            order: accepted and ignored.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.sort(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [[1.0, 3.0], [2.0, 4.0]]
        """
        return _f.sort(self, axis=axis)

    def cumsum(self, axis=None, dtype=None, out=None):
        """`np.cumsum` of this symbol.

        Args:
            axis: default None: the running sum of the flattened array; else an int axis.
            dtype: default None: the input's dtype; else the dtype of the sums.
            out: accepted and ignored (a graph node has no buffer to write into).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.cumsum(axis=1)
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 4.0], [2.0, 6.0]]
        """
        return _f.cumsum(self, axis=axis, dtype=dtype)

    def clip(self, min=None, max=None, out=None):  # noqa: A002  (NumPy's argument names)
        """`np.clip` of this symbol.

        Args:
            min: default None: no lower bound; else a number.
            max: default None: no upper bound; else a number.
            out: accepted and ignored (a graph node has no buffer to write into).

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Raises:
            ValueError: both bounds None.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.clip(2, 3)
            y.eval(x=a)[0].asnumpy().tolist()   # [[3.0, 2.0], [2.0, 3.0]]
        """
        return _f.clip(self, min, max)

    def round(self, decimals=0, out=None, **kwargs):
        """`np.round` of this symbol.

        Args:
            decimals (int): default 0: the number of decimal places kept (halves to even).
            out: accepted and ignored (a graph node has no buffer to write into).
            **kwargs: accepted and ignored.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = (x / 2).round()
            y.eval(x=a)[0].asnumpy().tolist()   # [[2.0, 0.0], [1.0, 2.0]]
        """
        return _f.round(self, decimals=decimals)

    def broadcast_to(self, shape):
        """`np.broadcast_to` of this symbol.

        Args:
            shape: a tuple of ints the symbol's shape broadcasts to.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.sum(axis=0).broadcast_to((2, 2))
            y.eval(x=a)[0].asnumpy().tolist()   # [[5.0, 5.0], [5.0, 5.0]]
        """
        return _f.broadcast_to(self, shape)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """`np.diagonal` of this symbol.

        Args:
            offset (int): default 0: the main diagonal; positive above it, negative below.
            axis1 (int): default 0: the first axis of the planes.
            axis2 (int): default 1: the second axis of the planes.

        Returns:
            A numpy symbol (`_Symbol`), the new graph node.

        Example::

            x = sym.var('x').as_np_ndarray()
            a = nd.array([[3., 1.], [2., 4.]])
            y = x.diagonal()
            y.eval(x=a)[0].asnumpy().tolist()   # [3.0, 4.0]
        """
        return _f.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

def install():
    """Give the legacy Symbol its `as_np_ndarray` (the graph as a numpy symbol) and
    `as_nd_ndarray` (itself)."""
    def as_np_ndarray(self):
        """This graph as a numpy symbol (`mx.sym.np._Symbol`), no copy.

        Example::

            s = sym.relu(sym.var('x')).as_np_ndarray()
            type(s).__name__   # '_Symbol'
        """
        return _Symbol(self._outputs)

    def as_nd_ndarray(self):
        """Itself (a legacy Symbol).

        Example::

            x = sym.var('x')
            x.as_nd_ndarray() is x   # True
        """
        return self
    Symbol.as_np_ndarray = as_np_ndarray
    Symbol.as_nd_ndarray = as_nd_ndarray
    _nd_face.FACES["_Symbol"] = _Symbol  # mx.sym.np._Symbol


register_upper(symbol=_Symbol)  # the numpy functions below this module build it via _dispatch
