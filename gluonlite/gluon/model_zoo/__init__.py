"""`gluon.model_zoo`: MXNet 1.9.1's model definitions (`vision`), built with the same
parameter names and shapes, so MXNet's `.params` files for them load. Pretrained weights are
read from a local folder only (no network): see `model_store.get_model_file`."""
from . import model_store, vision

__all__ = ["model_store", "vision"]
