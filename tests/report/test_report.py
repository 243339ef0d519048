"""The HTML report: self-contained, the right sections and figures for the study types present,
every figure with its reading guide and source table, numbers equal to the views'."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import matplotlib
import polars as pl
import pytest

from tasks import warehouse
from tasks.rating import figures as rating_figures
from tasks.report import plotting
from tasks.report.build import make_block, write_report
from tasks.report.page import Block, Section, fmt_value, render_block, render_page
from tasks.report.panel import Panel
from tasks.study_types import StudyType
from tasks.tone import figures as tone_figures

from .conftest import Node, Warehouse, page_svg, parse_html
from .test_headlines import NUMBER

FIGURE_VIEWS = {
    "summary": ["fct_calls"],
    "rating": [
        "tbl_rating_performance",
        "tbl_judge_ranking",
        "tbl_ensembles",
        "tbl_ensemble_size",
        "tbl_corrected",
        "tbl_variance_components",
        "tbl_d_study",
    ],
    "accuracy": ["tbl_accuracy_by_design", "tbl_switch_rates", "tbl_corrected"],
    "tone": [
        "tbl_tone_per_text",
        "tbl_tone_gaps",
        "tbl_tone_flips",
        "tbl_rewrite_pass_rates",
        "tbl_tone_gaps",
    ],
    "pairwise": ["tbl_pairwise_position", "tbl_variance_components", "tbl_d_study"],
}
SECTION_TITLES = {
    "summary": "Summary",
    "rating": "Rating studies",
    "accuracy": "Accuracy studies",
    "tone": "Tone studies",
    "pairwise": "Pairwise studies",
    "costs": "Costs",
    "glossary": "Glossary",
}
# views shown as tables, openly
TABLE_VIEWS = {
    "rating": ["tbl_design_impact_single", "tbl_design_impact_all_pairs", "tbl_threshold_shares"],
    "accuracy": ["tbl_verdict_impact"],
    "tone": ["tbl_tone_by_variant", "tbl_tone_criteria"],
    "pairwise": ["tbl_pairwise_agreement", "tbl_pairwise_order_accuracy", "tbl_verdict_tests"],
}


def expected_parts(types: dict[str, str]) -> list[str]:
    kinds = [t for t in ("rating", "accuracy", "tone", "pairwise") if t in types.values()]
    return ["summary", *kinds, "costs", "glossary"]


def figure_count(dom: Node) -> int:
    (meta,) = dom.find_all("meta", name="judgelab-figures")
    return int(meta.attrs["content"])


def shown(value: float) -> str:
    """How the page prints a number a view rounded: as is, no trailing zeros."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


# ---- the report of a real warehouse (flows on fake judges) -------------------------------


@pytest.mark.slow
def test_report_loads_nothing_from_outside(report_file: Path, report_dom: Node) -> None:
    text = report_file.read_text(encoding="utf-8")
    assert not re.search(r"""\b(?:src|href|action|poster)\s*=\s*["']?\s*(?:https?:)?//""", text)
    assert not re.search(r"url\(\s*['\"]?\s*(?:https?:)?//", text)
    assert not re.search(r"@import|<link|<iframe|<img|<object|<embed", text, re.I)
    assert not re.search(r"fetch\(|XMLHttpRequest|WebSocket|import\(|\bsrc\s*=", text)
    # two scripts: the drill-down's JSON (not run) and one inline script, allowed by its hash
    data, code = report_dom.find_all("script")
    assert data.attrs == {"type": "application/json", "id": "drill-data"}
    assert code.attrs == {}
    json.loads(data.text())
    digest = base64.b64encode(hashlib.sha256(code.text().encode()).digest()).decode()
    refs = [v for n in report_dom.iter() for k, v in n.attrs.items() if k.endswith("href")]
    assert refs and all(r.startswith("#") for r in refs)  # only anchors on the page itself
    ids = {n.attrs["id"] for n in report_dom.iter() if "id" in n.attrs}
    assert {r[1:] for r in refs} <= ids  # and every one of them resolves
    (csp,) = report_dom.find_all("meta", **{"http-equiv": "Content-Security-Policy"})
    policy = dict(p.strip().split(" ", 1) for p in csp.attrs["content"].split(";"))
    assert policy["default-src"] == "'none'" and policy["script-src"] == f"'sha256-{digest}'"


@pytest.mark.slow
def test_sections_and_figures_follow_the_study_types(
    warehouse_run: Warehouse, report_dom: Node
) -> None:
    parts = expected_parts(warehouse_run.types)
    sections = report_dom.find_all("section")
    assert [s.attrs["id"] for s in sections] == parts
    assert [s.find_all("h2")[0].text() for s in sections] == [SECTION_TITLES[p] for p in parts]
    views = [v for p in parts for v in FIGURE_VIEWS.get(p, [])]
    figs = report_dom.find_all("figure")
    assert [f.attrs["data-view"] for f in figs] == views
    assert figure_count(report_dom) == len(figs) == len(views)
    assert all(len(f.find_all("svg")) == 1 for f in figs)
    # the table panels are tables, shown openly
    for view in (v for p in parts for v in TABLE_VIEWS.get(p, [])):
        (table,) = report_dom.find_all("table", **{"data-view": view})
        assert not any(a.tag == "details" for a in table.ancestors())
        assert table.table_rows(), view


@pytest.mark.slow
def test_every_figure_has_a_reading_guide_and_its_table(report_dom: Node) -> None:
    articles = [a for a in report_dom.find_all("article") if a.find_all("figure")]
    assert len(articles) == figure_count(report_dom)
    for article in articles:
        (h3,) = article.find_all("h3")
        (guide,) = [p for p in article.find_all("p") if p.attrs.get("class") == "guide"]
        (fig,) = article.find_all("figure")
        view = fig.attrs["data-view"]
        assert h3.text().strip()
        sentence = guide.text().strip()
        assert sentence.endswith(".") and ". " not in sentence, sentence  # one sentence
        (details,) = article.find_all("details")
        assert view in details.find_all("summary")[0].text()
        (table,) = details.find_all("table")
        assert table.attrs["data-view"] == view
        n_rows = int(re.search(r"(\d+) rows?", details.find_all("summary")[0].text()).group(1))
        assert len(table.table_rows()) == n_rows > 0


@pytest.mark.slow
def test_the_pairwise_figure_draws_the_views_designs(
    warehouse_run: Warehouse, report_file: Path
) -> None:
    """The page's pairwise figure is the drawing of tbl_pairwise_position's rows (the same
    SVG), and that drawing puts each design at the view's bias, filled when it is flagged."""
    rows = warehouse.query(
        warehouse_run.settings,
        "select * from tbl_pairwise_position where study = 'report-pairwise'",
    )
    (panel,) = [
        p
        for p in StudyType.named("pairwise").load("report").PANELS
        if p.view == "tbl_pairwise_position"
    ]
    page = report_file.read_text(encoding="utf-8")
    assert page_svg(page, panel.view) == plotting.render(panel.draw, rows, "pairwise-1").strip()
    ax = panel.draw(rows).axes[0]
    drawn = rows.filter(pl.col("bias_pp").is_not_null()).rows(named=True)
    at = {len(drawn) - 1 - i: r for i, r in enumerate(drawn)}  # the first row on top
    labels = {t.get_position()[1]: t.get_text() for t in ax.get_yticklabels()}
    assert labels == {
        y: f"report-pairwise · {r['judge']} · {r['prompt_level']}" for y, r in at.items()
    }
    dots = {c.get_label(): c.get_offsets().tolist() for c in ax.collections if c.get_label()}
    assert dots["flagged (sign test)"] == [[r["bias_pp"], y] for y, r in at.items() if r["flagged"]]
    assert dots["not flagged"] == [[r["bias_pp"], y] for y, r in at.items() if not r["flagged"]]
    assert [r["judge"] for r in drawn if r["flagged"]] == ["first", "first"]


@pytest.mark.slow
def test_numbers_in_tables_equal_the_views(warehouse_run: Warehouse, report_dom: Node) -> None:
    settings = warehouse_run.settings

    def table(view: str) -> list[dict[str, str]]:
        return report_dom.find_all("table", **{"data-view": view})[0].table_rows()

    perf = warehouse.query(
        settings,
        "select judge, prompt_level, scale, bias, bias_lo, mae, kripp_alpha "
        "from tbl_rating_performance where study = 'report-rating'",
    )
    rows = {
        (r["judge"], r["prompt_level"], r["scale"]): r
        for r in table("tbl_rating_performance")
        if r["study"] == "report-rating"
    }
    assert len(rows) == perf.height == 9  # 2 judges × 2 prompt levels × 2 scales + VADER
    for judge, level, scale, *values in perf.rows():
        row = rows[(judge, level, scale)]
        for column, value in zip(("bias", "bias_lo", "mae", "kripp_alpha"), values, strict=True):
            assert row[column] == shown(value) and float(row[column]) == value, (judge, column)
    # the planted shift shows: −0.4 on 1–7 wherever the −3..3 plant does not offset it
    assert rows[("fake-shift", "base", "likert7")]["bias"].startswith("-0.")

    acc = warehouse.query(
        settings,
        "select judge, prompt_level, acc_pct, leniency_pct from tbl_accuracy_by_design "
        "where study = 'report-accuracy'",
    )
    rows = {(r["judge"], r["prompt_level"]): r for r in table("tbl_accuracy_by_design")}
    for judge, level, acc_pct, leniency in acc.rows():
        assert rows[(judge, level)]["acc_pct"] == shown(acc_pct)
        assert rows[(judge, level)]["leniency_pct"] == (
            shown(leniency) if leniency is not None else "–"
        )
    assert {rows[k]["leniency_pct"] for k in rows if k[0] == "lenient"} == {"100"}

    # the summary counts every planned judgment, and every call (a judge's distinct request:
    # identical texts share one) with its outcome
    calls = warehouse.query(
        settings,
        "select study, count(*) as judgments, count(distinct (judge, key)) as n, "
        "count(distinct (judge, key)) filter (where status <> 'missing') as stored, "
        "count(distinct (judge, key)) filter (where status in ('unparseable', 'out_of_range')) "
        "as parse_fail from fct_calls group by study",
    )
    ran = {r["study"]: r for r in table("fct_calls")}
    assert set(ran) == set(warehouse_run.studies)
    for study, judgments, n, stored, parse_fail in calls.rows():
        assert ran[study]["judgments"] == str(judgments)
        assert ran[study]["calls_planned"] == str(n)
        assert ran[study]["calls_stored"] == str(stored)
        assert ran[study]["parse_fail"] == str(parse_fail)
        assert ran[study]["type"] == warehouse_run.types[study]
    assert ran["report-rating"]["designs"] == "9"
    assert ran["report-rating"]["judges"] == "fake-noisy, fake-shift"
    assert ran["report-rating"]["baselines"] == "vader"
    assert ran["report-accuracy"]["calls_planned"] == "160"  # 40 items × 2 judges × 2 levels

    if "report-tone" in warehouse_run.types:
        gaps = warehouse.query(
            settings,
            "select judge, prompt_level, rewriter, gap, noise from tbl_tone_gaps "
            "where study = 'report-tone'",
        )
        rows = {(r["judge"], r["prompt_level"], r["rewriter"]): r for r in table("tbl_tone_gaps")}
        assert gaps.height > 0
        for judge, variant, rewriter, gap, noise in gaps.rows():
            row = rows[(judge, variant, rewriter)]
            assert row["gap"] == shown(gap) and row["noise"] == shown(noise)
        assert ran["report-tone"]["rewriter"] == "echo"

    # pairwise: 8 pairs × 2 orders × 2 judges × 2 prompt levels
    assert ran["report-pairwise"]["calls_planned"] == ran["report-pairwise"]["calls_stored"] == "64"
    assert ran["report-pairwise"]["judges"] == "first, hash"
    columns = ["n_pairs", "consistency_pct", "bias_pp", "bias_lo_pp", "bias_hi_pp", "p_value"]
    columns += ["p_holm", "flagged"]
    position = warehouse.query(
        settings,
        f"select judge, prompt_level, {', '.join(columns)} from tbl_pairwise_position "
        "where study = 'report-pairwise'",
    )
    rows = {(r["judge"], r["prompt_level"]): r for r in table("tbl_pairwise_position")}
    assert len(rows) == position.height == 4
    for judge, level, *values in position.rows():
        for column, value in zip(columns, values, strict=True):
            assert rows[(judge, level)][column] == fmt_value(value), (judge, level, column)
    for level in ("base", "long_icl"):  # the first position always wins: every pair leans first
        first = rows[("first", level)]
        assert (first["bias_pp"], first["consistency_pct"], first["n_pairs"]) == ("50", "0", "8")
        assert (first["bias_lo_pp"], first["bias_hi_pp"]) == ("50", "50")
        assert first["p_value"] == shown(round(2 * 0.5**8, 4)) and first["flagged"] == "yes"
    # flagged is Holm's p under 5% (over the study's designs), not the raw p
    for r in position.rows(named=True):
        assert r["flagged"] == (None if r["p_holm"] is None else r["p_holm"] < 0.05), r
    agreement = warehouse.query(
        settings,
        "select judge, prompt_level, n_decisive, a_win_pct, preferred_win_pct, human_acc_pct "
        "from tbl_pairwise_agreement where study = 'report-pairwise'",
    )
    rows = {(r["judge"], r["prompt_level"]): r for r in table("tbl_pairwise_agreement")}
    assert len(rows) == agreement.height == 4
    for judge, level, *values in agreement.rows():
        for column, value in zip(agreement.columns[2:], values, strict=True):
            assert rows[(judge, level)][column] == fmt_value(value), (judge, level, column)
    # answer a is shown first in half the calls: the first-position judge picks it in half
    assert rows[("first", "base")]["a_win_pct"] == "50"


@pytest.mark.slow
def test_the_page_opens_with_each_studys_headline(
    warehouse_run: Warehouse, report_file: Path, report_dom: Node
) -> None:
    """Before what ran: one line per study, in the asked order, its type's computed headline
    (the short one: at most three numbers); the type's section opens with the long one."""
    (block,) = [d for d in report_dom.find_all("div") if d.attrs.get("id") == "answer"]
    lines = {li.attrs["data-study"]: li.text() for li in block.find_all("li")}
    assert list(lines) == warehouse_run.studies
    for kind in {StudyType.named(t) for t in warehouse_run.types.values()}:
        of_kind = [s for s, t in warehouse_run.types.items() if t == kind.name]
        said = kind.load("headline")(warehouse_run.settings, of_kind)
        for study in of_kind:
            top = said[study].top if study in said else None
            assert lines[study].startswith(f"{study} ({kind.name}): "), study
            if top:
                assert lines[study].endswith(top) and len(NUMBER.findall(top)) <= 3, study
        (section,) = [s for s in report_dom.find_all("section") if s.attrs["id"] == kind.name]
        leads = [p.text() for p in section.find_all("p") if p.attrs.get("class") == "lead"]
        assert all(any(said[s].full in lead for lead in leads) for s in said), kind.name
    assert "report-rating (rating): Best judge design: fake-shift · " in "".join(lines.values())
    page = report_file.read_text(encoding="utf-8")
    assert page.index('id="answer"') < page.index("What ran")


@pytest.mark.slow
def test_the_glossary_explains_the_columns_the_page_shows(report_dom: Node) -> None:
    (section,) = [s for s in report_dom.find_all("section") if s.attrs["id"] == "glossary"]
    (table,) = section.find_all("table", **{"data-view": "glossary"})
    rows = table.table_rows()
    named = {r["column"] for r in rows}
    assert {"bias_lo", "p_holm", "consistency_pct", "flagged", "gap", "leniency_pct"} <= named
    shown = {
        (t.attrs["data-view"], th.text())
        for t in report_dom.find_all("table")
        if t.attrs.get("data-view") != "glossary"
        for th in t.find_all("th")
    }
    for row in rows:  # every term is a column of a table the page shows, in the views it names
        assert all((view, row["column"]) in shown for view in row["in"].split(", ")), row
    links = [a for a in report_dom.find_all("a") if a.attrs.get("href") == "#glossary"]
    assert any(a.text() == "glossary" for a in links)  # the header points to it


@pytest.mark.slow
def test_ensembles_keep_the_baseline_pool_apart(warehouse_run: Warehouse, report_dom: Node) -> None:
    """Two LLM judges + VADER: no judge-only triple exists; with ensemble_baselines on, the
    triples that need VADER appear only under pool judges+baselines, in the views and the page;
    again without the outlier scale (−3..3), each judge then down to its 2 likert7 designs."""
    cells = warehouse.query(
        warehouse_run.settings,
        "select subset, pool, strategy, n_possible from tbl_ensembles "
        "where study = 'report-rating'",
    )
    free = {(sub, p): n for sub, p, s, n in cells.rows() if s == "model_free"}
    assert free == {
        ("all", "judges"): 0,
        ("all", "judges+baselines"): 4 * 4,  # a design of each judge + VADER
        ("without bipolar3", "judges"): 0,
        ("without bipolar3", "judges+baselines"): 2 * 2,
    }
    curve = warehouse.query(
        warehouse_run.settings,
        "select size, n_possible from tbl_ensemble_size where study = 'report-rating' "
        "and pool = 'judges' and strategy = 'model_free' and n_possible > 0",
    )
    assert curve.rows() == [(1, 8), (2, 16)]  # 8 judge designs; pairs of the two judges
    rows = report_dom.find_all("table", **{"data-view": "tbl_ensembles"})[0].table_rows()
    pools = [(r["subset"], r["pool"]) for r in rows if r["study"] == "report-rating"]
    assert pools == [
        (sub, p) for sub in ["all", "without bipolar3"] for p in ["judges", "judges+baselines"]
        for _ in range(4)
    ]  # fmt: skip


@pytest.mark.slow
def test_only_the_types_present_get_sections(warehouse_run: Warehouse, tmp_path: Path) -> None:
    out = tmp_path / "nested" / "rating.html"  # its folder is made
    assert write_report(warehouse_run.settings, ["report-rating"], out) == out
    dom = parse_html(out.read_text(encoding="utf-8"))
    assert [s.attrs["id"] for s in dom.find_all("section")] == [
        "summary",
        "rating",
        "costs",
        "glossary",
    ]
    assert figure_count(dom) == len(dom.find_all("figure")) == 1 + len(FIGURE_VIEWS["rating"])
    studies = {
        r["study"] for r in dom.find_all("table", **{"data-view": "fct_calls"})[0].table_rows()
    }
    assert studies == {"report-rating"}
    assert "report-accuracy" not in out.read_text(encoding="utf-8")
    # the same warehouse gives the same bytes (no dates, no random ids)
    again = write_report(warehouse_run.settings, ["report-rating"], tmp_path / "again.html")
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.slow
def test_a_rewrite_with_the_same_rows_draws_nothing_and_gives_the_same_bytes(
    warehouse_run: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cached.html"
    write_report(warehouse_run.settings, ["report-rating"], out)
    first = out.read_bytes()

    def no_drawing(*args: object) -> None:
        raise AssertionError(f"a figure was drawn again: {args[0].__qualname__}")

    monkeypatch.setattr(plotting, "render", no_drawing)
    write_report(warehouse_run.settings, ["report-rating"], out)
    assert out.read_bytes() == first


@pytest.mark.slow
def test_an_unknown_study_is_an_error(warehouse_run: Warehouse, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no study 'nope'.*known: report-accuracy"):
        write_report(warehouse_run.settings, ["report-rating", "nope"], tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()


@pytest.mark.slow
def test_figures_survive_views_whose_numbers_are_all_null(warehouse_run: Warehouse) -> None:
    """A study whose judge never answered has rows full of nulls: each figure draws what its
    counts still say (the tone gaps' win labels, the rewrites' pass and fail counts) or nothing
    at all, and never fails."""
    studies = warehouse_run.studies
    drawn = {}
    for record in StudyType.every():
        for panel in (p for p in record.load("report").PANELS if p.draw is not None):
            frame = warehouse.query(
                warehouse_run.settings,
                f"select * from {panel.view} where list_contains(?, study)",
                [studies],
            )
            if record.name not in warehouse_run.types.values():
                continue
            assert frame.height, panel.view
            nulled = frame.with_columns(
                pl.lit(None, dtype=pl.Float64).alias(c)
                for c, t in frame.schema.items()
                if t.is_float()
            )
            fig = panel.draw(nulled)
            if fig is not None:
                assert plotting.to_svg(fig, "n").startswith("<svg"), panel.view
                drawn[panel.draw.__name__] = (nulled, fig)
    tone = "tone" in warehouse_run.types.values()
    assert set(drawn) == ({"tone_gaps", "rewrite_pass_rates"} if tone else set())
    if tone:
        gaps, fig = drawn["tone_gaps"]
        ratio_ax, flip_ax = fig.axes[:2]
        assert [t.get_text() for t in ratio_ax.texts] == [
            "B never wins" if wins else "no wins" for wins in gaps["n_a_wins"]
        ]
        assert {p.get_width() for p in flip_ax.patches} == {0.0}  # no share: empty bars
        rewrites, fig = drawn["rewrite_pass_rates"]
        pass_ax, fail_ax = fig.axes[:2]
        assert [t.get_text() for t in pass_ax.texts] == [
            f"{p}/{n}" for p, n in rewrites.select("n_passed", "n_versions").rows()
        ]
        assert {p.get_width() for p in pass_ax.patches} == {0.0}
        failed = [n for c in tone_figures.CHECKS for n in rewrites[f"failed_{c}"].fill_null(0)]
        assert [p.get_width() for p in fail_ax.patches] == failed and sum(failed) > 0


# ---- pure parts: inline frames ------------------------------------------------------------


def test_an_empty_view_renders_one_line_not_a_figure() -> None:
    empty = pl.DataFrame(schema={"study": pl.String, "bias": pl.Float64})
    for record in StudyType.every():
        for panel in record.load("report").PANELS:
            block = make_block(panel, empty, "p")
            html = render_block(block, "a")
            assert "<figure" not in html and "<details" not in html
            assert f'<p class="empty" data-view="{panel.view}">No rows in' in html
    page = parse_html(render_page(["s"], "w.duckdb", [Section("rating", "R", "r.", [block])]))
    assert figure_count(page) == 0 and not page.find_all("figure")
    (line,) = [p for p in page.find_all("p") if p.attrs.get("class") == "empty"]
    assert line.text() == f"No rows in {panel.view} for these studies."


def test_rows_without_values_say_there_is_nothing_to_draw() -> None:
    unfilled = pl.DataFrame(
        {
            "study": ["s", "s"],
            "strategy": ["model_free", "scale"],
            "n_possible": [0, 0],
            "n_evaluated": [0, 0],
            "bias_reduction_pct": [None, None],
            "mae_reduction_pct": [None, None],
        },
        schema_overrides={"bias_reduction_pct": pl.Float64, "mae_reduction_pct": pl.Float64},
    )
    (panel,) = [
        p for p in StudyType.named("rating").load("report").PANELS if p.view == "tbl_ensembles"
    ]
    html = render_block(make_block(panel, unfilled, "p"), "a")
    assert "<figure" not in html
    assert "Nothing to draw from <code>tbl_ensembles</code> (2 rows)" in html
    assert '<table data-view="tbl_ensembles">' in html  # the rows are still shown


def test_a_table_panel_shows_its_table_and_escapes_it() -> None:
    frame = pl.DataFrame({"study": ["<s>"], "p": [0.000123], "x": [12.5], "n": [None]})
    html = render_block(make_block(Panel("tbl_x", "T", "G."), frame, "p"), "a")
    assert "<figure" not in html and "<details" not in html
    assert "&lt;s&gt;" in html and "<s>" not in html
    assert '<td class="num">1.23e-04</td>' in html and '<td class="num">12.5</td>' in html


def test_values_print_as_the_view_rounded_them() -> None:
    assert [fmt_value(v) for v in (-0.39, 0.044, 100.0, 45.3, 0.0, 3, None, True)] == [
        "-0.39",
        "0.044",
        "100",
        "45.3",
        "0",
        "3",
        "–",
        "yes",
    ]
    assert fmt_value(0.00012345) == "1.23e-04"  # unrounded p-values stay readable
    assert fmt_value(["a", "b"]) == "a, b"


def test_figures_are_inline_svg_with_ids_of_their_own() -> None:
    frame = pl.DataFrame(
        {
            "study": ["s"] * 3,
            "kind": ["judge", "judge", "baseline"],
            "judge": ["j1", "j2", "b"],
            "prompt_level": ["base", "base", "none"],
            "scale": ["likert7", "likert7", "compound"],
            "bias": [0.1, -0.2, 0.3],
            "bias_lo": [0.0, None, 0.1],  # a missing CI bound draws no bar, and no error
            "bias_hi": [0.2, None, 0.5],
            "mae": [0.5, 0.6, 0.7],
            "mae_lo": [0.4, 0.5, 0.6],
            "mae_hi": [0.6, 0.7, 0.8],
            "human_mae": [0.45] * 3,
        }
    )
    backend = matplotlib.get_backend()
    svgs = [plotting.to_svg(rating_figures.rating_performance(frame), p) for p in ("f1", "f2")]
    assert matplotlib.get_backend() == backend  # no global state touched
    ids = []
    for prefix, svg in zip(("f1", "f2"), svgs, strict=True):
        assert svg.startswith("<svg") and "<?xml" not in svg and "<metadata" not in svg
        own = re.findall(r'\bid="([^"]+)"', svg)
        assert own and all(i.startswith(f"{prefix}-") for i in own)
        refs = re.findall(r"(?:href=\"|url\()#([^\"')]+)", svg)
        assert refs and set(refs) <= set(own)
        ids += own
    assert len(ids) == len(set(ids))
    assert rating_figures.rating_performance(frame.head(0)) is None


def test_blocks_count_only_drawn_figures() -> None:
    table = pl.DataFrame({"study": ["s"]})
    blocks = [
        Block("tbl_a", "A", "a.", table, svg="<svg></svg>"),
        Block("tbl_b", "B", "b.", table, svg=None, note="n"),
        Block("tbl_c", "C", "c.", table, figure=False),
        Block("tbl_d", "D", "d.", table.head(0), svg="<svg></svg>"),
    ]
    page = parse_html(render_page(["s"], "w", [Section("x", "X", "x.", blocks)]))
    assert figure_count(page) == len(page.find_all("figure")) == 1


def test_ensemble_figures_start_at_one_judge_and_keep_baselines_apart() -> None:
    """Figure 6 starts at size 1 (the single designs); a judges+baselines pool is its own,
    labelled series in Figure 6 and its own hatched bars in Figure 5."""
    sizes = pl.DataFrame(
        {
            "study": ["s"] * 6,
            "pool": ["judges"] * 3 + ["judges+baselines"] * 3,
            "strategy": ["model_free"] * 6,
            "size": [1, 2, 3] * 2,
            "ensemble_abs_bias": [0.3, 0.2, 0.15, 0.4, 0.1, None],
            "ensemble_mae": [0.8, 0.7, 0.65, 0.9, 0.6, None],
        }
    )
    fig = rating_figures.ensemble_size(sizes)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert set(lines) == {"Model (Free)", "Model (Free) + baselines"}
    assert list(lines["Model (Free)"].get_xdata()) == [1, 2, 3]
    assert list(lines["Model (Free)"].get_ydata()) == [0.3, 0.2, 0.15]
    assert lines["Model (Free) + baselines"].get_linestyle() == "--"
    assert list(lines["Model (Free) + baselines"].get_xdata()) == [1, 2]  # null: no point

    triples = pl.DataFrame(
        {
            "study": ["s"] * 2,
            "pool": ["judges", "judges+baselines"],
            "strategy": ["model_free"] * 2,
            "n_evaluated": [4, 10],
            "bias_reduction_pct": [30.0, 50.0],
            "mae_reduction_pct": [10.0, 20.0],
        }
    )
    ax = rating_figures.ensembles(triples).axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["Model (Free)\n(n=4)", "Model (Free)\n+ baselines\n(n=10)"]
    assert [p.get_hatch() or "" for p in ax.patches[:2]] == ["", "//"]


def test_figure5_draws_the_triples_without_the_outlier_scale_as_their_own_panel() -> None:
    """As the paper's Figure 5 (Sentiment, Toxicity, Toxicity without −3..3): the subset
    'without bipolar3' of a study is a panel of its own, after the study's own."""
    triples = pl.DataFrame(
        {
            "study": ["tox"] * 2,
            "subset": ["all", "without bipolar3"],
            "pool": ["judges"] * 2,
            "strategy": ["scale"] * 2,
            "n_evaluated": [4, 4],
            "bias_reduction_pct": [25.2, 4.6],
            "mae_reduction_pct": [10.0, 3.0],
        }
    )
    axes = rating_figures.ensembles(triples).axes
    assert [ax.get_title(loc="left") for ax in axes] == [
        "tox: ensembles of three judge designs",
        "tox · without bipolar3: ensembles of three judge designs",
    ]
    assert [ax.patches[0].get_height() for ax in axes] == [25.2, 4.6]


def ranking_rows(study: str, judges: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "study": [study] * len(judges),
            "kind": ["judge"] * len(judges),
            "prompt_level": ["base"] * len(judges),
            "scale": ["likert7"] * len(judges),
            "rank": list(range(1, len(judges) + 1)),
            "judge": judges,
            "kripp_alpha": [0.9 - 0.1 * i for i in range(len(judges))],
        }
    )


def test_a_figure_comparing_judges_gives_a_one_judge_study_one_line() -> None:
    """Figure 4 ranks judges: a study with one judge would be "#1" in every cell. It is left
    out of the figure with a line saying why; its rows stay in the table."""
    (panel,) = [
        p for p in StudyType.named("rating").load("report").PANELS if p.view == "tbl_judge_ranking"
    ]
    assert panel.min_judges == 2
    solo, duo = ranking_rows("solo", ["j1"]), ranking_rows("duo", ["j1", "j2"])
    judges = {"solo": ["j1"], "duo": ["j1", "j2"]}
    line = (
        "Not drawn for solo: this figure compares 2 or more judges, and solo has 1 judge (j1); "
        "the rows are in the table below."
    )
    html = render_block(make_block(panel, solo, "p", judges=judges), "a")
    assert "<figure" not in html and "Nothing to draw" not in html
    assert f'<p class="empty" data-view="tbl_judge_ranking">{line}</p>' in html
    assert '<table data-view="tbl_judge_ranking">' in html and ">solo<" in html
    # beside a study with two judges: the figure draws that one only, and names the other
    both = pl.concat([solo, duo])
    block = make_block(panel, both, "p", judges=judges)
    assert block.svg == plotting.render(panel.draw, duo, "p") and block.table.equals(both)
    html = render_block(block, "a")
    assert html.count("<figure") == 1 and line in html
    # unknown judges (a caller that does not say): drawn as before
    assert make_block(panel, solo, "p").svg == plotting.render(panel.draw, solo, "p")
    # a panel that does not compare judges draws a one-judge study
    (perf,) = [
        p
        for p in StudyType.named("rating").load("report").PANELS
        if p.view == "tbl_rating_performance"
    ]
    assert perf.min_judges == 1
