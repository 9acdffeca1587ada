"""Whether the real gpu context can run here (for the `gpu` test cases)."""


def gpu_missing():
    """Why a real gpu context cannot run here, or None when it can."""
    try:
        import cupy  # noqa: PLC0415 - optional; its absence is what this reports
    except ModuleNotFoundError as e:
        if e.name != "cupy":
            return f"CuPy is installed but does not import: {e} (reinstall '.[gpu]')"
        return "CuPy is not installed (pip install -e '.[gpu]')"
    except ImportError as e:
        return f"CuPy is installed but does not import: {e}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # the driver's error says what is wrong (no driver, too old)
        return f"CuPy {cupy.__version__} sees no CUDA device: {type(e).__name__}: {e}"
    return None if n > 0 else f"CuPy {cupy.__version__}: no CUDA device visible"
