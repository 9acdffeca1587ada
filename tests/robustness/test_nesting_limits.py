"""Files that nest or alias their way to huge trees: a YAML alias bomb and deep nesting in a
recipe, deep JSON and deep subgraphs in a symbol file end in one line naming the file."""
import os
import subprocess
import sys
import time

import pytest

import gluonlite as mx
from gluonlite.bench.recipe import MAX_RECIPE_DEPTH, RecipeError, load_recipe
from gluonlite.symbol.json_io import MAX_SUBGRAPH_DEPTH

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _bomb(levels=9, width=9):
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\nbenchmark: foreach\n"


def test_an_alias_bomb_is_refused_in_a_moment(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb())
    assert path.stat().st_size < 600  # 9**9 values once expanded
    start = time.monotonic()
    with pytest.raises(RecipeError, match=r"bomb.yaml:\d+: expands to more than 100000 values "
                                          r"through YAML aliases"):
        load_recipe(str(path))
    assert time.monotonic() - start < 5


def test_a_few_aliases_are_still_fine(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("benchmark: foreach\nmatrix:\n  cell: &c [RNNCell]\n"
                    "  batch_size: &b [1]\nrounds: {warmup: 0, test: 1}\n")
    assert load_recipe(str(path)).data["matrix"]["cell"] == ["RNNCell"]


@pytest.mark.parametrize("levels", [MAX_RECIPE_DEPTH + 1, 1000])
def test_deep_nesting_in_a_recipe_names_the_file(tmp_path, levels):
    path = tmp_path / "deep.yaml"
    path.write_text("benchmark: foreach\nmatrix: " + "[" * levels + "]" * levels + "\n")
    with pytest.raises(RecipeError, match=rf"deep.yaml:2: nested too deeply for a recipe: "
                                          rf"expected at most {MAX_RECIPE_DEPTH} levels"):
        load_recipe(str(path))


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb())
    proc = subprocess.run([sys.executable, "-m", "gluonlite.bench", "--recipe", str(path)],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=REPO))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "expands to more than" in proc.stderr


def test_deep_json_in_a_symbol_file_names_the_file(tmp_path):
    path = tmp_path / "deep-symbol.json"
    path.write_text('{"nodes": ' + "[" * 100000 + "]" * 100000 + ', "heads": [[0, 0, 0]]}')
    with pytest.raises(ValueError, match=f"{path}: not a symbol JSON file: its arrays and "
                                         "objects nest too deeply"):
        mx.sym.load(str(path))


def _nested_cond(depth):
    x = mx.sym.var("x")

    def build(d):
        if d == 0:
            return lambda: x * 2
        return lambda: mx.sym.contrib.cond(mx.sym.sum(x) > 0, build(d - 1), lambda: x - 1)
    return build(depth)()


def test_subgraphs_nested_past_the_limit_are_refused_by_name(tmp_path):
    path = tmp_path / "nested-symbol.json"
    path.write_text(_nested_cond(MAX_SUBGRAPH_DEPTH + 1).tojson())
    with pytest.raises(ValueError, match=rf"^{path}: \(subgraph level \d+\) .*subgraphs nest "
                                         rf"more than {MAX_SUBGRAPH_DEPTH} levels deep"):
        mx.sym.load(str(path))


def test_subgraphs_nested_a_few_levels_load_and_run(tmp_path):
    path = tmp_path / "nested-symbol.json"
    sym = _nested_cond(4)
    path.write_text(sym.tojson())
    back = mx.sym.load(str(path))
    x = mx.nd.array([1.0, -3.0])
    assert back.eval(x=x)[0].asnumpy().tolist() == sym.eval(x=x)[0].asnumpy().tolist()
