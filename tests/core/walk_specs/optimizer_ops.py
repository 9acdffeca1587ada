"""Walk entries of the optimizer update operators (`gluonlite.ops.optimizer_ops`).

They are not differentiable (the walk checks every input gets a zero gradient); the
references below are the update formulas written out in numpy, the new weight being the
output (the in-place state updates are checked in tests/optimizer/test_update_ops.py against
MXNet-made numbers)."""
import numpy as np

from .common import C, Idx, Pos

S = (2, 3)
LR, WD, RG, CG = 0.1, 0.05, 0.7, 0.4


def _g(g, clip=CG):
    return np.clip(RG * g, -clip, clip) if clip >= 0 else RG * g


def F(v):
    """An attribute as MXNet's SGD kernels take it: float32 (then the weight's type)."""
    return float(np.float32(v))


def _sgd(w, g):
    return (1 - F(LR) * F(WD)) * w - F(LR) * np.clip(F(RG) * g, -F(CG), F(CG))


def _sgd_mom(w, g, mom, mu=0.9):
    return (w + F(mu) * mom - F(LR) * F(WD) * w
            - F(LR) * np.clip(F(RG) * g, -F(CG), F(CG)))


def _nag(w, g, mom, mu=0.9):
    m = mu * mom
    return w - m + (mu + 1) * (m - LR * (_g(g) + WD * w))


def _adam(w, g, m, v, b1=0.9, b2=0.999, eps=1e-8):
    g = np.clip(RG * g + WD * w, -CG, CG)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return w - LR * m / (np.sqrt(v) + eps)


def _ftml(w, g, d, v, z, b1=0.6, b2=0.999, eps=1e-8, t=2):
    g = np.clip(RG * g + WD * w, -CG, CG)
    v = b2 * v + (1 - b2) * g * g
    dt = (1 - b1 ** t) / LR * (np.sqrt(v / (1 - b2 ** t)) + eps)
    z = b1 * z + (1 - b1) * g - (dt - b1 * d) * w
    return -z / dt


def _rmsprop(w, g, n, g1=0.95, eps=1e-8):
    g = np.clip(RG * g + WD * w, -CG, CG)
    n = (1 - g1) * g * g + g1 * n
    return np.clip(w - LR * g / np.sqrt(n + eps), -1.2, 1.2)


def _rmspropalex(w, g, n, gm, delta, g1=0.95, g2=0.9, eps=1e-8):
    g = np.clip(RG * g + WD * w, -CG, CG)
    n = (1 - g1) * g * g + g1 * n
    gm = (1 - g1) * g + g1 * gm
    delta = g2 * delta - LR * g / np.sqrt(n - gm * gm + eps)
    return w + delta


def _ftrl(w, g, z, n, l1=0.01, beta=1.0):
    g = _g(g)
    z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / LR
    n = n + g * g
    return (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / LR + WD) * (np.abs(z) > l1)


def _signum(w, g, mom, mu=0.9, wd_lh=0.01):
    mom = mu * mom - (1 - mu) * WD * w - (1 - mu) * _g(g)
    return (1 - LR * wd_lh) * w + LR * np.sign(mom)


def _lamb1(w, g, m, v, b1=0.9, b2=0.999, eps=1e-6, t=3):
    g = _g(g)
    m = (b1 * m + (1 - b1) * g) / (1 - b1 ** t)
    v = (b2 * v + (1 - b2) * g * g) / (1 - b2 ** t)
    return m / (np.sqrt(v) + eps) + WD * w


def _lamb2(w, g, r1, r2, lb=0.5, ub=1.0):
    r = min(max(r1[0], lb), ub)
    return w - LR * r / r2[0] * g


def _lamb_full(w, g, m, v):
    d = _lamb1(w, g, m, v)
    r1 = min(max(np.sqrt((w * w).sum()), 0.5), 1.0)
    return w - LR * r1 / np.sqrt((d * d).sum()) * d


def _adamw(w, g, m, v, rescale, b1=0.9, b2=0.999, eps=1e-8, eta=0.5):
    g = np.clip(rescale[0] * g, -CG, CG)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return w - eta * (LR * m / (np.sqrt(v) + eps) + WD * w)


_BASE = {"lr": LR, "wd": WD, "rescale_grad": RG, "clip_gradient": CG}
_MOM = {**_BASE, "momentum": 0.9}
_CENTERED = [Pos(*S), Pos(*S), np.full(S, 2.0), np.full(S, 0.1), np.full(S, -0.05)]

SPECS = {
    "sgd_update": [C([S, S], _BASE, ref=_sgd),
                   C([S, S], {"lr": LR}, ref=lambda w, g: w - LR * g)],
    "sgd_mom_update": C([S, S, S], _MOM, ref=_sgd_mom),
    "mp_sgd_update": C([S, S, S], _BASE, ref=lambda w, g, w32: _sgd(w32, g)),
    "mp_sgd_mom_update": C([S, S, S, S], _MOM, ref=lambda w, g, m, w32: _sgd_mom(w32, g, m)),
    "nag_mom_update": C([S, S, S], _MOM, ref=_nag),
    "mp_nag_mom_update": C([S, S, S, S], _MOM, ref=lambda w, g, m, w32: _nag(w32, g, m)),
    "ftml_update": C([S, S, Pos(*S), Pos(*S), S],
                     {"lr": LR, "wd": WD, "rescale_grad": RG, "clip_grad": CG, "t": 2},
                     ref=_ftml),
    "adam_update": C([S, S, S, Pos(*S)], _BASE, ref=_adam),
    "rmsprop_update": C([S, S, Pos(*S)], {**_BASE, "clip_weights": 1.2}, ref=_rmsprop),
    "rmspropalex_update": C(_CENTERED, _BASE, ref=_rmspropalex),
    "ftrl_update": C([S, S, S, Pos(*S)], _BASE, ref=_ftrl),
    "signsgd_update": C([S, S], _BASE, ref=lambda w, g: (1 - LR * WD) * w - LR * np.sign(g)),
    "signum_update": C([S, S, S], {**_MOM, "wd_lh": 0.01}, ref=_signum),
    "lamb_update_phase1": C([S, S, S, Pos(*S)],
                            {"wd": WD, "rescale_grad": RG, "clip_gradient": CG, "t": 3},
                            ref=_lamb1),
    "lamb_update_phase2": C([S, S, Idx([2.0]), Idx([4.0])],
                            {"lr": LR, "lower_bound": 0.5, "upper_bound": 1.0}, ref=_lamb2),
    "mp_lamb_update_phase1": C([S, S, S, Pos(*S), S],
                               {"wd": WD, "rescale_grad": RG, "clip_gradient": CG, "t": 3},
                               ref=lambda w, g, m, v, w32: _lamb1(w32, g, m, v)),
    "mp_lamb_update_phase2": C([S, S, Idx([0.25]), Idx([4.0]), S],
                               {"lr": LR, "lower_bound": 0.5, "upper_bound": 1.0},
                               ref=lambda w, g, r1, r2, w32: _lamb2(w32, g, r1, r2)),
    "_adamw_update": [C([S, S, S, Pos(*S), Idx([0.7])],
                        {"lr": LR, "wd": WD, "eta": 0.5, "clip_gradient": CG}, ref=_adamw),
                      C([S, S, S, Pos(*S), Idx([0.0])], {"lr": LR, "eta": 0.5},
                        ref=lambda w, g, m, v, r: w)],
    "_mp_adamw_update": C([S, S, S, Pos(*S), S, Idx([0.7])],
                          {"lr": LR, "wd": WD, "eta": 0.5, "clip_gradient": CG},
                          ref=lambda w, g, m, v, w32, r: _adamw(w32, g, m, v, r)),
    "multi_sgd_update": C([S, S, (4,), (4,)],
                          {"lrs": (0.1, 0.2), "wds": (0.0, 0.1), "num_weights": 2},
                          ref=lambda w0, g0, w1, g1: [w0 - 0.1 * g0,
                                                      (1 - 0.02) * w1 - 0.2 * g1]),
    "multi_sgd_mom_update": C([S, S, S], {"lrs": (0.1,), "wds": (0.05,), "momentum": 0.9,
                                          "num_weights": 1},
                              ref=lambda w, g, m: w + F(0.9) * m - F(0.1) * F(0.05) * w
                              - F(0.1) * g),
    "multi_mp_sgd_update": C([S, S, S], {"lrs": (0.1,), "wds": (0.0,), "num_weights": 1},
                             ref=lambda w, g, w32: w32 - 0.1 * g),
    "multi_mp_sgd_mom_update": C([S, S, S, S], {"lrs": (0.1,), "wds": (0.0,),
                                                "momentum": 0.5, "num_weights": 1},
                                 ref=lambda w, g, m, w32: w32 + 0.5 * m - F(0.1) * g),
    "all_finite": [C([S], ref=lambda x: np.ones(1)),
                   C([Idx([1.0, np.inf])], ref=lambda x: np.zeros(1))],
    "multi_all_finite": [C([S, (4,)], {"num_arrays": 2}, ref=lambda a, b: np.ones(1)),
                         C([S, Idx([np.nan])], {"num_arrays": 2}, ref=lambda a, b: np.zeros(1))],
    "multi_sum_sq": C([S, (4,)], {"num_arrays": 2},
                      ref=lambda a, b: np.array([(a * a).sum(), (b * b).sum()], np.float32)),
    "reset_arrays": C([S, (4,)], {"num_arrays": 2}),
    "multi_lars": C([Pos(3), Idx([4.0, 0.0, 9.0]), Idx([1.0, 1.0, 0.0]), Pos(3)],
                    {"eta": 0.5, "eps": 1e-3, "rescale_grad": 2.0},
                    ref=lambda lr, w, g, wd: lr * np.where(
                        (w > 0) & (g > 0),
                        0.5 * np.sqrt(w) / (np.sqrt(g) * 2 + wd * np.sqrt(w) + 1e-3), 1)),
    "preloaded_multi_sgd_update": C([S, S, (4,), (4,), Idx([0.1, 0.2]), Idx([0.0, 0.1])],
                                    {"num_weights": 2},
                                    ref=lambda w0, g0, w1, g1, lrs, wds: [
                                        w0 - 0.1 * g0, (1 - 0.02) * w1 - 0.2 * g1]),
    "preloaded_multi_sgd_mom_update": C([S, S, S, Idx([0.1]), Idx([0.05])],
                                        {"momentum": 0.9, "num_weights": 1},
                                        ref=lambda w, g, m, lrs, wds:
                                        w + F(0.9) * m - F(0.1) * F(0.05) * w - F(0.1) * g),
    "preloaded_multi_mp_sgd_update": C([S, S, S, Idx([0.1]), Idx([0.0])], {"num_weights": 1},
                                       ref=lambda w, g, w32, lrs, wds: w32 - 0.1 * g),
    "preloaded_multi_mp_sgd_mom_update": C([S, S, S, S, Idx([0.1]), Idx([0.0])],
                                           {"momentum": 0.5, "num_weights": 1},
                                           ref=lambda w, g, m, w32, lrs, wds:
                                           w32 + 0.5 * m - F(0.1) * g),
    "_multi_lamb_update": C([S, S, S, Pos(*S)],
                            {"learning_rates": (LR,), "wds": (WD,), "step_count": [3],
                             "rescale_grad": RG, "clip_gradient": CG, "lower_bound": 0.5,
                             "upper_bound": 1.0, "num_tensors": 1},
                            ref=lambda w, g, m, v: _lamb_full(w, g, m, v)),
    "_multi_mp_lamb_update": C([S, S, S, Pos(*S), S],
                               {"learning_rates": (LR,), "wds": (WD,), "step_count": [3],
                                "rescale_grad": RG, "clip_gradient": CG, "lower_bound": 0.5,
                                "upper_bound": 1.0, "num_tensors": 1},
                               ref=lambda w, g, m, v, w32: _lamb_full(w32, g, m, v)),
    "_multi_adamw_update": C([S, S, S, Pos(*S), Idx([0.7])],
                             {"lrs": (LR,), "wds": (WD,), "etas": (0.5,), "clip_gradient": CG,
                              "num_weights": 1}, ref=_adamw),
    "_multi_mp_adamw_update": C([S, S, S, Pos(*S), S, Idx([0.7])],
                                {"lrs": (LR,), "wds": (WD,), "etas": (0.5,),
                                 "clip_gradient": CG, "num_weights": 1},
                                ref=lambda w, g, m, v, w32, r: _adamw(w32, g, m, v, r)),
}
