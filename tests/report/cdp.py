"""A minimal Chrome DevTools Protocol client for the browser tests: headless Chromium (Debian's,
no download), one page, evaluate JavaScript and take screenshots. Uses `websockets`, which the
project already has (Prefect needs it), so no browser-automation package is required."""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from websockets.sync.client import connect

BASE_FLAGS = [  # headless, offline, quiet: shared with the screenshot test
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
]
FLAGS = [*BASE_FLAGS, "--remote-debugging-port=0"]  # the port goes to DevToolsActivePort


class Page:
    """One browser tab driven over the DevTools protocol."""

    def __init__(self, socket) -> None:
        self.socket = socket
        self.ids = itertools.count(1)

    def call(self, method: str, **params: object) -> dict:
        """Send one command and return its result (events that arrive meanwhile are dropped)."""
        n = next(self.ids)
        self.socket.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == n:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def js(self, expression: str) -> object:
        """The value of a JavaScript expression in the page (exceptions raise here)."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:  # its message, not the expression
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description", details["text"]))
        return result["result"].get("value")

    def open(self, url: str, timeout: float = 60) -> None:
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while self.js("document.readyState") != "complete":
            assert time.monotonic() < deadline, f"{url} did not load in {timeout:.0f} s"
            time.sleep(0.1)

    def screenshot(self, path: Path, clip: dict | None = None) -> None:
        """A PNG of the viewport, or of `clip` (x, y, width, height in page pixels)."""
        params: dict = {"format": "png", "captureBeyondViewport": clip is not None}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))


@contextmanager
def chromium_page(
    binary: Path, profile: Path, width: int = 1280, height: int = 1600
) -> Iterator[Page]:
    """A headless Chromium with a fresh profile and one blank page; stopped on the way out."""
    profile.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [
            str(binary),
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert proc.poll() is None, f"chromium exited with {proc.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
        (target,) = [t for t in targets if t["type"] == "page"]
        with connect(target["webSocketDebuggerUrl"], max_size=None) as socket:
            page = Page(socket)
            page.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield page
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
