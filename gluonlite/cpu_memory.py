"""How the cpu device keeps the memory arrays free: reused by the next allocation, not
handed back to the kernel and faulted in again.

A training step frees, then allocates again, the same large arrays every time (activations,
their gradients, im2col columns). glibc's malloc gives arrays over its mmap threshold (at
most 32 MiB, lower until it adapts) their own mapping, and returns the top of its heap to
the kernel once 128 KiB or more of it is free. Each such array then costs a page fault per
4 KiB page on its next first touch: MobileNet 1.0's training step at batch 32 faulted 67 000
times and spent 1.1 s of its 6.8 s in the kernel. MXNet avoids most of it with its memory
plan; here the step's arrays are numpy's, so the same effect comes from malloc's own
settings: arrays under 1 GiB come from the heap, and the heap keeps what is freed, however
much that is. (A trim threshold of 2 GiB, mallopt's largest positive value, was not enough:
BERT-base's training step at batch 32 frees 3.9 GB at the top of the heap, which glibc
then handed back and faulted in again, 83 000 faults and 4-12 s of kernel time a step.)

The cost is that the process's resident memory stays at its high-water mark until it exits
(the peak itself moved 1.6% on that step), as with any pooling allocator. The settings are
made once, when gluonlite is imported, on Linux with glibc only; the environment variable
``GLUONLITE_KEEP_FREED_MEMORY=0`` leaves malloc as it is. There is no undoing them in a
running process (glibc's adaptive threshold cannot be turned back on).

Example::

    import gluonlite
    from gluonlite import cpu_memory
    cpu_memory.kept()        # True on Linux/glibc unless GLUONLITE_KEEP_FREED_MEMORY=0
"""
import ctypes
import os

__all__ = ["ENV_VAR", "MMAP_THRESHOLD", "keep_freed_memory", "kept"]

ENV_VAR = "GLUONLITE_KEEP_FREED_MEMORY"
# Arrays up to this size come from the heap (mallopt takes an int: under 2 GiB).
MMAP_THRESHOLD = 1 << 30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
# mallopt(M_TRIM_THRESHOLD, -1) turns trimming off altogether (mallopt(3))
_NEVER_TRIM = -1
_kept = False


def keep_freed_memory():
    """Set glibc's malloc to keep freed memory for reuse (the module's docstring says why).

    Called when gluonlite is imported, unless the environment variable
    ``GLUONLITE_KEEP_FREED_MEMORY`` is ``0``; calling it again does nothing more.

    Returns:
        bool: whether the settings are in effect (False where the C library is not glibc,
        or it refused them).

    Example::

        from gluonlite import cpu_memory
        cpu_memory.keep_freed_memory()      # True on Linux with glibc
    """
    global _kept
    if _kept:
        return True
    if not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _kept = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _NEVER_TRIM))
    return _kept


def _glibc():
    """Whether the C library is glibc (it names itself through confstr; others do not)."""
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def kept():
    """Whether freed memory is kept for reuse in this process (`keep_freed_memory`).

    Returns:
        bool: True once the settings are in effect.

    Example::

        from gluonlite import cpu_memory
        cpu_memory.kept()
    """
    return _kept


def _at_import():
    if os.environ.get(ENV_VAR, "1").strip() != "0":
        keep_freed_memory()
