"""`judgelab serve`: one scheduled deployment per study file on a Prefect server, served until
stopped, each study checked first (a broken file or a missing key fails now, not at 3 a.m.)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judgelab import lifecycle  # standard library only
from judgelab.preflight import preflight
from judgelab.user_errors import UsageError

if TYPE_CHECKING:
    from uuid import UUID


def _run_now(deployment_id: UUID) -> None:
    """A run of the deployment due now (`serve --every`: the first run, ahead of the
    schedule's slots), named as scheduled runs are (a run made here keeps the name it is
    created with: Prefect would give it a random one)."""
    from prefect.client.orchestration import get_client

    from flows.run_names import suite_name_for

    with get_client(sync_client=True) as client:
        suite_file = client.read_deployment(deployment_id).parameters["suite_file"]
        client.create_flow_run_from_deployment(deployment_id, name=suite_name_for(suite_file))


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve one scheduled deployment per study file until stopped (Ctrl-C)."""
    import os

    if not os.environ.get("PREFECT_API_URL"):
        raise UsageError(
            "judgelab serve needs a Prefect server for its schedules: start one with "
            "`prefect server start` and set PREFECT_API_URL=http://127.0.0.1:4200/api"
        )
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from prefect.client.schemas.objects import ConcurrencyLimitConfig
    from prefect.schedules import Cron, Interval

    from flows.suite import study_suite

    lifecycle.raise_on_signals()  # until the runner starts and takes them over
    for path in args.study:
        preflight(path)  # a broken study file or a missing key fails now, not at 3 a.m.
    if args.every:
        # the first run at once, a run of its own made when the deployment is registered,
        # then every N s from now: `--every 3600` gives a current report (and shows a broken
        # setup) at once, then hourly. Not a schedule slot a few seconds ahead: the server
        # makes no run for a slot already past when the deployment arrives, and on a busy
        # machine it had passed, so the first run came one interval late
        anchor = datetime.now(ZoneInfo(args.timezone))  # past when registered: slot 1 is +N
        schedule = Interval(args.every, anchor_date=anchor, timezone=args.timezone)
        when = f"every {args.every} s from start"
    else:
        schedule, when = Cron(args.cron, timezone=args.timezone), f"{args.cron} ({args.timezone})"
    deployments = [
        study_suite.to_deployment(
            name=Path(path).stem,
            schedule=schedule,
            parameters={
                "suite_file": str(Path(path).resolve()),
                "sample_size": 0 if args.full else args.sample_size,
            },
            tags=["judgelab"],
            description=f"judgelab run {path}, {when}",
            # a run still going when the next comes due: the new one is cancelled, so
            # late runs never pile up behind a long one (the next slot runs as usual)
            concurrency_limit=ConcurrencyLimitConfig(limit=1, collision_strategy="CANCEL_NEW"),
        )
        for path in args.study
    ]
    lifecycle.guard_tree()  # the flow-run processes die with us, even on SIGKILL
    registered = _run_now if args.every else None
    return lifecycle.serve(deployments, limit=args.limit, registered=registered)
