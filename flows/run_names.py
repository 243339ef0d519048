"""Flow run names the Prefect UI lists: `<study>-<yyyymmdd-hhmm>`, not `flawless-elephant`."""

from __future__ import annotations

import tomllib
from datetime import datetime
from pathlib import Path

from prefect.runtime import flow_run


def run_name() -> str:
    """The study (or suite) the run file names, and the local start minute."""
    params = flow_run.parameters
    return name_for(params.get("study_file") or params.get("suite_file") or "run")


def name_for(run_file: str) -> str:
    """Reads the file's `name` only (tomllib, well under a millisecond) rather than validating
    the whole study; an unreadable file falls back to its stem — the flow itself reports what
    is wrong."""
    path = Path(run_file)
    try:
        doc = tomllib.loads(path.read_text())
        name = (doc.get("suite") or doc.get("study") or {}).get("name")
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        name = None
    return f"{name if isinstance(name, str) and name else path.stem}-{datetime.now():%Y%m%d-%H%M}"
