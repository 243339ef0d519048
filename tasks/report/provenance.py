"""Where a study's judgments come from — imported from files or called live — as the store
says (`stg_judgments.source` joined to the plan), not as the study file says: the report and
the console label every study with it, so nobody reads an imported number as a measurement
judgelab made."""

from __future__ import annotations

import polars as pl

from judgelab.settings import Settings
from tasks import warehouse

SOURCES = ("imported", "called")  # the store's "import" and "call" rows
SOURCES_SQL = """
select p.study, p.judge,
       count(*) filter (where j.source = 'import') as imported,
       count(*) filter (where j.source = 'call') as called
from stg_plan p
left join stg_judgments j using (key)
where list_contains(?, p.study)
group by p.study, p.judge
order by p.study, p.judge
"""


def study_sources(settings: Settings, studies: list[str]) -> pl.DataFrame:
    """Per study and judge: its stored judgments imported from files and made by calls."""
    return warehouse.query(settings, SOURCES_SQL, [studies])


def labels(sources: pl.DataFrame) -> dict[str, str]:
    """Each study's label: "imported: 13,000 judgments from files, 0 calls", "live: 36 calls",
    or both halves with their judges named when a study mixes them."""
    out = {}
    for (study,), rows in sources.group_by("study", maintain_order=True):
        imported, called = int(rows["imported"].sum()), int(rows["called"].sum())
        if not imported:
            out[study] = f"live: {called:,} calls"
            continue
        if not called:
            out[study] = f"imported: {imported:,} judgments from files, 0 calls"
            continue
        by_file, by_call = (", ".join(rows.filter(pl.col(c) > 0)["judge"]) for c in SOURCES)
        out[study] = (
            f"imported: {imported:,} judgments from files ({by_file}); "
            f"live: {called:,} calls ({by_call})"
        )
    return out
