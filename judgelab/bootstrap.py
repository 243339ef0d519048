"""Prepare a fresh venv before the lock is installed (run by `make setup`): the locked pip,
then llama-cpp-python built for a portable CPU baseline.

Why pip first: the pip a venv starts with (23.2 with Python 3.11.7) fails the hash-locked
install once a newer release of a dependency requested with an extra (litellm's
`httpx[http2]`) appears on the index; the locked pip resolves the lock as written.

Why portable: llama-cpp-python compiles with `GGML_NATIVE=ON` by default (`-march=native`),
and pip caches the wheel it built. A wheel built on a host with AVX-512 and AMX loads the model into
an AMX buffer and dies with SIGILL ("Illegal instruction") at the first decode on a VM where
AMX is not usable; through the cache the same crash follows to any machine sharing it.

What: the locked sdist (the hash from requirements.lock) is compiled with the flags of
pyproject.toml's [tool.judgelab.llama-cpp-build], with pip's cache off, into a wheel
directory of our own whose name carries the flags; the wheel is installed from there with
`--no-index`, so no wheel from pip's cache (native or not) can take its place. The later
`pip install -r requirements.lock` finds the requirement satisfied and leaves it. A marker
in the venv records the flags the self-test reports.

Stdlib only: it runs before anything else is installed.

    .venv/bin/python judgelab/bootstrap.py [--native]

Run at every `make setup` (a no-op in ~0.1 s when the venv already has the portable build),
so a venv whose llama-cpp-python came from anywhere else is rebuilt.

`--native` builds the default (-march=native) flavour into its own directory instead, for
`bench/bench_local.py`'s before/after comparison; it never installs into the venv.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
PACKAGE = "llama-cpp-python"

# The portable flags per architecture live in pyproject.toml, [tool.judgelab.llama-cpp-build].
PYPROJECT = ROOT / "pyproject.toml"
NATIVE_FLAGS = ""  # llama-cpp-python's default: GGML_NATIVE=ON
MARKER = ".llama-cpp-build"  # in the venv: the flags its llama-cpp-python was built with
FLAGS_ENV = "JUDGELAB_LLAMA_CMAKE_ARGS"


def portable_flags(machine: str | None = None) -> str:
    """The baseline for this architecture; JUDGELAB_LLAMA_CMAKE_ARGS replaces it (a CPU
    without AVX2, say: "-DGGML_NATIVE=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_AVX512=OFF")."""
    if os.environ.get(FLAGS_ENV):
        return os.environ[FLAGS_ENV].strip()
    machine = (machine or platform.machine()).lower()
    table = tomllib.loads(PYPROJECT.read_text())["tool"]["judgelab"]["llama-cpp-build"]
    return table["x86_64" if machine in ("x86_64", "amd64") else "other"]


def locked_requirement(package: str = PACKAGE, lock: Path = LOCK) -> str:
    """A package's entry of the lock file, with its hashes, as one requirement."""
    text = lock.read_text()
    match = re.search(rf"^{re.escape(package)}==\S+(?: \\\n\s+--hash=\S+)+", text, re.M)
    if not match:
        raise SystemExit(f"{lock}: no hashed {package} entry")
    return match.group(0)


def _requirement_file(requirement: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
        req.write(requirement + "\n")
    return req.name


def locked_pip() -> None:
    """The lock's pip, by hash (nothing to do when it is already there)."""
    requirement = locked_requirement("pip")
    if importlib.metadata.version("pip") == requirement.split("==")[1].split()[0]:
        return
    req = _requirement_file(requirement)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    try:
        subprocess.run([*cmd, "--require-hashes", "-r", req], check=True)
    finally:
        os.unlink(req)


def wheel_dir(flags: str, requirement: str) -> Path:
    """Our own wheel cache, one directory per (version, flags): shared between clones and
    venvs of this machine, never mixed with pip's."""
    version = requirement.split("==")[1].split()[0]
    tag = hashlib.sha256(f"{requirement}\n{flags}".encode()).hexdigest()[:12]
    base = Path(os.environ.get("JUDGELAB_WHEEL_CACHE") or Path.home() / ".cache/judgelab/wheels")
    return base / f"{PACKAGE}-{version}-{tag}"


def build(flags: str, requirement: str) -> Path:
    """Compile the locked sdist with `flags` into its wheel directory (once)."""
    out = wheel_dir(flags, requirement)
    wheels = sorted(out.glob("llama_cpp_python-*.whl"))
    if wheels:
        return wheels[-1]
    out.mkdir(parents=True, exist_ok=True)
    req = _requirement_file(requirement)
    env = {**os.environ, "CMAKE_ARGS": flags, "FORCE_CMAKE": "1"}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    print(f"compiling {PACKAGE} (once per machine, ~10 min) with CMAKE_ARGS={flags!r}", flush=True)
    cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"]
    cmd += ["--no-cache-dir", "--no-deps", "--no-binary", PACKAGE, "--require-hashes"]
    cmd += ["-w", str(out), "-r", req]
    try:
        subprocess.run(cmd, env=env, check=True)
    finally:
        os.unlink(req)
    return sorted(out.glob("llama_cpp_python-*.whl"))[-1]


def installed_flags() -> str | None:
    """The CMake flags of the venv's llama-cpp-python, if bootstrap installed it."""
    marker = Path(sys.prefix) / MARKER
    if not marker.exists() or importlib.util.find_spec("llama_cpp") is None:
        return None
    return marker.read_text().strip()


def install(wheel: Path, flags: str) -> None:
    """Install the wheel unless the venv already has this build."""
    if installed_flags() == flags:
        return
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*cmd, "--no-index", "--no-deps", "--force-reinstall", str(wheel)], check=True)
    (Path(sys.prefix) / MARKER).write_text(flags + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--native", action="store_true", help="build the -march=native wheel")
    args = parser.parse_args()
    locked_pip()
    requirement = locked_requirement()
    if args.native:
        print(build(NATIVE_FLAGS, requirement))
        return
    flags = portable_flags()
    install(build(flags, requirement), flags)


if __name__ == "__main__":
    main()
