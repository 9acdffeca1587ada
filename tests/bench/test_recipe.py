"""Recipe loading in-process: defaults, extends, deep merge, overrides, shipped files."""
import glob
import os

import pytest

from benchutil import REPO
from gluonlite.bench.recipe import (BENCH_SCHEMA, RecipeError, deep_merge, from_data,
                                    load_recipe, recipe_kind)
from gluonlite.bench.schema import Enum, Int, Key, ListOf, Struct, format_path


def test_format_path():
    assert format_path(("matrix", "batch_size", 1)) == "matrix.batch_size[1]"
    assert format_path(()) == "<top level>"


def test_defaults_are_the_seed_matrix():
    d = from_data({"benchmark": "while_loop"}).data
    assert d["benchmark"] == ["while_loop"]
    assert d["matrix"] == {"cell": ["RNNCell", "GRUCell", "LSTMCell"], "ctx": ["cpu", "gpu"],
                           "seq_len": [100], "batch_size": [1, 32], "hidden_dim": [512],
                           "is_train": [True, False], "hybridize_cell": [False, True],
                           "hybridize_layer": [False, True]}
    assert d["rounds"] == {"warmup": 20, "test": 100, "budget_s": 1.0}


def test_configs_bench_default_matches_built_in_defaults():
    path = os.path.join(REPO, "configs", "bench_default.yaml")
    assert load_recipe(path, {"benchmark": ["foreach"]}).data == \
        from_data({"benchmark": ["foreach"]}).data


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(REPO, "recipes", "*.yaml"))))
def test_shipped_recipes_are_valid(path):
    r = load_recipe(path)
    assert r.kind in ("bench", "train")
    assert r.data["output"].startswith("results/")


def test_shipped_recipe_set():
    names = {os.path.basename(p) for p in glob.glob(os.path.join(REPO, "recipes", "*.yaml"))}
    assert {"quick.yaml", "seed_matrix.yaml", "scaling.yaml", "train_adding_lstm.yaml",
            "train_charlm_gru.yaml"} <= names


def test_seed_matrix_recipe_is_the_seed():
    r = load_recipe(os.path.join(REPO, "recipes", "seed_matrix.yaml"))
    assert r.data["matrix"] == from_data({"benchmark": "foreach"}).data["matrix"]
    assert r.data["rounds"] == {"warmup": 20, "test": 100, "budget_s": 1.0}


def test_scaling_recipe_ranges():
    m = load_recipe(os.path.join(REPO, "recipes", "scaling.yaml")).data["matrix"]
    assert min(m["seq_len"]) == 10 and max(m["seq_len"]) == 1000
    assert min(m["batch_size"]) == 1 and max(m["batch_size"]) == 128


def test_extends_is_relative_to_the_file_and_deep_merged(tmp_path, write_recipe, monkeypatch):
    write_recipe("configs/base.yaml", """
        matrix:
          cell: [GRUCell]
          seq_len: [7]
        rounds: {warmup: 1, test: 2}
        """)
    write_recipe("recipes/mid.yaml", "extends: ../configs/base.yaml\nmatrix: {seq_len: [9]}\n")
    child = write_recipe("recipes/sub/child.yaml", """
        extends: ../mid.yaml
        benchmark: foreach
        rounds: {test: 5}
        """)
    monkeypatch.chdir("/")  # relative to the file, not the working directory
    r = load_recipe(str(child))
    assert r.data["matrix"]["cell"] == ["GRUCell"]
    assert r.data["matrix"]["seq_len"] == [9]
    assert r.data["rounds"] == {"warmup": 1, "test": 5, "budget_s": 1.0}
    assert r.name == "child" and len(r.chain) == 3


def test_overrides_win(write_recipe):
    path = write_recipe("r.yaml", "benchmark: [foreach, while_loop]\nrounds: {test: 7}\n")
    r = load_recipe(str(path), {"benchmark": ["while_loop"], "rounds": {"warmup": 0}})
    assert r.data["benchmark"] == ["while_loop"]
    assert r.data["rounds"] == {"warmup": 0, "test": 7, "budget_s": 1.0}


def test_scalar_is_a_one_item_list(write_recipe):
    r = load_recipe(str(write_recipe("r.yaml", "benchmark: foreach\nmatrix: {seq_len: 5}\n")))
    assert r.data["matrix"]["seq_len"] == [5]


def test_train_kind_from_parent(write_recipe):
    write_recipe("base.yaml", "kind: train\nepochs: 3\n")
    path = write_recipe("t.yaml", "extends: base.yaml\ntask: adding\n")
    assert recipe_kind(str(path)) == "train"
    r = load_recipe(str(path))
    assert r.kind == "train" and r.data["epochs"] == 3
    assert r.data["optimizer"]["name"] == "adam"


def test_error_has_file_line_and_path(write_recipe):
    path = write_recipe("r.yaml", "benchmark: foreach\nmatrix:\n  hidden_dim: [4, 0]\n")
    with pytest.raises(RecipeError) as e:
        load_recipe(str(path))
    assert (e.value.line, e.value.path) == (3, ("matrix", "hidden_dim", 1))
    assert str(e.value).endswith(
        "r.yaml:3: matrix.hidden_dim[1]: expected an integer >= 1, got 0 (int)")
    assert "\n" not in str(e.value)


def test_empty_file_is_an_empty_recipe(write_recipe):
    path = write_recipe("r.yaml", "# nothing\n")
    assert load_recipe(str(path), {"benchmark": ["foreach"]}).data["seed"] == 0


def test_schema_is_declarative():
    s = Struct({"a": Key(ListOf(Enum("x", "y")), required=True), "n": Key(Int(min=2), default=2)})
    assert s.check({"a": "x"}, ()) == {"a": ["x"], "n": 2}
    assert s.check({"n": 3}, (), partial=True) == {"n": 3}
    with pytest.raises(RecipeError, match="missing required key"):
        s.check({}, ())
    assert set(BENCH_SCHEMA.keys) >= {"kind", "extends", "benchmark", "matrix", "rounds", "seed",
                                      "output", "baseline"}


def test_deep_merge_does_not_mutate():
    base = {"a": {"b": [1]}}
    out = deep_merge(base, {"a": {"c": 2}})
    assert out == {"a": {"b": [1], "c": 2}} and base == {"a": {"b": [1]}}
