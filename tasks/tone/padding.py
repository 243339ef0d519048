"""The verbosity axis's control arm: a text padded with restatements and filler, no new claims
by construction.

Three kinds of sentence are added, each after a sentence of the text, with a seeded draw:

* a restatement: an opener of the pole's `restate` list and one of the text's own sentences,
  repeated after it ("To put it another way, the plan is cheap."). Only sentences without a
  number, date or amount (so the facts check still counts each fact once), a question mark or
  a link, and of at least three words, are restated; the sentence's first word is lowercased
  only when it is a function word ("The", "This", "We"; not "I"), so names keep their capital;
* an echo: an opener of the `echo` list and the key phrase of a sentence (its longest run of
  up to three content words, as formatting bolds it), after that sentence ("In short: bottled
  water."), again only when it holds no number;
* a filler sentence of the `filler` list ("This point deserves attention.").

Restatements come first, until the middle of the pole's length range is reached (e.g. +50%
of [+40%, +60%]), each only when it fits under the top; echoes, then filler, top the text up
into the range. Restatements and echoes before filler because they keep the text's own words
and so its meaning: on 199 UKPConvArg1 arguments of 10 words or more (every fifth), 186 padded
versions keep a cosine ≥ 0.9 to the original (mean 0.958); the rest are mostly short texts
whose one sentence is too long to restate within the range, so filler carries the padding, and
the similarity check excludes them from scoring. A text too short for the range to hold a whole
number of words (under about five words) stays short and fails the length check, as an
unmoved confidence rewrite fails direction.
"""

from __future__ import annotations

import math
import random

from tasks.tone.axes import PadRules
from tasks.tone.checks import extract_facts, facts_match
from tasks.tone.markdown import STOPWORDS, key_phrase
from tasks.tone.tokens import PROTECTED, sentence_spans, words

_CLOSERS = "\"'”’)]"
_TERMINAL = ".!?…"


def _restatable(sentence: str) -> bool:
    facts = extract_facts(sentence)
    return (
        len(words(sentence)) >= 3
        and not (facts["numbers"] or facts["dates"] or facts["amounts"])
        and "?" not in sentence
        and not PROTECTED.search(sentence)
    )


def _restatement(opener: str, sentence: str) -> str:
    first = words(sentence)[0]
    if sentence.startswith(first) and first.lower() in STOPWORDS and first[1:].islower():
        sentence = first.lower() + sentence[len(first) :]
    if not sentence.rstrip(_CLOSERS).endswith(tuple(_TERMINAL)):
        sentence += "."
    return f"{opener}, {sentence}"


def _echoes(text: str, spans: list[tuple[int, int]], openers: tuple[str, ...], rng) -> list:
    """(sentence index, echo) for each sentence with a number-free key phrase, in a seeded
    order: `opener: key phrase.`"""
    out = []
    for i, (a, b) in enumerate(spans):
        found = key_phrase(text[a:b], 3)
        if found is None:
            continue
        echo = f"{rng.choice(openers)}: {text[a + found[0] : a + found[1]]}."
        facts = extract_facts(echo)
        if not (facts["numbers"] or facts["dates"] or facts["amounts"]):
            out.append((i, echo))
    rng.shuffle(out)
    return out


def _sentence(phrase: str) -> str:
    return phrase[0].upper() + phrase[1:] + ("" if phrase.endswith(tuple(_TERMINAL)) else ".")


def pad(text: str, rules: PadRules, change: tuple[float, float], seed: int | str) -> str:
    """`text` with restatements, echoes and filler sentences adding `change` ([lo, hi]
    relative) words; the same text, rules and seed always give the same output."""
    n = len(words(text))
    lo = math.ceil(n * (1 + change[0]) - 1e-9) - n
    hi = math.floor(n * (1 + change[1]) + 1e-9) - n
    spans = sentence_spans(text)
    if not spans or hi < max(lo, 1):
        return text
    fillers = [_sentence(f) for f in rules.filler]
    sizes = {len(words(f)) for f in fillers}
    if not _fits(lo, hi, sizes):
        return text
    rng = random.Random(f"{seed}:pad")
    added: dict[int, list[str]] = {}  # sentence index → sentences added after it
    total, target = 0, (lo + hi) // 2

    def take(i: int, new: str) -> None:
        nonlocal total
        added.setdefault(i, []).append(new)
        total += len(words(new))

    def keeps_range(new: str) -> bool:
        """Filler can still bring the total into [lo, hi] after `new`."""
        k = total + len(words(new))
        return _fits(lo - k, hi - k, sizes)

    order = [i for i, (a, b) in enumerate(spans) if _restatable(text[a:b])]
    rng.shuffle(order)
    for i in order:
        new = _restatement(rng.choice(rules.restate), text[slice(*spans[i])])
        if total < target and keeps_range(new):
            take(i, new)
    for i, echo in _echoes(text, spans, rules.echo, rng):
        if total < lo and keeps_range(echo):
            take(i, echo)
    while total < lo:
        new = rng.choice([f for f in fillers if keeps_range(f)])
        take(rng.randrange(len(spans)), new)
    out = _insert(text, spans, added)
    return out if facts_match(text, out)[0] else text  # a guard that should never fire


def _fits(lo: int, hi: int, sizes: set[int]) -> bool:
    """Some sum of filler lengths (each any number of times, none at all included) lies in
    [lo, hi]."""
    if hi < max(lo, 0):
        return False
    reachable = [True] + [False] * hi
    for k in range(1, hi + 1):
        reachable[k] = any(s <= k and reachable[k - s] for s in sizes)
    return any(reachable[max(lo, 0) :])


def _insert(text: str, spans: list[tuple[int, int]], added: dict[int, list[str]]) -> str:
    """Added sentences after their sentence, right to left so offsets stay valid; after a
    sentence without closing punctuation they go on a line of their own, so the next word
    still starts a sentence."""
    for i in sorted(added, reverse=True):
        end = spans[i][1]
        closed = text[:end].rstrip(_CLOSERS).endswith(tuple(_TERMINAL))
        sep = " " if closed else "\n"
        text = text[:end] + "".join(sep + s for s in added[i]) + text[end:]
    return text
