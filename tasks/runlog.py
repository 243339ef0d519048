"""The logger a stage warns on: the Prefect run's inside a flow or task run (the warning shows
in the UI and in `judgelab run`'s output), a plain module logger when a stage is called
directly (tests, `.fn`)."""

from __future__ import annotations

import logging

from prefect import get_run_logger
from prefect.exceptions import MissingContextError


def run_logger(name: str) -> logging.Logger | logging.LoggerAdapter:
    try:
        return get_run_logger()
    except MissingContextError:  # outside a flow or task run
        return logging.getLogger(name)
