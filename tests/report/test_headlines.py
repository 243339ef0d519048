"""The report opens with its answer: each study's headline, computed from the rows of its report
views (planted below, worked out by hand), at most three numbers at the top of the page and
before what ran; the same computation opens the type's section."""

from __future__ import annotations

import re

import polars as pl

from tasks.accuracy.headline import headline as accuracy_headline
from tasks.rating.headline import headline as rating_headline
from tasks.report.page import Answer, Block, Section, render_page
from tasks.tone.headline import headline as tone_headline

from .conftest import parse_html

# a number as a reader counts it: "0.24", "+0.86", "25%", "2"; not the 3 of "bipolar3"
NUMBER = re.compile(r"(?<![\w.-])[-+]?\d[\d,.]*%?")


def numbers(text: str) -> list[str]:
    return [n.rstrip(".,") for n in NUMBER.findall(text)]


PERFORMANCE = pl.DataFrame(
    {
        "study": ["s"] * 5,
        "kind": ["judge"] * 4 + ["baseline"],
        "judge": ["j1", "j1", "j2", "j2", "vader"],
        "prompt_level": ["base", "long_icl", "base", "long_icl", "none"],
        "scale": ["likert7", "likert7", "bipolar3", "bipolar3", "compound"],
        "mae": [0.87, 0.40, None, 0.40, 0.10],  # the baseline is not a judge design
    }
)
VARIANCE = pl.DataFrame(
    {
        "study": ["s"] * 7,
        "component": ["item", "residual", "judge", "scale", "judge:scale", "judge:item", "order"],
        "df": [29, 100, 1, 1, 1, 29, 1],
        "eta_sq_pct": [70.0, 17.5, 1.2, 0.6, 0.5, 10.0, None],
    }
)


def test_rating_headline_names_the_best_design_its_spread_and_the_design_share() -> None:
    said = rating_headline(PERFORMANCE, VARIANCE)
    # equal MAE 0.40: the view's order decides; design share 1.2 + 0.6 + 0.5 (not judge:item)
    assert said.top == (
        "Best judge design: j1 · long_icl · likert7, MAE 0.40 (worst 0.87); the design choices "
        "carry 2.3% of the judge-score variance."
    )
    assert numbers(said.top) == ["0.40", "0.87", "2.3%"]
    assert said.full == said.top[:-1] + ", the items 70%."
    one = rating_headline(PERFORMANCE.filter(pl.col("mae") == 0.87), VARIANCE.head(0))
    assert one.top == "One judge design has an MAE: j1 · base · likert7, MAE 0.87."
    assert rating_headline(PERFORMANCE.filter(pl.col("kind") == "baseline"), VARIANCE) == ("", "")


def test_accuracy_headline_names_the_best_design_and_the_choice_that_moves_it_most() -> None:
    designs = pl.DataFrame(
        {
            "study": ["s"] * 3,
            "judge": ["lenient", "strict", "strict"],
            "prompt_level": ["base", "base", "long_icl"],
            "reasoning_effort": ["n/a"] * 3,
            "acc_pct": [80.0, 90.0, 85.0],
        }
    )
    impact = pl.DataFrame(
        {"choice": ["prompt_level", "model"], "max_acc_diff_pct": [1.2, 3.75]},
    )
    said = accuracy_headline(designs, impact)
    assert (
        said.top
        == said.full
        == (
            "Best design: strict · base, 90% accurate (worst 80%); model moves accuracy most, by "
            "up to 3.8 points between its levels."
        )
    )
    assert len(numbers(said.top)) == 3
    efforts = designs.with_columns(reasoning_effort=pl.Series(["n/a", "low", "high"]))
    assert accuracy_headline(efforts, impact.head(0)).top == (
        "Best design: strict · base · low, 90% accurate (worst 80%)."
    )


def test_tone_headline_names_the_largest_gap_and_how_many_stand_out_from_noise() -> None:
    gaps = pl.DataFrame(
        {
            "study": ["s"] * 4,
            "judge": ["e"] * 4,
            "prompt_level": ["plain", "plain", "plain", "style_attention"],
            "rewriter": ["lexical"] * 4,
            "axis": ["confidence", "verbosity", "formatting", "verbosity"],
            "contrast": ["high vs low", "padded vs unpadded", "bullets vs prose"] * 1
            + ["padded vs unpadded"],
            "gap": [0.5, -0.857, None, 0.3],
            "distinguishable": ["yes", "yes", None, "no"],
        }
    )
    said = tone_headline(gaps)
    assert said.top == (
        "Largest tone gap: -0.86 points of the overall score for verbosity (padded vs "
        "unpadded), e · plain; 2 of 3 gaps are distinguishable from repeat noise."
    )
    assert numbers(said.top) == ["-0.86", "2", "3"]
    assert tone_headline(gaps.head(1)).top.endswith("; it is distinguishable from repeat noise.")
    assert tone_headline(gaps.filter(pl.col("gap").is_null())) == ("", "")


def test_the_page_opens_with_the_answers_before_what_ran() -> None:
    what_ran = Block("fct_calls", "What ran", "g.", pl.DataFrame({"study": ["a"]}), figure=False)
    sections = [
        Section("summary", "Summary", "s.", [what_ran]),
        Section("rating", "Rating studies", "r.", []),
    ]
    answers = [Answer("a", "rating", "Best <design>: j1."), Answer("b", "rating", None)]
    page = render_page(["a", "b"], "w.duckdb", sections, {"rating"}, None, answers)
    dom = parse_html(page)
    (block,) = [d for d in dom.find_all("div") if d.attrs.get("id") == "answer"]
    lines = [li.text() for li in block.find_all("li")]
    assert lines == [
        "a (rating): Best <design>: j1.",  # escaped in the page, read back as text
        "b (rating): nothing to report yet: no design has a number (see its section).",
    ]
    assert [a.attrs["href"] for a in block.find_all("a")] == ["#rating", "#rating"]
    assert "Best &lt;design&gt;" in page
    assert page.index('id="answer"') < page.index("<nav>") < page.index("What ran")
