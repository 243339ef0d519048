"""Sort orders come from data (tasks/dims.py): a scale declared in scales.toml sorts where it is
declared, every view keeps today's orders for today's values, and no view sorts by a literal
list of a declared vocabulary."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import duckdb
import polars as pl

from judgelab.settings import PROJECT_ROOT, Settings
from tasks import dims, warehouse
from tasks.judging.prompts import task_dirs
from tasks.judging.scales import SCALES_FILE, load_scales

LEVELS = ["base", "short_icl", "long_icl"]
VARIANTS = ["plain", "style_attention", "fact_first"]
EFFORTS = ["none", "minimal", "low", "medium", "high", "default"]
LIKERT5 = '[scales.likert5]\nlabel = "1–5"\nmin = 1\nmax = 5\nstep = 1\n\n'


def _rows(table: str, **columns: list) -> pl.DataFrame:
    """Rows of `table` with the given columns; every other column of its schema is null."""
    n = len(next(iter(columns.values())))
    schema = warehouse.table_schema(table).to_schema().columns
    return pl.DataFrame(
        [
            pl.Series(c, columns.get(c, [None] * n), dtype=col.dtype.type)
            for c, col in schema.items()
        ]
    )


def _column(settings: Settings, view: str, column: str) -> list:
    return warehouse.query(settings, f"select {column} from {view}")[column].to_list()


def test_merged_keeps_each_declared_order() -> None:
    rating = ["base", "short_icl", "long_icl"]
    assert dims.merged([rating, ["base", "cot", "short_icl"], ["pre", "base"], VARIANTS]) == [
        "pre", "base", "cot", "short_icl", "long_icl", *VARIANTS
    ]  # fmt: skip
    assert dims.merged([rating, rating[::-1]]) == rating  # the first declaration wins a conflict


def test_every_task_declares_its_levels_in_order() -> None:
    """task.toml `levels` names exactly the task's templates, so no level sorts by accident."""
    for config in (folder / "task.toml" for folder in task_dirs().values()):
        declared = tomllib.loads(config.read_text()).get("levels")
        templates = {p.name.split(".")[0] for p in config.parent.glob("*.*.txt")}
        assert declared is not None, f"{config}: no `levels = [...]`"
        assert sorted(declared) == sorted(templates), config
    orders = dims.read_orders()
    assert orders["prompt_level"] == [*LEVELS, *VARIANTS]
    shared = list(tomllib.loads(SCALES_FILE.read_text())["scales"])
    assert orders["scale"][: len(shared)] == shared  # then a type package's (tasks/<type>/)
    assert orders["scale"] == list(load_scales())


def test_today_orders_hold_in_the_views(settings: Settings) -> None:
    """Shuffled rows come out in the orders the views had before they were data."""
    levels = ["long_icl", "zz_level", "base", "short_icl"]
    efforts = ["high", "n/a", "default", "none", "low", "minimal", "medium"]
    pairs = [(lv, e) for lv in levels for e in efforts]
    warehouse.write_table(
        settings,
        _rows(
            "accuracy_metrics",
            study=["s"] * len(pairs),
            judge=["j"] * len(pairs),
            prompt_level=[lv for lv, _ in pairs],
            reasoning_effort=[e for _, e in pairs],
            subset=["all"] * len(pairs),
        ),
        "accuracy_metrics",
        "s",
    )
    tone = [(v, a) for v in ["fact_first", "plain", "zz_variant", "style_attention"]
            for a in ["fluency", "zz_axis", "confidence"]]  # fmt: skip
    warehouse.write_table(
        settings,
        _rows(
            "tone_gaps",
            study=["t"] * len(tone),
            judge=["e"] * len(tone),
            rewriter=["llm"] * len(tone),
            prompt_level=[v for v, _ in tone],
            axis=[a for _, a in tone],
        ),
        "tone_gaps",
        "t",
    )
    levels_rows = [("near", "reasoning_effort", "high"), ("all", "prompt_level", "long_icl"),
                   ("all", "reasoning_effort", "none"), ("all", "model", "j2"),
                   ("all", "prompt_level", "base"), ("full", "model", "j1"),
                   ("all", "model", "j1")]  # fmt: skip
    warehouse.write_table(
        settings,
        _rows(
            "verdict_levels",
            study=["s"] * len(levels_rows),
            subset=[r[0] for r in levels_rows],
            choice=[r[1] for r in levels_rows],
            level=[r[2] for r in levels_rows],
        ),
        "verdict_levels",
        "s",
    )
    ens = [(p, s) for p in ["judges+baselines", "judges"]
           for s in ["prompt", "model_fixed", "scale", "model_free"]]  # fmt: skip
    warehouse.write_table(
        settings,
        _rows(
            "ensembles",
            study=["s"] * len(ens),
            pool=[p for p, _ in ens],
            strategy=[s for _, s in ens],
            size=[3] * len(ens),
        ),
        "ensembles",
        "s",
    )
    warehouse.publish_views(settings)

    design = warehouse.query(
        settings, "select prompt_level, reasoning_effort from tbl_accuracy_by_design"
    )
    expected = [(lv, e) for lv in [*LEVELS, "zz_level"] for e in [*EFFORTS, "n/a"]]
    assert design.rows() == expected
    gaps = warehouse.query(settings, "select prompt_level, axis from tbl_tone_gaps")
    axes = ["confidence", "fluency", "zz_axis"]
    assert gaps.rows() == [(v, a) for v in [*VARIANTS, "zz_variant"] for a in axes]
    assert warehouse.query(
        settings, "select subset, choice, level from tbl_verdict_impact_levels"
    ).rows() == [("all", "model", "j1"), ("all", "model", "j2"), ("all", "prompt_level", "base"),
                 ("all", "prompt_level", "long_icl"), ("all", "reasoning_effort", "none"),
                 ("full", "model", "j1"), ("near", "reasoning_effort", "high")]  # fmt: skip
    assert warehouse.query(settings, "select pool, strategy from tbl_ensembles").rows() == [
        (p, s) for p in ["judges", "judges+baselines"]
        for s in ["model_free", "model_fixed", "scale", "prompt"]
    ]  # fmt: skip
    dim = warehouse.query(settings, "select * from dim_order where dimension = 'axis'")
    assert dim["value"].to_list() == sorted(p.stem for p in dims.AXES_DIR.glob("*.toml"))


def test_a_scale_declared_in_scales_toml_sorts_where_declared(
    settings: Settings, tmp_path: Path
) -> None:
    """likert5, declared between likert7 and bipolar3, sorts there (not last, as before dims);
    undeclared scales still sort last, by name, and the "(all)" row after them."""
    text = SCALES_FILE.read_text()
    scales_file = tmp_path / "scales.toml"
    scales_file.write_text(text.replace("[scales.bipolar3]", LIKERT5 + "[scales.bipolar3]", 1))
    scales = ["pct100", "zz_scale", "likert5", "unit", "aa_scale", "likert7", "bipolar3"]
    warehouse.write_table(
        settings,
        _rows(
            "design_costs",
            study=["s"] * len(scales),
            judge=["j"] * len(scales),
            prompt_level=["base"] * len(scales),
            scale=scales,
            n_planned=[1] * len(scales),
        ),
        "design_costs",
        "s",
    )
    undeclared = ["aa_scale", "zz_scale", "(all)"]

    warehouse.publish_views(settings, dims.read_orders(scales_file=scales_file))
    assert _column(settings, "tbl_design_cost", "scale") == [
        "likert7", "likert5", "bipolar3", "unit", "pct100", *undeclared
    ]  # fmt: skip
    assert warehouse.query(
        settings, "select position from dim_order where dimension = 'scale' and value = 'likert5'"
    )["position"].to_list() == [2]

    warehouse.publish_views(settings)  # the shipped scales.toml: likert5 is undeclared again
    assert _column(settings, "tbl_design_cost", "scale") == [
        "likert7", "bipolar3", "unit", "pct100", "aa_scale", "likert5", "zz_scale", "(all)"
    ]  # fmt: skip


def test_sort_pos_macro_quotes_values_and_puts_unknowns_last() -> None:
    con = duckdb.connect()
    con.execute(dims.macro_sql({"scale": ["it's", "b"], "axis": ["a"]}))
    got = con.sql(
        "select sort_pos('scale', 'it''s'), sort_pos('scale', 'b'), sort_pos('scale', 'a'), "
        "sort_pos('nope', 'b'), sort_pos('axis', 'a')"
    ).fetchall()
    assert got == [(1, 2, dims.UNKNOWN, dims.UNKNOWN, 1)]


LITERAL_LIST = re.compile(r"list_position\(\s*\[([^\]]*)\]", re.S)


def literal_sort_values(sql: str) -> set[str]:
    """The quoted values of every `list_position([...], …)` literal list in `sql`."""
    return {v for body in LITERAL_LIST.findall(sql) for v in re.findall(r"'([^']*)'", body)}


def test_no_view_sorts_by_a_literal_list_of_a_declared_vocabulary() -> None:
    declared = {v for values in dims.read_orders().values() for v in values}
    planted = "order by coalesce(list_position(['likert7',\n 'unit'], scale), 99)"
    assert literal_sort_values(planted) & declared == {"likert7", "unit"}  # the finder finds
    for f in sorted((PROJECT_ROOT / "sql").rglob("*.sql")):
        assert not literal_sort_values(f.read_text()) & declared, f"{f}: use sort_pos(…)"
