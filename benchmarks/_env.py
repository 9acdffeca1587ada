"""The environment of a benchmark run: thread settings, the BLAS kernel in use, the header
lines every script prints first.

Importing this module sets one BLAS/OpenMP thread unless the caller set otherwise, before
numpy loads OpenBLAS: the other benchmark helpers that import numpy import this module first.

Example:
    >>> from _env import env_header                                # doctest: +SKIP
    >>> print("\\n".join(env_header()))                            # doctest: +SKIP
"""
import ctypes
import os
import platform


# One BLAS/OpenMP thread unless the caller set otherwise: on a shared 2-core box, threads
# of our BLAS, MXNet's OpenMP pool (inherited by its subprocess) and other jobs fight for
# cores and the medians swing by 3x. Set before numpy loads OpenBLAS; reported in the header.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

__all__ = ["THREAD_VARS", "blas_info", "env_header"]

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "MXNET_ENGINE_TYPE",
               "MXNET_CPU_WORKER_NTHREADS")


# ---- environment -------------------------------------------------------------------------
def _loaded_blas_libs():
    """Paths of the BLAS shared libraries this process has mapped (Linux only)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = {line.split()[-1] for line in f if "/" in line}
    except OSError:
        return []
    keys = ("openblas", "libmkl_rt", "libblis", "libflexiblas")
    return sorted(p for p in paths if any(k in os.path.basename(p).lower() for k in keys))


def _openblas_query(path):
    """(corename, threads, config) of one OpenBLAS build, through its exported symbols."""
    lib = ctypes.CDLL(path)
    for prefix, suffix in (("scipy_openblas_", "64_"), ("scipy_openblas_", ""),
                           ("openblas_", "64_"), ("openblas_", "")):
        try:
            core = getattr(lib, f"{prefix}get_corename{suffix}")
            conf = getattr(lib, f"{prefix}get_config{suffix}")
            threads = getattr(lib, f"{prefix}get_num_threads{suffix}")
        except AttributeError:
            continue
        core.restype = conf.restype = ctypes.c_char_p
        return core().decode(), int(threads()), conf().decode().strip()
    return None


def blas_info():
    """One line per BLAS library in use: kernel (core) name, threads, version.

    Uses threadpoolctl when it imports; otherwise asks each OpenBLAS mapped into the
    process for its core name (`openblas_get_corename`), and falls back to the summary
    of `numpy.show_config` (the build configuration, not the runtime kernel).

    Returns:
        list of str.

    Example:
        >>> blas_info()                                          # doctest: +SKIP
        ['openblas 0.3.31 (numpy.libs/libscipy_openblas64_...so): kernel SkylakeX, 2 threads']
    """
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        return [f"{d.get('internal_api')} {d.get('version')} "
                f"({os.path.basename(d.get('filepath', ''))}): "
                f"kernel {d.get('architecture')}, {d.get('num_threads')} threads (threadpoolctl)"
                for d in threadpoolctl.threadpool_info() if d.get("user_api") == "blas"]
    lines = []
    for path in _loaded_blas_libs():
        got = _openblas_query(path) if "openblas" in path.lower() else None
        where = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
        if got:
            core, threads, conf = got
            lines.append(f"{conf.split()[1] if len(conf.split()) > 1 else '?'} OpenBLAS ({where}): "
                         f"kernel {core}, {threads} threads (openblas_get_corename)")
        else:
            lines.append(f"{where}: loaded (no runtime query)")
    if not lines:
        try:
            blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
            lines.append(f"{blas.get('name')} {blas.get('version')}: "
                         f"{blas.get('openblas configuration', '')} "
                         f"(numpy.show_config, build time)")
        except (TypeError, KeyError):  # numpy < 1.26 has no mode="dicts"
            lines.append("unknown (numpy.show_config has no summary)")
    return lines


def env_header(extra=()):
    """Lines describing the run: CPU, versions, BLAS kernel, thread variables, load.

    Args:
        extra: more lines to append (e.g. MXNet's own description).

    Returns:
        list of str (Markdown-friendly bullet lines).
    """
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                       cpu)
    except OSError:
        pass
    try:
        load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        load = "?"
    try:
        import scipy
        scipy_v = scipy.__version__
    except ImportError:
        scipy_v = "absent"
    import gluonlite
    lines = [f"- machine: {cpu}, {os.cpu_count()} cores, load average {load}",
             f"- python {platform.python_version()}, numpy {np.__version__}, scipy {scipy_v}, "
             f"gluonlite {gluonlite.__version__}"]
    lines += [f"- BLAS: {b}" for b in blas_info()]
    env = ", ".join(f"{k}={os.environ[k]}" if k in os.environ else f"{k} unset"
                    for k in THREAD_VARS)
    lines.append(f"- thread/kernel env: {env}")
    return lines + list(extra)
