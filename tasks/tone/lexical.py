"""The rule-based rewriter: the control arm whose content is frozen by construction.

`lexical_rewrite` serves every axis with `lexical` rules: a pole that is the original comes
back as it is, `kind = "pad"` goes to tasks.tone.padding (verbosity), `kind = "bullets"` to
tasks.tone.markdown (formatting), and the default `kind = "edits"` is the confidence
rewriter below.

It only swaps single-word certainty adverbs for their opposite-pole counterparts and inserts
adverbs or sentence openers from the axis's `lexical` tables (prompts/tone/axes/confidence.toml),
so any score gap it produces comes from tone alone. The moves, for `low` (mirrored for `high`):

* swap: every opposite-pole adverb listed in `swap` ("clearly" → "arguably"), keeping its
  capitalisation, unless a number follows ("possibly 6"). Adverbs that can also describe
  manner ("explained it clearly") are swapped only at a sentence start or after an
  auxiliary, modal or subject pronoun.
* insert after an auxiliary, modal or pronoun contraction: "is arguably", "will perhaps",
  "it's arguably"; not before "not"/"never", a pronoun or another marker, not in an
  inversion ("only is it", "who are you"); "has/have/had" only before "been" or an -ed/-en
  participle.
* copula (low only): "is"/"are" → "may be", under the same conditions, and not before
  "being", "been" or "to".
* sentence opener: "Arguably," / "Perhaps" / "It seems that" before a sentence whose first
  word is a capitalised determiner, pronoun or the like ("The", "This", "We", "If"…), which
  is then lowercased, or a lowercase word after . ! ? (informal texts). Never before a name,
  "I", an acronym or any other capitalised word, which keeps its capital and its place.

No move touches a digit, a capitalised word (other than a swapped adverb or a lowercased
opener at a sentence start) or punctuation, except the comma an opener like "Arguably,"
brings. Questions, links, e-mail addresses and paths are left alone; a lowercase word after a
bare line break is taken for a wrapped line, not a sentence start. Each move is checked with
`facts_match` as it is applied and dropped if it would change a fact (a guard that should
never fire).

Length: swaps keep the word count; insertions add at most floor(tolerance × words) words
(at ±5%, one per 20 words), at most one per sentence and none in a sentence that had a swap,
so every output is within tolerance. A text under 20 words gets no insertion, only swaps; if
it has no opposite-pole adverb it comes back unchanged, and the direction check then fails it
(it is excluded from scoring rather than scored as a rewrite). On UKPConvArg1 that is about
one text in five. The fluency axis has no `lexical` rules: `lexical_rewrite` returns None
for its poles.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

import polars as pl

from tasks.tone.axes import Axis, BulletRules, LexicalRules, PadRules, axis_of, length_change
from tasks.tone.checks import DEFAULT_TOLERANCE, facts_match
from tasks.tone.markdown import bullets
from tasks.tone.padding import pad
from tasks.tone.tokens import PROTECTED, sentence_start, words

REWRITER = "lexical"
TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
AUXILIARIES = {"is", "are", "was", "were", "will", "would", "can", "could", "should", "must"}
PERFECT = {"has", "have", "had"}
# Boosters after a hedging modal read oddly ("could clearly"): not inserted there.
HEDGING_MODALS = {"would", "could", "may", "might"}
NEGATIONS = {"not", "never"}
# After an auxiliary these end its clause ("what he was and is"): nothing is inserted.
CLAUSE_ENDS = {"and", "or", "but", "nor", "so", "because", "if", "when", "than", "as"}
SUBJECTS = {"i", "we", "you", "they", "he", "she", "it", "this", "that", "which", "who"}
SUBJECTS |= {"and", "but", "so", "also"}
# First words after which a sentence opener can go, lowercased.
OPENERS = {"the", "this", "that", "these", "those", "it", "there", "we", "they", "he", "she"}
OPENERS |= {"you", "our", "their", "his", "her", "its", "my", "your", "a", "an", "such"}
OPENERS |= {"many", "most", "some", "people", "all", "no", "not", "every", "each", "any", "both"}
OPENERS |= {"in", "with", "if", "when", "for", "as", "because", "even"}
# Pronoun + auxiliary contractions an adverb can follow ("it's clearly"); never a possessive.
CONTRACTED = {"it's", "that's", "there's", "he's", "she's", "we're", "they're", "you're"}
CONTRACTED |= {"i'm", "we'll", "they'll", "it'll", "you'll", "we've", "they've", "i've"}
# A copula after these is inverted or clause-initial: "only is it", "how is", "here is".
INVERTERS = {"only", "nor", "neither", "so", "how", "what", "where", "why", "when", "here"}
INVERTERS |= {"who", "which", "whom", "whose"}
# An auxiliary followed by one of these is inverted ("is it", "are you"): no move there.
PRONOUNS = {"i", "you", "he", "she", "it", "we", "they", "there", "this", "that"}
COPULAS = {"is", "are"}
# Lowercase sentence starts that take no opener ("Arguably, may …", "Perhaps why …").
NOT_OPENABLE = AUXILIARIES | PERFECT | INVERTERS | {"may", "might", "do", "does", "did"}
# "is also" → "may be also" misplaces the adverb; "is being" → "may be being" stacks.
COPULA_BLOCKERS = NEGATIONS | {"being", "been", "to", "also", "still", "just", "even", "only"}
COPULA_BLOCKERS |= {"already", "always", "never", "often", "usually", "really"}
MANNER_AMBIGUOUS = {"clearly", "obviously", "evidently", "plainly"}


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    new: str
    delta: int  # words added
    sentence: int


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int
    sentence: int
    starts_sentence: bool  # after . ! ? or a line break (a colon does not count here)
    after_stop: bool  # after . ! ? and whitespace (not only a line break)
    bare: bool  # preceded by whitespace or nothing, not by a bracket or quote
    protected: bool  # inside a link, address or path

    @property
    def lower(self) -> str:
        return self.text.lower()


def _before(text: str, i: int, skip: str) -> str:
    """The character before position `i` once `skip` characters are passed ("" at the start)."""
    while i > 0 and text[i - 1] in skip:
        i -= 1
    return text[i - 1] if i > 0 else ""


def _tokens(text: str) -> list[_Token]:
    protected = [m.span() for m in PROTECTED.finditer(text)]
    out, sentence = [], -1
    for m in TOKEN.finditer(text):
        start = sentence_start(text, m.start())
        if start or sentence < 0:
            sentence += 1
        opened = _before(text, m.start(), "\"'“‘([{*•-–— \t")
        spaced = m.start() == 0 or text[m.start() - 1] in " \t\n"
        out.append(
            _Token(
                text=m.group(),
                start=m.start(),
                end=m.end(),
                sentence=sentence,
                starts_sentence=start and opened in ("", *".!?…\n\r"),
                after_stop=spaced and _before(text, m.start(), " \t\n") in ("", *".!?…"),
                bare=m.start() == 0 or text[m.start() - 1].isspace(),
                protected=any(a <= m.start() < b for a, b in protected),
            )
        )
    return out


def _questions(text: str, tokens: list[_Token]) -> set[int]:
    """Sentences that hold a question mark."""
    starts: dict[int, int] = {}
    for t in tokens:
        starts.setdefault(t.sentence, t.start)
    order = sorted(starts)
    out = set()
    for i, s in enumerate(order):
        stop = starts[order[i + 1]] if i + 1 < len(order) else len(text)
        if "?" in text[starts[s] : stop]:
            out.add(s)
    return out


def _adjacent(text: str, a: _Token, b: _Token) -> bool:
    """b follows a in the same sentence with only spaces between them."""
    gap = text[a.end : b.start]
    return a.sentence == b.sentence and gap != "" and gap.strip(" \t") == ""


def _match_case(word: str, model: str) -> str:
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[0].isupper():
        return word[0].upper() + word[1:]
    return word


def _swaps(text: str, tokens: list[_Token], rules: LexicalRules) -> list[_Edit]:
    edits = []
    for i, t in enumerate(tokens):
        target = rules.swap.get(t.lower)
        if target is None or t.protected:
            continue
        if t.text[0].isupper() and not t.starts_sentence:
            continue  # a capitalised adverb mid-sentence would count as a name
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is not None and _adjacent(text, t, nxt) and any(c.isdigit() for c in nxt.text):
            continue  # "possibly 6": numbers are not hedged or boosted
        if t.lower in MANNER_AMBIGUOUS and not t.starts_sentence:
            prev = tokens[i - 1] if i else None
            allowed = AUXILIARIES | PERFECT | SUBJECTS | HEDGING_MODALS
            if prev is None or prev.sentence != t.sentence or prev.lower not in allowed:
                continue
        edits.append(_Edit(t.start, t.end, _match_case(target, t.text), 0, t.sentence))
    return edits


def _insertions(
    text: str, tokens: list[_Token], rules: LexicalRules, pole: str, markers: set[str]
) -> list[list[_Edit]]:
    """Per insertion site, its alternatives (one per phrase)."""
    questions = _questions(text, tokens)
    sentence_opener: dict[int, str] = {}
    for t in tokens:
        sentence_opener.setdefault(t.sentence, t.lower)
    auxiliaries = AUXILIARIES | PERFECT
    if pole == "high":
        auxiliaries = auxiliaries - HEDGING_MODALS
    sites = []
    for i, t in enumerate(tokens):
        if t.sentence in questions or t.protected:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        prev = tokens[i - 1] if i else None
        follows = (
            nxt is not None
            and _adjacent(text, t, nxt)
            and nxt.text.isalpha()
            and nxt.text.islower()
            and nxt.lower not in NEGATIONS
            and nxt.lower not in markers
            and nxt.lower not in PRONOUNS
            and nxt.lower not in CLAUSE_ENDS
            and not nxt.protected
            and not (prev is not None and prev.sentence == t.sentence and prev.lower in INVERTERS)
            and sentence_opener.get(t.sentence, "") not in INVERTERS
        )
        aux = t.text in auxiliaries or t.lower.replace("’", "'") in CONTRACTED
        if (
            aux
            and follows
            and (t.text not in PERFECT or nxt.lower == "been" or nxt.lower.endswith(("ed", "en")))
        ):
            sites.append(
                [_Edit(t.end, t.end, f" {a}", 1, t.sentence) for a in rules.insert_after_aux]
            )
        if (
            rules.copula_to_modal
            and t.text in COPULAS
            and follows
            and nxt.lower not in COPULA_BLOCKERS
            and prev is not None
            and prev.sentence == t.sentence
            and prev.lower not in INVERTERS
        ):
            delta = len(rules.copula_to_modal.split()) - 1
            sites.append([_Edit(t.start, t.end, rules.copula_to_modal, delta, t.sentence)])
        if (
            t.starts_sentence
            and t.bare
            and nxt is not None
            and nxt.sentence == t.sentence
            and t.lower not in markers
            and not any(c.isdigit() for c in t.text)
        ):
            if t.text.islower() and t.after_stop and t.lower not in NOT_OPENABLE:
                # an informal lowercase start: nothing to lowercase
                first = t.text
            elif t.lower in OPENERS and (len(t.text) == 1 or t.text[1:].islower()):
                first = t.text[0].lower() + t.text[1:]
            else:  # a name, "I", an acronym or another capitalised word keeps its place
                first = None
            alternatives = [
                _Edit(t.start, t.end, f"{p} {first}", len(words(p)), t.sentence)
                for p in (rules.insert_at_start if first is not None else ())
                if not (p.lower().endswith(" that") and t.lower == "that")
            ]
            if alternatives:
                sites.append(alternatives)
    return sites


def _choose(
    sites: list[list[_Edit]], budget: int, blocked: set[int], rng: random.Random
) -> list[_Edit]:
    """At most one insertion per sentence, sentences in random order, within the word budget."""
    by_sentence: dict[int, list[list[_Edit]]] = {}
    for alternatives in sites:
        by_sentence.setdefault(alternatives[0].sentence, []).append(alternatives)
    order = sorted(s for s in by_sentence if s not in blocked)
    rng.shuffle(order)
    chosen, remaining = [], budget
    for s in order:
        if remaining <= 0:
            break
        fitting = [[e for e in alts if e.delta <= remaining] for alts in by_sentence[s]]
        fitting = [alts for alts in fitting if alts]
        if not fitting:
            continue
        edit = rng.choice(rng.choice(fitting))
        chosen.append(edit)
        remaining -= edit.delta
    return chosen


def lexical_rewrite(
    text: str,
    pole: str,
    seed: int | str,
    axis: Axis | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> str | None:
    """`text` moved toward `pole` by the pole's rules (the module docstring); the text itself
    for a pole that is the original; None if the pole has no lexical rules (fluency). The same
    text, pole and seed always give the same output."""
    axis = axis or axis_of(pole)
    rules = axis.pole(pole).lexical
    if axis.pole(pole).original:
        return text
    if isinstance(rules, PadRules):
        return pad(text, rules, length_change(axis.pole(pole), tolerance), seed)
    if isinstance(rules, BulletRules):
        return bullets(text, rules)
    if rules is None:
        return None
    markers = {m.lower() for p in axis.poles.values() for m in p.markers if " " not in m}
    tokens = _tokens(text)
    rng = random.Random(f"{seed}:{pole}")
    swaps = _swaps(text, tokens, rules)
    budget = math.floor(tolerance * len(words(text)) + 1e-9)
    sites = _insertions(text, tokens, rules, pole, markers)
    edits = swaps + _choose(sites, budget, {e.sentence for e in swaps}, rng)
    ordered = sorted(edits, key=lambda e: e.start, reverse=True)
    out = _apply(text, ordered)
    if facts_match(text, out)[0]:
        return out
    out = text  # the guard fired: keep only the moves that leave every fact in place
    for edit in ordered:
        candidate = _apply(out, [edit])
        if facts_match(text, candidate)[0]:
            out = candidate
    return out


def _apply(text: str, edits: list[_Edit]) -> str:
    """Edits sorted right to left, so earlier offsets stay valid."""
    for edit in edits:
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def lexical_versions(texts: pl.DataFrame, axis: Axis, seed: int) -> pl.DataFrame:
    """Both poles of every text (tone_texts rows) → versions: version_id, text_id, axis, pole,
    rewriter, text. version_id is `lexical:<axis>:<pole>:<text_id>`. Empty if the axis has no
    lexical rules; a pole that is the original gets the original text."""
    rows = []
    movable = any(p.lexical is not None for p in axis.poles.values())
    for pole in axis.poles:
        if not movable or (axis.pole(pole).lexical is None and not axis.pole(pole).original):
            continue
        for text_id, text in texts.select("text_id", "text").iter_rows():
            rows.append(
                {
                    "version_id": f"{REWRITER}:{axis.name}:{pole}:{text_id}",
                    "text_id": text_id,
                    "axis": axis.name,
                    "pole": pole,
                    "rewriter": REWRITER,
                    "text": lexical_rewrite(text, pole, seed, axis),
                }
            )
    schema = dict.fromkeys(["version_id", "text_id", "axis", "pole", "rewriter", "text"], pl.String)
    return pl.DataFrame(rows, schema=schema)
