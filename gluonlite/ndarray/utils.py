"""`mx.nd.utils`: MXNet 1.9.1's module of nd's array creation and file functions, `zeros`,
`empty`, `array`, `load`, `load_frombuffer` and `save`: `nd`'s own."""
from . import array, empty, load, load_frombuffer, save, zeros  # noqa: F401

__all__ = ["zeros", "empty", "array", "load", "load_frombuffer", "save"]
