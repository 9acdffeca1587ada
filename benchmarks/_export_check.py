"""The driver shared by the export benchmarks (cnn_export, rnn_layer_export): export every
case from gluonlite, run the same script under MXNet's interpreter on the exports, and print
one Markdown row of largest differences per case.

Each script keeps its own cases, its two sides and its error measure; `main` here parses
the common arguments and compares. Importing this module costs only numpy.

Example (in a benchmark script)::

    def main(argv=None):
        return export_check_main(argv, __doc__, __file__, _gluonlite_side, _mxnet_side,
                                 [c[0] for c in CASES], _err, TOL, "model")
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

__all__ = ["export_check_main"]


def export_check_main(argv, doc, script, gluonlite_side, mxnet_side, names, err, tol,
                      first_column, env=None):
    """Export, check under MXNet, print the table.

    Args:
        argv: the command-line arguments (None: sys.argv).
        doc: the script's docstring (its first line describes the command).
        script: the script's path, run again with ``--mxnet-side DIR`` under MXNet.
        gluonlite_side: ``f(dir)`` exporting every case into dir, returning
            ``{name: {"outs": [...], "grad_in": [...], "grad_params": {...}}}``.
        mxnet_side: ``f(dir)`` run under MXNet, writing ``<name>-mxnet.npz`` per case.
        names: the case names, in table order.
        err: ``f(ours, theirs)``, the difference of two arrays as a float.
        tol: the largest difference that passes.
        first_column: the heading of the case column.
        env: the environment of the MXNet process (None: this one's).

    Returns:
        the exit status: 0, 1 on a difference above `tol`, 2 when MXNet is not available
        or its side failed.
    """
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"))
    ap.add_argument("--keep", metavar="DIR", help="export into DIR and keep the files")
    ap.add_argument("--mxnet-side", metavar="DIR", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.mxnet_side:
        mxnet_side(a.mxnet_side)
        return 0
    if not a.mxnet_python:
        print("ERROR: give --mxnet-python (or set GLUONLITE_MXNET_PYTHON) to a python with "
              "mxnet 1.9.1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        tmp = a.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        ours = gluonlite_side(tmp)
        run = subprocess.run([a.mxnet_python, os.path.abspath(script), "--mxnet-side", tmp],
                             capture_output=True, text=True, env=env)
        if run.returncode:
            print(f"ERROR: the MXNet side failed:\n{run.stderr[-3000:]}", file=sys.stderr)
            return 2
        print(f"| {first_column} | ops | outputs | input grads | parameter grads |")
        print("|---|---|---:|---:|---:|")
        worst = 0.0
        for name in names:
            base = os.path.join(tmp, name)
            ops = sorted({n["op"] for n in json.load(open(base + "-symbol.json"))["nodes"]}
                         - {"null"})
            theirs = np.load(base + "-mxnet.npz")
            mine = ours[name]
            e_out = max(err(o, theirs[f"out{i}"]) for i, o in enumerate(mine["outs"]))
            cells = [f"{e_out:.1e}"]
            errs = [e_out]
            if "grad_in0" in theirs.files:
                e_in = max(err(g, theirs[f"grad_in{i}"]) for i, g in enumerate(mine["grad_in"]))
                e_p = max(err(g, theirs[f"grad_{k}"]) for k, g in mine["grad_params"].items())
                cells += [f"{e_in:.1e}", f"{e_p:.1e}"]
                errs += [e_in, e_p]
            else:
                cells += ["(inference only)", "(inference only)"]
            worst = max([worst] + errs)
            print(f"| {name} | {', '.join(ops)} | " + " | ".join(cells) + " |")
    print(f"\nlargest difference {worst:.1e} (tolerance {tol})")
    return 0 if worst <= tol else 1
