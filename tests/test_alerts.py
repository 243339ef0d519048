"""The drift alert webhook against a local HTTP server: a Slack-compatible JSON POST when one is
set, no request when none is, and a channel that is down or refuses never fails the caller."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import polars as pl
import pytest

from tasks.alerts import ENV, alert_lines, post_alert

ALERTS = pl.DataFrame(
    {
        "study": ["s", "s"],
        "judge": ["gpt", "claude"],
        "prompt_level": ["base", "long_icl"],
        "scale": ["likert7", "verdict"],
        "reasoning_effort": ["n/a", "low"],
        "bucket": ["2026-12-03", "2026-12-02"],
        "reference": ["2026-12-01", "2026-12-01"],
        "statistic": ["mean_shift", "flip_rate"],
        "n_items": [50, 40],
        "shift": [0.52, 0.31],
        "shift_lo": [0.31, 0.22],
        "shift_hi": [0.73, 0.4],
        "noise": [0.2, 0.1],
    }
)


@contextmanager
def hook(status: int = 200) -> Iterator[tuple[str, list[dict]]]:
    """A local webhook answering `status`; yields its URL and the requests it received."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(
                {
                    "method": "POST",
                    "path": self.path,
                    "type": self.headers["Content-Type"],
                    "body": body,
                }
            )
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:  # quiet test output
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/abc", seen
    finally:
        server.shutdown()
        server.server_close()


def test_alert_lines_name_the_design_and_the_numbers() -> None:
    lines = alert_lines(ALERTS)
    assert lines == [
        "gpt · base · likert7 · n/a · bucket 2026-12-03 (vs 2026-12-01, n=50): "
        "mean shift +0.52 [+0.31, +0.73] vs noise ±0.2",
        "claude · long_icl · verdict · low · bucket 2026-12-02 (vs 2026-12-01, n=40): "
        "flip rate 0.31 [+0.22, +0.4] vs noise ≤ 0.1",
    ]


def test_posts_slack_json_with_every_alert_line(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = alert_lines(ALERTS)
    with hook() as (url, seen):
        monkeypatch.setenv(ENV, url)
        assert post_alert(lines, "s", run_url="http://prefect/runs/1") is True
    (request,) = seen
    assert request["method"] == "POST" and request["path"] == "/hooks/abc"
    assert request["type"].split(";")[0] == "application/json"
    body = json.loads(request["body"])
    assert set(body) == {"text"}
    text = body["text"].splitlines()
    assert text[0] == "judgelab drift: 2 alerts in s"
    assert text[1:3] == [f"• {line}" for line in lines]
    assert text[-1] == "Run: http://prefect/runs/1"


def test_an_explicit_url_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with hook() as (url, seen), hook() as (other, other_seen):
        monkeypatch.setenv(ENV, other)
        assert post_alert(["a"], "s", url=url) is True
    assert len(seen) == 1 and not other_seen


def test_unset_means_no_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with hook() as (_, seen):
        assert post_alert(["a"], "s") is False
    assert not seen
    monkeypatch.setenv(ENV, "")  # an empty variable in .env or compose is unset too
    assert post_alert(["a"], "s") is False


def test_no_alerts_means_no_request() -> None:
    with hook() as (url, seen):
        assert post_alert([], "s", url=url) is False
    assert not seen


def test_a_failing_hook_warns_once_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{s.getsockname()[1]}/secret-token"
        with caplog.at_level(logging.WARNING, logger="tasks.alerts"):
            assert post_alert(["a"], "s", url=refused) is False
    with hook(status=500) as (url, seen), caplog.at_level(logging.WARNING, logger="tasks.alerts"):
        assert post_alert(["a"], "s", url=url) is False
    assert len(seen) == 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "ConnectError" in warnings[0] and "HTTP 500" in warnings[1]
    assert not any("secret-token" in w or "hooks" in w for w in warnings)  # the URL is a secret
