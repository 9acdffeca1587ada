"""Walk entries of the NumPy dialect's creation operators (`gluonlite.ops.np_init`)."""
import numpy as np

from .common import C

SPECS = {
    "_npi_zeros": [C([], {"shape": (2, 3)}, ref=lambda: np.zeros((2, 3))),
                   C([], {"shape": ()}, ref=lambda: np.zeros(())),
                   C([], {"shape": (2, 0)}, ref=lambda: np.zeros((2, 0)))],
    "_npi_ones": C([], {"shape": (3,)}, ref=lambda: np.ones(3)),
    "_npi_identity": C([], {"shape": (3, 3)}, ref=lambda: np.identity(3)),
    "_npi_eye": [C([], {"N": 3, "M": 4, "k": 1}, ref=lambda: np.eye(3, 4, 1)),
                 C([], {"N": 2}, ref=lambda: np.eye(2))],
    "_npi_arange": [C([], {"start": 1, "stop": 3, "step": 0.5}, ref=lambda: np.arange(1, 3, 0.5)),
                    C([], {"start": 4}, ref=lambda: np.arange(4.0)),
                    C([], {"start": 0, "stop": 3, "repeat": 2},
                      ref=lambda: np.repeat(np.arange(3.0), 2))],
    "_npi_full_like": C([(2, 3)], {"fill_value": 1.5}, ref=lambda a: np.full_like(a, 1.5)),
    "_npi_indices": C([], {"dimensions": (2, 3)}, ref=lambda: np.indices((2, 3))),
    "_npi_logspace": C([], {"start": 0, "stop": 2, "num": 5, "dtype": "float64"},
                       ref=lambda: np.logspace(0, 2, 5)),
    "_npi_hanning": C([], {"M": 5, "dtype": "float64"}, ref=lambda: np.hanning(5)),
    "_npi_hamming": C([], {"M": 5, "dtype": "float64"}, ref=lambda: np.hamming(5)),
    "_npi_blackman": C([], {"M": 5, "dtype": "float64"}, ref=lambda: np.blackman(5)),
    "_np_copy": C([(2, 3)], ref=lambda a: a.copy(), more=[[()]]),
}
