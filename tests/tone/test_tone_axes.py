"""Style axes as data: the files load and agree with the rest of the tone tables; prompts
render; the change list and preambles are stripped from messy model answers."""

from __future__ import annotations

import copy
import re
import tomllib

import pytest

from schemas.tone_scores import TONE_POLES
from tasks.tone.axes import (
    AXES_DIR,
    AxisError,
    axis_of,
    load_axes,
    load_axis,
    parse_axis,
    render_rewrite_prompt,
    strip_change_list,
)


def test_axes_match_the_tone_tables() -> None:
    axes = load_axes()
    assert {name: tuple(a.poles) for name, a in axes.items()} == TONE_POLES
    conf = axes["confidence"]
    assert conf.density_lexicon().keys() == {"boosters", "hedges"}
    assert {"clearly", "undoubtedly"} <= set(conf.pole("high").markers)
    assert {"may", "apparently", "it seems to us"} <= set(conf.pole("low").markers)
    assert conf.opposite("high").name == "low"
    assert axes["fluency"].pole("non_native").diversity == "down"
    assert axis_of("non_native").name == "fluency"
    with pytest.raises(KeyError, match="no pole 'medium'"):
        conf.pole("medium")


def test_lexical_moves_use_the_axis_lexicons() -> None:
    """Every word the rule-based rewriter inserts is counted as a marker of its pole, and every
    word it swaps away is a marker of the opposite pole, so the direction check sees each move."""
    conf = load_axis("confidence")
    for name, pole in conf.poles.items():
        rules = pole.lexical
        assert rules is not None
        own = {m.lower() for m in pole.markers}
        other = {m.lower() for m in conf.opposite(name).markers}
        inserted = [*rules.insert_after_aux, *(p.rstrip(",") for p in rules.insert_at_start)]
        inserted += list(rules.swap.values())
        for phrase in inserted:
            assert phrase.lower() in own or phrase.lower().split()[0] in own, phrase
        assert set(rules.swap) <= other
    if conf.pole("low").lexical.copula_to_modal:
        assert conf.pole("low").lexical.copula_to_modal.split()[0] in conf.pole("low").markers
    assert all(p.lexical is None for p in load_axis("fluency").poles.values())


def test_prompt_renders_text_rules_and_length() -> None:
    conf = load_axis("confidence")
    text = " ".join(["word"] * 40) + " costs fell 12% in 2025."
    prompt = render_rewrite_prompt(conf, "low", text, 0.05)
    assert f"<text>\n{text}\n</text>" in prompt
    assert conf.pole("low").description in prompt
    assert "within ±5% of the original's 45 words: write 43 to 47 words" in prompt
    assert "- Modal verbs: may, might, could, would" in prompt
    assert "CHANGES:" in prompt and "$" not in prompt.replace(text, "")
    short = render_rewrite_prompt(load_axis("fluency"), "non_native", "One two three.", 0.05)
    assert "write exactly 3 words" in short


def test_malformed_axis_names_the_key() -> None:
    data = tomllib.loads((AXES_DIR / "confidence.toml").read_text())
    broken = copy.deepcopy(data)
    broken["rewrite_template"] = "Rewrite $text"
    with pytest.raises(AxisError, match="rewrite_template: missing \\$pole_description"):
        parse_axis(broken, "x.toml")
    broken = copy.deepcopy(data)
    broken["poles"]["mid"] = broken["poles"]["high"]
    with pytest.raises(AxisError, match="exactly two poles"):
        parse_axis(broken, "x.toml")
    broken = copy.deepcopy(data)
    broken["poles"]["low"]["diversity"] = "sideways"
    with pytest.raises(AxisError, match=re.escape("poles.low.diversity")):
        parse_axis(broken, "x.toml")
    broken = copy.deepcopy(data)
    broken["poles"]["low"]["lexical"]["swap"]["clearly"] = "it seems"
    with pytest.raises(AxisError, match="changes the number of words"):
        parse_axis(broken, "x.toml")
    broken = copy.deepcopy(data)
    del broken["poles"]["high"]["techniques"]
    with pytest.raises(AxisError, match=re.escape("poles.high: missing key 'techniques'")):
        parse_axis(broken, "x.toml")


# ------------------------------------------------------------------------------- change lists

TEXT = "Bottled water is arguably not our biggest problem.\nOther drinks may use more water."


@pytest.mark.parametrize(
    "raw",
    [
        TEXT + "\n\nCHANGES:\n- added arguably\n- added may",
        "Sure! Here is the rewritten text:\n\n" + TEXT + "\n\n**CHANGES:**\n1. added hedges",
        "Here is the low-confidence version: " + TEXT + "\nCHANGES: added hedges",
        TEXT + "\n\n---\n### Changes made\n- hedges",
        "```\n" + TEXT + "\n```\nCHANGES:\n- x",
        "<text>\n" + TEXT + "\n</text>\n\nChanges:\n* one",
        "Certainly!\nRewritten text:\n" + TEXT + "\nCHANGES: none",
        (TEXT + "\n\nCHANGES:\n- a").replace("\n", "\r\n"),
        TEXT + "\n\nchanges made:\n- a",
        TEXT + "\nCHANGES:\n- a\nCHANGES:\n- b",
        "**Low-confidence version:**\n\n" + TEXT + "\n\nCHANGES:\n- a",
        "Sure, here's the rewrite.\n" + TEXT,
        "  " + TEXT + "  ",
    ],
)
def test_strip_change_list_on_messy_answers(raw: str) -> None:
    assert strip_change_list(raw) == TEXT


@pytest.mark.parametrize(
    "raw",
    [
        "Changes in policy are needed.\n" + TEXT,  # a text line that starts with "Changes"
        "This is why: " + TEXT,  # an opening with a colon that announces nothing
        "The new law: " + TEXT,
    ],
)
def test_strip_change_list_keeps_text_that_only_looks_like_markup(raw: str) -> None:
    assert strip_change_list(raw) == raw


def test_an_answer_that_is_only_a_change_list_is_kept() -> None:
    """Nothing to strip it down to: it stays whole and fails the length check downstream."""
    assert strip_change_list("CHANGES: nothing") == "CHANGES: nothing"
