"""Every kind of recipe mistake: exit 2, one line on stderr naming file, key path,
line and what was expected, no traceback, nothing run.

The CLI's `main` answers each case in this process (`run_cli_here`); the tests at the end run
`python -m gluonlite.bench` in a subprocess, as a user sees it."""
import pytest

from benchutil import run_cli, run_cli_here

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

GOOD = "benchmark: [foreach]\nrounds: {warmup: 0, test: 1}\n"

CASES = [
    # (name, recipe text, substrings the error line must contain)
    ("unknown_key", "benchmark: foreach\nmatrix:\n  seqlen: [10]\n",
     ["unknown.yaml:3:", "matrix.seqlen", "unknown key", "seq_len"]),
    ("unknown_top_key", "benchmark: foreach\nwarmup: 3\n",
     ["unknown.yaml:2:", "warmup", "unknown key", "rounds"]),
    ("wrong_type", "benchmark: foreach\nmatrix:\n  batch_size: [1, abc]\n",
     ["unknown.yaml:3:", "matrix.batch_size[1]", "expected an integer >= 1", "'abc'"]),
    ("wrong_type_bool", "benchmark: foreach\nmatrix: {is_train: [true, 1]}\n",
     ["matrix.is_train[1]", "expected true or false"]),
    ("wrong_mapping", "benchmark: foreach\nrounds: 5\n",
     ["unknown.yaml:2:", "rounds", "expected a mapping"]),
    ("bad_enum", "benchmark: [foreach, scan]\n",
     ["unknown.yaml:1:", "benchmark[1]", "one of foreach, while_loop", "'scan'"]),
    ("bad_cell", "benchmark: foreach\nmatrix:\n  cell: [LSTMCell, TreeCell]\n",
     ["matrix.cell[1]", "RNNCell, GRUCell, LSTMCell", "'TreeCell'"]),
    ("bad_ctx", "benchmark: foreach\nmatrix: {ctx: [tpu]}\n", ["matrix.ctx[0]", "gpu(N)"]),
    ("bad_kind", "kind: sweep\nbenchmark: foreach\n", ["unknown.yaml:1:", "kind", "bench, train"]),
    ("negative_rounds", "benchmark: foreach\nrounds: {warmup: -1}\n",
     ["rounds.warmup", "integer >= 0", "-1"]),
    ("yaml_syntax", "benchmark: foreach\nmatrix:\n  seq_len: [10\n  cell: x\n",
     ["unknown.yaml:4:", "invalid YAML"]),
    ("yaml_tab", "benchmark: foreach\n\tseed: 1\n", ["unknown.yaml:2:", "invalid YAML"]),
    ("duplicate_key", "benchmark: foreach\nseed: 1\nseed: 2\n",
     ["unknown.yaml:3:", "seed", "duplicate key", "line 2"]),
    ("not_a_mapping", "- benchmark\n", ["unknown.yaml:1:", "expected a mapping"]),
    ("missing_extends", "extends: ../configs/nope.yaml\nbenchmark: foreach\n",
     ["unknown.yaml:1:", "extends", "expected an existing recipe file", "nope.yaml"]),
    ("missing_benchmark", "matrix: {seq_len: [3]}\n",
     ["unknown.yaml", "benchmark", "missing required key", "--benchmark"]),
    ("train_bad_loop", "kind: train\ntask: adding\nmodel:\n  loop: scan\n",
     ["unknown.yaml:4:", "model.loop", "foreach, while_loop, unrolled", "'scan'"]),
    ("train_bad_lr", "kind: train\ntask: adding\noptimizer: {lr: 0}\n",
     ["unknown.yaml:3:", "optimizer.lr", "a number > 0"]),
    ("train_bench_key", "kind: train\ntask: adding\nmatrix: {}\n",
     ["unknown.yaml:3:", "matrix", "unknown key"]),
    ("train_missing_task", "kind: train\n", ["unknown.yaml", "task", "missing required key"]),
    ("python_tag", "benchmark: !!python/object/apply:os.system ['echo hi']\n",
     ["unknown.yaml:1:", "invalid YAML"]),
    ("bad_executor_kind", "benchmark: foreach\nexecutor: {kind: spark}\n",
     ["unknown.yaml:2:", "executor.kind", "one of local, dask", "'spark'"]),
    ("bad_executor_address", "benchmark: foreach\nexecutor:\n  kind: dask\n  address: a b\n",
     ["unknown.yaml:4:", "executor.address", "tcp://HOST:PORT", "'a b'"]),
    ("bad_executor_workers", "benchmark: foreach\nexecutor: {workers: 0}\n",
     ["unknown.yaml:2:", "executor.workers", "integer >= 1"]),
    ("bad_executor_key", "benchmark: foreach\nexecutor: {threads: 2}\n",
     ["unknown.yaml:2:", "executor.threads", "unknown key", "share_host"]),
    ("sweep_unknown_path", "kind: train\ntask: adding\nsweep:\n  optimizer.rate: [0.1]\n",
     ["unknown.yaml:4:", "sweep.optimizer.rate", "key path of a setting to vary",
      "'optimizer.rate'"]),
    ("sweep_bad_value", "kind: train\ntask: adding\nsweep:\n  model.loop:\n    - foreach\n"
     "    - scan\n", ["unknown.yaml:6:", "sweep.model.loop[1]", "unrolled", "'scan'"]),
    ("sweep_fixed_key", "kind: train\ntask: adding\nsweep: {output: [a.jsonl]}\n",
     ["unknown.yaml:3:", "sweep.output", "key path of a setting to vary"]),
    ("sweep_a_mapping", "kind: train\ntask: adding\nsweep: {model: [1]}\n",
     ["sweep.model", "ends at a value"]),
    ("sweep_not_a_list", "kind: train\ntask: adding\nsweep: {optimizer.lr: 0.1}\n",
     ["unknown.yaml:3:", "sweep.optimizer.lr", "non-empty list of values", "0.1"]),
    ("sweep_in_bench", "benchmark: foreach\nsweep: {seed: [1, 2]}\n",
     ["unknown.yaml:2:", "sweep", "unknown key"]),
]


def check_one_line(proc, must):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Time used" not in proc.stdout
    for text in must:
        assert text in lines[0], (text, lines[0])
    return lines[0]


@pytest.mark.parametrize("name,text,must", CASES, ids=[c[0] for c in CASES])
def test_recipe_mistake(tmp_path, name, text, must):
    (tmp_path / "recipes").mkdir()
    path = tmp_path / "recipes" / "unknown.yaml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = run_cli_here("--recipe", path, "--out", out, cwd=tmp_path)
    check_one_line(proc, must)
    assert not out.exists(), "a bad recipe must fail before any output is written"


def test_error_in_parent_names_parent_file(tmp_path, write_recipe):
    write_recipe("configs/base.yaml", "matrix:\n  hidden_dim: [8, -2]\n")
    child = write_recipe("recipes/child.yaml", "extends: ../configs/base.yaml\n" + GOOD)
    line = check_one_line(run_cli_here("--recipe", child, cwd=tmp_path),
                          ["base.yaml:2:", "matrix.hidden_dim[1]", "integer >= 1"])
    assert "child.yaml" not in line


def test_extends_cycle(tmp_path, write_recipe):
    write_recipe("a.yaml", "extends: b.yaml\n" + GOOD)
    b = write_recipe("b.yaml", "extends: a.yaml\n")
    check_one_line(run_cli_here("--recipe", b, cwd=tmp_path), ["extends", "cycle"])


def test_missing_recipe_file(tmp_path):
    check_one_line(run_cli_here("--recipe", tmp_path / "none.yaml", cwd=tmp_path),
                   ["none.yaml", "cannot read recipe"])


@pytest.mark.parametrize("args,must", [
    (["--benchmark", "scan"], ["--benchmark", "invalid choice"]),
    (["--benchmark", "foreach", "--test_rounds", "0"], ["--test_rounds", "integer >= 1"]),
    (["--benchmark", "foreach", "--warmup_rounds", "x"], ["--warmup_rounds", "'x'"]),
    (["--test_rounds", "3"], ["--benchmark"]),
    (["--benchmark", "foreach", "--resume"], ["--resume", "--out"]),
    (["--benchmark", "foreach", "--format", "pdf"], ["--format"]),
    (["--benchmark", "foreach", "--executor", "spark"], ["--executor", "invalid choice"]),
    (["--benchmark", "foreach", "--workers", "0"], ["--workers", "integer >= 1"]),
    (["--benchmark", "foreach", "--scheduler", "a b"], ["executor.address", "tcp://HOST:PORT"]),
    (["--benchmark", "foreach", "--executor", "local", "--scheduler", "tcp://h:1"],
     ["--scheduler needs --executor dask"]),
])
def test_bad_flags(tmp_path, args, must):
    check_one_line(run_cli_here(*args, cwd=tmp_path), must)


def test_bench_flags_rejected_for_train_recipe(tmp_path, write_recipe):
    path = write_recipe("t.yaml", "kind: train\ntask: adding\n")
    check_one_line(run_cli_here("--recipe", path, "--test_rounds", "3", cwd=tmp_path),
                   ["--test_rounds", "train recipe", "t.yaml"])


def test_unwritable_output_fails_before_first_case(tmp_path, write_recipe):
    (tmp_path / "file").write_text("not a folder")
    path = write_recipe("r.yaml", GOOD)
    proc = run_cli_here("--recipe", path, "--out", tmp_path / "file" / "out.jsonl", cwd=tmp_path)
    check_one_line(proc, ["out.jsonl", "cannot"])
    assert "Time used" not in proc.stdout and "Benchmarking" not in proc.stdout


def test_a_mistake_in_a_real_process_exits_2_with_one_line(tmp_path):
    path = tmp_path / "unknown.yaml"
    path.write_text(CASES[0][1], encoding="utf-8")
    check_one_line(run_cli("--recipe", path, "--out", tmp_path / "out.jsonl", cwd=tmp_path),
                   CASES[0][2])
    check_one_line(run_cli("--benchmark", "scan", cwd=tmp_path), ["--benchmark", "invalid choice"])


def test_help_works():
    proc = run_cli("--help")
    assert proc.returncode == 0 and "--benchmark" in proc.stdout and "--baseline" in proc.stdout
    assert "--executor {local,dask}" in proc.stdout and "--scheduler ADDRESS" in proc.stdout
