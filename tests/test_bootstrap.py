"""`make setup`'s llama.cpp build: a portable baseline, from the locked sdist, never a wheel
from pip's cache; and this venv has exactly that build."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from judgelab import bootstrap


def test_the_x86_baseline_has_no_native_tuning_no_avx512_and_no_amx() -> None:
    flags = dict(
        f.removeprefix("-D").split("=") for f in bootstrap.portable_flags("x86_64").split()
    )
    assert flags["GGML_NATIVE"] == "OFF"
    assert {flags[k] for k in ("GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C")} == {"ON"}
    off = [k for k in flags if "AVX512" in k or "AMX" in k or k == "GGML_AVX_VNNI"]
    assert len(off) == 8 and {flags[k] for k in off} == {"OFF"}
    assert bootstrap.portable_flags("aarch64") == "-DGGML_NATIVE=OFF"


def test_flags_can_be_lowered_for_an_older_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bootstrap.FLAGS_ENV, " -DGGML_NATIVE=OFF -DGGML_AVX2=OFF ")
    assert bootstrap.portable_flags("x86_64") == "-DGGML_NATIVE=OFF -DGGML_AVX2=OFF"


def test_the_build_is_the_locked_sdist_in_a_directory_per_flags(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        "llama-cpp-python-extra==1.0 \\\n    --hash=sha256:aa\n"
        "llama-cpp-python==0.3.36 \\\n    --hash=sha256:bb \\\n    --hash=sha256:cc\n"
        "    # via judgelab\nllm==0.32.1 \\\n    --hash=sha256:dd\n"
    )
    req = bootstrap.locked_requirement(lock=lock)
    assert req == "llama-cpp-python==0.3.36 \\\n    --hash=sha256:bb \\\n    --hash=sha256:cc"
    portable = bootstrap.wheel_dir(bootstrap.portable_flags("x86_64"), req)
    native = bootstrap.wheel_dir(bootstrap.NATIVE_FLAGS, req)
    assert portable != native and portable.parent == native.parent
    assert portable.name.startswith("llama-cpp-python-0.3.36-")
    with pytest.raises(SystemExit, match="no hashed pip entry"):
        bootstrap.locked_requirement("pip", lock)


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86 feature names")
def test_this_venv_runs_the_portable_build() -> None:
    """What the self-test relies on: the venv's llama.cpp is the one bootstrap built, and
    its CPU backend uses none of the features that crash elsewhere."""
    import llama_cpp

    assert bootstrap.installed_flags() == bootstrap.portable_flags()
    features = llama_cpp.llama_print_system_info().decode()
    assert "AVX2 = 1" in features
    assert "AVX512" not in features and "AMX" not in features
