"""The formatting axis's markup: the rule-based bullets (control arm), markdown stripped for
the checks, and the structure count that shows a rewrite moved toward bullets.

Control arm (`kind = "bullets"`): every sentence of the text (tasks.tone.tokens) becomes one
"- " bullet, in order, and its key phrase goes in bold: the longest run of consecutive content
words (no stopwords, no digits, at least three letters each; the run with the most letters,
the first on a tie), cut to its first `bold_words` words; no bold where stripping it would not
give the sentence back (asterisks of the original in the way). Nothing else changes: the words
of the bullets, markup stripped, are the original's words in the original's order.
"""

from __future__ import annotations

import re

from tasks.tone.axes import BulletRules
from tasks.tone.tokens import WORD, sentence_spans

# list markers at a line start, nested ones too ("- 1. "), so stripping treats a numbered line
# of the original and its bullet alike
BULLET = re.compile(r"^[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)+", re.M)
# bold and italic open and close at word edges on one line: "f**king" is a censored word, not
# the start of a bold span, and a span never pairs marks across the lines of a bullet list
BOLD = re.compile(r"(?<![\w*])(\*\*|__)(?=\S)([^\n]+?)(?<=\S)\1(?![\w*])")
_ITALIC = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.M)
# fmt: off
STOPWORDS = frozenset([
    "a", "an", "the", "and", "or", "but", "nor", "so", "yet", "for", "of", "in", "on", "at", "to",
    "from", "by", "with", "without", "about", "as", "into", "onto", "than", "then", "that",
    "this", "these", "those", "there", "here", "it", "its", "it's", "is", "are", "was", "were",
    "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having",
    "will", "would", "shall", "should", "can", "could", "may", "might", "must", "not", "no", "i",
    "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "they",
    "them", "their", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "only", "own",
    "same", "very", "just", "also", "too", "if", "because", "while", "until", "though",
    "although", "since", "whether", "even", "ever", "never", "again", "once", "out", "up", "down",
    "off", "over", "under", "one", "get", "got", "make", "made", "really", "much", "many", "lot",
])
# fmt: on


def strip_markdown(text: str) -> str:
    """`text` without list markers, bold and italic marks, or heading marks (the words and
    line breaks stay)."""
    text = _HEADING.sub("", BULLET.sub("", text))
    text = BOLD.sub(r"\2", text)
    return _ITALIC.sub(r"\2", text)


def structure(text: str) -> tuple[int, int]:
    """(bullet lines, bold spans) of a text."""
    return len(BULLET.findall(text)), len(BOLD.findall(text))


def key_phrase(sentence: str, max_words: int) -> tuple[int, int] | None:
    """(start, end) in `sentence` of its key phrase, or None without a content word."""
    best, run = None, []
    for m in [*WORD.finditer(sentence), None]:
        content = (
            m is not None
            and m.group().isalpha()
            and len(m.group()) >= 3
            and m.group().lower() not in STOPWORDS
        )
        adjacent = bool(run) and m is not None and sentence[run[-1].end() : m.start()] == " "
        if content and (not run or adjacent):
            run.append(m)
            continue
        if run:
            cut = run[:max_words]
            letters = sum(len(w.group()) for w in cut)
            if best is None or letters > best[0]:
                best = (letters, cut[0].start(), cut[-1].end())
        run = [m] if content else []
    return None if best is None else (best[1], best[2])


def bullets(text: str, rules: BulletRules) -> str:
    """One "- " bullet per sentence, its key phrase in bold (see the module docstring)."""
    lines = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        phrase = key_phrase(sentence, rules.bold_words)
        if phrase is not None:
            a, b = phrase
            bold = f"{sentence[:a]}**{sentence[a:b]}**{sentence[b:]}"
            # markup of the original ("*" of a censored word) could pair with the new marks
            sentence = bold if strip_markdown(bold) == strip_markdown(sentence) else sentence
        lines.append(f"- {sentence}")
    return "\n".join(lines)
