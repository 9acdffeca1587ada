"""`npx.image`: `mx.image` (augmenters, iterators, decoding), and the image operators
(``to_tensor``, ``normalize``, ``resize``, ``crop``, the random colour and flip ones) taking
and giving `mx.np` arrays: the same operators `mx.nd.image` runs (``_image_<name>``, known to
MXNet's NumPy dialect as ``_npx__image_<name>``); they replace `mx.image`'s functions of the
same names here, as in MXNet."""
from ..image import *  # noqa: F401,F403
from ..ops import registry as _registry
from ..numpy._generated import make_function as _make

_OPS = ("adjust_lighting", "crop", "flip_left_right", "flip_top_bottom", "normalize",
        "random_brightness", "random_color_jitter", "random_contrast", "random_flip_left_right",
        "random_flip_top_bottom", "random_hue", "random_lighting", "random_saturation",
        "resize", "to_tensor")
for _name in _OPS:
    if _registry.exists(f"_npx__image_{_name}"):
        globals()[_name] = _make(f"image.{_name}", f"_npx__image_{_name}")
del _name
