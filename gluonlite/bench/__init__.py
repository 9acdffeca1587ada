"""The control-flow RNN benchmark, YAML recipes and the numpy floor.

Run `python -m gluonlite.bench --help`. Modules: `cli` (the command), `recipe` and
`schema` (loading and validating recipes), `matrix` (cases), `runner` (timing one
case), `results` (JSON lines and the environment record), `summary` (tables),
`models` (the ForeachRNN/WhileRNN layers), `train` (train recipes), `floor`
(hand-written numpy RNN/GRU/LSTM loops), `report` (the report and compare commands) and
`plot` (charts, with the plot extra). Importing this package does not import
the gluonlite core; `models`, `runner` cases and `train` do, when they run.
"""
from .recipe import Recipe, RecipeError, load_recipe

__all__ = ["Recipe", "RecipeError", "load_recipe"]
