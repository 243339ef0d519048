"""Provider failures that a retry cannot fix, and the run outcome they decide.

A 401, 403, 404 or invalid-request 400 fails every call of a judge alike: the engine stops
that judge after a few identical ones (the untried calls stay missing, so a rerun after the
fix makes them). A run fails loudly when a judge stopped so, or when more than the study's
`max_failure_share` of a judge's calls ended without an answer.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass

import litellm

from judgelab.study import Judge

# per-call 400s (one item's length or content): not the judge's configuration
PER_CALL = (litellm.ContextWindowExceededError, litellm.ContentPolicyViolationError)
FATAL = (
    (litellm.AuthenticationError, 401),
    (litellm.PermissionDeniedError, 403),
    (litellm.NotFoundError, 404),
    (litellm.BadRequestError, 400),
)


def fatal_status(exc: Exception) -> int | None:
    """The HTTP status of an error that fails every call of a judge alike, else None."""
    if isinstance(exc, PER_CALL):
        return None
    for cls, status in FATAL:
        if isinstance(exc, cls):
            return getattr(exc, "status_code", None) or status
    # litellm maps some of them to its generic APIError (a 403 on the openai/ path)
    status = getattr(exc, "status_code", None)
    return status if status in {code for _, code in FATAL} else None


def fix_for(judge: Judge, status: int) -> str:
    """What the user changes, by status."""
    key = f"${judge.api_key_env}" if judge.api_key_env else "the provider's API key variable"
    return {
        401: f"check that {key} (api_key_env) holds a valid key for this provider",
        403: f"check the permissions of the key in {key} for model {judge.model}",
        404: f"check the model name {judge.model!r} (and api_base) with the provider",
    }.get(status, "check the judge's model and parameters (extra, response_format, effort)")


@dataclass(frozen=True)
class JudgeFailure:
    """One judge's loud failure in one study run."""

    study: str
    judge: str
    line: str  # names the judge, the status and the fix

    def __str__(self) -> str:
        return self.line


def halt_line(judge: Judge, halt: dict) -> str:
    """One line for a judge the engine stopped (a halt record from `Engine.halt`)."""
    return (
        f"judge {judge.name!r} ({judge.model}) stopped: {halt['count']} calls failed with "
        f"{halt['status']} {halt['error']}, {halt['skipped']} calls not sent — "
        f"{fix_for(judge, halt['status'])}, then run again ({_provider_says(halt['message'])})"
    )


def _provider_says(message: str) -> str:
    """The provider's words without litellm's repeated class-name prefixes."""
    return re.sub(r"^(?:[\w.]+: )+", "", message)[:200]


# no answer came back at all: the request's address is the first thing to check
UNANSWERED = re.compile(r"connection|timed out|timeout|refused|resolve", re.IGNORECASE)


def cause(error: str, api_base: str | None = None) -> str:
    """A stored `error` as a person reads it: the provider's words without litellm's class
    names ("InternalServerError: litellm.InternalServerError: … OpenAIException - "), on one
    line, and the address a request that got no answer went to."""
    text = re.sub(r"^\w+(?:Exception|Error) - ", "", _provider_says(error).strip())
    text = text.split(" Error_str: ")[0]  # litellm repeats the message after this
    text = " ".join(text.split()).rstrip(".") or "unknown error"
    if api_base and api_base not in text and UNANSWERED.search(text):
        text += f" to {api_base}"
    return text


def first_cause(errors: list[str], api_base: str | None = None) -> str:
    """The first distinct cause among a judge's failed calls (oldest first) and how many calls
    it failed, e.g. "Connection error to http://127.0.0.1:9/v1 ×5", then how many other
    causes there were."""
    counts = Counter(cause(e, api_base) for e in errors)
    if not counts:
        return ""
    first, n = next(iter(counts.items()))  # a Counter keeps first-seen order
    others = len(counts) - 1
    more = f" (+{others} other cause{'s' * (others > 1)})" if others else ""
    return f"{first} ×{n}{more}"


def judge_failures(
    study: str,
    judges: dict[str, Judge],
    made: dict[str, dict[str, int]],
    halts: dict[str, list[dict]],
    max_share: float,
    missing: dict[str, int] | None = None,
    causes: dict[str, list[str]] | None = None,
) -> list[JudgeFailure]:
    """The judges whose failures fail the run: stopped on a non-retryable error, or more than
    `max_share` of their calls made now ended as `error` (no answer after retries).
    `missing`: each judge's calls to make at the start of the run; a stopped judge's calls
    not sent are those of them not made, which counts the shards it never started (a judge
    stopped in shard 1 of 2 sends nothing of shard 2), not only those its halts counted.
    `causes`: the stored `error` of each judge's calls that failed in this run, oldest first;
    the line names the first cause and its count (`first_cause`)."""
    out = []
    for name, judge in judges.items():
        if halts.get(name):
            halt = halts[name][0]
            skipped = sum(h["skipped"] for h in halts[name])
            if missing is not None and name in missing:
                skipped = max(skipped, missing[name] - sum(made.get(name, {}).values()))
            count = sum(h["count"] for h in halts[name])
            line = halt_line(judge, halt | {"skipped": skipped, "count": count})
            out.append(JudgeFailure(study, name, f"study {study!r}: {line}"))
            continue
        counts = made.get(name, {})
        total, errors = sum(counts.values()), counts.get("error", 0)
        if total and errors / total > max_share:
            said = first_cause((causes or {}).get(name, []), judge.api_base)
            out.append(
                JudgeFailure(
                    study,
                    name,
                    f"study {study!r}: judge {name!r} ({judge.model}): {errors} of {total} "
                    f"calls failed ({errors / total:.0%} > max_failure_share "
                    f"{max_share:.0%}){': ' + said if said else ''} — see the `error` column "
                    "of fct_calls; run again to retry them",
                )
            )
    return out


class JudgeFailures(RuntimeError):
    """A study run whose judges failed loudly; the run's results are still published.
    Carries the failures and the run summaries (args, so it pickles)."""

    def __init__(self, failures: list[JudgeFailure], results: list[dict]) -> None:
        super().__init__(failures, results)
        self.failures, self.results = failures, results

    def __str__(self) -> str:
        return "; ".join(f.line for f in self.failures)

    def __repr__(self) -> str:  # Prefect logs `%r` of a flow's exception: the lines, not results
        return f"JudgeFailures: {self}"


class FailuresInOneLine(logging.Filter):
    """A flow run that ends on `JudgeFailures` is an outcome, not a bug: its log entry (Prefect
    logs "Encountered exception during execution" with a traceback, on the UI's Logs tab and
    the terminal) keeps its one line and drops the traceback, which only shows our raise."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], JudgeFailures):
            record.exc_info, record.exc_text = None, None
        return True


def failures_in_one_line() -> None:
    """Install `FailuresInOneLine` on the loggers of Prefect's flow runs (once; after Prefect
    has set up its logging, which keeps a logger's filters when it runs again)."""
    logger = logging.getLogger("prefect.flow_runs")
    if not any(isinstance(f, FailuresInOneLine) for f in logger.filters):
        logger.addFilter(FailuresInOneLine())
