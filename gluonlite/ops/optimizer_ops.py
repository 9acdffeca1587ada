"""The optimizer update operators (``sgd_update``, ``adam_update``, ...), one table.

Each operator takes the weight, its gradient and the optimizer's state arrays, returns the
new weight and updates the state arrays in place, as MXNet's fused kernels do (MXNet declares
them with ``FMutateInputs``; here they are the operator's auxiliary inputs, never given a
gradient). Callers write the new weight back with ``out=weight``::

    nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9, out=w)   # mom changes in place

The ``mp_`` variants keep a float32 master copy (``weight32``, updated in place) for a
float16 weight and return it cast to the weight's dtype. Every operator is
non-differentiable. Shared attributes keep MXNet's names and defaults: ``rescale_grad``
multiplies the gradient first, ``clip_gradient`` (off when negative) clips it to
``[-c, c]``, ``wd`` is the L2 weight decay; ``lazy_update`` only matters for sparse storage.
"""
import numpy as np

from . import attrs as A
from . import optimizer_fast
from .fast import Fast
from .registry import ShapeError, register, Params
from .rules import fmt_shapes
from .sparse.updates import update_rule

__all__ = []

F32 = np.dtype(np.float32)


def _float_tuple(v):
    if isinstance(v, str):
        v = A._literal(v)
    if isinstance(v, (int, float)):
        v = (v,)
    return tuple(float(x) for x in v)


def FloatTuple(default=A.REQUIRED):
    """A tuple of floats (MXNet's ``Tuple<float>``: ``lrs``, ``wds``).

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives a tuple of floats.

    Example::

        from gluonlite.ops.optimizer_ops import FloatTuple
        FloatTuple().parse("(0.1, 0.01)")      # (0.1, 0.01)
    """
    return A.Attr(_float_tuple, default, "tuple")


def _clip(x, c, xp):
    return xp.clip(x, -c, c) if c >= 0 else x


def _scaled(p, g, xp, w=None, wd_first=False):
    """rescale_grad * grad, clipped; with `wd_first` the weight decay is added before the
    clip (Adam, RMSProp, FTML) instead of by the caller after it (SGD, NAG)."""
    g = p.rescale_grad * g
    if wd_first:
        g = g + p.wd * w
    return _clip(g, p.clip_gradient, xp)


def _up(g, w32):
    """The gradient in the master copy's precision (float32 wherever MXNet accepts the call)."""
    return g.astype(w32.dtype, copy=False)


# ---- the update rules: fn(p, xp, weight, grad, *states) -> new weight -----------------
def _sgd_grad_term(p, xp, g, lr):
    """The gradient's term of SGD's update, as MXNet's kernels order it: (lr * rescale_grad)
    * g without clipping (the scalars' product rounded once), lr * clip(rescale_grad * g)
    with it."""
    rescale, clip = optimizer_fast.kernel_scalars(g, p.rescale_grad, p.clip_gradient)
    if p.clip_gradient >= 0:
        return lr * xp.clip(rescale * g, -clip, clip)
    return (lr * rescale) * g


def _sgd(p, xp, w, g):
    lr, wd = optimizer_fast.kernel_scalars(w, p.lr, p.wd)
    return (w.dtype.type(1) - lr * wd) * w - _sgd_grad_term(p, xp, g, lr)


def _sgd_mom(p, xp, w, g, mom):
    lr, wd, momentum = optimizer_fast.kernel_scalars(w, p.lr, p.wd, p.momentum)
    mom[...] = momentum * mom
    if optimizer_fast.decays(p):
        mom -= (lr * wd) * w
    mom -= _sgd_grad_term(p, xp, g, lr)
    return w + mom


def _mp_sgd(p, xp, w, g, w32):
    w32[...] = _sgd(p, xp, w32, _up(g, w32))
    return w32


def _mp_sgd_mom(p, xp, w, g, mom, w32):
    w32[...] = _sgd_mom(p, xp, w32, _up(g, w32), mom)
    return w32


def _nag_mom(p, xp, w, g, mom):
    g = _scaled(p, g, xp)
    mom *= p.momentum
    new = w - mom + (p.momentum + 1) * (mom - p.lr * (g + p.wd * w))
    # MXNet's kernels decay the momentum with the weight already updated (its mp_ kernel
    # always, its plain one through out=weight, as every optimizer step calls it)
    mom -= p.lr * (g + p.wd * new)
    return new


def _mp_nag_mom(p, xp, w, g, mom, w32):
    w32[...] = _nag_mom(p, xp, w32, _up(g, w32), mom)
    return w32


def _ftml(p, xp, w, g, d, v, z):
    g = _clip(p.rescale_grad * g + p.wd * w, p.clip_grad, xp)
    v[...] = p.beta2 * v + (1 - p.beta2) * g * g
    d_t = (1 - p.beta1 ** p.t) / p.lr * (xp.sqrt(v / (1 - p.beta2 ** p.t)) + p.epsilon)
    z[...] = p.beta1 * z + (1 - p.beta1) * g - (d_t - p.beta1 * d) * w
    d[...] = d_t
    return -z / d_t


def _adam(p, xp, w, g, mean, var):
    g = _scaled(p, g, xp, w, wd_first=True)
    mean[...] = p.beta1 * mean + (1 - p.beta1) * g
    var[...] = p.beta2 * var + (1 - p.beta2) * g * g
    return w - p.lr * mean / (xp.sqrt(var) + p.epsilon)


def _rmsprop(p, xp, w, g, n):
    g = _scaled(p, g, xp, w, wd_first=True)
    n[...] = (1 - p.gamma1) * (g * g) + p.gamma1 * n
    new = w - p.lr * (g / xp.sqrt(n + p.epsilon))
    return _clip(new, p.clip_weights, xp)


def _rmspropalex(p, xp, w, g, n, gm, delta):
    g = _scaled(p, g, xp, w, wd_first=True)
    n[...] = (1 - p.gamma1) * g * g + p.gamma1 * n
    gm[...] = (1 - p.gamma1) * g + p.gamma1 * gm
    delta[...] = p.gamma2 * delta - p.lr * g / xp.sqrt(n - gm * gm + p.epsilon)
    return _clip(w + delta, p.clip_weights, xp)


def _ftrl(p, xp, w, g, z, n):
    g = _scaled(p, g, xp)
    z += g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * w / p.lr
    n += g * g
    return ((xp.sign(z) * p.lamda1 - z) / ((p.beta + xp.sqrt(n)) / p.lr + p.wd)
            * (xp.abs(z) > p.lamda1))


def _signsgd(p, xp, w, g):
    # MXNet's kernel reads neither rescale_grad nor clip_gradient: only the sign matters
    return (1 - p.lr * p.wd) * w - p.lr * xp.sign(g)


def _signum(p, xp, w, g, mom):
    mom[...] = (p.momentum * mom - (1 - p.momentum) * p.wd * w
                - (1 - p.momentum) * _scaled(p, g, xp))
    return (1 - p.lr * p.wd_lh) * w + p.lr * xp.sign(mom)


def _lamb1_dir(p, xp, w, g, mean, var):
    g = _scaled(p, g, xp)
    mean[...] = p.beta1 * mean + (1 - p.beta1) * g
    var[...] = p.beta2 * var + (1 - p.beta2) * g * g
    m, v = mean, var
    if p.bias_correction:
        m = mean / (1 - p.beta1 ** p.t)
        v = var / (1 - p.beta2 ** p.t)
    return m / (xp.sqrt(v) + p.epsilon) + p.wd * w


def _lamb1(p, xp, w, g, mean, var):
    return _lamb1_dir(p, xp, w, g, mean, var)


def _mp_lamb1(p, xp, w, g, mean, var, w32):
    return _lamb1_dir(p, xp, w32, _up(g, w32), mean, var)


def _trust_lr(p, xp, r1, r2):
    """lr * r1 / r2 (r1 clamped to the bounds), or lr where either norm is zero; a (1,) array
    so the ratio stays on the arrays' device."""
    r1, r2 = r1.reshape(1), r2.reshape(1)
    if p.lower_bound >= 0:
        r1 = xp.maximum(r1, p.lower_bound)
    if p.upper_bound >= 0:
        r1 = xp.minimum(r1, p.upper_bound)
    ok = (r1 != 0) & (r2 != 0)
    return p.lr * xp.where(ok, r1 / xp.where(ok, r2, 1), 1)


def _lamb2(p, xp, w, g, r1, r2):
    return w - _trust_lr(p, xp, r1, r2).astype(w.dtype) * g


def _mp_lamb2(p, xp, w, g, r1, r2, w32):
    w32[...] = w32 - _trust_lr(p, xp, r1, r2).astype(w32.dtype) * g
    return w32


def _adamw(p, xp, w, g, mean, var, rescale):
    # A non-finite or zero rescale_grad (a dynamic loss scaler's overflow) skips the step.
    s = rescale.reshape(1).astype(w.dtype)
    ok = xp.isfinite(s) & (s != 0)
    g = _clip(xp.where(ok, s, 0) * g, p.clip_gradient, xp)
    mean[...] = xp.where(ok, p.beta1 * mean + (1 - p.beta1) * g, mean)
    var[...] = xp.where(ok, p.beta2 * var + (1 - p.beta2) * g * g, var)
    new = w - p.eta * (p.lr * mean / (xp.sqrt(var) + p.epsilon) + p.wd * w)
    return xp.where(ok, new, w)


def _mp_adamw(p, xp, w, g, mean, var, w32, rescale):
    w32[...] = _adamw(p, xp, w32, _up(g, w32), mean, var, rescale)
    return w32


# ---- attributes -------------------------------------------------------------------------
def _common(lr=True, wd=0.0, clip="clip_gradient"):
    a = {"lr": A.Float()} if lr else {}
    if wd is not None:
        a["wd"] = A.Float(wd)
    a["rescale_grad"] = A.Float(1.0)
    a[clip] = A.Float(-1.0)
    return a


_LAZY = {"lazy_update": A.Bool(True)}
_SGD = {**_common(), **_LAZY}
_SGD_MOM = {"lr": A.Float(), "momentum": A.Float(0.0), "wd": A.Float(0.0),
            "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0), **_LAZY}
_NAG = {"lr": A.Float(), "momentum": A.Float(0.0), "wd": A.Float(0.0),
        "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0)}
_FTML = {"lr": A.Float(), "beta1": A.Float(0.6), "beta2": A.Float(0.999),
         "epsilon": A.Float(1e-8), "t": A.Int(), "wd": A.Float(0.0),
         "rescale_grad": A.Float(1.0), "clip_grad": A.Float(-1.0)}
_ADAM = {"lr": A.Float(), "beta1": A.Float(0.9), "beta2": A.Float(0.999),
         "epsilon": A.Float(1e-8), "wd": A.Float(0.0), "rescale_grad": A.Float(1.0),
         "clip_gradient": A.Float(-1.0), **_LAZY}
_RMSPROP = {"lr": A.Float(), "gamma1": A.Float(0.95), "epsilon": A.Float(1e-8),
            "wd": A.Float(0.0), "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0),
            "clip_weights": A.Float(-1.0)}
_RMSPROPALEX = {"lr": A.Float(), "gamma1": A.Float(0.95), "gamma2": A.Float(0.9),
                "epsilon": A.Float(1e-8), "wd": A.Float(0.0), "rescale_grad": A.Float(1.0),
                "clip_gradient": A.Float(-1.0), "clip_weights": A.Float(-1.0)}
_FTRL = {"lr": A.Float(), "lamda1": A.Float(0.01), "beta": A.Float(1.0), "wd": A.Float(0.0),
         "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0)}
_SIGNUM = {"lr": A.Float(), "momentum": A.Float(0.0), "wd": A.Float(0.0),
           "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0),
           "wd_lh": A.Float(0.0)}
_LAMB1 = {"beta1": A.Float(0.9), "beta2": A.Float(0.999), "epsilon": A.Float(1e-6),
          "t": A.Int(), "bias_correction": A.Bool(True), "wd": A.Float(),
          "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0)}
_LAMB2 = {"lr": A.Float(), "lower_bound": A.Float(-1.0), "upper_bound": A.Float(-1.0)}
_ADAMW = {"lr": A.Float(), "beta1": A.Float(0.9), "beta2": A.Float(0.999),
          "epsilon": A.Float(1e-8), "wd": A.Float(0.0), "eta": A.Float(),
          "clip_gradient": A.Float(-1.0)}

# name: (inputs, states (mutated in place), float32 inputs of the mp_ variants, attrs, rule,
#        output dtype 'weight' or 'float32', aliases)
_W, _G = "weight", "grad"
TABLE = {
    "sgd_update": ((_W, _G), (), (), _SGD, _sgd),
    "sgd_mom_update": ((_W, _G, "mom"), ("mom",), (), _SGD_MOM, _sgd_mom),
    "mp_sgd_update": ((_W, _G, "weight32"), ("weight32",), ("weight32",), _SGD, _mp_sgd),
    "mp_sgd_mom_update": ((_W, _G, "mom", "weight32"), ("mom", "weight32"),
                          ("mom", "weight32"), _SGD_MOM, _mp_sgd_mom),
    "nag_mom_update": ((_W, _G, "mom"), ("mom",), (), _NAG, _nag_mom),
    "mp_nag_mom_update": ((_W, _G, "mom", "weight32"), ("mom", "weight32"),
                          ("mom", "weight32"), _NAG, _mp_nag_mom),
    "ftml_update": ((_W, _G, "d", "v", "z"), ("d", "v", "z"), (), _FTML, _ftml),
    "adam_update": ((_W, _G, "mean", "var"), ("mean", "var"), (), _ADAM, _adam),
    "rmsprop_update": ((_W, _G, "n"), ("n",), (), _RMSPROP, _rmsprop),
    "rmspropalex_update": ((_W, _G, "n", "g", "delta"), ("n", "g", "delta"), (),
                           _RMSPROPALEX, _rmspropalex),
    "ftrl_update": ((_W, _G, "z", "n"), ("z", "n"), (), _FTRL, _ftrl),
    "signsgd_update": ((_W, _G), (), (), _common(), _signsgd),
    "signum_update": ((_W, _G, "mom"), ("mom",), (), _SIGNUM, _signum),
    "lamb_update_phase1": ((_W, _G, "mean", "var"), ("mean", "var"), (), _LAMB1, _lamb1),
    "lamb_update_phase2": ((_W, "g", "r1", "r2"), (), (), _LAMB2, _lamb2),
    "mp_lamb_update_phase1": ((_W, _G, "mean", "var", "weight32"), ("mean", "var"),
                              ("mean", "var", "weight32"), _LAMB1, _mp_lamb1),
    "mp_lamb_update_phase2": ((_W, "g", "r1", "r2", "weight32"), ("weight32",),
                              ("g", "r1", "r2", "weight32"), _LAMB2, _mp_lamb2),
    "_adamw_update": ((_W, _G, "mean", "var", "rescale_grad"), ("mean", "var"),
                      ("rescale_grad",), _ADAMW, _adamw),
    "_mp_adamw_update": ((_W, _G, "mean", "var", "weight32", "rescale_grad"),
                         ("mean", "var", "weight32"),
                         ("mean", "var", "weight32", "rescale_grad"), _ADAMW, _mp_adamw),
}
# The float32 output of mp_lamb_update_phase1 (the direction g, in the master precision).
_F32_OUT = {"mp_lamb_update_phase1"}
_SCALAR_INPUTS = {"r1", "r2", "rescale_grad"}  # shape (1,)
_ALIASES = {"_adamw_update": ("_contrib_adamw_update",),
            "_mp_adamw_update": ("_contrib_mp_adamw_update",)}


def _shape_rule(name, inputs):
    def rule(p, ins):
        known = [tuple(s) for n, s in zip(inputs, ins) if s is not None
                 and n not in _SCALAR_INPUTS]
        for n, s in zip(inputs, ins):
            if s is not None and n in _SCALAR_INPUTS and tuple(s) not in ((1,), ()):
                raise ShapeError(f"{name}: input {n!r} must have shape (1,), got {tuple(s)}")
        if not known:
            return [(1,) if n in _SCALAR_INPUTS else s for n, s in zip(inputs, ins)], [None]
        s = known[0]
        if any(k != s for k in known[1:]):
            raise ShapeError(f"{name}: weight, gradient and states must share one shape, got "
                             f"{fmt_shapes(ins)} for {', '.join(inputs)}")
        return [(1,) if n in _SCALAR_INPUTS else s for n in inputs], [s]
    return rule


def _dtype_rule(name, inputs, f32):
    def rule(p, ins):
        d = ins[0] if ins[0] is not None else (ins[1] if inputs[1] not in f32 else None)
        filled = [F32 if n in f32 and x is None else (x if x is not None else d)
                  for n, x in zip(inputs, ins)]
        # the master copy's dtype (float32 wherever MXNet accepts the call)
        return filled, [filled[-1] if name in _F32_OUT else d]
    return rule


def _make(name, inputs, states, f32, attrs, fn):
    """Register update operator `name` from its rule ``fn(p, xp, weight, grad, *states)``:
    the new weight, the states updated in place; with its storage rule (a row_sparse
    gradient's kernels, `gluonlite.ops.sparse.updates`)."""
    blocked = _BLOCKED.get(name)

    def kernel(p, rc, *xs):
        if blocked is not None and optimizer_fast.usable(rc.xp, *xs):
            return blocked(p, np.empty_like(xs[0]), *xs)
        out = fn(p, rc.xp, *xs)
        dt = xs[-1].dtype if name in _F32_OUT else xs[0].dtype
        return out.astype(dt, copy=False) if out is not xs[0] else out.copy()

    def into(p, rc, outs, *xs):
        # the new weight written straight into `outs[0]`, which may be the weight itself
        if optimizer_fast.usable(rc.xp, outs[0], *xs):
            blocked(p, outs[0], *xs)
        else:
            rc.xp.copyto(outs[0], kernel(p, rc, *xs), casting="unsafe")
    kernel.__doc__ = (f"{name}({', '.join(inputs)}, {', '.join(attrs)}): the new weight; "
                      + (f"updates {', '.join(states)} in place. " if states else "")
                      + "See gluonlite.ops.optimizer_ops.")
    register(name, aliases=_ALIASES.get(name, ()), inputs=inputs, aux=states,
             nondiff=inputs, attrs=attrs, shape=_shape_rule(name, inputs),
             dtype=_dtype_rule(name, inputs, f32), same_dtype=(_W, _G),
             storage=update_rule(name, fn, states),
             fast=Fast(into=into) if blocked is not None else None)(kernel)


# The rules above run a cache-sized block at a time (`optimizer_fast`) on numpy float arrays:
# the same arithmetic per element, without weight-sized temporaries.
_BLOCKED = {"sgd_update": optimizer_fast.sgd_into, "sgd_mom_update": optimizer_fast.sgd_mom_into,
            "nag_mom_update": optimizer_fast.nag_mom_into}

for _name, (_inputs, _states, _f32s, _attrs, _fn) in TABLE.items():
    _make(_name, _inputs, _states, _f32s, _attrs, _fn)


# ---- contrib group_adagrad_update: one history value per row ------------------------------
def _group_adagrad(p, xp, w, g, history):
    g = _scaled(p, g, xp)
    axes = tuple(range(1, g.ndim))
    history += (g * g).mean(axis=axes).reshape(history.shape)
    scale = xp.sqrt(history + p.epsilon).reshape((-1,) + (1,) * (g.ndim - 1))
    return w - p.lr * g / scale


def _group_adagrad_shape(p, ins):
    w = next((tuple(s) for s in ins[:2] if s is not None), None)
    if w is None:
        return ins, [None]
    if len(w) < 2:
        raise ShapeError(f"_contrib_group_adagrad_update: weight must have 2 or more "
                         f"dimensions, got shape {w}")
    h = (w[0], 1)
    for n, s in zip(("weight", "grad", "history"), ins):
        want = h if n == "history" else w
        if s is not None and tuple(s) != want:
            raise ShapeError(f"_contrib_group_adagrad_update: {n} must have shape {want}, got "
                             f"{tuple(s)}")
    return [w, w, h], [w]


def _group_adagrad_kernel(p, rc, w, g, history):
    """_contrib_group_adagrad_update(weight, grad, history, lr, epsilon=1e-5, rescale_grad=1,
    clip_gradient=-1): AdaGrad with one history value per row (shape (rows, 1)):
    ``history += mean(g**2 over the row); weight -= lr * g / sqrt(history + epsilon)``; the
    history changes in place. With a row_sparse gradient only its rows change."""
    return _group_adagrad(p, rc.xp, w, g, history).astype(w.dtype, copy=False)


register("_contrib_group_adagrad_update", inputs=(_W, _G, "history"), aux=("history",),
         nondiff=(_W, _G, "history"),
         attrs={"lr": A.Float(), "rescale_grad": A.Float(1.0),
                "clip_gradient": A.Float(-1.0), "epsilon": A.Float(1e-5)},
         shape=_group_adagrad_shape,
         dtype=_dtype_rule("_contrib_group_adagrad_update", (_W, _G, "history"), ()),
         same_dtype=(_W, _G),
         storage=update_rule("_contrib_group_adagrad_update", _group_adagrad, ("history",)))(
             _group_adagrad_kernel)


# ---- the multi-tensor operators: one group of inputs per weight ---------------------------
def _group_op(name, group, attrs, step, count="num_weights", tail=(), doc=""):
    """Register `name`: inputs ``weight_0, grad_0, ..., weight_1, ...`` (the names of
    `group` per weight) then `tail`; ``step(p, xp, i, ins, tail) -> new weight i`` updates
    weight i's states (the group after weight and grad) in place."""
    k = len(group)
    mutated = ("mom", "mean", "var", "weight32")

    def check(p, n_inputs):
        n = p[count]
        if n_inputs != k * n + len(tail):
            raise ShapeError(f"{name}: {count}={n} needs {k * n + len(tail)} inputs "
                             f"({', '.join(group)} per weight{', then ' if tail else ''}"
                             f"{', '.join(tail)}), got {n_inputs}")
        for a, spec in attrs.items():
            if spec.kind == "tuple" and len(p[a]) != n:
                raise ShapeError(f"{name}: {a} must have {count}={n} entries, got "
                                 f"{len(p[a])}")

    def kernel(p, rc, *xs):
        check(p, len(xs))
        n, rest = p[count], xs[k * p[count]:]
        outs = []
        for i in range(n):
            ins = xs[k * i:k * (i + 1)]
            outs.append(step(p, rc.xp, i, ins, rest).astype(ins[0].dtype, copy=False))
        # one output is returned bare, as every single-output kernel (compiled plans rely on it)
        return outs[0] if len(outs) == 1 else tuple(outs)
    kernel.__doc__ = doc

    def shape(p, ins):
        check(p, len(ins))
        n, in_out, outs = p[count], list(ins), []
        for i in range(n):
            part = ins[k * i:k * (i + 1)]
            known = [tuple(x) for x in part if x is not None]
            s = known[0] if known else None
            if any(x != s for x in known):
                raise ShapeError(f"{name}: weight {i}'s inputs must share one shape, got "
                                 f"{fmt_shapes(part)}")
            in_out[k * i:k * (i + 1)] = [s] * k
            outs.append(s)
        for j, t in enumerate(tail):
            in_out[k * n + j] = (1,) if t == "rescale_grad" else (n,)
        return in_out, outs

    def dtype(p, ins):
        n, filled, outs = p[count], list(ins), []
        for i in range(n):
            d = ins[k * i]
            for j, g in enumerate(group):
                if filled[k * i + j] is None:
                    filled[k * i + j] = F32 if g in ("weight32",) or (
                        "weight32" in group and g in mutated) else d
            outs.append(d)
        for j in range(len(tail)):
            filled[k * n + j] = filled[k * n + j] or F32
        return filled, outs

    register(name, variadic=(count, group, tail), attrs=attrs,
             outputs=lambda p: p[count], same_dtype=(),
             aux=lambda p: [g in mutated for _ in range(p[count]) for g in group]
             + [False] * len(tail),
             shape=shape, dtype=dtype)(kernel)


def _q(**kw):
    return Params(kw)


def _sgd_step(mom, mp, preloaded):
    def step(p, xp, i, ins, tail):
        w, g, *st = ins
        lr = tail[0][i] if preloaded else p.lrs[i]
        wd = tail[1][i] if preloaded else p.wds[i]
        q = _q(lr=lr, wd=wd, rescale_grad=p.rescale_grad, clip_gradient=p.clip_gradient,
               momentum=p.get("momentum", 0.0))
        if mp:
            w32 = st[-1]
            w32[...] = (_sgd_mom(q, xp, w32, _up(g, w32), st[0]) if mom
                        else _sgd(q, xp, w32, _up(g, w32)))
            return w32
        return _sgd_mom(q, xp, w, g, st[0]) if mom else _sgd(q, xp, w, g)
    return step


for _mom in (False, True):
    for _mp in (False, True):
        _grp = ("weight", "grad") + (("mom",) if _mom else ()) + (("weight32",) if _mp else ())
        _base = {"rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0),
                 "num_weights": A.Int(1)}
        _momattr = {"momentum": A.Float(0.0)} if _mom else {}
        _stem = f"{'mp_' if _mp else ''}sgd{'_mom' if _mom else ''}_update"
        _via = " through float32 master copies" if _mp else ""
        _doc = (f"({', '.join(_grp)} per weight...): one SGD{' momentum' if _mom else ''} "
                f"step of each of num_weights weights{_via}; returns the new weights, states "
                "change in place.")
        _group_op(f"multi_{_stem}", _grp,
                  {"lrs": FloatTuple(), "wds": FloatTuple(), **_momattr, **_base},
                  _sgd_step(_mom, _mp, False), doc=f"multi_{_stem}{_doc} lrs/wds attributes.")
        _group_op(f"preloaded_multi_{_stem}", _grp, {**_momattr, **_base},
                  _sgd_step(_mom, _mp, True), tail=("lrs", "wds"),
                  doc=f"preloaded_multi_{_stem}{_doc} lrs/wds as the last two arrays.")


def _lamb_step(mp):
    def step(p, xp, i, ins, tail):
        w, g, mean, var = ins[:4]
        w32 = ins[4] if mp else w
        q = _q(beta1=p.beta1, beta2=p.beta2, epsilon=p.epsilon, t=p.step_count[i],
               bias_correction=p.bias_correction, wd=p.wds[i], rescale_grad=p.rescale_grad,
               clip_gradient=p.clip_gradient)
        d = _lamb1_dir(q, xp, w32, _up(g, w32), mean, var)
        r1 = xp.sqrt((w32.astype(np.float64) ** 2).sum()).reshape(1).astype(w32.dtype)
        r2 = xp.sqrt((d.astype(np.float64) ** 2).sum()).reshape(1).astype(w32.dtype)
        q2 = _q(lr=p.learning_rates[i], lower_bound=p.lower_bound, upper_bound=p.upper_bound)
        new = w32 - _trust_lr(q2, xp, r1, r2).astype(w32.dtype) * d
        if mp:
            w32[...] = new
        return new
    return step


_MULTI_LAMB = {"learning_rates": FloatTuple(), "beta1": A.Float(0.9), "beta2": A.Float(0.999),
               "epsilon": A.Float(1e-6), "wds": FloatTuple(), "rescale_grad": A.Float(1.0),
               "lower_bound": A.Float(-1.0), "upper_bound": A.Float(-1.0),
               "clip_gradient": A.Float(-1.0), "bias_correction": A.Bool(True),
               "step_count": A.IntList(), "num_tensors": A.Int(1)}
for _mp in (False, True):
    _group_op(f"_multi_{'mp_' if _mp else ''}lamb_update",
              ("weight", "grad", "mean", "var") + (("weight32",) if _mp else ()),
              _MULTI_LAMB, _lamb_step(_mp), count="num_tensors",
              doc="(weight, grad, mean, var[, weight32] per tensor...): one LAMB step of "
                  "each of num_tensors weights (learning_rates[i], wds[i], step_count[i]); "
                  "returns the new weights, states change in place.")


def _adamw_step(mp):
    def step(p, xp, i, ins, tail):
        w, g, mean, var = ins[:4]
        q = _q(lr=p.lrs[i], wd=p.wds[i], eta=p.etas[i], beta1=p.beta1, beta2=p.beta2,
               epsilon=p.epsilon, clip_gradient=p.clip_gradient)
        if mp:
            return _mp_adamw(q, xp, w, g, mean, var, ins[4], tail[0])
        return _adamw(q, xp, w, g, mean, var, tail[0])
    return step


_MULTI_ADAMW = {"lrs": FloatTuple(), "beta1": A.Float(0.9), "beta2": A.Float(0.999),
                "epsilon": A.Float(1e-8), "wds": FloatTuple(), "etas": FloatTuple(),
                "clip_gradient": A.Float(-1.0), "num_weights": A.Int(1)}
for _mp in (False, True):
    _group_op(f"_multi_{'mp_' if _mp else ''}adamw_update",
              ("weight", "grad", "mean", "var") + (("weight32",) if _mp else ()),
              _MULTI_ADAMW, _adamw_step(_mp), tail=("rescale_grad",),
              doc="(weight, grad, mean, var[, weight32] per weight..., rescale_grad): one "
                  "AdamW step of each weight (lrs[i], wds[i], etas[i]), skipped when "
                  "rescale_grad is 0 or not finite; returns the new weights.")


# ---- helpers of the multi-tensor optimizers ---------------------------------------------
def _all_finite(p, rc, x):
    """all_finite(data, init_output=True): [1.] when every element of data is finite, else
    [0.] (float32, shape (1,))."""
    return rc.xp.isfinite(x).all().astype(F32).reshape(1)


register("all_finite", attrs={"init_output": A.Bool(True)}, nondiff=("data",),
         shape=lambda p, ins: (ins, [(1,)]),
         dtype=lambda p, ins: (ins, [F32]))(_all_finite)


def _multi_all_finite(p, rc, *xs):
    """multi_all_finite(*arrays, num_arrays=1, init_output=True): [1.] when every element of
    every array is finite, else [0.]."""
    ok = rc.xp.ones((1,), dtype=F32)
    for x in xs:
        ok = ok * rc.xp.isfinite(x).all().astype(F32)
    return ok


register("multi_all_finite", variadic="num_arrays", same_dtype=(),
         attrs={"num_arrays": A.Int(1), "init_output": A.Bool(True)},
         shape=lambda p, ins: (ins, [(1,)]),
         dtype=lambda p, ins: (ins, [F32]))(_multi_all_finite)


def _multi_sum_sq(p, rc, *xs):
    """multi_sum_sq(*arrays, num_arrays): the sum of squares of each array, as one float32
    array of shape (num_arrays,)."""
    return rc.xp.stack([(x.astype(np.float64) ** 2).sum() for x in xs]).astype(F32)


register("multi_sum_sq", variadic="num_arrays", same_dtype=(),
         attrs={"num_arrays": A.Int()},
         shape=lambda p, ins: (ins, [(p.num_arrays,)]),
         dtype=lambda p, ins: (ins, [F32]))(_multi_sum_sq)


def _reset_arrays(p, rc, *xs):
    """reset_arrays(*arrays, num_arrays): sets every array to zero in place (no output).

    Example::

        a, b = nd.ones((2,)), nd.ones((3,))
        nd.reset_arrays(a, b, num_arrays=2)
        print(a.asnumpy(), b.asnumpy())   # [0. 0.] [0. 0. 0.]
    """
    for x in xs:
        x[...] = 0
    return ()


register("reset_arrays", variadic="num_arrays", same_dtype=(), outputs=0,
         attrs={"num_arrays": A.Int()},
         aux=lambda p: [True] * p.num_arrays,
         shape=lambda p, ins: (ins, []), dtype=lambda p, ins: (ins, []))(_reset_arrays)


def _multi_lars(p, rc, lrs, weights_sum_sq, grads_sum_sq, wds):
    """multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad=1): the
    layer-wise adapted learning rates ``lr * eta * |w| / (|g| + wd * |w| + eps)`` (|g| the
    rescaled gradient norm), ``lr`` where either norm is zero."""
    xp = rc.xp
    w = xp.sqrt(weights_sum_sq)
    g = xp.sqrt(grads_sum_sq) * p.rescale_grad
    ok = (w > 0) & (g > 0)
    ratio = xp.where(ok, p.eta * w / xp.where(ok, g + wds * w + p.eps, 1), 1)
    return (lrs * ratio).astype(lrs.dtype, copy=False)


register("multi_lars", inputs=("lrs", "weights_sum_sq", "grads_sum_sq", "wds"),
         nondiff=("lrs", "weights_sum_sq", "grads_sum_sq", "wds"),
         attrs={"eta": A.Float(), "eps": A.Float(), "rescale_grad": A.Float(1.0)},
         shape=_shape_rule("multi_lars", ("lrs", "weights_sum_sq", "grads_sum_sq", "wds")),
         dtype=lambda p, ins: ([ins[0] or F32] * 4, [ins[0] or F32]))(_multi_lars)
