"""Every operator of the registry walk on MXNet 1.9.1 and here, on the same random inputs, at
the walk's scale and at larger ones: where the two disagree beyond float32 rounding.

    # once per side, with the python whose `import mxnet` is that side
    /work/venvs/compat/mx/bin/python compat/op_sweep.py run /tmp/sweep-mx.npz
    /work/venvs/compat/gl/bin/python compat/op_sweep.py run /tmp/sweep-gl.npz
    python3 compat/op_sweep.py compare /tmp/sweep-mx.npz /tmp/sweep-gl.npz

`run` takes each entry of tests/core/walk_specs (the inputs and attributes the suite's walk
checks every operator with), draws its inputs from a seed of its own, multiplies the signed
and positive ones by each of SCALES (1 is the walk's own magnitudes, 0.5 to 1.5; the larger
ones reach where kernels floor, clip or overflow), and records the float32 outputs and the
gradients of the first output (a head of random signs) in the named file, with what a side raised.
Operators MXNet 1.9.1 lacks, or reaches under another name than these, are skipped on both
sides (the lookup is `_find`). `compare` prints every output or gradient whose largest
difference exceeds RTOL of its largest entry and ATOL (NaN equal to NaN), and what one side
raised where the other computed; it exits 1 where any differs.

The walk's entries are the suite's; this sweep is outside it (it needs MXNet), and
compat/RESULTS.md says what it found.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCALES = (1.0, 8.0, 64.0)
RTOL = 1e-4
ATOL = 1e-6  # below it, a difference is float32 rounding around zero
STALL_SECONDS = 30


def _specs():
    # the entries' numpy references import a gluonlite helper or two, also on MXNet's side
    sys.path[:0] = [os.path.join(HERE, "..", "tests", "core"), os.path.join(HERE, "..")]
    from walk_specs import SPECS
    from walk_specs.common import Idx, Pos
    return SPECS, Idx, Pos


def _find(mx, name):
    """The side's function for operator `name` and whether it takes `mx.np` arrays, or
    (None, False)."""
    nd = mx.nd
    for prefix, space in (("_contrib_", "contrib"), ("_linalg_", "linalg"),
                          ("_image_", "image")):
        if name.startswith(prefix):
            f = getattr(getattr(nd, space), name[len(prefix):], None)
            if f is not None:
                return f, False
    if name.startswith(("_np", "_npi_", "_npx_")):
        f = getattr(nd.numpy._internal, name, None)
        return f, f is not None
    f = getattr(nd, name, None) or getattr(nd._internal, name, None)
    return f, False


def _inputs(check, scale, Idx, Pos, seed):
    rng = np.random.RandomState(seed)
    out = []
    for spec in check["inputs"]:
        if isinstance(spec, Idx):
            out.append(spec.values.copy())
        elif isinstance(spec, Pos):
            out.append(rng.uniform(0.5, 1.5, spec.shape) * scale)
        elif isinstance(spec, np.ndarray):
            out.append(spec.astype(np.float64))
        else:
            out.append(rng.uniform(0.5, 1.5, spec) * rng.choice([-1.0, 1.0], spec) * scale)
    return out


def _call(mx, f, as_np, arrays, attrs, train):
    """(outputs as float64 numpy arrays, gradients of the first output, or the error text
    of the gradient pass)."""
    make = mx.np.array if as_np else mx.nd.array
    xs = [make(a.astype(np.float32)) for a in arrays]
    for x in xs:
        x.attach_grad()
    mx.random.seed(7)
    with mx.autograd.record(train_mode=train):
        out = f(*xs, **attrs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    values = [np.asarray(o.asnumpy(), dtype=np.float64) for o in outs]
    try:
        # a head of random signs: a head of ones makes many gradients zero in exact
        # arithmetic (a normalization's, a softmax's), and rounding noise is all they show
        head = np.random.RandomState(3).choice([-1.0, 1.0], outs[0].shape).astype(np.float32)
        outs[0].backward(make(head))
        grads = [np.asarray(x.grad.asnumpy(), dtype=np.float64) for x in xs]
    except Exception as e:  # noqa: BLE001  (a side without a gradient: recorded)
        grads = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
    return values, grads


def _run_operator(mx, name, f, as_np, checks, Idx, Pos):
    """{key: array} and {key: error} of every check and scale of one operator."""
    arrays, errors = {}, {}
    for i, check in enumerate(checks):
        for scale in SCALES:
            key = f"{name}|{i}|{scale:g}"
            data = _inputs(check, scale, Idx, Pos, zlib.crc32(f"{name}|{i}".encode()))
            try:
                values, grads = _call(mx, f, as_np, data, check["attrs"], check["train"])
            except Exception as e:  # noqa: BLE001  (recorded per side, compared)
                errors[key] = f"{type(e).__name__}: {_first_line(e)}"
                continue
            for k, v in enumerate(values):
                arrays[f"{key}|out{k}"] = v
            if isinstance(grads, str):
                errors[key + "|grad"] = grads
            else:
                for k, g in enumerate(grads):
                    arrays[f"{key}|grad{k}"] = g
    return arrays, errors


def _first_line(e):
    """The line of an error that says what went wrong (MXNet's messages open with its
    traceback: the check that failed is further down)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    said = [ln for ln in lines if "Check failed" in ln or "Error:" in ln]
    return (said or lines or [""])[-1][:160]


def _child(mx, tmp, start):
    """Run the operators from index `start` on, each one's results pickled to its own file
    in `tmp` as soon as it is done (a name MXNet lacks gets an empty one)."""
    SPECS, Idx, Pos = _specs()
    for index, name in enumerate(sorted(SPECS)):
        if index < start:
            continue
        f, as_np = _find(mx, name)
        result = ({}, {})
        if f is not None:
            checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
            result = _run_operator(mx, name, f, as_np, checks, Idx, Pos)
        part = os.path.join(tmp, f"{index:05d}.pkl")
        with open(part + ".tmp", "wb") as fh:
            pickle.dump(result, fh)
        os.rename(part + ".tmp", part)


def _done(tmp):
    return [int(n[:5]) for n in os.listdir(tmp) if n.endswith(".pkl")]


def _watch(command, tmp):
    """Run a child until it exits, or kill it once it has finished no operator for
    STALL_SECONDS (some of MXNet's kernels hang on inputs they refuse). Returns (exit
    status, what went wrong)."""
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stderr=err, stdout=subprocess.DEVNULL)
        seen, last = len(_done(tmp)), time.monotonic()
        while child.poll() is None:
            time.sleep(0.2)
            now = len(_done(tmp))
            if now != seen:
                seen, last = now, time.monotonic()
            elif time.monotonic() - last > STALL_SECONDS:
                child.kill()
                child.wait()
                return -1, f"the process hung (no result in {STALL_SECONDS} s)"
        err.seek(0)
        tail = (err.read().strip().splitlines() or [f"status {child.returncode}"])[-1]
        return child.returncode, f"the process died ({tail[:120]})"


def run(path):
    """All operators, in child processes (some of MXNet's kernels crash the process on
    inputs they refuse): a child that dies is replaced by one that starts after the
    operator it died on, which is recorded as an error. The whole goes to `path`."""
    SPECS, _, _ = _specs()
    names = sorted(SPECS)
    arrays, errors = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        start = 0
        while start < len(names):
            status, why = _watch([sys.executable, "-W", "ignore", os.path.abspath(__file__),
                                  "_child", tmp, str(start)], tmp)
            if status == 0:
                break
            died = max(_done(tmp), default=start - 1) + 1
            if died >= len(names):
                break
            print(f"{names[died]}: {why}", file=sys.stderr)
            errors[f"{names[died]}|0|1"] = why
            start = died + 1
        for part in sorted(os.listdir(tmp)):
            if part.endswith(".pkl"):
                with open(os.path.join(tmp, part), "rb") as fh:
                    a, e = pickle.load(fh)
                arrays.update(a)
                errors.update(e)
    arrays["__errors__"] = np.array(json.dumps(errors))
    np.savez_compressed(path, **arrays)


def compare(ref_path, got_path):
    ref, got = np.load(ref_path), np.load(got_path)
    ref_err = json.loads(str(ref["__errors__"]))
    got_err = json.loads(str(got["__errors__"]))
    bad = 0
    for key in sorted(set(ref.files) - {"__errors__"}):
        case = key.rsplit("|", 1)[0]
        if key not in got.files:
            why = got_err.get(case) or got_err.get(case + "|grad") or "no such output"
            print(f"{key}: MXNet computes, here {why}")
            bad += 1
            continue
        a, b = ref[key], got[key]
        if a.shape != b.shape:
            print(f"{key}: shape {a.shape} on MXNet, {b.shape} here")
            bad += 1
            continue
        finite = np.isfinite(a) & np.isfinite(b)
        # NaN against NaN and an infinity against the same one agree; any other non-finite
        # entry on either side is a difference
        odd = ~finite & ~((a == b) | (np.isnan(a) & np.isnan(b)))
        diff = np.abs(a[finite] - b[finite])
        scale = np.abs(a[finite]).max() if finite.any() else 1.0
        worst = diff.max() if diff.size else 0.0
        if odd.any() or worst > max(RTOL * scale, ATOL):
            print(f"{key}: differs by {worst:.3g} (largest |MXNet| {scale:.3g})")
            bad += 1
    for case in sorted({k.rsplit("|", 1)[0] for k in set(got.files) - set(ref.files)
                        - {"__errors__"}}):
        why = ref_err.get(case) or ref_err.get(case + "|grad")
        if why:
            print(f"{case}: computed here, MXNet {why}")
    print(f"{bad} differences")
    return 1 if bad else 0


def main(argv):
    if len(argv) == 2 and argv[0] == "run":
        run(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "_child":
        import mxnet
        _child(mxnet, argv[1], int(argv[2]))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(argv[1], argv[2])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
