"""MXNet 1.9.1's own example programs (its ``example/`` tree), run unchanged on MXNet and on
gluonlite, one line per case.

Not part of the default suite: it needs MXNet's git history (``fetch github:apache/mxnet``)
and two venvs, one with MXNet 1.9.1 and one with gluonlite's ``mxnet`` companion
(``compat/make_venvs.sh``).

usage:
  python compat/examples.py list
  python compat/examples.py run --git GITDIR --mx MX_PYTHON --gl GL_PYTHON --work DIR
      [--ref 1.9.1] [--timeout 600] [--engine naive|threaded] [CASE ...]

``run`` copies the example directories the cases need out of the checkout at ``--ref`` (one
copy per side, so that checkpoints and logs do not mix), makes the synthetic data a case
needs, runs each case's command in each venv on one thread (``OMP_NUM_THREADS=1``, MXNet's
NaiveEngine; ``--engine threaded``: MXNet's default engine with one worker, under which a
Custom operator's own calls run in the graph's training mode, as on gluonlite; on the
NaiveEngine MXNet runs them in the caller's mode), and prints per case: each side's exit
status and CPU seconds, the ratio, and what was compared. The results go to
``DIR/results.json`` as well. It exits 1 when a program that runs on MXNet fails here or
prints other numbers (``stdout`` cases).

What a case compares:

- ``runs``: both exit 0 (the programs draw unseeded random data or weights);
- ``stdout``: the same printed numbers (each number compared to 1e-5 relative);
- ``metric``: both exit 0, and the last value of a named metric on each side is shown.

MNIST is never downloaded: a case that reads it gets small synthetic files of MNIST's formats
(ubyte in ``data/`` and gzipped beside), 3000 training and 600 test images of ten bars, which
a network learns in one epoch. The bucketing language models read a synthetic corpus of
Zipf-distributed words in place of the Sherlock Holmes text, and the sparse examples
synthetic MovieLens ratings, LibSVM files of a million features and census rows in UCI Adult's
layout (`make_sparse`).
"""
import argparse
import gzip
import json
import os
import re
import struct
import subprocess
import sys

import numpy as np

# name: (example directory, command, what to compare, synthetic data)
CASES = {
    **{f"benchmark_score.{net}": (
        "image-classification", ["benchmark_score.py", "--network", net, "--batch-size", "1"],
        "metric:images/sec", None)
        for net in ("alexnet", "vgg-16", "resnetv1-50", "resnet-50", "resnet-152",
                    "inception-bn", "inception-v3", "inception-v4", "inception-resnet-v2",
                    "mobilenet", "densenet121", "squeezenet1.1")},
    **{f"train_imagenet.{net}": (
        "image-classification", ["train_imagenet.py", "--benchmark", "1", "--network", net,
                                 *extra, "--batch-size", "2", "--num-epochs", "1",
                                 "--num-examples", "4", "--disp-batches", "1", "--gpus", ""],
        "metric:Train-accuracy", None)
        for net, extra in (("resnet", ["--num-layers", "18"]), ("mobilenet", []),
                           ("inception-bn", []), ("googlenet", []),
                           ("resnext", ["--num-layers", "50"]),
                           ("inception-v3", ["--image-shape", "3,299,299"]))},
    "train_mnist.mlp": ("image-classification",
                        ["train_mnist.py", "--num-epochs", "1", "--gpus", ""],
                        "metric:Validation-accuracy", "mnist"),
    "train_mnist.lenet": ("image-classification",
                          ["train_mnist.py", "--num-epochs", "1", "--gpus", "",
                           "--network", "lenet"], "metric:Validation-accuracy", "mnist"),
    "module.mnist_mlp": ("module", ["mnist_mlp.py"], "runs", "mnist"),
    "dsd.mlp": ("dsd", ["mlp.py", "--pruning_switch_epoch", "1,2,3", "--bias_sparsity",
                        "0,30,50", "--weight_sparsity", "0,50,70"],
                "metric:Validation-accuracy", "mnist"),
    "numpy-ops.custom_softmax": ("numpy-ops", ["custom_softmax.py"],
                                 "metric:Validation-accuracy", "mnist"),
    "numpy-ops.weighted_logistic_regression": (
        "numpy-ops", ["weighted_logistic_regression.py"], "stdout", None),
    "numpy-ops.custom_sparse_sqr": ("numpy-ops", ["custom_sparse_sqr.py"], "runs", None),
    "profiler.profiler_ndarray": ("profiler", ["profiler_ndarray.py"], "runs", None),
    "stochastic-depth.sd_mnist": ("stochastic-depth", ["sd_mnist.py"],
                                  "metric:Validation-accuracy", "mnist"),
    "svrg_module.example_api_train": ("svrg_module/api_usage_example",
                                      ["example_api_train.py", "-e", "6"], "runs", None),
    "svrg_module.example_inference": ("svrg_module/api_usage_example",
                                      ["example_inference.py", "-e", "6"], "runs", None),
    "gluon.image_classification.mobilenet0.25": (
        "gluon", ["image_classification.py", "--dataset", "dummy", "--model", "mobilenet0.25",
                  "--mode", "hybrid", "--batch-size", "1", "--epochs", "1", "-j", "0"],
        "metric:accuracy", None),
    "gluon.lstm_crf": ("gluon/lstm_crf", ["lstm_crf.py"], "runs", None),
    "rnn.lstm_bucketing": ("rnn/bucketing", ["lstm_bucketing.py", "--num-epochs", "1"],
                           "metric:Validation-perplexity", "text"),
    "rnn.cudnn_rnn_bucketing": (
        "rnn/bucketing", ["cudnn_rnn_bucketing.py", "--num-epochs", "1", "--num-layers", "2",
                          "--num-hidden", "64", "--num-embed", "64"],
        "metric:Validation-perplexity", "text"),
    "sparse.matrix_factorization": ("sparse/matrix_factorization",
                                    ["train.py", "--num-epoch", "1"], "metric:eval MSE =",
                                    "movielens"),
    "sparse.linear_classification": ("sparse/linear_classification",
                                     ["train.py", "--num-epoch", "1", "--batch-size", "1024"],
                                     "metric:eval nll =", "avazu"),
    "sparse.factorization_machine": (
        "sparse/factorization_machine",
        ["train.py", "--data-train", "data/train.libsvm", "--data-test", "data/test.libsvm",
         "--num-epoch", "1", "--batch-size", "500"], "metric:eval log loss =", "libsvm"),
    "sparse.wide_deep": ("sparse/wide_deep", ["train.py", "--num-epoch", "1"],
                         "metric:accuracy =", "adult"),
    "ssd.benchmark_score.resnet50": ("ssd", ["benchmark_score.py", "-n", "resnet50", "-b", "1"],
                                     "metric:imgs/s", None),
}

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# log lines that differ between runs by nature: clocks, speeds, MXNet's own notices
_VOLATILE = re.compile(r"Time cost|Speed|samples/sec|time cost|^\[\d\d:\d\d:\d\d\]|^\d{4}-\d\d-")


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _extract(git, ref, directory, dest):
    """Copy `example/<directory>`'s text files (and its parents' __init__ and helper modules
    the scripts import) at `ref` into `dest`."""
    names = subprocess.run(["git", "-C", git, "ls-tree", "-r", "--name-only", ref,
                            f"example/{directory}"], check=True, capture_output=True,
                           text=True).stdout.split()
    if not names:
        raise SystemExit(f"examples: {git} has no example/{directory} at {ref}")
    for name in names:
        if not name.endswith((".py", ".txt", ".json", ".sh", ".cfg")):
            continue
        out = os.path.join(dest, name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        blob = subprocess.run(["git", "-C", git, "show", f"{ref}:{name}"], capture_output=True)
        if blob.returncode == 0:
            with open(out, "wb") as f:
                f.write(blob.stdout)


def make_mnist(directory, n_train=3000, n_test=600, seed=0):
    """MNIST's four ubyte files in `directory`/data and gzipped in `directory`: images of ten
    horizontal bars (the label says which) on noise."""
    rng = np.random.default_rng(seed)
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = (rng.random((n, 28, 28)) * 60).astype(np.uint8)
        for i, c in enumerate(labels):
            images[i, 2 + 2 * c:4 + 2 * c, 4:24] = 250
        files = {f"{prefix}-images-idx3-ubyte": struct.pack(">IIII", 2051, n, 28, 28)
                 + images.tobytes(),
                 f"{prefix}-labels-idx1-ubyte": struct.pack(">II", 2049, n) + labels.tobytes()}
        for name, data in files.items():
            with open(os.path.join(directory, "data", name), "wb") as f:
                f.write(data)
            for where in (directory, os.path.join(directory, "data")):
                with gzip.open(os.path.join(where, name + ".gz"), "wb") as f:
                    f.write(data)


def make_text(directory, lines=(("train", 1500), ("valid", 200), ("test", 200)), seed=0):
    """The bucketing examples' corpus (``data/sherlockholmes.{train,valid,test}.txt``): lines
    of 5-39 words drawn from 300 with Zipf's frequencies."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(300)])
    p = 1.0 / np.arange(1, 301)
    p /= p.sum()
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    for name, n in lines:
        with open(os.path.join(directory, "data", f"sherlockholmes.{name}.txt"), "w") as f:
            for _ in range(n):
                f.write(" " + " ".join(rng.choice(words, size=rng.integers(5, 40), p=p)) + " \n")


def _libsvm(path, rng, n, n_features, nnz):
    """`n` lines of a binary label (30% ones) and `nnz` distinct features of value 1."""
    with open(path, "w") as f:
        for _ in range(n):
            idx = np.sort(rng.choice(n_features, nnz, replace=False))
            f.write(f"{int(rng.random() < 0.3)} " + " ".join(f"{k}:1" for k in idx) + "\n")


def make_sparse(directory, kind, seed=0):
    """The sparse examples' data: MovieLens 10M's split ratings (``user::movie::rating::time``
    in ``data/ml-10M100K/r1.{train,test}``, ids within the example's table sizes), Avazu's
    LibSVM files (``data/avazu-app[.t]``, a million features) or a pair of LibSVM files for
    the factorization machine (``data/{train,test}.libsvm``), or UCI Adult's census CSV
    (``data/adult.{data,test}``, kind ``adult``)."""
    rng = np.random.default_rng(seed)
    data = os.path.join(directory, "data")
    if kind == "movielens":
        os.makedirs(os.path.join(data, "ml-10M100K"), exist_ok=True)
        for name, n in (("r1.train", 20000), ("r1.test", 2000)):
            users, movies = rng.integers(1, 71568, n), rng.integers(1, 65134, n)
            scores = rng.integers(1, 11, n) / 2
            with open(os.path.join(data, "ml-10M100K", name), "w") as f:
                f.writelines(f"{u}::{m}::{r}::{978300760 + i}\n"
                             for i, (u, m, r) in enumerate(zip(users, movies, scores)))
        return
    os.makedirs(data, exist_ok=True)
    if kind == "adult":
        for name, n in (("adult.data", 6000), ("adult.test", 1500)):
            _adult(os.path.join(data, name), rng, n)
        return
    files = ((("avazu-app", 20000), ("avazu-app.t", 4000)) if kind == "avazu" else
             (("train.libsvm", 5000), ("test.libsvm", 1000)))
    for name, n in files:
        _libsvm(os.path.join(data, name), rng, n, 1000000, 15 if kind == "avazu" else 20)


# the census columns the wide-and-deep example reads, with values of the UCI Adult data's
# vocabularies (the example one-hot encodes five of them from fixed lists)
_ADULT_WORDS = {
    "workclass": ["Self-emp-not-inc", "Private", "State-gov", "Federal-gov", "Local-gov", "?",
                  "Self-emp-inc", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college",
                  "Assoc-acdm", "Assoc-voc", "7th-8th", "Doctorate", "Prof-school", "5th-6th",
                  "10th", "1st-4th", "Preschool", "12th"],
    "marital_status": ["Married-civ-spouse", "Divorced", "Married-spouse-absent",
                       "Never-married", "Separated", "Married-AF-spouse", "Widowed"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales",
                   "Exec-managerial", "Prof-specialty", "Handlers-cleaners", "Transport-moving"],
    "relationship": ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried",
                     "Other-relative"],
    "race": ["White", "Black", "Asian-Pac-Islander", "Other"],
    "gender": ["Female", "Male"],
    "native_country": ["United-States", "Mexico", "Philippines", "Germany", "Canada", "India"],
}


def _adult(path, rng, n):
    """`n` rows of UCI Adult's CSV layout (``age, workclass, fnlwgt, ..., income``); the
    income bracket leans on education and hours, so the model has something to learn."""
    w = {k: rng.integers(0, len(v), n) for k, v in _ADULT_WORDS.items()}
    age, hours = rng.integers(17, 80, n), rng.integers(10, 70, n)
    rich = (w["education"] % 4 == 0) & (hours > 35) | (rng.random(n) < 0.1)
    lines = []
    for i in range(n):
        words = {k: _ADULT_WORDS[k][w[k][i]] for k in _ADULT_WORDS}
        lines.append(", ".join(str(x) for x in (
            age[i], words["workclass"], 100000 + 37 * i, words["education"],
            1 + w["education"][i], words["marital_status"], words["occupation"],
            words["relationship"], words["race"], words["gender"], (i * 131) % 5000 * (i % 7 == 0),
            0, hours[i], words["native_country"], ">50K" if rich[i] else "<=50K")) + "\n")
    _write_atomic(path, "".join(lines))


_ENGINES = {"naive": {"MXNET_ENGINE_TYPE": "NaiveEngine"},
            "threaded": {"MXNET_ENGINE_TYPE": "ThreadedEnginePerDevice",
                         "MXNET_CPU_WORKER_NTHREADS": "1"}}


def _run_side(python, cwd, argv, timeout, engine="naive"):
    # PYTHONHASHSEED: the wide-and-deep example hashes its crossed columns with `hash`
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MPLBACKEND="Agg", PYTHONHASHSEED="0", **_ENGINES[engine])
    env.pop("PYTHONPATH", None)
    start = os.times()
    try:
        p = subprocess.run([python] + argv, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
            errors="replace")
    end = os.times()
    cpu = (end.children_user - start.children_user) + (end.children_system
                                                        - start.children_system)
    return {"rc": rc, "cpu_s": round(cpu, 2), "tail": out.strip().splitlines()[-3:],
            "out": out}


def _metric(out, name):
    """The last value printed for `name`: the number after it on its line (``accuracy=0.9``),
    else the number before it (``3.9 imgs/s``)."""
    values = []
    for line in out.splitlines():
        if name in line:
            before, after = line.split(name, 1)
            found = _NUMBER.findall(after)[:1] or _NUMBER.findall(before)[-1:]
            values += found
    return float(values[-1]) if values else None


def _stdout_numbers(out):
    return [float(x) for line in out.splitlines() if not _VOLATILE.search(line)
            for x in _NUMBER.findall(line)]


def compare(how, mx, gl):
    """A verdict string for one case from the two sides' runs."""
    if mx["rc"] != 0:
        return f"MXNet fails ({mx['rc']})"
    if gl["rc"] != 0:
        return f"gluonlite fails ({gl['rc']}): {gl['tail'][-1] if gl['tail'] else ''}"
    if how == "runs":
        return "both run"
    if how == "stdout":
        a, b = _stdout_numbers(mx["out"]), _stdout_numbers(gl["out"])
        if len(a) != len(b):
            return f"printed {len(b)} numbers, MXNet {len(a)}"
        worst = max((abs(x - y) / max(abs(x), 1e-12) for x, y in zip(a, b)), default=0.0)
        return f"same numbers ({len(a)}, largest relative difference {worst:.1e})" if \
            worst <= 1e-5 else f"numbers differ (largest relative difference {worst:.1e})"
    name = how.split(":", 1)[1]
    return f"{name}: MXNet {_metric(mx['out'], name)}, gluonlite {_metric(gl['out'], name)}"


def run(a):
    from tqdm import tqdm
    names = a.cases or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise SystemExit(f"examples: unknown case(s) {unknown}; `list` names them")
    os.makedirs(a.work, exist_ok=True)
    for side in ("mx", "gl"):
        for d in sorted({CASES[n][0] for n in names}):
            if not os.path.isdir(os.path.join(a.work, side, "example", d)):
                _extract(a.git, a.ref, d, os.path.join(a.work, side))
        for d, data in sorted({CASES[n][0::3] for n in names if CASES[n][3]}):
            where = os.path.join(a.work, side, "example", d)
            if data == "mnist":
                make_mnist(where)
            elif data == "text":
                make_text(where)
            else:
                make_sparse(where, data)
    results = {}
    rows = []
    for name in tqdm(names, desc="examples", unit="case"):
        directory, argv, how, _ = CASES[name]
        sides = {side: _run_side(py, os.path.join(a.work, side, "example", directory), argv,
                                 a.timeout, a.engine)
                 for side, py in (("mx", a.mx), ("gl", a.gl))}
        verdict = compare(how, sides["mx"], sides["gl"])
        ratio = (sides["gl"]["cpu_s"] / sides["mx"]["cpu_s"]) if sides["mx"]["cpu_s"] else None
        results[name] = {"verdict": verdict, "cpu_ratio": ratio,
                         **{s: {k: v for k, v in r.items() if k != "out"}
                            for s, r in sides.items()}}
        rows.append(f"| {name} | {sides['mx']['rc']} / {sides['mx']['cpu_s']} | "
                    f"{sides['gl']['rc']} / {sides['gl']['cpu_s']} | "
                    f"{'-' if ratio is None else f'{ratio:.2f}'} | {verdict} |")
    _write_atomic(os.path.join(a.work, "results.json"), json.dumps(results, indent=1))
    print("| case | MXNet rc / CPU s | gluonlite rc / CPU s | ratio | compared |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(rows))
    return 0 if all(r["verdict"].startswith(("both run", "same", "MXNet fails"))
                    or ": MXNet" in r["verdict"] for r in results.values()) else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the cases, one a line")
    r = sub.add_parser("run", help="run cases on both sides")
    r.add_argument("--git", required=True, help="a git checkout of apache/mxnet")
    r.add_argument("--ref", default="1.9.1")
    r.add_argument("--mx", required=True, help="the python of MXNet 1.9.1's venv")
    r.add_argument("--gl", required=True, help="the python of gluonlite's venv")
    r.add_argument("--work", required=True)
    r.add_argument("--timeout", type=float, default=600.0, help="seconds a side may run")
    r.add_argument("--engine", choices=sorted(_ENGINES), default="naive",
                   help="MXNet's engine (the module docstring says what changes)")
    r.add_argument("cases", nargs="*")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for name, (d, argv_, how, data) in CASES.items():
            print(f"{name}: example/{d}: {' '.join(argv_)} ({how}"
                  f"{f', synthetic {data}' if data else ''})")
        return 0
    for what in ("mx", "gl"):
        if not os.path.exists(getattr(a, what)):
            ap.error(f"--{what}: {getattr(a, what)} does not exist")
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
