"""Measure where the C library's float32 ``expf`` and ``logf`` differ from the correctly
rounded value, over every float32 input of a range: the margins `gluonlite/ops/libm32.py`
keeps.

For each input it computes the float64 function rounded to float32 and the C library's
value (through ctypes). Where they differ, the float64 value lies near the midpoint between
two float32 values; the script records, per binade of the result (``floor(log2 |v|)``), the
largest distance from that midpoint (in units in the last place) at which they differ. Every
input of the range is measured, so an entry farther from a midpoint than its binade's margin
never differs: libm32 computes it in float64 and asks the C library only for the entries
within the margin.

    python compat/libm_margins.py [--fn logf expf] [--out margins.json]

Each range holds about a billion inputs, six minutes each on one core (a ctypes call an
input). Prints the margins as the Python literal libm32 holds, and the C library's version.
"""
import argparse
import ctypes
import ctypes.util
import json
import os
import platform

import numpy as np
from tqdm import tqdm

# the inputs measured, as float32 bit patterns [first, last]: logf over every positive finite
# float32, expf over [-89, 89] (below -89 its results are subnormal, which libm32 always asks
# for, and above 88.73 infinite)
RANGES = {"logf": [(0x00000001, 0x3f800000), (0x3f800001, 0x7f7fffff)],
          "expf": [(0x80000000, 0xc2b20000), (0x00000001, 0x42b20000)]}
_CHUNK = 1 << 21


def _function(name):
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    f = getattr(libm, name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return f


def measure(name, first, last, progress=True):
    """{binade: (largest distance from the midpoint where they differ, in units in the last
    place; how many differ)} of `name` over the float32 inputs with bit patterns
    first..last, and the number of inputs."""
    f, exact = _function(name), (np.log if name == "logf" else np.exp)
    worst, total = {}, 0
    starts = range(first, last + 1, _CHUNK)
    for start in tqdm(starts, desc=name, unit="chunk", disable=not progress):
        x = np.arange(start, min(start + _CHUNK, last + 1), dtype=np.uint32).view(np.float32)
        v = exact(x.astype(np.float64))
        rounded = v.astype(np.float32)
        libm = np.fromiter(map(f, x.tolist()), np.float32, len(x))
        differ = (libm != rounded) & np.isfinite(rounded)
        total += len(x)
        if not differ.any():
            continue
        v, near = v[differ], rounded[differ]
        other = np.nextafter(near, np.where(v > near, np.float32(np.inf), np.float32(-np.inf)))
        gap = np.abs(other.astype(np.float64) - near)
        dist = np.abs(v - (near.astype(np.float64) + other) / 2) / gap  # units in the last place
        binade = np.frexp(v)[1] - 1  # floor(log2 |v|), exactly
        for b in np.unique(binade).tolist():
            sel = binade == b
            d, n = worst.get(b, (0.0, 0))
            worst[b] = (max(d, float(dist[sel].max())), n + int(sel.sum()))
    return worst, total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fn", nargs="+", default=list(RANGES), choices=list(RANGES))
    ap.add_argument("--out", help="also write the measurements here (JSON)")
    ap.add_argument("--inputs", type=int, default=None,
                    help="measure only the first N inputs of each range (a quick look)")
    a = ap.parse_args(argv)
    report = {"libc": " ".join(platform.libc_ver()), "functions": {}}
    for name in a.fn:
        worst, total = {}, 0
        for first, last in RANGES[name]:
            if a.inputs:
                last = min(last, first + a.inputs - 1)
            part, n = measure(name, first, last)
            total += n
            for b, (d, k) in part.items():
                d0, k0 = worst.get(b, (0.0, 0))
                worst[b] = (max(d, d0), k + k0)
        report["functions"][name] = {"inputs": total,
                                     "ranges": [[hex(f), hex(t)] for f, t in RANGES[name]],
                                     "differ": sum(n for _, n in worst.values()),
                                     "margins": {str(b): d for b, (d, _) in sorted(worst.items())}}
        print(f"{name}: {report['functions'][name]['differ']} of {total} inputs differ "
              f"({report['libc']})")
        print("    {" + ", ".join(f"{b}: {d!r}" for b, (d, _) in sorted(worst.items())) + "}")
    if a.out:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(report, fh, indent=1)
        os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
