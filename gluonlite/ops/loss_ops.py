"""The loss-marking operators: ``make_loss`` and ``MakeLoss`` (identity forward; the
gradient of a loss head, whatever gradient arrives from above).

- ``make_loss(data)``: its gradient is ones (MXNet's ``ones_like`` gradient).
- ``MakeLoss(data, grad_scale=1, valid_thresh=0, normalization='null')``: its gradient is
  ``grad_scale``, divided by the batch size (``'batch'``: ``data.shape[0]``) or by the number
  of elements above ``valid_thresh`` (``'valid'``, at least 1).
"""
from . import attrs as A
from .registry import register
from .rules import same_shape

__all__ = []


def _make_loss(p, rc, x):
    """make_loss(data): `data` unchanged; a head whose gradient is ones."""
    return x.copy()


register("make_loss", shape=same_shape("make_loss"),
         vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.ones_like(xs[0]),))(_make_loss)


def _makeloss_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    scale = p.grad_scale
    if p.normalization == "batch":
        scale = scale / x.shape[0]
    elif p.normalization == "valid":
        count = (x > p.valid_thresh).sum()
        return (rc.xp.full_like(x, scale) / rc.xp.maximum(count, 1).astype(x.dtype),)
    return (rc.xp.full_like(x, scale),)


def _makeloss(p, rc, x):
    """MakeLoss(data, grad_scale=1, valid_thresh=0, normalization='null'): `data`
    unchanged; its gradient is grad_scale (normalized by the batch size or the count of
    elements above valid_thresh), whatever gradient arrives from above."""
    return x.copy()


register("MakeLoss", shape=same_shape("MakeLoss"), vjp=_makeloss_vjp,
         attrs={"grad_scale": A.Float(1.0), "valid_thresh": A.Float(0.0),
                "normalization": A.Enum("null", "batch", "valid", default="null")})(_makeloss)
