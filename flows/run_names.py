"""Flow run names the Prefect UI lists: `<study>-<yyyymmdd-hhmm>`, not `flawless-elephant`;
the suite's own run is `suite-<suite or study>-<yyyymmdd-hhmm>`, so a study file run alone
does not list two runs of one name (the suite's and its study's)."""

from __future__ import annotations

import tomllib
from datetime import datetime
from pathlib import Path

from prefect.runtime import flow_run

SUITE = "suite-"


def run_name() -> str:
    """The study (or suite) the run file names, and the local start minute."""
    params = flow_run.parameters
    if params.get("suite_file"):
        return suite_name_for(params["suite_file"])
    return name_for(params.get("study_file") or "run")


def suite_name_for(suite_file: str) -> str:
    """The suite flow's run of a study or suite file."""
    return SUITE + name_for(suite_file)


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
