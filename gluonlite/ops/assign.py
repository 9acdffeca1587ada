"""Region assignment operators, from one table: the input with the region
``begin:end:step`` (one entry per leading axis, None for a whole axis, as `slice` takes them)
replaced, MXNet's ``_slice_assign`` / ``_slice_assign_scalar`` (also named ``_crop_assign``
and ``_crop_assign_scalar``). ``nd._internal._slice_assign(x, v, begin=..., end=...,
out=x)`` is how MXNet writes ``x[region] = v`` in place.

Gradients: the replaced region of the input gets none; the assigned value gets the region
of the output's gradient.
"""
from . import attrs as A
from .registry import ShapeError, register
from .shape import _opt_tuple, _slice_shape, _slices

_REGION = {"begin": A.Attr(_opt_tuple), "end": A.Attr(_opt_tuple),
           "step": A.Attr(_opt_tuple, ())}


def _assign_array(p, rc, lhs, rhs):
    out = lhs.copy()
    out[_slices(p, out.shape)] = rhs
    return out


def _assign_scalar(p, rc, data):
    out = data.copy()
    out[_slices(p, out.shape)] = p.scalar
    return out


def _assign_shape(name):
    def rule(p, ins):
        if ins[0] is None:
            return ins, [None]
        region = _slice_shape(p, ins[:1])[1][0]
        if len(ins) == 2 and ins[1] is not None and tuple(ins[1]) != region:
            raise ShapeError(f"{name}: rhs of shape {tuple(ins[1])} does not fit the region "
                             f"{region} of lhs {tuple(ins[0])} (begin {p.begin}, end {p.end}, "
                             f"step {p.step})")
        return [tuple(ins[0])] + [region] * (len(ins) - 1), [tuple(ins[0])]
    return rule


def _assign_vjp(p, rc, xs, ys, gys, need):
    region = _slices(p, gys[0].shape)
    g = gys[0].copy()
    g[region] = 0
    return (g,) + tuple(gys[0][region].copy() for _ in xs[1:])


def _region_dtype(p, ins):
    d = next((x for x in ins if x is not None), None)
    return [d] * len(ins), [d]


# name: (MXNet's other name, inputs, kernel, extra attributes, what it gives)
_TABLE = {
    "_slice_assign": ("_crop_assign", ("lhs", "rhs"), _assign_array, {},
                      "lhs with the region replaced by rhs (of the region's shape)"),
    "_slice_assign_scalar": ("_crop_assign_scalar", ("data",), _assign_scalar,
                             {"scalar": A.Float(0.0)},
                             "data with every element of the region set to scalar"),
}


def _define(name, alias, inputs, kernel, extra, what):
    kernel.__doc__ = (f"{name}({', '.join(inputs)}, begin, end, step=()"
                      f"{', scalar=0' if extra else ''}): {what}.")
    register(name, aliases=(alias,), inputs=inputs, attrs={**_REGION, **extra},
             shape=_assign_shape(name), dtype=_region_dtype,
             same_dtype=inputs if len(inputs) > 1 else None, vjp=_assign_vjp)(kernel)


for _name, _row in _TABLE.items():
    _define(_name, *_row)
