"""Python's operators, and the methods that only forward their arguments, on the NumPy
dialect's arrays and symbols: one table for both
(`mx.np.ndarray` and `mx.sym.np._Symbol`), each operator the `mx.np` function NumPy gives it
(``a + b`` is ``np.add(a, b)``), which computes on arrays and builds a node on symbols.

Example::

    a = mx.np.array([1.0, 2.0])
    (a + 1) * a       # np.multiply(np.add(a, 1), a): array([2., 6.])
"""
from . import _functions as _f

__all__ = ["NumpyOperators"]


class NumpyOperators:
    """The arithmetic, comparison and bitwise operators of the NumPy dialect, as its
    functions, and `reshape`/`transpose` with NumPy's argument forms (a mixin placed before
    `NDArray` or `Symbol`, whose own are the legacy dialect's).

    Example::

        x = mx.sym.var("x").as_np_ndarray()
        y = -x ** 2       # np.negative(np.power(x, 2)), a numpy symbol
    """

    __slots__ = ()

    def __add__(self, o): return _f.add(self, o)
    def __radd__(self, o): return _f.add(o, self)
    def __sub__(self, o): return _f.subtract(self, o)
    def __rsub__(self, o): return _f.subtract(o, self)
    def __mul__(self, o): return _f.multiply(self, o)
    def __rmul__(self, o): return _f.multiply(o, self)
    def __truediv__(self, o): return _f.true_divide(self, o)
    def __rtruediv__(self, o): return _f.true_divide(o, self)
    def __mod__(self, o): return _f.mod(self, o)
    def __rmod__(self, o): return _f.mod(o, self)
    def __pow__(self, o): return _f.power(self, o)
    def __rpow__(self, o): return _f.power(o, self)
    def __matmul__(self, o): return _f.matmul(self, o)
    def __rmatmul__(self, o): return _f.matmul(o, self)
    def __eq__(self, o): return _f.equal(self, o)
    def __ne__(self, o): return _f.not_equal(self, o)
    def __lt__(self, o): return _f.less(self, o)
    def __le__(self, o): return _f.less_equal(self, o)
    def __gt__(self, o): return _f.greater(self, o)
    def __ge__(self, o): return _f.greater_equal(self, o)
    def __and__(self, o): return _f.bitwise_and(self, o)
    def __or__(self, o): return _f.bitwise_or(self, o)
    def __xor__(self, o): return _f.bitwise_xor(self, o)
    def __neg__(self): return _f.negative(self)
    def __abs__(self): return _f.absolute(self)
    def __invert__(self): return _f.invert(self)

    def reshape(self, *args, **kwargs):
        """`np.reshape` of this array or symbol: ``reshape((2, 3))`` or ``reshape(2, 3)``.

        Raises:
            TypeError: no shape, or a keyword other than `order`.
            NotImplementedError: an order other than 'C'.
        """
        order = kwargs.pop("order", "C")
        if kwargs:
            raise TypeError(f"{next(iter(kwargs))!r} is an invalid keyword argument for this "
                            "function")
        if order != "C":
            raise NotImplementedError(f"reshape: only supports C-order, while received {order}")
        if not args:
            raise TypeError("reshape() takes exactly 1 argument (0 given)")
        shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return _f.reshape(self, shape)

    def transpose(self, *axes):
        """The axes permuted (reversed when none are given): ``transpose((1, 0))`` or
        ``transpose(1, 0)``."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return _f.transpose(self, axes or None)
