"""`nd.image`: the image operators (registered as ``_image_<name>``), e.g.
``nd.image.to_tensor(img)``, ``nd.image.normalize(t, mean=(0.5,), std=(0.2,))``."""
from . import register as _register
from ..ops import exists as _exists, get as _get


def __getattr__(name):
    full = f"_image_{name}"
    if name.startswith("_") or not _exists(full):
        raise AttributeError(f"nd.image has no attribute {name!r}")
    f = _register._gen_cache.get(full)
    if f is None:
        f = _register._gen_cache[full] = _register.make_function(_get(full), full)
    return f
