"""The control-flow RNN benchmark, YAML recipes and the numpy floor.

Run `python -m gluonlite.bench --help`. Modules: `cli` (the command), `driver` (a bench
run: plan, run, record, report), `recipe` and `schema` (loading and validating recipes),
`matrix` (cases), `memory` (what a case needs, checked before it starts), `runner` (timing
one case), `results` (JSON lines, their lock and the environment record), `summary`
(tables), `models` (the ForeachRNN/WhileRNN layers), `train` and `sweep` (train recipes),
`executors` and `handshake` (local and Dask runs), `floor` (hand-written numpy RNN/GRU/LSTM
loops), `report` (the report and compare commands) and `plot` (charts, with the plot
extra). Importing this package imports only the recipe loader; the command imports gluon's
layers too.
"""
from .recipe import Recipe, RecipeError, load_recipe

__all__ = ["Recipe", "RecipeError", "load_recipe"]
