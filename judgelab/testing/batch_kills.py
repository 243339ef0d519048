"""kill -9 a batch judge at random moments, then resume (TESTS AND BENCHMARKS).

A rating study whose judge sends its calls through the mock OpenAI batch provider
(mock_batches, one server process for the whole scenario, as a provider outlives its
clients) is judged by kill_driver — the production shard runner without Prefect — killed
`kills` times at a random moment, then run to the end. The accounting says whether a call
was paid twice and whether each chunk became exactly one batch at the provider.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from judgelab.testing.kill_driver import MOCK_KEY, mock_study


def write_study(
    path: Path, url: str, items: int, batch_size: int, name: str = "batch", batch: bool = True
) -> Path:
    options = f"batch = {str(batch).lower()}\nbatch_size = {batch_size}\nbatch_poll_s = 0.1"
    path.write_text(mock_study(url, items, name, options))
    return path


@dataclass
class Outcome:
    kills: int  # kills that landed while the judge stage ran
    phases: dict[str, int]  # batches per phase in the journal right after each landed kill
    planned: int  # distinct planned calls
    answered: int  # requests the provider answered (paid)
    paid_twice: int  # answers beyond the first per call
    lost: int  # planned calls never stored
    provider_batches: int  # batches the provider created
    journal_batches: int  # batches the journal knows a provider id of
    tags_twice: int  # journal rows with more than one batch at the provider


def env(data: Path, mirror: str) -> dict[str, str]:
    return os.environ | {
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": mirror,
        "MOCK_JUDGE_KEY": MOCK_KEY,
    }


def judge_cmd(study: Path) -> list[str]:
    return [sys.executable, "-m", "judgelab.testing.kill_driver", "judge", str(study)]


def kill_at_random(
    cmd: list[str], environ: dict, cwd: Path, rng: random.Random, most_s: float
) -> bool:
    """Start the judge stage, kill -9 it after a random time; True when it was still running."""
    proc = subprocess.Popen(
        cmd, env=environ, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.readline()  # "judging": the calls start now
    time.sleep(rng.uniform(0.0, most_s))
    landed = proc.poll() is None
    if landed:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    if not landed and proc.returncode:
        raise RuntimeError(f"the judge stage failed (exit {proc.returncode})")
    return landed


def provider_batches(url: str) -> list:
    import litellm

    async def every() -> list:
        found, after = [], None
        while True:
            page = await litellm.alist_batches(
                limit=100, after=after, custom_llm_provider="openai", api_base=url,
                api_key=MOCK_KEY,
            )  # fmt: skip
            found += page.data
            if not page.has_more:
                return found
            after = page.data[-1].id

    return asyncio.run(every())


def account(
    data: Path, log: Path, url: str, study: str, kills: int, phases: dict[str, int]
) -> Outcome:
    from judgelab.settings import Settings
    from judgelab.testing import mock_batches
    from tasks import warehouse
    from tasks.judging import batches, journal, store

    settings = Settings(data_dir=data)
    plan = warehouse.read_table(settings, "plan", study)
    keys = set(plan["key"])
    answered = Counter(r["custom_id"] for r in mock_batches.read_log(log) if r["outcome"] == "ok")
    stored = set(store.latest_rows(settings.store_dir, ["key"])["key"])  # journal included
    con = journal.connect(settings.store_dir)
    try:
        rows = batches.listed(con, only_open=False)
    finally:
        con.close()
    at_provider = provider_batches(url)
    tags = Counter((b.metadata or {}).get(batches.TAG) for b in at_provider)
    return Outcome(
        kills=kills,
        phases=phases,
        planned=len(keys),
        answered=sum(answered.values()),
        paid_twice=sum(n - 1 for n in answered.values() if n > 1),
        lost=len(keys - stored),
        provider_batches=len(at_provider),
        journal_batches=sum(r["batch_id"] is not None for r in rows),
        tags_twice=sum(n > 1 for n in tags.values()),
    )


def phases_now(data: Path) -> Counter:
    """Journaled batches by phase (`stored` split by status: abandoned ones are not)."""
    from judgelab.settings import Settings
    from tasks.judging import batches, journal

    store_dir = Settings(data_dir=data).store_dir
    if not journal.exists(store_dir):
        return Counter()
    con = journal.connect(store_dir)
    try:
        return Counter(b["phase"] for b in batches.listed(con, only_open=False))
    finally:
        con.close()


def scenario(
    work: Path,
    kills: int,
    items: int,
    batch_size: int,
    delay: float,
    seed: int = 1,
    spread: float = 0.0,
    window: float | None = None,
) -> Outcome:
    """Plan the study, kill its judge stage `kills` times, run it to the end, account.
    Each batch takes `delay` plus up to `spread` seconds at the mock, so kills land while
    batches are being written, polled, downloaded and stored; each kill comes a random
    0–`window` seconds (default 2 × delay) after the stage starts judging."""
    from judgelab.settings import PROJECT_ROOT
    from judgelab.testing import mock_batches

    rng = random.Random(seed)
    mirror = os.environ.get("JUDGELAB_DATA_MIRROR") or str(
        PROJECT_ROOT.parent / "shared" / "datasets"
    )
    data, log = work / "data", work / "answers.jsonl"
    environ = env(data, mirror)
    landed, phases = 0, Counter()
    with mock_batches.running(log, delay=delay, delay_spread=spread) as url:
        study = write_study(work / "batch.toml", url, items, batch_size)
        plan = [sys.executable, "-m", "judgelab.cli", "plan", str(study)]
        subprocess.run(plan, env=environ, cwd=PROJECT_ROOT, check=True, capture_output=True)
        for _ in range(kills):
            most = window if window is not None else 2 * delay
            if kill_at_random(judge_cmd(study), environ, PROJECT_ROOT, rng, most):
                landed += 1
                phases += phases_now(data)
        subprocess.run(
            judge_cmd(study), env=environ, cwd=PROJECT_ROOT, check=True, capture_output=True
        )
        return account(data, log, url, "batch", landed, dict(phases))


def judge_rows(judge_json: str, rows: list[dict], store_dir: str, label: str) -> dict:
    """Make plan `rows` with a judge (its JSON) through the production lane runner, in a
    process of its own: two of these at once are two runs sharing a store."""
    from judgelab.study import Judge
    from tasks.judging.shard import Lane, run_lanes

    judge = Judge.model_validate_json(judge_json)
    [(counts, _halt)] = run_lanes([Lane(judge, rows, label)], Path(store_dir), 100, label)
    return counts
