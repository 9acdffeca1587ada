"""Walk entries of the image operators (gluonlite/ops/image.py): float images, HWC and NHWC
(normalize: CHW and NCHW); the random colour operators with min_factor == max_factor, which
makes them deterministic closed forms."""
import numpy as np

from .common import C

HWC = (4, 5, 3)
NHWC = (2, 4, 5, 3)
GRAY = np.array([0.299, 0.587, 0.114])


def _to_tensor(x):
    x = np.moveaxis(x, -1, -3)
    if x.dtype != np.float64:
        x = x.astype(np.float32)
    return (x / x.dtype.type(255.0)).astype(np.float32)


def _normalize(mean, std):
    def ref(x):
        c = x.shape[-3]
        m = np.broadcast_to(np.asarray(mean, dtype=np.float64), (c,)).reshape(c, 1, 1)
        s = np.broadcast_to(np.asarray(std, dtype=np.float64), (c,)).reshape(c, 1, 1)
        return (x - m) / s
    return ref


# MXNet draws a factor as a float32: U[a, a] is float32(a)
F6, F7 = float(np.float32(0.6)), float(np.float32(0.7))


def _contrast(a):
    def ref(x):
        def one(img):
            mean = (img * GRAY).sum() / (img.shape[0] * img.shape[1])
            return img * a + (1 - a) * mean
        return one(x) if x.ndim == 3 else np.stack([one(i) for i in x])
    return ref


SPECS = {
    "_image_to_tensor": C([HWC], ref=_to_tensor, more=[[NHWC]]),
    "_image_normalize": [C([(3, 4, 5)], {"mean": (0.1, 0.2, 0.3), "std": (0.5, 2.0, 1.5)},
                           ref=_normalize((0.1, 0.2, 0.3), (0.5, 2.0, 1.5)),
                           more=[[(2, 3, 4, 5)]]),
                         C([(2, 4, 5)], {"mean": 0.5, "std": 0.25},
                           ref=_normalize(0.5, 0.25))],
    "_image_flip_left_right": C([HWC], ref=lambda x: np.flip(x, x.ndim - 2), more=[[NHWC]]),
    "_image_flip_top_bottom": C([HWC], ref=lambda x: np.flip(x, x.ndim - 3), more=[[NHWC]]),
    "_image_random_flip_left_right": [C([HWC], {"p": 1.0}, ref=lambda x: x[:, ::-1]),
                                      C([HWC], {"p": 0.0}, ref=lambda x: x)],
    "_image_random_flip_top_bottom": [C([HWC], {"p": 1.0}, ref=lambda x: x[::-1]),
                                      C([HWC], {"p": 0.0}, ref=lambda x: x)],
    "_image_crop": C([HWC], {"x": 1, "y": 2, "width": 3, "height": 2},
                     ref=lambda x: x[..., 2:4, 1:4, :], more=[[NHWC]]),
    "_image_resize": [C([HWC], {"size": (5, 4)}, ref=lambda x: x),  # (w, h) as given: identity
                      C([HWC], {"size": (8, 6)}), C([NHWC], {"size": 3, "interp": 0}),
                      # cubic, area and Lanczos at the same size are the identity
                      C([HWC], {"size": (5, 4), "interp": 2}, ref=lambda x: x),
                      C([HWC], {"size": (5, 4), "interp": 4}, ref=lambda x: x),
                      C([NHWC], {"size": (2, 3), "interp": 3}), C([HWC], {"size": (8, 6),
                                                                          "interp": 2})],
    "_image_random_brightness": C([HWC], {"min_factor": 1.5, "max_factor": 1.5},
                                  ref=lambda x: x * 1.5),
    "_image_random_contrast": C([HWC], {"min_factor": 0.6, "max_factor": 0.6},
                                ref=_contrast(F6), more=[[NHWC]]),
    "_image_random_saturation": C([HWC], {"min_factor": 0.7, "max_factor": 0.7},
                                  ref=lambda x: x * F7 + x[..., 2:3] * 0.114 * (1 - F7)),
    "_image_random_hue": [C([HWC], {"min_factor": 0.0, "max_factor": 0.0},
                            ref=lambda x: x),
                          C([HWC], {"min_factor": 0.8, "max_factor": 1.3})],
    "_image_random_color_jitter": [C([HWC], {"brightness": 0.0, "contrast": 0.0,
                                             "saturation": 0.0, "hue": 0.0}, ref=lambda x: x),
                                   C([HWC], {"brightness": 0.2, "contrast": 0.2,
                                             "saturation": 0.2, "hue": 0.1})],
    "_image_adjust_lighting": C([HWC], {"alpha": (0.1, -0.2, 0.3)},
                                ref=lambda x: x + np.array(
                                    [[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                                     [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                                     [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])
                                @ np.array([0.1, -0.2, 0.3])),
    "_image_random_lighting": [C([HWC], {"alpha_std": 0.0}, ref=lambda x: x),
                               C([HWC], {"alpha_std": 0.1})],
}
