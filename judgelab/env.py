"""Quiet, offline defaults for Prefect and litellm; set before either is imported."""

from __future__ import annotations

import os
from pathlib import Path

from judgelab.settings import PROJECT_ROOT

DEFAULTS = {
    # litellm: no price-map download at import, no outside connections.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    # Prefect: state inside the project, no analytics, quiet logs, patient ephemeral server.
    "PREFECT_HOME": str(PROJECT_ROOT / ".prefect"),
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "PREFECT_UI_ENABLED": "false",
    "TOKENIZERS_PARALLELISM": "false",
    # OpenBLAS: one thread. Its second thread spins while the other core is busy (measured:
    # a bootstrap product took 7 ms of CPU instead of 0.35 ms on two loaded cores).
    "OPENBLAS_NUM_THREADS": "1",
    # Dask (scale-out runner): warnings only, no per-connection INFO lines.
    "DASK_LOGGING__DISTRIBUTED": "warning",
}


def apply_defaults() -> None:
    """Fill unset variables only: anything the user exports wins, then `.env` (API keys of
    hosted judges live there; see .env.example), then these defaults."""
    from dotenv import load_dotenv

    load_dotenv(Path.cwd() / ".env", override=False)
    for key, value in DEFAULTS.items():
        os.environ.setdefault(key, value)
