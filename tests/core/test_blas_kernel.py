"""gluonlite.blas_kernel: the warning, at import, that numpy's OpenBLAS runs a generic kernel
on a CPU that has a faster one, and the OPENBLAS_CORETYPE it suggests."""
import warnings

import numpy as np
import pytest

from gluonlite import blas_kernel

AVX512 = {"sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"}


@pytest.mark.parametrize("core, flags, expected", [
    ("Prescott", AVX512, "SkylakeX"),
    ("prescott", AVX512, "SkylakeX"),                        # names compared without case
    ("Core2", {"sse2", "avx", "avx2", "fma"}, "Haswell"),
    ("Prescott", {"sse2", "avx", "avx2", "fma", "avx512f"}, "Haswell"),  # AVX-512 F alone
    ("Prescott", {"sse2", "sse3"}, None),                    # nothing wider to use
    ("SkylakeX", AVX512, None),                              # already a fitting kernel
    ("Haswell", AVX512, None),                               # chosen by the user, not generic
])
def test_advice_names_the_kernel_the_cpu_can_run(core, flags, expected):
    assert blas_kernel.advice(core, flags) == expected


def test_check_warns_once_per_generic_library_with_the_setting(monkeypatch):
    monkeypatch.setattr(blas_kernel, "loaded_kernels", lambda: {
        "/x/numpy.libs/libopenblas64_p-r0-1.3.20.so": "Prescott",
        "/x/scipy.libs/libopenblas-2.so": "SkylakeX"})
    monkeypatch.setattr(blas_kernel, "cpu_flags", lambda: AVX512)
    with pytest.warns(blas_kernel.SlowBlasWarning) as got:
        assert blas_kernel.check() == "SkylakeX"
    assert len(got) == 1
    text = str(got[0].message)
    assert "libopenblas64_p-r0-1.3.20.so" in text and "'Prescott'" in text
    assert "OPENBLAS_CORETYPE=SkylakeX" in text and "GLUONLITE_BLAS_CHECK=0" in text


def test_check_is_silent_where_nothing_is_faster(monkeypatch):
    monkeypatch.setattr(blas_kernel, "loaded_kernels", lambda: {"/x/libopenblas.so": "Prescott"})
    monkeypatch.setattr(blas_kernel, "cpu_flags", lambda: {"sse2", "sse3"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert blas_kernel.check() is None


def test_loaded_kernels_reads_numpys_openblas():
    # numpy's wheels (what the suite installs) carry their own OpenBLAS
    np.ones((2, 2)) @ np.ones((2, 2))
    kernels = blas_kernel.loaded_kernels()
    assert any("numpy" in path and "openblas" in path.lower() for path in kernels), kernels
    assert all(isinstance(k, str) and k for k in kernels.values())


@pytest.mark.parametrize("env, checked", [
    ({}, True),
    ({"GLUONLITE_BLAS_CHECK": "0"}, False),              # turned off
    ({"OPENBLAS_CORETYPE": "Haswell"}, False),           # the user chose the kernel
])
def test_the_import_time_check_respects_the_environment(env, checked, monkeypatch):
    for name in ("GLUONLITE_BLAS_CHECK", "OPENBLAS_CORETYPE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    calls = []
    monkeypatch.setattr(blas_kernel, "check", lambda: calls.append(1))
    blas_kernel._at_import()
    assert calls == ([1] if checked else [])
