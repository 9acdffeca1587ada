"""`mx.image` (alias `mx.img`): MXNet 1.9.1's image functions, augmenters and iterators on HWC
NDArrays. `image` holds the functions, classification augmenters and `ImageIter`;
`detection` the box-aware augmenters and `ImageDetIter`.

Example::

    from PIL import Image   # a JPEG file to read
    Image.fromarray(np.zeros((300, 400, 3), np.uint8)).save('cat.jpg')
    img = mx.image.imread('cat.jpg')                 # (h, w, 3) uint8, RGB
    img = mx.image.resize_short(img, 256)            # (256, 341, 3)
    img, _ = mx.image.center_crop(img, (224, 224))   # (224, 224, 3)
"""
from . import image
from .image import *  # noqa: F401,F403
from .image import __all__ as _image_all
from . import detection
from . import detection as det
from .detection import *  # noqa: F401,F403
from .detection import __all__ as _detection_all

__all__ = ["image", "detection", "det"] + _image_all + _detection_all
