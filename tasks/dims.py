"""Sort orders as data: the `dim_order` table and the `sort_pos` macro every view sorts with.

A view lists scales, prompt levels, axes, efforts… in a meaningful order, not by name. The order
comes from where each vocabulary is declared: scales as prompts/scales.toml lists them, prompt
levels as each task's task.toml `levels` lists them (tone prompt variants are a tone task's
levels), tone axes by file name (the order tasks.tone.axes loads them in), and each fixed
vocabulary (consensus subsets, design choices, ensemble pools and strategies, tests, groupings)
in the order its schema allows it. So a scale added to scales.toml sorts where it is declared.
A value no source names sorts after every declared one (UNKNOWN); views then sort it by name.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandera.polars as pa
import polars as pl

from schemas.accuracy_metrics import ACCURACY_SUBSETS
from schemas.design_pairs import CHOICES
from schemas.ensembles import POOLS, STRATEGIES
from schemas.threshold_shares import ThresholdShares
from schemas.verdict_tests import TEST_CHOICES, TESTS
from tasks.judging.prompts import PROMPTS_DIR, task_dirs
from tasks.judging.scales import load_scales

AXES_DIR = PROMPTS_DIR / "tone" / "axes"  # tasks.tone.axes.AXES_DIR, read here by file name only
UNKNOWN = 99  # the position of a value no source declares: after every declared one
# the reasoning_effort values providers take (litellm), weakest first; "default" sends none
# (tasks.judging.efforts.DEFAULT) and "n/a" (no such control) sorts as unknown, after it
EFFORTS = ("none", "minimal", "low", "medium", "high", "default")

Orders = dict[str, list[str]]  # dimension → its values, first first


def allowed(model: type[pa.DataFrameModel], column: str) -> tuple[str, ...]:
    """A column's allowed values in the order its schema's `isin` lists them."""
    checks = model.to_schema().columns[column].checks
    (values,) = [c.statistics["allowed_values"] for c in checks if c.name == "isin"]
    return tuple(values)


def merged(lists: Iterable[Sequence[str]]) -> list[str]:
    """One order from several declared ones, keeping each list's order where the lists agree: a
    value new to the merge goes right after the value before it in its own list; one that opens
    its list goes before the first of its list already placed, else last:
    [base, short, long] + [base, cot, short] + [plain, fact] → base cot short long plain fact."""
    out: list[str] = []
    for values in lists:
        for i, value in enumerate(values):
            if value in out:
                continue
            if i:
                out.insert(out.index(values[i - 1]) + 1, value)
            else:
                placed = [out.index(v) for v in values if v in out]
                out.insert(min(placed, default=len(out)), value)
    return out


def task_levels(prompts_dir: Path | None = None) -> list[list[str]]:
    """Each task's prompt levels (tasks in name order): its task.toml `levels`, then any
    level it has a template for but does not list, by name. `prompts_dir`: that folder's
    tasks only (None: every task, type packages' included)."""
    out = []
    folders = task_dirs() if prompts_dir is None else task_dirs([prompts_dir])
    for config in (folders[task] / "task.toml" for task in sorted(folders)):
        declared = list(tomllib.loads(config.read_text()).get("levels", []))
        templates = sorted({p.name.split(".")[0] for p in config.parent.glob("*.*.txt")})
        out.append(declared + [t for t in templates if t not in declared])
    return out


def read_orders(
    scales_file: Path | None = None,
    prompts_dir: Path | None = None,
    axes_dir: Path = AXES_DIR,
) -> Orders:
    """Every dimension's order, from the files the engine itself reads (paths for tests;
    None: the project's, type packages' included)."""
    orders = {
        "scale": list(load_scales(scales_file)),
        "prompt_level": merged(task_levels(prompts_dir)),
        "axis": sorted(p.stem for p in axes_dir.glob("*.toml")),
        "reasoning_effort": list(EFFORTS),
        "subset": list(ACCURACY_SUBSETS),
        # a design choice: verdict studies' (with "design" for Cochran's Q), rating studies'
        "choice": merged([TEST_CHOICES, CHOICES]),
        "grouping": list(allowed(ThresholdShares, "grouping")),
        "pool": list(POOLS),
        "strategy": list(STRATEGIES),
        "test": list(TESTS),
    }
    crowded = [d for d, values in orders.items() if len(values) >= UNKNOWN]
    if crowded:
        raise ValueError(f"dimensions {crowded} have {UNKNOWN} or more values: raise dims.UNKNOWN")
    return orders


def order_frame(orders: Orders) -> pl.DataFrame:
    """The dim_order table: one row per dimension × value with its 1-based position."""
    rows = [(d, v, i) for d, values in orders.items() for i, v in enumerate(values, start=1)]
    return pl.DataFrame(
        rows,
        schema={"dimension": pl.String, "value": pl.String, "position": pl.Int64},
        orient="row",
    )


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


MACRO = string.Template(
    "create or replace macro sort_pos(dim_name, dim_value) as coalesce(case dim_name\n"
    "$cases\n  end, $unknown);"
)


def macro_sql(orders: Orders) -> str:
    """DuckDB macro `sort_pos(dimension, value)`: the value's position in the dimension, UNKNOWN
    for a value (or dimension) no source declares. The orders are inlined, so a view rendered
    on its own (tests, one view at a time) sorts exactly as the published dim_order says."""
    cases = "\n".join(
        f"  when {_literal(d)} then list_position([{', '.join(map(_literal, values))}], dim_value)"
        for d, values in orders.items()
    )
    return MACRO.substitute(cases=cases, unknown=UNKNOWN)
