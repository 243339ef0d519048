"""The rule-based confidence rewriter: content frozen by construction, tone moved when it can.

Guarantees checked on 200 real UKPConvArg1 arguments (every fifth, both poles): facts and
length within ±5% hold for all of them; digits and all punctuation but commas are untouched;
every version that differs from its original passes every model-free check. The share that
differs is what the rewriter cannot guarantee: texts under 20 words get no insertion (±5%
leaves no room), and a few longer ones have no safe insertion site. On this sample 154 of 200
change (94% of the 164 with 20 or more words); the test asks for at least 75% and 90%.
"""

from __future__ import annotations

import re
import tomllib

import polars as pl
import pytest
from conftest import mirror_dir

from tasks.benchmarks.tonetexts import load_ukp
from tasks.tone.axes import AXES_DIR, load_axis, parse_axis
from tasks.tone.checks import (
    check_version,
    facts_match,
    length_ratio,
    moved_in_direction,
    within_tolerance,
    words,
)
from tasks.tone.lexical import REWRITER, lexical_rewrite, lexical_versions

CONF = load_axis("confidence")
LONG = (
    "The new bridge is expensive. It will cost the city about 40 million dollars over 10 years. "
    "Clearly, the council should consider cheaper options. Mayor Lopez has said the ferry is "
    "enough for most people, and the traffic data from 2019 supports her view."
)


def _marks(text: str) -> str:
    """Every character that is not a letter, digit, space or comma, in order."""
    return re.sub(r"[^\W_]|\s|,", "", text)


@pytest.mark.parametrize("pole", ["high", "low"])
def test_long_text_keeps_facts_length_and_moves(pole: str) -> None:
    new = lexical_rewrite(LONG, pole, seed=1)
    assert new != LONG
    assert facts_match(LONG, new) == (True, "")
    assert within_tolerance(length_ratio(LONG, new), 0.05)
    assert _marks(new) == _marks(LONG)
    assert re.findall(r"\d", new) == re.findall(r"\d", LONG)
    assert moved_in_direction(LONG, new, pole, CONF)
    assert "Mayor Lopez" in new  # no opener before a name


def test_swaps_keep_case_and_only_touch_adverbs() -> None:
    assert lexical_rewrite("Clearly, it works.", "low", 0) == "Arguably, it works."
    assert lexical_rewrite("It is obviously true.", "low", 0) == "It is apparently true."
    assert lexical_rewrite("Perhaps it works.", "high", 0) == "Clearly it works."
    # a manner adverb is not a booster: "speaks clearly" stays
    assert lexical_rewrite("She speaks clearly.", "low", 0) == "She speaks clearly."
    # no hedge or booster on a number
    assert lexical_rewrite("It lasts possibly 6 weeks.", "high", 0) == "It lasts possibly 6 weeks."


def test_short_texts_get_swaps_only() -> None:
    """Under 20 words, ±5% allows no added word: without an adverb to swap, nothing changes
    (and the direction check then excludes the version)."""
    short = "The policy reduces costs and helps the town."
    assert lexical_rewrite(short, "high", 0) == short
    assert not moved_in_direction(short, short, "high", CONF)


def test_insertions_are_bounded_by_the_budget() -> None:
    text = " ".join(f"The part {i} is good." for i in range(20))  # 100 words, 20 sentences
    new = lexical_rewrite(text, "high", 3)
    assert len(words(new)) - len(words(text)) == 5  # floor(5% of 100)
    assert len(words(lexical_rewrite(text, "high", 3, tolerance=0.10))) == 110
    assert len(words(lexical_rewrite(text[:-6], "high", 3))) == 99 + 4  # floor(4.95)


def test_links_questions_and_names_are_left_alone() -> None:
    text = (
        "See www.example.org/the-report.html for the data. Is this the plan we want? "
        "Smith is right and Jones is wrong. " + "The argument is simple and it is short. " * 3
    )
    for pole in ("high", "low"):
        new = lexical_rewrite(text, pole, 5)
        assert "www.example.org/the-report.html" in new
        assert "Is this the plan we want?" in new
        assert "Smith is right" in new or "Smith may be right" in new
        assert facts_match(text, new)[0]


def test_guard_drops_a_move_that_would_change_a_fact() -> None:
    """A bad rule (a capitalised swap mid-sentence adds a "name") is caught move by move."""
    data = tomllib.loads((AXES_DIR / "confidence.toml").read_text())
    data["poles"]["high"]["lexical"]["swap"]["perhaps"] = "Clearly"
    axis = parse_axis(data, "test")
    text = "It is perhaps true and it is possibly fine."
    assert lexical_rewrite(text, "high", 0, axis) == "It is perhaps true and it is certainly fine."


def test_deterministic_and_fluency_unsupported() -> None:
    assert lexical_rewrite(LONG, "low", 42) == lexical_rewrite(LONG, "low", 42)
    assert {lexical_rewrite(LONG, "low", s) for s in range(10)} != {LONG}
    assert lexical_rewrite(LONG, "native", 0) is None
    assert lexical_rewrite(LONG, "non_native", 0) is None
    with pytest.raises(KeyError):
        lexical_rewrite(LONG, "medium", 0)


@pytest.fixture(scope="module")
def ukp_sample() -> pl.DataFrame:
    return load_ukp(mirror_dir() / "ukpconvarg1").gather_every(5).head(200)


@pytest.mark.parametrize("pole", ["high", "low"])
def test_real_ukp_texts(ukp_sample: pl.DataFrame, pole: str) -> None:
    changed = long_changed = long = 0
    for text in ukp_sample["text"]:
        new = lexical_rewrite(text, pole, seed=7)
        rows = {r["check"]: r for r in check_version(text, new, CONF, pole, 0.05)}
        # guaranteed for every text
        assert rows["facts"]["passed"], rows["facts"]["detail"]
        assert rows["length"]["passed"], rows["length"]["detail"]
        assert _marks(new) == _marks(text)
        assert re.findall(r"\d", new) == re.findall(r"\d", text)
        assert new.count(",") >= text.count(",")
        # a version that changed passes every check; one that did not fails only direction
        if new != text:
            assert all(r["passed"] for r in rows.values()), rows
        else:
            assert [c for c, r in rows.items() if not r["passed"]] == ["direction"]
        is_long = len(words(text)) >= 20
        changed += new != text
        long += is_long
        long_changed += is_long and new != text
    assert ukp_sample.height == 200
    assert changed / 200 >= 0.75
    assert long_changed / long >= 0.90


def test_lexical_versions_frame(ukp_sample: pl.DataFrame) -> None:
    versions = lexical_versions(ukp_sample.head(3), CONF, seed=0)
    assert versions.height == 6
    assert versions["rewriter"].unique().to_list() == [REWRITER]
    assert versions["version_id"][0] == f"lexical:confidence:high:{ukp_sample['text_id'][0]}"
    assert lexical_versions(ukp_sample.head(3), load_axis("fluency"), seed=0).height == 0
