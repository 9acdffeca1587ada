"""Products and other math of MXNet's NumPy dialect: dot, matmul, tensordot, einsum, where
(with broadcasting and scalar branches), nan_to_num, polyval and ediff1d, each with NumPy's
shapes and its gradient."""
import string
from math import prod

import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import ShapeError, ShapeRule, register
from .rules import broadcast_shapes, norm_axis, unbroadcast
from .np_elemwise import promote
from ..util import is_np_default_dtype

__all__ = ["einsum_plan", "tensordot_axes"]


def _k(ins, i=0):
    return None if ins[i] is None else tuple(ins[i])


def _mixed_dtype(name):
    def rule(p, ins):
        if any(d is None for d in ins):
            return ins, [None]
        return ins, [promote("mixed", name, ins[0], ins[1])]
    return rule


def _cast2(name, a, b):
    dt = promote("mixed", name, a.dtype, b.dtype)
    return a.astype(dt, copy=False), b.astype(dt, copy=False), dt


# ---- tensordot -------------------------------------------------------------------------------
def tensordot_axes(name, a_ndim, b_ndim, a_axes, b_axes):
    """The summed axes of both operands, normalized, and checked to pair up.

    Args:
        name: the operator's name, starting the error messages.
        a_ndim: the first operand's number of dimensions.
        b_ndim: the second operand's number of dimensions.
        a_axes: the first operand's summed axes (negative count from the end).
        b_axes: the second operand's summed axes, paired with a_axes in order.

    Returns:
        (tuple, tuple): both axis tuples, non-negative.

    Raises:
        ShapeError: an axis out of range, or tuples of different lengths.

    Example::

        from gluonlite.ops.np_math import tensordot_axes
        tensordot_axes("tensordot", 3, 2, (-1,), (0,))     # ((2,), (0,))
    """
    a_axes = tuple(norm_axis(name, x, a_ndim) for x in a_axes)
    b_axes = tuple(norm_axis(name, x, b_ndim) for x in b_axes)
    if len(a_axes) != len(b_axes):
        raise ShapeError(f"{name}: shape-mismatch for sum: {a_axes} and {b_axes}")
    return a_axes, b_axes


def _tensordot_shape(name, a, b, a_axes, b_axes):
    for i, j in zip(a_axes, b_axes):
        if a[i] != b[j]:
            raise ShapeError(f"{name}: shape-mismatch for sum: a{tuple(a)} axis {i} and "
                             f"b{tuple(b)} axis {j}")
    return tuple(d for i, d in enumerate(a) if i not in a_axes) + \
        tuple(d for j, d in enumerate(b) if j not in b_axes)


def _tensordot_vjp(xp, a, b, g, a_axes, b_axes):
    """Gradients of tensordot(a, b, (a_axes, b_axes)) for output gradient g."""
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [j for j in range(b.ndim) if j not in b_axes]
    na = len(a_free)
    g_a_free = list(range(na))
    g_b_free = list(range(na, na + len(b_free)))
    # ga[a_free, a_axes] = sum over b_free of g[a_free, b_free] * b[b_axes, b_free]
    # -> a_free, then b's summed axes in b's order (each the a axis it pairs with)
    ga = xp.tensordot(g, b, axes=(g_b_free, b_free))
    order_a = a_free + [a_axes[list(b_axes).index(j)] for j in sorted(b_axes)]
    ga = xp.transpose(ga, tuple(int(i) for i in np.argsort(order_a)))
    # -> a's summed axes in a's order (each the b axis it pairs with), then b_free
    gb = xp.tensordot(a, g, axes=(a_free, g_a_free))
    order_b = [b_axes[list(a_axes).index(i)] for i in sorted(a_axes)] + b_free
    gb = xp.transpose(gb, tuple(int(i) for i in np.argsort(order_b)))
    return ga, gb


def _axes_attrs(p, a_ndim, b_ndim):
    return tensordot_axes("_npi_tensordot", a_ndim, b_ndim, p.a_axes_summed, p.b_axes_summed)


def _int_axes(p, a_ndim, b_ndim):
    n = p.axes
    if n < 0 or n > a_ndim or n > b_ndim:
        raise ShapeError(f"_npi_tensordot_int_axes: axes={n} does not fit operands of "
                         f"{a_ndim} and {b_ndim} dimensions")
    return tuple(range(a_ndim - n, a_ndim)), tuple(range(n))


def _register_tensordot(name, axes_of, attrs):
    def shape(p, ins):
        a, b = ins
        if a is None or b is None:
            return ins, [None]
        aa, ba = axes_of(p, len(a), len(b))
        a, b = _pair_dims(name, a, b, aa, ba)
        return [a, b], [_tensordot_shape(name, a, b, aa, ba)]

    def kernel(p, rc, a, b):
        aa, ba = axes_of(p, a.ndim, b.ndim)
        _tensordot_shape(name, a.shape, b.shape, aa, ba)
        a, b, dt = _cast2(name, a, b)
        return rc.xp.asarray(rc.xp.tensordot(a, b, axes=(aa, ba))).astype(dt, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        a, b = xs
        aa, ba = axes_of(p, a.ndim, b.ndim)
        dt = ys[0].dtype
        ga, gb = _tensordot_vjp(rc.xp, a.astype(dt), b.astype(dt), gys[0], aa, ba)
        return ga.astype(a.dtype), gb.astype(b.dtype)

    kernel.__doc__ = f"{name}(a, b, ...): NumPy's tensordot."
    register(name, inputs=("a", "b"), attrs=attrs, shape=ShapeRule(shape, partial=True),
             vjp=vjp, same_dtype=(), dtype=_mixed_dtype(name))(kernel)


_register_tensordot("_npi_tensordot", _axes_attrs,
                    {"a_axes_summed": A.Shape(), "b_axes_summed": A.Shape()})
_register_tensordot("_npi_tensordot_int_axes", _int_axes, {"axes": A.Int()})


# ---- dot -------------------------------------------------------------------------------------
def _dot_axes(a_ndim, b_ndim):
    if a_ndim == 0 or b_ndim == 0:
        return (), ()
    return (a_ndim - 1,), (max(b_ndim - 2, 0),)


def _pair_dims(name, a, b, a_axes, b_axes):
    """a and b with each summed dimension known on one side copied to the other (-1 is an
    unknown dimension: partly known shapes, as the shape rules below take them).

    Raises:
        ShapeError: two known summed dimensions that differ.
    """
    a, b = list(a), list(b)
    for i, j in zip(a_axes, b_axes):
        if a[i] == -1:
            a[i] = b[j]
        elif b[j] == -1:
            b[j] = a[i]
        elif a[i] != b[j]:
            raise ShapeError(f"{name}: shape-mismatch for sum: a{tuple(a)} axis {i} and "
                             f"b{tuple(b)} axis {j}")
    return tuple(a), tuple(b)


def _dot_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    aa, ba = _dot_axes(len(a), len(b))
    try:
        a, b = _pair_dims("_np_dot", a, b, aa, ba)
        return [a, b], [_tensordot_shape("_np_dot", a, b, aa, ba)]
    except ShapeError:
        raise ShapeError(f"_np_dot: shapes {tuple(a)} and {tuple(b)} not aligned") from None


# the shape rule fills a summed dimension known on one side (a weight's)
@register("_np_dot", inputs=("a", "b"), shape=ShapeRule(_dot_shape, partial=True),
          same_dtype=(), dtype=_mixed_dtype("_np_dot"),
          vjp=lambda p, rc, xs, ys, gys, need: _dot_vjp(rc.xp, xs, ys, gys))
def _np_dot(p, rc, a, b):
    """_np_dot(a, b): NumPy's dot (inner product of 1-D arrays, matrix product of 2-D ones,
    the sum over a's last and b's second-to-last axis otherwise; a 0-d operand scales)."""
    _dot_shape(p, [a.shape, b.shape])
    a, b, dt = _cast2("_np_dot", a, b)
    return rc.xp.asarray(rc.xp.dot(a, b)).astype(dt, copy=False)


def _dot_vjp(xp, xs, ys, gys):
    a, b = xs
    dt = ys[0].dtype
    aa, ba = _dot_axes(a.ndim, b.ndim)
    ga, gb = _tensordot_vjp(xp, a.astype(dt), b.astype(dt), gys[0], aa, ba)
    return ga.astype(a.dtype), gb.astype(b.dtype)


# ---- matmul ----------------------------------------------------------------------------------
def _matmul_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    a, b = tuple(a), tuple(b)
    if not a or not b:
        raise ShapeError("_npi_matmul: matmul does not take 0-d operands (use multiply)")
    a, b = _pair_dims("_npi_matmul", a, b, (len(a) - 1,), (max(len(b) - 2, 0),))
    ins = [a, b]
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ShapeError(f"_npi_matmul: input operand 1 has a mismatch in its core dimension "
                         f"0 (shapes {a} and {b})")
    batch = _broadcast_partial("_npi_matmul", a2[:-2], b2[:-2])
    out = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return ins, [out]


def _broadcast_partial(name, a, b):
    """Broadcast two partly known shapes (-1 unknown: the other side's size when known)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == -1 or y == -1:
            out.append(-1 if (x == -1 and y in (-1, 1)) or (y == -1 and x in (-1, 1))
                       else max(x, y))
        elif x != y and 1 not in (x, y):
            raise ShapeError(f"{name}: shapes {a} and {b} cannot be broadcast together")
        else:
            out.append(y if x == 1 else x)
    return tuple(out)


@register("_npi_matmul", inputs=("a", "b"), shape=ShapeRule(_matmul_shape, partial=True),
          same_dtype=(), dtype=_mixed_dtype("_npi_matmul"),
          vjp=lambda p, rc, xs, ys, gys, need: _matmul_vjp(rc.xp, xs, ys, gys))
def _np_matmul(p, rc, a, b):
    """_npi_matmul(a, b): NumPy's matmul (batched over leading axes, with broadcasting; a
    1-D operand is a row or a column)."""
    _matmul_shape(p, [a.shape, b.shape])
    a, b, dt = _cast2("_npi_matmul", a, b)
    return rc.xp.asarray(rc.xp.matmul(a, b)).astype(dt, copy=False)


def _matmul_vjp(xp, xs, ys, gys):
    a, b = xs
    dt = ys[0].dtype
    a2 = a.astype(dt).reshape((1,) + a.shape) if a.ndim == 1 else a.astype(dt)
    b2 = b.astype(dt).reshape(b.shape + (1,)) if b.ndim == 1 else b.astype(dt)
    # the output gradient with the matrix axes a 1-D operand dropped put back
    full = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1])
    g = gys[0].reshape(full)
    ga = xp.matmul(g, xp.swapaxes(b2, -1, -2))
    gb = xp.matmul(xp.swapaxes(a2, -1, -2), g)
    ga = unbroadcast(ga, a2.shape).reshape(a.shape)
    gb = unbroadcast(gb, b2.shape).reshape(b.shape)
    return ga.astype(a.dtype), gb.astype(b.dtype)


# ---- einsum ----------------------------------------------------------------------------------
def einsum_plan(subscripts, shapes):
    """(input subscripts, output subscript) of einsum `subscripts` for operands of `shapes`,
    with '...' replaced by letters and the implicit output made explicit.

    Raises:
        ValueError: operands that do not match the subscripts.

    Example::

        from gluonlite.ops.np_math import einsum_plan
        einsum_plan("ij,jk", [(2, 3), (3, 4)])      # (['ij', 'jk'], 'ik')
    """
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->")
        explicit = True
    else:
        ins, out, explicit = s, "", False
    ins = ins.split(",")
    if len(ins) != len(shapes):
        raise MXNetValueError(f"_npi_einsum: {len(ins)} operand subscripts for "
                              f"{len(shapes)} operands in {subscripts!r}")
    used = set(c for c in s if c.isalpha())
    spare = [c for c in string.ascii_letters if c not in used]
    ell_n = 0
    for term, shp in zip(ins, shapes):
        if "..." in term:
            ell_n = max(ell_n, len(shp) - (len(term) - 3))
    ell = "".join(spare[:ell_n])
    new_ins = []
    for term, shp in zip(ins, shapes):
        if "..." in term:
            k = len(shp) - (len(term) - 3)
            term = term.replace("...", ell[ell_n - k:] if k else "")
        if len(term) != len(shp):
            raise MXNetValueError(f"_npi_einsum: operand of shape {tuple(shp)} does not match "
                                  f"subscript {term!r} of {subscripts!r}")
        new_ins.append(term)
    if explicit:
        out = out.replace("...", ell)
    else:
        counts = {}
        for term in new_ins:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return new_ins, out


def _einsum_shape(p, ins):
    if any(s is None for s in ins):
        return ins, [None]
    terms, out = einsum_plan(p.subscripts, ins)
    sizes = {}
    for term, shp in zip(terms, ins):
        for c, d in zip(term, shp):
            if c in sizes and sizes[c] != d and 1 not in (sizes[c], d):
                raise ShapeError(f"_npi_einsum: size of label {c!r} differs between operands "
                                 f"({sizes[c]} and {d}) in {p.subscripts!r}")
            sizes[c] = max(sizes.get(c, d), d)
    return ins, [tuple(sizes[c] for c in out)]


def _einsum_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    terms, out = einsum_plan(p.subscripts, [x.shape for x in xs])
    g = gys[0]
    grads = []
    bsizes = {}  # each letter's size after broadcasting (an operand may hold it as 1)
    for term, shape in [(t, x.shape) for t, x in zip(terms, xs)] + [(out, g.shape)]:
        for c, n in zip(term, shape):
            bsizes[c] = n if bsizes.get(c, 1) == 1 else bsizes[c]
    for i, (term, x) in enumerate(zip(terms, xs)):
        if not need[i]:
            grads.append(None)
            continue
        present = set(out) | set(c for j, t in enumerate(terms) if j != i for c in t)
        uniq = "".join(dict.fromkeys(term))
        target = "".join(c for c in uniq if c in present)
        spec = ",".join([out] + [t for j, t in enumerate(terms) if j != i]) + "->" + target
        gi = xp.einsum(spec, g, *[t for j, t in enumerate(xs) if j != i])
        sizes = dict(zip(term, x.shape))
        # letters summed over this operand alone: the gradient is constant along them
        gi = gi.reshape(tuple(bsizes[c] if c in target else 1 for c in uniq))
        gi = xp.broadcast_to(gi, tuple(bsizes[c] if c in target else sizes[c] for c in uniq))
        # letters this operand holds as 1 and others broadcast: summed back
        bcast = tuple(k for k, c in enumerate(uniq) if sizes[c] == 1 and gi.shape[k] != 1)
        if bcast:
            gi = gi.sum(axis=bcast, keepdims=True)
        if len(uniq) != len(term):  # repeated letters: only the diagonal gets the gradient
            full = xp.zeros(x.shape, g.dtype)
            idx = np.indices(x.shape).reshape(x.ndim, -1)
            keep = np.ones(idx.shape[1], bool)
            for c in set(term):
                axes = [k for k, t in enumerate(term) if t == c]
                for k in axes[1:]:
                    keep &= idx[k] == idx[axes[0]]
            sel = idx[:, keep]
            src = tuple(sel[term.index(c)] for c in uniq)
            full[tuple(sel)] = gi[src]
            gi = full
        grads.append(unbroadcast(gi, x.shape).astype(x.dtype))
    return tuple(grads)


@register("_npi_einsum", variadic="num_args",
          attrs={"num_args": A.Int(), "subscripts": A.Str(), "optimize": A.Int(0)},
          shape=_einsum_shape, vjp=_einsum_vjp)
def _np_einsum(p, rc, *xs):
    """_npi_einsum(*operands, subscripts, optimize=0): Einstein summation (NumPy's einsum,
    '...' broadcasting and the implicit output form included)."""
    return rc.xp.asarray(rc.xp.einsum(p.subscripts, *xs, optimize=bool(p.optimize)))


# ---- where -----------------------------------------------------------------------------------
def _where_dtype(p, ins):
    c, x, y = ins
    if x is None or y is None:
        return ins, [x if x is not None else y]
    if x != y:
        raise MXNetValueError(f"_npi_where: x and y must have the same dtype, got {x} and {y}")
    return ins, [x]


def _where3_shape(p, ins):
    if any(s is None for s in ins):
        return ins, [None]
    s = broadcast_shapes("_npi_where", broadcast_shapes("_npi_where", ins[0], ins[1]), ins[2])
    return ins, [s]


@register("_npi_where", inputs=("condition", "x", "y"), nondiff=("condition",),
          same_dtype=("x", "y"), shape=_where3_shape, dtype=_where_dtype,
          vjp=lambda p, rc, xs, ys, gys, need: (
              None, unbroadcast(gys[0] * (xs[0] != 0), xs[1].shape),
              unbroadcast(gys[0] * (xs[0] == 0), xs[2].shape)))
def _np_where(p, rc, c, x, y):
    """_npi_where(condition, x, y): x where condition is true, else y, all broadcast."""
    return rc.xp.where(c != 0, x, y)


def _where2_shape(p, ins):
    if any(s is None for s in ins):
        return ins, [None]
    return ins, [broadcast_shapes("_npi_where", ins[0], ins[1])]


@register("_npi_where_lscalar", inputs=("condition", "x"), attrs={"scalar": A.Float()},
          nondiff=("condition",), same_dtype=(), shape=_where2_shape,
          dtype=lambda p, ins: (ins, [ins[1]]),
          vjp=lambda p, rc, xs, ys, gys, need: (
              None, unbroadcast(gys[0] * (xs[0] == 0), xs[1].shape)))
def _np_where_lscalar(p, rc, c, y):
    """_npi_where_lscalar(condition, y, scalar): `scalar` where condition is true, else y."""
    return rc.xp.where(c != 0, y.dtype.type(p.scalar), y)


@register("_npi_where_rscalar", inputs=("condition", "y"), attrs={"scalar": A.Float()},
          nondiff=("condition",), same_dtype=(), shape=_where2_shape,
          dtype=lambda p, ins: (ins, [ins[1]]),
          vjp=lambda p, rc, xs, ys, gys, need: (
              None, unbroadcast(gys[0] * (xs[0] != 0), xs[1].shape)))
def _np_where_rscalar(p, rc, c, x):
    """_npi_where_rscalar(condition, x, scalar): x where condition is true, else `scalar`."""
    return rc.xp.where(c != 0, x, x.dtype.type(p.scalar))


def _default_float():
    return np.dtype(np.float64 if is_np_default_dtype() else np.float32)


@register("_npi_where_scalar2", inputs=("condition",), attrs={"x": A.Float(), "y": A.Float()},
          nondiff=("condition",), shape=lambda p, ins: (ins, [_k(ins)]),
          dtype=lambda p, ins: (ins, [_default_float()]))
def _np_where_scalar2(p, rc, c):
    """_npi_where_scalar2(condition, x, y): the number x where condition is true, else y
    (float32)."""
    dt = _default_float()
    return rc.xp.where(c != 0, dt.type(p.x), dt.type(p.y))


# ---- nan_to_num, polyval, ediff1d ------------------------------------------------------------
@register("_npi_nan_to_num", attrs={"copy": A.Bool(True), "nan": A.Float(0.0),
                                    "posinf": A.OptionalFloat(), "neginf": A.OptionalFloat()},
          shape=lambda p, ins: (ins, [_k(ins)]),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0] * rc.xp.isfinite(xs[0]),))
def _np_nan_to_num(p, rc, data):
    """_npi_nan_to_num(data, copy=True, nan=0.0, posinf=None, neginf=None): nan and
    infinities replaced by finite numbers (the dtype's largest by default)."""
    if data.dtype.kind != "f":
        return data.copy()
    return rc.xp.nan_to_num(data, copy=True, nan=p.nan, posinf=p.posinf, neginf=p.neginf)


def _polyval_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    coef, x = xs
    g = gys[0]
    n = coef.shape[0]
    powers = xp.stack([x ** (n - 1 - i) for i in range(n)]) if n else xp.zeros((0,) + x.shape)
    gc = (powers * g).reshape(n, -1).sum(axis=1).astype(coef.dtype)
    deriv = xp.zeros_like(x)
    for i in range(n - 1):
        deriv = deriv * x + coef[i] * (n - 1 - i)
    return gc, (g * deriv).astype(x.dtype)


@register("_npi_polyval", inputs=("p", "x"),
          shape=lambda p, ins: (ins, [None if ins[1] is None else tuple(ins[1])]),
          vjp=_polyval_vjp)
def _np_polyval(p, rc, coef, x):
    """_npi_polyval(p, x): the polynomial with coefficients p (highest power first) at x."""
    if coef.ndim != 1:
        raise MXNetValueError(f"_npi_polyval: p must be 1-D, got shape {coef.shape}")
    y = rc.xp.zeros_like(x)
    for c in coef:
        y = y * x + c
    return y


def _ediff_inputs(p):
    names = ["input1"]
    if p.to_begin_arr_given:
        names.append("input2")
    if p.to_end_arr_given:
        names.append("input3")
    return names


def _ediff_parts(p, xs):
    x = xs[0].reshape(-1)
    k = 1
    begin = end = None
    if p.to_begin_arr_given:
        begin, k = xs[k].reshape(-1), k + 1
    elif p.to_begin_scalar is not None:
        begin = np.array([p.to_begin_scalar])
    if p.to_end_arr_given:
        end = xs[k].reshape(-1)
    elif p.to_end_scalar is not None:
        end = np.array([p.to_end_scalar])
    return x, begin, end


def _ediff_shape(p, ins):
    if any(s is None for s in ins):
        return ins, [None]
    n = max(prod(ins[0]) - 1, 0)
    k = 1
    if p.to_begin_arr_given:
        n, k = n + prod(ins[k]), k + 1
    elif p.to_begin_scalar is not None:
        n += 1
    if p.to_end_arr_given:
        n += prod(ins[k])
    elif p.to_end_scalar is not None:
        n += 1
    return ins, [(n,)]


def _ediff_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x, begin, end = _ediff_parts(p, xs)
    g = gys[0]
    nb = 0 if begin is None else begin.size
    gd = g[nb:nb + max(x.size - 1, 0)]
    gx = xp.zeros(x.size, g.dtype)
    if x.size > 1:
        gx[1:] += gd
        gx[:-1] -= gd
    out = [gx.reshape(xs[0].shape).astype(xs[0].dtype)]
    if p.to_begin_arr_given:
        out.append(g[:nb].reshape(xs[1].shape).astype(xs[1].dtype))
    if p.to_end_arr_given:
        out.append(g[nb + max(x.size - 1, 0):].reshape(xs[-1].shape).astype(xs[-1].dtype))
    return tuple(out)


@register("_npi_ediff1d", inputs=_ediff_inputs, signature=("input1", "input2", "input3"),
          attrs={"to_begin_arr_given": A.Bool(False), "to_end_arr_given": A.Bool(False),
                 "to_begin_scalar": A.OptionalFloat(), "to_end_scalar": A.OptionalFloat()},
          shape=_ediff_shape, vjp=_ediff_vjp, same_dtype=())
def _np_ediff1d(p, rc, *xs):
    """_npi_ediff1d(ary, to_begin=None, to_end=None): the differences between consecutive
    elements of the flattened array, with `to_begin` / `to_end` (arrays or numbers) around."""
    x, begin, end = _ediff_parts(p, xs)
    parts = ([] if begin is None else [rc.xp.asarray(begin).astype(x.dtype)]) + \
        [rc.xp.diff(x)] + ([] if end is None else [rc.xp.asarray(end).astype(x.dtype)])
    return rc.xp.concatenate(parts).astype(x.dtype, copy=False)
