"""The verbosity and formatting axes: data in their axis files, control arms that pass their own
checks on real UKPConvArg1 arguments, checks that reject what each axis forbids (a padded
version with a new number or name; bullets with a sentence dropped), a pole that is the
original, and LLM plans that never ask for it."""

from __future__ import annotations

import copy
import re
import tomllib

import polars as pl
import pytest
from conftest import mirror_dir

from judgelab.study import Judge, Study
from tasks.benchmarks.tonetexts import load_ukp
from tasks.judging.scales import load_scales
from tasks.tone import versions
from tasks.tone.axes import AXES_DIR, AxisError, axis_poles, load_axis, parse_axis
from tasks.tone.axes import render_rewrite_prompt as prompt
from tasks.tone.checks import check_version, word_change, words
from tasks.tone.lexical import lexical_rewrite, lexical_versions
from tasks.tone.markdown import strip_markdown, structure
from tasks.tone.plan import rewrite_plan
from tasks.tone.similarity import local_backend_missing, similarity
from tasks.tone.tokens import sentence_spans

VERB, FORM, CONF = load_axis("verbosity"), load_axis("formatting"), load_axis("confidence")
N_TEXTS = 200


@pytest.fixture(scope="module")
def ukp() -> list[str]:
    return load_ukp(mirror_dir() / "ukpconvarg1").gather_every(5).head(N_TEXTS)["text"].to_list()


def checks(original: str, rewrite: str, axis, pole: str) -> dict[str, dict]:
    return {r["check"]: r for r in check_version(original, rewrite, axis, pole, 0.05)}


def failed(rows: dict[str, dict]) -> set[str]:
    return {name for name, r in rows.items() if not r["passed"]}


# ---------------------------------------------------------------------------------- the data


def test_axes_declare_their_checks_as_data() -> None:
    poles = axis_poles()
    assert poles["verbosity"] == ("padded", "unpadded")
    assert poles["formatting"] == ("bullets", "prose")
    assert poles["confidence"] == ("high", "low")  # file order is the gap's A − B
    padded, bullets = VERB.pole("padded"), FORM.pole("bullets")
    assert padded.length_change == (0.4, 0.6) and padded.words.missing == 0.05
    assert padded.words.added is None and padded.direction == "markers"
    assert bullets.direction == "markdown" and bullets.markup == "markdown"
    assert (bullets.words.missing, bullets.words.added) == (0.03, 0.03)
    assert VERB.pole("unpadded").original and FORM.pole("prose").original
    assert VERB.rewritten() == ["padded"] and FORM.rewritten() == ["bullets"]
    # the existing axes keep the defaults: ± the study's tolerance, markers, no markup
    for pole in (*CONF.poles.values(), *load_axis("fluency").poles.values()):
        assert (pole.length_change, pole.direction, pole.markup, pole.words) == (
            None,
            "markers",
            None,
            None,
        )
        assert not pole.original
    # every phrase the padding draws from is a marker of its pole (the direction check sees it)
    rules = padded.lexical
    assert {*rules.restate, *rules.echo, *rules.filler} == set(padded.markers)


def test_prompts_state_each_poles_length_rule() -> None:
    text = " ".join(["word"] * 40) + " costs fell 12% in 2025."  # 45 words
    padded = prompt(VERB, "padded", text, 0.05)
    assert "Change the length by +40% to +60% of the original's 45 words: write 63 to 72" in padded
    assert "- Restatements: To put it another way, In other words" in padded
    bullets = prompt(FORM, "bullets", text, 0.05)
    assert "within ±5% of the original's 45 words: write 43 to 47 words" in bullets
    for p in (padded, bullets):
        assert f"<text>\n{text}\n</text>" in p and "$" not in p.replace(text, "")
    with pytest.raises(ValueError, match="is the original text"):
        prompt(VERB, "unpadded", text, 0.05)


def test_malformed_new_keys_name_the_key() -> None:
    data = tomllib.loads((AXES_DIR / "verbosity.toml").read_text())
    cases = [
        (("poles", "padded", "length_change"), [0.6, 0.4], "poles.padded.length_change"),
        (("poles", "padded", "words"), {"dropped": 0.1}, "poles.padded.words"),
        (("poles", "padded", "direction"), "sideways", "poles.padded.direction"),
        (("poles", "padded", "lexical", "kind"), "shuffle", "poles.padded.lexical.kind"),
        (("poles", "padded", "lexical", "filler"), "nope", "poles.padded.lexical.filler"),
        (("poles", "unpadded", "length_change"), [0.1, 0.2], "poles.unpadded: a pole that is"),
        (("poles", "padded"), {"original": True, "description": "x"}, "at most one pole can"),
    ]
    for path, value, message in cases:
        broken = copy.deepcopy(data)
        node = broken
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(AxisError, match=re.escape(message)):
            parse_axis(broken, "verbosity.toml")


# --------------------------------------------------------------------------- the control arms


def test_padding_is_deterministic_and_passes_its_checks_on_real_texts(ukp: list[str]) -> None:
    """Every argument long enough for the range to hold whole words (at least 10 words) is
    padded into +40–60% and passes every model-free check; the original's words are all kept
    and the added ones carry no digit."""
    long = 0
    for text in ukp:
        new = lexical_rewrite(text, "padded", seed=7, axis=VERB)
        assert new == lexical_rewrite(text, "padded", seed=7, axis=VERB)
        rows = checks(text, new, VERB, "padded")
        assert rows["facts"]["passed"], rows["facts"]["detail"]
        missing, _ = word_change(text, new)
        assert missing == 0.0
        assert re.findall(r"\d", new) == re.findall(r"\d", text)
        if len(words(text)) >= 10:
            long += 1
            assert not failed(rows), {k: rows[k]["detail"] for k in failed(rows)}
    assert long >= 0.9 * N_TEXTS
    assert lexical_rewrite(ukp[0], "padded", seed=1, axis=VERB) != lexical_rewrite(
        ukp[0], "padded", seed=2, axis=VERB
    )


def test_bullets_keep_every_word_and_pass_their_checks_on_real_texts(ukp: list[str]) -> None:
    for text in ukp:
        new = lexical_rewrite(text, "bullets", seed=7, axis=FORM)
        assert new == lexical_rewrite(text, "bullets", seed=0, axis=FORM)  # no draw at all
        # the same words in order (a numbered line's "1." is markup on both sides)
        assert words(strip_markdown(new)) == words(strip_markdown(text))
        bullets, bold = structure(new)
        assert bullets == len(sentence_spans(text)) and 1 <= bold <= bullets
        rows = checks(text, new, FORM, "bullets")
        assert not failed(rows), {k: rows[k]["detail"] for k in failed(rows)}
        assert rows["words"]["value"] == 0.0


@pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing()))
def test_padding_mostly_keeps_the_meaning(ukp: list[str]) -> None:
    """Cosine to the original ≥ 0.9 (the study default) for most padded texts; a short text
    padded mostly with filler may fall below it and is then not scored (padding.py: 186 of
    199 pass on this sample). Bullets need no embedding here: stripped of markup they are the
    original's words with line breaks for spaces, the same word pieces (1.000 on all 199)."""
    texts = [t for t in ukp if len(words(t)) >= 10][:30]
    cos = similarity(texts, [lexical_rewrite(t, "padded", 7, VERB) for t in texts])
    assert sum(c >= 0.9 for c in cos) >= 0.8 * len(texts)
    assert sum(cos) / len(cos) >= 0.93


def test_the_original_pole_is_the_text_itself(ukp: list[str]) -> None:
    text = ukp[3]
    for axis, pole in ((VERB, "unpadded"), (FORM, "prose")):
        assert lexical_rewrite(text, pole, seed=7, axis=axis) == text
        assert not failed(checks(text, text, axis, pole))
        assert failed(checks(text, text + " Indeed.", axis, pole)) >= {"direction"}
    found = lexical_versions(pl.DataFrame({"text_id": ["t"], "text": [text]}), VERB, seed=7)
    assert found["pole"].to_list() == ["padded", "unpadded"]
    assert found.filter(pl.col("pole") == "unpadded")["text"].item() == text


# ------------------------------------------------------------------------ what the checks reject


def test_verbosity_rejects_a_new_number_or_name_and_the_wrong_length(ukp: list[str]) -> None:
    text = next(t for t in ukp if 40 <= len(words(t)) <= 80 and not re.search(r"\d", t))
    padded = lexical_rewrite(text, "padded", seed=7, axis=VERB)
    assert not failed(checks(text, padded, VERB, "padded"))
    # an added opener swapped for as many words that bring a number or a name
    opener = next(m for m in VERB.pole("padded").markers if m in padded)
    k = len(words(opener))
    for swapped, kind in (("In 1999", "numbers"), ("As Microsoft", "names")):
        fact = " ".join([swapped, *["again"] * (k - 2)])
        rows = checks(text, padded.replace(opener, fact, 1), VERB, "padded")
        assert "facts" in failed(rows) and kind in rows["facts"]["detail"]
        assert rows["length"]["passed"]  # the same length: only the fact is new
    assert failed(checks(text, text, VERB, "padded")) == {"length", "direction"}
    twice = padded + " " + padded  # far past +60%
    assert "length" in failed(checks(text, twice, VERB, "padded"))


def test_formatting_rejects_a_dropped_sentence_and_bare_prose(ukp: list[str]) -> None:
    text = next(t for t in ukp if len(sentence_spans(t)) >= 4 and len(words(t)) >= 60)
    bullets = lexical_rewrite(text, "bullets", seed=7, axis=FORM)
    assert not failed(checks(text, bullets, FORM, "bullets"))
    lines = bullets.split("\n")
    longest = max(range(len(lines)), key=lambda i: len(words(lines[i])))
    dropped = "\n".join(lines[:longest] + lines[longest + 1 :])
    rows = checks(text, dropped, FORM, "bullets")
    assert "words" in failed(rows)
    assert rows["words"]["value"] == pytest.approx(len(words(lines[longest])) / len(words(text)))
    assert failed(checks(text, text, FORM, "bullets")) == {"direction"}  # no markup added
    # an LLM that drops one connective at a bullet's start stays within the 3% allowance
    merged = bullets.replace("- ", "- And ", 1)  # 1 word of 60 or more
    assert "words" not in failed(checks(text, merged, FORM, "bullets"))


# ----------------------------------------------------------------------------------- LLM plans


def test_llm_rewriter_is_never_asked_for_the_original_pole() -> None:
    axes = {"confidence": CONF, "verbosity": VERB, "formatting": FORM}
    study = Study(
        name="t",
        type="tone",
        tone={"axes": list(axes)},
        task="tone_argument",
        benchmark="ukpconvarg1",
        sample_size=0,
        prompt_levels=["plain"],
        scales=["rubric_argument"],
        judges=[Judge(name="e", model="fake/hash")],
        rewriter=Judge(name="r", model="fake/echo"),
    )
    texts = pl.DataFrame({"text_id": ["a", "b"], "text": ["It may rain on 3 May.", "Cats purr."]})
    plan = rewrite_plan(study, texts, axes, load_scales())
    assert sorted(plan["prompt_level"].unique()) == [
        "confidence:high",
        "confidence:low",
        "formatting:bullets",
        "verbosity:padded",
    ]
    only = study.model_copy(update={"tone": study.tone.model_copy(update={"axes": ["confidence"]})})
    alone = rewrite_plan(only, texts, {"confidence": CONF}, load_scales())
    assert (
        alone["key"].to_list()
        == plan.filter(pl.col("prompt_level").str.starts_with("conf"))["key"].to_list()
    )  # adding axes leaves the confidence calls as they were
    written = versions.as_written("t", texts, axes, "r")
    assert sorted(written["version_id"]) == [
        "r:formatting:prose:a",
        "r:formatting:prose:b",
        "r:verbosity:unpadded:a",
        "r:verbosity:unpadded:b",
    ]
    assert written["text"].to_list()[:2] == texts["text"].to_list()
