"""A failed judge's line names the first cause of its failed calls and how many it failed; the
run's exception is one line in the logs (no repr of the run summaries, no traceback)."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from judgelab.study import Judge
from tasks.judging import failures, store

REFUSED = (
    "InternalServerError: litellm.InternalServerError: InternalServerError: OpenAIException - "
    "Connection error."
)
LIMITED = (
    "RateLimitError: litellm.RateLimitError: RateLimitError: OpenAIException - Error code: "
    "429 - {'error': 'slow down'}"
)
TIMED_OUT = (
    "Timeout: litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out."
)
BASE = "http://127.0.0.1:9/v1"


def test_cause_drops_class_names_and_says_where_an_unanswered_request_went() -> None:
    assert failures.cause(REFUSED, BASE) == f"Connection error to {BASE}"
    assert failures.cause(REFUSED) == "Connection error"  # the provider's default address
    assert failures.cause(TIMED_OUT, BASE) == f"Request timed out to {BASE}"
    # an answer came back: the provider's words, no address
    assert failures.cause(LIMITED, BASE) == "Error code: 429 - {'error': 'slow down'}"


def test_first_cause_counts_the_first_distinct_one() -> None:
    assert failures.first_cause([REFUSED] * 5, BASE) == f"Connection error to {BASE} ×5"
    mixed = [LIMITED, REFUSED, LIMITED, TIMED_OUT]
    assert failures.first_cause(mixed) == (
        "Error code: 429 - {'error': 'slow down'} ×2 (+2 other causes)"
    )
    assert failures.first_cause([]) == ""


def test_the_failure_line_carries_the_cause() -> None:
    judge = Judge(name="dead", model="openai/dead", api_base=BASE)
    made = {"dead": {"error": 5}}
    (failure,) = failures.judge_failures(
        "s", {"dead": judge}, made, {}, 0.2, causes={"dead": [REFUSED] * 5}
    )
    assert f": Connection error to {BASE} ×5 — " in failure.line, failure.line
    # without the stored errors (none read back) the line still stands
    (bare,) = failures.judge_failures("s", {"dead": judge}, made, {}, 0.2)
    assert "calls failed (100% > max_failure_share 20%) — see" in bare.line


def test_run_errors_are_this_runs_failed_calls_oldest_first(tmp_path: Path) -> None:
    now = datetime.now(UTC)

    def row(i: int, status: str, run_id: str, error: str | None, age_s: int) -> dict:
        return {
            **dict.fromkeys(["score", "raw", "prompt_tokens", "completion_tokens", "cost_usd"]),
            "key": f"{i:064x}",
            "model": "openai/dead",
            "status": status,
            "answers": "[]",
            "error": error,
            "attempts": 2,
            "latency_s": 0.1,
            "run_id": run_id,
            "created_at": now - timedelta(seconds=age_s),
        } | ({"score": 3.0, "raw": '{"score": 3}'} if status == "ok" else {})

    rows = [
        row(1, "error", "this", LIMITED, 1),
        row(2, "error", "this", REFUSED, 5),  # older: first
        row(3, "error", "earlier", TIMED_OUT, 9),  # another run's
        row(4, "ok", "this", None, 3),
    ]
    store.write_part(tmp_path, store.rows_to_frame(rows))
    errors = store.run_errors(tmp_path, "this")
    assert errors["error"].to_list() == [REFUSED, LIMITED]


def test_judge_failures_are_one_line_in_the_logs() -> None:
    """Prefect logs "Encountered exception during execution: %r" with the traceback."""
    line = "study 's': judge 'dead' (openai/dead): 5 of 5 calls failed"
    exc = failures.JudgeFailures(
        [failures.JudgeFailure("s", "dead", line)], [{"study": "s", "views": ["v"] * 100}]
    )
    assert repr(exc) == f"JudgeFailures: {line}"
    try:
        raise exc
    except failures.JudgeFailures:
        record = logging.LogRecord(
            "prefect.flow_runs", logging.ERROR, __file__, 1,
            "Encountered exception during execution: %r", (exc,), sys.exc_info(),
        )  # fmt: skip
    failures.FailuresInOneLine().filter(record)
    text = logging.Formatter().format(record)
    assert text == f"Encountered exception during execution: JudgeFailures: {line}"
    # any other exception keeps its traceback
    try:
        raise ValueError("bug")
    except ValueError:
        other = logging.LogRecord(
            "prefect.flow_runs", logging.ERROR, __file__, 1, "boom", (), sys.exc_info()
        )
    failures.FailuresInOneLine().filter(other)
    assert "Traceback" in logging.Formatter().format(other)
