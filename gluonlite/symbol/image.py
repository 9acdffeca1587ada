"""`sym.image`: the image operators as graph nodes (``_image_<name>``), e.g.
``sym.image.to_tensor(sym.var('img'))``."""
from ..ops import exists as _exists
from .register import fn


def __getattr__(name):
    if name.startswith("_") or not _exists(f"_image_{name}"):
        raise AttributeError(f"sym.image has no attribute {name!r}")
    return fn(f"_image_{name}")
