"""`mx.notebook`: MXNet 1.9.1's helpers for following a `Module.fit` run in a Jupyter notebook;
`callback` holds them (PandasLogger records the metrics as pandas dataframes)."""
from . import callback  # noqa: F401
