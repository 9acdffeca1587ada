"""Whether numpy's OpenBLAS runs a kernel made for this CPU, and what to set when it does not.

OpenBLAS picks its kernels once, when it is loaded, from the CPU's model number. A release
older than the CPU does not know that number and falls back to its generic SSE3 kernel,
"Prescott". numpy 1.23.5's OpenBLAS 0.3.20 does so on Emerald Rapids Xeons (family 6,
model 207). There its float32 matrix products run 4.5x slower than with the AVX-512 kernel
the same library holds: 31 ms against 6.9 ms for a (512, 4608) by (4608, 196) product, and
ResNet-18's hybridized forward at batch 1 takes 202 ms against 48 ms on numpy 2.4's OpenBLAS.

numpy 1.23 is what MXNet-era code pins, so convolutions, Dense layers and RNNs would all pay
this without a word. The kernel is chosen before any Python code runs, so gluonlite cannot
change it. When it is imported it says so once, with the setting that does: the environment
variable ``OPENBLAS_CORETYPE``, set before Python starts. Nothing is said when that variable
is already set, when the kernel is not a generic one, or where the CPU has no wider vector
unit for OpenBLAS to use. ``GLUONLITE_BLAS_CHECK=0`` turns the check off.

Example::

    from gluonlite import blas_kernel
    blas_kernel.advice("Prescott", {"avx2", "fma", "avx512f", "avx512bw", "avx512dq",
                                    "avx512vl"})          # 'SkylakeX'
"""
import ctypes
import os
import warnings

__all__ = ["ENV_VAR", "SlowBlasWarning", "advice", "loaded_kernels", "cpu_flags", "check"]

ENV_VAR = "GLUONLITE_BLAS_CHECK"
# OpenBLAS's kernels for CPUs without AVX: what an unknown CPU falls back to
_GENERIC = frozenset({"prescott", "core2", "penryn", "dunnington", "nehalem", "katmai",
                      "coppermine", "northwood", "banias", "atom", "generic"})
_AVX512 = frozenset({"avx512f", "avx512bw", "avx512dq", "avx512vl"})
# the exported names of openblas_get_corename across builds (numpy 1.x's ILP64 build adds
# the 64_ suffix, numpy 2's scipy-openblas the prefix)
_SYMBOLS = ("openblas_get_corename64_", "openblas_get_corename",
            "scipy_openblas_get_corename64_", "scipy_openblas_get_corename")


class SlowBlasWarning(RuntimeWarning):
    """numpy's OpenBLAS runs a generic kernel on a CPU that has a faster one (`check`).

    Example::

        import warnings
        from gluonlite import blas_kernel
        warnings.simplefilter("ignore", blas_kernel.SlowBlasWarning)   # once advised
    """


def advice(core, cpu_flags):
    """The ``OPENBLAS_CORETYPE`` that would give a CPU with `cpu_flags` its fast kernels, when
    OpenBLAS fell back to the generic kernel `core`; None when there is nothing better.

    Args:
        core: the kernel OpenBLAS chose (its ``openblas_get_corename``), e.g. "Prescott".
        cpu_flags: the CPU's feature flags, as /proc/cpuinfo names them.

    Returns:
        str or None: "SkylakeX" (AVX-512), "Haswell" (AVX2 and FMA) or None.

    Example::

        from gluonlite import blas_kernel
        blas_kernel.advice("Haswell", {"avx2", "fma"})      # None: not a generic kernel
    """
    if core.lower() not in _GENERIC:
        return None
    if _AVX512 <= set(cpu_flags):
        return "SkylakeX"
    if {"avx2", "fma"} <= set(cpu_flags):
        return "Haswell"
    return None


def loaded_kernels():
    """{library file: kernel name} of each OpenBLAS loaded into this process (Linux).

    Returns:
        dict: empty where /proc/self/maps cannot be read or no OpenBLAS is loaded.

    Example::

        import numpy
        from gluonlite import blas_kernel
        blas_kernel.loaded_kernels()   # {'/.../numpy.libs/libscipy_openblas64_-...so': 'SkylakeX'}
    """
    try:
        with open("/proc/self/maps") as f:
            # address, permissions, offset, device, inode, then the mapped file's path
            rows = [line.split(None, 5) for line in f if "openblas" in line.lower()]
        paths = {r[5].strip() for r in rows if len(r) == 6}
    except OSError:
        return {}
    kernels = {}
    for path in sorted(p for p in paths if p.startswith("/")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SYMBOLS:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                kernels[path] = (fn() or b"").decode()
                break
    return kernels


def cpu_flags():
    """The CPU's feature flags as /proc/cpuinfo lists them (Linux; empty elsewhere).

    Returns:
        set of str: e.g. {"avx2", "fma", "avx512f", ...}.

    Example::

        from gluonlite import blas_kernel
        "sse2" in blas_kernel.cpu_flags()       # True on x86-64 Linux
    """
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def check():
    """Warn (`SlowBlasWarning`, once per library) where a loaded OpenBLAS runs a generic
    kernel on a CPU that has a faster one, naming the ``OPENBLAS_CORETYPE`` to set.

    Returns:
        str or None: the suggested ``OPENBLAS_CORETYPE``, or None when all is well.

    Example::

        from gluonlite import blas_kernel
        blas_kernel.check()         # None with a kernel made for this CPU
    """
    generic = {p: k for p, k in loaded_kernels().items() if k.lower() in _GENERIC}
    if not generic:
        return None
    flags = cpu_flags()
    first = None
    for path, core in generic.items():
        suggestion = advice(core, flags)
        if suggestion is None:
            continue
        first = first or suggestion
        warnings.warn(
            f"gluonlite: the OpenBLAS loaded here ({os.path.basename(path)}) does not know "
            f"this CPU and runs its generic {core!r} kernel, several times slower on matrix "
            f"products (convolutions, Dense, RNNs). Set OPENBLAS_CORETYPE={suggestion} in the "
            "environment before starting Python (docs/guide/mxnet-import.md, 'numpy 1.23 on "
            f"recent CPUs'); {ENV_VAR}=0 silences this check.", SlowBlasWarning, stacklevel=3)
    return first


def _at_import():
    """`check` when gluonlite is imported, unless the user chose a kernel or turned it off."""
    if os.environ.get(ENV_VAR, "1") == "0" or os.environ.get("OPENBLAS_CORETYPE"):
        return None
    return check()
