"""Check `gluonlite/ops/libm32.py` against the C library's float32 ``expf`` and ``logf`` on
every float32 input of their domains.

Two measurements per function, chunk by chunk over the inputs' bit patterns:

- ``check``: libm32's float64 arithmetic (glibc's, written in numpy) rounded to float32,
  against the C library. It counts the inputs where they differ and the nearest any of
  those lies to a float32 midpoint, in float64 units: libm32 asks the C library itself for
  every entry within ``libm32.ASK_UNITS`` units, so that distance must be below it. It
  also counts the entries libm32 asks for, and checks libm32's own result (with its asks)
  equal to the C library's on every input.
- ``margins``: where the correctly rounded value (the float64 function rounded to float32)
  differs from the C library, the largest distance from the midpoint, in units in the last
  place, per binade of the result: ``libm32.EXPF_MARGIN`` is expf's.

    python compat/libm_check.py [--fn logf expf] [--what check margins] [--out r.json]

The C library is called through a small C helper compiled with ``cc`` when one is found
(a chunk of four million inputs a call: about two minutes a function), otherwise through
ctypes one input a call (about six minutes a billion inputs). Prints the C library's
version and one line per function and measurement.
"""
import argparse
import ctypes
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gluonlite.ops import libm32  # noqa: E402

# the inputs, as float32 bit patterns [first, last]: logf over every positive finite float32;
# expf over [-104, 88.8] (beyond it the result is 0 or inf), negative and positive
RANGES = {"logf": [(0x00000001, 0x3f800000), (0x3f800001, 0x7f7fffff)],
          "expf": [(0x80000000, 0xc2d00000), (0x00000001, 0x42b1999a)]}
_CHUNK = 1 << 22
_HELPER = """
#include <math.h>
void fill_expf(const float *x, float *y, long n) { for (long i = 0; i < n; i++) y[i] = expf(x[i]); }
void fill_logf(const float *x, float *y, long n) { for (long i = 0; i < n; i++) y[i] = logf(x[i]); }
"""


def _compiled_helper(folder):
    src, lib = os.path.join(folder, "fill.c"), os.path.join(folder, "fill.so")
    with open(src, "w") as fh:
        fh.write(_HELPER)
    try:
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, src, "-lm"],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return ctypes.CDLL(lib)


def c_library(name, folder):
    """A function float32 array -> the C library's `name` of each entry."""
    helper = _compiled_helper(folder)
    if helper is not None:
        fill = getattr(helper, "fill_" + name)

        def call(x):
            y = np.empty_like(x)
            fill(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(y.ctypes.data), len(x))
            return y
        return call
    f = getattr(ctypes.CDLL("libm.so.6"), name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return lambda x: np.fromiter(map(f, x.tolist()), np.float32, len(x))


def _same(a, b):
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def _dropped_distance(y):
    """How far float64 `y` lies from a float32 midpoint, in float64 units (normal results)."""
    return np.abs((y.view(np.int64) & ((1 << 29) - 1)) - (1 << 28))


def check_chunk(name, x, want, tally):
    """libm32's arithmetic and libm32 itself against the C library's values `want`."""
    arithmetic = libm32._glibc_logf if name == "logf" else libm32._glibc_expf
    with np.errstate(all="ignore"):
        y = arithmetic(x)
        raw = y.astype(np.float32)
    differ = ~_same(raw, want)
    normal = np.abs(y) >= 2.0 ** -126
    tally["inputs"] += len(x)
    tally["asked"] += int((_dropped_distance(y[normal]) <= libm32.ASK_UNITS).sum())
    if differ.any():
        tally["differ"] += int(differ.sum())
        # a subnormal result's grid is 2^-149: its distance in those units, scaled alike
        d = np.where(normal, _dropped_distance(y), 0)[differ]
        tally["nearest_units"] = max(tally["nearest_units"], int(d.max()))
        tally["examples"] += [hex(v) for v in x[differ][:3].view(np.uint32)]
    got = getattr(libm32, name)(x)
    tally["libm32_differ"] += int((~_same(got, want)).sum())


def margins_chunk(name, x, want, worst):
    """Per binade of the result: the largest distance from the midpoint (units in the last
    place) where the correctly rounded value differs from the C library's."""
    with np.errstate(all="ignore"):
        v = (np.log if name == "logf" else np.exp)(x.astype(np.float64))
        rounded = v.astype(np.float32)
    differ = ~_same(rounded, want) & np.isfinite(rounded) & (np.abs(v) >= 2.0 ** -126)
    if not differ.any():
        return
    v, near = v[differ], rounded[differ]
    other = np.nextafter(near, np.where(v > near, np.float32(np.inf), np.float32(-np.inf)))
    gap = np.abs(other.astype(np.float64) - near)
    dist = np.abs(v - (near.astype(np.float64) + other) / 2) / gap
    binade = np.frexp(v)[1] - 1   # floor(log2 |v|), exactly
    for b in np.unique(binade).tolist():
        sel = binade == b
        d, n = worst.get(b, (0.0, 0))
        worst[b] = (max(d, float(dist[sel].max())), n + int(sel.sum()))


def run(name, what, folder, inputs=None, progress=True):
    """Both measurements of `name` over its ranges (the first `inputs` of each, if given)."""
    oracle = c_library(name, folder)
    tally = {"inputs": 0, "differ": 0, "nearest_units": 0, "asked": 0, "libm32_differ": 0,
             "examples": []}
    worst = {}
    for first, last in RANGES[name]:
        if inputs:
            last = min(last, first + inputs - 1)
        starts = range(first, last + 1, _CHUNK)
        for start in tqdm(starts, desc=f"{name} {first:#x}", unit="chunk", disable=not progress):
            x = np.arange(start, min(start + _CHUNK, last + 1), dtype=np.uint32).view(np.float32)
            want = oracle(x)
            if "check" in what:
                check_chunk(name, x, want, tally)
            if "margins" in what:
                margins_chunk(name, x, want, worst)
    tally["examples"] = tally["examples"][:12]
    return {"check": tally if "check" in what else None,
            "margins": ({str(b): d for b, (d, _) in sorted(worst.items())}
                        if "margins" in what else None),
            "margins_differ": sum(n for _, n in worst.values())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fn", nargs="+", default=list(RANGES), choices=list(RANGES))
    ap.add_argument("--what", nargs="+", default=["check", "margins"],
                    choices=["check", "margins"])
    ap.add_argument("--out", help="also write the results here (JSON)")
    ap.add_argument("--inputs", type=int, default=None,
                    help="only the first N inputs of each range (a quick look)")
    a = ap.parse_args(argv)
    report = {"libc": " ".join(platform.libc_ver()), "functions": {}}
    print(f"C library: {report['libc']}; libm32 uses it: "
          f"logf {libm32.has_c_library('logf')}, expf {libm32.has_c_library('expf')}")
    with tempfile.TemporaryDirectory() as folder:
        for name in a.fn:
            r = run(name, a.what, folder, a.inputs)
            report["functions"][name] = r
            c = r["check"]
            if c:
                print(f"{name} check: {c['inputs']} inputs; the arithmetic's float32 differs "
                      f"on {c['differ']}, the nearest {c['nearest_units']} units from a "
                      f"midpoint (asked within {libm32.ASK_UNITS}); libm32 asks "
                      f"{c['asked']}; libm32 differs on {c['libm32_differ']}")
            if r["margins"] is not None:
                m = r["margins"]
                top = max(m, key=m.get) if m else None
                print(f"{name} margins: the correctly rounded value differs on "
                      f"{r['margins_differ']}, in {len(m)} binades of the result, at most "
                      f"{m.get(top, 0.0):.6g} units in the last place (binade {top}); "
                      f"--out writes each")
    if a.out:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(report, fh, indent=1)
        os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
