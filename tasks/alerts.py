"""Drift alerts as text, and the optional webhook that carries them (a Slack-compatible JSON
POST). The webhook is never required: unset, it is not called; down, it logs one warning and
the study goes on (an alert channel must not fail the run it reports on)."""

from __future__ import annotations

import os

import httpx
import polars as pl

from tasks.runlog import run_logger

ENV = "JUDGELAB_ALERT_WEBHOOK"
TIMEOUT = 5.0  # seconds: a slow channel must not hold a scheduled run


def design_label(prompt_level: str, scale: str, effort: str | None) -> str:
    """A design as the report and the alerts name it: prompt level · scale · effort."""
    return " · ".join(str(p) for p in (prompt_level, scale, effort) if p)


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3g}" if signed else f"{value:.3g}"


def alert_lines(alerts: pl.DataFrame) -> list[str]:
    """One line per flagged batch of `tbl_drift_alerts`: judge, design, bucket, the shift with
    its CI against the noise band. Only names and numbers: never an item's text."""
    lines = []
    for r in alerts.iter_rows(named=True):
        ci = f"[{_num(r['shift_lo'], True)}, {_num(r['shift_hi'], True)}]"
        if r["statistic"] == "flip_rate":
            moved = f"flip rate {_num(r['shift'])} {ci} vs noise ≤ {_num(r['noise'])}"
        else:
            moved = f"mean shift {_num(r['shift'], True)} {ci} vs noise ±{_num(r['noise'])}"
        design = design_label(r["prompt_level"], r["scale"], r["reasoning_effort"])
        lines.append(
            f"{r['judge']} · {design} · bucket {r['bucket']} (vs {r['reference']}, "
            f"n={r['n_items']}): {moved}"
        )
    return lines


def message(lines: list[str], study: str, run_url: str | None = None) -> dict:
    """The JSON body: Slack's `text`, which Mattermost, Discord (/slack) and Teams-style
    relays read too; a title line, one line per alert, the run's link last."""
    title = f"judgelab drift: {len(lines)} alert{'s' if len(lines) != 1 else ''} in {study}"
    body = [title, *(f"• {line}" for line in lines)]
    if run_url:
        body.append(f"Run: {run_url}")
    return {"text": "\n".join(body)}


def post_alert(
    lines: list[str], study: str, run_url: str | None = None, url: str | None = None
) -> bool:
    """POST the alert lines to `url` (default: $JUDGELAB_ALERT_WEBHOOK). True when the hook
    answered 2xx; False when none is set (no request) or it failed (one warning, no raise).
    The URL is never logged: a Slack webhook URL is its own secret."""
    url = url or os.environ.get(ENV) or None
    if not url or not lines:
        return False
    try:
        response = httpx.post(url, json=message(lines, study, run_url), timeout=TIMEOUT)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:  # refused, DNS, timeout, a bad URL
        run_logger(__name__).warning(
            "drift alert webhook not reached (%s); alerts: %d", type(exc).__name__, len(lines)
        )
        return False
    if not response.is_success:
        run_logger(__name__).warning(
            "drift alert webhook answered HTTP %d; alerts: %d", response.status_code, len(lines)
        )
        return False
    return True
