"""The report in a real browser: headless Chromium loads it from disk, every figure is an SVG
in the DOM it builds, and a screenshot is kept in artifacts/ for a person to look at.

Skipped only where Chromium is not installed and CI is not set; in CI a missing browser fails.
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from judgelab.settings import PROJECT_ROOT

from .conftest import Node, parse_html

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = PROJECT_ROOT / "artifacts" / "report-screenshot.png"
WIDTH, HEIGHT = 1280, 4000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--virtual-time-budget=10000",  # let layout and painting finish before capturing
]


def chromium() -> Path:
    if CHROMIUM.is_file():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing and CI is set: install it (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium); the browser checks need it")


def run_chromium(tmp_path: Path, name: str, *args: str) -> str:
    """One headless Chromium run with a fresh profile; its stdout."""
    profile = tmp_path / f"profile-{name}"
    profile.mkdir()
    proc = subprocess.run(
        [str(chromium()), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_browser_builds_one_svg_per_counted_figure(report_file: Path, tmp_path: Path) -> None:
    dom: Node = parse_html(run_chromium(tmp_path, "dom", "--dump-dom", report_file.as_uri()))
    (meta,) = dom.find_all("meta", name="judgelab-figures")
    n = int(meta.attrs["content"])
    figures = dom.find_all("figure")
    in_figures = [s for s in dom.find_all("svg") if any(a.tag == "figure" for a in s.ancestors())]
    assert n > 0 and len(figures) == n and len(in_figures) == n
    assert len(dom.find_all("svg")) == n  # no stray drawing outside a figure
    for svg in in_figures:
        _, _, w, h = (float(v) for v in svg.attrs["viewbox"].split())
        assert w > 100 and h > 100
        assert svg.find_all("path") or svg.find_all("use")  # it has drawn content
    assert len(dom.find_all("details")) >= n  # every figure's table survived the parse


def test_screenshot_is_a_readable_png(report_file: Path, tmp_path: Path) -> None:
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    run_chromium(
        tmp_path,
        "shot",
        f"--screenshot={SCREENSHOT}",
        f"--window-size={WIDTH},{HEIGHT}",
        report_file.as_uri(),
    )
    data = SCREENSHOT.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (WIDTH, HEIGHT)
    assert len(data) > 20_000
    # not a blank page: a good share of the pixels carry ink, in more than a few colours
    with Image.open(SCREENSHOT) as image:
        small = image.convert("L").resize((WIDTH // 8, HEIGHT // 8))
        pixels = small.tobytes()  # one byte per pixel in mode L
    inked = sum(p < 235 for p in pixels) / len(pixels)
    assert inked > 0.03 and len(set(pixels)) > 50
